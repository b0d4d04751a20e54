package ingest

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// Confidence of what gpubill knows about a format (FORMATS.md).
const (
	ConfidenceDoc    = "doc"    // stated by the vendor
	ConfidenceParser = "parser" // seen in third-party code that reads real files
	ConfidenceGuess  = "guess"  // inferred, not confirmed
	ConfidenceOurs   = "ours"   // gpubill's own format
)

// Targets: which ledger table a format's rows go to.
const (
	TargetLineItems    = "line_items"
	TargetTransactions = "transactions"
	TargetPayments     = "payments"
)

// maxHeaderSearch is how many records of a table are searched for a header
// row (preamble lines may come before it).
const maxHeaderSearch = 30

// Column is one column a format knows.
type Column struct {
	Field    string   // stable name used in code and in `gpubill formats`
	Headers  []string // accepted header spellings; the first is the canonical one
	Required bool     // the header signature: every required column must be present
	RawOnly  bool     // recognised, but kept only in the raw cells (no ledger column)
}

// Format is one bill layout gpubill reads. Adding a vendor format is one file
// that declares a Format (with its mapping function) plus one line in
// registry.
type Format struct {
	ID         string // stable id stored in imports.format, e.g. "gpubill-bill"
	Version    string
	NameZH     string
	NameEN     string
	Confidence string // ConfidenceDoc …
	DetectZH   string // how it is recognised
	DetectEN   string
	DedupeKey  string // which columns form the vendor line id, or how the hash is made
	Target     string // TargetLineItems, TargetTransactions or TargetPayments
	Columns    []Column

	// match, when set, adds a condition to the required columns (for
	// example "ProviderName or ServiceName").
	match func(b *binding) bool
	// lines builds the row mapper of a detected table (Target line_items).
	lines func(b *binding, env *mapEnv) (lineMapper, error)
	// rank orders detection (see registerFormat).
	rank int
	// billedIsCash: a line that states no voucher or cash part was paid in
	// money (SettlePaid).
	billedIsCash bool
	// settled, when set, tells a table whose paid parts are
	// SettlePaid's already (gpubill's own export): it is not run
	// again, which would count a credit's voucher twice.
	settled func(b *binding) bool
	// finalLineKeys: the mapper's LineKey is a ledger's stored key
	// ("<provider>:<id>#<n>", gpubill export's x_LineKey), kept as is,
	// not a vendor line id for rowKeyer.lineKey to key.
	finalLineKeys bool
	// txs builds the row mapper of a detected table (Target transactions).
	txs func(b *binding, env *mapEnv) (txMapper, error)
	// pays builds the row mapper of a detected table (Target payments).
	pays func(b *binding, env *mapEnv) (payMapper, error)
}

// lineMapper fills li from the current record; skip reports a row that
// carries no charge (a total line), counted as skipped.
type lineMapper func(c *rowCtx, li *ledger.LineItem) (skip bool, err error)

// txMapper is lineMapper for money-flow rows.
type txMapper func(c *rowCtx, tx *ledger.Transaction) (skip bool, err error)

// payMapper is lineMapper for Alipay / WeChat Pay records.
type payMapper func(c *rowCtx, p *ledger.Payment) (skip bool, err error)

// registry lists the formats in detection order; when several match one
// header row, the one that recognises the most columns wins, then the first.
// Each format file registers itself from init with registerFormat, the
// built-in profiles' families at first use (loadBuiltin): read it through
// registered.
var registry []*Format

// registered is the registry, with the built-in profiles' families.
func registered() []*Format {
	loadBuiltin()
	return registry
}

// registerFormat adds f to the registry at its rank (lower ranks are tried
// first; equal ranks keep their id order, so the order never depends on the
// order in which files are initialised).
func registerFormat(f *Format, rank int) {
	f.rank = rank
	registry = append(registry, f)
	slices.SortStableFunc(registry, func(a, b *Format) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// FormatInfo describes a format for `gpubill formats`.
type FormatInfo struct {
	ID, Version     string
	NameZH, NameEN  string
	Confidence      string
	DetectZH        string
	DetectEN        string
	DedupeKey       string
	Target          string
	Columns         []Column
	RequiredHeaders []string // canonical headers of the required columns
}

// Formats lists the formats gpubill reads, in detection order: the user
// profiles in use (UseProfiles) first, then the built-in formats.
func Formats() []FormatInfo {
	user := activeUserFormats()
	reg := registered()
	out := make([]FormatInfo, 0, len(user)+len(reg))
	for _, f := range user {
		out = append(out, formatInfo(f))
	}
	for _, f := range reg {
		out = append(out, formatInfo(f))
	}
	return out
}

// formatInfo describes one format.
func formatInfo(f *Format) FormatInfo {
	fi := FormatInfo{ID: f.ID, Version: f.Version, NameZH: f.NameZH, NameEN: f.NameEN,
		Confidence: f.Confidence, DetectZH: f.DetectZH, DetectEN: f.DetectEN, DedupeKey: f.DedupeKey,
		Target: f.Target}
	for _, c := range f.Columns {
		c.Headers = append([]string(nil), c.Headers...)
		fi.Columns = append(fi.Columns, c)
		if c.Required {
			fi.RequiredHeaders = append(fi.RequiredHeaders, c.Headers[0])
		}
	}
	return fi
}

// normCol normalises a header cell for matching: normHeader, then without a
// required-column marker (*) and a currency unit suffix such as (元) or (¥).
func normCol(s string) string {
	t := strings.Trim(normHeader(s), "*")
	for _, suf := range []string{"(元)", "(¥)", "(￥)", "(cny)", "(rmb)"} {
		t = strings.TrimSuffix(t, suf)
	}
	return strings.Trim(t, "*")
}

// binding ties a format's columns to the positions of one header row.
type binding struct {
	format  *Format
	header  []string // the header cells as written (trimmed)
	pos     []int    // per format column: the record index, -1 when absent
	unknown []int    // header positions no column claimed (kept in raw only)
	matched int      // how many columns were found
}

// bind maps header cells to the columns of f. Each column takes the first
// cell that spells one of its headers; canonical spellings and the field name
// are matched before aliases, so "应付金额" beats "金额" wherever they stand.
func bind(f *Format, header []string) *binding {
	b := &binding{format: f, header: append([]string(nil), header...), pos: make([]int, len(f.Columns))}
	norm := make([]string, len(header))
	for i, h := range header {
		norm[i] = normCol(h)
	}
	taken := make([]bool, len(header))
	for i := range b.pos {
		b.pos[i] = -1
	}
	claim := func(ci int, name string) {
		if b.pos[ci] >= 0 {
			return
		}
		n := normCol(name)
		for hi, h := range norm {
			if !taken[hi] && h != "" && h == n {
				b.pos[ci], taken[hi] = hi, true
				b.matched++
				return
			}
		}
	}
	// Pass 1: canonical header and field name; pass 2: aliases.
	for ci, c := range f.Columns {
		claim(ci, c.Field)
		if len(c.Headers) > 0 {
			claim(ci, c.Headers[0])
		}
	}
	for ci, c := range f.Columns {
		for _, h := range c.Headers {
			claim(ci, h)
		}
	}
	for hi := range header {
		if !taken[hi] {
			b.unknown = append(b.unknown, hi)
		}
	}
	return b
}

// ok reports whether the header row carries the format's signature.
func (b *binding) ok() bool {
	for ci, c := range b.format.Columns {
		if c.Required && b.pos[ci] < 0 {
			return false
		}
	}
	if b.format.match != nil && !b.format.match(b) {
		return false
	}
	return true
}

// idx is the record index of the column named field (-1 when absent).
func (b *binding) idx(field string) int {
	for ci, c := range b.format.Columns {
		if c.Field == field {
			return b.pos[ci]
		}
	}
	return -1
}

// detectHeader finds the format whose signature the record carries. User
// profiles (UseProfiles) are tried first and win whenever one matches.
func detectHeader(rec []string) *binding {
	if b := detectAmong(activeUserFormats(), rec); b != nil {
		return b
	}
	return detectAmong(registered(), rec)
}

// detectAmong returns the best binding of rec among formats.
func detectAmong(formats []*Format, rec []string) *binding {
	var best *binding
	for _, f := range formats {
		b := bind(f, rec)
		if b.ok() && (best == nil || b.matched > best.matched) {
			best = b
		}
	}
	return best
}

// mapEnv is what row mappers need besides the row.
type mapEnv struct {
	path     string
	tz       *time.Location // for naive Chinese times and billing periods
	provider string         // --provider, for formats that cannot tell
	xlsx     bool           // numbers in time columns may be Excel serial dates
	date1904 bool
	// stated is the number of records the file says it holds (a payment
	// export's 共N笔记录, in its preamble or footer); 0 = it says nothing.
	// It is never trusted for totals, only compared with the rows read.
	stated int
	// dataEnds is, per provider, how far the file says its data reaches
	// beyond its charges (gpubill export's x_DataEnd); nil = it says nothing.
	dataEnds map[string]time.Time
	// warnings are what a mapper doubts about the file (an amortized cost
	// export, an assumed date order), each once: Result.Warnings.
	warnings []Warning

	lastMonth     int // year*12+month of lastMonthText, for month
	lastMonthText string

	amounts amountMemo // for rowCtx.amount
}

// month is the billing period (YYYY-MM in the zone tz) of t. Consecutive rows
// nearly always fall in one month, so its text is built once per month.
func (e *mapEnv) month(t time.Time) string {
	y, m, _ := t.In(e.tz).Date()
	if k := y*12 + int(m); k != e.lastMonth || e.lastMonthText == "" {
		e.lastMonth, e.lastMonthText = k, t.In(e.tz).Format("2006-01")
	}
	return e.lastMonthText
}

// rowCtx is one record being mapped, with what error messages need.
type rowCtx struct {
	env *mapEnv
	b   *binding
	t   table
	rec []string
	// notRecord is set by a mapper for a row that is part of the export's
	// frame (a dashed line, a total, a footer), not a record: the row is
	// neither read nor skipped.
	notRecord bool
	// cells, when set, is where raw copies records to: the cells of the
	// batch being filled, whose array the next use of the batch reuses.
	cells *[]string
}

// cell returns the trimmed cell at record index i ("" when absent).
func (c *rowCtx) cell(i int) string {
	if i < 0 || i >= len(c.rec) {
		return ""
	}
	return c.rec[i]
}

// errAt makes an InputError about the cell at record index i.
func (c *rowCtx) errAt(i int, msg string) error {
	e := &InputError{File: c.env.path, Sheet: c.t.sheet(), Line: c.t.line(i), Msg: msg}
	if i >= 0 {
		e.Col = i + 1
		if i < len(c.b.header) {
			e.Column = c.b.header[i]
		}
	}
	return e
}

// required returns the cell at i, or an error when it is empty.
func (c *rowCtx) required(i int) (string, error) {
	s := c.cell(i)
	if s == "" {
		return "", c.errAt(i, "required value is empty")
	}
	return s, nil
}

// amount parses an optional amount cell.
func (c *rowCtx) amount(i int) (decimal.NullDecimal, error) {
	if i < 0 {
		return decimal.NullDecimal{}, nil
	}
	s := c.cell(i)
	d, err := c.env.amounts.parse(s)
	if err != nil {
		return d, c.errAt(i, err.Error())
	}
	return d, nil
}

// amountCell is an optional amount cell and where its value goes (nil: the
// cell is only checked, so a broken one is reported, not kept in raw).
type amountCell struct {
	i   int
	dst *decimal.NullDecimal
}

// amounts parses the cells in order and stops at the first error.
func (c *rowCtx) amounts(cells ...amountCell) error {
	for _, a := range cells {
		d, err := c.amount(a.i)
		if err != nil {
			return err
		}
		if a.dst != nil {
			*a.dst = d
		}
	}
	return nil
}

// requiredAmount parses an amount cell that must hold a number.
func (c *rowCtx) requiredAmount(i int) (decimal.Decimal, error) {
	d, err := c.amount(i)
	if err != nil {
		return decimal.Decimal{}, err
	}
	if !d.Valid {
		return decimal.Decimal{}, c.errAt(i, "required amount is empty")
	}
	return d.Decimal, nil
}

// time parses an optional time cell; naive text is in loc. In an XLSX
// sheet a bare number is an Excel serial date.
func (c *rowCtx) time(i int, loc *time.Location) (time.Time, error) {
	s := c.cell(i)
	if i < 0 || isUnknownText(s) {
		return time.Time{}, nil
	}
	t, err := ParseTime(s, loc)
	if err == nil {
		return t, nil
	}
	if c.env.xlsx {
		if t, ok := excelSerial(s, loc, c.env.date1904); ok {
			return t, nil
		}
	}
	return time.Time{}, c.errAt(i, err.Error())
}

// requiredTime parses a time cell that must hold a time.
func (c *rowCtx) requiredTime(i int, loc *time.Location) (time.Time, error) {
	t, err := c.time(i, loc)
	if err != nil {
		return t, err
	}
	if t.IsZero() {
		return t, c.errAt(i, "required time is empty")
	}
	return t, nil
}

// raw copies the record for the raw column (the table reuses its slice).
func (c *rowCtx) raw() []string {
	if c.cells == nil {
		return append(make([]string, 0, len(c.rec)), c.rec...)
	}
	start := len(*c.cells)
	*c.cells = append(*c.cells, c.rec...)
	return (*c.cells)[start:len(*c.cells):len(*c.cells)]
}

// emptyRecord reports a record whose cells are all empty.
func emptyRecord(rec []string) bool {
	for _, c := range rec {
		if c != "" {
			return false
		}
	}
	return true
}

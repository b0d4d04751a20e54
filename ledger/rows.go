package ledger

import (
	"encoding/json"
	"math/bits"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// LineItemArgs is the number of columns InsertLineItemRows writes per line
// item.
const LineItemArgs = 39

// The columns of line_items that LineItemRows holds as integers.
const (
	colGPUCount  = 16
	colImportID  = 36
	colSourceRow = 37
	colRowKey    = 38
)

// lineItemRow is one line item as it is bound: the text of each column, a
// bit per NULL column, and the integer columns.
type lineItemRow struct {
	text      [LineItemArgs]string
	null      uint64
	gpuCount  int64
	importID  int64
	sourceRow int64
}

// LineItemRows is a batch of line items rendered for InsertLineItemRows.
// Importers fill it in their parsing goroutine, so that the goroutine that
// writes to SQLite only binds and steps. Amounts, times and the raw cells are
// rendered into one byte arena per batch, not a string each: at a million
// rows the allocations were a third of the parsing goroutine's time.
type LineItemRows struct {
	rows  []lineItemRow
	arena textArena
}

// arenaChunk is the size of a batch's arena; a batch that outgrows it gets
// another one.
const arenaChunk = 256 << 10

// Len is the number of rows in the batch.
func (r *LineItemRows) Len() int { return len(r.rows) }

// Reset empties the batch. The rendered texts of the rows before stay valid
// (they may still be bound): the next rows get a new arena.
func (r *LineItemRows) Reset() {
	r.rows = r.rows[:0]
	r.arena = textArena{}
}

// Append renders li (with its ImportID, SourceRow and RowKey set) into the
// batch.
func (r *LineItemRows) Append(li *LineItem) {
	r.rows = append(r.rows, lineItemRow{})
	row := &r.rows[len(r.rows)-1]
	pricing := li.PricingModel
	if pricing == "" {
		pricing = PricingOnDemand
	}
	tags := li.Tags
	if tags == "" {
		tags = "{}"
	}
	t := &row.text
	t[0], t[1], t[2], t[3] = li.Provider, li.BillingAccountID, li.SubAccount, li.BillingPeriod
	t[4], t[5] = r.time(li.ChargePeriodStart), r.time(li.ChargePeriodEnd)
	t[6], t[7], t[8], t[9] = li.ChargeCategory, li.Kind, pricing, li.ServiceName
	t[10], t[11], t[12], t[13], t[14], t[15] = li.ResourceID, li.ResourceName, li.ResourceType, li.SKU, li.ParentResourceID, li.GPUModel
	if li.GPUCount > 0 {
		row.gpuCount = int64(li.GPUCount)
	} else {
		row.null |= 1 << colGPUCount
	}
	t[17], t[18] = li.Region, li.Zone
	r.ndec(row, 19, li.ConsumedQuantity)
	t[20] = li.ConsumedUnit
	r.ndec(row, 21, li.PricingQuantity)
	t[22] = li.PricingUnit
	r.ndec(row, 23, li.ListUnitPrice)
	r.ndec(row, 24, li.ListCost)
	t[25] = r.dec(li.BilledCost)
	r.ndec(row, 26, li.VoucherPaid)
	r.ndec(row, 27, li.CashPaid)
	r.ndec(row, 28, li.OtherPaid)
	r.ndec(row, 29, li.Unpaid)
	t[30] = li.Currency
	r.ntime(row, 31, li.UsageStart)
	r.ntime(row, 32, li.UsageEnd)
	t[33], t[34] = tags, li.Description
	t[35] = r.raw(li.Raw)
	row.importID, row.sourceRow = li.ImportID, int64(li.SourceRow)
	t[38] = li.RowKey
}

func (r *LineItemRows) dec(d decimal.Decimal) string {
	start := r.arena.reserve(48, arenaChunk)
	r.arena.buf = AppendDecimal(r.arena.buf, d)
	return r.arena.take(start)
}

func (r *LineItemRows) ndec(row *lineItemRow, col int, d decimal.NullDecimal) {
	if !d.Valid {
		row.null |= 1 << col
		return
	}
	row.text[col] = r.dec(d.Decimal)
}

func (r *LineItemRows) time(t time.Time) string {
	start := r.arena.reserve(len(TimeLayout)+8, arenaChunk)
	r.arena.buf = AppendTime(r.arena.buf, t)
	return r.arena.take(start)
}

func (r *LineItemRows) ntime(row *lineItemRow, col int, t time.Time) {
	if t.IsZero() {
		row.null |= 1 << col
		return
	}
	row.text[col] = r.time(t)
}

func (r *LineItemRows) raw(cells []string) string {
	n := 2
	for _, c := range cells {
		n += len(c) + 3
	}
	start := r.arena.reserve(n+n/8, arenaChunk)
	r.arena.buf = appendJSONStrings(r.arena.buf, cells)
	return r.arena.take(start)
}

// AppendDecimal appends d as DecimalString renders it.
func AppendDecimal(b []byte, d decimal.Decimal) []byte {
	e := d.Exponent()
	if e > 0 {
		return append(b, d.String()...)
	}
	// Fast path, without math/big: almost every amount has a coefficient of
	// at most 18 digits (an int64). It is on the import's hot path.
	if e >= -40 && d.NumDigits() <= 18 {
		return appendScaled(b, d.CoefficientInt64(), int(-e))
	}
	return append(b, d.StringFixed(-e)...)
}

// AppendTime appends t as FormatTime renders it.
func AppendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return append(b, FormatTime(t)...)
	}
	h, mi, s := t.Clock()
	return append(b,
		byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+mo/10), byte('0'+mo%10), '-', byte('0'+d/10), byte('0'+d%10), 'T',
		byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':',
		byte('0'+s/10), byte('0'+s%10), 'Z')
}

// appendJSONStrings appends cells as the JSON array encoding/json writes for
// a []string (HTML characters and U+2028/U+2029 escaped, invalid UTF-8 as
// U+FFFD): plain cells are copied as they are, any other through
// encoding/json.
func appendJSONStrings(b []byte, cells []string) []byte {
	b = append(b, '[')
	for i, c := range cells {
		if i > 0 {
			b = append(b, ',')
		}
		if jsonPlain(c) {
			b = append(b, '"')
			b = append(b, c...)
			b = append(b, '"')
			continue
		}
		q, _ := json.Marshal(c) // a string always encodes
		b = append(b, q...)
	}
	return append(b, ']')
}

// jsonPlain reports whether encoding/json writes s unchanged between quotes:
// valid UTF-8 without control characters, '"', '\\', HTML characters or
// U+2028/U+2029. One table look-up a byte; the rest only for cells with
// non-ASCII text (decoding runes was a tenth of the rendering on Chinese
// bills, and a switch of six comparisons a byte 5% of an import's CPU).
func jsonPlain(s string) bool {
	var seen uint8
	for i := 0; i < len(s); i++ {
		seen |= jsonByte[s[i]]
	}
	switch {
	case seen == 0:
		return true
	case seen&jsonEscaped != 0:
		return false
	}
	return utf8.ValidString(s) && !strings.Contains(s, "\u2028") && !strings.Contains(s, "\u2029")
}

// What jsonPlain's table says of a byte.
const (
	jsonEscaped = 1 << iota // encoding/json escapes it
	jsonHigh                // part of a non-ASCII character
)

var jsonByte = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c < 0x20, c == '"', c == '\\', c == '<', c == '>', c == '&':
			t[c] = jsonEscaped
		case c >= 0x80:
			t[c] = jsonHigh
		}
	}
	return t
}()

// Columns an INSERT may leave out when every row of it holds their default:
// "" (defaultEmpty), NULL (nullable, no default) or "{}" (tags). Binding a
// value costs a call into SQLite and a copy per row and column; a column
// left out costs SQLite one copy of its default. Template rows leave about
// sixteen of the 39 columns at their defaults.
const (
	defaultEmpty = 1<<1 | 1<<2 | 1<<9 | 1<<10 | 1<<11 | 1<<12 | 1<<13 | 1<<14 | 1<<15 | 1<<17 | 1<<18 | 1<<20 |
		1<<22 | 1<<34
	nullable = 1<<colGPUCount | 1<<19 | 1<<21 | 1<<23 | 1<<24 | 1<<26 | 1<<27 | 1<<28 | 1<<29 | 1<<31 | 1<<32
	colTags  = 33
)

// omittedColumns are the columns that every row of rows leaves at their
// default (see defaultEmpty).
func omittedColumns(rows []lineItemRow) uint64 {
	empty, null := uint64(defaultEmpty), uint64(nullable)
	tags := true
	for i := range rows {
		r := &rows[i]
		null &= r.null
		tags = tags && r.text[colTags] == "{}"
		for m := empty; m != 0; m &= m - 1 {
			if col := bits.TrailingZeros64(m); r.text[col] != "" {
				empty &^= 1 << col
			}
		}
		if empty|null == 0 && !tags {
			return 0
		}
	}
	if tags {
		empty |= 1 << colTags
	}
	return empty | null
}

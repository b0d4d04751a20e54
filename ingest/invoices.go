package ingest

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// A user's list of the invoices (发票) received from the platforms, as CSV,
// TSV or XLSX, for reconciliation (issue 6): one row per invoice, headers in
// Chinese or English, in any order, found by content below a preamble. It is
// read by ImportInvoices (gpubill invoice import) and written to the
// invoices table.
//
// The format is registered like the bills, so `gpubill import` recognises an
// invoice list among the bills of a folder (importer.table hands its tables
// to invoiceTable); `gpubill invoice import` reads only invoice lists.

func init() { registerFormat(InvoiceFormat, 75) }

// TargetInvoices is the target of the invoice list: the invoices table.
const TargetInvoices = "invoices"

// InvoiceColumns are the columns of an invoice list. Amount is the total
// including tax (价税合计): on a Chinese invoice 金额 is the amount before
// tax, so a list carrying both is read from 价税合计 and keeps 金额 in raw.
var InvoiceColumns = []Column{
	{Field: "provider", Headers: []string{"平台", "provider", "platform", "销售方", "销售方名称", "开票方", "云平台"}, Required: true},
	{Field: "number", Headers: []string{"发票号码", "number", "invoice_number", "invoice_no", "发票号", "数电票号码", "全电发票号码"}, Required: true},
	{Field: "code", Headers: []string{"发票代码", "invoice_code"}, RawOnly: true},
	{Field: "date", Headers: []string{"开票日期", "date", "invoice_date", "issue_date", "日期"}, Required: true},
	{Field: "amount", Headers: []string{"价税合计", "amount", "total", "金额", "发票金额", "含税金额", "价税合计(小写)"}, Required: true},
	{Field: "tax", Headers: []string{"税额", "tax"}, RawOnly: true},
	{Field: "title", Headers: []string{"抬头", "title", "购买方名称", "购方名称", "发票抬头", "buyer"}},
	{Field: "period", Headers: []string{"所属月份", "period", "账期", "费用月份", "所属期间", "月份", "month"}},
	{Field: "currency", Headers: []string{"币种", "currency", "货币"}},
	{Field: "note", Headers: []string{"备注", "note", "说明", "notes"}},
}

// InvoiceFormat describes the invoice list for `gpubill formats` and tests.
var InvoiceFormat = &Format{
	ID:         "gpubill-invoices",
	Version:    "1",
	NameZH:     "gpubill 发票清单",
	NameEN:     "gpubill invoice list",
	Confidence: ConfidenceOurs,
	DetectZH: "表头含 平台、发票号码、开票日期、价税合计（或 金额）；可选 抬头、所属月份（YYYY-MM，跨月写 2026-10..2026-11）、币种、备注；" +
		"用 gpubill import 或 gpubill invoice import 导入",
	DetectEN: "header holds provider, number, date and amount (价税合计); optional title, period (YYYY-MM, or 2026-10..2026-11 " +
		"for an invoice spanning months), currency, note; imported with gpubill import or gpubill invoice import",
	DedupeKey: "hash of provider, number, date, amount, currency and period (ledger.InvoiceKey); title and note are left out. " +
		"The same number with other values is stored too, and reconcile lists it as invoiced twice",
	Target:  TargetInvoices,
	Columns: InvoiceColumns,
}

// ImportInvoices imports an invoice list (CSV, TSV or XLSX; every sheet whose
// header it recognises) into the ledger in one transaction, with an imports
// record per table, so that invoices carry their file and row as evidence
// and `gpubill imports undo` removes them. Rows already stored (same
// ledger.InvoiceKey) count as duplicates. With opts.DryRun nothing is kept;
// with a nil db the file is only read and checked. Errors in the user's
// file are *InputError naming file, row and column.
func ImportInvoices(ctx context.Context, db *ledger.DB, path string, opts Options) (Result, error) {
	return importOne(path, opts.DryRun, func(res *Result) error { return importInvoiceFile(ctx, db, path, opts, res) })
}

func importInvoiceFile(ctx context.Context, db *ledger.DB, path string, opts Options, res *Result) (err error) {
	if opts.TZ == nil {
		opts.TZ = ledger.DefaultTZ()
	}
	if opts.Provider != "" {
		slug, ok := invoiceProvider(opts.Provider)
		if !ok {
			return fmt.Errorf("--provider %q is not a known platform", opts.Provider)
		}
		opts.Provider = slug
	}
	sum, size, err := fileDigest(path)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	src, err := openSource(path, f)
	if err != nil {
		return err
	}
	defer src.close()
	if src.json || src.pq != nil {
		return &InputError{File: path, Msg: "an invoice list is a CSV, TSV or XLSX table"}
	}
	res.Encoding = src.encoding
	var itx *ledger.ImportTx
	defer func() { endImport(itx, opts.DryRun, &err) }()
	var st store = discardStore{} // a nil db: the file is only read and checked
	im := &importer{ctx: ctx, opts: opts, res: res, providers: map[string]bool{}}
	var cands []string
	for i := 0; i < src.numTables(); i++ {
		t, err := src.openTable(i)
		if err != nil {
			return err
		}
		b, hdrLine, seen, err := findHeader(t, InvoiceFormat)
		if err != nil || b == nil {
			closeTable(t)
			if err != nil {
				return err
			}
			cands = append(cands, describeCandidates(t.sheet(), seen)...)
			continue
		}
		if db != nil && itx == nil {
			if itx, err = db.BeginImport(ctx); err != nil {
				closeTable(t)
				return err
			}
			st = itx
		}
		imp := &ledger.Import{Path: path, SHA256: sum, Size: size, Format: InvoiceFormat.ID, FormatVersion: InvoiceFormat.Version,
			Sheet: t.sheet(), Header: b.header, HeaderRow: hdrLine}
		if err := st.AddImport(ctx, imp); err != nil {
			closeTable(t)
			return err
		}
		env := &mapEnv{path: path, tz: opts.TZ, provider: opts.Provider, xlsx: src.isXLSX(), date1904: src.date1904}
		err = im.invoiceTable(st, t, b, env, imp)
		closeTable(t)
		if err != nil {
			return err
		}
		if err := st.FinishImport(ctx, imp); err != nil {
			return err
		}
		res.Tables++
	}
	if res.Tables == 0 {
		return &InputError{File: path, Msg: "no invoice list recognised: the header needs 平台/provider, 发票号码/number, " +
			"开票日期/date and 价税合计/amount" + candidatesNote(cands)}
	}
	res.Format = InvoiceFormat.ID
	res.Provider = joinKeys(im.providers)
	return nil
}

// What both `gpubill import` (importer.table) and ImportInvoices use to
// import an invoice table: the store method of the dry-run store, and the
// table importer.

// InsertInvoices takes every invoice as new and keeps nothing.
func (discardStore) InsertInvoices(_ context.Context, invs []ledger.Invoice) (int, error) {
	return len(invs), nil
}

// invoiceStore is a store that also takes invoices (*ledger.ImportTx and
// discardStore are).
type invoiceStore interface {
	InsertInvoices(ctx context.Context, invs []ledger.Invoice) (int, error)
}

// invoiceTable imports the invoice table t, as importer.table does for the
// other targets (an invoice list is small: no parse goroutine).
func (im *importer) invoiceTable(st any, t table, b *binding, env *mapEnv, imp *ledger.Import) error {
	is, ok := st.(invoiceStore)
	if !ok {
		return fmt.Errorf("ingest: the store %T takes no invoices", st)
	}
	invs, read, skipped, err := readInvoices(im.ctx, t, b, env)
	if err != nil {
		return err
	}
	for i := range invs {
		invs[i].ImportID = imp.ID
		im.providers[invs[i].Provider] = true
	}
	added, err := is.InsertInvoices(im.ctx, invs)
	if err != nil {
		return err
	}
	imp.RowsRead, imp.RowsNew, imp.RowsDuplicate, imp.RowsSkipped = read, added, len(invs)-added, skipped
	im.res.Read += read
	im.res.New += added
	im.res.Duplicate += len(invs) - added
	im.res.Skipped += skipped
	return nil
}

// readInvoices maps the rows of one table. read counts the records after the
// header (trailing empty records not counted); skipped the empty, total and
// example rows among them.
func readInvoices(ctx context.Context, t table, b *binding, env *mapEnv) (invs []ledger.Invoice, read, skipped int, err error) {
	ix := struct{ provider, number, date, amount, title, period, currency, note int }{
		b.idx("provider"), b.idx("number"), b.idx("date"), b.idx("amount"), b.idx("title"), b.idx("period"),
		b.idx("currency"), b.idx("note"),
	}
	currencies := newMemo(normCurrency)
	c := &rowCtx{env: env, b: b, t: t}
	recNo, pendingEmpty := 0, 0
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, 0, err
		}
		rec, err := t.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, 0, err
		}
		recNo++
		if emptyRecord(rec) {
			pendingEmpty++
			continue
		}
		read += pendingEmpty + 1
		skipped += pendingEmpty
		pendingEmpty = 0
		c.rec = rec
		if isTotalRow(rec) || isExampleRow(c.cell(ix.note)) {
			skipped++
			continue
		}
		var inv ledger.Invoice
		if inv.Provider, err = c.invoiceProvider(ix.provider); err != nil {
			return nil, 0, 0, err
		}
		if inv.Number, err = c.invoiceNumber(ix.number); err != nil {
			return nil, 0, 0, err
		}
		d, err := c.requiredTime(ix.date, env.tz)
		if err != nil {
			return nil, 0, 0, err
		}
		inv.Date = d.In(env.tz).Format("2006-01-02")
		if inv.Amount, err = c.requiredAmount(ix.amount); err != nil {
			return nil, 0, 0, err
		}
		if inv.Currency, err = c.currency(ix.currency, currencies); err != nil {
			return nil, 0, 0, err
		}
		if p := c.cell(ix.period); p != "" {
			var ok bool
			if inv.PeriodStart, inv.PeriodEnd, ok = ParsePeriod(p); !ok {
				return nil, 0, 0, c.errAt(ix.period, fmt.Sprintf("%q is not a month or a range of months (2026-10, 2026年10月, 2026-10..2026-11)", p))
			}
		}
		inv.Title = c.cell(ix.title)
		inv.Note = c.cell(ix.note)
		inv.Raw = c.raw()
		inv.SourceRow = recNo
		if err := inv.Validate(); err != nil {
			return nil, 0, 0, c.errAt(-1, err.Error())
		}
		inv.RowKey = ledger.InvoiceKey(&inv)
		invs = append(invs, inv)
	}
	return invs, read, skipped, nil
}

// invoiceProvider maps a platform name to its slug: a slug, brand or
// Chinese name (platform.Parse), or a seller name that contains one
// (阿里云计算有限公司 → aliyun).
func invoiceProvider(s string) (string, bool) {
	if slug, ok := platform.Parse(s); ok {
		return slug, true
	}
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return "", false
	}
	best, bestLen := "", 0
	for _, p := range platform.All {
		for _, a := range append([]string{p.NameZH, strings.ToLower(p.NameEN)}, p.Aliases...) {
			a = strings.ToLower(a)
			if len([]rune(a)) >= 2 && strings.Contains(t, a) && len(a) > bestLen {
				best, bestLen = p.Slug, len(a)
			}
		}
	}
	return best, best != ""
}

func (c *rowCtx) invoiceProvider(i int) (string, error) {
	s := c.cell(i)
	if s == "" {
		if c.env.provider != "" {
			return c.env.provider, nil
		}
		return "", c.errAt(i, "required value is empty (or pass --provider)")
	}
	slug, ok := invoiceProvider(s)
	if !ok {
		return "", c.errAt(i, fmt.Sprintf("%q is not a known platform (%s, or its Chinese name)", s, knownPlatforms()))
	}
	return slug, nil
}

// invoiceNumber reads an invoice number: digits and letters, spaces
// dropped. A number in scientific notation is a 20-digit 数电票 number that
// a spreadsheet stored as a float and so lost: refused, with advice.
func (c *rowCtx) invoiceNumber(i int) (string, error) {
	s, err := c.required(i)
	if err != nil {
		return "", err
	}
	s = strings.Join(strings.Fields(s), "")
	if sciNumber.MatchString(s) {
		return "", c.errAt(i, fmt.Sprintf("%q is a number in scientific notation: the spreadsheet lost the invoice number's digits; format the column as text and type it again", s))
	}
	return s, nil
}

var sciNumber = regexp.MustCompile(`^[0-9.]+[eE][+-]?[0-9]+$`)

// periodMonth matches one month: 2026-10, 2026/10, 2026.10, 202610,
// 2026年10月.
var periodMonth = `(\d{4})(?:[-/.]|年)?\s*(\d{1,2})月?`

var periodRe = regexp.MustCompile(`^` + periodMonth + `(?:\s*(?:\.\.|~|～|至|到|—|–|\s-\s)\s*` + periodMonth + `)?$`)

// ParsePeriod reads the period of an invoice: one month (2026-10,
// 2026/10, 202610, 2026年10月) or a range of months (2026-10..2026-11, with
// .., ~, 至, 到 or " - " between). It returns the first and last month as
// YYYY-MM; ok is false for anything else, or a range that ends before it
// starts.
func ParsePeriod(s string) (start, end string, ok bool) {
	m := periodRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", "", false
	}
	month := func(y, mo string) (string, bool) {
		t, err := time.Parse("2006-1", y+"-"+strings.TrimLeft(mo, "0"))
		if err != nil || mo == "" {
			return "", false
		}
		return t.Format("2006-01"), true
	}
	if start, ok = month(m[1], m[2]); !ok {
		return "", "", false
	}
	end = start
	if m[3] != "" {
		if end, ok = month(m[3], m[4]); !ok || end < start {
			return "", "", false
		}
	}
	return start, end, true
}

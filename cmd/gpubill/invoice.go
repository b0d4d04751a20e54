package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
	"github.com/gpubill/gpubill/platform"
	"github.com/gpubill/gpubill/reports"
)

type invoiceAddOptions struct {
	provider, number, date, amount, title, period, currency, note string
}

func (a *app) invoiceCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "invoice",
		Short: "Record the invoices received: add, import, list, remove / 发票登记",
		Long: `Record the invoices (发票) received from the platforms, so that gpubill reconcile can tell
per platform and month what is invoiced, what is still to request and what was invoiced twice.
An invoice covers the months of --period (one month, or a range such as 2026-10..2026-11);
without one, the month it was issued in. An invoice added by hand with a mistake is removed
with invoice remove.

登记收到的发票：手工添加（invoice add）或导入发票清单（invoice import，CSV/XLSX，表头
平台、发票号码、开票日期、价税合计、抬头、所属月份）；录错的手工发票用 invoice remove 删除。`,
		Args: cobra.NoArgs,
	}
	var o invoiceAddOptions
	add := &cobra.Command{
		Use:   "add",
		Short: "Add one invoice / 添加一张发票",
		Example: `  gpubill invoice add --provider autodl --number 26110000000000000001 --date 2026-11-03 --amount 200.00 --period 2026-10
  gpubill invoice add --provider 恒源云 --number 2612… --date 2026-12-01 --amount 57.64 --period 2026-10..2026-11 --title 某大学`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runInvoiceAdd(cmd.Context(), o) },
	}
	f := add.Flags()
	f.StringVar(&o.provider, "provider", "", "platform slug or name (required)")
	f.StringVar(&o.number, "number", "", "invoice number 发票号码 (required)")
	f.StringVar(&o.date, "date", "", "issue date 开票日期, e.g. 2026-11-03 (required)")
	f.StringVar(&o.amount, "amount", "", "total including tax 价税合计 (required)")
	f.StringVar(&o.title, "title", "", "buyer 抬头")
	f.StringVar(&o.period, "period", "", "months covered: YYYY-MM or YYYY-MM..YYYY-MM (default: the month of --date)")
	f.StringVar(&o.currency, "currency", "CNY", "currency")
	f.StringVar(&o.note, "note", "", "free text")
	for _, name := range []string{"provider", "number", "date", "amount"} {
		_ = add.MarkFlagRequired(name)
	}

	var dryRun bool
	var provider string
	imp := &cobra.Command{
		Use:   "import FILE…",
		Short: "Import a list of invoices (CSV or XLSX) / 导入发票清单",
		Long: `Import a list of invoices (CSV, TSV or XLSX): one row per invoice, headers in Chinese or English
in any order: 平台/provider, 发票号码/number, 开票日期/date, 价税合计/amount (required), 抬头/title,
所属月份/period (2026-10 or 2026-10..2026-11), 币种/currency, 备注/note. Importing a list again adds
nothing; an invoice number recorded again with other values is kept and reported by reconcile.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runInvoiceImport(cmd.Context(), args, provider, dryRun)
		},
	}
	imp.Flags().BoolVar(&dryRun, "dry-run", false, "read and check without writing")
	imp.Flags().StringVar(&provider, "provider", "", "platform for rows whose 平台 is empty")

	list := &cobra.Command{
		Use:   "list",
		Short: "List the recorded invoices (all, or those covering --month) / 列出发票",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return a.runInvoiceList(cmd.Context()) },
	}
	remove := &cobra.Command{
		Use:   "remove ID…",
		Short: "Remove invoices added by hand, by their id in invoice list / 删除手工录入的发票",
		Long: `Remove invoices added by hand (a wrong amount, number or month), by the ids that gpubill
invoice list shows: all of them, or, when one is not an invoice added by hand, none. An imported
invoice goes with its import: undo it (gpubill imports undo ID) and import the corrected list.

按 gpubill invoice list 显示的编号删除手工录入的发票（金额、号码或月份录错时）：要么全部删除，
要么（有一个不是手工录入的发票时）一张也不删。导入的发票随其导入撤销（gpubill imports undo ID）。`,
		Example: `  gpubill invoice list
  gpubill invoice remove 3`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.runInvoiceRemove(cmd.Context(), args) },
	}
	cmd.AddCommand(add, imp, list, remove)
	return cmd
}

// runInvoiceRemove removes the hand-added invoices of the ids args, after
// checking every one of them: nothing is removed when one is unknown or
// imported.
func (a *app) runInvoiceRemove(ctx context.Context, args []string) error {
	var ids []int64
	for _, s := range args {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			return fmt.Errorf("invoice id %q: want a number from gpubill invoice list", s)
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	db, err := a.openLedger(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	all, err := db.Invoices(ctx, ledger.InvoiceFilter{})
	if err != nil {
		return internal(err)
	}
	byID := map[int64]ledger.Invoice{}
	for _, inv := range all {
		byID[inv.ID] = inv
	}
	for _, id := range ids {
		inv, ok := byID[id]
		switch {
		case !ok:
			return fmt.Errorf("no invoice with id %d (gpubill invoice list shows the ids); nothing removed", id)
		case inv.ImportID != 0:
			return fmt.Errorf("invoice %s (id %d) was imported from %s: undo that import (gpubill imports undo %d) and import the corrected list; nothing removed",
				inv.Number, id, inv.File, inv.ImportID)
		}
	}
	if err := db.RemoveInvoices(ctx, ids); err != nil {
		return internal(err)
	}
	for _, id := range ids {
		inv := byID[id]
		a.say("已删除发票 %s（编号 %d）：%s %s %s，所属 %s..%s。", "removed invoice %s (id %d): %s %s %s, covering %s..%s.",
			inv.Number, id, platform.Name(inv.Provider, a.lang), money.String(inv.Amount), inv.Currency, inv.PeriodStart, inv.PeriodEnd)
	}
	return nil
}

func (a *app) runInvoiceAdd(ctx context.Context, o invoiceAddOptions) error {
	slug, ok := platform.Parse(o.provider)
	if !ok {
		return fmt.Errorf("--provider %q: unknown platform", o.provider)
	}
	d, err := ingest.ParseTime(o.date, a.loc)
	if err != nil {
		return fmt.Errorf("--date: %v", err)
	}
	amt, err := ingest.ParseAmount(o.amount)
	if err != nil || !amt.Valid {
		return fmt.Errorf("--amount %q is not an amount", o.amount)
	}
	inv := ledger.Invoice{Provider: slug, Number: strings.Join(strings.Fields(o.number), ""), Date: d.In(a.loc).Format("2006-01-02"),
		Amount: amt.Decimal, Currency: strings.ToUpper(strings.TrimSpace(o.currency)), Title: o.title, Note: o.note}
	if o.period != "" {
		if inv.PeriodStart, inv.PeriodEnd, ok = ingest.ParsePeriod(o.period); !ok {
			return fmt.Errorf("--period %q: want YYYY-MM or YYYY-MM..YYYY-MM", o.period)
		}
	} else {
		inv.PeriodStart = inv.Date[:7]
		inv.PeriodEnd = inv.PeriodStart
	}
	if err := inv.Validate(); err != nil {
		return err
	}
	db, err := a.openLedger(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	known, err := db.Invoices(ctx, ledger.InvoiceFilter{})
	if err != nil {
		return internal(err)
	}
	n, err := db.InsertInvoices(ctx, []ledger.Invoice{inv})
	if err != nil {
		return internal(err)
	}
	if n == 0 {
		a.say("发票 %s 已登记过，未重复添加。", "invoice %s is already recorded; nothing added.", inv.Number)
		return nil
	}
	for _, k := range known {
		if strings.EqualFold(k.Number, inv.Number) {
			a.say("警告：发票号码 %s 已登记过（金额或月份不同）；对账时会列为重复开票。",
				"warning: invoice number %s was already recorded with other values; reconcile lists it as recorded twice.", inv.Number)
			break
		}
	}
	a.say("已添加发票 %s：%s %s %s，所属 %s..%s。", "added invoice %s: %s %s %s, covering %s..%s.",
		inv.Number, platform.Name(slug, a.lang), money.String(inv.Amount), inv.Currency, inv.PeriodStart, inv.PeriodEnd)
	if inv.Amount.IsNegative() {
		a.say("金额为负：按红字发票记录，从所属月份的已开票金额中扣除；录错了可用 gpubill invoice remove 删除。",
			"the amount is negative: recorded as a red-letter invoice (红字发票), which takes its amount off the invoiced total of its months; if that is a mistake, gpubill invoice remove takes it back.")
	}
	return nil
}

func (a *app) runInvoiceImport(ctx context.Context, paths []string, provider string, dryRun bool) error {
	if provider != "" {
		slug, ok := platform.Parse(provider)
		if !ok {
			return fmt.Errorf("--provider %q: unknown platform", provider)
		}
		provider = slug
	}
	db, err := a.openLedger(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	var results []ingest.Result
	for _, p := range paths {
		r, _ := ingest.ImportInvoices(ctx, db, p, ingest.Options{DryRun: dryRun, Provider: provider, TZ: a.loc})
		results = append(results, r)
	}
	w, closeOut, err := a.out()
	if err != nil {
		return err
	}
	if a.format == "json" {
		err = writeImportJSON(w, results)
	} else {
		err = a.writeInvoiceImportText(w, results)
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if a.reportRefused(results) > 0 {
		return &exitError{code: exitInput}
	}
	return nil
}

func (a *app) writeInvoiceImportText(w io.Writer, results []ingest.Result) error {
	col := a.column
	t := reports.NewTable(col("file", "文件", false), col("provider", "平台", false), col("read", "读取", true),
		col("new", "新增", true), col("duplicate", "重复", true), col("skipped", "跳过", true), col("status", "状态", false))
	for _, r := range results {
		t.Add(r.Path, dash(r.Provider), strconv.Itoa(r.Read), strconv.Itoa(r.New), strconv.Itoa(r.Duplicate),
			strconv.Itoa(r.Skipped), r.Status)
	}
	return t.Write(w, a.tableFormat())
}

// tableFormat is textFormat for commands whose output is one table (json
// is handled by the command).
func (a *app) tableFormat() string {
	switch f := a.textFormat(); f {
	case reports.FormatTSV, reports.FormatMarkdown, reports.FormatCSV:
		return f
	}
	return reports.FormatTable
}

type invoiceListJSON struct {
	ID          int64  `json:"id"`
	Provider    string `json:"provider"`
	Number      string `json:"number"`
	Date        string `json:"date"`
	Amount      string `json:"amount"`
	Currency    string `json:"currency"`
	PeriodStart string `json:"period_start"`
	PeriodEnd   string `json:"period_end"`
	Title       string `json:"title"`
	Note        string `json:"note"`
	File        string `json:"file"`
	Row         int    `json:"row"`
}

func (a *app) runInvoiceList(ctx context.Context) error {
	db, err := a.openLedger(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	invs, err := db.Invoices(ctx, ledger.InvoiceFilter{Month: a.month})
	if err != nil {
		return internal(err)
	}
	imps, err := db.Imports(ctx, 0)
	if err != nil {
		return internal(err)
	}
	imports := map[int64]*ledger.Import{}
	for i := range imps {
		imports[imps[i].ID] = &imps[i]
	}
	w, closeOut, err := a.out()
	if err != nil {
		return err
	}
	if a.format == "json" {
		out := []invoiceListJSON{}
		for _, x := range invs {
			out = append(out, invoiceListJSON{x.ID, x.Provider, x.Number, x.Date, money.String(x.Amount), x.Currency,
				x.PeriodStart, x.PeriodEnd, x.Title, x.Note, x.File, x.SourceRow})
		}
		err = writeJSON(w, map[string]any{"invoices": out})
	} else {
		format := a.tableFormat()
		exact := format != reports.FormatTable && format != reports.FormatMarkdown
		col := a.column
		t := reports.NewTable(col("id", "编号", true), col("provider", "平台", false), col("number", "发票号码", false),
			col("date", "开票日期", false), col("amount", "价税合计", true), col("currency", "币种", false),
			col("period", "所属月份", false), col("title", "抬头", false), col("source", "来源", false))
		for _, x := range invs {
			period := x.PeriodStart
			if x.PeriodEnd != x.PeriodStart {
				period += ".." + x.PeriodEnd
			}
			src := a.pick("手工录入", "added by hand")
			if x.File != "" {
				// The row a person sees in the file (JSON keeps the record number).
				src = reports.FileRow(x.File, imports[x.ImportID], x.SourceRow)
			}
			provider := x.Provider
			if !exact {
				provider = platform.Name(x.Provider, a.lang)
			}
			t.Add(strconv.FormatInt(x.ID, 10), provider, x.Number, x.Date, reports.FormatMoney(x.Amount, x.Currency, exact),
				x.Currency, dash(period), x.Title, src)
		}
		err = t.Write(w, format)
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return err
}

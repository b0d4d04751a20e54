package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/money"
	"github.com/gpubill/gpubill/platform"
	"github.com/gpubill/gpubill/reports"
)

type importOptions struct {
	dryRun   bool
	provider string
	preview  int
	profiles []string
	hidden   bool
}

func (a *app) importCommand() *cobra.Command {
	var o importOptions
	cmd := &cobra.Command{
		Use:   "import FILE|DIR…",
		Short: "Import bill files into the ledger / 导入账单文件",
		Long: `Import bill files into the ledger: files, folders (walked recursively) and ZIP archives
(each member is a file of its own). The format of each file is recognised by its content;
one file is one transaction: a file with a bad row adds nothing, and the other files go on.
Re-importing a file, or an overlapping export, adds nothing twice. Bills (gpubill template,
FOCUS, 阿里云, 腾讯云, 华为云, 火山引擎, console copies of the GPU platforms), money flow and
Alipay / WeChat Pay records: see gpubill formats.

导入账单：文件、文件夹（递归）和 ZIP 压缩包（每个成员单独导入）。格式按内容识别；
一个文件一个事务，出错的文件不会留下任何行，其余文件照常导入；重复导入不会重复记账。`,
		Example: `  gpubill import ~/Downloads/bills/2026-10/
  gpubill import --dry-run autodl.csv
  gpubill import --format json bills/*.csv
  gpubill import --profile my-cloud.toml my-cloud-2026-10.csv
  gpubill import --provider autodl 收支明细.csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runImport(cmd, o, args)
		},
	}
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "show what would be added without writing")
	cmd.Flags().StringVar(&o.provider, "provider", "", "platform slug for files that cannot tell it (e.g. autodl)")
	cmd.Flags().IntVar(&o.preview, "preview", 5, "rows to show per file with --dry-run")
	cmd.Flags().BoolVar(&o.hidden, "hidden-sheets", false, "read the hidden sheets of workbooks too (left out by default, with a warning)")
	cmd.Flags().StringArrayVar(&o.profiles, "profile", nil,
		"profile FILE (TOML, docs/profiles.md) or built-in profile id, tried before the built-in formats; repeatable")
	return cmd
}

func (a *app) runImport(cmd *cobra.Command, o importOptions, paths []string) error {
	ctx := cmd.Context()
	if o.provider != "" {
		slug, ok := platform.Parse(o.provider)
		if !ok {
			return fmt.Errorf("--provider %q: unknown platform", o.provider)
		}
		o.provider = slug
	}
	restore, err := useProfiles(o.profiles)
	if err != nil {
		return err
	}
	defer restore()
	db, err := a.openLedger(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	// ImportPaths goes on after a refused file; its error repeats the
	// per-file errors, which are reported below with the summary.
	progress, stopProgress := a.showProgress()
	results, _ := ingest.ImportPaths(ctx, db, paths, ingest.Options{
		DryRun: o.dryRun, HiddenSheets: o.hidden, Provider: o.provider, TZ: a.loc, Preview: o.preview, Progress: progress,
	})
	stopProgress()
	w, closeOut, err := a.out()
	if err != nil {
		return err
	}
	if a.format == "json" {
		err = writeImportJSON(w, results)
	} else {
		err = a.writeImportText(w, results, o)
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	a.reportWarnings(results)
	if failed := a.reportRefused(results); failed > 0 {
		a.say("%d 个文件未导入（原因见错误信息），其余文件已处理。", "%d file(s) refused (see the errors); the other files were processed.", failed)
		return &exitError{code: exitInput}
	}
	return nil
}

// reportWarnings prints the warnings of the imported files to stderr, in
// the chosen language.
func (a *app) reportWarnings(results []ingest.Result) {
	for _, r := range results {
		for _, wn := range r.Warnings {
			where := r.Path
			if wn.Row > 0 {
				where += ":" + strconv.Itoa(wn.Row)
			}
			a.say("gpubill: 注意：%s: %s", "gpubill: warning: %s: %s", where, wn.Text(a.lang))
		}
	}
}

// reportRefused prints the error of every file that was refused, to
// stderr, and returns how many there were.
func (a *app) reportRefused(results []ingest.Result) int {
	failed := 0
	for _, r := range results {
		if r.Err != nil {
			failed++
			fmt.Fprintf(a.stderr, "gpubill: %s\n", errText(r.Err, a.lang))
		}
	}
	return failed
}

type importJSON struct {
	Path      string  `json:"path"`
	Format    string  `json:"format"`
	Provider  string  `json:"provider"`
	Encoding  string  `json:"encoding,omitempty"`
	Read      int     `json:"rows_read"`
	New       int     `json:"rows_new"`
	Duplicate int     `json:"rows_duplicate"`
	Skipped   int     `json:"rows_skipped"`
	Status    string  `json:"status"`
	Error     *string `json:"error"`
	// Warnings: doubts about a file whose rows were imported (a saved web
	// page that is one page of several); omitted when there are none.
	Warnings []importWarningJSON `json:"warnings,omitempty"`
}

type importWarningJSON struct {
	Row       int    `json:"row"` // 0 = the whole file
	MessageZH string `json:"message_zh"`
	MessageEN string `json:"message_en"`
}

func writeImportJSON(w io.Writer, results []ingest.Result) error {
	out := make([]importJSON, 0, len(results))
	for _, r := range results {
		j := importJSON{Path: r.Path, Format: r.Format, Provider: r.Provider, Encoding: r.Encoding,
			Read: r.Read, New: r.New, Duplicate: r.Duplicate, Skipped: r.Skipped, Status: r.Status}
		if r.Err != nil {
			s := r.Err.Error()
			j.Error = &s
		}
		for _, wn := range r.Warnings {
			j.Warnings = append(j.Warnings, importWarningJSON{Row: wn.Row, MessageZH: wn.ZH, MessageEN: wn.EN})
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func (a *app) writeImportText(w io.Writer, results []ingest.Result, o importOptions) error {
	col := a.column
	t := reports.NewTable(col("file", "文件", false), col("format", "格式", false), col("provider", "平台", false),
		col("read", "读取", true), col("new", "新增", true), col("duplicate", "重复", true), col("skipped", "跳过", true),
		col("status", "状态", false))
	for _, r := range results {
		t.Add(r.Path, dash(r.Format), dash(r.Provider), strconv.Itoa(r.Read), strconv.Itoa(r.New),
			strconv.Itoa(r.Duplicate), strconv.Itoa(r.Skipped), a.importStatus(r.Status))
	}
	format := a.textFormat()
	if format != reports.FormatTSV && format != reports.FormatMarkdown && format != reports.FormatCSV {
		format = reports.FormatTable
	}
	if err := t.Write(w, format); err != nil {
		return err
	}
	if !o.dryRun {
		return nil
	}
	for _, r := range results {
		n := len(r.Preview) + len(r.PreviewTx) + len(r.PreviewPay)
		if n == 0 {
			continue
		}
		if a.lang == "zh" {
			fmt.Fprintf(w, "\n%s 的前 %d 行（将这样入账）：\n", r.Path, n)
		} else if n == 1 {
			fmt.Fprintf(w, "\nthe first row of %s as it would be stored:\n", r.Path)
		} else {
			fmt.Fprintf(w, "\nfirst %d rows of %s as they would be stored:\n", n, r.Path)
		}
		for _, t := range previewTables(r, a.loc) {
			if err := t.Write(w, format); err != nil {
				return err
			}
		}
	}
	return nil
}

// previewTables renders the rows a dry run would store, one table per kind
// of row (line items, money flow, payments).
func previewTables(r ingest.Result, loc *time.Location) []*reports.Table {
	const layout = "2006-01-02 15:04:05"
	cols := func(keys ...string) []reports.Column {
		var cs []reports.Column
		for _, k := range keys {
			cs = append(cs, reports.Column{Key: k, Title: k, Numeric: k == "row" || k == "billed_cost" || k == "amount" || k == "balance"})
		}
		return cs
	}
	var out []*reports.Table
	if len(r.Preview) > 0 {
		t := reports.NewTable(cols("row", "provider", "resource_id", "kind", "pricing", "start", "end", "quantity", "billed_cost", "currency")...)
		for i, li := range r.Preview {
			q := "-"
			if li.PricingQuantity.Valid {
				q = strings.TrimSpace(money.String(li.PricingQuantity.Decimal) + " " + li.PricingUnit)
			}
			t.Add(previewRow(r.PreviewAt, i, li.SourceRow), li.Provider, dash(li.ResourceID), li.Kind, li.PricingModel,
				li.ChargePeriodStart.In(loc).Format(layout), li.ChargePeriodEnd.In(loc).Format(layout),
				q, money.String(li.BilledCost), li.Currency)
		}
		out = append(out, t)
	}
	if len(r.PreviewTx) > 0 {
		t := reports.NewTable(cols("row", "provider", "time", "type", "amount", "balance", "reference")...)
		for i, x := range r.PreviewTx {
			bal := "-"
			if x.Balance.Valid {
				bal = money.String(x.Balance.Decimal)
			}
			t.Add(previewRow(r.PreviewTxAt, i, x.SourceRow), x.Provider, x.Time.In(loc).Format(layout), x.Type, money.String(x.Amount), bal, dash(x.Reference))
		}
		out = append(out, t)
	}
	if len(r.PreviewPay) > 0 {
		t := reports.NewTable(cols("row", "source", "time", "direction", "counterparty", "amount", "status", "order_no")...)
		for i, p := range r.PreviewPay {
			t.Add(previewRow(r.PreviewPayAt, i, p.SourceRow), p.Source, p.Time.In(loc).Format(layout), p.Direction, dash(p.Counterparty),
				money.String(p.Amount), dash(p.Status), dash(p.OrderNo))
		}
		out = append(out, t)
	}
	return out
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// importStatus is an import's status in the output language; JSON keeps
// the stable English value.
func (a *app) importStatus(s string) string {
	if a.lang != "zh" {
		return s
	}
	switch s {
	case ingest.StatusOK:
		return "成功"
	case ingest.StatusFailed:
		return "失败"
	case ingest.StatusDryRun:
		return "试运行"
	}
	return s
}

// previewRow is where the i-th previewed row is in its file (ingest's
// PreviewAt), else its record number.
func previewRow(at []string, i, record int) string {
	if i < len(at) && at[i] != "" {
		return at[i]
	}
	return strconv.Itoa(record)
}

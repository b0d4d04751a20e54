package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill"
	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/packet"
	"github.com/gpubill/gpubill/reports"
)

func (a *app) demoCommand() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Import, audit and report a bundled month of sample bills / 用示例账单演示",
		Long: `Copy a bundled month of sample bills (October 2026: AutoDL, 揽睿星舟, 恒源云, 矩池云,
AWS FOCUS; UTF-8, GBK, XLSX) to a folder, import them into a fresh ledger there, audit
the month and print the spend report, the findings, the real price of a GPU-hour and
the refund checklist. The ledger stays where it says, so every other command can go on
with --db.

把内置的一个月示例账单复制到一个目录，导入新账本、审计并打印支出报表、审计发现、GPU
每小时的真实价格和退款清单。
账本保留在打印出的路径，可用 --db 继续使用其他命令。`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runDemo(cmd, dir)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "folder for the sample bills and the demo ledger (default: a new temporary folder)")
	return cmd
}

func (a *app) runDemo(cmd *cobra.Command, dir string) error {
	ctx := cmd.Context()
	if dir == "" {
		d, err := os.MkdirTemp("", "gpubill-demo-")
		if err != nil {
			return internal(err)
		}
		dir = d
	}
	bills := filepath.Join(dir, "bills")
	if err := copyDemoBills(bills); err != nil {
		return internal(err)
	}
	if a.dbPath == "" {
		a.dbPath = filepath.Join(dir, "ledger.db")
	}
	a.month = gpubill.DemoMonth
	db, err := a.openLedger(ctx)
	if err != nil {
		return err
	}
	defer db.Close()

	if !a.formatOn {
		a.format, a.formatOn = "table", true // the demo is for people
	}
	a.heading("导入示例账单", "Importing the sample bills")
	results, err := ingest.ImportPaths(ctx, db, []string{bills}, ingest.Options{TZ: a.loc})
	if err != nil {
		return err
	}
	if err := a.writeImportText(a.stdout, results, importOptions{}); err != nil {
		return err
	}
	for _, r := range results {
		if r.Err != nil {
			return internal(fmt.Errorf("demo bill %s: %w", r.Path, r.Err))
		}
	}

	cfg, err := a.ruleConfig(nil)
	if err != nil {
		return err
	}
	if _, err := a.audit(ctx, db, a.month, cfg); err != nil {
		return err
	}

	a.heading("本月支出 "+a.month, "Spend in "+a.month)
	spend, err := reports.Spend(ctx, db, reports.SpendOptions{Month: a.month, TZ: a.loc})
	if err != nil {
		return internal(err)
	}
	if err := a.writeReport(spend); err != nil {
		return err
	}
	a.heading("审计发现 "+a.month, "Findings in "+a.month)
	if err := a.writeFindings(cmd, db, a.month); err != nil {
		return err
	}
	// The number the mission is about, then what to claim back.
	a.heading("GPU 每小时的真实价格 "+a.month, "The real price of a GPU-hour in "+a.month)
	gpu, err := reports.GPUHours(ctx, db, reports.GPUHourOptions{Month: a.month, Prices: cfg.ReferencePrices()})
	if err != nil {
		return internal(err)
	}
	if err := a.writeReport(gpu); err != nil {
		return err
	}
	a.heading("退款清单 "+a.month, "Refund checklist for "+a.month)
	refunds, err := reports.Refunds(ctx, db, reports.RefundsOptions{Month: a.month, TZ: a.loc, Policy: cfg.PolicyFor})
	if err != nil {
		return internal(err)
	}
	if err := a.writeReport(refunds); err != nil {
		return err
	}
	// What people take away: the month as one page with charts, and the
	// reimbursement workbook for finance.
	page := filepath.Join(dir, "spend-"+a.month+".html")
	if err := writeFile(page, func(w io.Writer) error {
		return spend.Write(w, reports.WriteOptions{Format: reports.FormatHTML, Lang: a.lang, TZ: a.loc})
	}); err != nil {
		return internal(err)
	}
	pk, err := packet.Build(ctx, db, packet.Options{Month: a.month, TZ: a.loc, Policy: cfg.PolicyFor})
	if err != nil {
		return internal(err)
	}
	defer pk.Close()
	book := filepath.Join(dir, "packet-"+a.month+".xlsx")
	if err := writeFile(book, pk.WriteXLSX); err != nil {
		return internal(err)
	}
	// After `go run ./cmd/gpubill demo` there is no gpubill binary yet: say
	// how to build one from the clone (the module is not published, so no
	// `go install …@latest`).
	a.say("\n示例账单在 %s，账本在 %s。\n本月图表：%s\n报销材料：%s\n继续试试：\n  gpubill --db %s report instances\n  gpubill --db %s report whatif\n  gpubill --db %s reconcile\n"+
		"还没有 gpubill 程序？在仓库目录里运行 go build -o gpubill ./cmd/gpubill（得到 ./gpubill），或 go install ./cmd/gpubill（装到 $(go env GOPATH)/bin）。",
		"\nThe sample bills are in %s, the ledger is %s.\nThe month in charts: %s\nThe reimbursement packet: %s\nGo on with:\n  gpubill --db %s report instances\n  gpubill --db %s report whatif\n  gpubill --db %s reconcile\n"+
			"No gpubill binary yet? In the clone run go build -o gpubill ./cmd/gpubill (then ./gpubill), or go install ./cmd/gpubill (into $(go env GOPATH)/bin).",
		bills, a.dbPath, page, book, a.dbPath, a.dbPath, a.dbPath)
	return nil
}

// writeFile writes a file (mode 0600) with write, all or nothing.
func writeFile(path string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o600)
}

// heading prints a section title to stdout, between the reports.
func (a *app) heading(zh, en string) {
	t := en
	if a.lang == "zh" {
		t = zh
	}
	fmt.Fprintf(a.stdout, "\n== %s ==\n", t)
}

// copyDemoBills writes the embedded sample bills into dir.
func copyDemoBills(dir string) error {
	const root = "testdata/demo"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return fs.WalkDir(gpubill.DemoBills, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := gpubill.DemoBills.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, path.Base(p)), b, 0o600)
	})
}

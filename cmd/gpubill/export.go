package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/export"
)

type exportOptions struct {
	from, to string
}

func (a *app) exportCommand() *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export --format focus-csv|focus-parquet (--month M | --from M --to M) -o DIR",
		Short: "Export line items as FOCUS 1.2 for DuckDB, Spark, ClickHouse / 导出 FOCUS 1.2 成本数据",
		Long: `Writes the ledger's line items as FOCUS 1.2 cost data (CSV or Parquet) into DIR, one
Hive-style partition a billing month (DIR/billing_period=2026-10/part-00000.parquet), so that
DuckDB, Spark, ClickHouse or Trino read the folder as one table. x_ columns carry what gpubill
knows beyond FOCUS: charge kind, pricing model, actual run times, GPU model and count, voucher
and cash parts, source file and row, the findings' rule IDs and money at risk (run audit
first). Money is exact: CSV holds the ledger's decimal text, Parquet DECIMAL(38,12). gpubill
import reads the export back. Columns: docs/export.md.

把账本中的账单明细按 FOCUS 1.2 导出为 CSV 或 Parquet，每个账期一个 Hive 分区目录，
DuckDB、Spark、ClickHouse、Trino 可以把整个目录当作一张表读取。x_ 列是 gpubill 的补充：
费用类型、计费方式、实际运行时间、GPU 型号与数量、代金券/现金支付、来源文件与行号、审计
发现的规则与涉及金额（先运行 audit）。金额精确无舍入。gpubill import 可以读回导出的文件。`,
		Example: `  gpubill export --format focus-parquet --month 2026-10 -o lake/
  gpubill export --format focus-csv --from 2026-07 --to 2026-10 -o lake/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runExport(cmd, o) },
	}
	cmd.Flags().StringVar(&o.from, "from", "", "first billing month YYYY-MM (with --to)")
	cmd.Flags().StringVar(&o.to, "to", "", "last billing month YYYY-MM (with --from)")
	return cmd
}

func (a *app) runExport(cmd *cobra.Command, o exportOptions) error {
	zh := a.lang == "zh"
	msg := func(z, e string, args ...any) error {
		if zh {
			return fmt.Errorf(z, args...)
		}
		return fmt.Errorf(e, args...)
	}
	if a.format != export.FormatCSV && a.format != export.FormatParquet {
		return msg("export 需要 --format focus-csv 或 focus-parquet（当前为 %q）",
			"export needs --format focus-csv or focus-parquet (got %q)", a.format)
	}
	if a.output == "" || a.output == "-" {
		return msg("export 需要 -o 目录：分区写入该目录", "export needs -o DIR: the partitions are written into it")
	}
	if st, err := os.Stat(a.output); err == nil && !st.IsDir() {
		return msg("-o %s 不是目录", "-o %s is not a folder", a.output)
	}
	months, err := a.exportMonths(o)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	db, err := a.openLedger(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if months == nil {
		m, err := a.resolveMonth(ctx, db)
		if err != nil {
			return err
		}
		months = []string{m}
	}
	parts, err := export.Export(ctx, db, export.Options{Format: a.format, Months: months, Dir: a.output, TZ: a.loc})
	var fe *export.FitError
	if errors.As(err, &fe) {
		if zh {
			return errors.New(fe.ZH())
		}
		return fmt.Errorf("%w: the export stopped and rounded nothing; --format focus-csv writes it exactly", fe)
	}
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		a.say("所选月份没有账单明细，未写入文件", "no line items in the months asked: nothing written")
	}
	for _, p := range parts {
		if zh {
			fmt.Fprintf(a.stdout, "%s\t%d 行\n", p.Path, p.Rows)
		} else {
			fmt.Fprintf(a.stdout, "%s\t%d rows\n", p.Path, p.Rows)
		}
	}
	return nil
}

// exportMonths is the months of --from/--to (nil without them: --month or
// the default month).
func (a *app) exportMonths(o exportOptions) ([]string, error) {
	if o.from == "" && o.to == "" {
		return nil, nil
	}
	zh := a.lang == "zh"
	if a.month != "" || o.from == "" || o.to == "" {
		if zh {
			return nil, fmt.Errorf("请给出 --month M，或同时给出 --from M 与 --to M")
		}
		return nil, fmt.Errorf("give --month M, or both --from M and --to M")
	}
	from, err1 := time.Parse("2006-01", o.from)
	to, err2 := time.Parse("2006-01", o.to)
	if err1 != nil || err2 != nil || to.Before(from) {
		if zh {
			return nil, fmt.Errorf("--from %q --to %q：需要 YYYY-MM，且 --from 不晚于 --to", o.from, o.to)
		}
		return nil, fmt.Errorf("--from %q --to %q: want YYYY-MM, --from not after --to", o.from, o.to)
	}
	var ms []string
	for t := from; !t.After(to); t = t.AddDate(0, 1, 0) {
		ms = append(ms, t.Format("2006-01"))
	}
	return ms, nil
}

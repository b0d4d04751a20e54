package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ingest"
)

func (a *app) templateCommand() *cobra.Command {
	var table string
	cmd := &cobra.Command{
		Use:   "template",
		Short: "Write the gpubill bill template (CSV or XLSX) / 生成账单模板",
		Long: `Write the gpubill template for platforms that offer no bill export (AutoDL, 恒源云,
矩池云, GpuGeek, 揽睿星舟, 潞晨云 …). XLSX has three sheets: bill lines (费用明细),
money flow (收支明细) and an explanation of every column (说明), with drop-down lists for
the coded columns. CSV holds one table (--table bill|flow) with an example row.
Headers are Chinese with --lang zh, English with --lang en; the importer reads both.

为没有账单导出功能的平台生成模板。XLSX 含费用明细、收支明细和说明三个工作表，
编码列带下拉列表；CSV 为单个表（--table bill|flow）并带一行示例。`,
		Example: `  gpubill template --format xlsx -o 账单模板.xlsx
  gpubill template --format csv --table flow --lang en -o money-flow.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format := a.format
			if !a.formatOn {
				format = "csv"
				if strings.EqualFold(filepath.Ext(a.output), ".xlsx") {
					format = "xlsx"
				}
			}
			if table != "bill" && table != "flow" {
				return fmt.Errorf("--table %q: want bill or flow", table)
			}
			if format == "xlsx" && a.output == "" && isTerminal(a.stdout) {
				return fmt.Errorf("an XLSX template is binary: give -o FILE.xlsx")
			}
			w, closeOut, err := a.out()
			if err != nil {
				return err
			}
			switch format {
			case "csv":
				err = ingest.WriteTemplateCSV(w, table, a.lang)
			case "xlsx":
				err = ingest.WriteTemplateXLSX(w, a.lang)
			default:
				err = fmt.Errorf("--format %q: the template is csv or xlsx", format)
			}
			if cerr := closeOut(); err == nil {
				err = cerr
			}
			if err == nil && a.output != "" {
				a.say("模板已写入 %s", "template written to %s", a.output)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&table, "table", "bill", "CSV only: bill (费用明细) or flow (收支明细)")
	return cmd
}

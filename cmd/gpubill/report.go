package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reports"
)

func (a *app) reportCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Print reports: spend, findings, instances, refunds … / 报表：支出、问题、实例、退款……",
		Args:  cobra.NoArgs,
	}
	var by string
	spend := &cobra.Command{
		Use:   "spend",
		Short: "What the month cost, by provider and kind (or --by) / 月度支出",
		Long: `What the month cost: billed cost, voucher and cash, per group and currency, and the
share of hidden charges (everything that is not compute). Amounts are exact sums of the
ledger rows; table and markdown round to 2 decimals for display only.

按平台、费用类型（或 --by 指定的维度）汇总本月支出：应付、代金券、现金，以及隐藏
费用（非计算费用）的占比。`,
		Example: `  gpubill report spend --month 2026-10
  gpubill report spend --by provider,resource --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var dims []string
			for _, d := range strings.Split(by, ",") {
				if d = strings.TrimSpace(d); d != "" {
					dims = append(dims, d)
				}
			}
			return a.withMonth(cmd.Context(), func(db *ledger.DB, month string) error {
				rep, err := reports.Spend(cmd.Context(), db, reports.SpendOptions{Month: month, By: dims, TZ: a.loc})
				if err != nil {
					return err
				}
				return a.writeReport(rep)
			})
		},
	}
	spend.Flags().StringVar(&by, "by", "provider,kind", fmt.Sprintf("group by these dimensions (%s)", strings.Join(reports.SpendDimensions, ",")))
	findings := &cobra.Command{
		Use:   "findings",
		Short: "The stored findings of the month (run audit first) / 本月审计发现",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withMonth(cmd.Context(), func(db *ledger.DB, month string) error {
				return a.writeFindings(cmd, db, month)
			})
		},
	}
	cmd.AddCommand(spend, findings)
	for _, sub := range reportSubcommands {
		cmd.AddCommand(sub(a))
	}
	return cmd
}

// reportSubcommands holds the report commands that live in files of their
// own (report_*.go); each adds itself in an init function. Cobra lists
// subcommands by name, so the order here does not matter.
var reportSubcommands []func(*app) *cobra.Command

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reports"
	"github.com/gpubill/gpubill/rules"
)

func init() { reportSubcommands = append(reportSubcommands, (*app).reportWhatIfCommand) }

func (a *app) reportWhatIfCommand() *cobra.Command {
	var shutdownAfter, releaseAfter string
	cmd := &cobra.Command{
		Use:   "whatif",
		Short: "What the month would have cost billed per second, with auto-shutdown, without idle storage / 假设分析",
		Long: `What the month would have cost, from its own line items, per provider and currency:
  per_second            compute billed for more than it ran, re-priced at the actual seconds
  auto_shutdown         on-demand sessions (as in the forgotten_instance rule) cut after
                        --shutdown-after (default 8h, the rule's default limit)
  release_idle_storage  storage, images and snapshots dropped once their instance ran no
                        compute for --release-after (default 3d)
Each scenario stands alone: their savings do not add up. JSON lists the line items each
figure rests on (line_item_ids).

根据本月账单行计算：按秒计费、运行 --shutdown-after（默认 8h）后自动关机、实例闲置
--release-after（默认 3d）后释放存储，各能省多少。各假设分别计算，不可相加。`,
		Example: `  gpubill report whatif --month 2026-10
  gpubill report whatif --shutdown-after 4h --release-after 7d --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			shutdown, err := reports.ParseWhatIfDuration(shutdownAfter)
			if err != nil {
				return fmt.Errorf("--shutdown-after: %w", err)
			}
			release, err := reports.ParseWhatIfDuration(releaseAfter)
			if err != nil {
				return fmt.Errorf("--release-after: %w", err)
			}
			cfg, err := a.ruleConfig(nil)
			if err != nil {
				return err
			}
			return a.withMonth(cmd.Context(), func(db *ledger.DB, month string) error {
				// The month as an audit loads it: its sessions and idle
				// spans are the rules' own.
				in, err := rules.LoadInput(cmd.Context(), db, month, cfg)
				if err != nil {
					return fmt.Errorf("what-if: %w", err)
				}
				rep, err := reports.WhatIf(in, reports.WhatIfOptions{Month: month, ShutdownAfter: shutdown, ReleaseAfter: release})
				if err != nil {
					return err
				}
				return a.writeReport(rep)
			})
		},
	}
	cmd.Flags().StringVar(&shutdownAfter, "shutdown-after", "8h", "cut on-demand sessions after this long (Go duration or days: 8h, 90m, 1d)")
	cmd.Flags().StringVar(&releaseAfter, "release-after", "3d", "release storage of instances idle this long (days or Go duration: 3d, 36h)")
	return cmd
}

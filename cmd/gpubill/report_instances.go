package main

import (
	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reports"
)

func init() { reportSubcommands = append(reportSubcommands, (*app).reportInstancesCommand) }

func (a *app) reportInstancesCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "instances",
		Short: "Every instance: state, cost, findings, deletion date / 实例：状态、费用、问题、删除日期",
		Long: `Every instance of the month (compute, and resources that only had storage, seat or image
charges): its state as far as the bills show (running, stopped, released, unknown), first
and last run, what it cost with everything attached to it, its findings (run audit first)
and the date its platform will delete it under the policy table's release rule. Sorted by
the most urgent deletion, then cost. Policy overrides of the config file apply.

列出本月每个实例（包括只有存储、占用、镜像费用的实例）：按账单判断的状态（运行中、已关机、
已释放、不明）、首次与最后运行时间、连同磁盘镜像等的费用、审计发现（先运行 audit），以及按
平台“关机 N 天释放”规则的删除日期。最紧迫的删除排在最前，其次按费用。`,
		Example: `  gpubill report instances --month 2026-10
  gpubill report instances --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.ruleConfig(nil)
			if err != nil {
				return err
			}
			return a.withMonth(cmd.Context(), func(db *ledger.DB, month string) error {
				rep, err := reports.Instances(cmd.Context(), db, reports.InstancesOptions{
					Month: month, TZ: a.loc, Policy: cfg.PolicyFor})
				if err != nil {
					return internal(err)
				}
				return a.writeReport(rep)
			})
		},
	}
}

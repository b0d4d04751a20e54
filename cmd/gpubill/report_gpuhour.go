package main

import (
	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reports"
)

func init() { reportSubcommands = append(reportSubcommands, (*app).reportGPUHourCommand) }

func (a *app) reportGPUHourCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "gpuhour",
		Short: "The real price of a GPU-hour, hidden costs included / GPU 每小时的真实价格",
		Long: `The real price of a GPU-hour per provider and GPU model: the compute charges plus the
storage, image, snapshot, traffic and seat fees that served those instances (account-level
ones spread over the provider's models by compute cost), divided by the GPU-hours actually
billed (an hour billed twice counts once, and is named), against the sticker price (the
bill's own unit price; where the bill states none, the reference catalog with [[price]]
entries of the config file on top, labelled so). Package and spot rows are apart from
on-demand; compute whose GPU model is unknown has its own row; every other line item is
listed as left out. Sorted by markup, highest first.

按平台和 GPU 型号计算每 GPU 小时的真实价格：计算费加上为这些实例产生的存储、镜像、
快照、流量和占用费（无法对应实例的账户级费用按计算费比例分摊），除以实际使用的
GPU 小时（同一小时重复计费只算一次，并单独列出），并与标价比较（账单自己的单价；账单
未写明时用价格表并注明）。包年包月和竞价实例与按量分开；型号未知的计算费用单列一行；
其余费用列为未计入。按溢价从高到低排序。`,
		Example: `  gpubill report gpuhour --month 2026-10
  gpubill report gpuhour --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.ruleConfig(nil)
			if err != nil {
				return err
			}
			return a.withMonth(cmd.Context(), func(db *ledger.DB, month string) error {
				rep, err := reports.GPUHours(cmd.Context(), db, reports.GPUHourOptions{Month: month, Prices: cfg.ReferencePrices()})
				if err != nil {
					return err
				}
				return a.writeReport(rep)
			})
		},
	}
}

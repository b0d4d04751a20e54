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
used, against the sticker price (the reference catalog, with [[price]] entries of the config
file on top; else the month's median unit price). Sorted by markup, highest first.

按平台和 GPU 型号计算每 GPU 小时的真实价格：计算费加上为这些实例产生的存储、镜像、
快照、流量和占用费（无法对应实例的账户级费用按计算费比例分摊），除以实际使用的
GPU 小时，并与标价（价格表或本月单价中位数）比较。按溢价从高到低排序。`,
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

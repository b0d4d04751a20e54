package main

import (
	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/reports"
)

func (a *app) pricesCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "prices",
		Short: "List the price catalog with its sources and age / 列出价目表、来源与时效",
		Long: `List the reference catalog that report replay and the price_deviation rule use: GPU-hour
prices (the built-in ones and the [[price]] entries of the config file), storage, traffic
and seat rates, package and spot terms, GPUs not offered and GPU equivalents. Each entry
shows its source, the date it was seen, its age, and whether it is stale (older than 90
days), and its confidence (vendor, user report, guess).

列出 report replay 与 price_deviation 规则使用的参考价目：GPU 每小时单价（内置及配置文件
[[price]]）、存储/流量/占用费、包时与竞价条款、不提供的型号与等效型号；每条显示来源、
查看日期、天数、是否过期（超过 90 天）和可信度。`,
		Example: `  gpubill prices
  gpubill prices --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.ruleConfig(nil)
			if err != nil {
				return err
			}
			rep, err := reports.Prices(reports.PricesOptions{Config: cfg})
			if err != nil {
				return err
			}
			return a.writeReport(rep)
		},
	}
}

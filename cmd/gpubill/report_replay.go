package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reports"
	"github.com/gpubill/gpubill/rules"
)

func init() { reportSubcommands = append(reportSubcommands, (*app).reportReplayCommand) }

func (a *app) reportReplayCommand() *cobra.Command {
	var to, gpu, as string
	var allowEquivalent, jobs bool
	cmd := &cobra.Command{
		Use:   "replay",
		Short: "What the month's work would have cost on every platform, all-in / 跨平台重放",
		Long: `Replays the month's compute sessions (GPU model, count, actual run times) on each
platform: its billing step and minimum billed duration, its price per GPU-hour, storage
by GB-day (free quota, billed while stopped or not), traffic by GB, seat fees. One table
per GPU model and platform it ran on, ranked by all-in cost, with the difference from
what the month actually cost. The row of the platform it ran on is replayed with the
bill's own prices: where the bill follows the platform's policy it reproduces the billed
compute; what it does not is attributed (billed twice, rounding beyond the policy).
Every price used is listed with its source, the date it was seen and a confidence;
"no price known" is not "not offered". Prices are CNY: a bill in another currency is
replayed onto itself only. See gpubill prices for the catalog.

把本月的计算会话（GPU 型号、数量、实际运行时间）放到每个平台重新计价：计费步长、
最短计费时长、每 GPU·小时单价、按 GB·天的存储（免费额度、关机是否计费）、按 GB 的
流量、占用费。每个 GPU 型号一张表，按合计排序，并给出与本月实际费用的差额。原平台
一行用账单自己的单价重放，用来校准；每个假设都列出来源、查看日期和可信度。`,
		Example: `  gpubill report replay --month 2026-10
  gpubill report replay --to autodl,gpushare --gpu "RTX 4090"
  gpubill report replay --as package --format json
  gpubill report replay --jobs --to autodl,gpushare,matpool
  gpubill report replay --allow-equivalent --format html -o replay.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			targets, err := reports.ParseReplayTargets(to)
			if err != nil {
				return fmt.Errorf("--to: %w", err)
			}
			switch as {
			case ledger.PricingOnDemand, ledger.PricingPackage, ledger.PricingSpot:
			default:
				return fmt.Errorf("--as %q: want on_demand, package or spot", as)
			}
			cfg, err := a.ruleConfig(nil)
			if err != nil {
				return err
			}
			return a.withMonth(cmd.Context(), func(db *ledger.DB, month string) error {
				in, err := rules.LoadInput(cmd.Context(), db, month, cfg)
				if err != nil {
					return internal(err)
				}
				rep, err := reports.Replay(in, reports.ReplayOptions{Month: month, To: targets, GPU: gpu,
					As: as, AllowEquivalent: allowEquivalent, Jobs: jobs, Config: replayConfig(cfg)})
				if err != nil {
					return err
				}
				return a.writeReport(rep)
			})
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "target platforms, comma-separated slugs or names (default: all ten)")
	cmd.Flags().StringVar(&gpu, "gpu", "", "only this GPU model (any spelling: \"RTX 4090\", 4090, \"A100 80G\")")
	cmd.Flags().StringVar(&as, "as", ledger.PricingOnDemand, "price targets as on_demand, package or spot")
	cmd.Flags().BoolVar(&allowEquivalent, "allow-equivalent", false, "where a target lacks the GPU, price its nearest class (named as such)")
	cmd.Flags().BoolVar(&jobs, "jobs", false, "also list each session with its cheapest platform, and whether moving its data would eat the saving")
	return cmd
}

// replayConfig is what the replay prices with under the rules' config:
// its policies and the price catalog in effect, the user's own prices
// named as such.
func replayConfig(cfg rules.Config) reports.ReplayConfig {
	return reports.ReplayConfig{Policies: cfg.PolicyFor, Prices: cfg.ReferencePrices(), User: cfg.Prices}
}

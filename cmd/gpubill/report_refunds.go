package main

import (
	"bytes"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reports"
)

func init() { reportSubcommands = append(reportSubcommands, (*app).reportRefundsCommand) }

func (a *app) reportRefundsCommand() *cobra.Command {
	var attachment string
	cmd := &cobra.Command{
		Use:   "refunds",
		Short: "What to claim back from each platform, with ticket texts / 退款清单与工单文本",
		Long: `A checklist per platform: every disputable charge of the month (duplicate and
overlapping charges, rounding beyond the platform's own billing rule, prices above the
published ones, charges after the platform's release date) with its evidence rows and
money at stake, a ready-to-send support ticket, the unused balance from the money flow,
the platform's refund and invoice rules and the steps to take. Reads the stored findings:
run audit first. Findings marked resolved are left out.

按平台列出本月可申请退款的费用（重复扣费、重叠扣费、超出平台自身规则的计费取整、单价
高于公布价、超过释放期限仍收费），附证据行、涉及金额、可直接发送的工单文本、账户余额、
平台的退款与开票规则和操作步骤。读取已保存的审计发现：请先运行 audit。`,
		Example: `  gpubill audit --month 2026-10 >/dev/null
  gpubill report refunds --month 2026-10
  gpubill report refunds --month 2026-10 --attachment refunds-2026-10.csv
  gpubill report refunds --format csv -o refunds-2026-10.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.ruleConfig(nil)
			if err != nil {
				return err
			}
			return a.withMonth(cmd.Context(), func(db *ledger.DB, month string) error {
				rep, err := reports.Refunds(cmd.Context(), db, reports.RefundsOptions{
					Month: month, TZ: a.loc, Policy: cfg.PolicyFor})
				if err != nil {
					return internal(err)
				}
				if attachment != "" {
					var b bytes.Buffer
					if err := rep.WriteAttachment(&b, a.lang, a.loc); err != nil {
						return internal(err)
					}
					if err := os.WriteFile(attachment, b.Bytes(), outputMode); err != nil {
						return err
					}
				}
				return a.writeReport(rep)
			})
		},
	}
	cmd.Flags().StringVar(&attachment, "attachment", "",
		"also write the CSV to attach to the support ticket to FILE (in --lang, with a BOM for Excel, file names without paths)")
	return cmd
}

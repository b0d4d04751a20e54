package rules

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

// unclassifiedText sets a test item's service name and description.
func unclassifiedText(service, desc string) opt {
	return func(_ *testing.T, li *ledger.LineItem) { li.ServiceName, li.Description = service, desc }
}

// unclassifiedCategory sets a test item's charge category.
func unclassifiedCategory(c string) opt {
	return func(_ *testing.T, li *ledger.LineItem) { li.ChargeCategory = c }
}

func TestUnclassifiedCharge(t *testing.T) {
	other := ledger.KindOther
	runRuleCases(t, "unclassified_charge", []ruleCase{
		{
			name: "grouped_by_service_with_its_descriptions",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", other, "", "2026-10-03 00:00", "2026-10-04 00:00", "0.45", unclassifiedText("云监控", "短信告警")),
					item(t, "aliyun", other, "", "2026-10-05 00:00", "2026-10-06 00:00", "0.45", unclassifiedText("云监控", "短信告警")),
					item(t, "aliyun", other, "", "2026-10-07 00:00", "2026-10-08 00:00", "1.20", unclassifiedText("云监控", "电话告警")),
				}
			},
			want: []want{{rule: "unclassified_charge", resource: "", amount: "2.1", severity: "low", evidence: 3}},
		},
		{
			name: "description_when_no_service_name",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", other, "inst-1", "2026-10-03 10:00", "2026-10-03 10:00", "12.00", unclassifiedText("", "数据迁移服务费")),
					item(t, "autodl", other, "inst-2", "2026-10-04 10:00", "2026-10-04 10:00", "0.80", unclassifiedText("", "  技术\t支持\n费 ")),
				}
			},
			want: []want{
				{rule: "unclassified_charge", resource: "inst-1", amount: "12", severity: "medium", evidence: 1},
				{rule: "unclassified_charge", resource: "inst-2", amount: "0.8", severity: "info", evidence: 1},
			},
		},
		{
			name: "neither_service_nor_description",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "matpool", other, "", "2026-10-09 00:00", "2026-10-10 00:00", "3.00"),
				}
			},
			want: []want{{rule: "unclassified_charge", resource: "", amount: "3", severity: "low", evidence: 1}},
		},
		{
			name: "taxes_credits_refunds_and_other_kinds_are_clean",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", ledger.KindTax, "", "2026-10-01 00:00", "2026-11-01 00:00", "6.00", unclassifiedCategory(ledger.CategoryTax)),
					item(t, "aliyun", ledger.KindCredit, "", "2026-10-01 00:00", "2026-11-01 00:00", "-5.00", unclassifiedCategory(ledger.CategoryCredit)),
					item(t, "aliyun", other, "", "2026-10-01 00:00", "2026-11-01 00:00", "6.00", unclassifiedCategory(ledger.CategoryTax), unclassifiedText("", "增值税")),
					item(t, "aliyun", other, "", "2026-10-01 00:00", "2026-11-01 00:00", "5.00", unclassifiedCategory(ledger.CategoryCredit), unclassifiedText("", "代金券")),
					item(t, "aliyun", other, "", "2026-10-02 00:00", "2026-10-03 00:00", "-2.00", unclassifiedText("", "退款")),
					item(t, "aliyun", other, "", "2026-10-02 00:00", "2026-10-03 00:00", "0", unclassifiedText("", "免费试用")),
					item(t, "aliyun", ledger.KindService, "", "2026-10-02 00:00", "2026-10-03 00:00", "9.00", unclassifiedText("", "技术支持")),
					item(t, "aliyun", other, "", "2026-09-30 00:00", "2026-10-01 00:00", "9.00", unclassifiedText("", "九月的费用")),
				}
			},
		},
		{
			name: "positive_adjustment_counts",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "gpugeek", other, "", "2026-10-12 00:00", "2026-10-12 00:00", "4.00",
						unclassifiedCategory(ledger.CategoryAdjustment), unclassifiedText("", "计费方式切换补扣")),
				}
			},
			want: []want{{rule: "unclassified_charge", resource: "", amount: "4", severity: "low", evidence: 1}},
		},
		{
			name: "many_descriptions_are_listed_up_to_a_limit",
			items: func(t *testing.T) []ledger.LineItem {
				var out []ledger.LineItem
				for i := 1; i <= 10; i++ {
					out = append(out, item(t, "huaweicloud", other, "", "2026-10-03 00:00", "2026-10-04 00:00", "0.10",
						unclassifiedText("增值服务", fmt.Sprintf("服务项 %02d", i))))
				}
				return out
			},
			want: []want{{rule: "unclassified_charge", resource: "", amount: "1", severity: "low", evidence: 10}},
		},
		{
			name: "two_currencies_never_added",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", other, "", "2026-10-03 00:00", "2026-10-04 00:00", "2.00", unclassifiedText("域名", "域名续费")),
					item(t, "aliyun", other, "", "2026-10-03 00:00", "2026-10-04 00:00", "2.00", unclassifiedText("域名", "域名续费"), currency("USD")),
				}
			},
			want: []want{
				{rule: "unclassified_charge", resource: "", amount: "2", severity: "low", evidence: 1},
				{rule: "unclassified_charge", resource: "", amount: "2", currency: "USD", severity: "low", evidence: 1},
			},
		},
	})
}

// TestUnclassifiedChargeTimeZone: the period in the reason follows --tz.
func TestUnclassifiedChargeTimeZone(t *testing.T) {
	egressRunTZ(t, "unclassified_charge", time.UTC, []ruleCase{
		{
			name: "period_in_utc",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", ledger.KindOther, "", "2026-10-03 02:00", "2026-10-03 03:00", "2.00", unclassifiedText("", "未知费用")),
				}
			},
			want: []want{{rule: "unclassified_charge", resource: "", amount: "2", severity: "low", evidence: 1}},
		},
	})
}

func TestUnclassifiedClean(t *testing.T) {
	long := strings.Repeat("费", 70)
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "短信告警", "短信告警"},
		{"white_space_and_controls", "  技术\t支持\n费\x00 ", "技术 支持 费"},
		{"empty", " \t ", ""},
		{"cut_at_60", long, strings.Repeat("费", 59) + "…"},
		{"sixty_kept", strings.Repeat("a", 60), strings.Repeat("a", 60)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := unclassifiedClean(tc.in); got != tc.want {
				t.Errorf("unclassifiedClean(%q): got %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

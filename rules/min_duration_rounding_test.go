package rules

import (
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

func TestMinDurationRounding(t *testing.T) {
	runRuleCases(t, "min_duration_rounding", []ruleCase{
		{
			name: "12_minute_job_billed_1_hour",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "luchen", compute, "job-1", "2026-10-03 14:00", "2026-10-03 15:00", "3.00",
						usage("2026-10-03 14:00", "2026-10-03 14:12"), qty("1", "hour"), price("3.00")),
				}
			},
			want: []want{{rule: "min_duration_rounding", resource: "job-1", amount: "2.4", severity: "low", evidence: 1}},
		},
		{
			name: "1h05_billed_2h",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "luchen", compute, "job-2", "2026-10-03 14:00", "2026-10-03 16:00", "6.00",
						usage("2026-10-03 14:00", "2026-10-03 15:05"), qty("2", "小时"), price("3")),
				}
			},
			want: []want{{rule: "min_duration_rounding", resource: "job-2", amount: "2.75", severity: "low", evidence: 1}},
		},
		{
			name: "consumed_quantity_and_derived_price",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "volcengine", compute, "vm-1", "2026-10-03 14:00", "2026-10-03 15:00", "2.00",
						consumed("30", "分钟"), qty("1", "h")),
				}
			},
			want: []want{{rule: "min_duration_rounding", resource: "vm-1", amount: "1", severity: "low", evidence: 1}},
		},
		{
			name: "no_actual_times_at_policy_minimum",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "lanrui", compute, "inst-5", "2026-10-03 14:00", "2026-10-03 15:00", "2.50", qty("1", "小时")),
				}
			},
			want: []want{{rule: "min_duration_rounding", resource: "inst-5", amount: "null", severity: "info", evidence: 1}},
		},
		{
			name: "no_actual_times_in_a_run_of_hours",
			items: func(t *testing.T) []ledger.LineItem {
				return hourly(t, "lanrui", "inst-6", "2026-10-03 14:00", 3, "2.50", qty("1", "小时"))
			},
		},
		{
			name: "no_actual_times_without_minimum",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-7", "2026-10-03 14:00", "2026-10-03 15:00", "1.90", qty("1", "hour")),
				}
			},
		},
		{
			name: "per_second_billing_exact",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-8", "2026-10-03 14:00", "2026-10-03 14:12", "0.38",
						usage("2026-10-03 14:00", "2026-10-03 14:12"), qty("720", "秒")),
				}
			},
		},
		{
			name: "sub_cent_noise",
			items: func(t *testing.T) []ledger.LineItem {
				// billed 1h for 59m: 1 minute at ¥0.50/h = ¥0.0083, below min_amount.
				return []ledger.LineItem{
					item(t, "luchen", compute, "job-3", "2026-10-03 14:00", "2026-10-03 15:00", "0.50",
						usage("2026-10-03 14:00", "2026-10-03 14:59"), qty("1", "hour"), price("0.50")),
				}
			},
		},
		{
			name: "package_not_judged",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-9", "2026-10-03 00:00", "2026-10-04 00:00", "40.00",
						usage("2026-10-03 09:00", "2026-10-03 12:00"), qty("1", "天"), pricing(ledger.PricingPackage)),
				}
			},
		},
		{
			name: "capped_at_billed_cost",
			items: func(t *testing.T) []ledger.LineItem {
				// list ¥10/h, but the discounted charge was ¥2: at most ¥2 is at risk.
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-3", "2026-10-03 14:00", "2026-10-03 15:00", "2.00",
						usage("2026-10-03 14:00", "2026-10-03 14:06"), qty("1", "hour"), price("10")),
				}
			},
			want: []want{{rule: "min_duration_rounding", resource: "i-3", amount: "2", severity: "low", evidence: 1}},
		},
		{
			name: "grouped_per_resource",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "luchen", compute, "job-4", "2026-10-03 14:00", "2026-10-03 15:00", "3.00",
						usage("2026-10-03 14:00", "2026-10-03 14:30"), qty("1", "hour"), price("3")),
					item(t, "luchen", compute, "job-4", "2026-10-05 14:00", "2026-10-05 15:00", "3.00",
						usage("2026-10-05 14:00", "2026-10-05 14:45"), qty("1", "hour"), price("3")),
				}
			},
			want: []want{{rule: "min_duration_rounding", resource: "job-4", amount: "2.25", severity: "low", evidence: 2}},
		},
	})
}

// TestRoundingAdviceStatesThePolicyStep: the advice of a rounding finding
// says the billing step the policy table holds (the one the refund ticket
// cites), flagged when it is a guess; it never says "whole steps" of a
// platform that bills by the second.
func TestRoundingAdviceStatesThePolicyStep(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy billing.Policy
		ok     bool
		want   []string
		not    string
	}{
		{"by the second", billing.Policy{BillingStep: time.Second}, true, []string{"bills by the second:", "按秒计费："}, "whole steps"},
		{"by the hour, a guess", billing.Policy{BillingStep: time.Hour, Guesses: []string{"billing_step"}}, true,
			[]string{"bills by the hour (a guess, not confirmed by the platform)", "按小时计费（推测，未经平台确认）"}, ""},
		{"no policy", billing.Policy{}, false, []string{"if the platform claims per-second billing"}, "The policy table says"},
	} {
		zh, en := roundingAdvice(tc.policy, tc.ok)
		for _, w := range tc.want {
			if !strings.Contains(en, w) && !strings.Contains(zh, w) {
				t.Errorf("%s: advice %q / %q lacks %q", tc.name, zh, en, w)
			}
		}
		if tc.not != "" && strings.Contains(en, tc.not) {
			t.Errorf("%s: advice %q says %q", tc.name, en, tc.not)
		}
	}
}

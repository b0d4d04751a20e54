package rules

import (
	"testing"

	"github.com/gpubill/gpubill/ledger"
)

// endMarker is a later charge of provider, so that the sessions of a test
// end before the end of the data.
func endMarker(t *testing.T, provider string) ledger.LineItem {
	return item(t, provider, storage, "marker", "2026-10-20 00:00", "2026-10-21 00:00", "0.01")
}

func TestForgottenInstance(t *testing.T) {
	runRuleCases(t, "forgotten_instance", []ruleCase{
		{
			name: "10h_session_beyond_8h",
			items: func(t *testing.T) []ledger.LineItem {
				return append(hourly(t, "autodl", "inst-1", "2026-10-03 08:00", 10, "3.00"), endMarker(t, "autodl"))
			},
			want: []want{{rule: "forgotten_instance", resource: "inst-1", amount: "6", severity: "low", evidence: 10}},
		},
		{
			name: "10h_session_crossing_the_night",
			items: func(t *testing.T) []ledger.LineItem {
				return append(hourly(t, "autodl", "inst-2", "2026-10-03 20:00", 10, "3.00"), endMarker(t, "autodl"))
			},
			want: []want{{rule: "forgotten_instance", resource: "inst-2", amount: "6", severity: "medium", evidence: 10}},
		},
		{
			name: "short_session_still_running",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					[]ledger.LineItem{endMarker(t, "autodl")},
					hourly(t, "autodl", "inst-3", "2026-10-20 21:00", 3, "1.90"),
				)
			},
			want: []want{{rule: "forgotten_instance", resource: "inst-3", amount: "0", severity: "info", evidence: 3}},
		},
		{
			name: "stopped_before_the_end_of_data",
			items: func(t *testing.T) []ledger.LineItem {
				// the last row reaches the end of the data, but usage_end says it stopped at 22:10.
				return []ledger.LineItem{
					endMarker(t, "autodl"),
					item(t, "autodl", compute, "inst-3", "2026-10-20 22:00", "2026-10-21 00:00", "3.80",
						usage("2026-10-20 22:00", "2026-10-20 22:10")),
				}
			},
		},
		{
			name: "partial_last_hour_means_shut_down",
			items: func(t *testing.T) []ledger.LineItem {
				// hourly rows then a 45-minute settlement row at the end of the data: shut down, not running.
				return concat(
					hourly(t, "autodl", "inst-5", "2026-10-20 21:00", 2, "1.90"),
					[]ledger.LineItem{item(t, "autodl", compute, "inst-5", "2026-10-20 23:00", "2026-10-20 23:45", "1.43")},
				)
			},
		},
		{
			name: "8h_exactly_is_not_beyond",
			items: func(t *testing.T) []ledger.LineItem {
				return append(hourly(t, "autodl", "inst-4", "2026-10-03 08:00", 8, "3.00"), endMarker(t, "autodl"))
			},
		},
		{
			name: "package_running_30_days",
			items: func(t *testing.T) []ledger.LineItem {
				var out []ledger.LineItem
				for d := 1; d <= 30; d++ {
					day := at(t, "2026-10-01 00:00").AddDate(0, 0, d-1)
					out = append(out, item(t, "autodl", compute, "pkg-1", day.Format("2006-01-02 15:04"),
						day.AddDate(0, 0, 1).Format("2006-01-02 15:04"), "45.00", pricing(ledger.PricingPackage)))
				}
				return out
			},
		},
		{
			name: "limit_parameter",
			sets: []string{"forgotten_instance.limit=6h"},
			items: func(t *testing.T) []ledger.LineItem {
				return append(hourly(t, "matpool", "inst-5", "2026-10-03 08:00", 8, "2.00"), endMarker(t, "matpool"))
			},
			want: []want{{rule: "forgotten_instance", resource: "inst-5", amount: "4", severity: "low", evidence: 8}},
		},
		{
			name: "usage_times_pro_rata",
			items: func(t *testing.T) []ledger.LineItem {
				// 09:00–17:30 billed as one item of ¥17: 30 of 510 minutes lie beyond 8h.
				return []ledger.LineItem{
					item(t, "gpugeek", compute, "inst-6", "2026-10-03 09:00", "2026-10-03 18:00", "17.00",
						usage("2026-10-03 09:00", "2026-10-03 17:30")),
					endMarker(t, "gpugeek"),
				}
			},
			want: []want{{rule: "forgotten_instance", resource: "inst-6", amount: "1", severity: "low", evidence: 1}},
		},
		{
			name: "session_across_the_month_edge",
			items: func(t *testing.T) []ledger.LineItem {
				// 20:00 Sep 30 to 08:00 Oct 1: 12 h, reported in October with its September rows.
				return append(hourly(t, "autodl", "inst-7", "2026-09-30 20:00", 12, "2.00"), endMarker(t, "autodl"))
			},
			want: []want{{rule: "forgotten_instance", resource: "inst-7", amount: "8", severity: "medium", evidence: 12}},
		},
		{
			name:  "session_across_the_month_edge_not_in_september",
			month: "2026-09",
			items: func(t *testing.T) []ledger.LineItem {
				return append(hourly(t, "autodl", "inst-7", "2026-09-30 20:00", 12, "2.00"), endMarker(t, "autodl"))
			},
		},
		{
			name: "gap_splits_sessions",
			items: func(t *testing.T) []ledger.LineItem {
				// 6 h, a 2 h pause, 6 h: two sessions within the limit.
				return concat(
					hourly(t, "autodl", "inst-8", "2026-10-03 08:00", 6, "2.00"),
					hourly(t, "autodl", "inst-8", "2026-10-03 16:00", 6, "2.00"),
					[]ledger.LineItem{endMarker(t, "autodl")},
				)
			},
		},
		{
			name: "currencies_kept_apart",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					hourly(t, "aliyun", "i-9", "2026-10-03 08:00", 9, "1.00", currency("USD")),
					[]ledger.LineItem{endMarker(t, "aliyun")},
				)
			},
			want: []want{{rule: "forgotten_instance", resource: "i-9", amount: "1", currency: "USD", severity: "low", evidence: 9}},
		},
	})
}

// A daily row without run times that bills 2 hours is a 2-hour job (阿里云
// and 火山引擎 daily bills), not a day-long session.
func TestForgottenInstanceDailyRows(t *testing.T) {
	runRuleCases(t, "forgotten_instance", []ruleCase{
		{
			name: "daily_row_billing_2h_is_not_a_day_long_session",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-a100", "2026-10-06 00:00", "2026-10-07 00:00", "59.00", qty("2", "hour")),
					item(t, "aliyun", compute, "i-a100", "2026-10-07 00:00", "2026-10-08 00:00", "88.50", qty("3", "hour")),
					endMarker(t, "aliyun"),
				}
			},
		},
		{
			name: "daily_row_billing_1h_on_the_last_day_is_not_still_running",
			items: func(t *testing.T) []ledger.LineItem {
				// the row reaches the end of the data, but it bills 1h of its day: the
				// session is that hour, which the bill does not place at the day's end.
				return []ledger.LineItem{
					endMarker(t, "aliyun"),
					item(t, "aliyun", compute, "i-a10", "2026-10-20 00:00", "2026-10-21 00:00", "14.84", qty("1", "hour")),
				}
			},
		},
		{
			name: "daily_row_billing_its_whole_last_day_is_still_running",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					endMarker(t, "aliyun"),
					item(t, "aliyun", compute, "i-a10", "2026-10-20 00:00", "2026-10-21 00:00", "356.16", qty("24", "hour")),
				}
			},
			want: []want{{rule: "forgotten_instance", resource: "i-a10", amount: "237.44", severity: "high", evidence: 1}},
		},
		{
			name: "daily_rows_billing_whole_days_are_a_long_session",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-a100", "2026-10-06 00:00", "2026-10-07 00:00", "240.00", qty("24", "hour")),
					item(t, "aliyun", compute, "i-a100", "2026-10-07 00:00", "2026-10-08 00:00", "100.00", qty("10", "hour")),
					endMarker(t, "aliyun"),
				}
			},
			want: []want{{rule: "forgotten_instance", resource: "i-a100", amount: "260", severity: "high", evidence: 2}},
		},
	})
}

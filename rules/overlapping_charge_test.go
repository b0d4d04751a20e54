package rules

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

// overlapEndPlus moves a test item's charge end by d (sub-minute times).
func overlapEndPlus(d time.Duration) opt {
	return func(_ *testing.T, li *ledger.LineItem) { li.ChargePeriodEnd = li.ChargePeriodEnd.Add(d) }
}

func TestOverlappingCharge(t *testing.T) {
	runRuleCases(t, "overlapping_charge", []ruleCase{
		{
			name: "half_hour_overlap_at_the_billed_rate",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-1", "2026-10-03 10:00", "2026-10-03 11:00", "3.80"),
					item(t, "autodl", compute, "inst-1", "2026-10-03 10:30", "2026-10-03 11:30", "3.80"),
				}
			},
			want: []want{{rule: "overlapping_charge", resource: "inst-1", amount: "1.9", severity: "low", evidence: 2}},
		},
		{
			name: "touching_periods_are_clean",
			items: func(t *testing.T) []ledger.LineItem {
				return hourly(t, "autodl", "inst-1", "2026-10-03 10:00", 3, "3.80")
			},
		},
		{
			name: "package_all_month_and_another_resource_is_clean",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					[]ledger.LineItem{item(t, "autodl", compute, "pkg-1", "2026-10-01 00:00", "2026-11-01 00:00", "1200.00", pricing(ledger.PricingPackage))},
					hourly(t, "autodl", "inst-2", "2026-10-05 10:00", 3, "1.90"),
				)
			},
		},
		{
			name: "on_demand_inside_a_package_of_the_same_instance_is_not_judged",
			items: func(t *testing.T) []ledger.LineItem {
				// a temporary upgrade billed on demand during a subscription.
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-1", "2026-10-01 00:00", "2026-11-01 00:00", "900.00", pricing(ledger.PricingPackage)),
					item(t, "aliyun", compute, "i-1", "2026-10-05 10:00", "2026-10-05 12:00", "6.00"),
				}
			},
		},
		{
			name: "settlement_row_over_hourly_rows_is_one_chain",
			items: func(t *testing.T) []ledger.LineItem {
				return append(hourly(t, "gpushare", "inst-3", "2026-10-04 10:00", 3, "2.00"),
					item(t, "gpushare", compute, "inst-3", "2026-10-04 10:00", "2026-10-04 13:00", "6.00"))
			},
			want: []want{{rule: "overlapping_charge", resource: "inst-3", amount: "6", severity: "low", evidence: 4}},
		},
		{
			name: "two_rates_the_smaller_share",
			items: func(t *testing.T) []ledger.LineItem {
				// ¥4 over 2h (¥2/h) and ¥3 over the second hour: ¥2 of that hour is surely doubled.
				return []ledger.LineItem{
					item(t, "matpool", compute, "m-1", "2026-10-04 10:00", "2026-10-04 12:00", "4.00"),
					item(t, "matpool", compute, "m-1", "2026-10-04 11:00", "2026-10-04 12:00", "3.00"),
				}
			},
			want: []want{{rule: "overlapping_charge", resource: "m-1", amount: "2", severity: "low", evidence: 2}},
		},
		{
			name: "pro_rata_rounded_to_8_decimals",
			items: func(t *testing.T) []ledger.LineItem {
				// 40 of 60 minutes of ¥1.
				return []ledger.LineItem{
					item(t, "luchen", compute, "l-1", "2026-10-04 10:00", "2026-10-04 11:00", "1.00"),
					item(t, "luchen", compute, "l-1", "2026-10-04 10:20", "2026-10-04 11:20", "1.00"),
				}
			},
			want: []want{{rule: "overlapping_charge", resource: "l-1", amount: "0.66666667", severity: "info", evidence: 2}},
		},
		{
			name: "identical_items_are_duplicates_not_overlaps",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-4", "2026-10-03 10:00", "2026-10-03 11:00", "3.80"),
					item(t, "autodl", compute, "inst-4", "2026-10-03 10:00", "2026-10-03 11:00", "3.80"),
				}
			},
		},
		{
			name: "copies_count_once_in_a_chain",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-4", "2026-10-03 10:00", "2026-10-03 11:00", "3.80"),
					item(t, "autodl", compute, "inst-4", "2026-10-03 10:00", "2026-10-03 11:00", "3.80"),
					item(t, "autodl", compute, "inst-4", "2026-10-03 10:30", "2026-10-03 11:30", "3.80"),
				}
			},
			want: []want{{rule: "overlapping_charge", resource: "inst-4", amount: "1.9", severity: "low", evidence: 2}},
		},
		{
			name: "seconds_of_timestamp_rounding_are_clean",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-5", "2026-10-03 10:00", "2026-10-03 11:00", "3.80", overlapEndPlus(30*time.Second)),
					item(t, "autodl", compute, "inst-5", "2026-10-03 11:00", "2026-10-03 12:00", "3.80"),
				}
			},
		},
		{
			name: "min_overlap_parameter",
			sets: []string{"overlapping_charge.min_overlap=45m"},
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-1", "2026-10-03 10:00", "2026-10-03 11:00", "3.80"),
					item(t, "autodl", compute, "inst-1", "2026-10-03 10:30", "2026-10-03 11:30", "3.80"),
				}
			},
		},
		{
			name: "hourly_rows_carrying_the_session_usage_times_are_clean",
			items: func(t *testing.T) []ledger.LineItem {
				// every hourly row repeats the run's usage times 11:00–13:30 (as matpool exports do).
				var out []ledger.LineItem
				for _, h := range [][2]string{{"11:00", "12:00"}, {"12:00", "13:00"}, {"13:00", "13:30"}} {
					out = append(out, item(t, "matpool", compute, "mp-1", "2026-10-10 "+h[0], "2026-10-10 "+h[1], "2.00",
						usage("2026-10-10 11:00", "2026-10-10 13:30")))
				}
				return out
			},
		},
		{
			name: "overlapping_rows_of_one_run_with_usage_times",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "matpool", compute, "mp-2", "2026-10-10 11:00", "2026-10-10 12:00", "2.00", usage("2026-10-10 11:00", "2026-10-10 13:00")),
					item(t, "matpool", compute, "mp-2", "2026-10-10 11:30", "2026-10-10 12:30", "2.00", usage("2026-10-10 11:00", "2026-10-10 13:00")),
				}
			},
			want: []want{{rule: "overlapping_charge", resource: "mp-2", amount: "1", severity: "low", evidence: 2}},
		},
		{
			name: "separate_runs_rounded_up_are_clean",
			items: func(t *testing.T) []ledger.LineItem {
				// two short jobs each billed a whole hour: rounding, not an overlap.
				return []ledger.LineItem{
					item(t, "lanrui", compute, "job-1", "2026-10-03 14:00", "2026-10-03 15:00", "3.00", usage("2026-10-03 14:00", "2026-10-03 14:12")),
					item(t, "lanrui", compute, "job-1", "2026-10-03 14:30", "2026-10-03 15:30", "3.00", usage("2026-10-03 14:30", "2026-10-03 14:40")),
				}
			},
		},
		{
			name: "across_midnight",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-6", "2026-10-09 23:00", "2026-10-10 01:00", "4.00"),
					item(t, "autodl", compute, "inst-6", "2026-10-10 00:00", "2026-10-10 02:00", "4.00"),
				}
			},
			want: []want{{rule: "overlapping_charge", resource: "inst-6", amount: "2", severity: "low", evidence: 2}},
		},
		{
			name: "across_the_month_edge",
			items: func(t *testing.T) []ledger.LineItem {
				// a September row running into October and an October row of the same hour.
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-7", "2026-09-30 23:00", "2026-10-01 01:00", "4.00"),
					item(t, "autodl", compute, "inst-7", "2026-10-01 00:00", "2026-10-01 01:00", "2.00"),
				}
			},
			want: []want{{rule: "overlapping_charge", resource: "inst-7", amount: "2", severity: "low", evidence: 2}},
		},
		{
			name:  "across_the_month_edge_not_in_september",
			month: "2026-09",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-7", "2026-09-30 23:00", "2026-10-01 01:00", "4.00"),
					item(t, "autodl", compute, "inst-7", "2026-10-01 00:00", "2026-10-01 01:00", "2.00"),
				}
			},
		},
		{
			name: "day_item_inside_a_month_item",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", storage, "d-1", "2026-10-01 00:00", "2026-11-01 00:00", "31.00"),
					item(t, "aliyun", storage, "d-1", "2026-10-05 00:00", "2026-10-06 00:00", "1.20"),
				}
			},
			want: []want{{rule: "overlapping_charge", resource: "d-1", amount: "1", severity: "low", evidence: 2}},
		},
		{
			name: "many_components_of_one_resource",
			items: func(t *testing.T) []ledger.LineItem {
				// 20 components billed for the same hour are not overlaps; one of them billed
				// twice over overlapping periods is.
				var out []ledger.LineItem
				for i := 0; i < 20; i++ {
					out = append(out, item(t, "tencentcloud", compute, "ins-9", "2026-10-03 10:00", "2026-10-03 11:00", "0.50",
						sku(fmt.Sprintf("component-%02d", i))))
				}
				return append(out, item(t, "tencentcloud", compute, "ins-9", "2026-10-03 10:30", "2026-10-03 11:30", "0.50", sku("component-17")))
			},
			want: []want{{rule: "overlapping_charge", resource: "ins-9", amount: "0.25", severity: "info", evidence: 2}},
		},
		{
			name: "day_rows_billing_parts_of_the_day_are_clean",
			items: func(t *testing.T) []ledger.LineItem {
				// a 阿里云 bill with a 日期 only: each hourly run is a row of the whole day.
				var out []ledger.LineItem
				for i, q := range []string{"0.8", "0.340556", "2", "0.220833"} {
					out = append(out, item(t, "aliyun", compute, "i-3", "2026-10-03 00:00", "2026-10-04 00:00",
						fmt.Sprintf("%d.50", i+1), qty(q, "hour")))
				}
				return out
			},
		},
		{
			name: "day_rows_billing_more_than_the_day_the_excess_at_the_lowest_rate",
			items: func(t *testing.T) []ledger.LineItem {
				// 40h billed in a day: at least 16h twice, at ¥1/h (the cheaper row's rate).
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-4", "2026-10-03 00:00", "2026-10-04 00:00", "20.00", qty("20", "hour")),
					item(t, "aliyun", compute, "i-4", "2026-10-03 00:00", "2026-10-04 00:00", "40.00", qty("20", "hour")),
				}
			},
			want: []want{{rule: "overlapping_charge", resource: "i-4", amount: "16", severity: "medium", evidence: 2}},
		},
		{
			name: "an_hourly_row_and_a_day_row_that_fit_apart_are_clean",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-5", "2026-10-03 00:00", "2026-10-04 00:00", "2.00", qty("2", "hour")),
					item(t, "aliyun", compute, "i-5", "2026-10-03 10:00", "2026-10-03 11:00", "3.80", qty("1", "hour")),
				}
			},
		},
		{
			name: "an_hourly_row_inside_a_day_row_of_23h30m",
			items: func(t *testing.T) []ledger.LineItem {
				// 24h30m billed in 24h: 30m twice, at the day row's ¥1/h rather than the hour's ¥3.80.
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-6", "2026-10-03 00:00", "2026-10-04 00:00", "23.50", qty("23.5", "hour")),
					item(t, "aliyun", compute, "i-6", "2026-10-03 10:00", "2026-10-03 11:00", "3.80", qty("1", "hour")),
				}
			},
			want: []want{{rule: "overlapping_charge", resource: "i-6", amount: "0.5", severity: "info", evidence: 2}},
		},
		{
			name: "disks_and_traffic_rows_of_one_day_are_clean",
			items: func(t *testing.T) []ledger.LineItem {
				// 阿里云 day rows: 系统盘 and 数据盘 in GB-hours, and two traffic rows in GB.
				day := func(kind, cost, q, unit string) ledger.LineItem {
					return item(t, "aliyun", kind, "i-9", "2026-10-03 00:00", "2026-10-04 00:00", cost, qty(q, unit))
				}
				return []ledger.LineItem{day(storage, "1.68", "2400", "GB-hour"), day(storage, "36.00", "24000", "GB-hour"),
					day(ledger.KindNetwork, "54.13", "67.661", "GB"), day(ledger.KindNetwork, "76.03", "95.036", "GB")}
			},
		},
		{
			name: "one_disk_billed_twice_for_a_day_at_two_prices",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", storage, "d-2", "2026-10-03 00:00", "2026-10-04 00:00", "1.68", qty("2400", "GB-hour")),
					item(t, "aliyun", storage, "d-2", "2026-10-03 00:00", "2026-10-04 00:00", "1.92", qty("2400", "GB-hour")),
				}
			},
			want: []want{{rule: "overlapping_charge", resource: "d-2", amount: "1.68", severity: "low", evidence: 2}},
		},
		{
			name: "two_currencies_never_added",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-2", "2026-10-03 10:00", "2026-10-03 11:00", "8.00"),
					item(t, "aliyun", compute, "i-2", "2026-10-03 10:30", "2026-10-03 11:30", "1.10", currency("USD")),
					item(t, "aliyun", compute, "i-2", "2026-10-03 11:00", "2026-10-03 12:00", "1.10", currency("USD")),
				}
			},
			want: []want{{rule: "overlapping_charge", resource: "i-2", amount: "0.55", currency: "USD", severity: "info", evidence: 2}},
		},
	})
}

// TestForcedOverlap: forcedOverlap is the least overlap of two billed
// times over every way they can lie in their periods (tried second by
// second on small random periods).
func TestForcedOverlap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	item := func() overlapItem {
		s := rng.Int64N(20)
		e := s + 1 + rng.Int64N(20)
		return overlapItem{start: s, end: e, billed: 1 + rng.Int64N(e-s)}
	}
	for range 2000 {
		a, b := item(), item()
		least := int64(-1)
		for x := a.start; x+a.billed <= a.end; x++ {
			for y := b.start; y+b.billed <= b.end; y++ {
				if o := max(0, min(x+a.billed, y+b.billed)-max(x, y)); least < 0 || o < least {
					least = o
				}
			}
		}
		if got := forcedOverlap(&a, &b); got != least {
			t.Fatalf("forcedOverlap(%+v, %+v) = %d, want %d", a, b, got, least)
		}
	}
}

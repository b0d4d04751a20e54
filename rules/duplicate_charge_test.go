package rules

import (
	"testing"

	"github.com/gpubill/gpubill/ledger"
)

// rowKey sets a test item's dedupe key (a vendor line id, or hash#n).
func rowKey(k string) opt { return func(_ *testing.T, li *ledger.LineItem) { li.RowKey = k } }

func sku(s string) opt { return func(_ *testing.T, li *ledger.LineItem) { li.SKU = s } }

func TestDuplicateCharge(t *testing.T) {
	runRuleCases(t, "duplicate_charge", []ruleCase{
		{
			name: "identical_rows_in_one_file",
			items: func(t *testing.T) []ledger.LineItem {
				// the importer keeps identical rows of one file as #1 and #2.
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-1", "2026-10-03 10:00", "2026-10-03 11:00", "3.80", rowKey("h1#1")),
					item(t, "autodl", compute, "inst-1", "2026-10-03 10:00", "2026-10-03 11:00", "3.80", rowKey("h1#2")),
				}
			},
			want: []want{{rule: "duplicate_charge", resource: "inst-1", amount: "3.8", severity: "low", evidence: 2}},
		},
		{
			name: "three_vendor_line_ids_all_but_one_at_risk",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", storage, "d-1", "2026-10-05 00:00", "2026-10-06 00:00", "12.00", rowKey("ali-1001")),
					item(t, "aliyun", storage, "d-1", "2026-10-05 00:00", "2026-10-06 00:00", "12.00", rowKey("ali-1002")),
					item(t, "aliyun", storage, "d-1", "2026-10-05 00:00", "2026-10-06 00:00", "12.00", rowKey("ali-1003")),
				}
			},
			want: []want{{rule: "duplicate_charge", resource: "d-1", amount: "24", severity: "medium", evidence: 3}},
		},
		{
			name: "several_periods_one_finding",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					hourly(t, "gpushare", "inst-2", "2026-10-04 08:00", 3, "2.20"),
					hourly(t, "gpushare", "inst-2", "2026-10-04 08:00", 2, "2.20"),
				)
			},
			want: []want{{rule: "duplicate_charge", resource: "inst-2", amount: "4.4", severity: "low", evidence: 4}},
		},
		{
			name: "same_amount_consecutive_hours_is_clean",
			items: func(t *testing.T) []ledger.LineItem {
				return hourly(t, "autodl", "inst-3", "2026-10-03 10:00", 2, "3.80")
			},
		},
		{
			name: "compute_and_storage_of_one_resource_is_clean",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "tencentcloud", compute, "ins-1", "2026-10-03 10:00", "2026-10-03 11:00", "0.80"),
					item(t, "tencentcloud", storage, "ins-1", "2026-10-03 10:00", "2026-10-03 11:00", "0.80"),
				}
			},
		},
		{
			name: "components_told_apart_by_sku_are_clean",
			items: func(t *testing.T) []ledger.LineItem {
				// Tencent bills CPU and memory of one instance as two rows.
				return []ledger.LineItem{
					item(t, "tencentcloud", compute, "ins-2", "2026-10-03 10:00", "2026-10-03 11:00", "0.40", sku("CPU")),
					item(t, "tencentcloud", compute, "ins-2", "2026-10-03 10:00", "2026-10-03 11:00", "0.40", sku("内存")),
				}
			},
		},
		{
			name: "runs_of_one_day_told_apart_by_quantity_are_clean",
			items: func(t *testing.T) []ledger.LineItem {
				// a 阿里云 bill with a 日期 only: two runs of the day that happen to cost the same.
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-7", "2026-10-03 00:00", "2026-10-04 00:00", "28.72", qty("1.935", "hour")),
					item(t, "aliyun", compute, "i-7", "2026-10-03 00:00", "2026-10-04 00:00", "28.72", qty("1.936", "hour")),
				}
			},
		},
		{
			name: "same_quantity_at_another_precision_is_a_copy",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-8", "2026-10-03 00:00", "2026-10-04 00:00", "28.72", qty("1.9", "hour"), consumed("1.9", "hour")),
					item(t, "aliyun", compute, "i-8", "2026-10-03 00:00", "2026-10-04 00:00", "28.72", qty("1.900", "hour"), consumed("1.90", "hour")),
				}
			},
			want: []want{{rule: "duplicate_charge", resource: "i-8", amount: "28.72", severity: "medium", evidence: 2}},
		},
		{
			name: "same_value_at_another_precision",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "volcengine", compute, "i-9", "2026-10-03 10:00", "2026-10-03 11:00", "1.50"),
					item(t, "volcengine", compute, "i-9", "2026-10-03 10:00", "2026-10-03 11:00", "1.500000"),
				}
			},
			want: []want{{rule: "duplicate_charge", resource: "i-9", amount: "1.5", severity: "low", evidence: 2}},
		},
		{
			name: "two_currencies_never_added",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-1", "2026-10-03 10:00", "2026-10-03 11:00", "8.00"),
					item(t, "aliyun", compute, "i-1", "2026-10-03 10:00", "2026-10-03 11:00", "8.00", currency("USD")),
					item(t, "aliyun", compute, "i-1", "2026-10-03 11:00", "2026-10-03 12:00", "1.10", currency("USD")),
					item(t, "aliyun", compute, "i-1", "2026-10-03 11:00", "2026-10-03 12:00", "1.10", currency("USD")),
				}
			},
			want: []want{{rule: "duplicate_charge", resource: "i-1", amount: "1.1", currency: "USD", severity: "low", evidence: 2}},
		},
		{
			name: "period_across_midnight",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "matpool", compute, "m-1", "2026-10-09 23:30", "2026-10-10 00:30", "2.00", usage("2026-10-09 23:30", "2026-10-10 00:30")),
					item(t, "matpool", compute, "m-1", "2026-10-09 23:30", "2026-10-10 00:30", "2.00"),
				}
			},
			want: []want{{rule: "duplicate_charge", resource: "m-1", amount: "2", severity: "low", evidence: 2}},
		},
		{
			name: "copy_billed_in_the_next_month",
			items: func(t *testing.T) []ledger.LineItem {
				// the same Sep 30 hour appears in the September and the October bill.
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-4", "2026-09-30 23:00", "2026-10-01 00:00", "1.90"),
					item(t, "autodl", compute, "inst-4", "2026-09-30 23:00", "2026-10-01 00:00", "1.90", period("2026-10")),
				}
			},
			want: []want{{rule: "duplicate_charge", resource: "inst-4", amount: "1.9", severity: "low", evidence: 2}},
		},
		{
			name:  "copy_billed_in_the_next_month_not_in_september",
			month: "2026-09",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-4", "2026-09-30 23:00", "2026-10-01 00:00", "1.90"),
					item(t, "autodl", compute, "inst-4", "2026-09-30 23:00", "2026-10-01 00:00", "1.90", period("2026-10")),
				}
			},
		},
		{
			name: "credits_are_not_charges",
			items: func(t *testing.T) []ledger.LineItem {
				a := item(t, "autodl", compute, "inst-5", "2026-10-03 10:00", "2026-10-03 11:00", "-1.00")
				a.ChargeCategory = ledger.CategoryCredit
				b := a
				return []ledger.LineItem{a, b}
			},
		},
		{
			name: "no_resource_id_is_not_judged",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "luchen", ledger.KindService, "", "2026-10-03 00:00", "2026-10-04 00:00", "5.00"),
					item(t, "luchen", ledger.KindService, "", "2026-10-03 00:00", "2026-10-04 00:00", "5.00"),
				}
			},
		},
		{
			name: "below_min_amount",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", storage, "disk-1", "2026-10-03 00:00", "2026-10-04 00:00", "0.0066"),
					item(t, "autodl", storage, "disk-1", "2026-10-03 00:00", "2026-10-04 00:00", "0.0066"),
				}
			},
		},
	})
}

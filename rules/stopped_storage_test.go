package rules

import (
	"testing"

	"github.com/gpubill/gpubill/ledger"
)

const (
	compute = ledger.KindCompute
	storage = ledger.KindStorage
)

func TestStoppedStorage(t *testing.T) {
	runRuleCases(t, "stopped_storage", []ruleCase{
		{
			name: "day_with_compute",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-1", "2026-10-03 10:00", "2026-10-03 12:00", "3.80"),
					item(t, "autodl", storage, "disk-1", "2026-10-03 00:00", "2026-10-04 00:00", "0.066", parent("inst-1")),
				}
			},
		},
		{
			name: "day_without_compute",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-1", "2026-10-03 10:00", "2026-10-03 12:00", "3.80"),
					item(t, "autodl", storage, "disk-1", "2026-10-03 00:00", "2026-10-04 00:00", "0.066", parent("inst-1")),
					item(t, "autodl", storage, "disk-1", "2026-10-04 00:00", "2026-10-05 00:00", "0.066", parent("inst-1")),
					item(t, "autodl", storage, "disk-1", "2026-10-05 00:00", "2026-10-06 00:00", "0.0661", parent("inst-1")),
				}
			},
			want: []want{{rule: "stopped_storage", resource: "disk-1", amount: "0.1321", severity: "info", evidence: 2}},
		},
		{
			name: "hourly_item_in_idle_hour",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					hourly(t, "lanrui", "inst-2", "2026-10-03 10:00", 2, "2.50"),
					[]ledger.LineItem{
						item(t, "lanrui", storage, "vol-2", "2026-10-03 10:00", "2026-10-03 11:00", "0.05", parent("inst-2")),
						item(t, "lanrui", storage, "vol-2", "2026-10-03 12:00", "2026-10-03 13:00", "0.05", parent("inst-2")),
						item(t, "lanrui", storage, "vol-2", "2026-10-03 13:00", "2026-10-03 14:00", "0.05", parent("inst-2")),
					})
			},
			want: []want{{rule: "stopped_storage", resource: "vol-2", amount: "0.1", severity: "info", evidence: 2}},
		},
		{
			name: "fallback_to_account_compute",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "gpushare", compute, "inst-3", "2026-10-03 20:00", "2026-10-03 21:00", "2.20", account("lab")),
					// nas-1 names no instance and has no compute of its own: judged by the account.
					item(t, "gpushare", storage, "nas-1", "2026-10-03 00:00", "2026-10-04 00:00", "1.20", account("lab")),
					item(t, "gpushare", storage, "nas-1", "2026-10-05 00:00", "2026-10-06 00:00", "1.20", account("lab")),
					// an hourly item in an hour without compute, but on a day the account ran: not idle.
					item(t, "gpushare", storage, "nas-1", "2026-10-03 02:00", "2026-10-03 03:00", "0.05", account("lab")),
					// another account's compute does not keep lab's storage busy.
					item(t, "gpushare", compute, "inst-9", "2026-10-05 09:00", "2026-10-05 10:00", "2.20", account("other")),
				}
			},
			want: []want{{rule: "stopped_storage", resource: "nas-1", amount: "1.2", severity: "low", evidence: 1}},
		},
		{
			name: "same_resource_component",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "tencentcloud", compute, "ins-1", "2026-10-03 08:00", "2026-10-03 18:00", "50.00"),
					item(t, "tencentcloud", storage, "ins-1", "2026-10-03 00:00", "2026-10-04 00:00", "0.80"),
					item(t, "tencentcloud", storage, "ins-1", "2026-10-04 00:00", "2026-10-05 00:00", "0.80"),
				}
			},
			want: []want{{rule: "stopped_storage", resource: "ins-1", amount: "0.8", severity: "info", evidence: 1}},
		},
		{
			name: "month_item_pro_rata",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-1", "2026-10-02 09:00", "2026-10-02 11:00", "16.00"),
					item(t, "aliyun", storage, "d-1", "2026-10-01 00:00", "2026-11-01 00:00", "31.00", parent("i-1")),
				}
			},
			want: []want{{rule: "stopped_storage", resource: "d-1", amount: "30", severity: "medium", evidence: 1}},
		},
		{
			name: "compute_of_previous_month_counts",
			items: func(t *testing.T) []ledger.LineItem {
				// the Sep 30 session runs past midnight into Oct 1 but is billed in September.
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-1", "2026-09-30 22:00", "2026-10-01 02:00", "7.60"),
					item(t, "autodl", storage, "disk-1", "2026-10-01 00:00", "2026-10-02 00:00", "0.066", parent("inst-1")),
				}
			},
		},
		{
			name: "package_instance_covers_its_storage",
			items: func(t *testing.T) []ledger.LineItem {
				// a 包日 package runs whether on or off: its day is not idle.
				return []ledger.LineItem{
					item(t, "autodl", compute, "pkg-1", "2026-10-04 00:00", "2026-10-05 00:00", "45.00", pricing(ledger.PricingPackage)),
					item(t, "autodl", storage, "disk-5", "2026-10-04 00:00", "2026-10-05 00:00", "0.50", parent("pkg-1")),
				}
			},
		},
		{
			name: "credit_rows_are_not_storage_charges",
			items: func(t *testing.T) []ledger.LineItem {
				li := item(t, "autodl", storage, "disk-6", "2026-10-04 00:00", "2026-10-05 00:00", "-0.50", parent("inst-6"))
				li.ChargeCategory = ledger.CategoryCredit
				return []ledger.LineItem{li}
			},
		},
		{
			name: "two_currencies_never_added",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", storage, "d-2", "2026-10-04 00:00", "2026-10-05 00:00", "2.00", parent("i-2")),
					item(t, "aliyun", storage, "d-2", "2026-10-05 00:00", "2026-10-06 00:00", "1.00", parent("i-2"), currency("USD")),
				}
			},
			want: []want{
				{rule: "stopped_storage", resource: "d-2", amount: "2", severity: "low", evidence: 1},
				{rule: "stopped_storage", resource: "d-2", amount: "1", currency: "USD", severity: "low", evidence: 1},
			},
		},
		{
			name: "below_min_amount",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", storage, "disk-4", "2026-10-04 00:00", "2026-10-05 00:00", "0.0066", parent("inst-4")),
				}
			},
		},
	})
}

package rules

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// egressRunTZ runs cases like runRuleCases, with the audit's time zone set
// to loc. (It could move to helpers_test.go: the snapshot_image, seat_fee and
// unclassified_charge tests use it too.)
func egressRunTZ(t *testing.T, ruleID string, loc *time.Location, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := newLedger(t, tc.items(t))
			month := tc.month
			if month == "" {
				month = "2026-10"
			}
			cfg := only(t, ruleID, tc.sets...)
			cfg.TZ = loc
			got, err := Run(context.Background(), db, month, cfg)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			checkFindings(t, got, tc.want)
			golden(t, renderFindings(t, got))
		})
	}
}

// egressAcrossSeptember is a September-billed session running past
// midnight into October (¥80 for 8 h, 4 of them in October in Beijing
// time) and ¥5 of October traffic of that instance: against the October
// part of the session (¥40) that is 12.5%.
func egressAcrossSeptember(t *testing.T, opts ...opt) []ledger.LineItem {
	return []ledger.LineItem{
		item(t, "autodl", compute, "inst-9", "2026-09-30 20:00", "2026-10-01 04:00", "80.00", append([]opt{period("2026-09")}, opts...)...),
		item(t, "autodl", ledger.KindNetwork, "net-9", "2026-10-01 10:00", "2026-10-01 11:00", "5.00", parent("inst-9")),
	}
}

func TestEgress(t *testing.T) {
	runRuleCases(t, "egress", []ruleCase{
		{
			name: "small_traffic_against_compute_is_clean",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					hourly(t, "autodl", "inst-1", "2026-10-03 10:00", 10, "5.00"),
					[]ledger.LineItem{item(t, "autodl", ledger.KindNetwork, "net-1", "2026-10-03 10:00", "2026-10-03 20:00", "2.00", parent("inst-1"))})
			},
		},
		{
			name: "above_the_absolute_threshold",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					hourly(t, "aliyun", "i-1", "2026-10-03 08:00", 20, "10.00"),
					[]ledger.LineItem{
						// ¥12 against ¥200 of compute is 6%: flagged only because it is above ¥10.
						item(t, "aliyun", ledger.KindNetwork, "eip-1", "2026-10-03 08:00", "2026-10-03 20:00", "4.50", parent("i-1")),
						item(t, "aliyun", ledger.KindNetwork, "eip-1", "2026-10-03 23:00", "2026-10-04 01:00", "7.50", parent("i-1")),
					})
			},
			want: []want{{rule: "egress", resource: "i-1", amount: "12", severity: "low", evidence: 2}},
		},
		{
			name: "ten_exactly_is_not_above",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					hourly(t, "aliyun", "i-1", "2026-10-03 08:00", 20, "10.00"),
					[]ledger.LineItem{item(t, "aliyun", ledger.KindNetwork, "eip-1", "2026-10-03 08:00", "2026-10-03 20:00", "10.00", parent("i-1"))})
			},
		},
		{
			name: "above_the_share_of_compute",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					hourly(t, "luchen", "job-2", "2026-10-05 14:00", 2, "5.00"),
					[]ledger.LineItem{item(t, "luchen", ledger.KindNetwork, "job-2-net", "2026-10-05 14:00", "2026-10-05 16:00", "3.00", parent("job-2"))})
			},
			want: []want{{rule: "egress", resource: "job-2", amount: "3", severity: "low", evidence: 1}},
		},
		{
			name: "share_parameter",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					hourly(t, "luchen", "job-2", "2026-10-05 14:00", 2, "5.00"),
					[]ledger.LineItem{item(t, "luchen", ledger.KindNetwork, "job-2-net", "2026-10-05 14:00", "2026-10-05 16:00", "3.00", parent("job-2"))})
			},
			sets: []string{"egress.max_percent=50"},
		},
		{
			name: "download_dearer_than_the_training",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					hourly(t, "tencentcloud", "ins-1", "2026-10-07 09:00", 3, "5.00"),
					[]ledger.LineItem{
						// Tencent components carry the instance's own id.
						item(t, "tencentcloud", ledger.KindNetwork, "ins-1", "2026-10-07 09:00", "2026-10-07 10:00", "20.00"),
						item(t, "tencentcloud", ledger.KindNetwork, "ins-1", "2026-10-07 10:00", "2026-10-07 11:00", "15.00"),
					})
			},
			want: []want{{rule: "egress", resource: "ins-1", amount: "35", severity: "medium", evidence: 2}},
		},
		{
			name: "account_fallback",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					hourly(t, "gpushare", "inst-3", "2026-10-03 10:00", 10, "5.00", account("lab")),
					hourly(t, "gpushare", "inst-4", "2026-10-03 10:00", 1, "5.00", account("other")),
					[]ledger.LineItem{
						// ¥4 against lab's ¥50: 8%, clean.
						item(t, "gpushare", ledger.KindNetwork, "eip-3", "2026-10-04 00:00", "2026-10-05 00:00", "4.00", account("lab")),
						// ¥3 against other's ¥5: 60%.
						item(t, "gpushare", ledger.KindNetwork, "eip-4", "2026-10-04 00:00", "2026-10-05 00:00", "3.00", account("other")),
					})
			},
			want: []want{{rule: "egress", resource: "eip-4", amount: "3", severity: "low", evidence: 1}},
		},
		{
			name: "no_compute_served",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", ledger.KindNetwork, "eip-5", "2026-10-01 00:00", "2026-11-01 00:00", "0.50", parent("i-5")),
				}
			},
			want: []want{{rule: "egress", resource: "i-5", amount: "0.5", severity: "info", evidence: 1}},
		},
		{
			name:  "session_from_the_previous_month_counts",
			items: func(t *testing.T) []ledger.LineItem { return egressAcrossSeptember(t) },
		},
		{
			name: "actual_times_end_before_the_month",
			items: func(t *testing.T) []ledger.LineItem {
				// the bill says the instance really stopped at 23:30 on Sep 30:
				// none of that compute served October's traffic.
				return egressAcrossSeptember(t, usage("2026-09-30 20:00", "2026-09-30 23:30"))
			},
			want: []want{{rule: "egress", resource: "inst-9", amount: "5", severity: "low", evidence: 1}},
		},
		{
			name: "next_month_items_are_not_reported",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", ledger.KindNetwork, "eip-6", "2026-11-01 00:00", "2026-11-02 00:00", "30.00", parent("i-6")),
				}
			},
		},
		{
			name: "two_currencies_never_added",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					hourly(t, "aliyun", "i-7", "2026-10-03 08:00", 10, "50.00"),
					hourly(t, "aliyun", "i-7", "2026-10-04 08:00", 2, "10.00", currency("USD")),
					[]ledger.LineItem{
						// ¥8 against ¥500: clean; 8 USD against 20 USD: 40%.
						item(t, "aliyun", ledger.KindNetwork, "eip-7", "2026-10-03 08:00", "2026-10-03 18:00", "8.00", parent("i-7")),
						item(t, "aliyun", ledger.KindNetwork, "eip-7", "2026-10-04 08:00", "2026-10-04 10:00", "8.00", parent("i-7"), currency("USD")),
					})
			},
			want: []want{{rule: "egress", resource: "i-7", amount: "8", currency: "USD", severity: "low", evidence: 1}},
		},
		{
			name: "credit_rows_are_not_traffic",
			items: func(t *testing.T) []ledger.LineItem {
				li := item(t, "aliyun", ledger.KindNetwork, "eip-8", "2026-10-04 00:00", "2026-10-05 00:00", "-30.00", parent("i-8"))
				li.ChargeCategory = ledger.CategoryCredit
				return []ledger.LineItem{li}
			},
		},
	})
}

// TestEgressTimeZone: in UTC, October starts at 08:00 Beijing time, after
// the September session ended, so the traffic served no compute of the month.
func TestEgressTimeZone(t *testing.T) {
	egressRunTZ(t, "egress", time.UTC, []ruleCase{
		{
			name:  "utc_month_excludes_the_september_session",
			items: func(t *testing.T) []ledger.LineItem { return egressAcrossSeptember(t) },
			want:  []want{{rule: "egress", resource: "inst-9", amount: "5", severity: "low", evidence: 1}},
		},
	})
}

func TestEgressPercent(t *testing.T) {
	for _, tc := range []struct{ name, part, whole, want string }{
		{"whole_number", "7", "10", "70"},
		{"one_decimal", "2", "47", "4.3"},
		{"above_100", "35", "15", "233.3"},
		{"tiny", "0.001", "1000", "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := egressPercent(dec(t, tc.part), dec(t, tc.whole)); got != tc.want {
				t.Errorf("egressPercent(%s, %s): got %s, want %s", tc.part, tc.whole, got, tc.want)
			}
		})
	}
}

// egressComputeServed sums runs of one resource before adding them up: the
// same sums as adding every item to both of its keys, on generated months
// whose items (and context items, pro rata) switch account, currency and
// resource, with zero and negative costs among them.
func TestEgressComputeServedEqualsPerItem(t *testing.T) {
	ctx := context.Background()
	loc := mustLoc("Asia/Shanghai")
	var items []ledger.LineItem
	generateBenchItemsIn(6000, time.Date(2026, 9, 25, 0, 0, 0, 0, loc), time.Date(2026, 11, 5, 0, 0, 0, 0, loc), func(li *ledger.LineItem) bool {
		switch li.SourceRow % 97 {
		case 1:
			li.BillingAccountID = "acct-moved"
		case 2:
			li.Currency = "USD"
		case 3:
			li.BilledCost = decimal.Zero
		case 4:
			li.BilledCost = li.BilledCost.Neg()
		case 5:
			li.ResourceID = ""
		}
		items = append(items, *li)
		return true
	})
	db := newLedger(t, items)
	in, err := load(ctx, db, benchMonth, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Context) == 0 {
		t.Fatal("no context items: the test needs some")
	}
	want := map[egressComputeKey]decimal.Decimal{}
	add := func(li *ledger.LineItem, cost decimal.Decimal) {
		if cost.IsZero() {
			return
		}
		if li.ResourceID != "" {
			k := egressComputeKey{li.Provider, servedSame, li.ResourceID, li.Currency}
			want[k] = want[k].Add(cost)
		}
		a := egressComputeKey{li.Provider, servedAccount, li.BillingAccountID, li.Currency}
		want[a] = want[a].Add(cost)
	}
	for _, li := range in.Items {
		if billing.IsRunning(li) {
			add(li, li.BilledCost)
		}
	}
	for _, li := range in.Context {
		if cost, ok := in.monthShare(li); ok {
			add(li, cost)
		}
	}
	got := in.egressComputeServed()
	if len(got) != len(want) || len(want) < 20 {
		t.Errorf("got %d sums, want %d (and at least 20)", len(got), len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || !g.Equal(w) || g.Exponent() != w.Exponent() {
			t.Errorf("%v: got %s (present %v), want %s", k, g, ok, w)
		}
	}
}

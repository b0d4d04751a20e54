package rules

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// releaseDataEnd is a charge of provider of another resource that ends at
// end: it sets the end of the data.
func releaseDataEnd(t *testing.T, provider, end string) ledger.LineItem {
	t.Helper()
	e := at(t, end)
	return item(t, provider, storage, "other-disk", e.Add(-24*time.Hour).Format("2006-01-02 15:04"), end, "0.01")
}

// releaseDailyStorage is one storage charge of disk (serving inst) per day
// from the day of from, n days.
func releaseDailyStorage(t *testing.T, provider, disk, inst, from string, n int, cost string) []ledger.LineItem {
	t.Helper()
	var out []ledger.LineItem
	d := at(t, from)
	for i := 0; i < n; i++ {
		a, b := d.AddDate(0, 0, i), d.AddDate(0, 0, i+1)
		out = append(out, item(t, provider, storage, disk, a.Format("2006-01-02 15:04"), b.Format("2006-01-02 15:04"), cost, parent(inst)))
	}
	return out
}

func TestReleaseRisk(t *testing.T) {
	runRuleCases(t, "release_risk", []ruleCase{
		{
			name: "autodl_released_while_storage_still_billed",
			items: func(t *testing.T) []ledger.LineItem {
				// last compute Oct 3 12:00 + 15 days = Oct 18 12:00, before the end of the data (Oct 31).
				return concat(
					[]ledger.LineItem{item(t, "autodl", compute, "inst-1", "2026-10-03 10:00", "2026-10-03 12:00", "3.80")},
					releaseDailyStorage(t, "autodl", "disk-1", "inst-1", "2026-10-03 00:00", 28, "0.066"),
				)
			},
			want: []want{{rule: "release_risk", resource: "inst-1", amount: "null", severity: "high", evidence: 29}},
		},
		{
			name: "storage_until_the_release_then_nothing",
			items: func(t *testing.T) []ledger.LineItem {
				// the disk is billed until the release day, then the instance is gone.
				return concat(
					[]ledger.LineItem{item(t, "gpushare", compute, "hy-2", "2026-10-03 10:00", "2026-10-03 12:00", "4.40")},
					releaseDailyStorage(t, "gpushare", "nas-2", "hy-2", "2026-10-03 00:00", 10, "0.20"),
					[]ledger.LineItem{releaseDataEnd(t, "gpushare", "2026-10-31 00:00")},
				)
			},
			want: []want{{rule: "release_risk", resource: "hy-2", amount: "null", severity: "high", evidence: 11}},
		},
		{
			name: "autodl_stopped_5_days_before_the_end_is_clean",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-2", "2026-10-26 10:00", "2026-10-26 12:00", "3.80"),
					releaseDataEnd(t, "autodl", "2026-10-31 12:00"),
				}
			},
		},
		{
			name: "autodl_within_the_window",
			items: func(t *testing.T) []ledger.LineItem {
				// released Nov 1 12:00, 1d12h after the end of the data: within 3 days.
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-3", "2026-10-17 10:00", "2026-10-17 12:00", "3.80"),
					releaseDataEnd(t, "autodl", "2026-10-31 00:00"),
				}
			},
			want: []want{{rule: "release_risk", resource: "inst-3", amount: "null", severity: "high", evidence: 1}},
		},
		{
			name: "autodl_just_beyond_the_window_is_clean",
			items: func(t *testing.T) []ledger.LineItem {
				// released Nov 3 12:00, 3d12h after the end of the data.
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-3", "2026-10-19 10:00", "2026-10-19 12:00", "3.80"),
					releaseDataEnd(t, "autodl", "2026-10-31 00:00"),
				}
			},
		},
		{
			name: "window_parameter",
			sets: []string{"release_risk.window=96h"},
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-3", "2026-10-19 10:00", "2026-10-19 12:00", "3.80"),
					releaseDataEnd(t, "autodl", "2026-10-31 00:00"),
				}
			},
			want: []want{{rule: "release_risk", resource: "inst-3", amount: "null", severity: "high", evidence: 1}},
		},
		{
			name: "gpushare_10_days",
			items: func(t *testing.T) []ledger.LineItem {
				// stopped 10d4h before the end of the data: released on 恒源云, not yet (nor within
				// 3 days) on AutoDL.
				return []ledger.LineItem{
					item(t, "gpushare", compute, "hy-1", "2026-10-15 08:00", "2026-10-15 20:00", "26.40"),
					item(t, "autodl", compute, "inst-4", "2026-10-15 08:00", "2026-10-15 20:00", "22.80"),
					releaseDataEnd(t, "gpushare", "2026-10-26 00:00"),
					releaseDataEnd(t, "autodl", "2026-10-26 00:00"),
				}
			},
			want: []want{{rule: "release_risk", resource: "hy-1", amount: "null", severity: "high", evidence: 1}},
		},
		{
			name: "platform_without_release_rule_is_skipped",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					[]ledger.LineItem{item(t, "aliyun", compute, "i-1", "2026-10-01 10:00", "2026-10-01 12:00", "16.00")},
					releaseDailyStorage(t, "aliyun", "d-1", "i-1", "2026-10-01 00:00", 30, "0.80"),
				)
			},
		},
		{
			name: "still_running_at_the_end_is_clean",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					hourly(t, "autodl", "inst-5", "2026-10-02 10:00", 2, "1.90"),
					hourly(t, "autodl", "inst-5", "2026-10-30 22:00", 2, "1.90"),
				)
			},
		},
		{
			name: "usage_end_wins_over_the_charge_period",
			items: func(t *testing.T) []ledger.LineItem {
				// stopped Oct 12 01:00 (released Oct 27 01:00), though the row is billed to Oct 13 00:00
				// (Oct 28 00:00, beyond Oct 24 12:00 + 3 days).
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-6", "2026-10-12 00:00", "2026-10-13 00:00", "45.60", usage("2026-10-12 00:00", "2026-10-12 01:00")),
					releaseDataEnd(t, "autodl", "2026-10-24 12:00"),
				}
			},
			want: []want{{rule: "release_risk", resource: "inst-6", amount: "null", severity: "high", evidence: 1}},
		},
		{
			name: "package_then_nothing",
			items: func(t *testing.T) []ledger.LineItem {
				// a 包日 package for Oct 1–5, never started again.
				var out []ledger.LineItem
				for d := 1; d <= 5; d++ {
					day := at(t, "2026-10-01 00:00").AddDate(0, 0, d-1)
					out = append(out, item(t, "autodl", compute, "pkg-1", day.Format("2006-01-02 15:04"),
						day.AddDate(0, 0, 1).Format("2006-01-02 15:04"), "45.00", pricing(ledger.PricingPackage)))
				}
				return append(out, releaseDataEnd(t, "autodl", "2026-10-31 00:00"))
			},
			want: []want{{rule: "release_risk", resource: "pkg-1", amount: "null", severity: "high", evidence: 1}},
		},
		{
			name: "last_compute_in_the_previous_month",
			items: func(t *testing.T) []ledger.LineItem {
				// stopped Sep 28 22:00, released Oct 13 22:00: October shows it too.
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-7", "2026-09-28 20:00", "2026-09-28 22:00", "3.80"),
					releaseDataEnd(t, "autodl", "2026-10-31 00:00"),
				}
			},
			want: []want{{rule: "release_risk", resource: "inst-7", amount: "null", severity: "high", evidence: 1}},
		},
		{
			name:  "last_compute_in_the_previous_month_seen_from_september",
			month: "2026-09",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-7", "2026-09-28 20:00", "2026-09-28 22:00", "3.80"),
					releaseDataEnd(t, "autodl", "2026-10-31 00:00"),
				}
			},
			want: []want{{rule: "release_risk", resource: "inst-7", amount: "null", severity: "high", evidence: 1}},
		},
		{
			name: "released_before_the_month_and_silent_is_not_repeated",
			items: func(t *testing.T) []ledger.LineItem {
				// released Sep 20: September's audit reports it; October has nothing of it.
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-8", "2026-09-05 10:00", "2026-09-05 12:00", "3.80"),
					releaseDataEnd(t, "autodl", "2026-10-31 00:00"),
				}
			},
		},
		{
			name: "charged_in_the_month_after_its_release",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					[]ledger.LineItem{item(t, "autodl", compute, "inst-8", "2026-09-05 10:00", "2026-09-05 12:00", "3.80")},
					releaseDailyStorage(t, "autodl", "disk-8", "inst-8", "2026-10-01 00:00", 3, "0.066"),
					[]ledger.LineItem{releaseDataEnd(t, "autodl", "2026-10-31 00:00")},
				)
			},
			want: []want{{rule: "release_risk", resource: "inst-8", amount: "null", severity: "high", evidence: 4}},
		},
		{
			name: "ran_again_next_month_is_clean",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-9", "2026-10-03 10:00", "2026-10-03 12:00", "3.80"),
					item(t, "autodl", compute, "inst-9", "2026-11-20 10:00", "2026-11-20 12:00", "3.80"),
					releaseDataEnd(t, "autodl", "2026-11-30 00:00"),
				}
			},
		},
		{
			name: "compute_credit_is_no_run",
			items: func(t *testing.T) []ledger.LineItem {
				// a compensation row on Oct 25 does not restart the clock of Oct 3.
				c := item(t, "autodl", compute, "inst-10", "2026-10-25 00:00", "2026-10-25 01:00", "-3.80")
				c.ChargeCategory = ledger.CategoryCredit
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-10", "2026-10-03 10:00", "2026-10-03 12:00", "3.80"),
					c,
					releaseDataEnd(t, "autodl", "2026-10-31 00:00"),
				}
			},
			want: []want{{rule: "release_risk", resource: "inst-10", amount: "null", severity: "high", evidence: 1}},
		},
	})
}

// TestReleaseRiskConfig: the release date is written in cfg.TZ, and a
// policy override gives a platform a release rule.
func TestReleaseRiskConfig(t *testing.T) {
	cases := []struct {
		name     string
		tz       string
		policies map[string]billing.Policy
		items    func(t *testing.T) []ledger.LineItem
		want     []string // substrings of reason_en, one per finding
	}{
		{
			name: "release_date_in_utc",
			tz:   "UTC",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-1", "2026-10-03 10:00", "2026-10-03 12:00", "3.80"),
					releaseDataEnd(t, "autodl", "2026-10-31 00:00"),
				}
			},
			want: []string{"last ran until 2026-10-03 04:00", "released around 2026-10-18 04:00"},
		},
		{
			name: "release_date_in_beijing",
			tz:   "Asia/Shanghai",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "autodl", compute, "inst-1", "2026-10-03 10:00", "2026-10-03 12:00", "3.80"),
					releaseDataEnd(t, "autodl", "2026-10-31 00:00"),
				}
			},
			want: []string{"last ran until 2026-10-03 12:00", "released around 2026-10-18 12:00"},
		},
		{
			name:     "policy_override_adds_a_release_rule",
			tz:       "Asia/Shanghai",
			policies: map[string]billing.Policy{"matpool": {Provider: "matpool", ReleaseDays: 7}},
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "matpool", compute, "m-1", "2026-10-20 10:00", "2026-10-20 12:00", "2.00"),
					releaseDataEnd(t, "matpool", "2026-10-31 00:00"),
				}
			},
			want: []string{"Matpool releases an instance shut down for 7 days", "released around 2026-10-27 12:00"},
		},
		{
			name: "no_override_no_rule",
			tz:   "Asia/Shanghai",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "matpool", compute, "m-1", "2026-10-20 10:00", "2026-10-20 12:00", "2.00"),
					releaseDataEnd(t, "matpool", "2026-10-31 00:00"),
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := newLedger(t, tc.items(t))
			cfg := only(t, "release_risk")
			cfg.TZ = mustLoc(tc.tz)
			cfg.Policies = tc.policies
			got, err := Run(context.Background(), db, "2026-10", cfg)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if len(tc.want) == 0 {
				if len(got) != 0 {
					t.Fatalf("got %d findings, want none: %s", len(got), got[0].ReasonEN)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %d findings, want 1", len(got))
			}
			for _, w := range tc.want {
				if !strings.Contains(got[0].ReasonEN, w) {
					t.Errorf("got reason %q, want it to contain %q", got[0].ReasonEN, w)
				}
			}
		})
	}
}

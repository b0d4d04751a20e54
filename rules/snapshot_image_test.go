package rules

import (
	"testing"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

// snapshotDaily makes n consecutive day items of kind for resource from day
// (Beijing time), each cost.
func snapshotDaily(t *testing.T, provider, kind, resource, day string, n int, cost string, opts ...opt) []ledger.LineItem {
	t.Helper()
	s := at(t, day+" 00:00")
	var out []ledger.LineItem
	for i := 0; i < n; i++ {
		a, b := s.AddDate(0, 0, i), s.AddDate(0, 0, i+1)
		out = append(out, item(t, provider, kind, resource, a.Format("2006-01-02 15:04"), b.Format("2006-01-02 15:04"), cost, opts...))
	}
	return out
}

func TestSnapshotImage(t *testing.T) {
	runRuleCases(t, "snapshot_image", []ruleCase{
		{
			name: "zero_cost_image_in_free_quota_is_clean",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					snapshotDaily(t, "autodl", ledger.KindImage, "img-1", "2026-10-01", 31, "0", account("lab")),
					hourly(t, "autodl", "inst-1", "2026-10-03 10:00", 2, "1.90", account("lab")))
			},
		},
		{
			name: "billed_image_account_still_working",
			items: func(t *testing.T) []ledger.LineItem {
				// img-2 names no instance: judged by the account, which ran on Oct 3.
				return concat(
					snapshotDaily(t, "autodl", ledger.KindImage, "img-2", "2026-10-01", 5, "0.10", account("lab")),
					hourly(t, "autodl", "inst-1", "2026-10-03 10:00", 2, "1.90", account("lab")))
			},
			want: []want{{rule: "snapshot_image", resource: "img-2", amount: "0.5", severity: "info", evidence: 5}},
		},
		{
			name: "instance_gone",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-1", "2026-10-02 09:00", "2026-10-02 11:00", "16.00"),
					item(t, "aliyun", ledger.KindSnapshot, "s-1", "2026-10-01 00:00", "2026-11-01 00:00", "12.00", parent("i-1")),
				}
			},
			want: []want{{rule: "snapshot_image", resource: "s-1", amount: "12", severity: "high", evidence: 1}},
		},
		{
			name: "gone_after_parameter",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-1", "2026-10-02 09:00", "2026-10-02 11:00", "16.00"),
					item(t, "aliyun", ledger.KindSnapshot, "s-1", "2026-10-01 00:00", "2026-11-01 00:00", "12.00", parent("i-1")),
				}
			},
			sets: []string{"snapshot_image.gone_after=720h"},
			want: []want{{rule: "snapshot_image", resource: "s-1", amount: "12", severity: "medium", evidence: 1}},
		},
		{
			name: "previous_month_compute_counts",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					// i-2 last ran on Sep 20: 13 days before Oct 3 → gone.
					item(t, "aliyun", compute, "i-2", "2026-09-20 10:00", "2026-09-20 12:00", "16.00"),
					item(t, "aliyun", ledger.KindSnapshot, "s-2", "2026-10-02 00:00", "2026-10-03 00:00", "0.40", parent("i-2")),
					// i-3 ran until 02:00 on Oct 1 in a session billed in September → not gone.
					item(t, "aliyun", compute, "i-3", "2026-09-30 22:00", "2026-10-01 02:00", "32.00", period("2026-09")),
					item(t, "aliyun", ledger.KindSnapshot, "s-3", "2026-10-02 00:00", "2026-10-03 00:00", "0.40", parent("i-3")),
				}
			},
			want: []want{
				{rule: "snapshot_image", resource: "s-2", amount: "0.4", severity: "low", evidence: 1},
				{rule: "snapshot_image", resource: "s-3", amount: "0.4", severity: "info", evidence: 1},
			},
		},
		{
			name: "seven_days_exactly_look_gone",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-4", "2026-09-30 22:00", "2026-10-01 00:00", "16.00"),
					item(t, "aliyun", ledger.KindImage, "m-4", "2026-10-07 00:00", "2026-10-08 00:00", "0.30", parent("i-4")),
					// six days and 23 hours: not yet.
					item(t, "aliyun", compute, "i-5", "2026-09-30 22:00", "2026-10-01 01:00", "24.00"),
					item(t, "aliyun", ledger.KindImage, "m-5", "2026-10-07 00:00", "2026-10-08 00:00", "0.30", parent("i-5")),
				}
			},
			want: []want{
				{rule: "snapshot_image", resource: "m-4", amount: "0.3", severity: "low", evidence: 1},
				{rule: "snapshot_image", resource: "m-5", amount: "0.3", severity: "info", evidence: 1},
			},
		},
		{
			name: "instance_back_next_month_is_not_gone",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-6", "2026-09-01 10:00", "2026-09-01 12:00", "16.00"),
					item(t, "aliyun", compute, "i-6", "2026-11-02 10:00", "2026-11-02 12:00", "16.00"),
					item(t, "aliyun", ledger.KindSnapshot, "s-6", "2026-10-01 00:00", "2026-11-01 00:00", "5.00", parent("i-6")),
				}
			},
			want: []want{{rule: "snapshot_image", resource: "s-6", amount: "5", severity: "low", evidence: 1}},
		},
		{
			name: "no_compute_in_the_data",
			items: func(t *testing.T) []ledger.LineItem {
				// Nothing is known before Oct 1: ten idle days are enough,
				// one is not.
				return concat(
					snapshotDaily(t, "huaweicloud", ledger.KindImage, "ims-7", "2026-10-01", 10, "0.20", parent("ecs-7")),
					snapshotDaily(t, "huaweicloud", ledger.KindImage, "ims-8", "2026-10-01", 1, "0.20", parent("ecs-8")))
			},
			want: []want{
				{rule: "snapshot_image", resource: "ims-7", amount: "2", severity: "medium", evidence: 10},
				{rule: "snapshot_image", resource: "ims-8", amount: "0.2", severity: "info", evidence: 1},
			},
		},
		{
			name: "account_gone",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					hourly(t, "autodl", "inst-9", "2026-09-10 10:00", 3, "1.90", account("lab"), period("2026-09")),
					snapshotDaily(t, "autodl", ledger.KindImage, "img-9", "2026-10-01", 3, "0.10", account("lab")))
			},
			want: []want{{rule: "snapshot_image", resource: "img-9", amount: "0.3", severity: "low", evidence: 3}},
		},
		{
			name: "two_currencies_never_added",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-10", "2026-10-20 09:00", "2026-10-20 11:00", "16.00"),
					item(t, "aliyun", ledger.KindSnapshot, "s-10", "2026-10-20 00:00", "2026-10-21 00:00", "2.00", parent("i-10")),
					item(t, "aliyun", ledger.KindSnapshot, "s-10", "2026-10-20 00:00", "2026-10-21 00:00", "1.00", parent("i-10"), currency("USD")),
				}
			},
			want: []want{
				{rule: "snapshot_image", resource: "s-10", amount: "2", severity: "low", evidence: 1},
				{rule: "snapshot_image", resource: "s-10", amount: "1", currency: "USD", severity: "low", evidence: 1},
			},
		},
		{
			name: "credit_and_previous_month_rows_are_clean",
			items: func(t *testing.T) []ledger.LineItem {
				cr := item(t, "aliyun", ledger.KindSnapshot, "s-11", "2026-10-04 00:00", "2026-10-05 00:00", "-3.00", parent("i-11"))
				cr.ChargeCategory = ledger.CategoryCredit
				return []ledger.LineItem{
					cr,
					item(t, "aliyun", ledger.KindSnapshot, "s-12", "2026-09-04 00:00", "2026-09-05 00:00", "3.00", parent("i-12")),
				}
			},
		},
	})
}

// TestSnapshotImageTimeZone: the reason's times follow --tz.
func TestSnapshotImageTimeZone(t *testing.T) {
	egressRunTZ(t, "snapshot_image", time.UTC, []ruleCase{
		{
			name: "reason_in_utc",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "aliyun", compute, "i-1", "2026-10-02 09:00", "2026-10-02 11:00", "16.00"),
					item(t, "aliyun", ledger.KindSnapshot, "s-1", "2026-10-01 08:00", "2026-11-01 08:00", "12.00", parent("i-1")),
				}
			},
			want: []want{{rule: "snapshot_image", resource: "s-1", amount: "12", severity: "high", evidence: 1}},
		},
	})
}

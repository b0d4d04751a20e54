package rules

import (
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

func TestSeatFee(t *testing.T) {
	runRuleCases(t, "seat_fee", []ruleCase{
		{
			name: "daily_seat_fees",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "gpugeek", compute, "g-1", "2026-10-03 10:00", "2026-10-03 12:00", "4.00"),
					item(t, "gpugeek", ledger.KindSeat, "g-1", "2026-10-04 00:00", "2026-10-05 00:00", "1.50"),
					item(t, "gpugeek", ledger.KindSeat, "g-1", "2026-10-05 00:00", "2026-10-06 00:00", "1.50"),
					item(t, "gpugeek", ledger.KindSeat, "g-1", "2026-10-08 00:00", "2026-10-09 00:00", "1.5"),
				}
			},
			want: []want{{rule: "seat_fee", resource: "g-1", amount: "4.5", severity: "low", evidence: 3}},
		},
		{
			name: "seat_of_a_component_names_its_instance",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "volcengine", ledger.KindSeat, "seat-2", "2026-10-10 00:00", "2026-10-20 00:00", "60.00", parent("vm-2")),
				}
			},
			want: []want{{rule: "seat_fee", resource: "seat-2", amount: "60", severity: "high", evidence: 1}},
		},
		{
			name: "crossing_midnight",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "gpugeek", ledger.KindSeat, "g-3", "2026-10-03 22:00", "2026-10-04 02:00", "0.40"),
				}
			},
			want: []want{{rule: "seat_fee", resource: "g-3", amount: "0.4", severity: "info", evidence: 1}},
		},
		{
			name: "free_credit_and_other_month_seats_are_clean",
			items: func(t *testing.T) []ledger.LineItem {
				cr := item(t, "gpugeek", ledger.KindSeat, "g-4", "2026-10-04 00:00", "2026-10-05 00:00", "-1.50")
				cr.ChargeCategory = ledger.CategoryCredit
				return []ledger.LineItem{
					item(t, "gpugeek", ledger.KindSeat, "g-4", "2026-10-04 00:00", "2026-10-05 00:00", "0"),
					cr,
					item(t, "gpugeek", ledger.KindSeat, "g-4", "2026-09-30 00:00", "2026-10-01 00:00", "1.50"),
					item(t, "gpugeek", ledger.KindSeat, "g-4", "2026-11-01 00:00", "2026-11-02 00:00", "1.50"),
				}
			},
		},
		{
			name: "two_currencies_never_added",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "gpugeek", ledger.KindSeat, "g-5", "2026-10-04 00:00", "2026-10-05 00:00", "1.50"),
					item(t, "gpugeek", ledger.KindSeat, "g-5", "2026-10-05 00:00", "2026-10-06 00:00", "0.20", currency("USD")),
				}
			},
			want: []want{
				{rule: "seat_fee", resource: "g-5", amount: "1.5", severity: "low", evidence: 1},
				{rule: "seat_fee", resource: "g-5", amount: "0.2", currency: "USD", severity: "info", evidence: 1},
			},
		},
		{
			name: "below_min_amount",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{item(t, "gpugeek", ledger.KindSeat, "g-6", "2026-10-04 00:00", "2026-10-05 00:00", "0.5")}
			},
			sets: []string{"seat_fee.min_amount=1"},
		},
	})
}

// TestSeatFeeTimeZone: the days of a charge crossing Beijing midnight are
// one day in UTC.
func TestSeatFeeTimeZone(t *testing.T) {
	egressRunTZ(t, "seat_fee", time.UTC, []ruleCase{
		{
			name: "crossing_beijing_midnight_in_utc",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					item(t, "gpugeek", ledger.KindSeat, "g-3", "2026-10-03 22:00", "2026-10-04 02:00", "0.40"),
				}
			},
			want: []want{{rule: "seat_fee", resource: "g-3", amount: "0.4", severity: "info", evidence: 1}},
		},
	})
}

func TestSeatFeeDays(t *testing.T) {
	for _, tc := range []struct {
		name       string
		start, end string
		loc        *time.Location
		want       string
	}{
		{"one_day", "2026-10-04 00:00", "2026-10-05 00:00", bj, "2026-10-04"},
		{"crossing_midnight", "2026-10-03 22:00", "2026-10-04 02:00", bj, "2026-10-03,2026-10-04"},
		{"crossing_midnight_utc", "2026-10-03 22:00", "2026-10-04 02:00", time.UTC, "2026-10-03"},
		{"instant", "2026-10-04 09:00", "2026-10-04 09:00", bj, "2026-10-04"},
		{"month_end", "2026-10-30 12:00", "2026-11-01 00:00", bj, "2026-10-30,2026-10-31"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := seatFeeDays(at(t, tc.start), at(t, tc.end), tc.loc)
			if s := strings.Join(got, ","); s != tc.want {
				t.Errorf("seatFeeDays(%s, %s): got %s, want %s", tc.start, tc.end, s, tc.want)
			}
		})
	}
}

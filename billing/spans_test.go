package billing

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

func TestActiveSpan(t *testing.T) {
	day := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	qty := func(q, unit string) (decimal.NullDecimal, string) {
		return decimal.NullDecimal{Decimal: decimal.RequireFromString(q), Valid: true}, unit
	}
	for _, tc := range []struct {
		name       string
		li         ledger.LineItem
		start, end time.Time
	}{
		{"charge_period", ledger.LineItem{ChargePeriodStart: day, ChargePeriodEnd: day.Add(time.Hour)}, day, day.Add(time.Hour)},
		{"daily_row_billing_2h_is_cut", func() ledger.LineItem {
			li := ledger.LineItem{ChargePeriodStart: day, ChargePeriodEnd: day.AddDate(0, 0, 1)}
			li.PricingQuantity, li.PricingUnit = qty("2", "小时")
			return li
		}(), day, day.Add(2 * time.Hour)},
		{"fraction_of_a_second_dropped", func() ledger.LineItem {
			li := ledger.LineItem{ChargePeriodStart: day, ChargePeriodEnd: day.Add(time.Hour)}
			li.PricingQuantity, li.PricingUnit = qty("0.0001", "hour")
			return li
		}(), day, day},
		{"more_billed_than_the_period_is_not_cut", func() ledger.LineItem {
			li := ledger.LineItem{ChargePeriodStart: day, ChargePeriodEnd: day.Add(time.Hour)}
			li.PricingQuantity, li.PricingUnit = qty("3", "hour")
			return li
		}(), day, day.Add(time.Hour)},
		{"usage_times_win", ledger.LineItem{ChargePeriodStart: day, ChargePeriodEnd: day.Add(time.Hour),
			UsageStart: day.Add(10 * time.Minute), UsageEnd: day.Add(20 * time.Minute)}, day.Add(10 * time.Minute), day.Add(20 * time.Minute)},
		{"never_ends_before_it_starts", ledger.LineItem{ChargePeriodStart: day, ChargePeriodEnd: day.Add(time.Hour),
			UsageStart: day.Add(2 * time.Hour)}, day.Add(2 * time.Hour), day.Add(2 * time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, e := ActiveSpan(&tc.li)
			if !s.Equal(tc.start) || !e.Equal(tc.end) {
				t.Errorf("got %v–%v, want %v–%v", s, e, tc.start, tc.end)
			}
		})
	}
}

func TestUsageSeconds(t *testing.T) {
	at := time.Date(2026, 10, 5, 8, 0, 0, 0, time.UTC)
	consumed := func(q, unit, pricing string) ledger.LineItem {
		return ledger.LineItem{ConsumedQuantity: decimal.NullDecimal{Decimal: decimal.RequireFromString(q), Valid: true},
			ConsumedUnit: unit, PricingUnit: pricing}
	}
	for _, tc := range []struct {
		name  string
		li    ledger.LineItem
		secs  string
		basis string // "" = unknown
	}{
		{"usage_times", ledger.LineItem{UsageStart: at, UsageEnd: at.Add(90 * time.Second)}, "90", UsageFromTimes},
		{"usage_times_reversed_fall_back", func() ledger.LineItem {
			li := consumed("2", "minute", "")
			li.UsageStart, li.UsageEnd = at, at.Add(-time.Second)
			return li
		}(), "120", UsageFromConsumed},
		{"consumed_in_its_unit", consumed("1.5", "小时", "second"), "5400", UsageFromConsumed},
		{"consumed_in_the_pricing_unit", consumed("3", " ", "minute"), "180", UsageFromConsumed},
		{"consumed_unit_not_time", consumed("3", "GB", "hour"), "0", ""},
		{"negative_consumed", consumed("-1", "hour", ""), "0", ""},
		{"nothing", ledger.LineItem{PricingUnit: "hour"}, "0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secs, basis, known := UsageSeconds(&tc.li)
			if basis != tc.basis || known != (tc.basis != "") || !secs.Equal(decimal.RequireFromString(tc.secs)) {
				t.Errorf("got %s %q %v, want %s %q", secs, basis, known, tc.secs, tc.basis)
			}
		})
	}
}

func TestAddCostBeyond(t *testing.T) {
	start := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	li := &ledger.LineItem{BilledCost: decimal.RequireFromString("3.00"), ChargePeriodStart: start, ChargePeriodEnd: start.Add(3 * time.Hour)}
	for _, tc := range []struct {
		name   string
		cutoff time.Time
		want   string // "" = nothing added
	}{
		{"before_the_span_all", start.Add(-time.Hour), "3.00"},
		{"at_the_start_all", start, "3.00"},
		{"inside_pro_rata", start.Add(time.Hour), "2.00000000"},
		{"rounded_to_8_decimals", start.Add(2*time.Hour + 20*time.Minute), "0.66666667"},
		{"at_the_end_nothing", start.Add(3 * time.Hour), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sum money.Sum
			added := AddCostBeyond(&sum, li, tc.cutoff)
			if added != (tc.want != "") {
				t.Fatalf("got added %v, want %v", added, tc.want != "")
			}
			if added && sum.Decimal().String() != decimal.RequireFromString(tc.want).String() {
				t.Errorf("got %s, want %s", sum.Decimal(), tc.want)
			}
		})
	}
}

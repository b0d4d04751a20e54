package rules

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// pdGPU sets a line item's GPU model and count (0 = unknown).
func pdGPU(model string, count int) opt {
	return func(_ *testing.T, li *ledger.LineItem) { li.GPUModel, li.GPUCount = model, count }
}

// pdHours makes n consecutive one-hour compute items from start, each
// billed cost for one hour at the list price cost.
func pdHours(t *testing.T, provider, resource, start string, n int, cost string, opts ...opt) []ledger.LineItem {
	t.Helper()
	return hourly(t, provider, resource, start, n, cost, append([]opt{qty("1", "hour"), price(cost)}, opts...)...)
}

func TestPriceDeviation(t *testing.T) {
	runRuleCases(t, "price_deviation", []ruleCase{
		{
			name: "catalog_price_exceeded",
			items: func(t *testing.T) []ledger.LineItem {
				// AutoDL RTX 4090 ≈ ¥1.9/h in the catalog; billed ¥2.50/h.
				return pdHours(t, "autodl", "inst-1", "2026-10-03 10:00", 3, "2.50", pdGPU("RTX 4090", 1))
			},
			want: []want{{rule: "price_deviation", resource: "inst-1", amount: "1.8", severity: "low", evidence: 3}},
		},
		{
			name: "within_15_percent_is_clean",
			items: func(t *testing.T) []ledger.LineItem {
				// ¥2.185 is exactly 15% above ¥1.9: not more than 15%.
				return concat(
					pdHours(t, "autodl", "inst-2", "2026-10-03 10:00", 2, "2.185", pdGPU("GeForce RTX 4090 24G", 1)),
					pdHours(t, "autodl", "inst-3", "2026-10-04 10:00", 2, "2.15", pdGPU("4090", 1)),
				)
			},
		},
		{
			name: "price_derived_from_billed_seconds",
			items: func(t *testing.T) []ledger.LineItem {
				// 恒源云 4090 ≈ ¥2.2/h; 5400 s billed ¥4.50 = ¥3.00/h.
				return []ledger.LineItem{
					item(t, "gpushare", compute, "gs-1", "2026-10-05 09:00", "2026-10-05 10:30", "4.50",
						qty("5400", "second"), pdGPU("GeForce RTX 4090 24G", 1)),
				}
			},
			want: []want{{rule: "price_deviation", resource: "gs-1", amount: "1.2", severity: "low", evidence: 1}},
		},
		{
			name: "compared_per_gpu",
			items: func(t *testing.T) []ledger.LineItem {
				// 矩池云 4090 ≈ ¥2.0/h per GPU.
				return concat(
					// 2 GPUs at ¥4.00/h = ¥2.00 per GPU: clean.
					pdHours(t, "matpool", "mp-1", "2026-10-06 10:00", 1, "4.00", pdGPU("RTX 4090", 2)),
					// a count written in the model text: ¥4.10/h for 2 = ¥2.05: clean.
					pdHours(t, "matpool", "mp-2", "2026-10-06 10:00", 1, "4.10", pdGPU("RTX 4090 * 2", 0)),
					// 2 GPUs at ¥5.00/h for 2 h: (5.00 − 2 × 2.00) × 2 = ¥2.
					[]ledger.LineItem{item(t, "matpool", compute, "mp-3", "2026-10-06 10:00", "2026-10-06 12:00", "10.00",
						qty("2", "hour"), price("5.00"), pdGPU("RTX 4090", 2))},
				)
			},
			want: []want{{rule: "price_deviation", resource: "mp-3", amount: "2", severity: "low", evidence: 1}},
		},
		{
			name: "a100_40g_is_not_the_80g_price",
			items: func(t *testing.T) []ledger.LineItem {
				// AutoDL A100 80G ≈ ¥8/h; no 40G price and no history: only the 80G card is judged.
				return concat(
					pdHours(t, "autodl", "a40-1", "2026-10-07 10:00", 1, "9.50", pdGPU("A100-40GB", 1)),
					pdHours(t, "autodl", "a80-1", "2026-10-07 10:00", 1, "9.50", pdGPU("A100 80GB", 1)),
				)
			},
			want: []want{{rule: "price_deviation", resource: "a80-1", amount: "1.5", severity: "low", evidence: 1}},
		},
		{
			name: "median_of_earlier_prices_across_the_month_edge",
			items: func(t *testing.T) []ledger.LineItem {
				// No catalog price for 揽睿星舟 A6000: three September prices of ¥3.00 are the
				// reference for October's ¥3.60 (20% above) until October's own prices move
				// the median to ¥3.30, which ¥3.60 is within 15% of.
				return concat(
					pdHours(t, "lanrui", "lr-old", "2026-09-29 22:00", 3, "3.00", pdGPU("RTX A6000", 1)),
					pdHours(t, "lanrui", "lr-1", "2026-10-02 10:00", 4, "3.60", pdGPU("A6000 48G", 1)),
				)
			},
			want: []want{{rule: "price_deviation", resource: "lr-1", amount: "1.8", severity: "low", evidence: 3}},
		},
		{
			name: "too_few_earlier_prices_is_clean",
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					pdHours(t, "lanrui", "lr-2", "2026-10-01 10:00", 2, "3.00", pdGPU("RTX A6000", 1)),
					pdHours(t, "lanrui", "lr-2", "2026-10-02 10:00", 1, "3.60", pdGPU("RTX A6000", 1)),
				)
			},
		},
		{
			name: "min_history_parameter",
			sets: []string{"price_deviation.min_history=2"},
			items: func(t *testing.T) []ledger.LineItem {
				return concat(
					pdHours(t, "lanrui", "lr-2", "2026-10-01 10:00", 2, "3.00", pdGPU("RTX A6000", 1)),
					pdHours(t, "lanrui", "lr-2", "2026-10-02 10:00", 1, "3.60", pdGPU("RTX A6000", 1)),
				)
			},
			want: []want{{rule: "price_deviation", resource: "lr-2", amount: "0.6", severity: "info", evidence: 1}},
		},
		{
			name: "items_at_the_same_time_are_not_earlier",
			items: func(t *testing.T) []ledger.LineItem {
				// three instances started together: none is history for another.
				return concat(
					pdHours(t, "lanrui", "lr-3", "2026-10-01 10:00", 1, "3.00", pdGPU("RTX A6000", 1)),
					pdHours(t, "lanrui", "lr-4", "2026-10-01 10:00", 1, "3.00", pdGPU("RTX A6000", 1)),
					pdHours(t, "lanrui", "lr-5", "2026-10-01 10:00", 1, "3.60", pdGPU("RTX A6000", 1)),
				)
			},
		},
		{
			name: "package_compared_only_with_packages",
			items: func(t *testing.T) []ledger.LineItem {
				pkg := pricing(ledger.PricingPackage)
				return []ledger.LineItem{
					// a 包日 4090 at ¥60/day = ¥2.50/h: the catalog's ¥1.9 is an on-demand price.
					item(t, "autodl", compute, "pkg-1", "2026-10-04 00:00", "2026-10-05 00:00", "60.00", pkg, qty("1", "day"), pdGPU("RTX 4090", 1)),
					// 3090 on demand at ¥1.00/h is no reference for packages …
					item(t, "autodl", compute, "od-1", "2026-10-01 01:00", "2026-10-01 02:00", "1.00", qty("1", "hour"), pdGPU("RTX 3090", 1)),
					item(t, "autodl", compute, "od-1", "2026-10-01 02:00", "2026-10-01 03:00", "1.00", qty("1", "hour"), pdGPU("RTX 3090", 1)),
					item(t, "autodl", compute, "od-1", "2026-10-01 03:00", "2026-10-01 04:00", "1.00", qty("1", "hour"), pdGPU("RTX 3090", 1)),
					// … three earlier 包日 days at ¥45 are; the fourth at ¥60 is 33% above.
					item(t, "autodl", compute, "pkg-2", "2026-10-01 00:00", "2026-10-02 00:00", "45.00", pkg, qty("1", "day"), pdGPU("RTX 3090", 1)),
					item(t, "autodl", compute, "pkg-2", "2026-10-02 00:00", "2026-10-03 00:00", "45.00", pkg, qty("1", "day"), pdGPU("RTX 3090", 1)),
					item(t, "autodl", compute, "pkg-2", "2026-10-03 00:00", "2026-10-04 00:00", "45.00", pkg, qty("1", "day"), pdGPU("RTX 3090", 1)),
					item(t, "autodl", compute, "pkg-2", "2026-10-04 00:00", "2026-10-05 00:00", "60.00", pkg, qty("1", "day"), pdGPU("RTX 3090", 1)),
					// a 包周 week is not compared with days.
					item(t, "autodl", compute, "pkg-3", "2026-10-05 00:00", "2026-10-12 00:00", "400.00", pkg, qty("1", "week"), pdGPU("RTX 3090", 1)),
				}
			},
			want: []want{{rule: "price_deviation", resource: "pkg-2", amount: "15", severity: "medium", evidence: 1}},
		},
		{
			name: "discounted_below_the_list_price_is_clean",
			items: func(t *testing.T) []ledger.LineItem {
				// list price ¥2.50/h, but ¥1.90 billed: nothing paid above the reference.
				return []ledger.LineItem{item(t, "autodl", compute, "inst-4", "2026-10-03 10:00", "2026-10-03 11:00", "1.90",
					qty("1", "hour"), price("2.50"), pdGPU("RTX 4090", 1))}
			},
		},
		{
			name: "list_price_above_billed_cost_counts_what_was_paid",
			items: func(t *testing.T) []ledger.LineItem {
				// list ¥3.00/h, billed ¥2.40: the excess is 2.40 − 1.90, not 3.00 − 1.90.
				return []ledger.LineItem{item(t, "autodl", compute, "inst-5", "2026-10-03 10:00", "2026-10-03 11:00", "2.40",
					qty("1", "hour"), price("3.00"), pdGPU("RTX 4090", 1))}
			},
			want: []want{{rule: "price_deviation", resource: "inst-5", amount: "0.5", severity: "info", evidence: 1}},
		},
		{
			name: "not_judged_without_billed_time",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					// no billed quantity: the hours are not guessed from the charge period.
					item(t, "autodl", compute, "inst-6", "2026-10-03 10:00", "2026-10-03 11:00", "5.00", pdGPU("RTX 4090", 1)),
					// a quantity that is no time.
					item(t, "autodl", compute, "inst-7", "2026-10-03 10:00", "2026-10-03 11:00", "5.00", qty("1", "次"), pdGPU("RTX 4090", 1)),
					// no GPU model.
					item(t, "autodl", compute, "inst-8", "2026-10-03 10:00", "2026-10-03 11:00", "5.00", qty("1", "hour")),
					// spot prices float by design.
					item(t, "autodl", compute, "inst-9", "2026-10-03 10:00", "2026-10-03 11:00", "5.00", qty("1", "hour"),
						pricing(ledger.PricingSpot), pdGPU("RTX 4090", 1)),
				}
			},
		},
		{
			name: "credit_rows_are_not_prices",
			items: func(t *testing.T) []ledger.LineItem {
				li := item(t, "autodl", compute, "inst-10", "2026-10-03 10:00", "2026-10-03 11:00", "-5.00", qty("1", "hour"), pdGPU("RTX 4090", 1))
				li.ChargeCategory = ledger.CategoryCredit
				return []ledger.LineItem{li}
			},
		},
		{
			name: "gpu_count_unknown_and_a_promotion_price",
			items: func(t *testing.T) []ledger.LineItem {
				// 腾讯云 4090 ≈ ¥5/h (promotion); ¥6.00/h with no GPU count is taken as 1 GPU.
				return pdHours(t, "tencentcloud", "ins-tc", "2026-10-08 09:00", 2, "6.00", pdGPU("RTX 4090", 0))
			},
			want: []want{{rule: "price_deviation", resource: "ins-tc", amount: "2", severity: "low", evidence: 2}},
		},
		{
			name: "two_currencies_never_mixed",
			items: func(t *testing.T) []ledger.LineItem {
				usd := currency("USD")
				return concat(
					pdHours(t, "autodl", "inst-cny", "2026-10-02 10:00", 1, "2.50", pdGPU("RTX 4090", 1)),
					// the catalog is in CNY: USD prices meet only earlier USD prices.
					pdHours(t, "autodl", "inst-usd", "2026-10-01 10:00", 3, "0.30", pdGPU("RTX 4090", 1), usd),
					pdHours(t, "autodl", "inst-usd", "2026-10-02 10:00", 1, "0.40", pdGPU("RTX 4090", 1), usd),
				)
			},
			want: []want{
				{rule: "price_deviation", resource: "inst-cny", amount: "0.6", severity: "info", evidence: 1},
				{rule: "price_deviation", resource: "inst-usd", amount: "0.1", currency: "USD", severity: "info", evidence: 1},
			},
		},
		{
			name: "period_crossing_midnight_at_the_month_end",
			items: func(t *testing.T) []ledger.LineItem {
				return []ledger.LineItem{
					// billed in October, runs into November.
					item(t, "autodl", compute, "inst-11", "2026-10-31 23:00", "2026-11-01 01:00", "5.00",
						qty("2", "hour"), price("2.50"), pdGPU("RTX 4090", 1)),
					// November's items are context: never reported in October.
					item(t, "autodl", compute, "inst-11", "2026-11-01 01:00", "2026-11-01 02:00", "3.00",
						qty("1", "hour"), price("3.00"), pdGPU("RTX 4090", 1)),
				}
			},
			want: []want{{rule: "price_deviation", resource: "inst-11", amount: "1.2", severity: "low", evidence: 1}},
		},
		{
			name: "below_min_amount",
			items: func(t *testing.T) []ledger.LineItem {
				// 36 s at ¥2.50/h: 0.01 h × ¥0.60 = ¥0.006.
				return []ledger.LineItem{item(t, "autodl", compute, "inst-12", "2026-10-03 10:00", "2026-10-03 10:01", "0.025",
					qty("36", "second"), pdGPU("RTX 4090", 1))}
			},
		},
		{
			name:  "catalog_price_older_than_90_days",
			month: "2027-03",
			items: func(t *testing.T) []ledger.LineItem {
				// The catalog's ¥1.9 was seen 2026-11-29, 123 days before the end
				// of March 2027: the reason says the price may be out of date.
				return pdHours(t, "autodl", "inst-13", "2027-03-03 10:00", 3, "2.50", pdGPU("RTX 4090", 1))
			},
			want: []want{{rule: "price_deviation", resource: "inst-13", amount: "1.8", severity: "low", evidence: 3}},
		},
		{
			name: "threshold_parameter",
			sets: []string{"price_deviation.max_excess_pct=10"},
			items: func(t *testing.T) []ledger.LineItem {
				// ¥2.15 is 13.2% above ¥1.9: reported with a 10% threshold.
				return pdHours(t, "autodl", "inst-3", "2026-10-04 10:00", 2, "2.15", pdGPU("4090", 1))
			},
			want: []want{{rule: "price_deviation", resource: "inst-3", amount: "0.5", severity: "info", evidence: 2}},
		},
	})
}

// TestPriceDeviationTimeZone checks that the days named in the reason are
// cut in cfg.TZ: 07:00 in Beijing on Oct 4 is Oct 3 in UTC.
func TestPriceDeviationTimeZone(t *testing.T) {
	db := newLedger(t, pdHours(t, "autodl", "inst-1", "2026-10-04 07:00", 1, "2.50", pdGPU("RTX 4090", 1)))
	for _, tc := range []struct {
		name, tz, day string
	}{
		{"beijing", "Asia/Shanghai", "2026-10-04"},
		{"utc", "UTC", "2026-10-03"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := only(t, "price_deviation")
			cfg.TZ = mustLoc(tc.tz)
			got, err := Run(context.Background(), db, "2026-10", cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || amountText(got[0].AmountAtRisk) != "0.6" {
				t.Fatalf("got %d findings, want 1 of 0.6", len(got))
			}
			if !strings.Contains(got[0].ReasonEN, " on "+tc.day+",") || !strings.Contains(got[0].ReasonZH, "在 "+tc.day+" ") {
				t.Errorf("got reasons %q / %q, want the day %s", got[0].ReasonEN, got[0].ReasonZH, tc.day)
			}
		})
	}
}

func TestPriceDeviationBadParams(t *testing.T) {
	db := newLedger(t, pdHours(t, "autodl", "inst-1", "2026-10-04 07:00", 1, "2.50", pdGPU("RTX 4090", 1)))
	for _, tc := range []struct{ set, want string }{
		{"price_deviation.min_history=2.5", "not a whole number"},
		{"price_deviation.min_history=0", "not a whole number"},
	} {
		t.Run(tc.set, func(t *testing.T) {
			_, err := Run(context.Background(), db, "2026-10", only(t, "price_deviation", tc.set))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestRunningMedian: after each price added, the median is the middle
// price, or the exact mean of the two middle ones (one more decimal than
// they have), whatever their scale.
func TestRunningMedian(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want []string // median after each add
	}{
		{"one", []string{"3"}, []string{"3"}},
		{"rising", []string{"1", "2", "3", "4"}, []string{"1", "1.5", "2", "2.5"}},
		{"falling_and_repeats", []string{"0.00000005", "0.00000003", "0.00000003", "0.00000001", "0.00000009"},
			[]string{"0.00000005", "0.00000004", "0.00000003", "0.00000003", "0.00000003"}},
		{"half_of_the_last_digit", []string{"0.00000001", "0.00000002"}, []string{"0.00000001", "0.000000015"}},
		{"mixed_scales", []string{"1.9", "1.90000000000000000001", "1.899999999999999999999", "2"},
			[]string{"1.9", "1.900000000000000000005", "1.9", "1.900000000000000000005"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newRunningMedian()
			for i, x := range tc.in {
				d := dec(t, x)
				m.add(&d)
				if got := m.median().String(); got != tc.want[i] {
					t.Errorf("after %d values: got median %s, want %s", i+1, got, tc.want[i])
				}
			}
		})
	}
}

// TestRunningMedianIsSortedMiddle compares the running median with the
// middle of the sorted prices, on random prices of up to 12 decimals.
func TestRunningMedianIsSortedMiddle(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	half := decimal.New(5, -1)
	for run := range 200 {
		m := newRunningMedian()
		var all []decimal.Decimal
		for n := range 1 + rng.IntN(60) {
			x := decimal.New(rng.Int64N(1_000_000_000), -int32(rng.IntN(13)))
			m.add(&x)
			all = append(all, x)
			sorted := slices.Clone(all)
			slices.SortFunc(sorted, decimal.Decimal.Cmp)
			want := sorted[len(sorted)/2]
			if len(sorted)%2 == 0 {
				want = sorted[len(sorted)/2-1].Add(want).Mul(half)
			}
			if got := m.median(); !got.Equal(want) || m.n() != n+1 {
				t.Fatalf("run %d, %d prices %v: median %s (of %d), want %s", run, n+1, all, got, m.n(), want)
			}
		}
	}
}

// TestPriceQuote: a quote's price per hour is, digit for digit, the list
// price converted to an hour, else the billed cost ÷ billed hours to 8
// decimals; its price per GPU is that ÷ GPUs to 8 decimals.
func TestPriceQuote(t *testing.T) {
	for _, tc := range []struct {
		list, billed, qty, unit string
		secs                    int64
	}{
		{list: "1.32", billed: "0.99", qty: "0.75", unit: "小时", secs: 3600},
		{list: "0.0223", billed: "1.338", qty: "60", unit: "分钟", secs: 60},
		{list: "31.7", billed: "31.7", qty: "1", unit: "天", secs: 86400},
		{list: "0.123456789", billed: "0.5", qty: "2", unit: "小时", secs: 3600}, // 9 decimals
		{list: "100.5", billed: "100.5", qty: "1", unit: "周", secs: 604800},
		{billed: "3.45", qty: "1", unit: "小时", secs: 3600},
		{billed: "1.88", qty: "0.333333", unit: "小时", secs: 3600},
		{billed: "123456789012345678.9", qty: "3", unit: "小时", secs: 3600},
		{billed: "1.000000000000000001", qty: "0.000000007", unit: "秒", secs: 1},
	} {
		for _, count := range []int{1, 3} {
			li := &ledger.LineItem{Kind: ledger.KindCompute, ChargeCategory: ledger.CategoryUsage, GPUModel: "A100", GPUCount: count,
				BilledCost: dec(t, tc.billed), PricingQuantity: ndec(t, tc.qty), PricingUnit: tc.unit, Currency: "CNY"}
			if tc.list != "" {
				li.ListUnitPrice = ndec(t, tc.list)
			}
			if u, ok := billing.ParseTimeUnit(tc.unit); !ok || u.Secs != tc.secs {
				t.Fatalf("unit %q: %v %d, want %d seconds", tc.unit, ok, u.Secs, tc.secs)
			}
			q, _, ok := priceQuoteOf(li, map[string]priceModelInfo{}, false)
			if !ok {
				t.Fatalf("%+v: no quote", tc)
			}
			var want decimal.Decimal
			secs := decimal.NewFromInt(tc.secs)
			switch {
			case tc.list == "":
				want = li.BilledCost.Mul(decimal.NewFromInt(3600)).DivRound(li.PricingQuantity.Decimal.Mul(secs), 8)
			case tc.secs == 3600:
				want = li.ListUnitPrice.Decimal
			case 3600%tc.secs == 0:
				want = li.ListUnitPrice.Decimal.Mul(decimal.NewFromInt(3600 / tc.secs))
			default:
				want = li.ListUnitPrice.Decimal.Mul(decimal.NewFromInt(3600)).DivRound(secs, 8)
			}
			if got := q.perHour; got.String() != want.String() || got.Exponent() != want.Exponent() {
				t.Errorf("%+v, %d GPUs: price %s (exponent %d), want %s (%d)", tc, count, got, got.Exponent(), want, want.Exponent())
			}
			wantGPU := want // one GPU: the price per hour
			if count > 1 {
				wantGPU = want.DivRound(decimal.NewFromInt(int64(count)), 8)
			}
			if q.perGPU.String() != wantGPU.String() {
				t.Errorf("%+v, %d GPUs: per GPU %s, want %s", tc, count, q.perGPU, wantGPU)
			}
		}
	}
}

// TestPriceDeviationExactDecimals: prices with more decimals than a bill
// usually has, through the ledger and back, are compared and subtracted
// exactly. The median of 3.000000001, 3.000000003 and 3.000000002 is
// 3.000000002; 15% above it is exactly 3.4500000023, which is not more
// than 15%, while 3.4500000024 is, by 0.4500000004 for its hour. A float,
// or a fixed point of 8 decimals, would get the median, the limit or the
// amount wrong.
func TestPriceDeviationExactDecimals(t *testing.T) {
	a6000 := pdGPU("RTX A6000", 1)
	db := newLedger(t, concat(
		pdHours(t, "lanrui", "lr-h1", "2026-10-01 10:00", 1, "3.000000001", a6000),
		pdHours(t, "lanrui", "lr-h2", "2026-10-01 11:00", 1, "3.000000003", a6000),
		pdHours(t, "lanrui", "lr-h3", "2026-10-01 12:00", 1, "3.000000002", a6000),
		pdHours(t, "lanrui", "lr-at", "2026-10-02 10:00", 1, "3.4500000023", a6000),
		pdHours(t, "lanrui", "lr-over", "2026-10-02 10:00", 1, "3.4500000024", a6000),
	))
	got, err := Run(context.Background(), db, "2026-10", only(t, "price_deviation"))
	if err != nil {
		t.Fatal(err)
	}
	checkFindings(t, got, []want{{rule: "price_deviation", resource: "lr-over", amount: "0.4500000004", severity: "info", evidence: 1}})
	if want := "reference = median of 3 earlier per-GPU prices"; !strings.Contains(got[0].Basis, want) {
		t.Errorf("basis %q, want %q", got[0].Basis, want)
	}
}

// BenchmarkPriceDeviation runs the rule on n compute items shaped like the
// ingest benchmark's sample bill (six platforms, six GPU models, hourly
// list prices, part hours): most have no catalog price and go through the
// running median.
func BenchmarkPriceDeviation(b *testing.B) {
	const n = 1_000_000
	models := []string{"RTX 4090", "RTX 3090", "A100 80G", "A800", "V100", "L40S"}
	providers := []string{"autodl", "gpushare", "matpool", "gpugeek", "lanrui", "luchen"}
	prices := []string{"1.88", "1.32", "7.98", "6.5", "2.58", "4.28"}
	base := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	items := make([]*ledger.LineItem, n)
	for i := range items {
		k := i % 6
		q := decimal.New(int64(600+i%3001), 0).Div(decimal.New(3600, 0)).Round(6)
		p := decimal.RequireFromString(prices[k])
		items[i] = &ledger.LineItem{
			ID:                int64(i + 1),
			Provider:          providers[k],
			Kind:              ledger.KindCompute,
			ResourceID:        "i-" + strconv.Itoa(i%400),
			BillingPeriod:     "2026-10",
			ChargeCategory:    ledger.CategoryUsage,
			PricingModel:      ledger.PricingOnDemand,
			GPUModel:          models[k],
			GPUCount:          1,
			Currency:          "CNY",
			ChargePeriodStart: base.Add(time.Duration(i/400) * time.Hour),
			ChargePeriodEnd:   base.Add(time.Duration(i/400+1) * time.Hour),
			PricingQuantity:   decimal.NewNullDecimal(q),
			PricingUnit:       "hour",
			ListUnitPrice:     decimal.NewNullDecimal(p),
			BilledCost:        p.Mul(q).Round(2),
		}
	}
	in := &Input{Month: "2026-10", TZ: bj, Items: items, cfg: DefaultConfig(), ruleID: "price_deviation"}
	b.ResetTimer()
	for range b.N {
		fs, err := priceDeviation{}.Run(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		if len(fs) != 0 {
			b.Fatalf("got %d findings on steady prices, want 0", len(fs))
		}
	}
}

func TestPriceAge(t *testing.T) {
	sh := time.FixedZone("CST", 8*3600)
	for _, tc := range []struct {
		seen     string
		monthEnd time.Time
		days     int
		old      bool
	}{
		{"2026-11-29", time.Date(2026, 12, 1, 0, 0, 0, 0, sh), 2, false},
		{"2026-11-29", time.Date(2027, 2, 27, 0, 0, 0, 0, sh), 90, false},
		{"2026-11-29", time.Date(2027, 2, 28, 0, 0, 0, 0, sh), 91, true},
		{"2026-11", time.Date(2027, 3, 1, 0, 0, 0, 0, sh), 91, true}, // from Nov 30
		{"2026-11", time.Date(2027, 2, 28, 0, 0, 0, 0, sh), 90, false},
		{"", time.Date(2027, 3, 1, 0, 0, 0, 0, sh), 0, false},
		{"2026-11-29", time.Time{}, 0, false},
	} {
		days, old := priceAge(tc.seen, tc.monthEnd)
		if days != tc.days || old != tc.old {
			t.Errorf("priceAge(%q, %s): got %d %v, want %d %v", tc.seen, tc.monthEnd.Format(time.DateOnly), days, old, tc.days, tc.old)
		}
	}
}

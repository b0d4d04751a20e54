package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

// gpuHourSample is a month whose arithmetic is done by hand in
// TestGPUHoursHandComputed:
//
//	autodl RTX 4090 (i-4090): 2 hourly rows billed 1.00 each = 2.00 for 2
//	  GPU-hours; its disk (parent i-4090) 1.00 and its traffic (same
//	  resource id) 0.50 → all-in 3.50 ÷ 2 h = 1.7500 per GPU-hour. The bill
//	  states no unit price: the sticker is 1.40 of the test catalog:
//	  1.75 ÷ 1.40 − 1 = 25.00%.
//	  A compute instance whose GPU model is unknown (cpu-1): its own row,
//	  1 h billed 0.80 plus its disk 0.20 = 1.00, 1.0000 per hour; sticker
//	  the median of cost ÷ quantity, 0.80: markup 25.00%.
//	gpushare RTX 4090 (g-1): 1 h at 2.00; A100 ×2 (g-2): 30 minutes of use
//	  (usage times) × 2 GPUs = 1 GPU-hour at 4.00. An account-level traffic
//	  charge of 1.00 is spread by compute cost 2 : 4 → 0.33333333 to the
//	  4090 and the rest, 0.66666667, to the A100 (the largest), 1.00 in all.
//	  Stickers: the bill's unit price 2.00 for the 4090; the A100 states
//	  none and has no catalog price: 4.00 ÷ (1 h × 2 GPUs) = 2.00 (median).
//	  Its tax 0.06 is no GPU cost: left out.
//	lanrui: a disk but no compute: left out.
func gpuHourSample(t *testing.T) (*ledger.DB, []ledger.LineItem) {
	t.Helper()
	db := testkit.OpenLedger(t)
	hour := func(h int) (string, string) {
		return "2026-10-03 " + twoDigits(h) + ":00", "2026-10-03 " + twoDigits(h+1) + ":00"
	}
	s1, e1 := hour(10)
	s2, e2 := hour(11)
	items := []ledger.LineItem{
		{Provider: "autodl", Kind: ledger.KindCompute,
			ResourceID: "i-4090", GPUModel: "RTX 4090", GPUCount: 1,
			ChargePeriodStart: bj(s1), ChargePeriodEnd: bj(e1), PricingQuantity: nd(t, "1"),
			PricingUnit: "hour", BilledCost: dec(t, "1.00"),
			ResourceName: "训练"},
		{Provider: "autodl", Kind: ledger.KindCompute,
			ResourceID: "i-4090", GPUModel: "4090", ChargePeriodStart: bj(s2),
			ChargePeriodEnd: bj(e2), PricingQuantity: nd(t, "1"), PricingUnit: "hour",
			BilledCost: dec(t, "1.00"), ResourceName: "训练"},
		{Provider: "autodl", Kind: ledger.KindStorage,
			ResourceID: "d-1", ParentResourceID: "i-4090", ChargePeriodStart: bj("2026-10-03 00:00"),
			ChargePeriodEnd: bj("2026-10-04 00:00"), BilledCost: dec(t, "1.00")},
		{Provider: "autodl", Kind: ledger.KindNetwork,
			ResourceID: "i-4090", ChargePeriodStart: bj(s1), ChargePeriodEnd: bj(e1),
			BilledCost: dec(t, "0.50")},
		{Provider: "autodl", Kind: ledger.KindCompute,
			ResourceID: "cpu-1", ChargePeriodStart: bj(s1), ChargePeriodEnd: bj(e1),
			PricingQuantity: nd(t, "1"), PricingUnit: "hour", BilledCost: dec(t, "0.80")},
		{Provider: "autodl", Kind: ledger.KindStorage,
			ResourceID: "cpu-1", ChargePeriodStart: bj("2026-10-03 00:00"),
			ChargePeriodEnd: bj("2026-10-04 00:00"), BilledCost: dec(t, "0.20")},
		{Provider: "gpushare", Kind: ledger.KindCompute,
			ResourceID: "g-1", GPUModel: "RTX 4090", ChargePeriodStart: bj(s1),
			ChargePeriodEnd: bj(e1), PricingQuantity: nd(t, "1"), PricingUnit: "hour",
			ListUnitPrice: nd(t, "2.00"), BilledCost: dec(t, "2.00")},
		{Provider: "gpushare", Kind: ledger.KindCompute,
			ResourceID: "g-2", GPUModel: "A100 80G", GPUCount: 2,
			ChargePeriodStart: bj(s1), ChargePeriodEnd: bj(e1), UsageStart: bj("2026-10-03 10:00"),
			UsageEnd: bj("2026-10-03 10:30"), PricingQuantity: nd(t, "1"), PricingUnit: "hour",
			BilledCost: dec(t, "4.00")},
		{Provider: "gpushare", Kind: ledger.KindNetwork, ChargePeriodStart: bj(s1), ChargePeriodEnd: bj(e1), BilledCost: dec(t, "1.00")},
		{Provider: "gpushare", Kind: ledger.KindTax, ChargePeriodStart: bj(s1), ChargePeriodEnd: bj(e1), BilledCost: dec(t, "0.06")},
		{Provider: "lanrui", Kind: ledger.KindStorage,
			ResourceID: "lr-disk", ChargePeriodStart: bj("2026-10-03 00:00"),
			ChargePeriodEnd: bj("2026-10-04 00:00"), BilledCost: dec(t, "0.48")},
	}
	for i := range items {
		items[i].BillingPeriod = "2026-10"
	}
	return db, testkit.ImportItems(t, db, "bills/gpu.csv", items)
}

func twoDigits(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }

func testCatalog(t *testing.T) *billing.PriceCatalog {
	t.Helper()
	c, err := billing.ParsePrices([]byte(`{"prices": [{"provider": "autodl", "gpu_model": "RTX 4090", "price_per_hour": "1.40", "source": "test"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestGPUHoursHandComputed(t *testing.T) {
	db, _ := gpuHourSample(t)
	rep, err := GPUHours(context.Background(), db, GPUHourOptions{Month: "2026-10", Prices: testCatalog(t)})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		hours, compute, attributed, spread, allIn, real, sticker, basis, markup string
	}
	wants := map[string]want{
		"autodl/RTX4090":    {"2.0000", "2.00", "1.50", "0", "3.50", "1.7500", "1.40", StickerCatalog, "0.2500"},
		"autodl/":           {"1.0000", "0.80", "0.20", "0", "1.00", "1.0000", "0.80000000", StickerMedian, "0.2500"},
		"gpushare/RTX4090":  {"1.0000", "2.00", "0", "0.33333333", "2.33333333", "2.3333", "2.00000000", StickerBill, "0.1667"},
		"gpushare/A100-80G": {"1.0000", "4.00", "0", "0.66666667", "4.66666667", "4.6667", "2.00000000", StickerMedian, "1.3333"},
	}
	if len(rep.Rows) != len(wants) {
		t.Fatalf("got %d rows want %d: %+v", len(rep.Rows), len(wants), rep.Rows)
	}
	for _, g := range rep.Rows {
		name := g.Provider + "/" + g.ModelKey
		w, ok := wants[name]
		if !ok {
			t.Errorf("unexpected row %s", name)
			continue
		}
		for _, c := range []struct{ field, got, want string }{
			{"gpu hours", g.GPUHours().StringFixed(4), w.hours},
			{"compute", g.ComputeCost.String(), w.compute},
			{"attributed", g.AttributedCost.String(), w.attributed},
			{"spread", g.SpreadCost.String(), w.spread},
			{"all-in", g.AllInCost.String(), w.allIn},
			{"real price", g.RealPrice.Decimal.StringFixed(4), w.real},
			{"sticker", money.String(g.Sticker.Decimal), w.sticker},
			{"sticker basis", g.StickerBasis, w.basis},
			{"markup", g.Markup.Decimal.StringFixed(4), w.markup},
		} {
			if !decEqualOrSame(c.got, c.want) {
				t.Errorf("%s %s: got %s want %s", name, c.field, c.got, c.want)
			}
		}
	}
	// ordering: markup descending
	if got := rep.Rows[0].ModelKey; got != "A100-80G" {
		t.Errorf("first row: got %s want A100-80G (highest markup)", got)
	}
	// left out: gpushare's tax and lanrui's disk
	var left []string
	for _, lo := range rep.LeftOut {
		left = append(left, lo.Provider+"/"+lo.Reason+"/"+lo.Kind+"/"+lo.Cost.String())
	}
	if got, want := join(left), "gpushare/not_gpu_cost/tax/0.06 lanrui/no_compute/storage/0.48"; got != want {
		t.Errorf("left out: got %s want %s", got, want)
	}
	// provider lines
	for _, p := range rep.Providers {
		if p.Provider == "gpushare" {
			if got, want := p.AllInCost.String(), "7"; got != want {
				t.Errorf("gpushare all-in: got %s want %s", got, want)
			}
			// 7.00 ÷ (2.00 × 1 h + 2.00 × 1 h) − 1 = 0.75
			if got, want := p.Markup.Decimal.StringFixed(4), "0.7500"; got != want {
				t.Errorf("gpushare markup: got %s want %s", got, want)
			}
		}
	}
}

func decEqualOrSame(got, want string) bool {
	a, err1 := decimal.NewFromString(got)
	b, err2 := decimal.NewFromString(want)
	if err1 != nil || err2 != nil {
		return got == want
	}
	return a.Equal(b)
}

func join(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x)
	}
	return b.String()
}

// TestGPUHoursExact: every compute line item is in a row, and the rows'
// all-in costs plus what is left out equal the exact sum of every line
// item of the month; each line item left out is listed once.
func TestGPUHoursExact(t *testing.T) {
	db, items := gpuHourSample(t)
	rep, err := GPUHours(context.Background(), db, GPUHourOptions{Month: "2026-10", Prices: testCatalog(t)})
	if err != nil {
		t.Fatal(err)
	}
	var wantCompute, wantAll decimal.Decimal
	wantLeft := map[int64]bool{}
	for _, li := range items {
		wantAll = wantAll.Add(li.BilledCost)
		if li.Kind == ledger.KindCompute {
			wantCompute = wantCompute.Add(li.BilledCost)
		}
		if li.Kind == ledger.KindTax || li.Provider == "lanrui" {
			wantLeft[li.ID] = true
		}
	}
	var compute, all, allIn decimal.Decimal
	for _, g := range rep.Rows {
		compute = compute.Add(g.ComputeCost)
		all = all.Add(g.AllInCost)
		allIn = allIn.Add(g.AllInCost)
	}
	gotLeft := map[int64]bool{}
	for _, lo := range rep.LeftOut {
		all = all.Add(lo.Cost)
		for _, id := range lo.IDs {
			if gotLeft[id] {
				t.Errorf("line item %d left out twice", id)
			}
			gotLeft[id] = true
		}
	}
	if !compute.Equal(wantCompute) {
		t.Errorf("compute: got %s want %s", compute, wantCompute)
	}
	if !all.Equal(wantAll) {
		t.Errorf("all-in + left out: got %s want %s", all, wantAll)
	}
	if len(gotLeft) != len(wantLeft) {
		t.Errorf("left out ids: got %v want %v", gotLeft, wantLeft)
	}
	for id := range wantLeft {
		if !gotLeft[id] {
			t.Errorf("line item %d is not listed as left out", id)
		}
	}
	var provAllIn decimal.Decimal
	for _, p := range rep.Providers {
		provAllIn = provAllIn.Add(p.AllInCost)
	}
	if !provAllIn.Equal(allIn) {
		t.Errorf("providers all-in: got %s want %s", provAllIn, allIn)
	}
}

func TestSpreadExact(t *testing.T) {
	for _, tc := range []struct {
		name    string
		amount  string
		weights []string
		want    []string
	}{
		{"thirds", "1.00", []string{"2", "4"}, []string{"0.33333333", "0.66666667"}},
		{"remainder to the largest", "1", []string{"1", "1", "1"}, []string{"0.33333334", "0.33333333", "0.33333333"}},
		{"no positive weight", "0.10", []string{"0", "-1"}, []string{"0.05", "0.05"}},
		{"one", "12.34567890123", []string{"5"}, []string{"12.34567890123"}},
		{"zero weight gets nothing", "3", []string{"0", "3"}, []string{"0", "3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ws []decimal.Decimal
			for _, w := range tc.weights {
				ws = append(ws, dec(t, w))
			}
			parts := SpreadExact(dec(t, tc.amount), ws)
			sum := decimal.Zero
			for i, p := range parts {
				sum = sum.Add(p)
				if !p.Equal(dec(t, tc.want[i])) {
					t.Errorf("part %d: got %s want %s", i, p, tc.want[i])
				}
			}
			if !sum.Equal(dec(t, tc.amount)) {
				t.Errorf("sum: got %s want %s", sum, tc.amount)
			}
		})
	}
}

func TestGPUHoursGolden(t *testing.T) {
	db, _ := gpuHourSample(t)
	rep, err := GPUHours(context.Background(), db, GPUHourOptions{Month: "2026-10", Prices: testCatalog(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, fc := range formatCases {
		t.Run(fc.name, func(t *testing.T) {
			got := render(t, rep, fc.opts)
			checkGolden(t, fc.name, got)
			if fc.opts.Format == FormatJSON {
				var doc map[string]any
				if err := json.Unmarshal(got, &doc); err != nil {
					t.Fatal(err)
				}
				if _, ok := doc["gpu_hours"].([]any); !ok {
					t.Errorf("json: got %T for gpu_hours want a list", doc["gpu_hours"])
				}
			}
		})
	}
}

func TestGPUHoursErrors(t *testing.T) {
	db := testkit.OpenLedger(t)
	for _, tc := range []struct{ name, month, want string }{
		{"no month", "", "a month is required"},
		{"bad month", "2026-13", "is not YYYY-MM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := GPUHours(context.Background(), db, GPUHourOptions{Month: tc.month})
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
				t.Errorf("got %v want an error containing %q", err, tc.want)
			}
		})
	}
	rep, err := GPUHours(context.Background(), db, GPUHourOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	out := string(render(t, rep, WriteOptions{Format: FormatTable, Lang: "en"}))
	if !bytes.Contains([]byte(out), []byte("No compute charge of the month names a GPU model.")) {
		t.Errorf("empty month: got\n%s\nwant the empty-table text", out)
	}
}

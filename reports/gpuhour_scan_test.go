package reports

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

// gpuHourEdgeLedger is a month of line items drawn at random among the
// cases the report tells apart: compute with and without a GPU model
// (several spellings of one), without a resource id, in two currencies,
// with zero, negative and long amounts, credits, taxes and adjustments,
// GPU counts unknown, 1 and more, hours from usage times (missing, one-
// sided, reversed, outside the charge period), consumed quantities in time
// units and not, billed quantities with and without a list price, and the
// charges that serve instances (by parent, by their own id, by none).
func gpuHourEdgeLedger(t *testing.T, n int) *ledger.DB {
	t.Helper()
	db := testkit.OpenLedger(t)
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	amount := func() string {
		switch rng.IntN(8) {
		case 0:
			return "0"
		case 1:
			return "-" + fmt.Sprintf("%d.%02d", rng.IntN(50), rng.IntN(100))
		case 2:
			return fmt.Sprintf("%d.%011d", rng.Int64N(90_000_000_000), rng.Int64N(100_000_000_000)) // float64 would lose digits
		}
		return pick("1.00", "2.5", "0.9937", "6.9515", "12.34", "0.01")
	}
	base := bj("2026-10-03 10:00")
	var items []ledger.LineItem
	for i := range n {
		start := base.Add(time.Duration(rng.IntN(600)) * time.Minute)
		li := ledger.LineItem{Provider: pick("autodl", "aliyun", "aws"),
			BillingPeriod: "2026-10", ChargePeriodStart: start,
			ChargePeriodEnd: start.Add(time.Duration(rng.IntN(3)) * time.Hour),
			Currency:        pick("CNY", "CNY", "USD"), BilledCost: dec(t, amount()),
			ChargeCategory: pick(ledger.CategoryUsage, ledger.CategoryUsage, ledger.CategoryUsage, ledger.CategoryPurchase,
				ledger.CategoryCredit, ledger.CategoryTax, ledger.CategoryAdjustment),
			PricingModel: pick("on_demand", "on_demand", "reserved", "spot", "vendor_x")}
		if rng.IntN(10) > 0 {
			li.ResourceID = fmt.Sprintf("i-%d", rng.IntN(12))
		}
		switch rng.IntN(10) {
		case 0, 1:
			li.Kind = pick(ledger.KindStorage, ledger.KindNetwork, ledger.KindImage, ledger.KindSnapshot, ledger.KindSeat)
			if rng.IntN(2) == 0 {
				li.ParentResourceID = fmt.Sprintf("%s-%d", pick("i", "cpu"), rng.IntN(14))
			}
			if rng.IntN(10) == 0 {
				li.Provider = "lanrui" // runs no GPU
			}
		case 2:
			li.Kind = pick(ledger.KindCredit, ledger.KindTax)
		default:
			li.Kind = ledger.KindCompute
			li.GPUModel = pick("RTX 4090", "4090", "rtx4090", "A100 80G", "A100-80G", "", "")
			if li.GPUModel == "" && li.ResourceID != "" && rng.IntN(2) == 0 {
				li.ResourceID = fmt.Sprintf("cpu-%d", rng.IntN(14)) // a CPU instance
			}
			li.GPUCount = []int{0, 1, 1, 2, 8}[rng.IntN(5)]
			if rng.IntN(4) > 0 {
				li.PricingQuantity = nd(t, pick("1", "0.752778", "0", "-1", "2.5", "0.871111"))
			}
			li.PricingUnit = pick("hour", "Hours", "秒", "minute", "GB", "")
			if rng.IntN(2) == 0 {
				li.ListUnitPrice = nd(t, pick("1.32", "7.98", "0", "6.5", "-2"))
			}
			if rng.IntN(4) == 0 {
				li.ConsumedQuantity = nd(t, pick("30", "1.5", "-3", "0"))
				li.ConsumedUnit = pick("minute", "hour", "", "GB")
			}
			switch rng.IntN(6) {
			case 0: // inside the period
				li.UsageStart, li.UsageEnd = start.Add(5*time.Minute), start.Add(35*time.Minute)
			case 1: // a whole session, repeated on the row
				li.UsageStart, li.UsageEnd = start.Add(-2*time.Hour), start.Add(5*time.Hour)
			case 2: // reversed
				li.UsageStart, li.UsageEnd = start.Add(time.Hour), start
			case 3: // one-sided
				li.UsageStart = start
			case 4: // outside the period, or zero long
				li.UsageStart, li.UsageEnd = start.Add(-5*time.Hour), start.Add(-4*time.Hour)
				if rng.IntN(2) == 0 {
					li.UsageEnd = li.UsageStart
				}
			}
		}
		li.RowKey = fmt.Sprintf("edge#%d", i)
		items = append(items, li)
	}
	testkit.ImportItems(t, db, "edge.csv", items)
	return db
}

// renderGPUHours is everything the report says, exactly: its JSON and the
// exact GPU-seconds and prices of its rows.
func renderGPUHours(t *testing.T, rep *GPUHourReport) string {
	t.Helper()
	var b strings.Builder
	b.Write(render(t, rep, WriteOptions{Format: FormatJSON}))
	for _, g := range rep.Rows {
		fmt.Fprintf(&b, "%s/%s/%s %s %s %s %v\n", g.Provider, g.ModelKey, g.Currency, money.String(g.GPUSeconds),
			money.String(g.realExact), money.String(g.stickerCost.Decimal), g.stickerCost.Valid)
	}
	for _, p := range rep.Providers {
		fmt.Fprintf(&b, "%s/%s %s\n", p.Provider, p.Currency, money.String(p.GPUSeconds))
	}
	return b.String()
}

// TestGPUHourScanSplits: the scan split into parts merged afterwards (in
// any order of rows) gives the report of the whole scan, and the fixture
// reaches the cases it is for.
func TestGPUHourScanSplits(t *testing.T) {
	db := gpuHourEdgeLedger(t, 3000)
	ctx := context.Background()
	prices := testCatalog(t)
	want, err := GPUHours(ctx, db, GPUHourOptions{Month: "2026-10", Prices: prices})
	if err != nil {
		t.Fatal(err)
	}
	var bases [len(hoursBases)]int
	stickers := map[string]int{}
	unknown, double := 0, 0
	for _, g := range want.Rows {
		for i, b := range hoursBases {
			bases[i] += g.Bases[b]
		}
		stickers[g.StickerBasis]++
		if g.ModelKey == "" {
			unknown++
		}
		if g.DoubleSeconds.IsPositive() {
			double++
		}
	}
	for i, n := range bases {
		if n == 0 {
			t.Errorf("no item took its hours from %s", hoursBases[i])
		}
	}
	if len(want.Rows) < 8 || stickers[StickerMedian] == 0 || stickers[StickerBill] == 0 || len(want.LeftOut) == 0 ||
		want.SpreadItems == 0 || unknown == 0 || double == 0 {
		t.Fatalf("the fixture gave %d rows, stickers %v, %d left out, %d spread, %d unknown, %d billed twice: want more",
			len(want.Rows), stickers, len(want.LeftOut), want.SpreadItems, unknown, double)
	}
	wantText := renderGPUHours(t, want)
	scan := func(order, where string, args ...any) *ghTally {
		s := newGHScan()
		err := db.Scan(ctx, "SELECT "+selectList(ghCols)+" FROM line_items li WHERE li.billing_period = '2026-10'"+where+" ORDER BY "+order, args, itemRows(t, ghCols, s.add))
		if err != nil {
			t.Fatal(err)
		}
		return s.tally()
	}
	for _, split := range []int{2, 3, 7} {
		merged := scan("li.id DESC", " AND li.id % ? = 0", split)
		for k := 1; k < split; k++ {
			merged.merge(scan("li.id", " AND li.id % ? = ?", split, k))
		}
		if got := renderGPUHours(t, merged.report("2026-10", prices)); got != wantText {
			t.Errorf("split in %d: the merged scan differs:\n got %s\nwant %s", split, got, wantText)
		}
	}
}

// median of ds as the report took it before it counted its quotes: the
// middle of the sorted list.
func median(ds []decimal.Decimal) (decimal.Decimal, bool) {
	if len(ds) == 0 {
		return decimal.Decimal{}, false
	}
	s := append([]decimal.Decimal(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i].LessThan(s[j]) })
	n := len(s)
	if n%2 == 1 {
		return s[n/2], true
	}
	return s[n/2-1].Add(s[n/2]).DivRound(decimal.NewFromInt(2), 8), true
}

// TestCountedMedian: the median of counted values is the median of the
// list that repeats each value as often, for odd and even counts, values
// split over several entries, and none.
func TestCountedMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	if _, ok := countedMedian(map[string]*ghQuote{"x": {none: true}}, false); ok {
		t.Errorf("no quote: got a median")
	}
	for trial := range 300 {
		quotes := map[string]*ghQuote{}
		var list []decimal.Decimal
		for e := range 1 + rng.IntN(6) {
			v := decimal.New(rng.Int64N(400)-100, -8) // DivRound's 8 decimals
			n := rng.IntN(4)                          // 0: an entry that counts nothing
			quotes[fmt.Sprint(e)] = &ghQuote{value: v, n: n}
			for range n {
				list = append(list, v)
			}
		}
		got, gok := countedMedian(quotes, false)
		want, wok := median(list)
		if gok != wok || money.String(got) != money.String(want) {
			t.Fatalf("trial %d, %d values: got %s %v want %s %v", trial, len(list), got, gok, want, wok)
		}
	}
}

// TestGPUHourScanKeys: texts that a plain concatenation would confuse are
// different keys.
func TestGPUHourScanKeys(t *testing.T) {
	db := testkit.OpenLedger(t)
	ctx := context.Background()
	items := []ledger.LineItem{
		{Provider: "ab", ResourceID: "c", Kind: ledger.KindStorage, BilledCost: dec(t, "1")},
		{Provider: "a", ResourceID: "bc", Kind: ledger.KindStorage, BilledCost: dec(t, "2")},
	}
	for i := range items {
		items[i].BillingPeriod = "2026-10"
		items[i].ChargePeriodStart, items[i].ChargePeriodEnd = bj("2026-10-03 00:00"), bj("2026-10-04 00:00")
	}
	testkit.ImportItems(t, db, "keys.csv", items)
	tally, err := scanGPUHours(ctx, db, "2026-10")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for hk, h := range tally.hidden {
		inst := hk.inst
		got = append(got, inst.provider+" "+inst.resource+"="+h.cost.Decimal().String())
	}
	sort.Strings(got)
	if want := "a bc=2,ab c=1"; strings.Join(got, ",") != want {
		t.Errorf("got %v want %s", got, want)
	}
}

// TestActualUseReadsConsumedOnly: without usable usage times, actualUse
// answers as billing.UsageSeconds does on a copy of the item without them.
func TestActualUseReadsConsumedOnly(t *testing.T) {
	db := gpuHourEdgeLedger(t, 2000)
	asked := func(li *ledger.LineItem) (decimal.Decimal, string, bool) {
		if secs, basis, ok := actualUse(li); ok && basis == HoursUsage {
			return secs, basis, ok
		}
		c := *li
		c.UsageStart, c.UsageEnd = time.Time{}, time.Time{}
		if secs, basis, ok := billing.UsageSeconds(&c); ok && basis == billing.UsageFromConsumed {
			return secs, HoursConsumed, true
		}
		return decimal.Zero, "", false
	}
	bases := map[string]int{}
	err := db.EachLineItem(context.Background(), ledger.Filter{Month: "2026-10"}, ledger.Read{}, func(full *ledger.LineItem) error {
		li := full
		secs, basis, ok := actualUse(li)
		wsecs, wbasis, wok := asked(li)
		if ok != wok || basis != wbasis || money.String(secs) != money.String(wsecs) {
			t.Errorf("line item %d: got %s %s %v want %s %s %v", li.ID, secs, basis, ok, wsecs, wbasis, wok)
		}
		bases[basis]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if bases[HoursUsage] == 0 || bases[HoursConsumed] == 0 || bases[""] == 0 {
		t.Errorf("the fixture gave the bases %v, want usage, consumed and none", bases)
	}
}

package ledger

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestLoadColumnsEqualsEachLineItem: LoadColumns' items are the Items
// of EachLineItem's, every field equal, in its order, whether it reads one
// id range or several (merged), by table range (a month that fills its
// ids) or through the indexes (months interleaved), with kinds and provider
// filters, within an id range, and with shared texts and amounts.
func TestLoadColumnsEqualsEachLineItem(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	start := time.Date(2026, 10, 3, 6, 0, 0, 0, time.UTC)
	var items []LineItem
	for i := range 3000 {
		li := LineItem{Provider: []string{"aliyun", "autodl", "tencent"}[i%3],
			BillingAccountID: "acct", BillingPeriod: "2026-10",
			ChargePeriodStart: start.Add(time.Duration(i%97) * time.Hour), ChargeCategory: CategoryUsage,
			Kind:         []string{KindCompute, KindStorage, KindNetwork}[i%3*i%2],
			PricingModel: "on_demand", ServiceName: "ECS", ResourceID: fmt.Sprintf("i-%d", i%41),
			ResourceType: "gpu", SKU: "sku", ParentResourceID: fmt.Sprintf("p-%d", i%7),
			GPUModel: "A10", GPUCount: i % 3, ConsumedUnit: "hour",
			PricingUnit: "hour", Currency: "CNY", BilledCost: decimal.New(int64(i%13), -2),
			Description: fmt.Sprintf("说明 %d", i%5), RowKey: fmt.Sprintf("k%d", i),
			SourceRow: i + 1, SubAccount: "proj", ResourceName: "训练机", Region: "cn",
			Zone: "z", Tags: `{"a":"b"}`, Raw: []string{"x"}, ListCost: nd("1"),
			VoucherPaid: nd("2"), CashPaid: nd("3"), OtherPaid: nd("4"), Unpaid: nd("5")}
		li.ChargePeriodEnd = li.ChargePeriodStart.Add(time.Hour)
		if i%4 != 0 {
			li.ConsumedQuantity, li.PricingQuantity, li.ListUnitPrice = nd("0.5"), nd(fmt.Sprint(i%9)), nd("12.34567891")
			li.UsageStart, li.UsageEnd = li.ChargePeriodStart.Add(time.Minute), li.ChargePeriodEnd
		}
		if i%2 == 1 && i > 1500 { // the second half interleaves two months
			li.BillingPeriod = "2026-11"
			li.ChargePeriodStart, li.ChargePeriodEnd = li.ChargePeriodStart.AddDate(0, 1, 0), li.ChargePeriodEnd.AddDate(0, 1, 0)
		}
		items = append(items, li)
	}
	importItems(t, db, items)
	defer func(old int64) { loadPartMin = old }(loadPartMin)
	for _, min := range []int64{1 << 30, 500} { // one reader; several
		loadPartMin = min
		for _, f := range []Filter{{}, {Month: "2026-10"}, {Month: "2026-11"}, {Month: "2026-11", Kinds: []string{KindCompute}},
			{Providers: []string{"autodl"}}, {Month: "2026-12"},
			{Month: "2026-11", IDMin: 1700, IDMax: 2600}} {
			var want []*LineItem
			if err := db.EachLineItem(ctx, f, Read{}, func(li *LineItem) error {
				want = append(want, li)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			got, err := db.LoadColumns(ctx, f, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || (f.Month != "2026-12" && len(got) == 0) {
				t.Fatalf("readers for %d, %+v: %d items, want %d", min, f, len(got), len(want))
			}
			for i := range want {
				wi := *want[i]
				g, w := reflect.ValueOf(*got[i]), reflect.ValueOf(wi)
				for j := range g.NumField() {
					if notLoaded[g.Type().Field(j).Name] {
						continue
					}
					if gv, wv := g.Field(j).Interface(), w.Field(j).Interface(); !reflect.DeepEqual(gv, wv) {
						t.Fatalf("readers for %d, %+v, item %d (%s): %s = %#v, want %#v", min, f, i, want[i].RowKey, g.Type().Field(j).Name, gv, wv)
					}
				}
			}
		}
	}
}

// notLoaded are the fields LoadColumns(…, nil) leaves empty.
var notLoaded = map[string]bool{"Raw": true}

// TestEachLineItemInParallel: an EachLineItem read by several
// readers hands every item once, to one call of fn at a time (unordered), or
// in exactly the order of one sorted read (ordered: the readers' ranges
// merged), and an error from fn
// stops it with that error.
func TestEachLineItemInParallel(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	start := time.Date(2026, 10, 3, 6, 0, 0, 0, time.UTC)
	var items []LineItem
	for i := range 2000 {
		li := item(fmt.Sprintf("k%d", i), fmt.Sprintf("%d.%02d", i, i%100))
		li.ResourceID = fmt.Sprintf("i-%d", i%37)
		li.ChargePeriodStart = start.Add(time.Duration(i) * time.Minute)
		li.ChargePeriodEnd = li.ChargePeriodStart.Add(time.Minute)
		items = append(items, li)
	}
	importItems(t, db, items)
	defer func(old int64) { loadPartMin = old }(loadPartMin)
	loadPartMin = 1 << 40 // one reader: SQLite sorts
	var want []*LineItem
	if err := db.EachLineItem(ctx, Filter{Month: "2026-10"}, Read{NoRaw: true}, func(li *LineItem) error {
		want = append(want, li)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	loadPartMin = 300 // several readers
	var merged []*LineItem
	if err := db.EachLineItem(ctx, Filter{Month: "2026-10"}, Read{NoRaw: true}, func(li *LineItem) error {
		merged = append(merged, li)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(merged) != len(want) {
		t.Fatalf("ordered, several readers: %d items, want %d", len(merged), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(merged[i], want[i]) {
			t.Fatalf("ordered, several readers: item %d is %s, want %s", i, merged[i].RowKey, want[i].RowKey)
		}
	}
	var got []*LineItem
	var inFn, overlapped atomic.Int32
	if err := db.EachLineItem(ctx, Filter{Month: "2026-10"}, Read{NoRaw: true, Order: AnyOrder}, func(li *LineItem) error {
		if inFn.Add(1) != 1 {
			overlapped.Add(1)
		}
		time.Sleep(time.Microsecond)
		got = append(got, li)
		inFn.Add(-1)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if overlapped.Load() != 0 {
		t.Errorf("fn ran concurrently %d times", overlapped.Load())
	}
	slices.SortFunc(got, CompareItems)
	if len(got) != len(want) || len(got) != 2000 {
		t.Fatalf("got %d items, want %d (2000)", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("item %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	stop := errors.New("enough")
	for _, order := range []Order{AnyOrder, ByResource} {
		n := 0
		err := db.EachLineItem(ctx, Filter{Month: "2026-10"}, Read{NoRaw: true, Order: order}, func(*LineItem) error {
			if n++; n == 700 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || n != 700 {
			t.Errorf("order %v: stopped after %d items with %v, want 700 and %v", order, n, err, stop)
		}
	}
}

// TestMergeItems: MergeItems of sorted lists is their concatenation sorted
// stably (an item of an earlier list before an equal one of a later list),
// for 1 to 5 lists of random lengths, whose resources run long in one list
// (as the readers' id ranges give them: MergeItems gallops through such
// runs) or alternate item by item, with equal items in two lists.
func TestMergeItems(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	for round := range 400 {
		k := 1 + rng.IntN(5)
		lists := make([][]*LineItem, k)
		var want []*LineItem
		id := int64(0)
		for i := range lists {
			n := rng.IntN(300)
			if round%7 == 0 {
				n = rng.IntN(3)
			}
			resources := 1 + rng.IntN(20)
			for range n {
				id++
				li := &LineItem{ID: id, Provider: []string{"aliyun", "autodl"}[rng.IntN(2)],
					ResourceID:        fmt.Sprintf("r%d", rng.IntN(resources)),
					ChargePeriodStart: start.Add(time.Duration(rng.IntN(2000)) * time.Hour)}
				lists[i] = append(lists[i], li)
			}
			if i > 0 && len(lists[0]) > 0 && rng.IntN(4) == 0 {
				twin := *lists[0][rng.IntN(len(lists[0]))] // an equal item in two lists
				lists[i] = append(lists[i], &twin)
			}
			slices.SortFunc(lists[i], CompareItems)
			want = append(want, lists[i]...)
		}
		slices.SortStableFunc(want, CompareItems)
		got := MergeItems(lists...)
		if len(got) != len(want) {
			t.Fatalf("round %d: %d items, want %d", round, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("round %d (%d lists): item %d is %d (%s %s), want %d (%s %s)", round, k, i,
					got[i].ID, got[i].ResourceID, got[i].ChargePeriodStart, want[i].ID, want[i].ResourceID, want[i].ChargePeriodStart)
			}
		}
	}
}

// TestStartsBeforeAndStartsFrom: StartsBefore keeps the items whose charge
// period or usage starts before the edge, StartsFrom exactly the others,
// in LoadColumns and in ScanItems alike.
func TestStartsBeforeAndStartsFrom(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	edge := time.Date(2026, 10, 10, 0, 0, 0, 0, time.UTC)
	var items []LineItem
	wantBefore := map[string]bool{}
	for i := range 40 {
		li := item(fmt.Sprintf("k%d", i), "1.00")
		li.ChargePeriodStart = edge.Add(time.Duration(i-20) * time.Hour)
		li.ChargePeriodEnd = li.ChargePeriodStart.Add(time.Hour)
		if i%3 == 0 { // usage before the edge, charge period after it
			li.UsageStart, li.UsageEnd = edge.Add(-time.Minute), li.ChargePeriodEnd
		}
		wantBefore[li.RowKey] = li.ChargePeriodStart.Before(edge) || !li.UsageStart.IsZero() && li.UsageStart.Before(edge)
		items = append(items, li)
	}
	importItems(t, db, items)
	for _, before := range []bool{true, false} {
		f := Filter{Month: "2026-10", StartsFrom: edge}
		if before {
			f = Filter{Month: "2026-10", StartsBefore: edge}
		}
		loaded, err := db.LoadColumns(ctx, f, nil)
		if err != nil {
			t.Fatal(err)
		}
		var scanned []string
		if _, err := db.ScanItems(ctx, f, AnyOrder, []string{"row_key"}, func(int) func(*LineItem) error {
			return func(li *LineItem) error { scanned = append(scanned, li.RowKey); return nil }
		}); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, li := range loaded {
			keys = append(keys, li.RowKey)
		}
		slices.Sort(keys)
		slices.Sort(scanned)
		var want []string
		for k, b := range wantBefore {
			if b == before {
				want = append(want, k)
			}
		}
		slices.Sort(want)
		if len(want) == 0 || !slices.Equal(keys, want) || !slices.Equal(scanned, want) {
			t.Errorf("before=%v: loaded %v, scanned %v, want %v", before, keys, scanned, want)
		}
	}
}

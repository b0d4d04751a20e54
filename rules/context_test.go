package rules

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

// An audit with the next month's compute cut at its edge (context.go)
// finds exactly what it found with the whole next month: on three months of
// generated bills, and on instances planted to meet the edge — one that
// stops in September and runs again late in October (release_risk, the
// image it keeps), one whose only compute is late in October (its
// September disk is its own, not its account's), one whose September
// session runs on into October (forgotten there, not here), and a weekly
// package crossing into October (its overlap is found by October).
func TestNextMonthEdgeChangesNothing(t *testing.T) {
	ctx := context.Background()
	loc := mustLoc("Asia/Shanghai")
	var items []ledger.LineItem
	generateBenchItemsIn(30000, time.Date(2026, 8, 25, 0, 0, 0, 0, loc), time.Date(2026, 10, 31, 0, 0, 0, 0, loc), func(li *ledger.LineItem) bool {
		items = append(items, *li)
		return true
	})
	n := len(items)
	items = append(items, hourly(t, "autodl", "edge-back", "2026-09-02 08:00", 5, "1.90")...)
	items = append(items, hourly(t, "autodl", "edge-back", "2026-10-20 09:00", 3, "1.90")...)
	items = append(items, item(t, "autodl", ledger.KindImage, "edge-back-img", "2026-09-20 00:00", "2026-09-21 00:00", "0.80", parent("edge-back")))
	items = append(items, item(t, "autodl", ledger.KindStorage, "edge-late", "2026-09-29 00:00", "2026-09-30 00:00", "0.66"))
	items = append(items, hourly(t, "autodl", "edge-late", "2026-10-25 10:00", 2, "1.90")...)
	items = append(items, hourly(t, "gpushare", "edge-cross", "2026-09-30 12:00", 60, "2.58")...)
	items = append(items, item(t, "matpool", ledger.KindCompute, "edge-week", "2026-09-28 00:00", "2026-10-05 00:00", "120.00",
		pricing(ledger.PricingPackage), qty("1", "week")))
	items = append(items, hourly(t, "matpool", "edge-week", "2026-10-03 00:00", 5, "2.10")...)
	// An image served by its account (its resource never ran compute),
	// whose account runs compute again only in late October, past
	// September's edge: snapshot_image asks the later-set's accounts.
	items = append(items, item(t, "autodl", ledger.KindImage, "edge-acct-img", "2026-09-05 00:00", "2026-09-30 00:00", "12.00",
		account("acct-late")))
	items = append(items, hourly(t, "autodl", "edge-acct-gpu", "2026-10-26 10:00", 2, "1.90", account("acct-late"))...)
	// August's latest end is a usage end, past its charge period's
	items = append(items, item(t, "autodl", ledger.KindCompute, "edge-usage", "2026-08-31 20:00", "2026-08-31 21:00", "1.90",
		usage("2026-08-31 20:00", "2026-09-04 00:00")))
	for i := n; i < len(items); i++ {
		items[i].RowKey = fmt.Sprintf("edge-%03d", i)
	}
	db := newLedger(t, items)
	cfg := DefaultConfig()
	edgesPast := 0 // months whose items end past the month's end
	defer func() {
		if edgesPast == 0 {
			t.Error("no month's items end past its end: the edges compared are the month ends")
		}
	}()
	for _, month := range []string{"2026-08", "2026-09", "2026-10"} {
		t.Run(month, func(t *testing.T) {
			wholeNextMonth = true
			whole, err := load(ctx, db, month, cfg)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Run(ctx, db, month, cfg)
			wholeNextMonth = false
			if err != nil {
				t.Fatal(err)
			}
			cut, err := load(ctx, db, month, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Run(ctx, db, month, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range []*Input{whole, cut} {
				if !slices.IsSortedFunc(in.Context, ledger.CompareItems) || !slices.IsSortedFunc(in.Items, ledger.CompareItems) {
					t.Error("the context or the items are not in ledger.CompareItems order")
				}
			}
			// The edge from the ends the load noted is the edge from a
			// pass over the items.
			passed := cut.MonthEnd
			for _, li := range cut.Items {
				if li.ChargePeriodEnd.After(passed) {
					passed = li.ChargePeriodEnd
				}
				if li.UsageEnd.After(passed) {
					passed = li.UsageEnd
				}
			}
			if a, b := nextMonthEdge(cut), passed.Add(nextMonthWindow); !a.Equal(b) {
				t.Errorf("edge %v from the load's ends, %v from the items", a, b)
			} else if a.After(cut.MonthEnd.Add(nextMonthWindow)) {
				edgesPast++
			}
			if month != "2026-10" && (len(cut.Context) >= len(whole.Context) || len(cut.later.inst) == 0) {
				t.Errorf("context of %d items (whole next month: %d), %d instances ran later: the edge cut nothing",
					len(cut.Context), len(whole.Context), len(cut.later.inst))
			}
			if a, b := renderFindings(t, got), renderFindings(t, want); !bytes.Equal(a, b) {
				t.Errorf("findings differ from those with the whole next month (%d vs %d):\n%s", len(got), len(want), firstDiff(a, b))
			}
			if month == "2026-09" {
				byRule := map[string]int{}
				for _, f := range got {
					if f.Provider != "gpushare" || f.ResourceID != "edge-cross" {
						byRule[f.RuleID]++
					}
				}
				if byRule["release_risk"] == 0 && byRule["snapshot_image"] == 0 {
					t.Errorf("the planted instances gave no release_risk and no snapshot_image finding: %v", byRule)
				}
			}
		})
	}
}

// firstDiff shows where two renderings part.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-300)
	return fmt.Sprintf("got …%s…\nwant …%s…", a[from:min(len(a), i+300)], b[from:min(len(b), i+300)])
}

// TestSecSpans: the coverage's whole-second spans merge where they touch or
// overlap, and a query overlaps a span as the times it stands for would,
// a time with a fraction of a second widening the query to the seconds
// around it.
func TestSecSpans(t *testing.T) {
	at := func(sec float64) time.Time {
		return time.Unix(0, 0).UTC().Add(time.Duration(sec * float64(time.Second)))
	}
	got := mergeIntervals([]secSpan{{30, 40}, {10, 20}, {20, 25}, {24, 26}, {50, 51}})
	if want := []secSpan{{10, 26}, {30, 40}, {50, 51}}; !slices.Equal(got, want) {
		t.Fatalf("merged %v, want %v", got, want)
	}
	// sorted already (not sorted again), a span within another, merged in place
	if sorted, want := mergeIntervals([]secSpan{{10, 50}, {20, 30}, {40, 60}, {61, 62}}), []secSpan{{10, 60}, {61, 62}}; !slices.Equal(sorted, want) {
		t.Fatalf("merged %v, want %v", sorted, want)
	}
	for _, tc := range []struct {
		s, e float64
		want bool
	}{
		{25.5, 27, true}, {26, 30, false}, {0, 10, false}, {0, 10.2, true}, {9.5, 10, false},
		{40, 50, false}, {39.9, 50, true}, {51, 60, false}, {50.5, 50.7, true}, {0, 100, true},
	} {
		if got := overlaps(got, at(tc.s), at(tc.e)); got != tc.want {
			t.Errorf("overlaps [%v, %v): %v, want %v", tc.s, tc.e, got, tc.want)
		}
	}
	if s := secTime(26); !s.Equal(at(26)) || s.Location() != time.UTC {
		t.Errorf("secTime(26) = %v", s)
	}
}

// TestItemsAndContext: the month's items and then its context, each with
// its index in the two as one list, and nothing after a break.
func TestItemsAndContext(t *testing.T) {
	mk := func(ids ...int64) []*ledger.LineItem {
		var out []*ledger.LineItem
		for _, id := range ids {
			out = append(out, &ledger.LineItem{ID: id})
		}
		return out
	}
	for _, tc := range []struct{ items, context []*ledger.LineItem }{
		{mk(1, 2, 3), mk(10, 11)}, {nil, mk(10)}, {mk(1), nil}, {nil, nil},
	} {
		in := &Input{Items: tc.items, Context: tc.context}
		want := append(append([]*ledger.LineItem{}, tc.items...), tc.context...)
		var got []*ledger.LineItem
		for i, li := range in.itemsAndContext() {
			if i != len(got) {
				t.Fatalf("index %d at position %d", i, len(got))
			}
			got = append(got, li)
		}
		if !slices.Equal(got, want) {
			t.Errorf("got %d items, want %d: %v", len(got), len(want), got)
		}
		n := 0
		for i := range in.itemsAndContext() {
			if n++; i == len(tc.items) { // the first of the context
				break
			}
		}
		if want := min(len(tc.items)+1, len(want)); n != want {
			t.Errorf("%d yielded through the break, want %d", n, want)
		}
	}
}

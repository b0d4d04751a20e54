package ledger

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// byIDLedger holds n line items of 2026-10 and n/4 of 2026-11, with NULL
// and stated optional columns mixed, and returns every item as EachLineItem
// builds it with NoRaw.
func byIDLedger(t *testing.T, n int) (*DB, []*LineItem) {
	t.Helper()
	db := openTest(t)
	rng := rand.New(rand.NewPCG(3, 4))
	var items []LineItem
	for i := range n + n/4 {
		li := item(fmt.Sprintf("k%d", i), fmt.Sprintf("%d.%d0", i, rng.IntN(10)))
		li.SourceRow = i + 2
		if i >= n {
			li.BillingPeriod = "2026-11"
			li.ChargePeriodStart = li.ChargePeriodStart.AddDate(0, 1, 0)
			li.ChargePeriodEnd = li.ChargePeriodEnd.AddDate(0, 1, 0)
		}
		if rng.IntN(2) == 0 {
			li.UsageStart, li.UsageEnd = li.ChargePeriodStart, li.ChargePeriodStart.Add(time.Minute)
			li.PricingQuantity = decimal.NullDecimal{Decimal: decimal.RequireFromString("1.500"), Valid: true}
			li.GPUCount, li.ResourceID, li.ParentResourceID = 2, fmt.Sprintf("i-%d", i%7), "p"
		}
		items = append(items, li)
	}
	importItems(t, db, items)
	var all []*LineItem
	if err := db.EachLineItem(context.Background(), Filter{}, Read{NoRaw: true}, func(li *LineItem) error {
		all = append(all, li)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(all, func(a, b *LineItem) int { return int(a.ID - b.ID) })
	return db, all
}

// LineItemsByID reads the items EachLineItem reads, field for field, of
// exactly the ids asked for and of the month asked for, in id order: few
// ids, more than one statement binds (in two halves), ids of another month
// and ids the ledger does not hold.
func TestLineItemsByID(t *testing.T) {
	ctx := context.Background()
	db, all := byIDLedger(t, 3*byIDChunk)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tt := range []struct {
		month string
		share int // one id in share is asked for
	}{{"2026-10", 1}, {"2026-10", 3}, {"2026-10", 400}, {"2026-11", 2}, {"", 1}, {"", 5}} {
		var ids []int64
		var want []*LineItem
		for _, li := range all {
			if rng.IntN(tt.share) != 0 {
				continue
			}
			ids = append(ids, li.ID)
			if tt.month == "" || li.BillingPeriod == tt.month {
				want = append(want, li)
			}
		}
		ids = append([]int64{-3, 0}, ids...)
		ids = append(ids, all[len(all)-1].ID+1, all[len(all)-1].ID+1000) // not held
		got, err := db.LineItemsByID(ctx, tt.month, ids)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || len(got) != len(want) {
			t.Fatalf("month %q, %d ids: %d items, want %d (and some)", tt.month, len(ids), len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("month %q, item %d:\n got %+v\nwant %+v", tt.month, i, got[i], want[i])
			}
		}
	}
	if got, err := db.LineItemsByID(ctx, "2026-10", nil); err != nil || len(got) != 0 {
		t.Errorf("no ids: %d items, %v", len(got), err)
	}
}

// AddEvidenceCosts takes the costs known has and looks up the others: the
// findings come out as Findings reads them, but for the known costs.
func TestAddEvidenceCostsKnown(t *testing.T) {
	ctx := context.Background()
	db, all := byIDLedger(t, 2*byIDChunk+5)
	f := Finding{Fingerprint: "f", RuleID: "forgotten_instance", Severity: "high", Provider: "autodl", Currency: "CNY",
		PeriodStart: time.Unix(0, 0), PeriodEnd: time.Unix(3600, 0), ReasonZH: "z", ReasonEN: "e"}
	for i := len(all) - 1; i >= 0; i -= 2 {
		f.Evidence = append(f.Evidence, Evidence{LineItemID: all[i].ID, File: "x.csv", Row: i})
	}
	f.Evidence = append(f.Evidence, Evidence{LineItemID: all[len(all)-1].ID + 7, File: "x.csv", Row: 0}) // gone
	if _, err := db.SaveAudit(ctx, "2026-10", "UTC", "{}", []Finding{f}); err != nil {
		t.Fatal(err)
	}
	want, err := db.Findings(ctx, "2026-10")
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.FindingsWithoutCosts(ctx, "2026-10")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range got[0].Evidence {
		if e.BilledCost.Valid {
			t.Fatalf("FindingsWithoutCosts gave line item %d a cost", e.LineItemID)
		}
	}
	known := map[int64]decimal.NullDecimal{}
	for i, e := range want[0].Evidence {
		if i%3 == 0 && e.BilledCost.Valid { // a cost the caller read: it wins over the ledger's
			c := decimal.NullDecimal{Decimal: decimal.NewFromInt(int64(-i)), Valid: true}
			known[e.LineItemID] = c
			want[0].Evidence[i].BilledCost = c
		}
	}
	if err := db.AddEvidenceCosts(ctx, got, known); err != nil {
		t.Fatal(err)
	}
	if g, w := evidenceText(got[0].Evidence), evidenceText(want[0].Evidence); g != w {
		t.Errorf("evidence\n%.400s\nwant\n%.400s", g, w)
	}
	if !slices.ContainsFunc(want[0].Evidence, func(e Evidence) bool { return !e.BilledCost.Valid }) {
		t.Error("the fixture has no line item that is gone")
	}
}

package billing

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

// refSessions is BuildSessions written plainly: each resource's session
// items sorted by active span, cut where one starts more than the gap
// after what came before ended, in provider, resource, currency, start
// order.
func refSessions(items []*ledger.LineItem) []Session {
	groups := map[sessionKey][]*ledger.LineItem{}
	for _, li := range items {
		if IsSessionItem(li) {
			k := sessionKey{li.Provider, li.ResourceID, li.Currency}
			groups[k] = append(groups[k], li)
		}
	}
	var out []Session
	for k, g := range groups {
		slices.SortFunc(g, func(a, b *ledger.LineItem) int {
			as, ae := ActiveSpan(a)
			bs, be := ActiveSpan(b)
			return cmp.Or(as.Compare(bs), ae.Compare(be), cmp.Compare(a.ID, b.ID))
		})
		// the billing steps of policies.json, at least a minute
		gap := map[string]time.Duration{"autodl": time.Minute, "matpool": time.Minute, "lanrui": time.Hour}[k.provider]
		first := len(out) // the group's first session
		for _, li := range g {
			s, e := ActiveSpan(li)
			if n := len(out); n > first && !s.After(out[n-1].End.Add(gap)) {
				out[n-1].Items = append(out[n-1].Items, li)
				if e.After(out[n-1].End) {
					out[n-1].End = e
				}
				continue
			}
			out = append(out, Session{Start: s, End: e, Items: []*ledger.LineItem{li}})
		}
	}
	slices.SortFunc(out, func(a, b Session) int {
		return cmp.Or(cmp.Compare(a.Provider(), b.Provider()), cmp.Compare(a.ResourceID(), b.ResourceID()),
			cmp.Compare(a.Currency(), b.Currency()), a.Start.Compare(b.Start))
	})
	return out
}

// sessionItems makes n compute items of a few resources on three
// platforms (billing steps of 1 s, 1 min and 1 h) in two currencies, with
// some items no session takes (storage, a credit, a package, no
// resource). Each resource runs in stretches with gaps of either side of
// the billing step; shuffled, its items come out of time order.
func sessionItems(rng *rand.Rand, n int, shuffled bool) []*ledger.LineItem {
	start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	providers := []string{"autodl", "matpool", "lanrui"}
	type res struct {
		provider, id, currency string
		at                     time.Time
	}
	var rs []*res
	for i := range 12 {
		rs = append(rs, &res{providers[i%3], "i-" + string(rune('a'+i)), []string{"CNY", "USD"}[i/6], start})
	}
	var items []*ledger.LineItem
	for i := range n {
		r := rs[rng.IntN(len(rs))]
		if !shuffled {
			r = rs[i*len(rs)/n]
		}
		dur := time.Duration(1+rng.IntN(90)) * time.Minute
		switch rng.IntN(4) { // the gap before this item
		case 0:
			r.at = r.at.Add(time.Duration(rng.IntN(3)) * time.Hour)
		case 1:
			r.at = r.at.Add(time.Duration(rng.IntN(120)) * time.Second)
		}
		li := &ledger.LineItem{ID: int64(i + 1), Provider: r.provider, ResourceID: r.id, Currency: r.currency,
			Kind: ledger.KindCompute, ChargeCategory: ledger.CategoryUsage, PricingModel: ledger.PricingOnDemand,
			BilledCost: decimal.New(int64(1+rng.IntN(500)), -2), ChargePeriodStart: r.at, ChargePeriodEnd: r.at.Add(dur)}
		if rng.IntN(8) == 0 { // overlaps the item before
			li.ChargePeriodStart = li.ChargePeriodStart.Add(-dur / 2)
		}
		r.at = r.at.Add(dur)
		switch rng.IntN(20) {
		case 0:
			li.Kind = ledger.KindStorage
		case 1:
			li.ChargeCategory = ledger.CategoryCredit
		case 2:
			li.PricingModel = ledger.PricingPackage
		case 3:
			li.ResourceID = ""
		}
		items = append(items, li)
	}
	if shuffled {
		rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	}
	return items
}

// TestBuildSessions checks BuildSessions against refSessions on items in
// time order and shuffled, split between the month and its context
// anywhere, and on items in reverse order (more sessions than the room it
// made: out grows); and that on items in time order with long sessions it
// makes room for the sessions it builds, not one an item (the heap's
// memory is zeroed whole when made).
func TestBuildSessions(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 16))
	for round := range 40 {
		shuffled := round%2 == 1
		items := sessionItems(rng, 1+rng.IntN(600), shuffled)
		cut := rng.IntN(len(items) + 1)
		got := BuildSessions(nil, items[:cut], items[cut:])
		want := refSessions(items)
		if len(got) != len(want) {
			t.Fatalf("round %d (shuffled %v): %d sessions, want %d", round, shuffled, len(got), len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			ids := func(s Session) []int64 {
				var out []int64
				for _, li := range s.Items {
					out = append(out, li.ID)
				}
				return out
			}
			if !g.Start.Equal(w.Start) || !g.End.Equal(w.End) || !slices.Equal(ids(g), ids(w)) {
				t.Fatalf("round %d (shuffled %v): session %d is %v–%v %v, want %v–%v %v", round, shuffled, i,
					g.Start, g.End, ids(g), w.Start, w.End, ids(w))
			}
		}
	}
	// Items in reverse time order, an hour apart: the grouping pass counts
	// one session where there are 200, and out grows past the room made.
	var reversed []*ledger.LineItem
	for i := range 200 {
		at := time.Date(2026, 10, 9, 0, 0, 0, 0, time.UTC).Add(-time.Duration(i) * time.Hour)
		reversed = append(reversed, &ledger.LineItem{ID: int64(i + 1), Provider: "autodl", ResourceID: "i-back", Currency: "CNY",
			Kind: ledger.KindCompute, ChargeCategory: ledger.CategoryUsage, PricingModel: ledger.PricingOnDemand,
			BilledCost: decimal.New(1, -2), ChargePeriodStart: at, ChargePeriodEnd: at.Add(time.Minute)})
	}
	got := BuildSessions(nil, reversed)
	want := refSessions(reversed)
	if len(got) != 200 || len(want) != 200 {
		t.Fatalf("%d sessions of items an hour apart (reference %d), want 200", len(got), len(want))
	}
	for i := range want {
		if !got[i].Start.Equal(want[i].Start) || len(got[i].Items) != 1 || got[i].Items[0] != want[i].Items[0] {
			t.Fatalf("reversed: session %d starts %v with %d items, want %v", i, got[i].Start, len(got[i].Items), want[i].Start)
		}
	}

	// Long sessions in time order: an hour of per-minute items each.
	var items []*ledger.LineItem
	at := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	for i := range 6000 {
		if i%60 == 0 {
			at = at.Add(time.Hour)
		}
		items = append(items, &ledger.LineItem{ID: int64(i + 1), Provider: "autodl", ResourceID: "i-long", Currency: "CNY",
			Kind: ledger.KindCompute, ChargeCategory: ledger.CategoryUsage, PricingModel: ledger.PricingOnDemand,
			BilledCost: decimal.New(1, -2), ChargePeriodStart: at, ChargePeriodEnd: at.Add(time.Minute)})
		at = at.Add(time.Minute)
	}
	got = BuildSessions(nil, items)
	if len(got) != 100 {
		t.Fatalf("%d sessions of an hour each, want 100", len(got))
	}
	if c := cap(got); c > len(got)+len(got)/4+16 {
		t.Errorf("room made for %d sessions, %d built", c, len(got))
	}
}

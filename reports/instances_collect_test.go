package reports

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/ledger"
)

// collectRef is what collect did before it read by id: walk the month again
// and keep the wanted items.
func collectRef(t *testing.T, s *instanceSet, db *ledger.DB, ids map[int64]bool, all func(*instance) bool) {
	t.Helper()
	keep := func(id int64) bool {
		in := s.ownerOf(id)
		return ids[id] || in != nil && all(in)
	}
	err := db.EachLineItem(context.Background(), ledger.Filter{Month: s.month}, ledger.Read{NoRaw: true, Order: ledger.AnyOrder}, func(full *ledger.LineItem) error {
		if !keep(full.ID) {
			return nil
		}
		li := full
		in := s.ownerOf(li.ID)
		s.items[li.ID] = li
		if in != nil && all(in) {
			in.items = append(in.items, li)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range s.order {
		slices.SortFunc(in.items, ledger.CompareItems)
	}
}

// collectText is what collect read: every item by id, and each instance's
// items in order.
func collectText(s *instanceSet) string {
	var b strings.Builder
	ids := make([]int64, 0, len(s.items))
	for id := range s.items {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		fmt.Fprintf(&b, "%+v\n", *s.items[id])
	}
	for _, in := range s.order {
		fmt.Fprintf(&b, "%s/%s:", in.key.provider, in.key.id)
		for _, li := range in.items {
			fmt.Fprintf(&b, " %d", li.ID)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// collect reads by id what walking the month kept: line items asked for by
// id (owned by an instance or by none, of the month before, not held) and
// every item of the instances asked for whole; none at all; and the same
// line item objects are shared between s.items and in.items.
func TestCollectMatchesMonthWalk(t *testing.T) {
	ctx := context.Background()
	db := instEdgeLedger(t, 3000)
	rng := rand.New(rand.NewPCG(9, 10))
	var month, before []int64
	if err := db.EachLineItem(ctx, ledger.Filter{}, ledger.Read{NoRaw: true}, func(li *ledger.LineItem) error {
		if li.BillingPeriod == "2026-10" {
			month = append(month, li.ID)
		} else {
			before = append(before, li.ID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		share int // one id of the month in share is asked for (0: none)
		whole func(*instance) bool
	}{
		{"nothing", 0, func(*instance) bool { return false }},
		{"ids only", 7, func(*instance) bool { return false }},
		{"whole instances only", 0, func(in *instance) bool { return in.key.provider == "aliyun" || in.key.id == "i-3" }},
		{"both", 3, func(in *instance) bool { return in.state == StateStopped }},
		{"everything", 1, func(*instance) bool { return true }},
	} {
		ids := map[int64]bool{}
		if tt.share > 0 {
			for _, id := range month {
				if rng.IntN(tt.share) == 0 {
					ids[id] = true
				}
			}
			ids[before[0]], ids[before[len(before)-1]] = true, true // of the month before: not read
			ids[month[len(month)-1]+100], ids[-1] = true, true      // not held
		}
		sets := make([]*instanceSet, 2)
		for i := range sets {
			s, err := loadInstances(ctx, db, "2026-10", nil, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			sets[i] = s
		}
		collectRef(t, sets[0], db, ids, tt.whole)
		if err := sets[1].collect(ctx, db, ids, tt.whole); err != nil {
			t.Fatal(err)
		}
		want, got := collectText(sets[0]), collectText(sets[1])
		if got != want {
			t.Errorf("%s: collect differs from walking the month:\n got %.2000s\nwant %.2000s", tt.name, got, want)
		}
		if tt.name == "both" && (len(sets[0].items) == 0 || len(sets[0].items) == len(month)) {
			t.Errorf("%s: the walk kept %d of %d items: want some", tt.name, len(sets[0].items), len(month))
		}
		for _, in := range sets[1].order {
			for _, li := range in.items {
				if sets[1].items[li.ID] != li {
					t.Fatalf("%s: line item %d of %v is not the one by id", tt.name, li.ID, in.key)
				}
			}
		}
		if !reflect.DeepEqual(sets[0].dataEnd, sets[1].dataEnd) {
			t.Fatal("the sets differ before collect")
		}
	}
}

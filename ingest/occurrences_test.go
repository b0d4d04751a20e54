package ingest

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

// TestOccurrencesCountAsAMap: the table numbers occurrences exactly as a
// map of counts does, through its growths, with hashes that collide in
// their low bits (the slot index), a hash of 0 (counted as 1), and a limit
// past which new hashes are refused while held ones still count.
func TestOccurrencesCountAsAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var hashes []uint64
	for i := 0; i < 5000; i++ {
		h := rng.Uint64()
		switch i % 10 {
		case 0: // repeats
			if len(hashes) > 0 {
				h = hashes[rng.IntN(len(hashes))]
			}
		case 1: // same slot index as another hash, different hash
			h = h<<24 | 5
		}
		hashes = append(hashes, h)
	}
	hashes = append(hashes, 0, 1, 0)
	const limit = 3000
	for _, presized := range []bool{false, true} {
		countAsAMap(t, hashes, limit, presized)
	}
	if n, ok := (&occurrences{}).next(42, 0); ok || n != 0 {
		t.Errorf("an empty table with limit 0 counted %d (ok %v)", n, ok)
	}
}

// countAsAMap counts hashes in a table (made for limit hashes ahead when
// presized, which then never grows) and in a map, and compares them.
func countAsAMap(t *testing.T, hashes []uint64, limit int, presized bool) {
	t.Helper()
	var o occurrences
	if presized {
		o.grow(limit)
	}
	made := len(o.slots)
	want := map[uint64]uint32{}
	refused := 0
	for i, h := range hashes {
		key := h
		if key == 0 {
			key = 1
		}
		n, ok := o.next(h, limit)
		if _, held := want[key]; !held && len(want) >= limit {
			if ok {
				t.Fatalf("presized %v, hash %d (%x): counted %d past the limit of %d", presized, i, h, n, limit)
			}
			refused++
			continue
		}
		want[key]++
		if !ok || n != want[key] {
			t.Fatalf("presized %v, hash %d (%x): occurrence %d (ok %v), want %d", presized, i, h, n, ok, want[key])
		}
	}
	if o.n != len(want) || refused == 0 {
		t.Errorf("holds %d hashes, want %d; %d refused, want some", o.n, len(want), refused)
	}
	if o.n*4 > len(o.slots)*3 || len(o.slots)&(len(o.slots)-1) != 0 {
		t.Errorf("%d hashes in %d slots: more than three quarters full, or not a power of two", o.n, len(o.slots))
	}
	for h := range want { // each where a probe finds it, those stored at a growth too
		if _, held := o.find(h); !held {
			t.Errorf("presized %v: hash %x counted but not found", presized, h)
		}
	}
	if presized && len(o.slots) != made {
		t.Errorf("a table made for %d hashes grew from %d to %d slots", limit, made, len(o.slots))
	}
}

// TestSeenCapFitsTheTable: seenCap hashes fit in 2^21 slots (16 MB), the
// size the memory figures of rowKeyer assume.
func TestSeenCapFitsTheTable(t *testing.T) {
	var o occurrences
	for i := 0; i < seenCap; i++ {
		if _, ok := o.next(uint64(i+1)*0x9e3779b97f4a7c15, seenCap); !ok {
			t.Fatalf("refused hash %d of %d", i, seenCap)
		}
	}
	if _, ok := o.next(3, seenCap); ok {
		t.Error("a hash past seenCap was counted")
	}
	if 8*len(o.slots) != 16<<20 {
		t.Errorf("%d hashes take %d bytes of slots, want 16 MB", seenCap, 8*len(o.slots))
	}
}

// TestLineKeysInBatches: keys made a batch at a time, in batches of any
// size, number each row's occurrence in file order across the batches: the
// n-th of identical rows gets "#n" after the hex of its fields' digest.
func TestLineKeysInBatches(t *testing.T) {
	items := make([]ledger.LineItem, 2000)
	start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	type fields struct {
		resource string
		hour     int
		cents    int64
	}
	of := func(i int) fields { return fields{fmt.Sprintf("i-%d", i%7), i % 3, int64(i % 5)} } // repeats every 105 rows
	for i := range items {
		f := of(i)
		items[i] = ledger.LineItem{Provider: "autodl", ResourceID: f.resource, Kind: ledger.KindCompute, Currency: "CNY",
			ChargePeriodStart: start.Add(time.Duration(f.hour) * time.Hour), BilledCost: decimal.New(f.cents, -2)}
	}
	plain := newRowKeyer(0)
	seen := map[fields]int{}
	want := make([]string, len(items))
	for i := range items {
		seen[of(i)]++
		want[i] = fmt.Sprintf("%x#%d", plain.lineDigest(&items[i]), seen[of(i)])
	}
	if seen[of(0)] < 3 {
		t.Fatalf("row 0 occurs %d times: the test needs repeats", seen[of(0)])
	}
	k := newRowKeyer(len(items))
	sizes := []int{1, 499, 500, 3, 37, 960}
	for n, b := 0, 0; n < len(items); b++ {
		end := min(n+sizes[b%len(sizes)], len(items))
		k.lineKeys(items[n:end], false)
		n = end
	}
	for i := range items {
		if items[i].RowKey != want[i] {
			t.Fatalf("row %d: key %s, want %s", i, items[i].RowKey, want[i])
		}
	}
}

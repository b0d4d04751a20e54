package ledger

import (
	"math/rand/v2"
	"testing"
)

func TestCounterCounts(t *testing.T) {
	c, err := OpenCounter()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := map[uint64]uint32{}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5000; i++ {
		k := rng.Uint64N(1000) << 40 // repeats, and keys past int64's sign
		if i%7 == 0 {
			k |= 1 << 63
		}
		want[k]++
		n, err := c.Next(k)
		if err != nil {
			t.Fatal(err)
		}
		if n != want[k] {
			t.Fatalf("Next(%x) = %d, want %d", k, n, want[k])
		}
	}
}

// BenchmarkCounter is the cost of one Next on a counter that holds b.N
// random keys (the on-disk spill of the importers' occurrence map).
func BenchmarkCounter(b *testing.B) {
	c, err := OpenCounter()
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Next(rng.Uint64()); err != nil {
			b.Fatal(err)
		}
	}
}

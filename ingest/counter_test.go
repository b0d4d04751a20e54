package ingest

import (
	"math/rand/v2"
	"os"
	"testing"
)

func TestCounterCounts(t *testing.T) {
	old := counterRunKeys
	counterRunKeys = 64 // many runs on disk, and keys repeated across them
	defer func() { counterRunKeys = old }()
	c, err := OpenCounter()
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64]uint32{}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		k := rng.Uint64N(3000) << 40 // repeats, and keys past int64's sign
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
	if len(c.runs) < 10 {
		t.Errorf("%d runs on disk, want the test to go through many", len(c.runs))
	}
	name := c.f.Name()
	c.Close()
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("the counter's file %s is still there after Close (%v)", name, err)
	}
}

// BenchmarkCounter is the cost of one Next on a counter that holds b.N
// random keys (the spill of the importers' occurrence map).
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

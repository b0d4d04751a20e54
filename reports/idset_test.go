package reports

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// An idSet holds exactly its ids, packed in bits or searched, at the ends
// of its span and of int64.
func TestIDSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dense := []int64{}
	for id := int64(-70); id < 5000; id++ {
		if rng.IntN(5) == 0 {
			dense = append(dense, id)
		}
	}
	for _, tt := range []struct {
		name   string
		ids    []int64
		packed bool
	}{
		{"none", nil, false},
		{"one", []int64{42}, true},
		{"dense", dense, true},
		{"word ends", []int64{0, 63, 64, 127, 128}, true},
		{"spread", []int64{1, 1 << 40, math.MaxInt64}, false},
		{"both ends of int64", []int64{math.MinInt64, math.MaxInt64}, false},
	} {
		s := newIDSet(tt.ids)
		if (s.bits != nil) != tt.packed {
			t.Errorf("%s: packed %v, want %v", tt.name, s.bits != nil, tt.packed)
		}
		probe := []int64{math.MinInt64, -1, 0, 1, 62, 63, 64, 65, 128, 129, 4999, 5000, 1 << 40, math.MaxInt64 - 1, math.MaxInt64}
		for _, id := range tt.ids {
			probe = append(probe, id-1, id, id+1)
		}
		for _, id := range probe {
			if got, want := s.has(id), slices.Contains(tt.ids, id); got != want {
				t.Errorf("%s: has(%d) = %v, want %v", tt.name, id, got, want)
			}
		}
	}
}

package reports

import "slices"

// idSet answers "is this line item wanted?" for every row of a scan: a bit
// per id of the span of the wanted ids, so that the rows that are not
// wanted (most) cost a shift and a mask; a binary search of the ids took
// 0.05 s of CPU on a 297,600-row month wanting 57k. Ids spread too thinly
// for a bit each (more than idSetSpread bits per id) are searched instead.
type idSet struct {
	ids  []int64  // sorted, distinct
	lo   int64    // the first id, bit 0
	bits []uint64 // nil: search ids
}

// idSetSpread is the most bits per wanted id a set spends.
const idSetSpread = 1024

// newIDSet is the set of ids (sorted, distinct).
func newIDSet(ids []int64) *idSet {
	s := &idSet{ids: ids}
	if len(ids) == 0 {
		return s
	}
	last := uint64(ids[len(ids)-1]) - uint64(ids[0]) // the last bit; exact, as ids ascend
	if last/idSetSpread >= uint64(len(ids)) {
		return s
	}
	s.lo, s.bits = ids[0], make([]uint64, last/64+1)
	for _, id := range ids {
		i := uint64(id - s.lo)
		s.bits[i/64] |= 1 << (i % 64)
	}
	return s
}

// has reports whether id is in the set.
func (s *idSet) has(id int64) bool {
	if s.bits == nil {
		_, ok := slices.BinarySearch(s.ids, id)
		return ok
	}
	i := uint64(id) - uint64(s.lo) // an id below lo wraps past the end
	return i/64 < uint64(len(s.bits)) && s.bits[i/64]&(1<<(i%64)) != 0
}

package ingest

// occurrences counts how often each row hash (its first 64 bits) occurred in
// the file being imported, for the occurrence numbers of the dedupe keys.
//
// Almost every row of a bill is distinct, so the table holds the hashes
// themselves in an open-addressing array (linear probing, at most three
// quarters full): 8 bytes a slot and no pointers, so the collector never
// scans it. Only a hash seen twice or more gets a count, in a map. A Go
// map[uint64]uint32 took 17–39 bytes a row between its growths; this table
// takes 11–21, and at most 16 MB (2^21 slots) holds seenCap hashes.
//
// The empty slot is 0, so a hash of 0 is counted as 1: two hashes out of
// 2^64 share a count, which is far below the chance of the 64-bit prefixes
// of two different rows being equal, accepted already.
type occurrences struct {
	slots []uint64
	n     int               // hashes held
	more  map[uint64]uint32 // the count of every hash seen more than once
}

// occurrencesMinSlots is the size of a new table (8 KB).
const occurrencesMinSlots = 1 << 10

// len is the number of distinct hashes held.
func (o *occurrences) len() int { return o.n }

// bytes is the memory of the slots.
func (o *occurrences) bytes() int { return 8 * len(o.slots) }

// next counts one more occurrence of h and returns its number (1 for the
// first). A hash not held yet is added only while fewer than limit are
// held; otherwise next reports ok false and counts nothing.
func (o *occurrences) next(h uint64, limit int) (n uint32, ok bool) {
	if h == 0 {
		h = 1
	}
	if o.holds(h) {
		if o.more == nil {
			o.more = map[uint64]uint32{}
		}
		n = max(o.more[h], 1) + 1
		o.more[h] = n
		return n, true
	}
	if o.n >= limit {
		return 0, false
	}
	if (o.n+1)*4 > len(o.slots)*3 { // past three quarters full (or no table yet)
		o.grow()
	}
	o.put(h)
	o.n++
	return 1, true
}

// holds reports whether h is in the table.
func (o *occurrences) holds(h uint64) bool {
	if len(o.slots) == 0 {
		return false
	}
	mask := uint64(len(o.slots) - 1)
	for i := h & mask; o.slots[i] != 0; i = (i + 1) & mask {
		if o.slots[i] == h {
			return true
		}
	}
	return false
}

// grow doubles the table (or makes the first one) and puts the held hashes
// back.
func (o *occurrences) grow() {
	old := o.slots
	o.slots = make([]uint64, max(occurrencesMinSlots, 2*len(old)))
	for _, h := range old {
		if h != 0 {
			o.put(h)
		}
	}
}

// put stores h, which the table does not hold, in its first free slot.
func (o *occurrences) put(h uint64) {
	mask := uint64(len(o.slots) - 1)
	i := h & mask
	for o.slots[i] != 0 {
		i = (i + 1) & mask
	}
	o.slots[i] = h
}

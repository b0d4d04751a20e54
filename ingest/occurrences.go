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

// next counts one more occurrence of h and returns its number (1 for the
// first). A hash not held yet is added only while fewer than limit are
// held; otherwise next reports ok false and counts nothing. One probe finds
// h or the free slot it goes to: a probe to ask and a second to store was
// a cache miss more a row in the 16 MB table of a million rows.
func (o *occurrences) next(h uint64, limit int) (n uint32, ok bool) {
	if h == 0 {
		h = 1
	}
	i, held := o.find(h)
	if held {
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
		o.grow(0)
		i, _ = o.find(h)
	}
	o.slots[i] = h
	o.n++
	return 1, true
}

// find returns h's slot and true, or the free slot h would take and false
// (0 and false when there is no table).
func (o *occurrences) find(h uint64) (int, bool) {
	if len(o.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(o.slots) - 1)
	i := h & mask
	for o.slots[i] != 0 {
		if o.slots[i] == h {
			return int(i), true
		}
		i = (i + 1) & mask
	}
	return int(i), false
}

// grow doubles the table, or makes it room for at least expect hashes
// (made ahead for a file of known size: each doubling put every held hash
// back, 0.1 s of CPU for a million rows), and puts the held hashes back.
func (o *occurrences) grow(expect int) {
	old := o.slots
	slots := max(occurrencesMinSlots, 2*len(old))
	for slots*3 < expect*4 {
		slots *= 2
	}
	o.slots = make([]uint64, slots)
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

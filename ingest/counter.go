package ingest

import (
	"encoding/binary"
	"fmt"
	"os"
	"slices"
)

// Counter counts occurrences of 64-bit keys in bounded memory: importers
// spill to it the occurrence counts that no longer fit their in-memory map
// (ingest's row keyer), so that a file of any size imports in bounded memory.
//
// Keys are hashes, almost all of them seen once. New keys collect in memory
// and are written, every runKeys of them, as a sorted run to a temporary
// file; each run keeps in memory a Bloom filter (10 bits a key) and the first
// key of each 4 KB block. A key is looked up on disk only when a run's
// filter says it may hold it (about 1% of the time for a new key): one read
// of one block. Keys seen twice or more are counted in memory (they are
// rare: identical rows of one bill). Memory: about 1.3 bytes a key, plus the
// repeated keys.
type Counter struct {
	f       *os.File
	size    int64 // bytes written to f
	pending map[uint64]struct{}
	runs    []counterRun
	dups    map[uint64]uint32
	block   []byte // scratch for one block
}

// counterRun is one sorted run of keys in the file.
type counterRun struct {
	off    int64    // where it starts in the file
	n      int      // keys
	fences []uint64 // the first key of each block
	bloom  []uint64 // bit set
}

// counterRunKeys is how many new keys collect in memory (≈ 6 MB) before
// they are written as a run: few runs keep a new key's look-up cheap (one
// Bloom filter each).
var counterRunKeys = 1 << 18

const (
	counterBlockKeys = 512 // 4 KB
	counterBloomBits = 10  // per key
	counterBloomK    = 7   // probes
)

// OpenCounter opens an empty Counter (its file is created on first need).
func OpenCounter() (*Counter, error) {
	return &Counter{pending: map[uint64]struct{}{}, dups: map[uint64]uint32{}}, nil
}

// Next counts one more occurrence of k and returns how many it has now
// (1 for a new key).
func (c *Counter) Next(k uint64) (uint32, error) {
	if n, ok := c.dups[k]; ok {
		c.dups[k] = n + 1
		return n + 1, nil
	}
	seen := false
	if _, ok := c.pending[k]; ok {
		seen = true
	} else {
		for i := range c.runs {
			ok, err := c.runs[i].contains(c, k)
			if err != nil {
				return 0, err
			}
			if ok {
				seen = true
				break
			}
		}
	}
	if seen {
		c.dups[k] = 2
		return 2, nil
	}
	c.pending[k] = struct{}{}
	if len(c.pending) >= counterRunKeys {
		if err := c.flush(); err != nil {
			return 0, err
		}
	}
	return 1, nil
}

// flush writes the pending keys as a sorted run.
func (c *Counter) flush() error {
	if c.f == nil {
		f, err := os.CreateTemp("", "gpubill-counter-*")
		if err != nil {
			return fmt.Errorf("ingest: counter: %w", err)
		}
		c.f = f
	}
	keys := make([]uint64, 0, len(c.pending))
	for k := range c.pending {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	r := counterRun{off: c.size, n: len(keys), bloom: make([]uint64, (len(keys)*counterBloomBits+63)/64)}
	buf := make([]byte, 8*len(keys))
	for i, k := range keys {
		if i%counterBlockKeys == 0 {
			r.fences = append(r.fences, k)
		}
		binary.LittleEndian.PutUint64(buf[8*i:], k)
		r.bloomAdd(k)
	}
	if _, err := c.f.WriteAt(buf, c.size); err != nil {
		return fmt.Errorf("ingest: counter: %w", err)
	}
	c.size += int64(len(buf))
	c.runs = append(c.runs, r)
	clear(c.pending)
	return nil
}

// bloomBit is the i-th probe position of k (double hashing: k is a hash
// already).
func (r *counterRun) bloomBit(k uint64, i int) uint64 {
	h1, h2 := k, (k>>33|k<<31)|1
	return (h1 + uint64(i)*h2) % uint64(len(r.bloom)*64)
}

func (r *counterRun) bloomAdd(k uint64) {
	for i := 0; i < counterBloomK; i++ {
		b := r.bloomBit(k, i)
		r.bloom[b/64] |= 1 << (b % 64)
	}
}

// contains reports whether the run holds k.
func (r *counterRun) contains(c *Counter, k uint64) (bool, error) {
	for i := 0; i < counterBloomK; i++ {
		b := r.bloomBit(k, i)
		if r.bloom[b/64]&(1<<(b%64)) == 0 {
			return false, nil
		}
	}
	// The block whose first key is the last one ≤ k.
	bi, found := slices.BinarySearch(r.fences, k)
	if found {
		return true, nil
	}
	if bi == 0 {
		return false, nil
	}
	bi--
	n := min(counterBlockKeys, r.n-bi*counterBlockKeys)
	if cap(c.block) < 8*counterBlockKeys {
		c.block = make([]byte, 8*counterBlockKeys)
	}
	blk := c.block[:8*n]
	if _, err := c.f.ReadAt(blk, r.off+int64(8*bi*counterBlockKeys)); err != nil {
		return false, fmt.Errorf("ingest: counter: %w", err)
	}
	lo, hi := 0, n
	for lo < hi {
		m := (lo + hi) / 2
		v := binary.LittleEndian.Uint64(blk[8*m:])
		switch {
		case v == k:
			return true, nil
		case v < k:
			lo = m + 1
		default:
			hi = m
		}
	}
	return false, nil
}

// Close deletes the counter's file.
func (c *Counter) Close() {
	if c.f != nil {
		name := c.f.Name()
		c.f.Close()
		os.Remove(name)
		c.f = nil
	}
}

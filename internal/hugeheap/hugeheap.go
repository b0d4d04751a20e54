package hugeheap

import (
	"math"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"unsafe"
)

const (
	// hugePage is the size of a transparent huge page on amd64 and arm64
	// (with 4 KiB base pages).
	hugePage = 2 << 20
	// minGrow is the least growth worth a collection: smaller loads
	// fault in few pages anyway.
	minGrow = 32 << 20
	// maxLive is the most the heap may hold live for Grow to act: it
	// frees its block by a collection, which marks whatever is live.
	maxLive = 64 << 20
)

var (
	mu sync.Mutex
	// advised is the size of the last block Grow advised: until the heap
	// holds as much, the allocations are still filling it.
	advised int64
)

// Grow prepares the next bytes of heap allocations to come from huge
// pages, where the kernel backs advised memory with them (Linux's
// transparent_hugepage "madvise" mode): it allocates a block of that size
// (at most half the memory available), advises the kernel before anything
// touches it, and frees it through a collection, so that the allocations
// that follow reuse the advised address range. The block is never
// touched: it costs address space, not memory. Grow does nothing when
// bytes is small, when the heap has that much free already (memory
// freed), when the heap holds less than the last block Grow advised (the
// allocations still fill it: a what-if's second load asked while the
// first one's items were live, and its collection marked them), when the
// last collection found more than 64 MiB live (Grow's collection would
// mark as much), when the kernel has less than half of it free in huge
// pages, or where huge pages come without asking or not at all. It
// reports whether it grew the heap.
func Grow(bytes int64) bool {
	if bytes < minGrow || !advisable() {
		return false
	}
	mu.Lock()
	defer mu.Unlock()
	live, objects, free := Sizes()
	if live > maxLive || free >= bytes || objects < advised {
		return false
	}
	n := min(bytes, available()/2, math.MaxInt/2) // an int, on 32 bits too
	if n < minGrow {
		return false
	}
	// Advised memory the kernel has no free huge page for is compacted
	// for at the fault (defrag's default, "madvise"): a stall, measured
	// 236 ms instead of 83 ms for 170 MB. Half the block, free in huge
	// pages, leaves the load room.
	if freeHuge() < n/2 {
		return false
	}
	n = (n + hugePage - 1) &^ (hugePage - 1)
	// The block must not be touched before the advice. make would zero it
	// wherever it overlaps memory the heap used before, all of it at once
	// (measured: 306,000 faults, 6.4 s, for a what-if whose block began in
	// freed spans). strings.Builder grows without zeroing; its first byte
	// gives the address.
	var sb strings.Builder
	sb.Grow(int(n + hugePage))
	sb.WriteByte(0)
	b := unsafe.Slice(unsafe.StringData(sb.String()), sb.Cap())
	if !advise(b) {
		return false
	}
	runtime.GC() // sb and b are dead here: the collection frees the block
	advised = n
	return true
}

// Sizes returns the Go heap's sizes: the live heap the last collection
// marked (what Grow's collection would mark, about), the heap's objects
// now (live or not yet collected), and its free memory (mapped or
// returned to the kernel: what the allocations to come reuse first).
// ledger.ReserveHeap paces the collector by the first two.
func Sizes() (live, objects, free int64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	for _, v := range s {
		if v.Value.Kind() != metrics.KindUint64 {
			return 0, 0, 0
		}
	}
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64()), int64(s[2].Value.Uint64() + s[3].Value.Uint64())
}

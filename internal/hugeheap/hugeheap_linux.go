package hugeheap

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// advisable reports whether the kernel backs memory with huge pages only
// when advised: "[madvise]" in the mode's file. In "always" the heap has
// them already; in "never" advice does nothing.
var advisable = sync.OnceValue(func() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && modeIsMadvise(b)
})

// modeIsMadvise reads transparent_hugepage/enabled, whose selected mode is
// the one in brackets: "always [madvise] never".
func modeIsMadvise(b []byte) bool {
	return bytes.Contains(b, []byte("[madvise]"))
}

// advise asks for huge pages under the whole huge pages inside b.
func advise(b []byte) bool {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(len(b))) &^ (hugePage - 1)
	if end <= start {
		return false
	}
	return unix.Madvise(b[start-p:end-p], unix.MADV_HUGEPAGE) == nil
}

// available is MemAvailable of /proc/meminfo in bytes (0 when unknown).
func available() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	return memAvailable(f)
}

// memAvailable reads the MemAvailable line of a meminfo file ("MemAvailable:
// 23623456 kB") in bytes, 0 when it has none.
func memAvailable(r io.Reader) int64 {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("MemAvailable:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil || kb < 0 || kb > 1<<50 {
			return 0
		}
		return kb << 10
	}
	return 0
}

// freeHuge is the memory the kernel holds free in blocks of a huge page
// or more (/proc/buddyinfo), in bytes; -1 when unknown.
func freeHuge() int64 {
	f, err := os.Open("/proc/buddyinfo")
	if err != nil {
		return -1
	}
	defer f.Close()
	return buddyFreeHuge(f)
}

// buddyFreeHuge reads a buddyinfo file: a line per zone, "Node 0, zone
// Normal" and then the count of free blocks of each order from 0 (4 KiB)
// up; a huge page is order 9. It returns the bytes free in blocks of order
// 9 or more, -1 when the file says nothing it can read.
func buddyFreeHuge(r io.Reader) int64 {
	const hugeOrder = 9
	var total int64
	read := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		_, counts, ok := bytes.Cut(sc.Bytes(), []byte("zone"))
		if !ok {
			continue
		}
		f := bytes.Fields(counts)
		if len(f) < 2 {
			continue
		}
		for order, c := range f[1:] { // f[0] names the zone
			n, err := strconv.ParseInt(string(c), 10, 64)
			if err != nil || n < 0 || order > 20 {
				return -1
			}
			if order >= hugeOrder {
				total += n << (12 + order)
			}
		}
		read = true
	}
	if !read {
		return -1
	}
	return total
}

// TouchFresh maps n bytes of new memory outside the Go heap (advised for
// huge pages where the kernel backs them only when asked), writes a byte
// in every 4 KiB page of it, unmaps it and returns how long the writes
// took: what the first touch of that much memory costs the process now.
// It measures the machine, for the benchmarks: on the virtual machines
// gpubill is measured on, memory the kernel has held free for a few
// seconds has been handed back to the host, and touching it again costs
// about 2 ms a MB; memory freed just before costs a thirtieth of that.
func TouchFresh(n int64) (time.Duration, error) {
	if n <= 0 || n > math.MaxInt/2 {
		return 0, fmt.Errorf("hugeheap: cannot touch %d bytes", n)
	}
	b, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return 0, fmt.Errorf("hugeheap: map %d bytes: %w", n, err)
	}
	defer unix.Munmap(b)
	if advisable() {
		advise(b)
	}
	start := time.Now()
	for i := 0; i < len(b); i += 4 << 10 {
		b[i] = 1
	}
	return time.Since(start), nil
}

package hugeheap

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

func TestModeIsMadvise(t *testing.T) {
	for mode, want := range map[string]bool{
		"always [madvise] never\n": true,
		"[always] madvise never\n": false,
		"always madvise [never]\n": false,
		"":                         false,
	} {
		if got := modeIsMadvise([]byte(mode)); got != want {
			t.Errorf("modeIsMadvise(%q) = %v, want %v", mode, got, want)
		}
	}
}

func TestMemAvailable(t *testing.T) {
	for in, want := range map[string]int64{
		"MemTotal:       24683520 kB\nMemFree:        23900000 kB\nMemAvailable:   24190000 kB\n": 24190000 << 10,
		"MemTotal:       24683520 kB\n":    0,
		"MemAvailable:   12 MB\n":          0,
		"MemAvailable:   -5 kB\n":          0,
		"MemAvailable:   x kB\n":           0,
		"MemAvailable:   0 kB\nBuffers:\n": 0,
	} {
		if got := memAvailable(strings.NewReader(in)); got != want {
			t.Errorf("memAvailable(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestBuddyFreeHuge(t *testing.T) {
	const info = `Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3
Node 0, zone    DMA32      3      5      2      6      6      4      4      7      6      6    748
Node 0, zone   Normal   2775   7352   3986   1217   1747   2220   1234   1017    228     69   3699
`
	want := int64(1+6+69)<<21 + int64(3+748+3699)<<22
	for in, want := range map[string]int64{
		info:                              want,
		"":                                -1,
		"Node 0, zone Normal 1 2 x\n":     -1,
		"Node 0, zone Normal 0 0 0 0 0\n": 0,
		"Node 0, zone Normal 0 0 0 0 0 0 0 0 0 2\n": 2 << 21,
	} {
		if got := buddyFreeHuge(strings.NewReader(in)); got != want {
			t.Errorf("buddyFreeHuge(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestGrowAdvisesTheNextAllocations checks the point of Grow on a kernel
// in madvise mode: a block allocated after it lies in a mapping the
// kernel marked for huge pages ("hg" in smaps' VmFlags) and, once
// touched, is backed by them (AnonHugePages) where the kernel had any.
func TestGrowAdvisesTheNextAllocations(t *testing.T) {
	if !advisable() {
		t.Skip("transparent huge pages are not in madvise mode here: Grow does nothing (as it should)")
	}
	if Grow(minGrow - 1) {
		t.Fatal("Grow of less than minGrow acted")
	}
	// No collection but Grow's own: the block after it must not find
	// Grow's block freed by chance (a collection its size would start).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const size = 96 << 20
	if _, _, free := Sizes(); free >= size {
		t.Skipf("the test's heap has %d bytes free already", free)
	}
	if h := freeHuge(); h < size/2 {
		t.Skipf("the kernel has %d bytes free in huge pages: Grow leaves the heap as it is (as it should)", h)
	}
	before := minorFaults(t)
	if !Grow(size) {
		t.Fatal("Grow(96 MiB) did nothing on a small heap in madvise mode")
	}
	// Grow must not touch its block (a zeroing make would, on small pages,
	// before the advice): 24,576 pages of 4 KiB.
	if d := minorFaults(t) - before; d > 2000 && !raceEnabled {
		t.Errorf("Grow(96 MiB) took %d page faults: it touched its block", d)
	}
	if Grow(size) {
		t.Error("a second Grow(96 MiB) acted: the heap has that much free")
	}
	// More than the heap has free, while the heap still fills the first
	// block: nothing (its collection would mark what the first holds).
	if Grow(4 * size) {
		t.Error("Grow(384 MiB) acted while the heap held less than the block advised before")
	}
	b := make([]byte, 64<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	// The advice covers the whole huge pages of Grow's block: the block
	// allocated after it starts where Grow's started, maybe short of one.
	addr := uintptr(unsafe.Pointer(&b[len(b)/2]))
	flags, hugeKB := mapping(t, addr)
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Fatalf("the middle of the block allocated after Grow (%#x) lies in a mapping without the huge page advice (VmFlags: %s)", addr, flags)
	}
	if hugeKB == 0 {
		t.Logf("the kernel backed none of it with huge pages (none free?)")
	}
}

// mapping returns the VmFlags and AnonHugePages (kB) of the mapping that
// holds addr, from /proc/self/smaps.
func mapping(t *testing.T, addr uintptr) (flags string, hugeKB int64) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			lo, hi, ok := strings.Cut(fields[0], "-")
			a, err1 := strconv.ParseUint(lo, 16, 64)
			z, err2 := strconv.ParseUint(hi, 16, 64)
			in = ok && err1 == nil && err2 == nil && uint64(addr) >= a && uint64(addr) < z
			continue
		}
		if !in {
			continue
		}
		if v, ok := strings.CutPrefix(line, "AnonHugePages:"); ok {
			hugeKB, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
		if v, ok := strings.CutPrefix(line, "VmFlags:"); ok {
			return strings.TrimSpace(v), hugeKB
		}
	}
	t.Fatalf("no mapping of %#x in /proc/self/smaps", addr)
	return "", 0
}

// minorFaults is the process's minor page faults so far.
func minorFaults(t *testing.T) int64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return int64(ru.Minflt)
}

// TestTouchFresh checks that TouchFresh touches all the memory it maps:
// the process takes at least a page fault per huge page of it (4 KiB
// pages take 512 times as many), and a size it cannot map is an error.
func TestTouchFresh(t *testing.T) {
	const size = 64 << 20
	before := minorFaults(t)
	d, err := TouchFresh(size)
	if err != nil {
		t.Fatal(err)
	}
	if faults := minorFaults(t) - before; faults < size/hugePage {
		t.Errorf("TouchFresh(%d MiB) took %d page faults, want at least %d (one a huge page)", size>>20, faults, size/hugePage)
	}
	if d <= 0 {
		t.Errorf("TouchFresh took %v", d)
	}
	for _, n := range []int64{0, -1, 1 << 62} {
		if _, err := TouchFresh(n); err == nil {
			t.Errorf("TouchFresh(%d): no error", n)
		}
	}
}

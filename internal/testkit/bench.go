package testkit

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"testing"
)

// BenchRows is the size of the generated data of gpubill's benchmarks:
// GPUBILL_BENCH_ROWS (e.g. 100000 for a quick look), default 1,000,000.
func BenchRows(tb testing.TB) int {
	tb.Helper()
	s := os.Getenv("GPUBILL_BENCH_ROWS")
	if s == "" {
		return 1_000_000
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		tb.Fatalf("GPUBILL_BENCH_ROWS=%q is not a positive row count", s)
	}
	return n
}

// WriteFile creates path and writes it through a buffer with write (a
// generated bill), failing the test on any error.
func WriteFile(tb testing.TB, path string, write func(io.Writer) error) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := write(w); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

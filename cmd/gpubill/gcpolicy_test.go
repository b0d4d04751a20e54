package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

// TestGCPolicy: without GOGC and GOMEMLIMIT in the environment, every
// command runs at GC percent 400 and an import (flags before it or not)
// under the soft limit importMemoryLimit; other commands get no limit;
// values from the environment are left as they are.
func TestGCPolicy(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	unset := func(names ...string) {
		for _, n := range names {
			if v, ok := os.LookupEnv(n); ok {
				t.Cleanup(func() { os.Setenv(n, v) })
				os.Unsetenv(n)
			}
		}
	}
	unset("GOGC", "GOMEMLIMIT")
	for _, c := range []struct {
		name    string
		args    []string
		percent int
		limit   int64
	}{
		{"import", []string{"import", "a.csv"}, 400, importMemoryLimit},
		{"import after flags", []string{"--db", "x.db", "--month", "2026-10", "import", "a.csv"}, 400, importMemoryLimit},
		{"audit", []string{"--db", "x.db", "audit", "--format", "json"}, 400, math.MaxInt64},
		{"report", []string{"report", "spend"}, 400, math.MaxInt64},
	} {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		gcPolicy(c.args)
		if got := debug.SetGCPercent(100); got != c.percent {
			t.Errorf("%s: GC percent %d, want %d", c.name, got, c.percent)
		}
		if got := debug.SetMemoryLimit(math.MaxInt64); got != c.limit {
			t.Errorf("%s: memory limit %d, want %d", c.name, got, c.limit)
		}
	}

	// Set by the user: left alone (the runtime read them at start; here
	// the settings stand for what it read).
	t.Setenv("GOGC", "50")
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetGCPercent(50)
	debug.SetMemoryLimit(1 << 30)
	gcPolicy([]string{"import", "a.csv"})
	if got := debug.SetGCPercent(100); got != 50 {
		t.Errorf("with GOGC=50: GC percent %d, want 50", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != 1<<30 {
		t.Errorf("with GOMEMLIMIT=1GiB: memory limit %d, want 1 GiB", got)
	}
}

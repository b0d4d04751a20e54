package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
)

// gcPolicy is gpubill's one setting of the Go collector, made for the
// process before the command runs; GOGC or GOMEMLIMIT set in the
// environment win over it. A command keeps most of what it allocates (a
// loaded month, its findings, the encoded report) or churns through
// short-lived rows (an import), so a collection at the default pace finds
// little to free: GOGC=400 collects a quarter as often. An import's live
// heap is small and bounded (the batches in flight and its occurrence
// table of at most 16 MB, about 22 MB in all), so a soft limit of 44 MiB
// keeps its heap from growing with the file: with the binary's pages and
// SQLite's own memory (the page cache, the sort that builds deferred
// indexes at commit), the process stays under 100 MB.
func gcPolicy(args []string) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if cmd, _, err := (&app{}).rootCommand().Find(args); err == nil && cmd.Name() == "import" {
			debug.SetMemoryLimit(importMemoryLimit)
		}
	}
}

// importMemoryLimit is gcPolicy's soft limit of an import's Go memory.
const importMemoryLimit = 44 << 20

func main() {
	gcPolicy(os.Args[1:])
	// GPUBILL_CPUPROFILE=FILE writes a CPU profile of the whole command, and
	// GPUBILL_MEMPROFILE=FILE the profile of what it allocated (for the
	// speed work: go tool pprof FILE; -sample_index=alloc_space).
	cpu, mem := os.Getenv("GPUBILL_CPUPROFILE"), os.Getenv("GPUBILL_MEMPROFILE")
	if cpu == "" && mem == "" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	var cpuFile *os.File
	if cpu != "" {
		var err error
		if cpuFile, err = os.Create(cpu); err == nil {
			err = pprof.StartCPUProfile(cpuFile)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gpubill: GPUBILL_CPUPROFILE:", err)
			os.Exit(exitInternal)
		}
	}
	code := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if cpuFile != nil {
		pprof.StopCPUProfile()
		cpuFile.Close()
	}
	if mem != "" {
		// The profile is as of the last collection: without one here, a
		// command that ran with the collector held off (an audit) showed
		// only what it allocated before.
		runtime.GC()
		f, err := os.Create(mem)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gpubill: GPUBILL_MEMPROFILE:", err)
			code = exitInternal
		}
	}
	os.Exit(code)
}

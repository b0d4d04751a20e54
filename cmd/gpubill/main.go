package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
)

func main() {
	// GPUBILL_CPUPROFILE=FILE writes a CPU profile of the whole command (for
	// the speed work: go tool pprof FILE).
	if p := os.Getenv("GPUBILL_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gpubill: GPUBILL_CPUPROFILE:", err)
			os.Exit(exitInternal)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "gpubill: GPUBILL_CPUPROFILE:", err)
			os.Exit(exitInternal)
		}
		code := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		pprof.StopCPUProfile()
		f.Close()
		os.Exit(code)
	}
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Command gpubill-bench measures gpubill's CSV import against the floor set
// by the sqlite3 command-line tool's `.import` of the same file (a C program
// that parses nothing and validates nothing).
//
// It generates deterministic gpubill-template bills of the requested sizes,
// then, for each size, runs the baseline and `gpubill import` alternately
// (the machines drift ±20%, so only ratios taken in one run mean anything),
// each into a fresh database, and prints the median wall time, the median
// peak RSS and the ratio to the baseline. With -audit (the default) it also
// audits every month of each imported ledger with `gpubill audit` and
// prints the total against the import it followed (the target: at most
// half of it).
//
//	go build -o /tmp/gpubill ./cmd/gpubill
//	go run ./cmd/gpubill-bench -gpubill /tmp/gpubill -rows 100000,1000000 -runs 3
//
// With -xlsx-rows it also writes the same bills as XLSX workbooks and
// imports them against the floor set by excelize's streaming Rows() reading
// every cell of the sheet (run by this command in a process of its own, so
// that its peak memory is measured the same way). With -reports (the
// default) it times every report of the first month of each imported ledger.
//
// Needs the sqlite3 tool (Debian: apt-get install sqlite3).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gpubill/gpubill/ingest"
)

func main() {
	bin := flag.String("gpubill", "gpubill", "the gpubill binary to measure")
	sizes := flag.String("rows", "100000,1000000", "comma-separated row counts")
	runs := flag.Int("runs", 3, "runs of each side per size")
	dir := flag.String("dir", "", "work folder (default: a temporary folder, removed at the end)")
	audit := flag.Bool("audit", true, "also time gpubill audit of every month of the imported ledger")
	xlsxSizes := flag.String("xlsx-rows", "", "comma-separated row counts of XLSX bills to import against excelize's Rows() (empty: none)")
	reports := flag.Bool("reports", true, "also time each report of the first month of the imported ledger")
	readXLSX := flag.String("read-xlsx", "", "internal: read every cell of this workbook with excelize's Rows() and exit (the XLSX baseline)")
	flag.Parse()
	if *readXLSX != "" {
		if err := readAllRows(*readXLSX); err != nil {
			fmt.Fprintln(os.Stderr, "gpubill-bench:", err)
			os.Exit(1)
		}
		return
	}
	err := func() error {
		work := *dir
		if work == "" {
			d, err := os.MkdirTemp("", "gpubill-bench-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(d)
			work = d
		}
		if err := run(*bin, *sizes, *runs, work, *audit, *reports); err != nil {
			return err
		}
		if *xlsxSizes != "" {
			return runXLSX(*bin, *xlsxSizes, *runs, work)
		}
		return nil
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpubill-bench:", err)
		os.Exit(1)
	}
}

type sample struct {
	wall  time.Duration
	rssKB int64
}

func run(bin, sizes string, runs int, dir string, audit, reports bool) error {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		return fmt.Errorf("the baseline needs the sqlite3 tool (apt-get install sqlite3): %w", err)
	}
	host, _ := os.Hostname()
	fmt.Printf("machine: %s, %d CPUs (GOMAXPROCS default), %s\n", host, numCPU(), time.Now().Format(time.RFC3339))
	fmt.Printf("%-9s %-22s %10s %10s %8s\n", "rows", "what", "median s", "peak MB", "ratio")
	for _, s := range strings.Split(sizes, ",") {
		if strings.TrimSpace(s) == "" {
			continue // -rows "": XLSX only
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("-rows %q: %w", s, err)
		}
		csvPath := filepath.Join(dir, fmt.Sprintf("bill-%d.csv", n))
		if err := generate(csvPath, n); err != nil {
			return err
		}
		var base, ours, audits []sample
		reportTimes := map[string][]sample{}
		for i := 0; i < runs; i++ {
			b, err := timed(dir, exec.Command("sqlite3", filepath.Join(dir, "base.db"), ".import --csv "+csvPath+" bill"))
			if err != nil {
				return fmt.Errorf("sqlite3 .import: %w", err)
			}
			base = append(base, b)
			o, err := timedImport(bin, dir, csvPath)
			if err != nil {
				return err
			}
			ours = append(ours, o)
			if audit {
				a, err := auditAll(bin, filepath.Join(dir, "ours.db"), n)
				if err != nil {
					return err
				}
				audits = append(audits, a)
			}
			if reports {
				for _, r := range reportNames {
					t, err := reportTime(bin, filepath.Join(dir, "ours.db"), r)
					if err != nil {
						return err
					}
					reportTimes[r] = append(reportTimes[r], t)
				}
			}
		}
		mb, mo := median(base), median(ours)
		printRow(n, "sqlite3 .import", mb, "1.00", "")
		printRow(n, "gpubill import", mo, fmt.Sprintf("%.2f", mo.wall.Seconds()/mb.wall.Seconds()), "")
		if audit {
			// Ratios of the medians; each audit ran right after its import.
			ma := median(audits)
			printRow(n, "gpubill audit (all)", ma, fmt.Sprintf("%.2f", ma.wall.Seconds()/mb.wall.Seconds()),
				fmt.Sprintf("(audit / gpubill import: %.2f)", ma.wall.Seconds()/mo.wall.Seconds()))
		}
		for _, r := range reportNames {
			if t := reportTimes[r]; len(t) > 0 {
				printRow(n, "report "+r+" 2026-10", median(t), "", "(target: 0.5 s at a million rows)")
			}
		}
	}
	return nil
}

// printRow prints one line of the results table: the median wall time and
// peak RSS of s, its ratio to the baseline and a note ("" for none).
func printRow(rows int, what string, s sample, ratio, note string) {
	line := fmt.Sprintf("%-9d %-22s %10.2f %10.1f %8s", rows, what, s.wall.Seconds(), float64(s.rssKB)/1024, ratio)
	if note != "" {
		line += "  " + note
	}
	fmt.Println(line)
}

// reportNames are the reports -reports times.
var reportNames = []string{"spend", "findings", "gpuhour", "whatif", "instances", "refunds"}

// reportTime runs one report of the generated data's first month.
func reportTime(bin, db, name string) (sample, error) {
	s, err := measure(exec.Command(bin, "report", name, "--db", db, "--month", "2026-10", "--format", "json"))
	if err != nil {
		return s, fmt.Errorf("gpubill report %s: %w", name, err)
	}
	return s, nil
}

// auditAll runs gpubill audit on every month the generated bill of n rows
// covers (WriteSampleTemplateCSV puts row i in hour i/400 from 2026-10-01)
// and returns the summed wall time and the largest peak RSS.
func auditAll(bin, db string, n int) (sample, error) {
	var total sample
	first := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	last := first.Add(time.Duration(max(n-1, 0)/400) * time.Hour)
	for m := first; !m.After(last); m = m.AddDate(0, 1, 0) {
		s, err := measure(exec.Command(bin, "audit", "--db", db, "--month", m.Format("2006-01"), "--format", "json"))
		if err != nil {
			return total, fmt.Errorf("gpubill audit %s: %w", m.Format("2006-01"), err)
		}
		total.wall += s.wall
		total.rssKB = max(total.rssKB, s.rssKB)
	}
	return total, nil
}

// timed runs cmd on fresh databases in dir and returns its wall time and peak RSS.
func timed(dir string, cmd *exec.Cmd) (sample, error) {
	for _, f := range []string{"base.db", "ours.db"} {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(filepath.Join(dir, f+suffix))
		}
	}
	return measure(cmd)
}

// timedImport is timed of `gpubill import` of path into dir's ours.db.
func timedImport(bin, dir, path string) (sample, error) {
	cmd := exec.Command(bin, "import", "--db", filepath.Join(dir, "ours.db"), "--format", "json", path)
	cmd.Env = append(os.Environ(), "GPUBILL_DB=")
	s, err := timed(dir, cmd)
	if err != nil {
		return s, fmt.Errorf("gpubill import: %w", err)
	}
	return s, nil
}

// measure runs cmd and returns its wall time and peak RSS.
func measure(cmd *exec.Cmd) (sample, error) {
	var stderr strings.Builder
	cmd.Stdout = nil
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%v: %s", err, stderr.String())
	}
	s := sample{wall: time.Since(start)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.rssKB = ru.Maxrss // KiB on Linux
	}
	return s, nil
}

func median(s []sample) sample {
	w := make([]time.Duration, len(s))
	r := make([]int64, len(s))
	for i, x := range s {
		w[i], r[i] = x.wall, x.rssKB
	}
	slices.Sort(w)
	slices.Sort(r)
	return sample{wall: w[len(w)/2], rssKB: r[len(r)/2]}
}

func generate(path string, rows int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := ingest.WriteSampleTemplateCSV(bw, rows, 1); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func numCPU() int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\nprocessor") + 1
}

// Command gpubill-bench measures gpubill's CSV import against the floor set
// by the sqlite3 command-line tool's `.import` of the same file (a C program
// that parses nothing and validates nothing).
//
// It generates deterministic bills of the requested sizes in each format of
// -formats (default both: the gpubill template, ingest.WriteSampleTemplateCSV,
// and the 阿里云 明细账单, ingest.WriteSampleAliyunCSV), then, for each size
// and format, runs the baseline and `gpubill import` of that file
// alternately (the machines drift ±20%, so only ratios taken in one run mean
// anything), each into a fresh database, and prints the median wall time,
// the median peak RSS and the ratio to the baseline, on lines that name the
// format (each import must have stored every row, or the script stops).
// With -zip it also imports each file zipped (one Deflate member) in the
// same alternation, its ratio taken against the baseline of the unzipped
// file. With -audit (the default) it also audits every month of each
// imported template ledger with `gpubill audit` and prints the total
// against the import it followed (the target: at most half of it); with
// -reports (the default) it times every report of the first month of each
// imported template ledger, and the reimbursement packet of that month. Neither runs on the 阿里云 ledgers: that file's
// newer header has a 日期 and no usage times, so every hourly row is charged
// its whole day and the rules and reports would measure artefacts (an
// overlapping charge on every instance-day).
//
//	go build -o /tmp/gpubill ./cmd/gpubill
//	go run ./cmd/gpubill-bench -gpubill /tmp/gpubill -rows 100000,1000000 -runs 3
//
// The template bill bills 400 instances every hour (-instances), so a
// million rows span three months and a half; -instances 1345 puts a million
// rows in October alone, the month the audit's budget is set for (5 s,
// under 1 GB):
//
//	go run ./cmd/gpubill-bench -gpubill /tmp/gpubill -rows 1000000 -instances 1345 -formats template -reports=false
//
// With -xlsx-rows it also writes the template bills as XLSX workbooks and
// imports them against the floor set by excelize's streaming Rows() reading
// every cell of the sheet (run by this command in a process of its own, so
// that its peak memory is measured the same way). The workbooks are written
// by a process of their own too: on Linux a child's peak RSS starts at its
// parent's, so the parent's must stay small (the peak MB column has it as
// a floor, about 22 MB).
//
// With -against OLD it also imports each CSV with another gpubill binary in
// the same alternation (before the measured one, whose ledger the audit and
// reports then read), so that two builds are compared under the same
// conditions: both ratios to the same baseline runs.
//
// Needs the sqlite3 tool (Debian: apt-get install sqlite3).
package main

import (
	"archive/zip"
	"bufio"
	"flag"
	"fmt"
	"io"
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
	audit := flag.Bool("audit", true, "also time gpubill audit of every month of the imported template ledger")
	xlsxSizes := flag.String("xlsx-rows", "", "comma-separated row counts of XLSX bills to import against excelize's Rows() (empty: none)")
	reports := flag.Bool("reports", true, "also time each report of the first month of the imported template ledger")
	formatList := flag.String("formats", "template,aliyun", "comma-separated formats of the generated CSV bills: "+formatNames())
	against := flag.String("against", "", "another gpubill binary to import each CSV with too, alternating with the measured one, and to audit and report on a copy of the same ledger (to compare two builds)")
	fleet := flag.Int("instances", 400, "instances of the template bill billed every hour: 400 put 297,600 rows in a month, 1345 a million (the audit's budget)")
	zipped := flag.Bool("zip", false, "also import each generated CSV zipped (one Deflate member) against the baseline of the unzipped file")
	writeXLSX := flag.String("write-xlsx", "", "internal: CSV,BOOK: write the generated CSV bill as the workbook BOOK and exit")
	readXLSX := flag.String("read-xlsx", "", "internal: read every cell of this workbook with excelize's Rows() and exit (the XLSX baseline)")
	flag.Parse()
	if *writeXLSX != "" {
		csvPath, book, ok := strings.Cut(*writeXLSX, ",")
		if !ok {
			fmt.Fprintln(os.Stderr, "gpubill-bench: -write-xlsx wants CSV,BOOK")
			os.Exit(2)
		}
		if err := csvToXLSX(csvPath, book); err != nil {
			fmt.Fprintln(os.Stderr, "gpubill-bench:", err)
			os.Exit(1)
		}
		return
	}
	if *readXLSX != "" {
		if err := readAllRows(*readXLSX); err != nil {
			fmt.Fprintln(os.Stderr, "gpubill-bench:", err)
			os.Exit(1)
		}
		return
	}
	err := func() error {
		formats, err := parseFormats(*formatList)
		if err != nil {
			return err
		}
		work := *dir
		if work == "" {
			d, err := os.MkdirTemp("", "gpubill-bench-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(d)
			work = d
		} else if err := os.MkdirAll(work, 0o755); err != nil { // -dir is made if it is missing
			return err
		}
		if *fleet < 1 {
			return fmt.Errorf("-instances %d: want at least 1", *fleet)
		}
		instances = *fleet
		if err := run(*bin, *against, *sizes, formats, *runs, work, *audit, *reports, *zipped); err != nil {
			return err
		}
		if *xlsxSizes != "" {
			if err := runXLSX(*bin, *xlsxSizes, *runs, work); err != nil {
				return err
			}
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

// benchFormat is a layout of the generated CSV bills.
type benchFormat struct {
	name  string                                        // in -formats and on each result line
	write func(w io.Writer, rows int, seed int64) error // the deterministic generator
	// checks: the audit and the reports run on the imported ledger. Not on
	// the 阿里云 detail: its 日期 without usage times charges each hourly row
	// the whole day, so the rules would see an overlapping charge on every
	// instance-day and the GPU hours would count days.
	checks bool
}

// instances is -instances: how many instances the template bill bills each
// hour, so how many of its rows a month holds.
var instances = 400

// benchFormats are the formats -formats chooses from.
var benchFormats = []benchFormat{
	{"template", func(w io.Writer, rows int, seed int64) error {
		return ingest.WriteSampleFleetCSV(w, rows, instances, seed)
	}, true},
	{"aliyun", ingest.WriteSampleAliyunCSV, false},
}

func formatNames() string {
	names := make([]string, len(benchFormats))
	for i, f := range benchFormats {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

// parseFormats reads -formats: names of benchFormats, in the order given.
func parseFormats(list string) ([]benchFormat, error) {
	var out []benchFormat
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		i := slices.IndexFunc(benchFormats, func(f benchFormat) bool { return f.name == name })
		if i < 0 {
			return nil, fmt.Errorf("-formats: unknown format %q (known: %s)", name, formatNames())
		}
		out = append(out, benchFormats[i])
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-formats %q names no format (known: %s)", list, formatNames())
	}
	return out, nil
}

func run(bin, against, sizes string, formats []benchFormat, runs int, dir string, audit, reports, zipped bool) error {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		return fmt.Errorf("the baseline needs the sqlite3 tool (apt-get install sqlite3): %w", err)
	}
	host, _ := os.Hostname()
	fmt.Printf("machine: %s, %d CPUs (GOMAXPROCS default), %s\n", host, numCPU(), time.Now().Format(time.RFC3339))
	printHeader("what")
	for _, s := range strings.Split(sizes, ",") {
		if strings.TrimSpace(s) == "" {
			continue // -rows "": XLSX only
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("-rows %q: %w", s, err)
		}
		for _, f := range formats {
			if err := runCSV(bin, against, n, f, runs, dir, audit && f.checks, reports && f.checks, zipped); err != nil {
				return err
			}
		}
	}
	return nil
}

// runCSV generates a bill of n rows in format f (and its zip with zipped),
// measures it runs times against sqlite3 .import of the same CSV (and the
// import of binary against, unless "") and prints the medians. The files are
// removed afterwards.
func runCSV(bin, against string, n int, f benchFormat, runs int, dir string, audit, reports, zipped bool) error {
	csvPath := filepath.Join(dir, fmt.Sprintf("bill-%s-%d.csv", f.name, n))
	defer os.Remove(csvPath)
	if err := generate(csvPath, n, f.write); err != nil {
		return err
	}
	zipPath := csvPath + ".zip"
	if zipped {
		defer os.Remove(zipPath)
		if err := zipFile(csvPath, zipPath); err != nil {
			return err
		}
	}
	ours := filepath.Join(dir, "ours.db")
	theirs := filepath.Join(dir, "against.db") // a copy of ours.db for -against's audit and reports
	defer os.Remove(theirs)
	var base, plain, others, zips, audits, theirAudits []sample
	reportTimes, theirReports := map[string][]sample{}, map[string][]sample{}
	for i := 0; i < runs; i++ {
		b, err := timed(dir, exec.Command("sqlite3", filepath.Join(dir, "base.db"), ".import --csv "+csvPath+" bill"))
		if err != nil {
			return fmt.Errorf("sqlite3 .import: %w", err)
		}
		base = append(base, b)
		if against != "" {
			o, err := timedImport(against, dir, csvPath, n)
			if err != nil {
				return fmt.Errorf("-against: %w", err)
			}
			others = append(others, o)
		}
		o, err := timedImport(bin, dir, csvPath, n)
		if err != nil {
			return err
		}
		plain = append(plain, o)
		// With -against, the other binary audits and reports on a copy of
		// the same ledger, alternating with ours (who goes first alternates
		// too).
		type side struct {
			bin, db string
			audits  *[]sample
			reports map[string][]sample
		}
		sides := []side{{bin, ours, &audits, reportTimes}}
		if against != "" && (audit || reports) {
			if err := copyFile(ours, theirs); err != nil {
				return err
			}
			sides = append(sides, side{against, theirs, &theirAudits, theirReports})
			if i%2 == 1 {
				sides[0], sides[1] = sides[1], sides[0]
			}
		}
		for _, sd := range sides {
			if audit {
				a, err := auditAll(sd.bin, sd.db, n)
				if err != nil {
					return err
				}
				*sd.audits = append(*sd.audits, a)
			}
		}
		for _, r := range append(reportNames, "packet") {
			for _, sd := range sides {
				if reports {
					t, err := reportTime(sd.bin, sd.db, r)
					if err != nil {
						return err
					}
					sd.reports[r] = append(sd.reports[r], t)
				}
			}
		}
		if zipped { // last: it replaces the ledger the audit and reports read
			z, err := timedImport(bin, dir, zipPath, n)
			if err != nil {
				return err
			}
			zips = append(zips, z)
		}
	}
	mb, mo := median(base), median(plain)
	ratio := func(s sample) string { return fmt.Sprintf("%.2f", s.wall.Seconds()/mb.wall.Seconds()) }
	printRow(n, f.name, "sqlite3 .import", mb, "1.00", "")
	printRow(n, f.name, "gpubill import", mo, ratio(mo), "")
	if against != "" {
		ma := median(others)
		printRow(n, f.name, "-against import", ma, ratio(ma),
			fmt.Sprintf("(gpubill import / -against: %.2f)", mo.wall.Seconds()/ma.wall.Seconds()))
	}
	if zipped {
		mz := median(zips)
		printRow(n, f.name, "gpubill import (zip)", mz, ratio(mz),
			fmt.Sprintf("(zip / gpubill import: %.2f)", mz.wall.Seconds()/mo.wall.Seconds()))
	}
	if audit {
		// Ratios of the medians; each audit ran right after its import.
		ma := median(audits)
		printRow(n, f.name, "gpubill audit (all)", ma, ratio(ma),
			fmt.Sprintf("(audit / gpubill import: %.2f)", ma.wall.Seconds()/mo.wall.Seconds()))
		if len(theirAudits) > 0 {
			mt := median(theirAudits)
			printRow(n, f.name, "-against audit (all)", mt, ratio(mt),
				fmt.Sprintf("(gpubill audit / -against: %.2f)", ma.wall.Seconds()/mt.wall.Seconds()))
		}
	}
	for _, r := range append(reportNames, "packet") {
		if t := reportTimes[r]; len(t) > 0 && r == "packet" {
			printRow(n, f.name, "packet 2026-10", median(t), "", "(target: 10 s, 500 MB at a million rows)")
		} else if len(t) > 0 {
			printRow(n, f.name, "report "+r+" 2026-10", median(t), "", "(target: 1 s at 297,600 rows)")
		}
		if t := theirReports[r]; len(t) > 0 {
			printRow(n, f.name, "-against "+r+" 2026-10", median(t), "",
				fmt.Sprintf("(gpubill / -against: %.2f)", median(reportTimes[r]).wall.Seconds()/median(t).wall.Seconds()))
		}
	}
	return nil
}

// printHeader prints the header of a results table; what names its third
// column.
func printHeader(what string) {
	fmt.Printf("%-9s %-9s %-27s %10s %10s %8s\n", "rows", "format", what, "median s", "peak MB", "ratio")
}

// printRow prints one line of the results table: the median wall time and
// peak RSS of s, its ratio to the baseline and a note ("" for none).
func printRow(rows int, format, what string, s sample, ratio, note string) {
	line := fmt.Sprintf("%-9d %-9s %-27s %10.2f %10.1f %8s", rows, format, what, s.wall.Seconds(), float64(s.rssKB)/1024, ratio)
	if note != "" {
		line += "  " + note
	}
	fmt.Println(line)
}

// reportNames are the reports -reports times.
var reportNames = []string{"spend", "findings", "gpuhour", "whatif", "replay", "instances", "refunds"}

// reportTime runs one report of the generated data's first month; name
// "packet" writes the month's reimbursement packet (to a file beside db,
// removed afterwards).
func reportTime(bin, db, name string) (sample, error) {
	if name == "packet" {
		out := filepath.Join(filepath.Dir(db), "packet.xlsx")
		defer os.Remove(out)
		s, err := measure(exec.Command(bin, "packet", "--db", db, "--month", "2026-10", "-o", out))
		if err != nil {
			return s, fmt.Errorf("gpubill packet: %w", err)
		}
		return s, nil
	}
	s, err := measure(exec.Command(bin, "report", name, "--db", db, "--month", "2026-10", "--format", "json"))
	if err != nil {
		return s, fmt.Errorf("gpubill report %s: %w", name, err)
	}
	return s, nil
}

// auditAll runs gpubill audit on every month the generated bill of n rows
// covers (WriteSampleFleetCSV puts row i in hour i/instances from
// 2026-10-01) and returns the summed wall time and the largest peak RSS.
func auditAll(bin, db string, n int) (sample, error) {
	var total sample
	first := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	last := first.Add(time.Duration(max(n-1, 0)/instances) * time.Hour)
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

// timedImport is timed of `gpubill import` of path into dir's ours.db;
// afterwards (untimed) the ledger must hold rows line items, so that a file
// read only in part or not at all (a zip member passed over) is not taken
// for a fast import.
func timedImport(bin, dir, path string, rows int) (sample, error) {
	db := filepath.Join(dir, "ours.db")
	cmd := exec.Command(bin, "import", "--db", db, "--format", "json", path)
	cmd.Env = append(os.Environ(), "GPUBILL_DB=")
	s, err := timed(dir, cmd)
	if err != nil {
		return s, fmt.Errorf("gpubill import: %w", err)
	}
	out, err := exec.Command("sqlite3", db, "SELECT count(*) FROM line_items").Output()
	if err != nil {
		return s, fmt.Errorf("counting the imported line items: %w", err)
	}
	if got := strings.TrimSpace(string(out)); got != strconv.Itoa(rows) {
		return s, fmt.Errorf("gpubill import %s: %s line items in the ledger, want %d", filepath.Base(path), got, rows)
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

// generate writes the bill of rows rows that write makes with seed 1 to path.
func generate(path string, rows int, write func(io.Writer, int, int64) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := write(bw, rows, 1); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// zipFile writes a ZIP archive at dst holding src as its one member,
// compressed with Deflate (as the vendors' consoles deliver large bills).
func zipFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	zw := zip.NewWriter(bw)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: filepath.Base(src), Method: zip.Deflate, Modified: time.Now()})
	if err == nil {
		_, err = io.Copy(w, in)
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

func numCPU() int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\nprocessor") + 1
}

// copyFile copies the database at src (closed: no WAL) to dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(dst + suffix)
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

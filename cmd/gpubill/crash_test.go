package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/ledger"
)

// The tests in this file run the real gpubill binary in processes of its
// own, built into a temporary folder: SIGKILL and file locks between
// processes cannot be tested in-process. They are skipped under -short.
//
// Environment (for a long run; the defaults are sized for CI):
//
//	GPUBILL_CRASH_KILLS  kills of TestImportSurvivesSIGKILL (default 8)
//	GPUBILL_CRASH_SEED   seed of the kill times (default 1)
//	GPUBILL_CRASH_ROWS   rows of the generated bill (default 200000)

// gpubillBinary builds the gpubill binary into the test's temporary folder
// (the build cache makes the second build of a run a link only).
func gpubillBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the gpubill binary: skipped under -short")
	}
	bin := filepath.Join(t.TempDir(), "gpubill")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q is not a positive number", name, s)
	}
	return n
}

// writeBill writes a generated template bill of rows rows (seed seed) to path.
func writeBill(t *testing.T, path string, rows int, seed int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := ingest.WriteSampleTemplateCSV(w, rows, seed); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// gpubillCmd is the binary run with the ledger db and args.
func gpubillCmd(bin, db string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, append([]string{"--db", db}, args...)...)
	cmd.Env = append(os.Environ(), "LANG=en_US.UTF-8")
	return cmd
}

// importState is what a ledger holds of each imported file.
type importState struct {
	records int   // import records of the file
	rowsNew int64 // their rows_new
	held    int64 // line items that carry their ids
}

// checkLedger asserts that the ledger at path is sound (doctor: integrity,
// foreign keys, orphans, import records against their rows, no unfinished
// import) and returns what it holds per imported path.
func checkLedger(t *testing.T, path string) map[string]importState {
	t.Helper()
	ctx := context.Background()
	r, err := ledger.Doctor(ctx, path)
	if err != nil {
		t.Fatalf("doctor: %v", err)
	}
	for _, c := range r.Checks {
		if c.Status == ledger.CheckProblem {
			t.Errorf("ledger check %s: %s", c.Name, c.Detail)
		}
	}
	out := map[string]importState{}
	if r.SchemaVersion == 0 {
		// Killed before the first migration committed: an empty database
		// (doctor warns), holding no file.
		return out
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT im.path, im.rows_new, (SELECT count(*) FROM line_items li WHERE li.import_id = im.id)
		FROM imports im`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		var n, held int64
		if err := rows.Scan(&p, &n, &held); err != nil {
			t.Fatal(err)
		}
		s := out[filepath.Base(p)]
		s.records++
		s.rowsNew += n
		s.held += held
		out[filepath.Base(p)] = s
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestImportSurvivesSIGKILL(t *testing.T) {
	killImports(t, true, envInt(t, "GPUBILL_CRASH_KILLS", 8))
}

// Into a ledger without line items, a big import runs on a rollback journal
// instead of the WAL (ledger.ImportOptions): kills must leave that ledger
// sound and empty too, and back in WAL once it is opened again.
func TestBulkImportIntoEmptyLedgerSurvivesSIGKILL(t *testing.T) {
	killImports(t, false, max(envInt(t, "GPUBILL_CRASH_KILLS", 8)/2, 3))
}

// killImports imports a big generated bill kills times, each killed at a
// random moment of it, into a ledger that holds a small file first (earlier)
// or nothing, and checks after each kill that the ledger holds all of the
// big file or none of it.
func killImports(t *testing.T, earlier bool, kills int) {
	bin := gpubillBinary(t)
	seed := envInt(t, "GPUBILL_CRASH_SEED", 1)
	rows := envInt(t, "GPUBILL_CRASH_ROWS", 200000)
	dir := t.TempDir()
	big := filepath.Join(dir, "big.csv")
	small := filepath.Join(dir, "small.csv")
	writeBill(t, big, rows, 7)
	writeBill(t, small, 50, 8) // a file already in the ledger, which must survive every kill
	db := filepath.Join(dir, "ledger.db")
	if earlier {
		if out, err := gpubillCmd(bin, db, "import", small).CombinedOutput(); err != nil {
			t.Fatalf("import %s: %v\n%s", small, err, out)
		}
	}

	// How long a whole import takes here, into a scratch ledger: kills are
	// spread over that time (reading, inserting, rebuilding indexes, commit).
	t0 := time.Now()
	if out, err := gpubillCmd(bin, filepath.Join(dir, "scratch.db"), "import", small, big).CombinedOutput(); err != nil {
		t.Fatalf("calibration import: %v\n%s", err, out)
	}
	full := time.Since(t0)
	t.Logf("a whole import of %d rows takes %v", rows, full)

	rng := rand.New(rand.NewPCG(uint64(seed), 42))
	killed, completed := 0, 0
	for i := 0; i < kills; i++ {
		delay := time.Duration(rng.Int64N(int64(full)))
		cmd := gpubillCmd(bin, db, "import", big)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done: // finished before its kill
			if err != nil {
				t.Fatalf("run %d: import failed without a kill: %v\n%s", i, err, out.String())
			}
			completed++
		case <-time.After(delay):
			if err := cmd.Process.Kill(); err != nil { // SIGKILL
				t.Fatal(err)
			}
			<-done
			killed++
		}
		got := checkLedger(t, db)
		if s := got["small.csv"]; earlier && (s.records != 1 || s.held != 50) {
			t.Fatalf("run %d (kill after %v): the earlier file has %d record(s) and %d rows, want 1 and 50", i, delay, s.records, s.held)
		}
		s := got["big.csv"]
		switch {
		case s.records == 0 && s.held == 0: // none of the file
		case s.held == int64(rows) && s.rowsNew == int64(rows): // all of it (once)
		default:
			t.Fatalf("run %d (kill after %v): the killed import left %d record(s) holding %d of %d rows",
				i, delay, s.records, s.held, rows)
		}
	}
	t.Logf("%d runs: %d killed, %d finished before their kill, 0 failures", kills, killed, completed)
	if killed == 0 {
		t.Error("no run was killed: the test proved nothing")
	}

	// A rerun after the kills imports the file (or finds it all there).
	out, err := gpubillCmd(bin, db, "import", "--format", "json", big).CombinedOutput()
	if err != nil {
		t.Fatalf("rerun import: %v\n%s", err, out)
	}
	got := checkLedger(t, db)
	if s := got["big.csv"]; s.held != int64(rows) {
		t.Errorf("after the rerun the ledger holds %d rows of big.csv, want %d", s.held, rows)
	}
	if !strings.Contains(string(out), `"status": "ok"`) {
		t.Errorf("rerun: got %s, want status ok", out)
	}
	if mode := journalMode(t, db); mode != "wal" {
		t.Errorf("after the rerun the ledger's journal mode is %s, want wal", mode)
	}
}

// journalMode is the journal mode the ledger file at path is in.
func journalMode(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	return mode
}

func TestConcurrentImportsAndAuditWait(t *testing.T) {
	bin := gpubillBinary(t)
	rows := envInt(t, "GPUBILL_CRASH_ROWS", 200000)
	dir := t.TempDir()
	big := filepath.Join(dir, "big.csv")
	small := filepath.Join(dir, "small.csv")
	writeBill(t, big, rows, 7)
	writeBill(t, small, 50, 8)
	db := filepath.Join(dir, "ledger.db")
	if out, err := gpubillCmd(bin, db, "import", filepath.Join(dir, "small.csv")).CombinedOutput(); err != nil {
		t.Fatalf("first import: %v\n%s", err, out)
	}

	first := gpubillCmd(bin, db, "import", big)
	var firstOut bytes.Buffer
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	firstDone := make(chan error, 1)
	go func() { firstDone <- first.Wait() }()
	time.Sleep(500 * time.Millisecond) // the big import holds the write lock by now

	// A second import and an audit start while the big import runs.
	other := filepath.Join(dir, "other.csv")
	if err := os.WriteFile(other, []byte("平台,实例ID,费用类型,开始时间,结束时间,应付金额\nAutoDL,i-zz,GPU计算,2026-10-01 08:00,2026-10-01 09:00,1.88\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	type result struct {
		name string
		out  []byte
		err  error
		at   time.Time
	}
	results := make(chan result, 2)
	for _, args := range [][]string{{"import", other}, {"audit", "--month", "2026-10"}} {
		go func() {
			out, err := gpubillCmd(bin, db, args...).CombinedOutput()
			results <- result{args[0], out, err, time.Now()}
		}()
	}
	var firstEnd time.Time
	if err := <-firstDone; err != nil {
		t.Fatalf("big import: %v\n%s", err, firstOut.String())
	}
	firstEnd = time.Now()
	for i := 0; i < 2; i++ {
		r := <-results
		if r.err != nil {
			t.Errorf("%s beside a running import: %v\n%s", r.name, r.err, r.out)
		}
		if bytes.Contains(r.out, []byte("locked")) || bytes.Contains(r.out, []byte("busy")) {
			t.Errorf("%s: got %s, want no lock error", r.name, r.out)
		}
		if r.name == "import" && r.at.Before(firstEnd.Add(-time.Second)) {
			t.Logf("the second import ended %v before the first: did the first hold the lock yet?", firstEnd.Sub(r.at))
		}
	}
	got := checkLedger(t, db)
	if s := got["big.csv"]; s.held != int64(rows) {
		t.Errorf("big.csv: got %d rows, want %d", s.held, rows)
	}
	if s := got["other.csv"]; s.held != 1 {
		t.Errorf("other.csv: got %d rows, want 1", s.held)
	}
}

// TestConcurrentReadersAndWriters runs two audits and four reports while
// a big import runs (and the audits, which store findings, run beside
// each other). Every command must finish without a lock error, and print
// what a ledger in one consistent state gives: each output is the one of
// the ledger before the import or after it, byte for byte, as a ledger
// built step by step prints it. The reports are those that read line
// items only (instances and refunds also show the stored findings, which
// the audits change meanwhile). GPUBILL_CONC_ROWS sizes the big bill.
func TestConcurrentReadersAndWriters(t *testing.T) {
	bin := gpubillBinary(t)
	rows := envInt(t, "GPUBILL_CONC_ROWS", 30000)
	dir := t.TempDir()
	big, small := filepath.Join(dir, "big.csv"), filepath.Join(dir, "small.csv")
	writeBill(t, big, rows, 7)
	writeBill(t, small, 400, 8)
	readers := [][]string{
		{"audit", "--month", "2026-10", "--format", "json"},
		{"report", "spend", "--month", "2026-10", "--format", "json"},
		{"report", "gpuhour", "--month", "2026-10", "--format", "json"},
		{"report", "whatif", "--month", "2026-10", "--format", "json"},
	}
	run := func(db string, args ...string) []byte {
		out, err := gpubillCmd(bin, db, args...).Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out
	}
	// What each command prints before the big import and after it.
	ref := filepath.Join(dir, "ref.db")
	run(ref, "import", small)
	want := make([][2][]byte, len(readers))
	for i, args := range readers {
		want[i][0] = run(ref, args...)
	}
	run(ref, "import", big)
	for i, args := range readers {
		want[i][1] = run(ref, args...)
	}

	db := filepath.Join(dir, "ledger.db")
	run(db, "import", small)
	imp := gpubillCmd(bin, db, "import", big)
	var impOut bytes.Buffer
	imp.Stdout, imp.Stderr = &impOut, &impOut
	if err := imp.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the import holds the write lock by now
	type result struct {
		i        int
		out, err []byte
		runErr   error
	}
	jobs := []int{0, 0, 1, 1, 2, 3} // indexes of readers: two audits side by side, spend twice
	results := make(chan result, len(jobs))
	for _, i := range jobs {
		go func() {
			cmd := gpubillCmd(bin, db, readers[i]...)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err := cmd.Run()
			results <- result{i, out.Bytes(), errOut.Bytes(), err}
		}()
	}
	if err := imp.Wait(); err != nil {
		t.Fatalf("big import: %v\n%s", err, impOut.String())
	}
	before := 0
	for range jobs {
		r := <-results
		name := strings.Join(readers[r.i][:2], " ")
		if r.runErr != nil {
			t.Errorf("%s beside a running import: %v\n%s", name, r.runErr, r.err)
			continue
		}
		if bytes.Contains(r.err, []byte("locked")) || bytes.Contains(r.err, []byte("busy")) {
			t.Errorf("%s: stderr %s, want no lock error", name, r.err)
		}
		if bytes.Equal(r.out, want[r.i][0]) {
			before++
		} else if !bytes.Equal(r.out, want[r.i][1]) {
			t.Errorf("%s printed neither the ledger before the import nor after it (%d bytes; want %d or %d)",
				name, len(r.out), len(want[r.i][0]), len(want[r.i][1]))
		}
	}
	t.Logf("%d of %d commands printed the ledger before the import, the others after it", before, len(jobs))
	if got := checkLedger(t, db); got["big.csv"].held != int64(rows) || got["small.csv"].held != 400 {
		t.Errorf("ledger holds %+v, want %d rows of big.csv and 400 of small.csv", got, rows)
	}
	// After all of it, the stored findings are those of the ledger's data
	// (an audit stores what it found in the data it read: none may store
	// the findings of the ledger before the import after it), and every
	// command prints what the ledger built step by step does.
	findings := []string{"report", "findings", "--month", "2026-10", "--format", "json"}
	if got, want := run(db, findings...), run(ref, findings...); !bytes.Equal(got, want) {
		t.Errorf("stored findings after the concurrent run differ from the step-by-step ledger's (%d bytes, want %d)", len(got), len(want))
	}
	for i, args := range readers {
		if got := run(db, args...); !bytes.Equal(got, want[i][1]) {
			t.Errorf("%v after the concurrent run differs from the step-by-step ledger's", args)
		}
	}
}

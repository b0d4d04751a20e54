package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteOut: -o FILE is opened at the first byte, so a report that
// fails before it leaves FILE as it was; a report that writes nothing
// still leaves FILE, empty; stdout gets what is written, flushed.
func TestWriteOut(t *testing.T) {
	bad := errors.New("the report failed")
	path := filepath.Join(t.TempDir(), "report.json")
	a := &app{output: path}
	check := func(want string) {
		t.Helper()
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Fatalf("%s holds %q (%v), want %q", path, got, err, want)
		}
	}
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := a.writeOut(func(io.Writer) error { return bad }); !errors.Is(err, bad) {
		t.Fatalf("failed before the first byte: %v", err)
	}
	check("old")
	big := strings.Repeat("新", 200_000) // past the buffer: written in pieces
	if err := a.writeOut(func(w io.Writer) error { _, err := io.WriteString(w, big); return err }); err != nil {
		t.Fatal(err)
	}
	check(big)
	if err := a.writeOut(func(io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	check("")
	if err := a.writeOut(func(w io.Writer) error { io.WriteString(w, big); return bad }); !errors.Is(err, bad) {
		t.Fatalf("failed midway: %v", err)
	}

	var out bytes.Buffer
	a = &app{stdout: &out}
	if err := a.writeOut(func(w io.Writer) error { _, err := io.WriteString(w, "{}\n"); return err }); err != nil || out.String() != "{}\n" {
		t.Fatalf("stdout got %q (%v)", out.String(), err)
	}
	a = &app{output: filepath.Join(t.TempDir(), "missing", "report.json")}
	if err := a.writeOut(func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err == nil {
		t.Fatal("a folder that does not exist: no error")
	}
}

// TestOutputFilesPrivate: a file written for -o holds ledger data and is
// created readable by its owner only, as the ledger is; the packet and
// its cover too.
func TestOutputFilesPrivate(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ledger.db")
	bill := filepath.Join(dir, "a.csv")
	if err := os.WriteFile(bill, []byte("平台,实例ID,费用类型,开始时间,结束时间,应付金额\nAutoDL,i-1,GPU计算,2026-10-01 08:00,2026-10-01 09:00,1.88\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"--db", db, "import", bill}, nil, &out, &errb); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errb.String())
	}
	for _, args := range [][]string{
		{"report", "spend", "--month", "2026-10", "-o", filepath.Join(dir, "spend.tsv")},
		{"report", "spend", "--month", "2026-10", "-o", filepath.Join(dir, "spend.xlsx")},
		{"audit", "--month", "2026-10", "-o", filepath.Join(dir, "findings.json"), "--format", "json"},
		{"packet", "--month", "2026-10", "-o", filepath.Join(dir, "packet.xlsx"), "--cover", filepath.Join(dir, "cover.html")},
	} {
		if code := run(t.Context(), append([]string{"--db", db}, args...), nil, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
	}
	for _, name := range []string{"spend.tsv", "spend.xlsx", "findings.json", "packet.xlsx", "cover.html"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != 0o600 {
			t.Errorf("%s: mode %o, want 600 (the ledger's)", name, got)
		}
	}
}

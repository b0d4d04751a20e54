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

package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/internal/testkit"
)

// TestImportEveryFormatInOneFolder is issue 3's "a folder with all of them
// plus payments and a zip imports in one command; rerunning it adds
// nothing": every good sample of every format, in one folder with the same
// samples again inside a ZIP archive, imports without naming a format, and a
// second run adds nothing.
func TestImportEveryFormatInOneFolder(t *testing.T) {
	dir := t.TempDir()
	var zipped []zipEntry
	formats := map[string]bool{}
	for _, f := range registered() {
		entries, err := os.ReadDir(filepath.Join("testdata", f.ID))
		if err != nil {
			continue // formats without samples are checked by TestGolden
		}
		for _, e := range entries {
			name := e.Name()
			ext := strings.ToLower(filepath.Ext(name))
			if strings.HasPrefix(name, "bad_") || (ext != ".csv" && ext != ".xlsx" && ext != ".json") {
				continue
			}
			b, err := os.ReadFile(filepath.Join("testdata", f.ID, name))
			if err != nil {
				t.Fatal(err)
			}
			// keep the file name: console copies take their platform from it
			if err := os.MkdirAll(filepath.Join(dir, f.ID), 0o700); err != nil {
				t.Fatal(err)
			}
			writeTemp(t, filepath.Join(dir, f.ID), name, b)
			zipped = append(zipped, zipEntry{f.ID + "/" + name, b})
			formats[f.ID] = true
		}
	}
	if external, err := filepath.Glob(filepath.Join("..", "..", "shared", "external", "payments", "*")); err == nil {
		os.MkdirAll(filepath.Join(dir, "payments"), 0o700)
		for _, p := range external {
			if ext := filepath.Ext(p); ext == ".csv" || ext == ".xlsx" {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				writeTemp(t, filepath.Join(dir, "payments"), filepath.Base(p), b)
			}
		}
	}
	writeTemp(t, dir, "zz-the-same-again.zip", makeZip(t, zipped...))
	if len(formats) < 10 {
		t.Fatalf("only %d formats have samples: %v", len(formats), formats)
	}

	db := testkit.OpenLedger(t)
	ctx := context.Background()
	first, err := ImportPaths(ctx, db, []string{dir}, Options{TZ: shanghai})
	if err != nil {
		t.Fatalf("first import: %v", err)
	}
	seen := map[string]bool{}
	newRows := 0
	for _, r := range first {
		for _, id := range strings.Split(r.Format, ",") {
			seen[id] = true
		}
		newRows += r.New
		if inZip := strings.Contains(r.Path, "zz-the-same-again.zip/"); inZip && r.New != 0 {
			t.Errorf("%s: the zipped copy added %d rows, want 0 (all duplicates)", r.Path, r.New)
		}
	}
	for id := range formats {
		if !seen[id] {
			t.Errorf("format %s was not recognised in the folder", id)
		}
	}
	if newRows == 0 {
		t.Fatal("nothing imported")
	}
	second, err := ImportPaths(ctx, db, []string{dir}, Options{TZ: shanghai})
	if err != nil {
		t.Fatalf("second import: %v", err)
	}
	if len(second) != len(first) {
		t.Errorf("second run saw %d files, first %d", len(second), len(first))
	}
	for _, r := range second {
		if r.New != 0 {
			t.Errorf("rerun: %s added %d rows", r.Path, r.New)
		}
	}
	t.Logf("%d files and members, %d formats, %d rows", len(first), len(seen), newRows)
}

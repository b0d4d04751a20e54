package testkit

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// RewriteCSV copies the CSV at path into a temporary folder under the same
// name, each cell of column col passed through f (row counts from 1 after
// the header; a column not in the header is added, its cells f("")), and
// returns the copy's path.
func RewriteCSV(t testing.TB, path, col string, f func(row int, v string) string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	at := slices.Index(recs[0], col)
	if at < 0 {
		at = len(recs[0])
		recs[0] = append(recs[0], col)
		for i := 1; i < len(recs); i++ {
			recs[i] = append(recs[i], "")
		}
	}
	for i := 1; i < len(recs); i++ {
		recs[i][at] = f(i, recs[i][at])
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	fh, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := csv.NewWriter(fh).WriteAll(recs); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

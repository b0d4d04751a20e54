package ingest

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryLineEndAndShortRow (issue 33) derives files from every CSV of
// testdata/scenario, one per vendor format. Each line-end style (LF,
// CR LF, CR alone, LF CR, no final line end) must import the same items
// with the same amounts as LF. A file that mixes LF, CR LF and CR, and a
// row that lost a cell at its start, middle or end (in the first, a
// middle and the last row), must be refused naming the file and row: a
// lost or run-together line must never shift amounts into other columns.
func TestEveryLineEndAndShortRow(t *testing.T) {
	src, _ := filepath.Glob("../testdata/scenario/2026-10/*.csv")
	if len(src) < 7 {
		t.Fatalf("scenario bills: %d", len(src))
	}
	dir := t.TempDir()
	scan := func(name string, data []byte) (Result, error) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return Scan(context.Background(), path, Options{TZ: shanghai, Preview: 1 << 20})
	}
	items := func(r Result) string {
		var b strings.Builder
		for _, it := range r.Preview {
			fmt.Fprintf(&b, "%s %s %s %s\n", it.ResourceID, it.ChargePeriodStart.UTC().Format("2006-01-02T15:04"), it.BilledCost, it.Currency)
		}
		return b.String()
	}
	for _, f := range src {
		orig, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(f)
		lines := bytes.Split(bytes.ReplaceAll(orig, []byte("\r\n"), []byte("\n")), []byte("\n"))
		want, err := scan("lf-"+base, bytes.Join(lines, []byte("\n")))
		if err != nil || want.Read == 0 || want.Read != len(want.Preview) {
			t.Fatalf("%s: %v (read %d, items %d)", base, err, want.Read, len(want.Preview))
		}
		for style, data := range map[string][]byte{
			"crlf":  bytes.Join(lines, []byte("\r\n")),
			"cr":    bytes.Join(lines, []byte("\r")),
			"lfcr":  bytes.Join(lines, []byte("\n\r")),
			"noeol": bytes.TrimRight(bytes.Join(lines, []byte("\n")), "\n"),
		} {
			got, err := scan(style+"-"+base, data)
			if err != nil || got.Read != want.Read || items(got) != items(want) {
				t.Errorf("%s, %s line ends: %v, read %d of %d, items equal %v", base, style, err, got.Read, want.Read, items(got) == items(want))
			}
		}
		var mixed []byte
		for i, l := range lines {
			mixed = append(mixed, l...)
			if i < len(lines)-1 {
				mixed = append(mixed, []string{"\n", "\r\n", "\r"}[i%3]...)
			}
		}
		if _, err := scan("mixed-"+base, mixed); err == nil || !strings.Contains(err.Error(), "mixed-"+base+":") ||
			!strings.Contains(err.Error(), "mixes line ends") {
			t.Errorf("%s, mixed line ends: got %v, want a refusal naming the file, row and the mixed line ends", base, err)
		}

		// The header is the first line with more than a few separators
		// (the template files start with a title line).
		head := 0
		for bytes.Count(lines[head], []byte(",")) < 3 {
			head++
		}
		rows, err := csv.NewReader(bytes.NewReader(bytes.Join(lines[head:], []byte("\n")))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		n := len(rows[0])
		for _, cut := range []struct {
			where    string
			row, col int
		}{{"first row, first cell", 1, 0}, {"middle row, middle cell", len(rows) / 2, n / 2}, {"last row, last cell", len(rows) - 1, n - 1}} {
			var b bytes.Buffer
			b.Write(bytes.Join(lines[:head], []byte("\n")))
			if head > 0 {
				b.WriteString("\n")
			}
			w := csv.NewWriter(&b)
			for i, r := range rows {
				if i == cut.row {
					r = append(append([]string{}, r[:cut.col]...), r[cut.col+1:]...)
				}
				w.Write(r)
			}
			w.Flush()
			name := "short-" + base
			wantErr := fmt.Sprintf("%s:%d: row %d has %d cells, the header has %d", name, head+cut.row+1, head+cut.row+1, n-1, n)
			if _, err := scan(name, b.Bytes()); err == nil || !strings.Contains(err.Error(), wantErr) {
				t.Errorf("%s, %s lost: got %v, want %q", base, cut.where, err, wantErr)
			}
		}
	}
}

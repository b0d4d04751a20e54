package main

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

// lineKeyBills are vendor bills whose lines carry a vendor line id
// (LineItem.LineKey), with the column changed in each's respelled copy
// (respelled).
var lineKeyBills = []struct{ path, col string }{
	{"../../ingest/testdata/tencentcloud-detail/detail_202610.csv", "组件刊例价"},
	{"../../ingest/testdata/volcengine-bill/bill_api.csv", "Price"},
}

// TestExportKeepsLineKeys: the export carries each line's second dedupe
// key (x_LineKey) as stored, the FOCUS importer stores it back unchanged,
// and so the vendor's bill of the month, spelt differently from the one
// the exported ledger holds (a field hash of its own, as a fetch of the
// month has), adds nothing to the round-tripped ledger.
func TestExportKeepsLineKeys(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := filepath.Join(dir, "a.db")
	var bills, other []string
	for _, bl := range lineKeyBills {
		bills = append(bills, bl.path)
		other = append(other, testkit.RewriteCSV(t, bl.path, bl.col, func(int, string) string { return "1.5" }))
	}
	cli(t, append([]string{"--db", a, "import"}, bills...)...)
	want := storedLineKeys(t, a)
	var n int
	for _, k := range want {
		if k != "" {
			n++
		}
	}
	if n < 10 || !strings.HasPrefix(want[len(want)-1], "volcengine:") {
		t.Fatalf("the bills stored %d line keys (%q): the test needs them", n, want)
	}
	for _, format := range []string{"focus-csv", "focus-parquet"} {
		t.Run(format, func(t *testing.T) {
			out := filepath.Join(dir, format)
			cli(t, "--db", a, "export", "--format", format, "--month", "2026-10", "-o", out)
			if format == "focus-csv" {
				checkLineKeyColumn(t, a, filepath.Join(out, "billing_period=2026-10", "part-00000.csv"))
			}
			b := filepath.Join(dir, format+".db")
			cli(t, "--db", b, "import", out)
			if got := storedLineKeys(t, b); !slices.Equal(got, want) {
				t.Errorf("line keys after the round trip:\ngot  %q\nwant %q", got, want)
			}
			db, err := ledger.Open(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, p := range other {
				res, err := ingest.ImportFile(ctx, db, p, ingest.Options{DryRun: true})
				if err != nil {
					t.Fatal(err)
				}
				if res.New != 0 {
					t.Errorf("%s into the round-tripped ledger: %d new rows, want 0", filepath.Base(p), res.New)
				}
			}
			// The test can fail: by the field hash alone every respelled
			// row is new.
			if _, err := db.SQL().Exec(`UPDATE line_items SET line_key = ''`); err != nil {
				t.Fatal(err)
			}
			for _, p := range other {
				res, err := ingest.ImportFile(ctx, db, p, ingest.Options{DryRun: true})
				if err != nil {
					t.Fatal(err)
				}
				if res.New == 0 || res.New != res.Read-res.Skipped {
					t.Errorf("%s without line keys: %d of %d rows new, want all", filepath.Base(p), res.New, res.Read-res.Skipped)
				}
			}
		})
	}
}

// checkLineKeyColumn checks the x_LineKey column of an export of ledger
// path: right after x_RowKey, and on each row the stored line_key of the
// line x_LineItemId names.
func checkLineKeyColumn(t *testing.T, path, csvPath string) {
	t.Helper()
	fh, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	recs, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	at, id := slices.Index(recs[0], "x_LineKey"), slices.Index(recs[0], "x_LineItemId")
	if at < 0 || id < 0 || recs[0][at-1] != "x_RowKey" {
		t.Fatalf("header %q: want x_LineKey right after x_RowKey", recs[0])
	}
	byID := map[int64]string{}
	db, err := ledger.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.EachLineItem(context.Background(), ledger.Filter{}, ledger.Read{NoRaw: true}, func(li *ledger.LineItem) error {
		byID[li.ID] = li.LineKey
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(recs)-1 != len(byID) {
		t.Fatalf("%d rows exported, the ledger holds %d", len(recs)-1, len(byID))
	}
	for _, r := range recs[1:] {
		n, err := strconv.ParseInt(r[id], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if want, ok := byID[n]; !ok || r[at] != want {
			t.Errorf("line %d: x_LineKey %q, want %q", n, r[at], want)
		}
	}
}

// storedLineKeys lists the line keys of the ledger at path, sorted.
func storedLineKeys(t *testing.T, path string) []string {
	t.Helper()
	db, err := ledger.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []string
	if err := db.EachLineItem(context.Background(), ledger.Filter{}, ledger.Read{NoRaw: true}, func(li *ledger.LineItem) error {
		out = append(out, li.LineKey)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

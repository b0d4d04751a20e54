package ingest

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// exportCase is what one native cloud export must import as: its format,
// its row count, its billed total per currency (the sum of the billed
// column the format documents, worked out by hand from the file), the
// count of lines per kind and pricing model, and the GPU-hours per GPU model
// (billed hours × GPUs per instance).
type exportCase struct {
	file     string
	format   string
	rows     int
	totals   map[string]string
	kinds    map[string]int
	pricing  map[string]int
	gpuHours map[string]string
}

// checkExport imports tc.file into a fresh ledger, checks what it holds,
// then imports it again and checks that nothing was added.
func checkExport(t *testing.T, tc exportCase) []ledger.LineItem {
	t.Helper()
	db := testkit.OpenLedger(t)
	res, err := ImportFile(context.Background(), db, tc.file, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != tc.format || res.New != tc.rows {
		t.Fatalf("format %q, %d new rows; want %q, %d", res.Format, res.New, tc.format, tc.rows)
	}
	items := storedItems(t, db)
	totals := map[string]decimal.Decimal{}
	kinds, pricing := map[string]int{}, map[string]int{}
	hours := map[string]decimal.Decimal{}
	for _, li := range items {
		totals[li.Currency] = totals[li.Currency].Add(li.BilledCost)
		kinds[li.Kind]++
		pricing[li.PricingModel]++
		if li.GPUModel != "" && li.PricingUnit == "hour" && li.PricingQuantity.Valid {
			n := int64(max(li.GPUCount, 1))
			hours[li.GPUModel] = hours[li.GPUModel].Add(li.PricingQuantity.Decimal.Mul(decimal.NewFromInt(n)))
		}
	}
	if got, want := fmtTotals(totals), fmtWant(tc.totals); got != want {
		t.Errorf("billed totals %s, want %s", got, want)
	}
	if got, want := fmtCounts(kinds), fmtCounts(tc.kinds); got != want {
		t.Errorf("kinds %s, want %s", got, want)
	}
	if tc.pricing != nil {
		if got, want := fmtCounts(pricing), fmtCounts(tc.pricing); got != want {
			t.Errorf("pricing models %s, want %s", got, want)
		}
	}
	if got, want := fmtTotals(hours), fmtWant(tc.gpuHours); got != want {
		t.Errorf("GPU-hours %s, want %s", got, want)
	}
	again, err := ImportFile(context.Background(), db, tc.file, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if again.New != 0 || again.Duplicate != tc.rows {
		t.Errorf("re-import: %d new, %d duplicate; want 0, %d", again.New, again.Duplicate, tc.rows)
	}
	if n := countRows(t, db, "line_items"); n != tc.rows {
		t.Errorf("after re-import the ledger holds %d line items, want %d", n, tc.rows)
	}
	return items
}

func fmtTotals(m map[string]decimal.Decimal) string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v.String())
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func fmtWant(m map[string]string) string {
	d := map[string]decimal.Decimal{}
	for k, v := range m {
		d[k] = decimal.RequireFromString(v)
	}
	return fmtTotals(d)
}

func fmtCounts(m map[string]int) string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+decimal.NewFromInt(int64(v)).String())
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// fuzzExportSeeds adds every sample of testdata/<format>/ to f.
func fuzzExportSeeds(f *testing.F, format string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", format, "*.csv"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// fuzzExport scans data as a file: whatever it holds, the result is what
// checkScan demands (an *InputError naming the file, or consistent counts
// and exact amounts).
func fuzzExport(f *testing.F) {
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := writeTemp(t, dir, "export.csv", data)
		res, err := Scan(context.Background(), path, Options{TZ: shanghai, Preview: 1 << 20})
		checkScan(t, path, res, err)
	})
}

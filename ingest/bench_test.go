package ingest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

// BenchmarkImportTemplateCSV imports a generated template CSV of 1M rows
// (GPUBILL_BENCH_ROWS changes it, e.g. to 100000 for a quick look) into a
// fresh ledger per iteration and reports rows/s. It runs only with -bench:
//
//	go test ./ingest -run '^$' -bench ImportTemplateCSV -benchtime 1x
func BenchmarkImportTemplateCSV(b *testing.B) {
	rows := testkit.BenchRows(b)
	dir := b.TempDir()
	path := filepath.Join(dir, "bill.csv")
	testkit.WriteFile(b, path, func(w io.Writer) error { return WriteSampleTemplateCSV(w, rows, 1) })
	if st, err := os.Stat(path); err == nil {
		b.SetBytes(st.Size())
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db, err := ledger.Open(ctx, filepath.Join(dir, "ledger"+strconv.Itoa(i)+".db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := ImportFile(ctx, db, path, Options{TZ: shanghai})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if res.New != rows {
			b.Fatalf("imported %d new rows, want %d", res.New, rows)
		}
		db.Close()
		os.Remove(db.Path())
		os.Remove(db.Path() + "-wal")
		os.Remove(db.Path() + "-shm")
		b.StartTimer()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkLineKeys numbers the dedupe keys of a million distinct line items
// in batches as the import makes them: the look-ups in the occurrence table
// (16 MB) are cache misses, which lineKeys lets overlap.
func BenchmarkLineKeys(b *testing.B) {
	const rows = 1_000_000
	items := make([]ledger.LineItem, batchSize)
	for i := range items {
		items[i] = ledger.LineItem{Provider: "autodl", BillingAccountID: "lab-0", ResourceID: "i-0001", Kind: ledger.KindCompute,
			ChargeCategory: ledger.CategoryUsage, BilledCost: decimal.New(132, -2), Currency: "CNY", PricingUnit: "hour"}
	}
	start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	for b.Loop() {
		k := newRowKeyer(rows)
		for n := 0; n < rows; n += batchSize {
			for i := range items {
				items[i].ChargePeriodStart = start.Add(time.Duration(n+i) * time.Second)
			}
			k.lineKeys(items, false)
		}
		if k.seen.n != rows {
			b.Fatalf("%d distinct keys, want %d", k.seen.n, rows)
		}
		k.close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
}

package ingest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

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

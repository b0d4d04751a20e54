package reports

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/rules"
)

// BenchmarkReports times each report of the first month (2026-10) of a
// ledger built as cmd/gpubill-bench builds it: GPUBILL_BENCH_ROWS (default
// 1,000,000) rows of ingest.WriteSampleTemplateCSV imported with
// ingest.ImportFile, that month audited and its findings stored (the
// findings, instances and refunds reports read them). The ledger is built
// once; each sub-benchmark reports items/s of the month and the report's
// s/op, so that a profile of one report is one command:
//
//	go test ./reports -run '^$' -bench Reports/gpuhour -benchtime 3x -cpuprofile /tmp/cpu.prof
func BenchmarkReports(b *testing.B) {
	rows := testkit.BenchRows(b)
	ctx := context.Background()
	dir := b.TempDir()
	path := filepath.Join(dir, "bill.csv")
	testkit.WriteFile(b, path, func(w io.Writer) error { return ingest.WriteSampleTemplateCSV(w, rows, 1) })
	db, err := ledger.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	cfg := rules.DefaultConfig()
	if res, err := ingest.ImportFile(ctx, db, path, ingest.Options{TZ: cfg.TZ}); err != nil || res.New != rows {
		b.Fatalf("import: %d new of %d (%v)", res.New, rows, err)
	}
	const month = "2026-10"
	if _, err := rules.AuditAndSave(ctx, db, month, cfg.TZ.String(), cfg); err != nil {
		b.Fatal(err)
	}
	var items int
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM line_items WHERE billing_period = ?`, month).Scan(&items); err != nil {
		b.Fatal(err)
	}
	for _, r := range []struct {
		name string
		run  func() error
	}{
		{"spend", func() error { _, err := Spend(ctx, db, SpendOptions{Month: month, TZ: cfg.TZ}); return err }},
		{"findings", func() error { _, err := Findings(ctx, db, month); return err }},
		{"gpuhour", func() error { _, err := GPUHours(ctx, db, GPUHourOptions{Month: month}); return err }},
		{"whatif", func() error {
			in, err := rules.LoadInput(ctx, db, month, cfg)
			if err == nil {
				_, err = WhatIf(in, WhatIfOptions{Month: month})
			}
			return err
		}},
		{"instances", func() error {
			_, err := Instances(ctx, db, InstancesOptions{Month: month, TZ: cfg.TZ, Policy: cfg.PolicyFor})
			return err
		}},
		{"refunds", func() error {
			_, err := Refunds(ctx, db, RefundsOptions{Month: month, TZ: cfg.TZ, Policy: cfg.PolicyFor})
			return err
		}},
	} {
		b.Run(r.name, func(b *testing.B) {
			for b.Loop() {
				if err := r.run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(items)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
}

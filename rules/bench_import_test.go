package rules

import (
	"bufio"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

// BenchmarkAuditVsImport is the measure of the issue "Rules engine": the
// audit of every line item of a ledger against the import of the same line
// items through the whole pipeline (detection, decoding, validation, dedupe,
// indexes), in one process. It writes the generated items of BenchmarkAudit
// (GPUBILL_BENCH_ROWS, default 1,000,000) as a gpubill template CSV, imports
// it with ingest.ImportFile, then audits each month the items cover and
// stores the findings with AuditAndSave, as `gpubill audit` does.
// It reports import-s, audit-s (all months), findings and audit/import.
//
// Two data sets: "month" puts every item in October 2026 (a month of a
// team's cloud bill: one audit reads each item once), "months" spreads them
// from 2026-09-20 to 2026-11-10 as BenchmarkAudit does (three audits, each
// also reading its neighbours' compute as context).
//
//	go test ./rules -run '^$' -bench AuditVsImport -benchtime 1x
func BenchmarkAuditVsImport(b *testing.B) {
	loc := mustLoc("Asia/Shanghai")
	for _, c := range []struct {
		name     string
		from, to time.Time
	}{
		{"month", time.Date(2026, 10, 1, 0, 0, 0, 0, loc), time.Date(2026, 11, 1, 0, 0, 0, 0, loc)},
		{"months", time.Date(2026, 9, 20, 0, 0, 0, 0, loc), time.Date(2026, 11, 10, 0, 0, 0, 0, loc)},
	} {
		b.Run(c.name, func(b *testing.B) { benchAuditVsImport(b, c.from, c.to) })
	}
}

func benchAuditVsImport(b *testing.B, from, to time.Time) {
	rows := testkit.BenchRows(b)
	dir := b.TempDir()
	path := filepath.Join(dir, "bench-bill.csv")
	months, err := writeBenchTemplate(path, rows, from, to)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	cfg := DefaultConfig()
	var importSecs, auditSecs float64
	findings := 0
	i := 0
	for b.Loop() {
		db, err := ledger.Open(ctx, filepath.Join(dir, "ledger"+strconv.Itoa(i)+".db"))
		if err != nil {
			b.Fatal(err)
		}
		i++
		start := time.Now()
		res, err := ingest.ImportFile(ctx, db, path, ingest.Options{TZ: cfg.tz()})
		if err != nil || res.New != rows {
			b.Fatalf("import: %d new of %d (%v)", res.New, rows, err)
		}
		importSecs += time.Since(start).Seconds()
		start = time.Now()
		findings = 0
		for _, m := range months {
			r, err := AuditAndSave(ctx, db, m, cfg.tz().String(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			findings += len(r.Findings)
		}
		auditSecs += time.Since(start).Seconds()
		db.Close()
	}
	b.ReportMetric(importSecs/float64(i), "import-s")
	b.ReportMetric(auditSecs/float64(i), "audit-s")
	b.ReportMetric(float64(findings), "findings")
	b.ReportMetric(auditSecs/importSecs, "audit/import")
}

// writeBenchTemplate writes the first n generated bench items as a gpubill
// template CSV (codes for platform, kind and pricing; Beijing wall-clock
// times) and returns the billing months they cover, in order.
func writeBenchTemplate(path string, n int, from, to time.Time) ([]string, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	w := csv.NewWriter(bw)
	loc := mustLoc("Asia/Shanghai")
	const layout = "2006-01-02 15:04:05"
	w.Write([]string{"平台", "账号", "实例ID", "费用类型", "计费方式", "GPU型号", "GPU数量", "开始时间", "结束时间",
		"实际开始", "实际结束", "计费数量", "单位", "单价", "应付金额", "币种", "说明"})
	seen := map[string]bool{}
	var months []string
	at := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.In(loc).Format(layout)
	}
	dec := func(d interface{ String() string }, ok bool) string {
		if !ok {
			return ""
		}
		return d.String()
	}
	generateBenchItemsIn(n, from, to, func(li *ledger.LineItem) bool {
		if !seen[li.BillingPeriod] {
			seen[li.BillingPeriod] = true
			months = append(months, li.BillingPeriod)
		}
		count := ""
		if li.GPUCount > 0 {
			count = strconv.Itoa(li.GPUCount)
		}
		w.Write([]string{li.Provider, li.BillingAccountID, li.ResourceID, li.Kind, li.PricingModel, li.GPUModel, count,
			at(li.ChargePeriodStart), at(li.ChargePeriodEnd), at(li.UsageStart), at(li.UsageEnd),
			dec(li.PricingQuantity.Decimal, li.PricingQuantity.Valid), li.PricingUnit,
			dec(li.ListUnitPrice.Decimal, li.ListUnitPrice.Valid), li.BilledCost.String(), li.Currency, li.Description})
		return true
	})
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	return months, f.Close()
}

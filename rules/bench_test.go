package rules

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

// BenchmarkAudit times rules.Run over one month of a ledger holding
// GPUBILL_BENCH_ROWS (default 1,000,000) generated line items, and reports
// items/s. The ledger is built once per benchmark run (b.Loop runs the setup
// once), in one import transaction through ledger.ImportTx; the time that
// took is reported as import-s, and audit/import as the ratio of one audit
// to that bulk insert. (The whole import pipeline, ingest's
// BenchmarkImportTemplateCSV, is the reference of the issue's "audit in at
// most half the import time".)
//
//	go test ./rules -run '^$' -bench BenchmarkAudit -benchtime 3x
func BenchmarkAudit(b *testing.B) {
	rows := testkit.BenchRows(b)
	ctx := context.Background()
	db, err := ledger.Open(ctx, filepath.Join(b.TempDir(), "ledger.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	inMonth, err := buildBenchLedger(ctx, db, rows)
	if err != nil {
		b.Fatal(err)
	}
	importSecs := time.Since(start).Seconds()
	cfg := DefaultConfig()
	var findings int
	for b.Loop() {
		fs, err := Run(ctx, db, benchMonth, cfg)
		if err != nil {
			b.Fatal(err)
		}
		findings = len(fs)
	}
	perAudit := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(rows)/perAudit, "items/s")
	b.ReportMetric(float64(inMonth), "month-items")
	b.ReportMetric(float64(findings), "findings")
	b.ReportMetric(importSecs, "import-s")
	b.ReportMetric(perAudit/importSecs, "audit/import")
}

const benchMonth = "2026-10"

// buildBenchLedger writes n generated line items (deterministic) into db in
// one import, and returns how many of them are of benchMonth.
func buildBenchLedger(ctx context.Context, db *ledger.DB, n int) (int, error) {
	tx, err := db.BeginImport(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	imp := &ledger.Import{Path: "bench/generated.csv", SHA256: "bench", Size: int64(n), Format: "gpubill-bill"}
	if err := tx.AddImport(ctx, imp); err != nil {
		return 0, err
	}
	if err := tx.DeferIndexes(ctx, true); err != nil {
		return 0, err
	}
	const batch = 20_000
	var rows ledger.LineItemRows
	inMonth := 0
	var genErr error
	generateBenchItems(n, func(li *ledger.LineItem) bool {
		li.ImportID = imp.ID
		if li.BillingPeriod == benchMonth {
			inMonth++
		}
		rows.Append(li)
		if rows.Len() >= batch {
			if _, genErr = tx.InsertLineItemRows(ctx, &rows); genErr != nil {
				return false
			}
			rows.Reset()
		}
		return true
	})
	if genErr != nil {
		return 0, genErr
	}
	if _, err := tx.InsertLineItemRows(ctx, &rows); err != nil {
		return 0, err
	}
	imp.RowsRead, imp.RowsNew = n, n
	if err := tx.FinishImport(ctx, imp); err != nil {
		return 0, err
	}
	return inMonth, tx.Commit()
}

// generateBenchItems calls fn with n line items, the same for every run:
// GPU instances on six platforms from 2026-09-20 to 2026-11-10 (Beijing),
// each running on-demand sessions of hourly compute items (some with actual
// times shorter than billed), or a daily package; a data disk billed daily
// (also on idle days), public traffic per session, a saved image now and
// then, seat fees on some idle days, a few unclassified charges, price
// changes and duplicated rows. Stops early when fn returns false.
func generateBenchItems(n int, fn func(*ledger.LineItem) bool) {
	loc := mustLoc("Asia/Shanghai")
	generateBenchItemsIn(n, time.Date(2026, 9, 20, 0, 0, 0, 0, loc), time.Date(2026, 11, 10, 0, 0, 0, 0, loc), fn)
}

// generateBenchItemsIn is generateBenchItems over the days [from, to).
func generateBenchItemsIn(n int, from, to time.Time, fn func(*ledger.LineItem) bool) {
	rng := rand.New(rand.NewPCG(20261001, 42))
	loc := mustLoc("Asia/Shanghai")
	providers := []string{"autodl", "gpushare", "matpool", "gpugeek", "lanrui", "aliyun"}
	type gpu struct {
		model string
		price decimal.Decimal
	}
	gpus := []gpu{{"RTX 4090", decimal.RequireFromString("1.90")}, {"RTX 3090", decimal.RequireFromString("1.32")},
		{"A100 80G", decimal.RequireFromString("7.98")}, {"V100", decimal.RequireFromString("2.58")},
		{"L40S", decimal.RequireFromString("4.28")}}
	diskPrice := decimal.RequireFromString("0.0066")
	written := 0
	emit := func(li ledger.LineItem) bool {
		if written >= n {
			return false
		}
		written++
		li.SourceRow = written
		li.RowKey = "bench-" + strconv.Itoa(written)
		li.BillingPeriod = li.ChargePeriodStart.In(loc).Format("2006-01")
		if li.ChargeCategory == "" {
			li.ChargeCategory = ledger.CategoryUsage
		}
		if li.PricingModel == "" {
			li.PricingModel = ledger.PricingOnDemand
		}
		li.Currency = "CNY"
		return fn(&li)
	}
	one := decimal.NewFromInt(1)
	for inst := 0; written < n; inst++ {
		prov := providers[inst%len(providers)]
		g := gpus[(inst/len(providers))%len(gpus)]
		id := fmt.Sprintf("%s-i-%06d", prov, inst)
		acct := fmt.Sprintf("acct-%d", inst%17)
		base := func(kind string, s, e time.Time, cost decimal.Decimal) ledger.LineItem {
			return ledger.LineItem{Provider: prov, BillingAccountID: acct,
				Kind: kind, ResourceID: id, ChargePeriodStart: s.UTC(), ChargePeriodEnd: e.UTC(),
				BilledCost: cost}
		}
		price := g.price
		if inst%23 == 0 { // a promotion that ended: 30% dearer
			price = price.Mul(decimal.RequireFromString("1.3")).Round(2)
		}
		if inst%10 == 9 { // a monthly package billed by the day
			dayCost := price.Mul(decimal.NewFromInt(18)).Round(2)
			for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
				li := base(ledger.KindCompute, d, d.AddDate(0, 0, 1), dayCost)
				li.PricingModel, li.GPUModel, li.GPUCount = ledger.PricingPackage, g.model, 1
				li.PricingQuantity, li.PricingUnit = valid(one), "day"
				if !emit(li) {
					return
				}
			}
			continue
		}
		ran := map[string]bool{} // days with compute
		t := from.Add(time.Duration(rng.IntN(48)) * time.Hour)
		for t.Before(to) {
			hours := 1 + rng.IntN(30)
			if inst%7 == 3 && rng.IntN(8) == 0 { // forgotten: runs for days
				hours = 40 + rng.IntN(60)
			}
			sessStart := t
			for h := 0; h < hours && t.Before(to); h++ {
				li := base(ledger.KindCompute, t, t.Add(time.Hour), price)
				li.GPUModel, li.GPUCount = g.model, 1
				li.PricingQuantity, li.PricingUnit, li.ListUnitPrice = valid(one), "hour", valid(price)
				if h == hours-1 && rng.IntN(4) == 0 { // the last hour used 12 minutes
					li.UsageStart, li.UsageEnd = sessStart, t.Add(12*time.Minute)
				}
				ran[t.In(loc).Format("2006-01-02")] = true
				if !emit(li) {
					return
				}
				if rng.IntN(5000) == 0 { // the same hour charged twice
					li.SourceRow = 0
					if !emit(li) {
						return
					}
				}
				t = t.Add(time.Hour)
			}
			gb := decimal.NewFromInt(int64(rng.IntN(40000))).Shift(-3)
			traffic := base(ledger.KindNetwork, t.Add(-time.Hour), t, gb.Mul(decimal.RequireFromString("0.8")).Round(4))
			traffic.ResourceID, traffic.ParentResourceID = id+"-eip", id
			traffic.PricingQuantity, traffic.PricingUnit = valid(gb), "GB"
			if !emit(traffic) {
				return
			}
			t = t.Add(time.Duration(rng.IntN(36)) * time.Hour)
		}
		gbDisk := int64(50 + rng.IntN(450))
		for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
			day := d.Format("2006-01-02")
			disk := base(ledger.KindStorage, d, d.AddDate(0, 0, 1), diskPrice.Mul(decimal.NewFromInt(gbDisk)))
			disk.ResourceID, disk.ParentResourceID = id+"-disk", id
			disk.PricingQuantity, disk.PricingUnit = valid(decimal.NewFromInt(gbDisk)), "GB-day"
			if !emit(disk) {
				return
			}
			if !ran[day] && inst%5 == 1 {
				seat := base(ledger.KindSeat, d, d.AddDate(0, 0, 1), decimal.RequireFromString("0.50"))
				if !emit(seat) {
					return
				}
			}
			if d.Weekday() == time.Sunday && inst%4 == 0 {
				img := base(ledger.KindImage, d, d.AddDate(0, 0, 1), decimal.NewFromInt(int64(rng.IntN(200))).Shift(-2))
				img.ResourceID, img.ParentResourceID = id+"-img", id
				if !emit(img) {
					return
				}
			}
		}
		if inst%50 == 0 {
			other := base(ledger.KindOther, from.AddDate(0, 0, 15), from.AddDate(0, 0, 16), decimal.RequireFromString("3.00"))
			other.ResourceID, other.Description = "", "技术服务费"
			if !emit(other) {
				return
			}
		}
	}
}

// TestBenchGenerator keeps the benchmark's data honest on a small ledger:
// deterministic, the requested count, unique row keys, and an audit that
// finds something of most rules.
func TestBenchGenerator(t *testing.T) {
	var a, b []string
	generateBenchItems(3000, func(li *ledger.LineItem) bool {
		a = append(a, li.RowKey+li.ResourceID+li.BilledCost.String())
		return true
	})
	generateBenchItems(3000, func(li *ledger.LineItem) bool {
		b = append(b, li.RowKey+li.ResourceID+li.BilledCost.String())
		return true
	})
	if len(a) != 3000 {
		t.Fatalf("got %d items, want 3000", len(a))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("item %d differs between two runs: %q vs %q", i, a[i], b[i])
		}
	}
	ctx := context.Background()
	db, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 20000
	inMonth, err := buildBenchLedger(ctx, db, n)
	if err != nil {
		t.Fatal(err)
	}
	var count int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM line_items`).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != n {
		t.Errorf("got %d line items in the ledger, want %d", count, n)
	}
	if inMonth < n/2 {
		t.Errorf("got %d items of %s, want most of %d", inMonth, benchMonth, n)
	}
	fs, err := Run(ctx, db, benchMonth, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	byRule := map[string]int{}
	for _, f := range fs {
		byRule[f.RuleID]++
	}
	for _, id := range []string{"stopped_storage", "forgotten_instance", "seat_fee", "price_deviation", "unclassified_charge", "min_duration_rounding"} {
		if byRule[id] == 0 {
			t.Errorf("rule %s found nothing in the generated month (findings by rule: %v)", id, byRule)
		}
	}
}

package fetch

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// forgetLineKeys makes db's rows look as rows stored before migration 0015:
// no line key.
func forgetLineKeys(t *testing.T, db *ledger.DB) {
	t.Helper()
	if _, err := db.SQL().Exec(`UPDATE line_items SET line_key = ''`); err != nil {
		t.Fatal(err)
	}
}

// lineKeys lists the ledger's line keys, sorted.
func lineKeys(t *testing.T, db *ledger.DB) []string {
	t.Helper()
	items, err := testkit.LineItems(context.Background(), db, ledger.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, li := range items {
		out = append(out, li.LineKey)
	}
	slices.Sort(out)
	return out
}

// agreeBothWays fetches with fetch and imports csvPath into two ledgers,
// in both orders: the second adds nothing, the totals agree, and n lines
// are stored. It returns the fetch-first ledger.
func agreeBothWays(t *testing.T, fetch func(db *ledger.DB) Outcome, csvPath string, n int) *ledger.DB {
	t.Helper()
	ctx := context.Background()
	db := openLedger(t)
	fetch(db)
	got, sum := ledgerState(t, db)
	res, err := ingest.ImportFile(ctx, db, csvPath, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.New != 0 || res.Duplicate != n {
		t.Errorf("CSV after fetch: new %d, duplicate %d; want 0 and %d", res.New, res.Duplicate, n)
	}
	db2 := openLedger(t)
	if _, err := ingest.ImportFile(ctx, db2, csvPath, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	got2, sum2 := ledgerState(t, db2)
	if out := fetch(db2); out.Result.New != 0 {
		t.Errorf("fetch after CSV added %d", out.Result.New)
	}
	if got != n || got2 != n || sum != sum2 {
		t.Errorf("fetch: %d lines %s; CSV: %d lines %s; want %d lines", got, sum, got2, sum2, n)
	}
	return db
}

// TestTencentDedupesByLineID: an export that writes a field differently
// from the API (here 组件刊例价, rounded) still stores each line once, in either
// order, because 交易ID / 组件类型 / 组件名称 is the line's key; without the
// line keys the field hash alone would have added the month twice.
func TestTencentDedupesByLineID(t *testing.T) {
	ctx := context.Background()
	details := tencentDetails(5)
	_, acct := tencentServer(t, details, december5)
	fetch := func(db *ledger.DB) Outcome {
		out, err := Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// The console writes 组件刊例价 to the fen here: 0.002 becomes 0.00.
	csvPath := testkit.RewriteCSV(t, writeTencentCSV(t, details), "组件刊例价", func(_ int, v string) string {
		return decimal.RequireFromString(v).Truncate(2).StringFixed(2)
	})
	db := agreeBothWays(t, fetch, csvPath, 10)
	keys := lineKeys(t, db)
	if want := "tencentcloud:2026110100000000/GPU/GPU计算型GN10Xp 实例#1"; !slices.Contains(keys, want) {
		t.Errorf("line keys %q lack %q", keys, want)
	}
	// The test can fail: with the line keys forgotten, a changed unit
	// price makes every row new.
	forgetLineKeys(t, db)
	other := testkit.RewriteCSV(t, csvPath, "组件刊例价", func(int, string) string { return "1.5" })
	res, err := ingest.ImportFile(ctx, db, other, ingest.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.New != 10 {
		t.Errorf("without line keys the changed export adds %d, want 10 (the hash differs)", res.New)
	}
}

// TestOldLedgerAddsNothing: rows stored before migration 0015 (no line
// key) still dedupe a re-import of their file and a re-fetch, by the
// field hash.
func TestOldLedgerAddsNothing(t *testing.T) {
	ctx := context.Background()
	details := tencentDetails(3)
	_, acct := tencentServer(t, details, december5)
	csvPath := writeTencentCSV(t, details)
	db := openLedger(t)
	if _, err := ingest.ImportFile(ctx, db, csvPath, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	forgetLineKeys(t, db)
	res, err := ingest.ImportFile(ctx, db, csvPath, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := ledgerState(t, db); res.New != 0 || out.Result.New != 0 || n != 6 {
		t.Errorf("old ledger: re-import added %d, fetch %d, %d lines; want 0, 0, 6", res.New, out.Result.New, n)
	}
}

// TestUndoHandsLineKeyDuplicatesOver: an export whose rows were
// duplicates by their line key only claims the fetched rows, so undoing
// the fetch leaves them with the export.
func TestUndoHandsLineKeyDuplicatesOver(t *testing.T) {
	ctx := context.Background()
	details := tencentDetails(2)
	_, acct := tencentServer(t, details, december5)
	db := openLedger(t)
	out, err := Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	if err != nil {
		t.Fatal(err)
	}
	csvPath := testkit.RewriteCSV(t, writeTencentCSV(t, details), "组件刊例价", func(int, string) string { return "1.5" })
	res, err := ingest.ImportFile(ctx, db, csvPath, ingest.Options{})
	if err != nil || res.New != 0 {
		t.Fatalf("export after fetch: %v, new %d", err, res.New)
	}
	ims, err := db.Imports(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var fetched int64
	for _, im := range ims {
		if im.Path == out.Name {
			fetched = im.ID
		}
	}
	if _, err := db.UndoImport(ctx, fetched); err != nil || fetched == 0 {
		t.Fatal(fetched, err)
	}
	if n, sum := ledgerState(t, db); n != 4 || sum != "40.2" {
		t.Errorf("after undoing the fetch: %d lines %s, want the export's 4 lines 40.2", n, sum)
	}
}

// TestVolcengineDedupesByLineID: an export with the 账单明细ID column
// dedupes by it even where a field differs; one without it (the console
// header is unconfirmed) dedupes by the field hash
// (TestVolcenginePagesAndAgreesWithCSV).
func TestVolcengineDedupesByLineID(t *testing.T) {
	ctx := context.Background()
	items := volcItems(4)
	_, acct := volcServer(t, items)
	fetch := func(db *ledger.DB) Outcome {
		out, err := Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	p := filepath.Join(t.TempDir(), "volc.csv")
	fh, _ := os.Create(p)
	w := csv.NewWriter(fh)
	var hdr []string
	for _, h := range volcCSVHeader {
		hdr = append(hdr, h[1])
	}
	w.Write(append(hdr, "账单明细ID"))
	for _, it := range items {
		var rec []string
		for _, h := range volcCSVHeader {
			v := it[h[0]].(string)
			if h[0] == "Price" {
				v = "7.03" // the console rounds the unit price
			}
			rec = append(rec, v)
		}
		w.Write(append(rec, it["BillDetailId"].(string)))
	}
	w.Flush()
	fh.Close()
	db := agreeBothWays(t, fetch, p, 4)
	if keys := lineKeys(t, db); !slices.Contains(keys, "volcengine:DET000002#1") {
		t.Errorf("line keys %q", keys)
	}
	// The test can fail: without the line keys the rounded price is new.
	forgetLineKeys(t, db)
	other := testkit.RewriteCSV(t, p, "实例名称", func(int, string) string { return "x" })
	res, err := ingest.ImportFile(ctx, db, other, ingest.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.New != 4 {
		t.Errorf("without line keys the export adds %d, want 4", res.New)
	}
}

// TestHuaweiRangeConsumeTimeDedupes: the export writes 消费时间 as a range
// where the API gives one time; the two still store each line once.
func TestHuaweiRangeConsumeTimeDedupes(t *testing.T) {
	ctx := context.Background()
	recs := huaweiRecords(3)
	_, acct := huaweiServer(t, recs, december5)
	fetch := func(db *ledger.DB) Outcome {
		out, err := Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	csvPath := testkit.RewriteCSV(t, writeHuaweiCSV(t, recs), "消费时间", func(_ int, v string) string {
		start, err := time.Parse("2006-01-02 15:04:05 GMT-07:00", v)
		if err != nil {
			t.Fatal(err)
		}
		return v + "-" + start.Add(time.Hour).Format("2006-01-02 15:04:05") + " GMT+08:00"
	})
	db := agreeBothWays(t, fetch, csvPath, 6)
	// The test can fail: the range changes the field hash (a copy with a
	// blank 交易时间, which neither key reads, is a file not imported yet).
	forgetLineKeys(t, db)
	other := testkit.RewriteCSV(t, csvPath, "交易时间", func(int, string) string { return "" })
	res, err := ingest.ImportFile(ctx, db, other, ingest.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.New != 6 {
		t.Errorf("without line keys the range export adds %d, want 6 (the hash differs)", res.New)
	}
}

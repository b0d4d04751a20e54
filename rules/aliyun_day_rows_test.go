package rules_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/rules"
)

// TestAliyunDayRowsAreNoDoubleCharges: a 阿里云 明细账单 that gives each row
// its 日期 only bills every run, disk and traffic row of a day over the
// whole day. Imported and audited, it shows no overlapping or duplicate
// charge: its rows bill parts of the day, two disks, separate traffic
// (gpubill-bench's 阿里云 month had 28,620 such findings claiming ¥2.7M of
// a ¥4.1M bill).
func TestAliyunDayRowsAreNoDoubleCharges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	bill := filepath.Join(dir, "aliyun.csv")
	f, err := os.Create(bill)
	if err != nil {
		t.Fatal(err)
	}
	const rows = 400 * 24 * 4 // four days of the sample's 400 instances
	if err := ingest.WriteSampleAliyunCSV(f, rows, 1); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := ledger.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	results, err := ingest.ImportPaths(ctx, db, []string{bill}, ingest.Options{})
	if err != nil || len(results) != 1 || results[0].New != rows {
		t.Fatalf("import: %v, %+v", err, results)
	}
	findings, err := rules.Run(ctx, db, "2026-10", rules.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		if f.RuleID == "overlapping_charge" || f.RuleID == "duplicate_charge" {
			t.Errorf("%s %s: %s", f.RuleID, f.ResourceID, f.ReasonEN)
		}
	}
}

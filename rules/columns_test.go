package rules

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/ledger"
)

// TestLoadedColumns audits the scenario and the demo bills twice, loading
// every column and only the columns the rules list (baseColumns and
// Info.Columns): a rule that reads a column it does not list finds
// otherwise on the second.
func TestLoadedColumns(t *testing.T) {
	cols := loadColumns(DefaultConfig())
	for _, c := range []string{"region", "tags", "voucher_paid"} {
		if slices.Contains(cols, c) {
			t.Errorf("the audit loads %s, which no rule reads", c)
		}
	}
	ctx := context.Background()
	for _, dir := range []string{"../testdata/scenario/2026-10", "../testdata/demo"} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			db, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "l.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			bills, err := filepath.Glob(filepath.Join(dir, "*.*"))
			if err != nil {
				t.Fatal(err)
			}
			bills = slices.DeleteFunc(bills, func(p string) bool { return filepath.Ext(p) == ".json" })
			res, err := ingest.ImportPaths(ctx, db, bills, ingest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			items := 0
			for _, r := range res {
				items += r.New
			}
			if items == 0 {
				t.Fatal("no line items imported")
			}
			allColumns = true
			want, err := Run(ctx, db, "2026-10", DefaultConfig())
			allColumns = false
			if err != nil {
				t.Fatal(err)
			}
			got, err := Run(ctx, db, "2026-10", DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatal("no findings to compare")
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("findings differ when only the listed columns are loaded: %d findings, want %d", len(got), len(want))
				for i := range min(len(got), len(want)) {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Errorf("first difference: %s %s/%s", want[i].RuleID, want[i].Provider, want[i].ResourceID)
						break
					}
				}
			}
		})
	}
}

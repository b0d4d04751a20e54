package reports

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

// TestSpendScanMergeIsExact: the month summed in three parts and merged
// gives every table of the spend report exactly as one pass does, whatever
// the split (scanSpend reads a big month in id ranges side by side).
func TestSpendScanMergeIsExact(t *testing.T) {
	db := manyItemsLedger(t)
	ctx := context.Background()
	by := []string{ByProvider, ByProject, ByGPUModel, ByKind, ByResource}
	tz := time.FixedZone("CST", 8*3600)
	scan := func(where string, args ...any) *spendScan {
		s := newSpendScan(by, tz)
		if err := db.Scan(ctx, "SELECT "+selectList(spendCols)+" FROM line_items li WHERE li.billing_period = '2026-10'"+where, args, itemRows(t, spendCols, s.add)); err != nil {
			t.Fatal(err)
		}
		return s
	}
	whole := scan("")
	for _, split := range []int{2, 3, 7} {
		merged := scan(" AND li.id % ? = 0", split)
		for k := 1; k < split; k++ {
			merged.merge(scan(" AND li.id % ? = ?", split, k))
		}
		for _, c := range []struct {
			name      string
			got, want any
		}{
			{"rows", merged.rows(), whole.rows()},
			{"totals", merged.totalsList(), whole.totalsList()},
			{"provider × kind", merged.providerKinds(), whole.providerKinds()},
			{"top resources", merged.topResources(), whole.topResources()},
			{"days", merged.daily(), whole.daily()},
		} {
			if !reflect.DeepEqual(c.got, c.want) {
				t.Errorf("split in %d: %s differ:\n merged %+v\n whole  %+v", split, c.name, c.got, c.want)
			}
		}
		if len(whole.rows()) < 20 || len(whole.totalsList()) != 2 {
			t.Fatalf("the fixture gave %d rows and %d currencies, want many and 2", len(whole.rows()), len(whole.totalsList()))
		}
	}
}

// selectList is the SQL list of a scan's columns.
func selectList(cols []string) string { return "li." + strings.Join(cols, ", li.") }

// itemRows is fn as a callback of the rows of a SELECT of cols (the
// scans' ledger.ScanItems, for a query of a test's own).
func itemRows(t *testing.T, cols []string, fn func(*ledger.LineItem) error) func(ledger.Row) error {
	t.Helper()
	add, err := ledger.ItemsOf(cols, fn)
	if err != nil {
		t.Fatal(err)
	}
	return add
}

package testkit

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gpubill/gpubill/ledger"
)

// OpenLedger opens an empty ledger in a file under t.TempDir(), closed when
// the test ends.
func OpenLedger(t testing.TB) *ledger.DB {
	t.Helper()
	db, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatalf("open ledger: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// ImportItems writes items into db as one imported file called path (format
// "gpubill-bill", SHA-256 "sha-"+path), in one import transaction, and
// returns them as stored (with IDs), as LineItems reads them back for
// that import. The caller's slice is not changed. Each stored copy gets the
// import's ID and, where the field is empty: SourceRow its 1-based position,
// RowKey path+"#"+position, ChargeCategory usage and Currency CNY.
func ImportItems(t testing.TB, db *ledger.DB, path string, items []ledger.LineItem) []ledger.LineItem {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginImport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	imp := &ledger.Import{Path: path, SHA256: "sha-" + path, Size: 1, Format: "gpubill-bill"}
	if err := tx.AddImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	rows := make([]ledger.LineItem, len(items))
	copy(rows, items)
	for i := range rows {
		li := &rows[i]
		li.ImportID = imp.ID
		if li.SourceRow == 0 {
			li.SourceRow = i + 1
		}
		if li.RowKey == "" {
			li.RowKey = fmt.Sprintf("%s#%d", path, i+1)
		}
		if li.ChargeCategory == "" {
			li.ChargeCategory = ledger.CategoryUsage
		}
		if li.Currency == "" {
			li.Currency = "CNY"
		}
	}
	n, err := tx.InsertLineItems(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(rows) {
		t.Fatalf("inserted %d line items, want %d", n, len(rows))
	}
	imp.RowsRead, imp.RowsNew = len(rows), n
	if err := tx.FinishImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	out, err := LineItems(ctx, db, ledger.Filter{ImportID: imp.ID})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// LineItems returns the line items of db that f selects, with their raw
// cells, in ledger.ByResource order.
func LineItems(ctx context.Context, db *ledger.DB, f ledger.Filter) ([]ledger.LineItem, error) {
	var out []ledger.LineItem
	err := db.EachLineItem(ctx, f, ledger.Read{}, func(li *ledger.LineItem) error {
		out = append(out, *li)
		return nil
	})
	return out, err
}

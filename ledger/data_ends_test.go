package ledger

import (
	"context"
	"maps"
	"testing"
	"time"
)

// scanEnds is what data_ends stands for: the latest charge period end per
// provider, computed from the line items.
func scanEnds(t *testing.T, db *DB) map[string]time.Time {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT provider, max(charge_period_end) FROM line_items GROUP BY provider`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var p, e string
		if err := rows.Scan(&p, &e); err != nil {
			t.Fatal(err)
		}
		out[p], err = ParseTime(e)
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestDataEndsFollowImportsAndUndo: the stored end of the data equals the
// scan of the line items after imports that raise it, an import with earlier
// charges only (which must not lower it), a re-import of known rows, a
// rolled-back import, and the undo of the import that raised it.
func TestDataEndsFollowImportsAndUndo(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	at := func(key, provider string, day int) LineItem {
		li := item(key, "1")
		li.Provider = provider
		li.ChargePeriodStart = time.Date(2026, 10, day, 6, 0, 0, 0, time.UTC)
		li.ChargePeriodEnd = li.ChargePeriodStart.Add(time.Hour)
		return li
	}
	check := func(step string, want map[string]int) {
		t.Helper()
		got, err := db.DataEnds(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if scanned := scanEnds(t, db); !maps.Equal(got, scanned) {
			t.Errorf("%s: DataEnds = %v, the line items say %v", step, got, scanned)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d providers, want %d", step, len(got), len(want))
		}
		for p, day := range want {
			if w := time.Date(2026, 10, day, 7, 0, 0, 0, time.UTC); !got[p].Equal(w) {
				t.Errorf("%s: end of %s = %v, want %v", step, p, got[p], w)
			}
		}
	}
	check("empty ledger", map[string]int{})
	importItems(t, db, []LineItem{at("a1", "autodl", 3), at("a2", "autodl", 9), at("b1", "aliyun", 5)})
	check("first import", map[string]int{"autodl": 9, "aliyun": 5})
	importItems(t, db, []LineItem{at("a0", "autodl", 1), at("b2", "aliyun", 20)})
	check("earlier autodl, later aliyun", map[string]int{"autodl": 9, "aliyun": 20})
	importItems(t, db, []LineItem{at("a2", "autodl", 9), at("m1", "matpool", 2)})
	check("known row and a new provider", map[string]int{"autodl": 9, "aliyun": 20, "matpool": 2})

	tx, err := db.BeginImport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	imp := &Import{Path: "y.csv", SHA256: "01", Format: "test"}
	if err := tx.AddImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	later := []LineItem{at("x1", "autodl", 30)}
	later[0].ImportID = imp.ID
	if _, err := tx.InsertLineItems(ctx, later); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	check("rolled back", map[string]int{"autodl": 9, "aliyun": 20, "matpool": 2})

	const second = 2 // the import of a0 and b2 (ids count imports up from 1)
	if _, err := db.UndoImport(ctx, second); err != nil {
		t.Fatal(err)
	}
	check("undo of the import that raised aliyun", map[string]int{"autodl": 9, "aliyun": 5, "matpool": 2})
}

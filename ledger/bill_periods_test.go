package ledger

import (
	"context"
	"testing"
	"time"
)

// TestDataEndsCovered: a monthly bill covers its month to the end in the
// zone (FOCUS: UTC), capped at the time it was imported; other formats end
// at their latest charge.
func TestDataEndsCovered(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	shanghai := DefaultTZ()
	add := func(format, provider, month string, started time.Time) {
		t.Helper()
		tx, err := db.BeginImport(ctx)
		if err != nil {
			t.Fatal(err)
		}
		imp := &Import{Path: format + ".csv", SHA256: format + provider, Format: format, StartedAt: started}
		if err := tx.AddImport(ctx, imp); err != nil {
			t.Fatal(err)
		}
		li := item(provider+format, "1")
		li.Provider, li.BillingPeriod, li.ImportID = provider, month, imp.ID
		if _, err := tx.InsertLineItems(ctx, []LineItem{li}); err != nil {
			t.Fatal(err)
		}
		if err := tx.AddImportPeriods(ctx, imp.ID, map[PeriodKey]int{{provider, month}: 1}); err != nil {
			t.Fatal(err)
		}
		if err := tx.FinishImport(ctx, imp); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	late := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	add("volcengine-bill", "volcengine", "2026-10", late)
	add("focus", "aws", "2026-10", late)
	add("gpubill-bill", "autodl", "2026-10", late)
	add("aliyun-detail", "aliyun", "2026-10", time.Date(2026, 10, 15, 2, 0, 0, 0, time.UTC)) // exported mid-month
	got, err := db.DataEndsCovered(ctx, shanghai)
	if err != nil {
		t.Fatal(err)
	}
	lastCharge := time.Date(2026, 10, 3, 7, 0, 0, 0, time.UTC) // item()'s end
	for p, want := range map[string]time.Time{
		"volcengine": time.Date(2026, 11, 1, 0, 0, 0, 0, shanghai),
		"aws":        time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		"autodl":     lastCharge,
		"aliyun":     time.Date(2026, 10, 15, 2, 0, 0, 0, time.UTC),
	} {
		if !got[p].Equal(want) {
			t.Errorf("%s: end of data %s, want %s", p, got[p], want)
		}
	}
}

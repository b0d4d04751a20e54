package billing

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

// periodItem is one hour of compute on 2026-10-03 (06:00-07:00 UTC).
func periodItem(key string) ledger.LineItem {
	start := time.Date(2026, 10, 3, 6, 0, 0, 0, time.UTC)
	return ledger.LineItem{Provider: "autodl", BillingPeriod: "2026-10",
		ChargePeriodStart: start, ChargePeriodEnd: start.Add(time.Hour), ChargeCategory: ledger.CategoryUsage,
		Kind: ledger.KindCompute, BilledCost: decimal.RequireFromString("1"),
		Currency: "CNY", RowKey: key, SourceRow: 1, Raw: []string{"a", "1"}}
}

// TestDataEndsCovered: a monthly bill covers its month to the end in the
// zone (FOCUS: UTC), capped at the time it was imported; other formats end
// at their latest charge.
func TestDataEndsCovered(t *testing.T) {
	db := testkit.OpenLedger(t)
	ctx := context.Background()
	shanghai := ledger.DefaultTZ()
	add := func(format, provider, month string, started time.Time) {
		t.Helper()
		tx, err := db.BeginImport(ctx)
		if err != nil {
			t.Fatal(err)
		}
		imp := &ledger.Import{Path: format + ".csv", SHA256: format + provider, Format: format, StartedAt: started}
		if err := tx.AddImport(ctx, imp); err != nil {
			t.Fatal(err)
		}
		li := periodItem(provider + format)
		li.Provider, li.BillingPeriod, li.ImportID = provider, month, imp.ID
		if _, err := tx.InsertLineItems(ctx, []ledger.LineItem{li}); err != nil {
			t.Fatal(err)
		}
		if err := tx.AddImportPeriods(ctx, imp.ID, map[ledger.PeriodKey]int{{Provider: provider, BillingPeriod: month}: 1}); err != nil {
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
	got, err := DataEndsCovered(ctx, db, shanghai)
	if err != nil {
		t.Fatal(err)
	}
	lastCharge := time.Date(2026, 10, 3, 7, 0, 0, 0, time.UTC) // periodItem's end
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

// TestBillPeriodEndsOfAnExport: a period that gpubill's own export brought
// is covered to the end of data the export stated (raised by x_DataEnd),
// within the period's end in the zone, or to its UTC end when the data
// ends exactly there; a provider whose export stated only its last charge
// is covered to that charge.
func TestBillPeriodEndsOfAnExport(t *testing.T) {
	db := testkit.OpenLedger(t)
	ctx := context.Background()
	shanghai := ledger.DefaultTZ()
	tx, err := db.BeginImport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	imp := &ledger.Import{Path: "lake/billing_period=2026-10/part-00000.csv", SHA256: "x", Format: "gpubill-export",
		StartedAt: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)}
	if err := tx.AddImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	periods := map[ledger.PeriodKey]int{}
	var items []ledger.LineItem
	for _, p := range []string{"volcengine", "aws", "tencentcloud", "autodl"} {
		li := periodItem(p)
		li.Provider, li.BillingPeriod, li.ImportID = p, "2026-10", imp.ID
		items = append(items, li)
		periods[ledger.PeriodKey{Provider: p, BillingPeriod: "2026-10"}] = 1
	}
	if _, err := tx.InsertLineItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	if err := tx.AddImportPeriods(ctx, imp.ID, periods); err != nil {
		t.Fatal(err)
	}
	octEnd := time.Date(2026, 11, 1, 0, 0, 0, 0, shanghai)
	utcEnd := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tx.RaiseDataEnd("volcengine", octEnd)                                         // a monthly bill in the zone
	tx.RaiseDataEnd("aws", utcEnd)                                                // a UTC month's bill
	tx.RaiseDataEnd("tencentcloud", time.Date(2026, 12, 1, 0, 0, 0, 0, shanghai)) // the ledger went on to November
	if err := tx.FinishImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := BillPeriodEnds(ctx, db, shanghai)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]time.Time{
		"volcengine":   octEnd,
		"aws":          utcEnd,
		"tencentcloud": octEnd,
		"autodl":       time.Date(2026, 10, 3, 7, 0, 0, 0, time.UTC), // periodItem's end: no coverage beyond it
	} {
		if g := got[ledger.PeriodKey{Provider: p, BillingPeriod: "2026-10"}]; !g.Equal(want) {
			t.Errorf("%s: covered to %s, want %s", p, g, want)
		}
	}
}

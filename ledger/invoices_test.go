package ledger

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/money"
	"github.com/shopspring/decimal"
)

func inv(provider, number, date, amount, start, end string) Invoice {
	return Invoice{Provider: provider, Number: number, Date: date, Amount: decimal.RequireFromString(amount),
		Currency: "CNY", PeriodStart: start, PeriodEnd: end}
}

func TestInvoicesInsertDedupeAndQuery(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	hand := []Invoice{
		inv("autodl", "0001", "2026-11-03", "100.00", "2026-10", "2026-10"),
		inv("autodl", "0002", "2026-11-20", "50.5", "2026-09", "2026-10"), // spans two months
		inv("matpool", "0003", "2026-10-15", "20", "", ""),                // no period: its date's month
		inv("autodl", "0004", "2026-09-30", "1", "2026-09", ""),           // one month, end filled in
	}
	n, err := db.InsertInvoices(ctx, hand)
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("first insert added %d, want 4", n)
	}
	// The same invoices again (100 written as 100.0): nothing new.
	again := []Invoice{inv("autodl", "0001", "2026-11-03", "100.0", "2026-10", "2026-10")}
	if n, err := db.InsertInvoices(ctx, again); err != nil || n != 0 {
		t.Errorf("re-insert added %d (err %v), want 0", n, err)
	}
	// The same number with another amount is kept: reconcile reports it.
	if n, err := db.InsertInvoices(ctx, []Invoice{inv("autodl", "0001", "2026-11-03", "90", "2026-10", "2026-10")}); err != nil || n != 1 {
		t.Errorf("conflicting number added %d (err %v), want 1", n, err)
	}

	tests := []struct {
		name string
		f    InvoiceFilter
		want []string // numbers + amount, in order
	}{
		{"all", InvoiceFilter{}, []string{"0004 1", "0002 50.5", "0001 100.00", "0001 90", "0003 20"}},
		{"october", InvoiceFilter{Month: "2026-10"}, []string{"0002 50.5", "0001 100.00", "0001 90", "0003 20"}},
		{"september autodl", InvoiceFilter{Month: "2026-09", Providers: []string{"autodl"}}, []string{"0004 1", "0002 50.5"}},
		{"months", InvoiceFilter{Months: []string{"2026-08", "2026-09"}}, []string{"0004 1", "0002 50.5"}},
		{"november", InvoiceFilter{Month: "2026-11"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.Invoices(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var g []string
			for _, x := range got {
				g = append(g, x.Number+" "+money.String(x.Amount))
			}
			if !reflect.DeepEqual(g, tc.want) {
				t.Errorf("got %v, want %v", g, tc.want)
			}
		})
	}
	all, _ := db.Invoices(ctx, InvoiceFilter{Providers: []string{"autodl"}, Month: "2026-09"})
	if len(all) != 2 || all[0].PeriodEnd != "2026-09" {
		t.Errorf("got %+v, want invoice 0004 with its period end filled in", all)
	}
}

func TestInvoiceInImportTxCarriesEvidenceRemoveAndUndo(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	tx, err := db.BeginImport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	imp := &Import{Path: "发票.csv", SHA256: "00", Format: "gpubill-invoices"}
	if err := tx.AddImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	x := inv("luchen", "9", "2026-11-01", "12.34", "2026-10", "2026-10")
	x.ImportID, x.SourceRow, x.Raw, x.Title = imp.ID, 3, []string{"潞晨云", "9"}, "某大学"
	if n, err := tx.InsertInvoices(ctx, []Invoice{x}); err != nil || n != 1 {
		t.Fatalf("insert: %d %v", n, err)
	}
	if err := tx.FinishImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := db.Invoices(ctx, InvoiceFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].File != "发票.csv" || got[0].SourceRow != 3 || got[0].Title != "某大学" ||
		!reflect.DeepEqual(got[0].Raw, []string{"潞晨云", "9"}) || money.String(got[0].Amount) != "12.34" {
		t.Errorf("got %+v, want the invoice with its file, row, title and raw cells", got)
	}
	// RemoveInvoices takes invoices added by hand, all or none: with the
	// imported one among them, nothing goes.
	if _, err := db.InsertInvoices(ctx, []Invoice{inv("luchen", "10", "2026-11-01", "1", "2026-10", "2026-10"),
		inv("luchen", "11", "2026-11-01", "2", "2026-10", "2026-10")}); err != nil {
		t.Fatal(err)
	}
	got, _ = db.Invoices(ctx, InvoiceFilter{})
	ids := map[string]int64{}
	for _, x := range got {
		ids[x.Number] = x.ID
	}
	if err := db.RemoveInvoices(ctx, []int64{ids["10"], ids["9"]}); err == nil {
		t.Error("removed an imported invoice, want an error")
	}
	if err := db.RemoveInvoices(ctx, []int64{ids["10"], ids["10"]}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Invoices(ctx, InvoiceFilter{}); len(got) != 2 || got[0].Number != "11" || got[1].Number != "9" {
		t.Errorf("after removing 10, got %+v, want 11 and 9", got)
	}
	if err := db.RemoveInvoices(ctx, []int64{ids["11"]}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UndoImport(ctx, imp.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Invoices(ctx, InvoiceFilter{}); len(got) != 0 {
		t.Errorf("after undo %d invoices remain, want 0 (the import's rows cascade)", len(got))
	}
}

func TestInvoiceValidate(t *testing.T) {
	tests := []struct {
		name    string
		inv     Invoice
		wantErr string
	}{
		{"ok", inv("autodl", "1", "2026-11-01", "1", "2026-10", "2026-11"), ""},
		{"no number", inv("autodl", " ", "2026-11-01", "1", "", ""), "number is empty"},
		{"bad date", inv("autodl", "1", "2026/11/01", "1", "", ""), "not YYYY-MM-DD"},
		{"bad month", inv("autodl", "1", "2026-11-01", "1", "2026-13", ""), "not YYYY-MM"},
		{"reversed", inv("autodl", "1", "2026-11-01", "1", "2026-11", "2026-10"), "ends before it starts"},
		{"end only", inv("autodl", "1", "2026-11-01", "1", "", "2026-10"), "without a start"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.inv.Validate()
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("got %v, want %q", err, tc.wantErr)
			}
		})
	}
	x := inv("autodl", "1", "2026-11-01", "1", "2026-11", "2026-10")
	if _, err := openTest(t).InsertInvoices(context.Background(), []Invoice{x}); err == nil {
		t.Error("insert of an invalid invoice succeeded, want an error")
	}
}

func TestInvoiceMonths(t *testing.T) {
	tests := []struct {
		start, end string
		want       []string
	}{
		{"2026-11", "2027-01", []string{"2026-11", "2026-12", "2027-01"}},
		{"2026-10", "", []string{"2026-10"}},
		{"", "", nil},
	}
	for _, tc := range tests {
		x := Invoice{PeriodStart: tc.start, PeriodEnd: tc.end}
		if got := x.Months(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Months(%s..%s) = %v, want %v", tc.start, tc.end, got, tc.want)
		}
	}
}

// TestMigrationKeepsOldInvoices opens a ledger at schema 2 holding an
// invoice in the 0001 table and checks that 0003 carries it over.
func TestMigrationKeepsOldInvoices(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	raw := ledgerAtVersion(t, path, 2)
	if _, err := raw.Exec(`INSERT INTO invoices(provider, number, date, amount, currency, title, period)
		VALUES ('autodl', '77', '2026-11-02', '8.80', 'CNY', 't', '2026-10')`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Invoices(ctx, InvoiceFilter{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Number != "77" || got[0].PeriodEnd != "2026-10" || money.String(got[0].Amount) != "8.80" {
		t.Errorf("got %+v, want invoice 77 for 2026-10", got)
	}
	if SchemaVersion() < 3 {
		t.Errorf("SchemaVersion() = %d, want at least 3 (the invoices migration)", SchemaVersion())
	}
}

package reports

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

// TestSpendDemoVoucher: on the demo month, cash never exceeds billed (per
// row and per currency) and AutoDL's new-user voucher shows as a voucher
// used of 10.00, positive (ingest.SettlePaid), not as cash.
func TestSpendDemoVoucher(t *testing.T) {
	ctx := context.Background()
	loc, _ := time.LoadLocation("Asia/Shanghai")
	db := testkit.OpenLedger(t)
	if _, err := ingest.ImportPaths(ctx, db, []string{filepath.Join("..", "testdata", "demo")}, ingest.Options{TZ: loc}); err != nil {
		t.Fatalf("import the demo: %v", err)
	}
	rep, err := Spend(ctx, db, SpendOptions{Month: "2026-10", TZ: loc})
	if err != nil {
		t.Fatal(err)
	}
	for _, tot := range rep.Totals {
		if tot.CashPaid.Amount.Valid && tot.CashPaid.Amount.Decimal.GreaterThan(tot.BilledCost) {
			t.Errorf("%s: cash %s above billed %s", tot.Currency, tot.CashPaid.Amount.Decimal, tot.BilledCost)
		}
		if tot.Currency == "CNY" && (!tot.VoucherPaid.Amount.Valid || tot.VoucherPaid.Amount.Decimal.String() != "10") {
			t.Errorf("CNY vouchers used %v, want 10.00", tot.VoucherPaid.Amount)
		}
	}
	found := false
	for _, r := range rep.Rows {
		if r.CashPaid.Amount.Valid && r.CashPaid.Amount.Decimal.GreaterThan(r.BilledCost) {
			t.Errorf("%s %s: cash %s above billed %s", r.Provider, r.Kind, r.CashPaid.Amount.Decimal, r.BilledCost)
		}
		if r.Provider == "autodl" && r.Kind == ledger.KindCredit {
			found = true
			if v := r.VoucherPaid.Amount; !v.Valid || v.Decimal.StringFixed(2) != "10.00" {
				t.Errorf("AutoDL credit row: voucher %v, want 10.00", v)
			}
		}
	}
	if !found {
		t.Error("no AutoDL credit row in the demo's spend")
	}
}

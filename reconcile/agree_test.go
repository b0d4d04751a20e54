package reconcile

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reports"
)

// TestRefundsAgreeWithReconcile: for every account, report refunds and
// reconcile give the same balance the export shows, at the same time, and
// the same balance carried forward over the later rows, on the demo and on
// the reconcile scenario; the demo's AutoDL flow (top-ups only, while its
// bill has charges) is flagged incomplete and its closing as carried
// forward from the 200.00 shown.
func TestRefundsAgreeWithReconcile(t *testing.T) {
	ctx := context.Background()
	demo := testkit.OpenLedger(t)
	if _, err := ingest.ImportPaths(ctx, demo, []string{filepath.Join("..", "testdata", "demo")}, ingest.Options{TZ: shanghaiTZ}); err != nil {
		t.Fatalf("import the demo: %v", err)
	}
	for _, c := range []struct {
		name   string
		db     *ledger.DB
		months []string
	}{{"demo", demo, []string{"2026-10"}}, {"scenario", openScenario(t), []string{"2026-10", "2026-11"}}} {
		for _, month := range c.months {
			rec, err := Reconcile(ctx, c.db, Options{Month: month, TZ: shanghaiTZ})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := reports.Refunds(ctx, c.db, reports.RefundsOptions{Month: month, TZ: shanghaiTZ})
			if err != nil {
				t.Fatal(err)
			}
			compared := 0
			for _, p := range ref.Platforms {
				for _, rb := range p.Balances {
					var b *Balance
					for i := range rec.Balances {
						x := &rec.Balances[i]
						if x.Provider == p.Provider && x.Account == rb.Account && x.Currency == rb.Currency {
							b = x
						}
					}
					if b == nil {
						continue // no flow row in the month: reconcile has no equation
					}
					compared++
					where := c.name + " " + month + " " + p.Provider + "/" + rb.Account
					if !b.Shown.Valid || !b.Shown.Decimal.Equal(rb.Balance) || !b.ShownTime.Equal(rb.Time) || b.CarriedRows != rb.Later {
						t.Errorf("%s: reconcile shows %v at %v (+%d rows), refunds %s at %v (+%d)", where,
							b.Shown, b.ShownTime, b.CarriedRows, rb.Balance, rb.Time, rb.Later)
					}
					if b.Basis == BasisTotal && (!b.Closing.Valid || !b.Closing.Decimal.Equal(rb.Carried)) {
						t.Errorf("%s: reconcile closing %v, refunds carried %s", where, b.Closing, rb.Carried)
					}
				}
			}
			if compared == 0 {
				t.Errorf("%s %s: no balance to compare", c.name, month)
			}
			if c.name != "demo" {
				continue
			}
			for _, b := range rec.Balances {
				if b.Provider != "autodl" {
					continue
				}
				if !b.IncompleteFlow || b.CarriedRows != 2 || b.Shown.Decimal.String() != "200" {
					t.Errorf("demo AutoDL: incomplete %v, shown %v, carried over %d rows; want incomplete, 200.00, 2",
						b.IncompleteFlow, b.Shown, b.CarriedRows)
				}
			}
			if !rec.Differences() {
				t.Error("demo: differences false, want true (the AutoDL flow is incomplete)")
			}
		}
	}
}

package reconcile

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

// importFlow writes money-flow rows as one imported file; row i gets
// source row i+1.
func importFlow(t *testing.T, db *ledger.DB, path string, txs []ledger.Transaction) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginImport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	imp := &ledger.Import{Path: path, SHA256: "sha-" + path, Format: "gpubill-flow"}
	if err := tx.AddImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	for i := range txs {
		txs[i].ImportID, txs[i].SourceRow, txs[i].RowKey = imp.ID, i+1, path+"#"+string(rune('a'+i))
		if txs[i].Currency == "" {
			txs[i].Currency = "CNY"
		}
	}
	if _, err := tx.InsertTransactions(ctx, txs); err != nil {
		t.Fatal(err)
	}
	if err := tx.FinishImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func tx(at string, typ, amount, balance string) ledger.Transaction {
	tm, err := time.ParseInLocation("2006-01-02 15:04", at, shanghaiTZ)
	if err != nil {
		panic(err)
	}
	return ledger.Transaction{Provider: "gpushare", Time: tm, Type: typ, Amount: decimal.RequireFromString(amount), Balance: nd(balance)}
}

func TestBalances(t *testing.T) {
	tests := []struct {
		name                                   string
		rows                                   []ledger.Transaction
		opening, expected, closing, difference string // "" = unknown
		basis                                  string
		gaps                                   int
	}{
		{
			name: "opening from the month before; freezes leave a total balance alone",
			rows: []ledger.Transaction{
				tx("2026-09-30 10:00", ledger.TxTopup, "100", "100"),
				tx("2026-10-02 20:00", ledger.TxFreeze, "2.20", "100"),
				tx("2026-10-02 21:00", ledger.TxCharge, "2.20", "97.80"),
				tx("2026-10-02 21:30", ledger.TxUnfreeze, "2.20", "97.80"),
			},
			opening: "100", expected: "97.80", closing: "97.80", difference: "0.00", basis: BasisTotal,
		},
		{
			name: "an available balance: freezes move it",
			rows: []ledger.Transaction{
				tx("2026-10-02 20:00", ledger.TxTopup, "100", "100"),
				tx("2026-10-02 20:05", ledger.TxFreeze, "5", "95"),
				tx("2026-10-02 21:00", ledger.TxUnfreeze, "5", "100"),
				tx("2026-10-02 21:00", ledger.TxCharge, "2.5", "97.5"),
			},
			opening: "0", expected: "97.5", closing: "97.5", difference: "0.0", basis: BasisAvailable,
		},
		{
			name: "rows without a balance are carried; a gap is found at the next shown balance",
			rows: []ledger.Transaction{
				tx("2026-10-01 09:00", ledger.TxTopup, "50", "50"),
				tx("2026-10-02 09:00", ledger.TxCharge, "3", ""),
				tx("2026-10-03 09:00", ledger.TxVoucher, "5", "51"), // should be 52
				tx("2026-10-04 09:00", ledger.TxRefund, "1", ""),
			},
			opening: "0", expected: "53", closing: "52", difference: "-1", basis: BasisTotal, gaps: 1,
		},
		{
			name: "no balance column: everything unknown",
			rows: []ledger.Transaction{
				tx("2026-10-01 09:00", ledger.TxTopup, "50", ""),
				tx("2026-10-02 09:00", ledger.TxWithdrawal, "10", ""),
			},
			basis: BasisTotal,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := testkit.OpenLedger(t)
			importFlow(t, db, "flow.csv", tc.rows)
			bs, err := Balances(context.Background(), db, "2026-10", shanghaiTZ)
			if err != nil {
				t.Fatal(err)
			}
			if len(bs) != 1 {
				t.Fatalf("got %d balances, want 1", len(bs))
			}
			b := bs[0]
			str := func(d decimal.NullDecimal) string {
				if !d.Valid {
					return ""
				}
				return money.String(d.Decimal)
			}
			for _, x := range []struct{ name, got, want string }{
				{"opening", str(b.Opening), tc.opening}, {"expected", str(b.Expected), tc.expected},
				{"closing", str(b.Closing), tc.closing}, {"difference", str(b.Difference), tc.difference},
				{"basis", b.Basis, tc.basis},
			} {
				if x.got != x.want {
					t.Errorf("%s: got %q, want %q", x.name, x.got, x.want)
				}
			}
			if len(b.Gaps) != tc.gaps {
				t.Errorf("gaps: got %d, want %d", len(b.Gaps), tc.gaps)
			}
		})
	}
}

// TestBalancesNewestFirstFile: an export that lists the newest row first
// is read bottom-up for rows of the same instant, so the balance chain holds.
func TestBalancesNewestFirstFile(t *testing.T) {
	db := testkit.OpenLedger(t)
	importFlow(t, db, "newest-first.csv", []ledger.Transaction{
		tx("2026-10-02 21:30", ledger.TxCharge, "1", "96"),
		tx("2026-10-02 21:30", ledger.TxCharge, "3", "97"),
		tx("2026-10-01 09:00", ledger.TxTopup, "100", "100"),
	})
	bs, err := Balances(context.Background(), db, "2026-10", shanghaiTZ)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 1 || len(bs[0].Gaps) != 0 || !bs[0].Difference.Decimal.IsZero() {
		t.Errorf("got %+v, want no gap", bs)
	}
}

func TestDailyChargesSettlementDay(t *testing.T) {
	db := testkit.OpenLedger(t)
	importFlow(t, db, "flow.csv", []ledger.Transaction{
		tx("2026-10-02 00:00", ledger.TxCharge, "0.33", ""), // yesterday's storage, deducted at midnight
		tx("2026-10-02 10:00", ledger.TxCharge, "49", ""),   // a package, bought at 10:00
		tx("2026-10-03 10:00", ledger.TxCharge, "1", ""),    // not in the bill
	})
	day := func(s string) time.Time { t, _ := time.ParseInLocation("2006-01-02 15:04", s, shanghaiTZ); return t }
	storage := ledger.LineItem{Provider: "gpushare", BillingPeriod: "2026-10",
		ChargePeriodStart: day("2026-10-01 00:00"), ChargePeriodEnd: day("2026-10-02 00:00"),
		Kind: ledger.KindStorage, BilledCost: decimal.RequireFromString("0.33")}
	pkg := ledger.LineItem{Provider: "gpushare", BillingPeriod: "2026-10",
		ChargePeriodStart: day("2026-10-02 10:00"), ChargePeriodEnd: day("2026-10-09 10:00"),
		Kind: ledger.KindCompute, PricingModel: ledger.PricingPackage,
		ResourceID: "v100", BilledCost: decimal.RequireFromString("49")}
	hour := ledger.LineItem{Provider: "gpushare", BillingPeriod: "2026-10",
		ChargePeriodStart: day("2026-10-03 09:00"), ChargePeriodEnd: day("2026-10-03 10:00"),
		Kind: ledger.KindCompute, ResourceID: "x",
		BilledCost: decimal.RequireFromString("0.9")}
	testkit.ImportItems(t, db, "bill.csv", []ledger.LineItem{storage, pkg, hour})
	got, err := DailyCharges(context.Background(), db, "2026-10", shanghaiTZ)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Day != "2026-10-03" || got[0].Difference.String() != "0.1" {
		t.Errorf("got %+v, want only 2026-10-03 with 0.1 more in the flow", got)
	}
}

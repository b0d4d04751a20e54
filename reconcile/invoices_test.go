package reconcile

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

func nd(s string) decimal.NullDecimal {
	if s == "" {
		return decimal.NullDecimal{}
	}
	return decimal.NullDecimal{Decimal: decimal.RequireFromString(s), Valid: true}
}

// line is a compute line item of aliyun in month.
func line(month, billed, voucher, cash string) ledger.LineItem {
	start, _ := time.ParseInLocation("2006-01", month, shanghaiTZ)
	start = start.Add(24 * time.Hour)
	return ledger.LineItem{Provider: "aliyun", BillingPeriod: month,
		ChargePeriodStart: start, ChargePeriodEnd: start.Add(time.Hour),
		Kind: ledger.KindCompute, ResourceID: "i-1",
		BilledCost: decimal.RequireFromString(billed), VoucherPaid: nd(voucher), CashPaid: nd(cash)}
}

func invoice(number, amount, start, end string) ledger.Invoice {
	return ledger.Invoice{Provider: "aliyun", Number: number, Date: "2026-12-01", Amount: decimal.RequireFromString(amount),
		Currency: "CNY", PeriodStart: start, PeriodEnd: end}
}

// TestInvoiceCoverage: partial invoices add up, an invoice spanning two
// months fills them in order up to each month's invoiceable amount, the
// remainder of a spanning invoice shows as over-invoiced in its last month,
// a number recorded twice is counted once and listed, and vouchers and
// credit lines are never invoiceable.
func TestInvoiceCoverage(t *testing.T) {
	ctx := context.Background()
	db := testkit.OpenLedger(t)
	credit := line("2026-10", "-5", "", "")
	credit.Kind = ledger.KindCredit
	testkit.ImportItems(t, db, "aliyun.csv", []ledger.LineItem{
		line("2026-09", "100", "20", "80"),
		line("2026-10", "55", "10", ""), // cash not given: 55 − 10, estimated
		credit,                          // a voucher line: its 5 come off the cash (40)
		line("2026-11", "30", "", "30"),
	})
	if _, err := db.InsertInvoices(ctx, []ledger.Invoice{
		invoice("A", "15", "2026-10", "2026-10"), // partial
		invoice("B", "10", "2026-10", "2026-10"), // partial
		invoice("C", "90", "2026-09", "2026-10"), // spans September and October
		invoice("A", "16", "2026-10", "2026-10"), // the same number again, another amount
		invoice("E", "40", "2026-11", "2026-12"), // spans November and December, beyond what was paid
		invoice("F", "0.5", "", ""),              // no period: counts in the month of its date (December)
	}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		month                                         string
		invoiceable, invoiced, toRequest, over, basis string
		estimated                                     int
		allocated                                     map[string]string
		duplicates                                    int
	}{
		{"2026-09", "80", "80", "0", "0", InvoiceableLineItems, 0, map[string]string{"C": "80"}, 0},
		{"2026-10", "40", "35", "5", "0", InvoiceableLineItems, 1, map[string]string{"A": "15", "B": "10", "C": "10"}, 1},
		{"2026-11", "30", "30", "0", "0", InvoiceableLineItems, 0, map[string]string{"E": "30"}, 0},
		{"2026-12", "0", "10.5", "0", "10.5", InvoiceableNone, 0, map[string]string{"E": "10", "F": "0.5"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.month, func(t *testing.T) {
			rep, err := InvoiceCoverage(ctx, db, tc.month, InvoiceableOptions{TZ: shanghaiTZ})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Rows) != 1 {
				t.Fatalf("got %d rows, want 1: %+v", len(rep.Rows), rep.Rows)
			}
			c := rep.Rows[0]
			for _, x := range []struct{ name, got, want string }{
				{"invoiceable", c.Invoiceable.String(), tc.invoiceable}, {"invoiced", c.Invoiced.String(), tc.invoiced},
				{"to request", c.ToRequest.String(), tc.toRequest}, {"over-invoiced", c.OverInvoiced.String(), tc.over},
				{"basis", c.Basis, tc.basis},
			} {
				if x.got != x.want {
					t.Errorf("%s: got %s, want %s", x.name, x.got, x.want)
				}
			}
			if c.Estimated != tc.estimated {
				t.Errorf("estimated lines: got %d, want %d", c.Estimated, tc.estimated)
			}
			got := map[string]string{}
			for _, inv := range c.Invoices {
				got[inv.Number] = inv.Allocated.String()
			}
			if len(got) != len(tc.allocated) {
				t.Errorf("allocated: got %v, want %v", got, tc.allocated)
			}
			for n, want := range tc.allocated {
				if got[n] != want {
					t.Errorf("invoice %s: allocated %s, want %s", n, got[n], want)
				}
			}
			if len(rep.Duplicates) != tc.duplicates {
				t.Errorf("duplicates: got %d, want %d", len(rep.Duplicates), tc.duplicates)
			}
			if tc.duplicates > 0 && (rep.Duplicates[0].Number != "A" || len(rep.Duplicates[0].Others) != 1 ||
				!rep.Duplicates[0].Others[0].Amount.Equal(decimal.NewFromInt(16))) {
				t.Errorf("duplicate %+v, want A counted once and the ¥16 record listed", rep.Duplicates[0])
			}
		})
	}
}

// TestInvoiceableProject: with a project, only its bill lines count, and
// money flow (which has no project) is left out.
func TestInvoiceableProject(t *testing.T) {
	ctx := context.Background()
	db := testkit.OpenLedger(t)
	a, b := line("2026-10", "10", "", "10"), line("2026-10", "7", "", "7")
	a.SubAccount, b.SubAccount = "NSFC-1", "other"
	testkit.ImportItems(t, db, "p.csv", []ledger.LineItem{a, b})
	got, err := Invoiceable(ctx, db, "2026-10", InvoiceableOptions{TZ: shanghaiTZ, Project: "NSFC-1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Amount.String() != "10" {
		t.Errorf("got %+v, want aliyun 10 for project NSFC-1", got)
	}
	all, err := Invoiceable(ctx, db, "2026-10", InvoiceableOptions{TZ: shanghaiTZ})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Amount.String() != "17" {
		t.Errorf("got %+v, want aliyun 17 without a project", all)
	}
}

// TestInvoiceableCreditLines: a credit line is a voucher used on top of
// what the charged lines state (ingest.SettlePaid: one meaning per line, so
// that spend, packet and reconcile agree): it comes off the cash; credits
// never make the amount negative.
func TestInvoiceableCreditLines(t *testing.T) {
	credit := func(billed string) ledger.LineItem {
		c := line("2026-10", billed, "", "")
		c.Kind, c.ResourceID = ledger.KindCredit, ""
		return c
	}
	tests := []struct {
		name  string
		items []ledger.LineItem
		want  string
	}{
		{"credit line only", []ledger.LineItem{line("2026-10", "100", "", "100"), credit("-10")}, "90"},
		{"voucher stated on the line too", []ledger.LineItem{line("2026-10", "100", "10", "90"), credit("-10")}, "80"},
		{"voucher stated in part", []ledger.LineItem{line("2026-10", "100", "4", "96"), credit("-10")}, "86"},
		{"estimated cash", []ledger.LineItem{line("2026-10", "100", "", ""), credit("-10.5")}, "89.5"},
		{"credits above the cash", []ledger.LineItem{line("2026-10", "100", "", "100"), credit("-150")}, "0"},
		{"no credit", []ledger.LineItem{line("2026-10", "100", "", "100")}, "100"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := testkit.OpenLedger(t)
			testkit.ImportItems(t, db, "a.csv", tc.items)
			got, err := Invoiceable(context.Background(), db, "2026-10", InvoiceableOptions{TZ: shanghaiTZ})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Amount.String() != tc.want {
				t.Fatalf("got %+v, want one amount of %s", got, tc.want)
			}
		})
	}
}

package ledger

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"
)

func paidDec(s string) decimal.NullDecimal {
	if s == "" {
		return decimal.NullDecimal{}
	}
	return decimal.NullDecimal{Decimal: decimal.RequireFromString(s), Valid: true}
}

func ns(d decimal.NullDecimal) string {
	if !d.Valid {
		return "null"
	}
	return d.Decimal.String()
}

// paidCases are credit lines and charges as formats map them (the source's
// parts) and what SettlePaid makes of them; TestMigration0012 applies the
// same to stored rows.
type paidCase struct {
	name                      string
	kind, format              string
	billed, voucher, cash     string // as mapped ("" = unknown)
	wantVoucher, wantCash     string // "" = unknown
	wantOtherNull, billedCash bool
}

var paidCases = []paidCase{
	{"template voucher line", KindCredit, "gpubill-bill", "-10.00", "-10.00", "0", "10.00", "-10.00", false, false},
	{"template voucher written positive", KindCredit, "gpubill-bill", "-10", "10", "0", "10", "-10", false, false},
	{"credit without parts (FOCUS)", KindCredit, "focus", "-2.5", "", "", "2.5", "-2.5", true, true},
	{"compensation paid back in money", KindCredit, "huaweicloud-usage", "-5", "0", "-5", "0", "-5", false, false},
	{"charge keeps its parts", KindCompute, "aliyun-bill", "100", "10", "90", "10", "90", false, false},
	{"FOCUS charge is paid in money", KindCompute, "focus", "3.2", "", "", "", "3.2", false, true},
	{"template charge without parts stays unknown", KindCompute, "gpubill-bill", "3.2", "", "", "", "", false, false},
}

// other is what the case's source states as other_paid and unpaid: 0 where
// it states a voucher or cash part, else nothing.
func (c paidCase) other() string {
	if c.voucher == "" && c.cash == "" {
		return ""
	}
	return "0"
}

func TestSettlePaid(t *testing.T) {
	for _, c := range paidCases {
		t.Run(c.name, func(t *testing.T) {
			li := LineItem{Kind: c.kind, BilledCost: decimal.RequireFromString(c.billed),
				VoucherPaid: paidDec(c.voucher), CashPaid: paidDec(c.cash), OtherPaid: paidDec(c.other()), Unpaid: paidDec(c.other())}
			SettlePaid(&li, c.billedCash)
			if got, want := ns(li.VoucherPaid), ns(paidDec(c.wantVoucher)); got != want {
				t.Errorf("voucher_paid: got %s, want %s", got, want)
			}
			if got, want := ns(li.CashPaid), ns(paidDec(c.wantCash)); got != want {
				t.Errorf("cash_paid: got %s, want %s", got, want)
			}
			if c.wantOtherNull && li.OtherPaid.Valid {
				t.Errorf("other_paid: got %s, want null", ns(li.OtherPaid))
			}
			if li.CashPaid.Valid && li.CashPaid.Decimal.GreaterThan(li.BilledCost) {
				t.Errorf("cash_paid %s above billed %s", ns(li.CashPaid), li.BilledCost)
			}
		})
	}
}

// TestMigration0012 stores lines in the meaning of earlier versions and runs
// migration 0012 over them: they read as SettlePaid makes them.
func TestMigration0012(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "l.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := db.SQL()
	if _, err := q.Exec(`INSERT INTO imports(id, path, sha256, size, format, started_at, status) VALUES
		(1, 'a', 'x', 1, 'gpubill-bill', '2026-10-01T00:00:00Z', 'ok'), (2, 'b', 'y', 1, 'focus', '2026-10-01T00:00:00Z', 'ok'),
		(3, 'c', 'z', 1, 'huaweicloud-usage', '2026-10-01T00:00:00Z', 'ok'), (4, 'd', 'w', 1, 'aliyun-bill', '2026-10-01T00:00:00Z', 'ok')`); err != nil {
		t.Fatal(err)
	}
	imp := map[string]int{"gpubill-bill": 1, "focus": 2, "huaweicloud-usage": 3, "aliyun-bill": 4}
	null := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	for i, c := range paidCases {
		other := null(c.other())
		if _, err := q.Exec(`INSERT INTO line_items(provider, billing_period, charge_period_start, charge_period_end,
			charge_category, kind, billed_cost, voucher_paid, cash_paid, other_paid, unpaid, currency, import_id, source_row, row_key)
			VALUES ('p', '2026-10', 'a', 'b', 'Usage', ?, ?, ?, ?, ?, ?, 'CNY', ?, ?, ?)`,
			c.kind, c.billed, null(c.voucher), null(c.cash), other, other, imp[c.format], i+1, c.name); err != nil {
			t.Fatal(err)
		}
	}
	m, err := fs.ReadFile(migrationSource, "migrations/0012_paid_meaning.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Exec(string(m)); err != nil {
		t.Fatal(err)
	}
	for _, c := range paidCases {
		var v, cash sql.NullString
		if err := q.QueryRow(`SELECT voucher_paid, cash_paid FROM line_items WHERE row_key = ?`, c.name).Scan(&v, &cash); err != nil {
			t.Fatal(err)
		}
		li := LineItem{Kind: c.kind, BilledCost: decimal.RequireFromString(c.billed),
			VoucherPaid: paidDec(c.voucher), CashPaid: paidDec(c.cash), OtherPaid: paidDec(c.other()), Unpaid: paidDec(c.other())}
		SettlePaid(&li, c.billedCash)
		str := func(s sql.NullString) string {
			if !s.Valid {
				return "null"
			}
			return decimal.RequireFromString(s.String).String()
		}
		if str(v) != ns(li.VoucherPaid) || str(cash) != ns(li.CashPaid) {
			t.Errorf("%s: migrated voucher %s cash %s; SettlePaid gives %s, %s", c.name, str(v), str(cash), ns(li.VoucherPaid), ns(li.CashPaid))
		}
	}
}

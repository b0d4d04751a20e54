package ingest

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

// TestPaidMeaningAcrossFormats imports one charge of 10.00 of which a
// voucher paid 2.00, written as each format writes it (the template two
// ways, FOCUS as a charge and a Credit line, 阿里云, 腾讯云 and 华为云 with
// their voucher columns), and checks the ledger stores one meaning
// (SettlePaid): the voucher used is a positive voucher_paid of 2,
// the cash paid is 8, and cash never exceeds billed.
func TestPaidMeaningAcrossFormats(t *testing.T) {
	files := map[string]string{
		"template-columns.csv": "平台,费用类型,实例ID,开始时间,结束时间,应付金额,代金券,现金支付\n" +
			"AutoDL,GPU计算,i-1,2026-10-03 14:00:00,2026-10-03 15:00:00,10.00,2.00,8.00\n",
		"template-credit-line.csv": "平台,费用类型,实例ID,开始时间,结束时间,应付金额,代金券,现金支付\n" +
			"AutoDL,GPU计算,i-1,2026-10-03 14:00:00,2026-10-03 15:00:00,10.00,0,10.00\n" +
			"AutoDL,代金券,,2026-10-03 14:00:00,2026-10-03 14:00:00,-2.00,-2.00,0\n",
		"template-credit-only.csv": "平台,费用类型,实例ID,开始时间,结束时间,应付金额\n" +
			"AutoDL,GPU计算,i-1,2026-10-03 14:00:00,2026-10-03 15:00:00,10.00\n" +
			"AutoDL,代金券,,2026-10-03 14:00:00,2026-10-03 14:00:00,-2.00\n",
		"focus.csv": "BilledCost,ChargePeriodStart,ChargePeriodEnd,ProviderName,ChargeCategory,ResourceId,ServiceCategory,BillingCurrency\n" +
			"10.00,2026-10-03T06:00:00Z,2026-10-03T07:00:00Z,AWS,Usage,i-1,Compute,CNY\n" +
			"-2.00,2026-10-03T06:00:00Z,2026-10-03T07:00:00Z,AWS,Credit,,Compute,CNY\n",
		"aliyun.csv": "账期,日期,产品Code,产品,计费方式,实例ID,计费项,官网价,应付金额,现金支付,代金券抵扣,储值卡支付金额,欠费金额,币种\n" +
			"2026-10,20261003,ecs,云服务器 ECS,按量付费,i-1,实例规格,10.00,10.00,8.00,2.00,0,0,CNY\n",
		"tencentcloud.csv": "产品名称,计费模式,资源ID,交易类型,扣费时间,开始使用时间,结束使用时间,组件类型,组件名称,组件原价,优惠后总价,代金券支出(元),赠送账户支出(元),现金账户支出(元)\n" +
			"云服务器CVM,按量计费,ins-1,按量计费小时结,2026-10-03 15:00:00,2026-10-03 14:00:00,2026-10-03 15:00:00,CPU,CPU,10.00,10.00,2.00,0,8.00\n",
	}
	for name, body := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			db := testkit.OpenLedger(t)
			if _, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai}); err != nil {
				t.Fatal(err)
			}
			var billed, voucher, cash string
			if err := db.SQL().QueryRow(`SELECT dsum(billed_cost), dsum(voucher_paid), dsum(cash_paid) FROM line_items`).
				Scan(&billed, &voucher, &cash); err != nil {
				t.Fatal(err)
			}
			if got := dec(t, voucher); !got.Equal(dec(t, "2")) {
				t.Errorf("voucher_paid: got %s, want 2 (the voucher used, positive)", voucher)
			}
			if got := dec(t, cash); !got.Equal(dec(t, "8")) {
				t.Errorf("cash_paid: got %s, want 8", cash)
			}
			if dec(t, cash).GreaterThan(dec(t, billed)) {
				t.Errorf("cash_paid %s above billed %s", cash, billed)
			}
		})
	}
}

func dec(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatalf("amount %q: %v", s, err)
	}
	return d
}

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
	{"template voucher line", ledger.KindCredit, "gpubill-bill", "-10.00", "-10.00", "0", "10.00", "-10.00", false, false},
	{"template voucher written positive", ledger.KindCredit, "gpubill-bill", "-10", "10", "0", "10", "-10", false, false},
	{"credit without parts (FOCUS)", ledger.KindCredit, "focus", "-2.5", "", "", "2.5", "-2.5", true, true},
	{"compensation paid back in money", ledger.KindCredit, "huaweicloud-usage", "-5", "0", "-5", "0", "-5", false, false},
	{"charge keeps its parts", ledger.KindCompute, "aliyun-bill", "100", "10", "90", "10", "90", false, false},
	{"FOCUS charge is paid in money", ledger.KindCompute, "focus", "3.2", "", "", "", "3.2", false, true},
	{"template charge without parts stays unknown", ledger.KindCompute, "gpubill-bill", "3.2", "", "", "", "", false, false},
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
			li := ledger.LineItem{Kind: c.kind, BilledCost: decimal.RequireFromString(c.billed),
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
// ledger migration 0012 over them: they read as SettlePaid makes them (the
// migration lives in ledger, the meaning here, where both are in reach).
func TestMigration0012(t *testing.T) {
	ctx := context.Background()
	db, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "l.db"))
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
	m, err := os.ReadFile(filepath.Join("..", "ledger", "migrations", "0012_paid_meaning.sql"))
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
		li := ledger.LineItem{Kind: c.kind, BilledCost: decimal.RequireFromString(c.billed),
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

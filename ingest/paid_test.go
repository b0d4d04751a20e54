package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/internal/testkit"
)

// TestPaidMeaningAcrossFormats imports one charge of 10.00 of which a
// voucher paid 2.00, written as each format writes it (the template two
// ways, FOCUS as a charge and a Credit line, 阿里云, 腾讯云 and 华为云 with
// their voucher columns), and checks the ledger stores one meaning
// (ledger.SettlePaid): the voucher used is a positive voucher_paid of 2,
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

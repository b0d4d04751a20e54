package ingest

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/shopspring/decimal"
)

// TestVolcengineDiscountTrap pins FORMATS.md's worked example: 原价 168.74,
// 优惠金额 148.500779 (the discount taken off), 抹零金额 0.559221, 折后价 19.68
// (the price after it). The line costs 19.68, not 148.500779, whatever the
// header language, the column order, or whether 应付金额 is there at all.
func TestVolcengineDiscountTrap(t *testing.T) {
	list := decimal.RequireFromString("168.74")
	pref := decimal.RequireFromString("148.500779")
	round := decimal.RequireFromString("0.559221")
	for _, tc := range []struct {
		name, csv string
		voucher   string // want voucher_paid ("" = unknown)
		billed    string
	}{
		{"chinese header",
			"账期,消费开始时间,消费结束时间,实例ID,计费项,原价,优惠金额,抹零金额,折后价,代金券抵扣,应付金额,现金支付,欠费金额\n" +
				"2026-10,2026-10-01 00:00:00,2026-10-02 00:00:00,i-1,实例,168.740000,148.500779,0.559221,19.68,0.00,19.68,19.68,0.00\n",
			"0.00", "19.68"},
		{"api names",
			"BillPeriod,ExpenseBeginTime,ExpenseEndTime,InstanceNo,Element,OriginalBillAmount,PreferentialBillAmount,RoundAmount,DiscountBillAmount,CouponAmount,PayableAmount,PaidAmount,UnpaidAmount\n" +
				"2026-10,2026-10-01 00:00:00,2026-10-02 00:00:00,i-1,实例,168.740000,148.500779,0.559221,19.68,0.00,19.68,19.68,0.00\n",
			"0.00", "19.68"},
		{"折后价 before 优惠金额, other columns shuffled",
			"应付金额,折后价,计费项,原价,账期,抹零金额,优惠金额,实例ID\n" +
				"19.68,19.68,实例,168.740000,2026-10,0.559221,148.500779,i-1\n",
			"", "19.68"},
		{"no 应付金额 column: 折后价 − 代金券",
			"账期,消费日期,实例ID,计费项,原价,优惠金额,抹零金额,折后价,代金券抵扣\n" +
				"2026-10,2026-10-01,i-1,实例,168.740000,148.500779,0.559221,19.68,0.00\n",
			"0.00", "19.68"},
		{"no 应付金额 column, with a voucher",
			"账期,消费日期,实例ID,计费项,原价,优惠金额,抹零金额,折后价,代金券抵扣\n" +
				"2026-10,2026-10-01,i-1,实例,168.740000,148.500779,0.559221,19.68,5.00\n",
			"5.00", "14.68"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTemp(t, t.TempDir(), "volc.csv", []byte(tc.csv))
			db := testkit.OpenLedger(t)
			res, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai})
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != "volcengine-bill" || res.New != 1 {
				t.Fatalf("format %q new %d, want volcengine-bill and 1", res.Format, res.New)
			}
			var listCost, billed string
			var voucher sql.NullString
			if err := db.SQL().QueryRow(`SELECT list_cost, billed_cost, voucher_paid FROM line_items`).Scan(&listCost, &billed, &voucher); err != nil {
				t.Fatal(err)
			}
			if !decimal.RequireFromString(listCost).Equal(list) {
				t.Errorf("list_cost = %s, want 168.74 (原价)", listCost)
			}
			if !decimal.RequireFromString(billed).Equal(decimal.RequireFromString(tc.billed)) {
				t.Errorf("billed_cost = %s, want %s (优惠金额 148.500779 is a discount, not the price)", billed, tc.billed)
			}
			if voucher.String != tc.voucher {
				t.Errorf("voucher_paid = %q, want %q", voucher.String, tc.voucher)
			}
			// What the discounts took off: 优惠金额 + 抹零金额 (+ voucher, when
			// 应付金额 was derived).
			discount := decimal.RequireFromString(listCost).Sub(decimal.RequireFromString(billed))
			wantDiscount := pref.Add(round)
			if tc.voucher != "" {
				wantDiscount = wantDiscount.Add(decimal.RequireFromString(tc.voucher))
			}
			if !discount.Equal(wantDiscount) {
				t.Errorf("list − billed = %s, want %s", discount, wantDiscount)
			}
		})
	}
}

var volcengineMoney = []sampleMoney{
	{"list_cost", []string{"原价", "OriginalBillAmount"}},
	{"billed_cost", []string{"应付金额", "PayableAmount"}},
	{"voucher_paid", []string{"代金券抵扣", "CouponAmount"}},
	{"cash_paid", []string{"现金支付", "PaidAmount"}},
	{"unpaid", []string{"欠费金额", "UnpaidAmount"}},
}

// TestVolcengineSampleSums: the money columns of each sample sum in the
// ledger exactly to the file's own column sums; the 合计 row is skipped (and
// counted as skipped), and the sums agree with it too.
func TestVolcengineSampleSums(t *testing.T) {
	for _, tc := range []struct {
		file         string
		rows, totals int
	}{
		{"bill_zh.csv", 11, 1},
		{"bill_api.csv", 6, 0},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "volcengine-bill", tc.file)
			want, rows, totals, header, records := fileSums(t, path, false, volcengineMoney)
			if rows != tc.rows || totals != tc.totals {
				t.Fatalf("the sample has %d data rows and %d total rows, want %d and %d", rows, totals, tc.rows, tc.totals)
			}
			db := testkit.OpenLedger(t)
			res, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai})
			if err != nil {
				t.Fatal(err)
			}
			if res.New != rows || res.Skipped != totals || res.Read != rows+totals {
				t.Errorf("read/new/skipped = %d/%d/%d, want %d/%d/%d", res.Read, res.New, res.Skipped, rows+totals, rows, totals)
			}
			got, n := ledgerSums(t, db, volcengineMoney)
			if n != rows {
				t.Errorf("stored %d line items, want %d", n, rows)
			}
			for _, m := range volcengineMoney {
				if w, g := want[m.column], got[m.column]; !g.Equal(w) {
					t.Errorf("dsum(%s) = %s, want %s (the file's own sum of %s)", m.column, g, w, m.headers[0])
				}
			}
			// The 合计 row, where there is one, says the same.
			for _, rec := range records {
				if rec[0] != "合计" {
					continue
				}
				for _, m := range volcengineMoney {
					for i, h := range header {
						if h == m.headers[0] {
							if w := decimal.RequireFromString(rec[i]); !got[m.column].Equal(w) {
								t.Errorf("dsum(%s) = %s, the 合计 row says %s", m.column, got[m.column], w)
							}
						}
					}
				}
			}
		})
	}
}

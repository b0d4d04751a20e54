package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
	"github.com/shopspring/decimal"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// paymentsDir is ../shared/external/payments/ seen from the repository root.
var paymentsDir = filepath.Join("..", "..", "shared", "external", "payments")

// paySums are a file's own figures, computed without the importer.
type paySums struct {
	rows int
	sum  map[string]decimal.Decimal // by direction
	n    map[string]int
}

// rawPaySums reads an Alipay or WeChat Pay CSV the simple way: decode GBK if
// the bytes are not UTF-8, take the first line that starts with a known
// header, split the following lines on commas (the samples have no comma
// inside a cell), strip spaces, tabs, quotes and ¥, and add up the amount
// column by 收/支. Lines without a date in the time column end the table.
func rawPaySums(t *testing.T, path string) paySums {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if !utf8.Valid(b) {
		u, err := simplifiedchinese.GBK.NewDecoder().Bytes(b)
		if err != nil {
			t.Fatal(err)
		}
		text = string(u)
	}
	clean := func(s string) string { return strings.Trim(s, " \t\r\"") }
	var header []string
	s := paySums{sum: map[string]decimal.Decimal{}, n: map[string]int{}}
	for _, line := range strings.Split(text, "\n") {
		cells := strings.Split(line, ",")
		for i := range cells {
			cells[i] = clean(cells[i])
		}
		if header == nil {
			if cells[0] == "交易时间" || cells[0] == "交易号" || cells[0] == "收/支" {
				header = cells
			}
			continue
		}
		col := func(names ...string) string {
			for i, h := range header {
				for _, n := range names {
					if h == n && i < len(cells) {
						return cells[i]
					}
				}
			}
			return ""
		}
		tm := col("交易时间", "交易创建时间")
		if len(tm) < 10 || tm[4] != '-' {
			continue // frame, footer or blank line
		}
		amt := strings.TrimPrefix(col("金额", "金额(元)", "金额（元）"), "¥")
		d, err := decimal.NewFromString(amt)
		if err != nil {
			t.Fatalf("%s: amount %q: %v", path, amt, err)
		}
		dir := map[string]string{"支出": DirOut, "收入": DirIn}[col("收/支")]
		if dir == "" {
			dir = DirNone
		}
		s.rows++
		s.n[dir]++
		s.sum[dir] = s.sum[dir].Add(d)
	}
	if header == nil {
		t.Fatalf("%s: no header line", path)
	}
	return s
}

// storedPaySums reads the ledger's payments back per direction with dsum.
func storedPaySums(t *testing.T, db *ledger.DB) paySums {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT direction, count(*), dsum(amount) FROM payments GROUP BY direction`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	s := paySums{sum: map[string]decimal.Decimal{}, n: map[string]int{}}
	for rows.Next() {
		var dir, sum string
		var n int
		if err := rows.Scan(&dir, &n, &sum); err != nil {
			t.Fatal(err)
		}
		s.n[dir], s.sum[dir] = n, decimal.RequireFromString(sum)
		s.rows += n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

func comparePaySums(t *testing.T, got, want paySums) {
	t.Helper()
	if got.rows != want.rows {
		t.Errorf("stored %d payments, want %d (the file's records)", got.rows, want.rows)
	}
	for _, dir := range []string{DirOut, DirIn, DirNone} {
		if got.n[dir] != want.n[dir] || !got.sum[dir].Equal(want.sum[dir]) {
			t.Errorf("direction %s: got %d rows summing %s, want %d rows summing %s",
				dir, got.n[dir], got.sum[dir], want.n[dir], want.sum[dir])
		}
	}
}

// TestPaymentSamples is the acceptance test of the payment importers: the
// real Alipay and WeChat Pay examples of ../shared/external/payments/ (see
// its README) and our own samples. Every record is stored, the sums per
// direction equal the file's own exactly, and a second import adds nothing.
func TestPaymentSamples(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		format   string
		wantRows int    // records in the file (0: only compare with rawPaySums)
		sumsOf   string // CSV whose own sums the stored rows must equal ("" = path)
		external bool
	}{
		{"alipay real", filepath.Join(paymentsDir, "example-alipay-records.csv"), "alipay-mobile", 10, "", true},
		{"wechat real csv", filepath.Join(paymentsDir, "example-wechat-records.csv"), "wechatpay", 27, "", true},
		{"wechat real xlsx", filepath.Join(paymentsDir, "example-wechat-records.xlsx"), "wechatpay", 27,
			filepath.Join(paymentsDir, "example-wechat-records.csv"), true},
		{"alipay mobile", "testdata/alipay-mobile/alipay_mobile.csv", "alipay-mobile", 12, "", false},
		{"alipay mobile old order", "testdata/alipay-mobile/alipay_mobile_old.csv", "alipay-mobile", 5, "", false},
		{"alipay web", "testdata/alipay-web/alipay_web.csv", "alipay-web", 6, "", false},
		{"alipay web 商户订单号", "testdata/alipay-web/alipay_web_merchant.csv", "alipay-web", 2, "", false},
		{"wechat csv", "testdata/wechatpay/wechatpay.csv", "wechatpay", 12, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.path); err != nil {
				if tc.external {
					t.Skipf("external sample absent (%s): skipping", tc.path)
				}
				t.Fatal(err)
			}
			sumsOf := tc.sumsOf
			if sumsOf == "" {
				sumsOf = tc.path
			}
			want := rawPaySums(t, sumsOf)
			if want.rows != tc.wantRows {
				t.Fatalf("the file's own count: %d records, want %d", want.rows, tc.wantRows)
			}
			ctx := context.Background()
			db := testkit.OpenLedger(t)
			res, err := ImportFile(ctx, db, tc.path, Options{TZ: shanghai})
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != tc.format || res.New != tc.wantRows {
				t.Errorf("format %q, new %d; want %q, %d", res.Format, res.New, tc.format, tc.wantRows)
			}
			if res.Skipped != 0 {
				t.Errorf("read %d, skipped %d; want none skipped (frame and footer lines are no records)", res.Read, res.Skipped)
			}
			if res.Read != res.New+res.Duplicate+res.Skipped {
				t.Errorf("read %d != new %d + duplicate %d + skipped %d", res.Read, res.New, res.Duplicate, res.Skipped)
			}
			comparePaySums(t, storedPaySums(t, db), want)
			again, err := ImportFile(ctx, db, tc.path, Options{TZ: shanghai})
			if err != nil {
				t.Fatal(err)
			}
			if again.New != 0 || countRows(t, db, "payments") != tc.wantRows {
				t.Errorf("second import: new %d, stored %d; want 0 new, %d stored", again.New, countRows(t, db, "payments"), tc.wantRows)
			}
		})
	}
}

// TestWeChatCSVThenXLSX: the same records exported as CSV and as XLSX (times
// as text or Excel serials, amounts as ¥ text or as doubles) get the same
// keys, so the second file adds nothing.
func TestWeChatCSVThenXLSX(t *testing.T) {
	csvPath := filepath.Join(paymentsDir, "example-wechat-records.csv")
	xlsxPath := filepath.Join(paymentsDir, "example-wechat-records.xlsx")
	for _, p := range []string{csvPath, xlsxPath} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("external sample absent (%s): skipping", p)
		}
	}
	ctx := context.Background()
	db := testkit.OpenLedger(t)
	if _, err := ImportFile(ctx, db, csvPath, Options{TZ: shanghai}); err != nil {
		t.Fatal(err)
	}
	res, err := ImportFile(ctx, db, xlsxPath, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if res.New != 0 || res.Duplicate != 54 {
		t.Errorf("xlsx after csv: new %d duplicate %d, want 0 and 54 (27 records on each of two sheets)", res.New, res.Duplicate)
	}
	// Our own pair: wechatpay_serial.xlsx holds the first rows of wechatpay.csv,
	// with serial times and double amounts.
	db2 := testkit.OpenLedger(t)
	if _, err := ImportFile(ctx, db2, "testdata/wechatpay/wechatpay.csv", Options{TZ: shanghai}); err != nil {
		t.Fatal(err)
	}
	res, err = ImportFile(ctx, db2, "testdata/wechatpay/wechatpay_serial.xlsx", Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	// 6 of its 7 rows are in the CSV; the last (0.07 on 10-23) is not.
	if res.New != 1 || res.Duplicate != 6 {
		t.Errorf("our xlsx after our csv: new %d duplicate %d, want 1 and 6", res.New, res.Duplicate)
	}
}

// TestAlipayRefundRow: a refund is its own row, kept with its status, and
// its 交易订单号 (the original's, extended) gives it a key of its own.
func TestAlipayRefundRow(t *testing.T) {
	db := testkit.OpenLedger(t)
	res, err := ImportFile(context.Background(), db, "testdata/alipay-mobile/alipay_mobile.csv", Options{TZ: shanghai, Preview: 20})
	if err != nil {
		t.Fatal(err)
	}
	var orig, refund *ledger.Payment
	for i := range res.PreviewPay {
		p := &res.PreviewPay[i]
		switch p.OrderNo {
		case "2026100822001400011234567893":
			orig = p
		case "2026100822001400011234567893_2026100918222801":
			refund = p
		}
	}
	if orig == nil || refund == nil {
		t.Fatalf("original %v and refund %v rows: want both in the preview", orig, refund)
	}
	if orig.Direction != DirOut || orig.Status != "等待确认收货" {
		t.Errorf("original: direction %q status %q, want out, 等待确认收货", orig.Direction, orig.Status)
	}
	if refund.Direction != DirNone || refund.Status != "退款成功" || !refund.Amount.Equal(decimal.RequireFromString("200")) {
		t.Errorf("refund: direction %q status %q amount %s, want none, 退款成功, 200.00", refund.Direction, refund.Status, refund.Amount)
	}
	if refund.RowKey == orig.RowKey || refund.MerchantOrderNo != orig.MerchantOrderNo {
		t.Errorf("refund key %q merchant %q vs original %q %q: want distinct keys, same merchant order", refund.RowKey,
			refund.MerchantOrderNo, orig.RowKey, orig.MerchantOrderNo)
	}
}

// goldenPay is the stable rendering of a stored payment.
type goldenPay struct {
	SourceRow       int      `json:"source_row"`
	RowKey          string   `json:"row_key"`
	Source          string   `json:"source"`
	Time            string   `json:"time"`
	Direction       string   `json:"direction"`
	Counterparty    string   `json:"counterparty,omitempty"`
	Item            string   `json:"item,omitempty"`
	Amount          string   `json:"amount"`
	Currency        string   `json:"currency"`
	Status          string   `json:"status,omitempty"`
	OrderNo         string   `json:"order_no,omitempty"`
	MerchantOrderNo string   `json:"merchant_order_no,omitempty"`
	Raw             []string `json:"raw"`
}

func storedPays(t testing.TB, db *ledger.DB) []goldenPay {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT source_row, row_key, source, time, direction, counterparty, item, amount, currency,
		status, order_no, merchant_order_no, raw FROM payments ORDER BY import_id, source_row`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []goldenPay
	for rows.Next() {
		var g goldenPay
		var raw string
		if err := rows.Scan(&g.SourceRow, &g.RowKey, &g.Source, &g.Time, &g.Direction, &g.Counterparty, &g.Item, &g.Amount,
			&g.Currency, &g.Status, &g.OrderNo, &g.MerchantOrderNo, &raw); err != nil {
			t.Fatal(err)
		}
		g.Raw = jsonStrings(t, raw)
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPaymentGolden imports every sample of the payment formats and compares
// the stored payments with name.payments.golden (TestGolden covers the
// import counts and bad_* errors, but renders only line items and
// transactions); a bad_* sample must store nothing.
func TestPaymentGolden(t *testing.T) {
	n := 0
	for _, f := range registered() {
		if f.Target != TargetPayments {
			continue
		}
		n++
		dir := filepath.Join("testdata", f.ID)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Errorf("format %s has no samples: %v", f.ID, err)
			continue
		}
		for _, e := range entries {
			ext := filepath.Ext(e.Name())
			if ext != ".csv" && ext != ".xlsx" {
				continue
			}
			path := filepath.Join(dir, e.Name())
			t.Run(f.ID+"/"+e.Name(), func(t *testing.T) {
				db := testkit.OpenLedger(t)
				_, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai})
				if strings.HasPrefix(e.Name(), "bad_") {
					var ie *InputError
					if !errors.As(err, &ie) {
						t.Fatalf("error %v (%T), want an *InputError", err, err)
					}
					if n := countRows(t, db, "payments"); n != 0 {
						t.Errorf("a refused file stored %d payments, want 0", n)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				testkit.Golden(t, strings.TrimSuffix(path, ext)+".payments.golden", mustJSON(t, storedPays(t, db)), *update)
			})
		}
	}
	if n != 3 {
		t.Errorf("%d payment formats registered, want 3 (alipay-mobile, alipay-web, wechatpay)", n)
	}
}

func TestExcelDigits(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"double of 548.58", "548.58000000000004", "548.58"},
		{"double of 0.07 in E notation", "7.0000000000000007E-2", "0.07"},
		{"double of 100.1", "100.09999999999999432", "100.10"},
		{"integer gets two decimals", "12", "12.00"},
		{"one decimal gets two", "9.9", "9.90"},
		{"more decimals kept", "0.125", "0.125"},
		{"15 digits kept", "1234567.12345678", "1234567.12345678"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := money.String(excelDigits(decimal.RequireFromString(tc.in)))
			if got != tc.want {
				t.Errorf("excelDigits(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseDirection(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"支出", DirOut, true}, {"收入", DirIn, true}, {"不计收支", DirNone, true}, {"/", DirNone, true},
		{"", DirNone, true}, {"付款", "", false}, {"out", "", false},
	}
	for _, tc := range tests {
		got, ok := parseDirection(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseDirection(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestPaymentStatedCount: a payment export's own 共N笔记录 (in the preamble,
// or in the web export's footer) is compared with the records read: a
// mismatch imports every row and warns; a match says nothing.
func TestPaymentStatedCount(t *testing.T) {
	tests := []struct {
		name, path string
		want       string // substring of the English warning; "" = none
	}{
		{"WeChat preamble says 99", filepath.Join("testdata", "wechatpay", "wechatpay.csv"), "says it holds 99 records but 12 were read"},
		{"Alipay web footer says 9", filepath.Join("testdata", "alipay-web", "alipay_web.csv"), "says it holds 9 records but 6 were read"},
		{"Alipay preamble that agrees", filepath.Join("..", "testdata", "reconcile", "bills", "支付宝交易明细(20261001-20261130).csv"), ""},
		{"WeChat preamble that agrees", filepath.Join("..", "testdata", "reconcile", "bills", "微信支付账单(20261001-20261130).csv"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := ImportFile(context.Background(), testkit.OpenLedger(t), tc.path, Options{TZ: shanghai})
			if err != nil {
				t.Fatal(err)
			}
			if res.New == 0 {
				t.Fatal("nothing imported: a warning never drops rows")
			}
			if tc.want == "" {
				if len(res.Warnings) != 0 {
					t.Errorf("got warnings %+v, want none", res.Warnings)
				}
				return
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].EN, tc.want) || !strings.Contains(res.Warnings[0].ZH, "笔") {
				t.Errorf("got warnings %+v, want one saying %q", res.Warnings, tc.want)
			}
		})
	}
	if n, ok := statedCount([][]string{{"收入：1笔 0.35元"}, {"共 43 笔记录", ""}}); !ok || n != 43 {
		t.Errorf("statedCount: got %d, %v; want 43 (收入：1笔 is not the total)", n, ok)
	}
}

// TestPaymentFooterIsNoSkippedRecord: the real Alipay export with its
// 导出信息 block (22 lines: account, period, 共66笔记录, the 特别提示 notes)
// after the records, behind a dashed line, as exports put it at the end.
// Those lines are no records: the import reads 10 and skips none, where it
// used to report them as skipped rows (which reads as lost data).
func TestPaymentFooterIsNoSkippedRecord(t *testing.T) {
	src := filepath.Join(paymentsDir, "example-alipay-records.csv")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Skipf("external sample absent (%s): skipping", src)
	}
	u, err := simplifiedchinese.GBK.NewDecoder().Bytes(b)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(u), "\n")
	// lines[0] is the dashed line before 导出信息; the block ends before the
	// dashed 电子客户回单 line that precedes the header.
	end := 1
	for end < len(lines) && !strings.HasPrefix(lines[end], "---") {
		end++
	}
	if end-1 != 22 {
		t.Fatalf("the sample's 导出信息 block has %d lines, want 22", end-1)
	}
	body := strings.Join(lines[end:], "")
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	moved := body + strings.Join(lines[:end], "")
	gbk, err := simplifiedchinese.GBK.NewEncoder().String(moved)
	if err != nil {
		t.Fatal(err)
	}
	path := writeTemp(t, t.TempDir(), "alipay_footer.csv", []byte(gbk))
	res, err := ImportFile(context.Background(), testkit.OpenLedger(t), path, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if res.Read != 10 || res.New != 10 || res.Skipped != 0 {
		t.Errorf("got read %d, new %d, skipped %d; want 10 read, 10 new, 0 skipped", res.Read, res.New, res.Skipped)
	}
}

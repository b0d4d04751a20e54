package ingest

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// TestSampleAliyunCSV: the generated 阿里云 明细账单 has the 46-column newer
// header behind a BOM, distinct rows whose amounts add up as the console's
// do, is detected as aliyun-detail and imports every row as a new line item
// (compute, storage and network ones), with billed_cost summing per currency
// exactly to the file's 应付金额 column; the same seed gives the same bytes,
// another seed other bytes.
func TestSampleAliyunCSV(t *testing.T) {
	const rows = 2000
	gen := func(seed int64) []byte {
		t.Helper()
		var buf bytes.Buffer
		if err := WriteSampleAliyunCSV(&buf, rows, seed); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	data := gen(7)
	if !bytes.Equal(data, gen(7)) {
		t.Error("the same seed gave different files")
	}
	if bytes.Equal(data, gen(8)) {
		t.Error("seeds 7 and 8 gave the same file")
	}
	if !bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		t.Error("no UTF-8 BOM")
	}

	// The file read on its own: header, distinct rows, amounts.
	recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := recs[0]
	if len(header) != 46 || len(recs) != rows+1 {
		t.Fatalf("%d columns and %d data rows, want 46 and %d", len(header), len(recs)-1, rows)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	num := func(rec []string, h string) decimal.Decimal {
		t.Helper()
		i, ok := col[h]
		if !ok {
			t.Fatalf("no column %s", h)
		}
		d, err := decimal.NewFromString(rec[i])
		if err != nil {
			t.Fatalf("%s = %q: %v", h, rec[i], err)
		}
		return d
	}
	want := map[string]decimal.Decimal{} // 应付金额 by 币种
	seen := map[string]bool{}
	for n, rec := range recs[1:] {
		line := strings.Join(rec, "\x1f")
		if seen[line] {
			t.Fatalf("row %d repeats an earlier row", n+1)
		}
		seen[line] = true
		list, billed := num(rec, "官网价"), num(rec, "应付金额")
		if billed.Sign() <= 0 || list.LessThan(billed) {
			t.Errorf("row %d: 官网价 %s, 应付金额 %s", n+1, list, billed)
		}
		if got := list.Sub(num(rec, "优惠金额")).Sub(num(rec, "优惠券抵扣")); !got.Equal(billed) {
			t.Errorf("row %d: 官网价 − 优惠金额 − 优惠券抵扣 = %s, 应付金额 %s", n+1, got, billed)
		}
		paid := num(rec, "现金支付").Add(num(rec, "代金券抵扣")).Add(num(rec, "储值卡支付金额")).Add(num(rec, "欠费金额"))
		if !paid.Equal(billed) {
			t.Errorf("row %d: payments add up to %s, 应付金额 %s", n+1, paid, billed)
		}
		if exp := billed.Exponent(); exp < -8 {
			t.Errorf("row %d: 应付金额 %s has more than 8 decimals", n+1, rec[col["应付金额"]])
		}
		cur := rec[col["币种"]]
		want[cur] = want[cur].Add(billed)
	}

	// The import.
	path := filepath.Join(t.TempDir(), "aliyun-detail.csv")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	db := testkit.OpenLedger(t)
	res, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "aliyun-detail" {
		t.Errorf("format %q, want aliyun-detail", res.Format)
	}
	if res.Read != rows || res.New != rows || res.Duplicate != 0 || res.Skipped != 0 {
		t.Errorf("read/new/duplicate/skipped = %d/%d/%d/%d, want %d/%d/0/0", res.Read, res.New, res.Duplicate, res.Skipped, rows, rows)
	}
	got := map[string]decimal.Decimal{}
	sums, err := db.SQL().Query(`SELECT currency, dsum(billed_cost) FROM line_items GROUP BY currency`)
	if err != nil {
		t.Fatal(err)
	}
	defer sums.Close()
	for sums.Next() {
		var cur, sum string
		if err := sums.Scan(&cur, &sum); err != nil {
			t.Fatal(err)
		}
		got[cur] = decimal.RequireFromString(sum)
	}
	if err := sums.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("currencies in the ledger %v, in the file %v", got, want)
	}
	for cur, w := range want {
		if g, ok := got[cur]; !ok || !g.Equal(w) {
			t.Errorf("%s: dsum(billed_cost) = %s, the file's 应付金额 sum %s", cur, g, w)
		}
	}

	// Line items of each kind, with what the mapper derives from the row.
	kinds := map[string]int{}
	rs, err := db.SQL().Query(`SELECT kind, count(*) FROM line_items GROUP BY kind`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	for rs.Next() {
		var k string
		var n int
		if err := rs.Scan(&k, &n); err != nil {
			t.Fatal(err)
		}
		kinds[k] = n
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{ledger.KindCompute, ledger.KindStorage, ledger.KindNetwork} {
		if kinds[k] == 0 {
			t.Errorf("no %s line items (kinds: %v)", k, kinds)
		}
	}
	if len(kinds) != 3 || kinds[ledger.KindCompute] < rows/2 {
		t.Errorf("kinds %v: want compute (most), storage and network only", kinds)
	}
	var noGPU, spot, badPeriod int
	if err := db.SQL().QueryRow(`SELECT
		count(*) FILTER (WHERE kind = 'compute' AND gpu_model = ''),
		count(*) FILTER (WHERE pricing_model = 'spot'),
		count(*) FILTER (WHERE provider != 'aliyun' OR billing_period NOT LIKE '2026-1_' OR resource_id NOT LIKE 'i-%')
		FROM line_items`).Scan(&noGPU, &spot, &badPeriod); err != nil {
		t.Fatal(err)
	}
	if noGPU != 0 || spot == 0 || badPeriod != 0 {
		t.Errorf("compute items without a GPU model: %d, spot items: %d, items off provider/month/instance: %d", noGPU, spot, badPeriod)
	}
}

// TestSampleAliyunCSVDistinct: over two days and more (every instance's
// every hour, disks included), no two rows share instance, day, billing
// item and usage, so no two rows are the same charge.
func TestSampleAliyunCSVDistinct(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSampleAliyunCSV(&buf, 400*24*2+1000, 3); err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(buf.Bytes(), []byte("\xEF\xBB\xBF"))))
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[4]string]int{}
	for n, rec := range recs[1:] {
		k := [4]string{rec[alyInstance], rec[alyDate], rec[alyItem], rec[alyUsage]}
		if m, ok := seen[k]; ok {
			t.Fatalf("rows %d and %d are both %v", m, n+1, k)
		}
		seen[k] = n + 1
	}
}

// TestSampleAliyunCSVEmpty: zero rows is the BOM and the header; a negative
// count is an error.
func TestSampleAliyunCSVEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSampleAliyunCSV(&buf, 0, 1); err != nil {
		t.Fatal(err)
	}
	if want := "\uFEFF" + strings.Join(aliyunSampleHeader, ",") + "\n"; buf.String() != want {
		t.Errorf("0 rows gave %q, want %q", buf.String(), want)
	}
	if err := WriteSampleAliyunCSV(&buf, -1, 1); err == nil {
		t.Error("-1 rows: no error")
	}
}

package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

var huaweiParts = []string{
	filepath.Join("testdata", "huaweicloud-usage", "usage_detail_202610_1.csv"),
	filepath.Join("testdata", "huaweicloud-usage", "usage_detail_202610_2.csv"),
}

// huaweiWhole joins the split parts back into the one file Huawei would
// have exported unsplit (one header, every row).
func huaweiWhole(t *testing.T) []byte {
	t.Helper()
	var out bytes.Buffer
	for i, p := range huaweiParts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
		if i > 0 {
			_, b, _ = bytes.Cut(b, []byte("\n")) // drop the repeated header
		}
		out.Write(b)
	}
	return out.Bytes()
}

// TestHuaweiSplitFiles: the _1/_2 parts import as two files whose totals
// equal the parts' own column sums; the unsplit file then adds nothing, and
// in a fresh ledger the unsplit file first makes the parts add nothing.
func TestHuaweiSplitFiles(t *testing.T) {
	ctx := context.Background()
	var header []string
	var recs [][]string
	for _, p := range huaweiParts {
		h, r := cloudRawRecords(t, p, false)
		header, recs = h, append(recs, r...)
	}
	whole := writeTemp(t, t.TempDir(), "usage_detail_202610.csv", huaweiWhole(t))

	db := testkit.OpenLedger(t)
	results, err := ImportPaths(ctx, db, huaweiParts, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, r := range results {
		if r.Format != "huaweicloud-usage" || r.Duplicate != 0 {
			t.Errorf("%s: format %s duplicate %d, want huaweicloud-usage and 0", r.Path, r.Format, r.Duplicate)
		}
		total += r.New
	}
	if total != len(recs) || countRows(t, db, "line_items") != len(recs) {
		t.Errorf("parts added %d rows (stored %d), want %d", total, countRows(t, db, "line_items"), len(recs))
	}
	for _, c := range []struct {
		col  string
		want decimal.Decimal
	}{
		{"billed_cost", cloudRawSum(t, header, recs, "应付金额(¥)")},
		{"list_cost", cloudRawSum(t, header, recs, "官网价(¥)")},
		{"cash_paid", cloudRawSum(t, header, recs, "现金支付(¥)")},
		{"voucher_paid", cloudRawSum(t, header, recs, "代金券抵扣(¥)", "现金券抵扣(¥)")},
		{"other_paid", cloudRawSum(t, header, recs, "信用额度支付(¥)", "储值卡抵扣(¥)", "已核销金额(¥)")},
		{"unpaid", cloudRawSum(t, header, recs, "欠费金额(¥)")},
	} {
		if got := ledgerSum(t, db, c.col); !got.Equal(c.want) {
			t.Errorf("dsum(%s) = %s, want %s (the files' own sum)", c.col, got, c.want)
		}
	}
	// 应付金额 = the sum of the ways it was paid, on every row.
	for _, li := range storedItems(t, db) {
		paid := li.CashPaid.Decimal.Add(li.VoucherPaid.Decimal).Add(li.OtherPaid.Decimal).Add(li.Unpaid.Decimal)
		if !paid.Equal(li.BilledCost) {
			t.Errorf("row %d: cash + voucher + other + unpaid = %s, want billed %s", li.SourceRow, paid, li.BilledCost)
		}
	}
	res, err := ImportFile(ctx, db, whole, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if res.New != 0 || res.Duplicate != len(recs) {
		t.Errorf("unsplit file after its parts: new %d duplicate %d, want 0 and %d", res.New, res.Duplicate, len(recs))
	}

	db2 := testkit.OpenLedger(t)
	if res, err := ImportFile(ctx, db2, whole, Options{TZ: shanghai}); err != nil || res.New != len(recs) {
		t.Fatalf("unsplit file: new %d, err %v; want %d", res.New, err, len(recs))
	}
	for _, p := range huaweiParts {
		res, err := ImportFile(ctx, db2, p, Options{TZ: shanghai})
		if err != nil {
			t.Fatal(err)
		}
		if res.New != 0 {
			t.Errorf("%s after the unsplit file: new %d, want 0", p, res.New)
		}
	}
	if got := ledgerSum(t, db2, "billed_cost"); !got.Equal(ledgerSum(t, db, "billed_cost")) {
		t.Errorf("unsplit-first ledger holds %s, parts-first %s", got, ledgerSum(t, db, "billed_cost"))
	}
}

// TestHuaweiSemantics checks the rules the golden files show: pricing from
// 计费模式 and 是否竞价实例, refunds and compensation, GPU models, tags, and
// the 消费时间 range as the charge period with the usage times inside it.
func TestHuaweiSemantics(t *testing.T) {
	db := testkit.OpenLedger(t)
	if _, err := ImportPaths(context.Background(), db, huaweiParts, Options{TZ: shanghai}); err != nil {
		t.Fatal(err)
	}
	byName := map[string][]ledger.LineItem{}
	for _, li := range storedItems(t, db) {
		byName[li.ResourceName] = append(byName[li.ResourceName], li)
	}
	one := func(name string, i int) ledger.LineItem {
		t.Helper()
		if len(byName[name]) <= i {
			t.Fatalf("no row %d for %s", i, name)
		}
		return byName[name][i]
	}
	first := one("ecs-pi2-train", 0)
	wantStart := time.Date(2026, 10, 3, 6, 0, 0, 0, time.UTC)
	if !first.ChargePeriodStart.Equal(wantStart) || !first.ChargePeriodEnd.Equal(wantStart.Add(time.Hour)) ||
		!first.UsageStart.Equal(time.Date(2026, 10, 3, 6, 12, 40, 0, time.UTC)) {
		t.Errorf("first hour: charge %v–%v usage %v, want the 14:00–15:00 GMT+08:00 range and usage from 14:12:40",
			first.ChargePeriodStart, first.ChargePeriodEnd, first.UsageStart)
	}
	if first.GPUModel != "T4" || first.Kind != ledger.KindCompute || first.Tags != `{"env":"prod","team":"ml"}` || first.PricingModel != ledger.PricingOnDemand {
		t.Errorf("first hour: gpu %q kind %q tags %q pricing %q", first.GPUModel, first.Kind, first.Tags, first.PricingModel)
	}
	if li := one("ecs-g6-spot", 0); li.PricingModel != ledger.PricingSpot || li.GPUModel != "T4" {
		t.Errorf("spot row: pricing %q gpu %q, want spot and T4", li.PricingModel, li.GPUModel)
	}
	if li := one("ri-c7-large", 0); li.PricingModel != ledger.PricingReserved || li.GPUModel != "" {
		t.Errorf("RI row: pricing %q gpu %q, want reserved and none", li.PricingModel, li.GPUModel)
	}
	pkg, refund := one("ecs-p2s-finetune", 0), one("ecs-p2s-finetune", 1)
	if pkg.PricingModel != ledger.PricingPackage || pkg.ChargeCategory != ledger.CategoryPurchase || pkg.GPUModel != "V100" {
		t.Errorf("package row: pricing %q category %q gpu %q", pkg.PricingModel, pkg.ChargeCategory, pkg.GPUModel)
	}
	if refund.ChargeCategory != ledger.CategoryCredit || !refund.BilledCost.IsNegative() || refund.Kind != ledger.KindCompute {
		t.Errorf("refund row: category %q billed %s kind %q, want Credit, negative, compute", refund.ChargeCategory, refund.BilledCost, refund.Kind)
	}
	if li := one("ecs-pi2-train", 3); li.Kind != ledger.KindCredit || li.ChargeCategory != ledger.CategoryCredit {
		t.Errorf("compensation row: kind %q category %q, want credit", li.Kind, li.ChargeCategory)
	}
	if li := one("example.cn", 0); li.Kind != ledger.KindOther || !li.Unpaid.Valid || li.Unpaid.Decimal.String() != "0.05" {
		t.Errorf("DNS row: kind %q unpaid %v, want other and 0.05 in arrears", li.Kind, li.Unpaid)
	}
	for name, kind := range map[string]string{"snapshot-before-upgrade": ledger.KindSnapshot, "pi2-cuda12-image": ledger.KindImage,
		"datasets-bucket": ledger.KindStorage, "bandwidth-ecs-pi2": ledger.KindNetwork, "ecs-pi2-train-volume-0000": ledger.KindStorage} {
		if li := one(name, 0); li.Kind != kind {
			t.Errorf("%s: kind %q, want %q", name, li.Kind, kind)
		}
	}
}

// TestHuaweiRefundSign: a refund is negative in the ledger whichever sign
// the file writes; a charge keeps its sign.
func TestHuaweiRefundSign(t *testing.T) {
	header := "账期,计费模式,消费时间,账单类型,资源ID,产品,使用量类型,应付金额(¥),现金支付(¥),代金券抵扣(¥)\n"
	for _, tc := range []struct {
		name, row                 string
		wantBilled, wantCash, cat string
	}{
		{"negative refund", "2026-10,包年/包月-月,2026-10-20 09:12:45 GMT+08:00,退款-退订,i-1,云主机,--,-100.5,-90.5,-10\n", "-100.5", "-90.5", ledger.CategoryCredit},
		{"positive refund", "2026-10,包年/包月-月,2026-10-20 09:12:45 GMT+08:00,退款-退订,i-1,云主机,--,100.5,90.5,10\n", "-100.5", "-90.5", ledger.CategoryCredit},
		{"charge", "2026-10,按需,2026-10-20 09:00:00 GMT+08:00-2026-10-20 10:00:00 GMT+08:00,消费-使用,i-1,云主机,时长,1.25,1.25,0\n", "1.25", "1.25", ledger.CategoryUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := testkit.OpenLedger(t)
			path := writeTemp(t, t.TempDir(), "hw.csv", []byte(header+tc.row))
			if _, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai}); err != nil {
				t.Fatal(err)
			}
			li := storedItems(t, db)[0]
			if li.BilledCost.String() != tc.wantBilled || li.CashPaid.Decimal.String() != tc.wantCash || li.ChargeCategory != tc.cat {
				t.Errorf("got billed %s cash %s category %s, want %s %s %s", li.BilledCost, li.CashPaid.Decimal, li.ChargeCategory,
					tc.wantBilled, tc.wantCash, tc.cat)
			}
		})
	}
}

func TestHuaweiRange(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2026, 10, 1, h, m, 0, 0, time.UTC) }
	for _, tc := range []struct {
		in         string
		start, end time.Time
		ok         bool
	}{
		{"2026-10-01 08:00:00 GMT+08:00-2026-10-01 09:00:00 GMT+08:00", at(0, 0), at(1, 0), true},
		{"2026-10-01 08:00:00 GMT+08:00 - 2026-10-01 09:00:00 GMT+08:00", at(0, 0), at(1, 0), true},
		{"2026-10-01 08:00:00~2026-10-01 09:30:00", at(0, 0), at(1, 30), true}, // naive: Beijing time
		{"2026-10-01 08:00:00 GMT+08:00", at(0, 0), at(0, 0), true},
		{"2026-10-01 08:00:00 GMT+08:00-", time.Time{}, time.Time{}, false},
		{"yesterday-today", time.Time{}, time.Time{}, false},
	} {
		s, e, ok := huaweiRange(tc.in, shanghai)
		if ok != tc.ok || !s.Equal(tc.start) || !e.Equal(tc.end) {
			t.Errorf("huaweiRange(%q) = %v, %v, %v; want %v, %v, %v", tc.in, s, e, ok, tc.start, tc.end, tc.ok)
		}
	}
}

func TestHuaweiPricing(t *testing.T) {
	for _, tc := range []struct{ mode, spot, want string }{
		{"按需", "N", ledger.PricingOnDemand},
		{"按需", "Y", ledger.PricingSpot},
		{"包年/包月-月", "--", ledger.PricingPackage},
		{"包年/包月-年", "", ledger.PricingPackage},
		{"预留实例", "N", ledger.PricingReserved},
		{"", "", ledger.PricingOnDemand},
	} {
		if got := huaweiPricing(tc.mode, tc.spot); got != tc.want {
			t.Errorf("huaweiPricing(%q, %q) = %q, want %q", tc.mode, tc.spot, got, tc.want)
		}
	}
}

func TestHuaweiTags(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"team=ml;env=prod", `{"env":"prod","team":"ml"}`},
		{"team:ml, env：prod", `{"env":"prod","team":"ml"}`},
		{"legacy", `{"legacy":""}`},
		{"", ""},
		{";", ""},
	} {
		if got := huaweiTags(tc.in); got != tc.want {
			t.Errorf("huaweiTags(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestHuaweiDetect: the usage-detail header is recognised with its (¥)
// headers; without a usage-type column it is not this format.
func TestHuaweiDetect(t *testing.T) {
	h := strings.Split("账期,计费模式,消费时间,使用量类型编码,应付金额(¥)", ",")
	if b := detectHeader(h); b == nil || b.format.ID != "huaweicloud-usage" {
		t.Errorf("detectHeader(%q) = %v, want huaweicloud-usage", h, b)
	}
	h = strings.Split("账期,计费模式,消费时间,应付金额(¥)", ",")
	if b := detectHeader(h); b != nil && b.format.ID == "huaweicloud-usage" {
		t.Errorf("detectHeader(%q) = huaweicloud-usage, want no match without a usage type", h)
	}
}

package ingest

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// cloudRawRecords reads a sample CSV independently of the importer (UTF-8
// with or without BOM, or GBK): the header and the data records, without a
// trailing 合计/总计 line.
func cloudRawRecords(t *testing.T, path string, gbk bool) ([]string, [][]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
	if gbk {
		if b, err = simplifiedchinese.GBK.NewDecoder().Bytes(b); err != nil {
			t.Fatal(err)
		}
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	var recs [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec[0] == "合计" || rec[0] == "总计" {
			continue
		}
		recs = append(recs, rec)
	}
	return header, recs
}

// cloudRawSum sums the named columns of records ("--" and empty count 0),
// with plain decimal parsing (not the importer's ParseAmount).
func cloudRawSum(t *testing.T, header []string, recs [][]string, cols ...string) decimal.Decimal {
	t.Helper()
	sum := decimal.Zero
	for _, name := range cols {
		ci := -1
		for i, h := range header {
			if h == name {
				ci = i
			}
		}
		if ci < 0 {
			t.Fatalf("sample has no column %s", name)
		}
		for _, rec := range recs {
			if v := rec[ci]; v != "" && v != "--" {
				sum = sum.Add(decimal.RequireFromString(v))
			}
		}
	}
	return sum
}

// ledgerSum returns dsum(col) over every line item.
func ledgerSum(t *testing.T, db *ledger.DB, col string) decimal.Decimal {
	t.Helper()
	var s *string
	if err := db.SQL().QueryRow(`SELECT dsum(` + col + `) FROM line_items`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	if s == nil {
		return decimal.Zero
	}
	return decimal.RequireFromString(*s)
}

// TestTencentSampleSums: each Tencent sample imports every row but the 合计
// line, and the ledger's totals of billed, list, voucher, other and cash
// equal the file's own column sums to the last of their 8 decimals.
func TestTencentSampleSums(t *testing.T) {
	for _, tc := range []struct {
		name, path                  string
		gbk                         bool
		billed, list, voucher, cash string
		other                       []string
	}{
		{"detail L3", filepath.Join("testdata", "tencentcloud-detail", "detail_202610.csv"), false,
			"优惠后总价", "组件原价", "代金券支出(元)", "现金账户支出(元)", []string{"赠送账户支出(元)", "分成金账户支出(元)"}},
		{"resource L2", filepath.Join("testdata", "tencentcloud-resource", "resource_202610_gbk.csv"), true,
			"优惠后总价(元)", "原价(元)", "优惠券支付(元)", "现金支付(元)", []string{"赠送金支付(元)", "分成金支付(元)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header, recs := cloudRawRecords(t, tc.path, tc.gbk)
			db := testkit.OpenLedger(t)
			res, err := ImportFile(context.Background(), db, tc.path, Options{TZ: shanghai})
			if err != nil {
				t.Fatal(err)
			}
			if res.New != len(recs) || res.Skipped != 1 {
				t.Errorf("new %d skipped %d, want %d and 1 (the total line)", res.New, res.Skipped, len(recs))
			}
			for _, c := range []struct {
				col  string
				want decimal.Decimal
			}{
				{"billed_cost", cloudRawSum(t, header, recs, tc.billed)},
				{"list_cost", cloudRawSum(t, header, recs, tc.list)},
				{"voucher_paid", cloudRawSum(t, header, recs, tc.voucher)},
				{"cash_paid", cloudRawSum(t, header, recs, tc.cash)},
				{"other_paid", cloudRawSum(t, header, recs, tc.other...)},
			} {
				if got := ledgerSum(t, db, c.col); !got.Equal(c.want) {
					t.Errorf("dsum(%s) = %s, want %s (the file's own sum)", c.col, got, c.want)
				}
			}
			// The file's own 合计 line agrees too.
			if got, want := ledgerSum(t, db, "billed_cost"), cloudTotalLine(t, tc.path, tc.gbk); !got.Equal(want) {
				t.Errorf("dsum(billed_cost) = %s, the file's 合计 line says %s", got, want)
			}
		})
	}
}

// cloudTotalLine returns the largest amount on the sample's total line.
func cloudTotalLine(t *testing.T, path string, gbk bool) decimal.Decimal {
	t.Helper()
	b, _ := os.ReadFile(path)
	if gbk {
		b, _ = simplifiedchinese.GBK.NewDecoder().Bytes(b)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "合计") || strings.HasPrefix(line, "总计") {
			for _, f := range strings.Split(strings.TrimSpace(line), ",") {
				if d, err := decimal.NewFromString(f); err == nil {
					return d
				}
			}
		}
	}
	t.Fatalf("%s has no total line", path)
	return decimal.Zero
}

// TestTencentDetailSemantics checks what the golden file shows row by row,
// as rules: 组件刊例价 × quantity = 组件原价 on every priced row; billed =
// voucher + other + cash; tags come from the 标签键: columns; GPU rows name
// their GPU; the refund is a negative credit; nothing is dropped as unknown.
func TestTencentDetailSemantics(t *testing.T) {
	db := testkit.OpenLedger(t)
	path := filepath.Join("testdata", "tencentcloud-detail", "detail_202610.csv")
	if _, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai}); err != nil {
		t.Fatal(err)
	}
	items := storedItems(t, db)
	kinds := map[string]int{}
	for _, li := range items {
		kinds[li.Kind]++
		if li.ListCost.Valid && li.ListUnitPrice.Valid && li.PricingQuantity.Valid {
			if got := li.ListUnitPrice.Decimal.Mul(li.PricingQuantity.Decimal); !got.Equal(li.ListCost.Decimal) {
				t.Errorf("row %d: unit price %s × quantity %s = %s, want list cost %s", li.SourceRow,
					li.ListUnitPrice.Decimal, li.PricingQuantity.Decimal, got, li.ListCost.Decimal)
			}
		}
		paid := li.VoucherPaid.Decimal.Add(li.OtherPaid.Decimal).Add(li.CashPaid.Decimal)
		if !paid.Equal(li.BilledCost) {
			t.Errorf("row %d: voucher + other + cash = %s, want billed %s", li.SourceRow, paid, li.BilledCost)
		}
		if li.ResourceID == "ins-8x2k1q3m" && li.Kind == ledger.KindCompute && li.ChargeCategory == ledger.CategoryUsage {
			if li.GPUModel != "T4" || li.Tags != `{"env":"prod","team":"ml"}` || li.PricingModel != ledger.PricingOnDemand {
				t.Errorf("row %d: gpu %q tags %q pricing %q, want T4, env/team tags, on_demand", li.SourceRow, li.GPUModel, li.Tags, li.PricingModel)
			}
		}
		if strings.Contains(li.Description, "退款") {
			if li.ChargeCategory != ledger.CategoryCredit || !li.BilledCost.IsNegative() {
				t.Errorf("refund row %d: category %s billed %s, want Credit and negative", li.SourceRow, li.ChargeCategory, li.BilledCost)
			}
		}
	}
	want := map[string]int{ledger.KindCompute: 9, ledger.KindStorage: 4, ledger.KindNetwork: 4, ledger.KindSnapshot: 1,
		ledger.KindImage: 1, ledger.KindOther: 1, ledger.KindAdjustment: 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("kind %s: %d rows, want %d (all kinds: %v)", k, kinds[k], n, kinds)
		}
	}
	if kinds[ledger.KindCompute]+kinds[ledger.KindStorage]+kinds[ledger.KindNetwork]+kinds[ledger.KindSnapshot]+
		kinds[ledger.KindImage]+kinds[ledger.KindOther]+kinds[ledger.KindAdjustment] != len(items) || len(items) != 21 {
		t.Errorf("%d rows in kinds %v, want 21", len(items), kinds)
	}
}

// tencentEnglishHeaders renames the L3 sample's Chinese headers to the
// English console's.
var tencentEnglishHeaders = map[string]string{
	"支付者UIN": "Payer Account ID", "使用者UIN": "Owner Account ID", "操作者UIN": "Operator Account ID",
	"产品名称": "Product Name", "计费模式": "Billing Mode", "项目名称": "Project Name", "地域": "Region",
	"可用区": "Availability Zone", "国内国际": "Domestic and international", "资源ID": "Instance ID",
	"实例名称": "Instance Name", "实例类型": "Instance Type", "子产品名称": "Subproduct Name",
	"交易类型": "Transaction Type", "订单ID": "Order ID", "交易ID": "Transaction ID", "扣费时间": "Transaction Time",
	"开始使用时间": "Usage Start Time", "结束使用时间": "Usage End Time", "组件类型": "Component Type",
	"组件名称": "Component Name", "组件刊例价": "Component List Price", "组件单价": "Component Contracted Price",
	"组件价格单位": "Component Price Measurement Unit", "组件用量": "Component Usage", "组件用量单位": "Component Usage Unit",
	"使用时长": "Usage Duration", "时长单位": "Duration Unit", "组件原价": "Original Cost", "折扣率": "Discount Rate",
	"优惠后总价": "Total Amount After Discount", "代金券支出(元)": "Voucher Payment", "赠送账户支出(元)": "Free Credit Payment",
	"分成金账户支出(元)": "Commission Credit Payment", "现金账户支出(元)": "Cash Payment", "币种": "Currency",
	"标签键:team": "Tag:team", "标签键:env": "Tag:env",
}

// TestTencentHeaderVariants: the L3 sample with English headers, and with
// its columns reversed, imports to the same line items (raw aside) and the
// same dedupe keys, so a second variant adds nothing to the ledger.
func TestTencentHeaderVariants(t *testing.T) {
	ctx := context.Background()
	header, recs := cloudRawRecords(t, filepath.Join("testdata", "tencentcloud-detail", "detail_202610.csv"), false)
	render := func(h []string, rs [][]string) []byte {
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Write(h)
		w.WriteAll(rs)
		return buf.Bytes()
	}
	english := make([]string, len(header))
	for i, h := range header {
		e, ok := tencentEnglishHeaders[h]
		if !ok {
			t.Fatalf("no English header for %s", h)
		}
		english[i] = e
	}
	reverse := func(s []string) []string {
		out := make([]string, len(s))
		for i := range s {
			out[len(s)-1-i] = s[i]
		}
		return out
	}
	var reversed [][]string
	for _, r := range recs {
		reversed = append(reversed, reverse(r))
	}
	dir := t.TempDir()
	files := map[string][]byte{
		"zh.csv":       render(header, recs),
		"en.csv":       render(english, recs),
		"reversed.csv": render(reverse(header), reversed),
	}
	var want []ledger.LineItem
	for _, name := range []string{"zh.csv", "en.csv", "reversed.csv"} {
		db := testkit.OpenLedger(t)
		res, err := ImportFile(ctx, db, writeTemp(t, dir, name, files[name]), Options{TZ: shanghai})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Format != "tencentcloud-detail" {
			t.Errorf("%s: format %s, want tencentcloud-detail", name, res.Format)
		}
		got := storedItems(t, db)
		if want == nil {
			want = got
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d items, want %d", name, len(got), len(want))
		}
		for i := range got {
			g, w := comparable(got[i], false), comparable(want[i], false)
			if g.RowKey != w.RowKey || g.Kind != w.Kind || !g.BilledCost.Equal(w.BilledCost) || g.Tags != w.Tags ||
				g.PricingUnit != w.PricingUnit || g.GPUModel != w.GPUModel || !g.ChargePeriodStart.Equal(w.ChargePeriodStart) {
				t.Errorf("%s row %d differs from the Chinese header's:\ngot:  %+v\nwant: %+v", name, i+1, g, w)
			}
		}
	}
	db := testkit.OpenLedger(t)
	for i, name := range []string{"zh.csv", "en.csv", "reversed.csv"} {
		res, err := ImportFile(ctx, db, filepath.Join(dir, name), Options{TZ: shanghai})
		if err != nil {
			t.Fatal(err)
		}
		if wantNew := map[bool]int{true: len(recs), false: 0}[i == 0]; res.New != wantNew {
			t.Errorf("%s imported as number %d: new %d, want %d", name, i+1, res.New, wantNew)
		}
	}
}

func TestTencentPricing(t *testing.T) {
	for _, tc := range []struct{ mode, instanceType, txType, want string }{
		{"按量计费", "-", "按量计费小时结", ledger.PricingOnDemand},
		{"包年包月", "-", "包年包月新购", ledger.PricingPackage},
		{"按量计费", "竞价实例", "按量计费小时结", ledger.PricingSpot},
		{"按量计费", "", "竞价实例小时结", ledger.PricingSpot},
		{"按量计费", "RI", "按量计费小时结", ledger.PricingReserved},
		{"按量计费", "SP", "", ledger.PricingReserved},
		{"按量计费", "资源包", "", ledger.PricingPackage},
		{"Monthly Subscription", "", "", ledger.PricingPackage},
		{"Pay-as-you-go", "", "", ledger.PricingOnDemand},
		{"Standard RI", "", "", ledger.PricingReserved},
	} {
		if got := tencentPricing(tc.mode, tc.instanceType, tc.txType); got != tc.want {
			t.Errorf("tencentPricing(%q, %q, %q) = %q, want %q", tc.mode, tc.instanceType, tc.txType, got, tc.want)
		}
	}
}

func TestTencentQuantity(t *testing.T) {
	n := func(s string) decimal.NullDecimal {
		if s == "" {
			return decimal.NullDecimal{}
		}
		return decimal.NullDecimal{Decimal: decimal.RequireFromString(s), Valid: true}
	}
	for _, tc := range []struct {
		name                                      string
		usage, usageUnit, dur, durUnit, priceUnit string
		wantQ, wantUnit                           string
	}{
		{"one gpu for an hour", "1", "颗", "1", "小时", "元/颗/小时", "1", "hour"},
		{"cores", "8", "核", "1", "小时", "元/核/小时", "8", "核·小时"},
		{"disk", "50", "GB", "2", "小时", "元/GB/小时", "100", "GB-hour"},
		{"traffic", "1.37", "GB", "1", "小时", "元/GB", "1.37", "GB"},
		{"no price unit", "50", "GB", "1", "天", "", "50", "GB-day"},
		{"no usage", "", "", "3", "小时", "", "3", "hour"},
		{"nothing", "", "", "", "", "元/GB", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, u := tencentQuantity(n(tc.usage), tc.usageUnit, n(tc.dur), tc.durUnit, tc.priceUnit)
			gotQ := ""
			if q.Valid {
				gotQ = q.Decimal.String()
			}
			if gotQ != tc.wantQ || u != tc.wantUnit {
				t.Errorf("got %q %q, want %q %q", gotQ, u, tc.wantQ, tc.wantUnit)
			}
		})
	}
}

func TestCloudKind(t *testing.T) {
	for _, tc := range []struct {
		texts []string
		want  string
	}{
		{[]string{"GPU GPU计算型GN7-GPU", "云服务器CVM-GPU计算型GN7"}, ledger.KindCompute},
		{[]string{"系统盘 高性能云硬盘", "云服务器CVM"}, ledger.KindStorage},
		{[]string{"带宽 按流量计费-公网流量", "云服务器CVM"}, ledger.KindNetwork},
		{[]string{"外网下行流量", "对象存储COS-标准存储"}, ledger.KindNetwork},
		{[]string{"快照 快照存储空间", "云硬盘快照"}, ledger.KindSnapshot},
		{[]string{"", "云硬盘快照"}, ledger.KindSnapshot},
		{[]string{"capacity", "私有镜像"}, ledger.KindImage},
		{[]string{"duration", "云主机", "hws.resource.type.vm"}, ledger.KindCompute},
		{[]string{"duration", "", "hws.resource.type.volume"}, ledger.KindStorage},
		{[]string{"国内短信", "短信-国内短信"}, ledger.KindOther},
		{[]string{"Cost allocation", "report"}, ledger.KindOther}, // "cos" inside "cost" is no COS
		{[]string{"vCPU", ""}, ledger.KindCompute},
		{[]string{"", "", ""}, ledger.KindOther},
	} {
		if got := cloudKind(tc.texts...); got != tc.want {
			t.Errorf("cloudKind(%q) = %q, want %q", tc.texts, got, tc.want)
		}
	}
}

func TestCloudGPUModel(t *testing.T) {
	for _, tc := range []struct{ provider, in, want string }{
		{"tencentcloud", "GPU计算型GN7.2XLARGE32-GPU(T4)", "T4"},
		{"tencentcloud", "云服务器CVM-GPU计算型GN7", "T4"},
		{"tencentcloud", "GPU计算型GN10Xp.2XLARGE40", "V100"},
		{"tencentcloud", "GPU计算型 4090 24G", "RTX 4090"},
		{"huaweicloud", "GPU加速型|pi2.2xlarge.4|8vCPUs|32GB|linux", "T4"},
		{"huaweicloud", "GPU加速型|p2s.2xlarge.8|8vCPUs|64GB|linux", "V100"},
		{"huaweicloud", "GPU加速型|g6.xlarge.4|4vCPUs|16GB|linux", "T4"},
		{"tencentcloud", "GPU加速型|p2s.2xlarge.8|8vCPUs|64GB|linux", ""}, // a 华为云 family on a 腾讯云 bill
		{"huaweicloud", "通用计算增强型|c7.large.2|2vCPUs|4GB|linux", ""},
		{"tencentcloud", "GPU计算型PNV4.7XLARGE116", ""}, // not sure of this family: no guess
		{"tencentcloud", "A100 80G 实例", "A100 80G"},   // the catalog tells 40G and 80G apart
		{"huaweicloud", "Ascend 910B", "Ascend 910B"},
		{"tencentcloud", "GN70", ""},
	} {
		if got := cloudGPUOf(tc.provider, tc.in).model; got != tc.want {
			t.Errorf("cloudGPUOf(%q, %q).model = %q, want %q", tc.provider, tc.in, got, tc.want)
		}
	}
}

func TestBillingMonth(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"2026-10", "2026-10"}, {"2026/10", "2026-10"}, {"202610", "2026-10"}, {"2026年10月", "2026-10"},
		{"2026-1", "2026-01"}, {"2026-10-01", "2026-10"}, {" 2026-10 ", "2026-10"},
		{"2026-13", ""}, {"26-10", ""}, {"October", ""}, {"", ""}, {"2026-", ""},
	} {
		got, ok := billingMonth(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("billingMonth(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

// TestOverlappingFormatsWarn: 腾讯云's L3 detail and L2 resource bills of one
// month are the same charges; importing the second warns, names the first
// import and still imports its rows; a re-import of the same format, or
// another provider's month, does not warn; undoing the first import ends
// the warning.
func TestOverlappingFormatsWarn(t *testing.T) {
	ctx := context.Background()
	db := testkit.OpenLedger(t)
	detail := filepath.Join("testdata", "tencentcloud-detail", "detail_202610.csv")
	resource := filepath.Join("testdata", "tencentcloud-resource", "resource_202610_gbk.csv")
	first, err := ImportFile(ctx, db, detail, Options{TZ: shanghai})
	if err != nil || len(first.Warnings) != 0 {
		t.Fatalf("first import: %v, warnings %+v; want none", err, first.Warnings)
	}
	second, err := ImportFile(ctx, db, resource, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if second.New == 0 {
		t.Error("the overlapping file imported nothing: a warning never drops rows")
	}
	if len(second.Warnings) != 1 || !strings.Contains(second.Warnings[0].EN, "2026-10 bill was already imported in another format (import 1: "+detail) ||
		!strings.Contains(second.Warnings[0].ZH, "gpubill imports undo 1") {
		t.Fatalf("second import warnings %+v, want one naming import 1 (%s)", second.Warnings, detail)
	}
	again, err := ImportFile(ctx, db, detail, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Warnings) != 1 || !strings.Contains(again.Warnings[0].EN, "tencentcloud-resource") {
		t.Errorf("re-import of the detail bill: warnings %+v, want one naming the resource bill only", again.Warnings)
	}
	if _, err := db.UndoImport(ctx, 2); err != nil {
		t.Fatal(err)
	}
	third, err := ImportFile(ctx, db, detail, Options{TZ: shanghai, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(third.Warnings) != 0 {
		t.Errorf("after undoing the resource bill: warnings %+v, want none", third.Warnings)
	}
}

// cloudKind classifies a charge by its texts in order of specificity (组件 or
// 使用量类型, then sub-product, product, configuration): the first text that
// names a kind decides; anything unrecognised is other.
func cloudKind(texts ...string) string { return firstKind(cloudKindOf, texts) }

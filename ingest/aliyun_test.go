package ingest

import (
	"bytes"
	"context"
	"database/sql"
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

// sampleMoney names, per ledger money column, the header spellings of one
// vendor's source column.
type sampleMoney struct {
	column  string   // ledger column
	headers []string // source headers, any generation
}

// fileSums reads a sample CSV independently of the importer (BOM stripped,
// GBK decoded when gbk is set) and sums each money column's cells exactly;
// rows whose first cell is 合计 are left out. A column with no number at all
// has no sum (absent from the map). It also returns the data rows counted
// and the total rows seen.
func fileSums(t *testing.T, path string, gbk bool, money []sampleMoney) (sums map[string]decimal.Decimal, rows, totals int, header []string, records [][]string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	if gbk {
		if data, err = simplifiedchinese.GBK.NewDecoder().Bytes(data); err != nil {
			t.Fatal(err)
		}
	}
	r := csv.NewReader(bytes.NewReader(data))
	if header, err = r.Read(); err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	sums = map[string]decimal.Decimal{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec[0] == "合计" {
			totals++
			records = append(records, rec)
			continue
		}
		rows++
		records = append(records, rec)
		for _, m := range money {
			for _, h := range m.headers {
				i, ok := col[h]
				if !ok {
					continue
				}
				cell := strings.TrimSpace(rec[i])
				if cell == "" || cell == "--" || cell == "-" {
					break
				}
				d, err := decimal.NewFromString(cell)
				if err != nil {
					t.Fatalf("%s: column %s: %v", path, h, err)
				}
				sums[m.column] = sums[m.column].Add(d)
				break
			}
		}
	}
	return sums, rows, totals, header, records
}

// ledgerSums returns dsum of each money column over all line items (absent
// when the sum is NULL) and the row count.
func ledgerSums(t *testing.T, db *ledger.DB, money []sampleMoney) (map[string]decimal.Decimal, int) {
	t.Helper()
	got := map[string]decimal.Decimal{}
	for _, m := range money {
		var s sql.NullString
		if err := db.SQL().QueryRow(`SELECT dsum(` + m.column + `) FROM line_items`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		if s.Valid {
			got[m.column] = decimal.RequireFromString(s.String)
		}
	}
	return got, countRows(t, db, "line_items")
}

var aliyunMoney = []sampleMoney{
	{"list_cost", []string{"官网价", "原价", "PretaxGrossAmount"}},
	{"billed_cost", []string{"应付金额", "PretaxAmount"}},
	{"cash_paid", []string{"现金支付", "PaymentAmount"}},
	{"voucher_paid", []string{"代金券抵扣", "DeductedByCashCoupons"}},
	{"other_paid", []string{"储值卡支付金额", "DeductedByPrepaidCard"}},
	{"unpaid", []string{"欠费金额", "OutstandingAmount"}},
}

// TestAliyunSampleSums: every money column of each sample (new header with
// BOM, old header in GBK, English API names) sums in the ledger exactly to
// the file's own column sum, one line item per data row; a second import
// adds nothing.
func TestAliyunSampleSums(t *testing.T) {
	for _, tc := range []struct {
		file string
		gbk  bool
		rows int
	}{
		{"detail_new.csv", false, 19},
		{"detail_old_gbk.csv", true, 8},
		{"detail_api.csv", false, 6},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "aliyun-detail", tc.file)
			want, rows, _, _, _ := fileSums(t, path, tc.gbk, aliyunMoney)
			if rows != tc.rows {
				t.Fatalf("the sample has %d data rows, want %d", rows, tc.rows)
			}
			db := testkit.OpenLedger(t)
			res, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai})
			if err != nil {
				t.Fatal(err)
			}
			got, n := ledgerSums(t, db, aliyunMoney)
			if n != rows || res.New != rows {
				t.Errorf("stored %d line items (new %d), want %d", n, res.New, rows)
			}
			for _, m := range aliyunMoney {
				w, wok := want[m.column]
				g, gok := got[m.column]
				if wok != gok || !g.Equal(w) {
					t.Errorf("dsum(%s) = %s (known %v), want %s (known %v): the file's own sum of %s", m.column, g, gok, w, wok, m.headers[0])
				}
			}
			res, err = ImportFile(context.Background(), db, path, Options{TZ: shanghai})
			if err != nil {
				t.Fatal(err)
			}
			if res.New != 0 || res.Duplicate != rows {
				t.Errorf("second import: new %d duplicate %d, want 0 and %d", res.New, res.Duplicate, rows)
			}
		})
	}
}

// TestAliyunInvoiceable: Alibaba Cloud's invoiceable amount (应付金额 −
// 储值卡支付金额 − 代金券抵扣), computed from the stored line item, equals the
// file's 消费金额(可开票) cell on every row, and the amounts keep the source
// precision in the ledger.
func TestAliyunInvoiceable(t *testing.T) {
	path := filepath.Join("testdata", "aliyun-detail", "detail_new.csv")
	db := testkit.OpenLedger(t)
	res, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "aliyun-detail" {
		t.Fatalf("format %q, want aliyun-detail", res.Format)
	}
	var imp struct{ header string }
	if err := db.SQL().QueryRow(`SELECT header FROM imports`).Scan(&imp.header); err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range jsonStrings(t, imp.header) {
		if h == "消费金额(可开票)" {
			col = i
		}
	}
	if col < 0 {
		t.Fatal("the sample has no 消费金额(可开票) column")
	}
	items := storedItems(t, db)
	if len(items) == 0 {
		t.Fatal("no line items")
	}
	for _, li := range items {
		want := decimal.RequireFromString(li.Raw[col])
		if got := aliyunInvoiceable(&li); !got.Equal(want) {
			t.Errorf("row %d: invoiceable = %s, want %s (消费金额(可开票))", li.SourceRow, got, want)
		}
	}
	var list, other, unpaid sql.NullString
	if err := db.SQL().QueryRow(`SELECT list_cost, other_paid, unpaid FROM line_items WHERE source_row = 2`).Scan(&list, &other, &unpaid); err != nil {
		t.Fatal(err)
	}
	if list.String != "1.200000" || other.String != "0" || unpaid.String != "0" {
		t.Errorf("row 2 list/other/unpaid = %q/%q/%q, want 1.200000/0/0 as written", list.String, other.String, unpaid.String)
	}
	if err := db.SQL().QueryRow(`SELECT other_paid, unpaid FROM line_items WHERE source_row = 18`).Scan(&other, &unpaid); err != nil {
		t.Fatal(err)
	}
	if unpaid.Valid || other.String != "0" {
		t.Errorf("row 18 other/unpaid = %v/%v, want 0 and unknown (欠费金额 is --)", other, unpaid)
	}
}

func TestDetectAliyunVolcengine(t *testing.T) {
	aliyunNew := strings.Split("账期,日期,账号ID,产品Code,产品,消费类型,实例ID,计费项,用量,官网价,优惠金额,优惠券抵扣,应付金额,现金支付,代金券抵扣,储值卡支付金额,欠费金额,币种", ",")
	aliyunOld := strings.Split("账期,财务单元,产品Code,产品,消费时间,账单开始时间,账单结束时间,实例ID,计费项,原价,优惠金额,优惠券抵扣,应付金额,现金支付,代金券抵扣,储值卡支付金额,欠费金额", ",")
	aliyunAPI := strings.Split("PretaxAmount,BillingCycle,PretaxGrossAmount,DeductedByPrepaidCard,PaymentAmount,InstanceID,ProductCode", ",")
	volcZH := strings.Split("账期,产品,计费模式,消费开始时间,消费结束时间,实例ID,计费项,原价,优惠金额,抹零金额,折后价,代金券抵扣,应付金额,现金支付,欠费金额", ",")
	volcAPI := strings.Split("BillPeriod,ExpenseBeginTime,InstanceNo,Element,OriginalBillAmount,PreferentialBillAmount,RoundAmount,DiscountBillAmount,CouponAmount,PayableAmount", ",")
	for _, tc := range []struct {
		name   string
		header []string
		want   string
	}{
		{"aliyun new header", aliyunNew, "aliyun-detail"},
		{"aliyun old header", aliyunOld, "aliyun-detail"},
		{"aliyun api names", aliyunAPI, "aliyun-detail"},
		{"aliyun with unit suffixes", []string{"账期", "官网价(元)", "应付金额（元）", "储值卡支付金额(元)"}, "aliyun-detail"},
		{"aliyun signature lacking", []string{"账期", "官网价", "应付金额", "现金支付"}, ""},
		{"volcengine zh", volcZH, "volcengine-bill"},
		{"volcengine api", volcAPI, "volcengine-bill"},
		{"volcengine without 折后价", []string{"账期", "原价", "优惠金额", "应付金额"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if b := detectHeader(tc.header); b != nil {
				got = b.format.ID
			}
			if got != tc.want {
				t.Errorf("detectHeader = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAliyunSignatureExcludesOthers: headers of other clouds that share
// 账期, 官网价 and 应付金额 with Alibaba Cloud do not carry its signature.
func TestAliyunSignatureExcludesOthers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []string
	}{
		{"huawei usage detail", strings.Split("账期,产品,计费模式,资源ID,官网价(¥),优惠金额(¥),应付金额(¥),现金支付(¥),信用额度支付(¥),代金券抵扣(¥),现金券抵扣(¥),储值卡抵扣(¥),欠费金额(¥)", ",")},
		{"volcengine", strings.Split("账期,产品,实例ID,计费项,原价,优惠金额,抹零金额,折后价,代金券抵扣,应付金额,现金支付,欠费金额", ",")},
	} {
		if bind(aliyunFormat, tc.header).ok() {
			t.Errorf("%s header carries the aliyun-detail signature", tc.name)
		}
	}
	if bind(volcengineFormat, strings.Split("账期,产品Code,官网价,优惠金额,优惠券抵扣,应付金额,现金支付,代金券抵扣,储值卡支付金额,欠费金额", ",")).ok() {
		t.Error("aliyun header carries the volcengine-bill signature")
	}
}

func TestAliyunKind(t *testing.T) {
	for _, tc := range []struct {
		name, billType, item, product, want string
	}{
		{"instance", "后付账单", "实例规格", "云服务器 ECS ecs", ledger.KindCompute},
		{"system disk under ECS", "", "系统盘", "云服务器 ECS", ledger.KindStorage},
		{"data disk code only", "", " datadisk", "云服务器 ECS", ledger.KindStorage},
		{"traffic", "", "公网流量", "云服务器 ECS", ledger.KindNetwork},
		{"eip by product", "", "IP保有费", "弹性公网IP eip", ledger.KindNetwork},
		{"snapshot", "", "快照容量", "快照", ledger.KindSnapshot},
		{"image", "", "镜像", "云市场", ledger.KindImage},
		{"oss", "", "标准存储容量", "对象存储 OSS oss", ledger.KindStorage},
		{"english disk", "", "System Disk", "Elastic Compute Service", ledger.KindStorage},
		{"english instance", "", "Instance Type", "Elastic Compute Service", ledger.KindCompute},
		{"voucher line", "", "代金券", "", ledger.KindCredit},
		{"tax", "", "增值税", "", ledger.KindTax},
		{"adjustment", "调账", "实例规格", "云服务器 ECS", ledger.KindAdjustment},
		{"volcengine transfer code", "transfer", "", "", ledger.KindAdjustment},
		{"gross is not oss", "", "PretaxGross", "", ledger.KindOther},
		{"unknown", "", "短信通知", "云监控 cms", ledger.KindOther},
		{"empty", "", "", "", ledger.KindOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := aliyunKind(tc.billType, tc.item, tc.product); got != tc.want {
				t.Errorf("aliyunKind(%q, %q, %q) = %q, want %q", tc.billType, tc.item, tc.product, got, tc.want)
			}
		})
	}
}

func TestAliyunPricing(t *testing.T) {
	for _, tc := range []struct{ mode, detail, want string }{
		{"后付费 按量付费", "", ledger.PricingOnDemand},
		{"预付费 包年包月", "", ledger.PricingPackage},
		{"Subscription", "", ledger.PricingPackage},
		{"PayAsYouGo", "", ledger.PricingOnDemand},
		{"后付费 抢占式实例", "", ledger.PricingSpot},
		{"后付费", "云服务器ECS-抢占式实例", ledger.PricingSpot},
		{"按量计费", "spot-instance", ledger.PricingSpot},
		{"预付费", "预留实例券", ledger.PricingReserved},
		{"", "", ledger.PricingOnDemand},
	} {
		if got := aliyunPricing(tc.mode, tc.detail); got != tc.want {
			t.Errorf("aliyunPricing(%q, %q) = %q, want %q", tc.mode, tc.detail, got, tc.want)
		}
	}
}

func TestAliyunGPUModel(t *testing.T) {
	for _, tc := range []struct {
		spec, config, want string
		count              int
	}{
		{"ecs.gn7i-c8g1.2xlarge", "", "A10", 0},
		{"ecs.gn6v-c8g1.2xlarge", "", "V100", 0},
		{"ecs.gn6e-c12g1.3xlarge", "", "V100", 0},
		{"ecs.gn6i-c4g1.xlarge", "", "T4", 0},
		{"ecs.gn7-c12g1.3xlarge", "", "A100", 0},
		{"ecs.gn8is-2x.8xlarge", "CPU:32核;GPU:NVIDIA L20*2", "L20", 2}, // no family entry: the configuration names it
		{"ecs.gn7e-c16g1.4xlarge", "GPU:NVIDIA A100*1", "A100", 1},
		{"ecs.gn7i-c32g1.32xlarge", "CPU:128核;内存:752GB;GPU:NVIDIA A10*4", "A10", 4},
		{"ecs.g7.xlarge", "CPU:4核;内存:16GB", "", 0},
		{"", "", "", 0},
	} {
		if got := cloudGPUOf("aliyun", tc.spec+" "+tc.config); got != (cloudGPU{tc.want, tc.count}) {
			t.Errorf("GPU of %q, %q = %+v, want %q × %d", tc.spec, tc.config, got, tc.want, tc.count)
		}
	}
}

func TestAliyunTags(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"key:team value:nlp; key:env value:prod", `{"env":"prod","team":"nlp"}`},
		{"team:cv;owner:li", `{"owner":"li","team":"cv"}`},
		{"acs:rm:rgId:rg-1", `{"acs":"rm:rgId:rg-1"}`},
		{`{"a":"b"}`, `{"a":"b"}`},
		{"no tags here", ""},
		{"", ""},
	} {
		if got := aliyunTags(tc.in); got != tc.want {
			t.Errorf("aliyunTags(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAliyunParseMonth(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"2026-10", "2026-10", true},
		{"2026-1", "2026-01", true},
		{"2026/09", "2026-09", true},
		{"202610", "2026-10", true},
		{"2026年10月", "2026-10", true},
		{"20261003", "2026-10", true},
		{"2026-10-03", "2026-10", true},
		{"2026-13", "", false},
		{"20261", "", false},
		{"Oct 2026", "", false},
		{"", "", false},
	} {
		got, ok := aliyunParseMonth(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("aliyunParseMonth(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// aliyunInvoiceable is Alibaba Cloud's invoiceable amount of a line item
// (document 311840): 应付金额 − 储值卡支付金额 − 代金券抵扣. Unknown parts count
// as nothing paid that way.
func aliyunInvoiceable(li *ledger.LineItem) decimal.Decimal {
	d := li.BilledCost
	if li.OtherPaid.Valid {
		d = d.Sub(li.OtherPaid.Decimal)
	}
	if li.VoucherPaid.Valid {
		d = d.Sub(li.VoucherPaid.Decimal)
	}
	return d
}

package fetch

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpubill/gpubill/fetch/fetchtest"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

const testSecret = "S3cr3t-Do-Not-Print-7f3a9c"

// december5 is after the 3rd of December: November is final.
var december5 = time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)

func openLedger(t *testing.T) *ledger.DB {
	t.Helper()
	db, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// ledgerState is the line count and billed total of a ledger.
func ledgerState(t *testing.T, db *ledger.DB) (int, string) {
	t.Helper()
	items, err := testkit.LineItems(context.Background(), db, ledger.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	sum := decimal.Zero
	for _, li := range items {
		sum = sum.Add(li.BilledCost)
	}
	return len(items), sum.String()
}

// fastOptions retry at once and time out quickly; waits are recorded.
func fastOptions(now time.Time, waits *[]time.Duration) Options {
	return Options{Timeout: 2 * time.Second, MaxAttempts: 4, Backoff: 10 * time.Millisecond, Now: func() time.Time { return now },
		Sleep: func(_ context.Context, d time.Duration) error {
			if waits != nil {
				*waits = append(*waits, d)
			}
			return nil
		}}
}

// tencentDetails is a month of 腾讯云 bill details: n GPU instances, each
// deduction with a GPU and a system-disk component.
func tencentDetails(n int) []map[string]any {
	var out []map[string]any
	for i := 0; i < n; i++ {
		start := time.Date(2026, 11, 1+i, 8, 0, 0, 0, time.UTC)
		f := func(t time.Time) string { return t.In(ledger.DefaultTZ()).Format("2006-01-02 15:04:05") }
		out = append(out, map[string]any{
			"PayerUin": "100012345678", "OwnerUin": "100012345678", "OperateUin": "100012345678",
			"BusinessCodeName": "云服务器CVM", "ProductCodeName": "GPU计算型GN10Xp", "PayModeName": "按量计费",
			"ProjectName": "默认项目", "RegionName": "华南地区（广州）", "ZoneName": "广州六区",
			"ResourceId": fmt.Sprintf("ins-gpu%03d", i), "ResourceName": fmt.Sprintf("train-%d", i),
			"ActionTypeName": "按量计费小时结", "OrderId": "", "BillId": fmt.Sprintf("20261101%08d", i),
			"PayTime": f(start.Add(time.Hour)), "FeeBeginTime": f(start), "FeeEndTime": f(start.Add(time.Hour)),
			"Tags": []map[string]any{{"TagKey": "team", "TagValue": "vision"}},
			"ComponentSet": []map[string]any{
				{"ComponentCodeName": "GPU", "ItemCodeName": "GPU计算型GN10Xp 实例", "SinglePrice": "20.00000000",
					"ContractPrice": "20.00000000", "PriceUnit": "元/小时", "UsedAmount": "1", "UsedAmountUnit": "个",
					"TimeSpan": "1", "TimeUnitName": "小时", "Cost": "20.00000000", "Discount": "1",
					"RealCost": "20.00000000", "VoucherPayAmount": "0", "IncentivePayAmount": "0",
					"TransferPayAmount": "0", "CashPayAmount": "20", "InstanceType": ""},
				{"ComponentCodeName": "系统盘", "ItemCodeName": "高性能云硬盘", "SinglePrice": "0.00200000",
					"ContractPrice": "0.00200000", "PriceUnit": "元/GB/小时", "UsedAmount": "50", "UsedAmountUnit": "GB",
					"TimeSpan": "1", "TimeUnitName": "小时", "Cost": "0.10000000", "Discount": "1",
					"RealCost": "0.10000000", "VoucherPayAmount": "0", "IncentivePayAmount": "0",
					"TransferPayAmount": "0", "CashPayAmount": "0.1", "InstanceType": ""},
			},
		})
	}
	return out
}

// tencentCSVHeader maps the API fields to the L3 export's Chinese header.
var tencentCSVHeader = [][2]string{{"PayerUin", "支付者UIN"}, {"OwnerUin", "使用者UIN"}, {"OperateUin", "操作者UIN"},
	{"BusinessCodeName", "产品名称"}, {"PayModeName", "计费模式"}, {"ProjectName", "项目名称"}, {"RegionName", "地域"},
	{"ZoneName", "可用区"}, {"ResourceId", "资源ID"}, {"ResourceName", "实例名称"}, {"ProductCodeName", "子产品名称"},
	{"ActionTypeName", "交易类型"}, {"OrderId", "订单ID"}, {"BillId", "交易ID"}, {"PayTime", "扣费时间"},
	{"FeeBeginTime", "开始使用时间"}, {"FeeEndTime", "结束使用时间"}, {"ComponentCodeName", "组件类型"},
	{"ItemCodeName", "组件名称"}, {"SinglePrice", "组件刊例价"}, {"ContractPrice", "组件单价"}, {"PriceUnit", "组件价格单位"},
	{"UsedAmount", "组件用量"}, {"UsedAmountUnit", "组件用量单位"}, {"TimeSpan", "使用时长"}, {"TimeUnitName", "时长单位"},
	{"Cost", "组件原价"}, {"Discount", "折扣率"}, {"RealCost", "优惠后总价"}, {"VoucherPayAmount", "代金券支出(元)"},
	{"IncentivePayAmount", "赠送账户支出(元)"}, {"CashPayAmount", "现金账户支出(元)"}}

// writeTencentCSV writes details as the console's L3 export would.
func writeTencentCSV(t *testing.T, details []map[string]any) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tencent-2026-11.csv")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	var hdr []string
	for _, h := range tencentCSVHeader {
		hdr = append(hdr, h[1])
	}
	w.Write(append(hdr, "标签键:team"))
	for _, d := range details {
		for _, c := range d["ComponentSet"].([]map[string]any) {
			var rec []string
			for _, h := range tencentCSVHeader {
				v, ok := d[h[0]]
				if !ok {
					v = c[h[0]]
				}
				rec = append(rec, fmt.Sprint(v))
			}
			w.Write(append(rec, "vision"))
		}
	}
	w.Flush()
	f.Close()
	return p
}

// aliyunItems is a month of 阿里云 计费项明细 items, amounts as numbers.
func aliyunItems(n int) []map[string]any {
	var out []map[string]any
	for i := 0; i < n; i++ {
		for _, it := range []struct{ item, code, price, usage, unit, amount string }{
			{"实例规格", "instance_type", "8.5", "10", "小时", "85"},
			{"系统盘", "systemdisk", "0.0041", "100", "GB", "0.41"},
		} {
			out = append(out, map[string]any{
				"BillingDate": "", "BillAccountID": "1234567890123456", "BillAccountName": "gpu-team", "OwnerID": "1234567890123456",
				"CostUnit": "未分配", "ProductCode": "ecs", "ProductName": "云服务器 ECS", "ProductType": "ecs",
				"ProductDetail": "云服务器ECS-按量付费", "SubscriptionType": "PayAsYouGo", "Item": "PayAsYouGoBill",
				"BillingType": "按量付费", "InstanceID": fmt.Sprintf("i-gpu%03d", i), "NickName": fmt.Sprintf("v100-%d", i),
				"Tag": "key:team value:nlp", "InstanceConfig": "GPU计算型 gn6v; V100 16GB", "InstanceSpec": "ecs.gn6v-c8g1.2xlarge",
				"InternetIP": "", "IntranetIP": "10.0.0." + fmt.Sprint(i), "ResourceGroup": "默认资源组", "Region": "华东1（杭州）",
				"Zone": "cn-hangzhou-h", "BillingItem": it.item, "BillingItemCode": it.code, "ListPrice": json.Number(it.price),
				"ListPriceUnit": "元/" + it.unit, "Usage": json.Number(it.usage), "UsageUnit": it.unit,
				"DeductedByResourcePackage": "0", "PretaxGrossAmount": json.Number(it.amount), "InvoiceDiscount": json.Number("0"),
				"DeductedByCoupons": json.Number("0"), "PretaxAmount": json.Number(it.amount),
				"DeductedByCashCoupons": json.Number("0"), "DeductedByPrepaidCard": json.Number("0"),
				"PaymentAmount": json.Number(it.amount), "OutstandingAmount": json.Number("0"), "Currency": "CNY",
				"ServicePeriod": "36000", "ServicePeriodUnit": "秒", "BizType": "",
			})
		}
	}
	return out
}

// aliyunCSVHeader maps API fields to the newer export's Chinese header.
var aliyunCSVHeader = [][2]string{{"BillingCycle", "账期"}, {"CostUnit", "财务单元"}, {"BillAccountID", "账号ID"},
	{"BillAccountName", "账号"}, {"OwnerID", "Owner账号ID"}, {"ProductCode", "产品Code"}, {"ProductName", "产品"},
	{"ProductType", "产品明细Code"}, {"ProductDetail", "产品明细"}, {"BizType", "业务类型"}, {"SubscriptionType", "消费类型"},
	{"ServicePeriod", "服务时长"}, {"ServicePeriodUnit", "时长单位"}, {"Item", "账单类型"}, {"BillingType", "计费方式"},
	{"InstanceID", "实例ID"}, {"NickName", "实例昵称"}, {"ResourceGroup", "资源组"}, {"Tag", "实例标签"},
	{"InstanceConfig", "实例配置"}, {"InstanceSpec", "实例规格"}, {"InternetIP", "公网IP"}, {"IntranetIP", "私网IP"},
	{"Region", "地域"}, {"Zone", "可用区"}, {"BillingItem", "计费项"}, {"ListPrice", "单价"}, {"ListPriceUnit", "单价单位"},
	{"Usage", "用量"}, {"UsageUnit", "用量单位"}, {"DeductedByResourcePackage", "资源包抵扣"}, {"PretaxGrossAmount", "官网价"},
	{"InvoiceDiscount", "优惠金额"}, {"DeductedByCoupons", "优惠券抵扣"}, {"PretaxAmount", "应付金额"},
	{"PaymentAmount", "现金支付"}, {"DeductedByCashCoupons", "代金券抵扣"}, {"DeductedByPrepaidCard", "储值卡支付金额"},
	{"OutstandingAmount", "欠费金额"}, {"Currency", "币种"}, {"BillingItemCode", "计费项Code"}}

func writeAliyunCSV(t *testing.T, month string, items []map[string]any) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "aliyun-"+month+".csv")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	var hdr []string
	for _, h := range aliyunCSVHeader {
		hdr = append(hdr, h[1])
	}
	w.Write(hdr)
	for _, it := range items {
		var rec []string
		for _, h := range aliyunCSVHeader {
			v := fmt.Sprint(it[h[0]])
			if h[0] == "BillingCycle" {
				v = month
			}
			rec = append(rec, v)
		}
		w.Write(rec)
	}
	w.Flush()
	f.Close()
	return p
}

// tencentServer starts a fake with the month's details.
func tencentServer(t *testing.T, details []map[string]any, now time.Time) (*fetchtest.Tencent, Account) {
	t.Helper()
	f := &fetchtest.Tencent{SecretID: "AKIDtest", SecretKey: testSecret, Month: "2026-11", Details: details,
		Now: func() time.Time { return now }}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, Account{Name: "main", Provider: "tencentcloud", KeyID: "AKIDtest", secret: testSecret, Endpoint: srv.URL + "/ignored/path",
		SourceZH: "环境变量 TENCENTCLOUD_SECRET_ID / TENCENTCLOUD_SECRET_KEY",
		SourceEN: "the environment variables TENCENTCLOUD_SECRET_ID / TENCENTCLOUD_SECRET_KEY"}
}

func aliyunServer(t *testing.T, items []map[string]any, now time.Time) (*fetchtest.Aliyun, Account) {
	t.Helper()
	f := &fetchtest.Aliyun{AccessKeyID: "LTAItest", AccessKeySecret: testSecret, BillingCycle: "2026-11",
		AccountID: "1234567890123456", Items: items, Now: func() time.Time { return now }}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, Account{Name: "prod", Provider: "aliyun", KeyID: "LTAItest", secret: testSecret, Endpoint: srv.URL,
		SourceZH: "环境变量 ALIBABA_CLOUD_ACCESS_KEY_ID / ALIBABA_CLOUD_ACCESS_KEY_SECRET",
		SourceEN: "the environment variables ALIBABA_CLOUD_ACCESS_KEY_ID / ALIBABA_CLOUD_ACCESS_KEY_SECRET"}
}

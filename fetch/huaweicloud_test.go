package fetch

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/fetch/fetchtest"
	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

// huaweiRecords is a month of 华为云 fee records (statistic_type=3): n
// hours of a GPU server, each with its EVS system disk.
func huaweiRecords(n int) []map[string]any {
	var out []map[string]any
	for i := 0; i < n; i++ {
		start := time.Date(2026, 11, 1+i, 6, 0, 0, 0, time.UTC)
		utc := func(t time.Time) string { return t.Format("2006-01-02T15:04:05Z") }
		for _, c := range []struct {
			id, rtype, rname, res, spec, sku, price, unit, usage, amount string
			measure                                                      int
		}{
			{"vm", "hws.resource.type.vm", "云主机", "4f6a2d0c-0000-4c3d-9e8f-00000000000" + fmt.Sprint(i), "GPU加速型|pi2.2xlarge.4|8vCPUs|32GB|linux",
				"ecs.pi2.2xlarge.4.linux", "8.22", "元/小时", "1", "8.22000000", 4},
			{"evs", "hws.resource.type.volume", "云硬盘", "a1b2c3d4-0000-4a7b-8c9d-00000000000" + fmt.Sprint(i), "超高IO|100.000000GB",
				"evs.ssd.linux", "0.0010", "元/GB/小时", "100", "0.10000000", 10},
		} {
			out = append(out, map[string]any{
				"bill_date": start.Format("2006-01-02"), "bill_type": 5, "customer_id": "0a1b2c3d4e", "account_name": "gpu-lab",
				"region": "cn-north-4", "region_name": "华北-北京四", "cloud_service_type": "hws.service.type.ec2",
				"cloud_service_type_name": "弹性云服务器", "resource_type": c.rtype, "resource_type_name": c.rname,
				"effective_time": utc(start), "expire_time": utc(start.Add(time.Hour)), "consume_time": utc(start),
				"resource_id": c.res, "resource_name": "pi2-train", "resource_tag": "team=ml", "product_id": "--",
				"product_spec_desc": c.spec, "sku_code": c.sku, "trade_id": fmt.Sprintf("CS2611%02d0600%s", 1+i, c.id),
				"id": fmt.Sprintf("hw-line-%02d-%s", i, c.id), "trade_time": utc(start.Add(time.Hour + 5*time.Minute)),
				"enterprise_project_id": "0", "enterprise_project_name": "default", "charge_mode": "3", "period_type": "25",
				"usage_type": "duration", "usage": json.Number(c.usage), "usage_measure_id": c.measure,
				"free_resource_usage": json.Number("0"), "ri_usage": json.Number("0"), "unit_price": json.Number(c.price),
				"unit": c.unit, "official_amount": json.Number(c.amount), "discount_amount": json.Number("0"),
				"amount": json.Number(c.amount), "cash_amount": json.Number(c.amount), "credit_amount": json.Number("0"),
				"coupon_amount": json.Number("0"), "flexipurchase_coupon_amount": json.Number("0"),
				"stored_card_amount": json.Number("0"), "bonus_amount": json.Number("0"), "debt_amount": json.Number("0"),
				"adjustment_amount": json.Number("0"), "measure_id": 1,
			})
		}
	}
	return out
}

// huaweiMeasures are the fake's measure units (ListMeasureUnits).
var huaweiMeasures = map[int]string{1: "元", 4: "小时", 10: "GB*小时"}

// writeHuaweiCSV writes records as the console's 使用量类型明细账单 would:
// the export's Chinese header, times in GMT+08:00, names for the codes.
func writeHuaweiCSV(t *testing.T, recs []map[string]any) string {
	t.Helper()
	cols := [][2]string{{"账期", ""}, {"企业项目", "enterprise_project_name"}, {"企业项目ID", "enterprise_project_id"},
		{"账号", "account_name"}, {"产品类型编码", "cloud_service_type"}, {"产品类型", "cloud_service_type_name"},
		{"产品编码", "resource_type"}, {"产品ID", "product_id"}, {"产品", "resource_type_name"}, {"计费模式", ""},
		{"消费时间", "consume_time"}, {"使用开始时间", "effective_time"}, {"使用结束时间", "expire_time"},
		{"订单号/交易号", "trade_id"}, {"交易时间", "trade_time"}, {"账单类型", ""}, {"资源ID", "resource_id"},
		{"资源名称", "resource_name"}, {"资源标签", "resource_tag"}, {"SKU编码", "sku_code"}, {"规格", "product_spec_desc"},
		{"区域编码", "region"}, {"区域", "region_name"}, {"使用量类型编码", "usage_type"}, {"单价(¥)", "unit_price"},
		{"单价单位", "unit"}, {"使用量", "usage"}, {"使用量单位", ""}, {"套餐内使用量", "free_resource_usage"},
		{"预留实例内使用量", "ri_usage"}, {"官网价(¥)", "official_amount"}, {"优惠金额(¥)", "discount_amount"},
		{"应付金额(¥)", "amount"}, {"现金支付(¥)", "cash_amount"}, {"信用额度支付(¥)", "credit_amount"},
		{"代金券抵扣(¥)", "coupon_amount"}, {"现金券抵扣(¥)", "flexipurchase_coupon_amount"},
		{"储值卡抵扣(¥)", "stored_card_amount"}, {"欠费金额(¥)", "debt_amount"}, {"已核销金额(¥)", "adjustment_amount"}}
	p := filepath.Join(t.TempDir(), "usage_detail_202611.csv")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	var hdr []string
	for _, c := range cols {
		hdr = append(hdr, c[0])
	}
	w.Write(hdr)
	bj := time.FixedZone("GMT+08:00", 8*3600)
	for _, r := range recs {
		var rec []string
		for _, c := range cols {
			v := fmt.Sprint(r[c[1]])
			switch c[0] {
			case "账期":
				v = "2026-11"
			case "计费模式":
				v = "按需"
			case "账单类型":
				v = "消费-使用"
			case "使用量单位":
				v = huaweiMeasures[r["usage_measure_id"].(int)]
			case "消费时间", "使用开始时间", "使用结束时间", "交易时间":
				tm, err := time.Parse(time.RFC3339, v)
				if err != nil {
					t.Fatal(err)
				}
				v = tm.In(bj).Format("2006-01-02 15:04:05") + " GMT+08:00"
			}
			rec = append(rec, v)
		}
		w.Write(rec)
	}
	w.Flush()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func huaweiServer(t *testing.T, recs []map[string]any, now time.Time) (*fetchtest.Huawei, Account) {
	t.Helper()
	f := &fetchtest.Huawei{AK: "HWAKTEST0001", SK: testSecret, Cycle: "2026-11", DomainID: "0a1b2c3d4e", Records: recs,
		Measures: huaweiMeasures, Now: func() time.Time { return now }}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, Account{Name: "hw", Provider: "huaweicloud", KeyID: "HWAKTEST0001", secret: testSecret, Endpoint: srv.URL + "/some/path",
		DomainID: "0a1b2c3d4e", SourceZH: "环境变量 HUAWEICLOUD_SDK_AK / HUAWEICLOUD_SDK_SK",
		SourceEN: "the environment variables HUAWEICLOUD_SDK_AK / HUAWEICLOUD_SDK_SK"}
}

// TestHuaweiPagesAndAgreesWithCSV: a month over three pages lands once,
// with the mapping of the export; the export of the same month after it
// adds nothing, and imported first it gives the same totals.
func TestHuaweiPagesAndAgreesWithCSV(t *testing.T) {
	ctx := context.Background()
	recs := huaweiRecords(5)
	db := openLedger(t)
	f, acct := huaweiServer(t, recs, december5)
	f.PageSize = 4
	out, err := Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Pages != 3 || out.Lines != 10 || out.Result.New != 10 || out.Result.Format != "huaweicloud-usage" || out.Provisional {
		t.Fatalf("outcome %+v", out)
	}
	if f.Requests != 4 { // three pages and the measure units
		t.Errorf("requests %d, want 4", f.Requests)
	}
	n, sum := ledgerState(t, db)
	if n != 10 || sum != "41.6" {
		t.Errorf("ledger %d lines %s, want 10 lines 41.6", n, sum)
	}
	items, _ := testkit.LineItems(ctx, db, ledger.Filter{})
	var vm *ledger.LineItem
	for i := range items {
		if items[i].ResourceType == "云主机" {
			vm = &items[i]
			break
		}
	}
	if vm == nil || vm.Kind != ledger.KindCompute || vm.PricingModel != ledger.PricingOnDemand || vm.PricingUnit != "hour" ||
		vm.Description != "云主机 / duration / 消费-使用" || vm.BillingPeriod != "2026-11" || vm.Region != "cn-north-4" {
		t.Errorf("compute line %+v", vm)
	}
	if out, _ = Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)}); out.Result.New != 0 {
		t.Errorf("re-run added %d", out.Result.New)
	}
	csvPath := writeHuaweiCSV(t, recs)
	res, err := ingest.ImportFile(ctx, db, csvPath, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "huaweicloud-usage" || res.New != 0 || res.Duplicate != 10 {
		t.Errorf("CSV after fetch: format %s new %d duplicate %d", res.Format, res.New, res.Duplicate)
	}
	db2 := openLedger(t)
	if _, err := ingest.ImportFile(ctx, db2, csvPath, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if n2, sum2 := ledgerState(t, db2); n2 != n || sum2 != sum {
		t.Errorf("CSV alone: %d lines %s; fetch: %d lines %s", n2, sum2, n, sum)
	}
	if out, err := Fetch(ctx, db2, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)}); err != nil || out.Result.New != 0 {
		t.Errorf("fetch after CSV: %v, added %d", err, out.Result.New)
	}
}

func TestHuaweiFaults(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(f *fetchtest.Huawei, a *Account)
		kind   Kind
		want   []string
	}{
		{"wrong secret", func(_ *fetchtest.Huawei, a *Account) { a.secret = "wrong" }, KindAuth,
			[]string{"APIGW.0301", "HUAWEICLOUD_SDK_AK", "billing:billDetail:view", "nothing was written"}},
		{"unknown key", func(_ *fetchtest.Huawei, a *Account) { a.KeyID = "HWAKOTHER" }, KindAuth, []string{"APIGW.0301"}},
		{"clock skew", func(f *fetchtest.Huawei, _ *Account) { f.Now = func() time.Time { return december5.Add(time.Hour) } }, KindAuth,
			[]string{"APIGW.0303"}},
		{"no permission", func(f *fetchtest.Huawei, _ *Account) { f.Deny = true }, KindAuth, []string{"CBC.0151", "billing:billDetail:view"}},
		{"wrong account ID", func(_ *fetchtest.Huawei, a *Account) { a.DomainID = "ffff" }, KindAuth, []string{"CBC.0151"}},
		{"throttled", func(f *fetchtest.Huawei, _ *Account) {
			for i := 0; i < 6; i++ {
				f.FaultAt(0, fetchtest.Fault{Throttle: true})
			}
		}, KindThrottled, []string{"APIGW.0308"}},
		{"malformed", func(f *fetchtest.Huawei, _ *Account) {
			f.FaultAt(0, fetchtest.Fault{Body: `{"fee_records":[{"id":"x","charge_mode":"3","bill_type":5}],"total_count":1,"currency":"CNY"}`})
		}, KindShape, []string{"fee_records[0].amount is missing"}},
		{"no total", func(f *fetchtest.Huawei, _ *Account) {
			f.FaultAt(0, fetchtest.Fault{Body: `{"fee_records":[],"currency":"CNY"}`})
		}, KindShape, []string{"total_count should be an integer"}},
		{"short month", func(f *fetchtest.Huawei, _ *Account) {
			f.FaultAt(2, fetchtest.Fault{Body: `{"fee_records":[],"total_count":4,"currency":"CNY"}`})
		}, KindShape, []string{"fee_records is empty at offset 2 while total_count is 4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openLedger(t)
			f, acct := huaweiServer(t, huaweiRecords(2), december5)
			f.PageSize = 2
			tc.change(f, &acct)
			_, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
			var fe *Error
			if !errors.As(err, &fe) || fe.Kind != tc.kind {
				t.Fatalf("got %v, want kind %d", err, tc.kind)
			}
			for _, s := range tc.want {
				if !strings.Contains(fe.EN, s) {
					t.Errorf("message lacks %q: %s", s, fe.EN)
				}
			}
			if strings.Contains(fe.EN+fe.ZH, testSecret) {
				t.Error("the message shows the secret")
			}
			if tc.kind == KindAuth && f.Requests != 1 {
				t.Errorf("an auth failure was retried: %d requests", f.Requests)
			}
			if n, _ := ledgerState(t, db); n != 0 {
				t.Errorf("wrote %d", n)
			}
		})
	}
	// A throttled page, then a slow one, within the bound: retried.
	db := openLedger(t)
	f, acct := huaweiServer(t, huaweiRecords(2), december5)
	f.PageSize = 2
	f.FaultAt(2, fetchtest.Fault{Throttle: true}, fetchtest.Fault{Delay: 3 * time.Second})
	var waits []time.Duration
	o := fastOptions(december5, &waits)
	o.Timeout = 150 * time.Millisecond
	out, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: o})
	if err != nil || out.Lines != 4 || f.Requests != 5 || len(waits) != 2 {
		t.Errorf("throttled then slow page: %v, %d lines, %d requests, waits %v", err, out.Lines, f.Requests, waits)
	}
}

// TestHuaweiFinalAtTen: 华为云's month is final at 10:00 Beijing on the 4th.
func TestHuaweiFinalAtTen(t *testing.T) {
	bj := ledger.DefaultTZ()
	for _, c := range []struct {
		at   time.Time
		want bool
	}{
		{time.Date(2026, 12, 4, 9, 59, 0, 0, bj), false},
		{time.Date(2026, 12, 4, 10, 0, 0, 0, bj), true},
	} {
		if got := Final("huaweicloud", "2026-11", c.at, bj); got != c.want {
			t.Errorf("Final at %v = %v", c.at, got)
		}
	}
	if !Final("tencentcloud", "2026-11", time.Date(2026, 12, 4, 9, 59, 0, 0, bj), bj) {
		t.Error("the other clouds' rule changed")
	}
}

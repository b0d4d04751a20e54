package fetch

import (
	"context"
	"encoding/csv"
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
)

// volcItems is a month of 火山引擎 bill lines: n days of a GPU instance,
// priced as FORMATS.md's example (原价 168.74 − 优惠 148.500779 − 抹零
// 0.559221 = 折后价 19.68).
func volcItems(n int) []map[string]any {
	var out []map[string]any
	for i := 0; i < n; i++ {
		day := time.Date(2026, 11, 1+i, 0, 0, 0, 0, time.UTC)
		out = append(out, map[string]any{
			"BillPeriod": "2026-11", "ExpenseDate": day.Format("2006-01-02"),
			"ExpenseBeginTime": day.Format("2006-01-02") + " 00:00:00", "ExpenseEndTime": day.Format("2006-01-02") + " 23:59:59",
			"PayerID": "2100153894", "OwnerID": "2100153894", "Product": "ECS", "ProductZh": "云服务器",
			"BillingMode": "按量计费", "BillCategory": "消费-使用", "InstanceNo": fmt.Sprintf("i-volc%03d", i),
			"InstanceName": "a100-train", "ConfigName": "ecs.gni2.3xlarge", "Element": "实例", "Region": "华北2（北京）",
			"Zone": "可用区A", "Price": "7.030833", "PriceUnit": "元/小时", "Count": "24", "Unit": "小时",
			"OriginalBillAmount": "168.74", "PreferentialBillAmount": "148.500779", "RoundAmount": "0.559221",
			"DiscountBillAmount": "19.68", "CouponAmount": "0", "PayableAmount": "19.68", "PaidAmount": "19.68",
			"UnpaidAmount": "0", "Currency": "CNY", "Project": "default", "BillID": fmt.Sprintf("BILL%06d", i),
			"BillDetailId": fmt.Sprintf("DET%06d", i),
		})
	}
	return out
}

var volcCSVHeader = [][2]string{{"BillPeriod", "账期"}, {"ExpenseDate", "消费日期"}, {"ExpenseBeginTime", "消费开始时间"},
	{"ExpenseEndTime", "消费结束时间"}, {"PayerID", "账号ID"}, {"ProductZh", "产品"}, {"BillingMode", "计费模式"},
	{"BillCategory", "账单类型"}, {"InstanceNo", "实例ID"}, {"InstanceName", "实例名称"}, {"ConfigName", "配置"},
	{"Element", "计费项"}, {"Region", "地域"}, {"Zone", "可用区"}, {"Price", "单价"}, {"Count", "用量"}, {"Unit", "用量单位"},
	{"OriginalBillAmount", "原价"}, {"PreferentialBillAmount", "优惠金额"}, {"RoundAmount", "抹零金额"},
	{"DiscountBillAmount", "折后价"}, {"CouponAmount", "代金券抵扣"}, {"PayableAmount", "应付金额"}, {"PaidAmount", "现金支付"},
	{"UnpaidAmount", "欠费金额"}, {"Currency", "币种"}, {"Project", "项目"}, {"Product", "产品编码"}}

func volcServer(t *testing.T, items []map[string]any) (*fetchtest.Volcengine, Account) {
	t.Helper()
	f := &fetchtest.Volcengine{AccessKey: "AKLTtest", SecretKey: testSecret, BillPeriod: "2026-11", Items: items,
		Now: func() time.Time { return december5 }}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, Account{Name: "volc", Provider: "volcengine", KeyID: "AKLTtest", secret: testSecret, Endpoint: srv.URL,
		SourceZH: "环境变量 VOLCENGINE_ACCESS_KEY / VOLCENGINE_SECRET_KEY", SourceEN: "the environment variables VOLCENGINE_ACCESS_KEY / VOLCENGINE_SECRET_KEY"}
}

func TestVolcenginePagesAndAgreesWithCSV(t *testing.T) {
	ctx := context.Background()
	items := volcItems(7)
	db := openLedger(t)
	f, acct := volcServer(t, items)
	f.PageSize = 3
	out, err := Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Pages != 3 || out.Lines != 7 || out.Result.New != 7 || out.Result.Format != "volcengine-bill" {
		t.Fatalf("outcome %+v", out)
	}
	n, sum := ledgerState(t, db)
	if n != 7 || sum != "137.76" { // 7 × 19.68: the payable, never 优惠金额
		t.Errorf("ledger %d lines %s", n, sum)
	}
	if out, _ = Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)}); out.Result.New != 0 {
		t.Errorf("re-run added %d", out.Result.New)
	}
	// The same month as a console export (Chinese header).
	p := filepath.Join(t.TempDir(), "volc.csv")
	fh, _ := os.Create(p)
	w := csv.NewWriter(fh)
	var hdr []string
	for _, h := range volcCSVHeader {
		hdr = append(hdr, h[1])
	}
	w.Write(hdr)
	for _, it := range items {
		var rec []string
		for _, h := range volcCSVHeader {
			rec = append(rec, fmt.Sprint(it[h[0]]))
		}
		w.Write(rec)
	}
	w.Flush()
	fh.Close()
	res, err := ingest.ImportFile(ctx, db, p, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.New != 0 || res.Duplicate != 7 {
		t.Errorf("CSV after fetch: new %d duplicate %d", res.New, res.Duplicate)
	}
}

func TestVolcengineFaults(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(f *fetchtest.Volcengine, a *Account)
		kind   Kind
		want   string
	}{
		{"wrong secret", func(_ *fetchtest.Volcengine, a *Account) { a.secret = "wrong" }, KindAuth, "SignatureDoesNotMatch"},
		{"unknown key", func(_ *fetchtest.Volcengine, a *Account) { a.KeyID = "AKLTother" }, KindAuth, "InvalidAccessKey"},
		{"no permission", func(f *fetchtest.Volcengine, _ *Account) { f.Deny = true }, KindAuth, "billing:ListBillDetail"},
		{"throttled", func(f *fetchtest.Volcengine, _ *Account) {
			for i := 0; i < 6; i++ {
				f.FaultAt(0, fetchtest.Fault{Throttle: true})
			}
		}, KindThrottled, "FlowLimitExceeded"},
		{"malformed", func(f *fetchtest.Volcengine, _ *Account) {
			f.FaultAt(0, fetchtest.Fault{Body: `{"ResponseMetadata":{"RequestId":"x"},"Result":{"List":[{"OriginalBillAmount":"1","PayableAmount":"1"}],"Total":1}}`})
		}, KindShape, "Result.List[0].DiscountBillAmount is missing"},
		{"no total", func(f *fetchtest.Volcengine, _ *Account) {
			f.FaultAt(0, fetchtest.Fault{Body: `{"ResponseMetadata":{"RequestId":"x"},"Result":{"List":[],"Total":-1}}`})
		}, KindShape, "Result.Total is -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openLedger(t)
			f, acct := volcServer(t, volcItems(2))
			tc.change(f, &acct)
			_, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
			var fe *Error
			if !errors.As(err, &fe) || fe.Kind != tc.kind || !strings.Contains(fe.EN, tc.want) {
				t.Fatalf("got %v, want kind %d naming %q", err, tc.kind, tc.want)
			}
			if strings.Contains(fe.EN+fe.ZH, testSecret) {
				t.Error("the message shows the secret")
			}
			if n, _ := ledgerState(t, db); n != 0 {
				t.Errorf("wrote %d", n)
			}
		})
	}
	// A throttled page within the bound is retried.
	db := openLedger(t)
	f, acct := volcServer(t, volcItems(4))
	f.PageSize = 2
	f.FaultAt(2, fetchtest.Fault{Throttle: true}, fetchtest.Fault{Delay: 3 * time.Second})
	o := fastOptions(december5, nil)
	o.Timeout = 150 * time.Millisecond
	out, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: o})
	if err != nil || out.Lines != 4 || f.Requests != 4 {
		t.Errorf("throttled then slow page: %v, %d lines, %d requests", err, out.Lines, f.Requests)
	}
}

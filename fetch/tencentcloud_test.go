package fetch

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/fetch/fetchtest"
	"github.com/gpubill/gpubill/ingest"
)

func TestTencentPagesToTheLastPage(t *testing.T) {
	db := openLedger(t)
	f, acct := tencentServer(t, tencentDetails(7), december5)
	f.PageSize = 3 // a month split over three pages: 3 + 3 + 1
	var pages []int
	o := fastOptions(december5, nil)
	o.OnPage = func(p, l int) { pages = append(pages, l) }
	out, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: o})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(pages), 3; got != want || pages[2] != 14 {
		t.Fatalf("pages %v, want 3 pages ending at 14 lines", pages)
	}
	if out.Lines != 14 || out.Result.New != 14 || out.Provisional {
		t.Errorf("outcome %+v", out)
	}
	n, sum := ledgerState(t, db)
	if n != 14 || sum != "140.7" {
		t.Errorf("ledger holds %d lines, %s; want 14, 140.7", n, sum)
	}
	ims, _ := db.Imports(context.Background(), 0)
	if len(ims) != 1 || ims[0].Path != "api:tencentcloud/DescribeBillDetail?account=main&month=2026-11" || ims[0].Format != "tencentcloud-detail" {
		t.Errorf("import record %+v", ims)
	}
	// Re-run: nothing new.
	out, err = Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Result.New != 0 || out.Result.Duplicate != 14 {
		t.Errorf("re-run added %d (dup %d), want 0 (14)", out.Result.New, out.Result.Duplicate)
	}
	if n2, sum2 := ledgerState(t, db); n2 != n || sum2 != sum {
		t.Errorf("re-run changed the ledger: %d %s", n2, sum2)
	}
}

// TestTencentFetchAndCSVAgree: the fetch and the exported CSV of the same
// month store each line once and give the same totals, in either order.
func TestTencentFetchAndCSVAgree(t *testing.T) {
	details := tencentDetails(5)
	csvPath := writeTencentCSV(t, details)
	ctx := context.Background()

	db := openLedger(t)
	_, acct := tencentServer(t, details, december5)
	if _, err := Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)}); err != nil {
		t.Fatal(err)
	}
	n, sum := ledgerState(t, db)
	res, err := ingest.ImportFile(ctx, db, csvPath, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "tencentcloud-detail" || res.New != 0 || res.Duplicate != 10 {
		t.Errorf("CSV after fetch: format %s, new %d, duplicate %d; want 0 new, 10 duplicates", res.Format, res.New, res.Duplicate)
	}

	db2 := openLedger(t)
	if _, err := ingest.ImportFile(ctx, db2, csvPath, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	n2, sum2 := ledgerState(t, db2)
	out, err := Fetch(ctx, db2, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Result.New != 0 {
		t.Errorf("fetch after CSV added %d lines", out.Result.New)
	}
	if n != n2 || sum != sum2 || n != 10 {
		t.Errorf("fetch: %d lines %s; CSV: %d lines %s", n, sum, n2, sum2)
	}
}

func TestTencentThrottledPageIsRetried(t *testing.T) {
	db := openLedger(t)
	f, acct := tencentServer(t, tencentDetails(4), december5)
	f.PageSize = 2
	f.FaultAt(2, fetchtest.Fault{Throttle: true}, fetchtest.Fault{Throttle: true})
	var waits []time.Duration
	out, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, &waits)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Lines != 8 || f.Requests != 4 {
		t.Errorf("lines %d, requests %d; want 8, 4", out.Lines, f.Requests)
	}
	// Exponential with jitter: the second wait lies in [10ms, 20ms], the first in [5ms, 10ms].
	if len(waits) != 2 || waits[0] < 5*time.Millisecond || waits[0] > 10*time.Millisecond || waits[1] < 10*time.Millisecond || waits[1] > 20*time.Millisecond {
		t.Errorf("waits %v", waits)
	}
}

func TestTencentThrottledBeyondTheBound(t *testing.T) {
	db := openLedger(t)
	f, acct := tencentServer(t, tencentDetails(4), december5)
	f.PageSize = 2
	for i := 0; i < 10; i++ {
		f.FaultAt(2, fetchtest.Fault{Throttle: true})
	}
	_, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	var fe *Error
	if !errors.As(err, &fe) || fe.Kind != KindThrottled || !strings.Contains(fe.EN, "RequestLimitExceeded") {
		t.Fatalf("got %v, want a throttling error", err)
	}
	if f.Requests != 1+4 {
		t.Errorf("requests %d, want 5 (page 1, then 4 tries of page 2)", f.Requests)
	}
	if n, _ := ledgerState(t, db); n != 0 {
		t.Errorf("a failed fetch wrote %d lines", n)
	}
	if ims, _ := db.Imports(context.Background(), 0); len(ims) != 0 {
		t.Errorf("a failed fetch left an import record")
	}
}

func TestTencentSlowPage(t *testing.T) {
	db := openLedger(t)
	f, acct := tencentServer(t, tencentDetails(4), december5)
	f.PageSize = 2
	f.FaultAt(2, fetchtest.Fault{Delay: 2 * time.Second})
	o := fastOptions(december5, nil)
	o.Timeout = 150 * time.Millisecond
	out, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: o})
	if err != nil {
		t.Fatal(err)
	}
	if out.Lines != 8 {
		t.Errorf("lines %d", out.Lines)
	}

	// Always slow: a timeout error after the bound, nothing written.
	db2 := openLedger(t)
	for i := 0; i < 4; i++ {
		f.FaultAt(0, fetchtest.Fault{Delay: 2 * time.Second})
	}
	_, err = Fetch(context.Background(), db2, Request{Account: acct, Month: "2026-11", Options: o})
	var fe *Error
	if !errors.As(err, &fe) || fe.Kind != KindTimeout || !strings.Contains(fe.EN, "no answer within 150ms") {
		t.Fatalf("got %v, want a timeout", err)
	}
	if n, _ := ledgerState(t, db2); n != 0 {
		t.Errorf("wrote %d lines", n)
	}
}

func TestTencentAuthFailure(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(f *fetchtest.Tencent, a *Account)
		code   string
	}{
		{"wrong secret", func(_ *fetchtest.Tencent, a *Account) { a.secret = "wrong" }, "AuthFailure.SignatureFailure"},
		{"unknown id", func(_ *fetchtest.Tencent, a *Account) { a.KeyID = "AKIDother" }, "AuthFailure.SecretIdNotFound"},
		{"no permission", func(f *fetchtest.Tencent, _ *Account) { f.Deny = true }, "UnauthorizedOperation"},
		{"clock skew", func(f *fetchtest.Tencent, _ *Account) { f.Now = func() time.Time { return december5.Add(time.Hour) } }, "AuthFailure.SignatureExpire"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openLedger(t)
			f, acct := tencentServer(t, tencentDetails(2), december5)
			tc.change(f, &acct)
			_, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
			var fe *Error
			if !errors.As(err, &fe) || fe.Kind != KindAuth {
				t.Fatalf("got %v, want an auth error", err)
			}
			for _, s := range []string{tc.code, "TENCENTCLOUD_SECRET_ID", "finance:DescribeBillDetail", "nothing was written"} {
				if !strings.Contains(fe.EN, s) {
					t.Errorf("message lacks %q: %s", s, fe.EN)
				}
			}
			if !strings.Contains(fe.ZH, "finance:DescribeBillDetail") || !strings.Contains(fe.ZH, "未写入") {
				t.Errorf("zh message: %s", fe.ZH)
			}
			if f.Requests != 1 {
				t.Errorf("an auth failure was retried: %d requests", f.Requests)
			}
			if n, _ := ledgerState(t, db); n != 0 {
				t.Errorf("wrote %d lines", n)
			}
		})
	}
}

func TestTencentMalformedPage(t *testing.T) {
	for _, tc := range []struct{ name, body, field string }{
		{"no component set", `{"Response":{"DetailSet":[{"BillId":"x","ResourceId":"r","PayTime":"2026-11-02 00:00:00"}],"Total":4,"RequestId":"r"}}`,
			"Response.DetailSet[0].ComponentSet should be an array, got nothing"},
		{"amount as object", `{"Response":{"DetailSet":[{"BillId":"x","ResourceId":"r","PayTime":"2026-11-02 00:00:00","ComponentSet":[{"ItemCodeName":"GPU","RealCost":{"v":1},"CashPayAmount":"1"}]}],"Total":4,"RequestId":"r"}}`,
			"Response.DetailSet[0].ComponentSet[0].RealCost should be a string or number, got an object"},
		{"missing line id", `{"Response":{"DetailSet":[{"ResourceId":"r","PayTime":"2026-11-02 00:00:00","ComponentSet":[]}],"Total":4,"RequestId":"r"}}`,
			"Response.DetailSet[0].BillId is missing"},
		{"no total", `{"Response":{"DetailSet":[],"RequestId":"r"}}`, "Total should be an integer"},
		{"not JSON", `<html>502 Bad Gateway</html>`, "(body) is not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openLedger(t)
			f, acct := tencentServer(t, tencentDetails(4), december5)
			f.PageSize = 2
			f.FaultAt(2, fetchtest.Fault{Body: tc.body})
			_, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
			var fe *Error
			if !errors.As(err, &fe) || fe.Kind != KindShape || !strings.Contains(fe.EN, tc.field) {
				t.Fatalf("got %v, want a shape error naming %q", err, tc.field)
			}
			if n, _ := ledgerState(t, db); n != 0 {
				t.Errorf("wrote %d lines", n)
			}
		})
	}
}

// TestProvisionalMonthIsReplaced: a month fetched before it is final is
// marked provisional; the next fetch replaces its lines.
func TestProvisionalMonthIsReplaced(t *testing.T) {
	ctx := context.Background()
	db := openLedger(t)
	december2 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	f, acct := tencentServer(t, tencentDetails(3), december2)
	out, err := Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december2, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Provisional || !strings.HasSuffix(out.Name, "&provisional=1") {
		t.Fatalf("December 2: want November provisional, got %+v", out)
	}
	// Tencent corrects a line and adds one before the month closes.
	f.Details = tencentDetails(4)
	f.Details[0]["ComponentSet"].([]map[string]any)[1]["RealCost"] = "0.05000000"
	f.Details[0]["ComponentSet"].([]map[string]any)[1]["CashPayAmount"] = "0.05"
	f.Now = func() time.Time { return december5 }
	out, err = Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Provisional || out.Replaced != 1 {
		t.Errorf("December 5: %+v", out)
	}
	n, sum := ledgerState(t, db)
	if n != 8 || sum != "80.35" {
		t.Errorf("ledger %d lines %s, want 8 lines 80.35 (the corrected month, not both)", n, sum)
	}
	ims, _ := db.Imports(ctx, 0)
	if len(ims) != 1 || strings.Contains(ims[0].Path, "provisional") {
		t.Errorf("imports %+v", ims)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	db := openLedger(t)
	_, acct := tencentServer(t, tencentDetails(3), december5)
	out, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", DryRun: true, Options: fastOptions(december5, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Result.New != 6 || out.Result.Status != ingest.StatusDryRun {
		t.Errorf("dry run %+v", out.Result)
	}
	if n, _ := ledgerState(t, db); n != 0 {
		t.Errorf("dry run wrote %d lines", n)
	}
}

func TestEndpointKeepsTheAPIPath(t *testing.T) {
	u, err := baseURL("https://billing.tencentcloudapi.com", "http://127.0.0.1:8080/private/prefix?x=1", "/")
	if err != nil || u.String() != "http://127.0.0.1:8080/" {
		t.Errorf("got %v %v", u, err)
	}
	for _, bad := range []string{"ftp://x", "127.0.0.1:80", "http://"} {
		if _, err := baseURL("https://a", bad, "/"); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestRedirectIsNotFollowed: a signed request is not sent on to another
// host, and the refusal is not retried.
func TestRedirectIsNotFollowed(t *testing.T) {
	other := 0
	elsewhere := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { other++ }))
	defer elsewhere.Close()
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		http.Redirect(w, r, elsewhere.URL+"/", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	_, acct := tencentServer(t, nil, december5)
	acct.Endpoint = srv.URL
	_, err := Fetch(context.Background(), openLedger(t), Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	var fe *Error
	if !errors.As(err, &fe) || fe.Kind != KindAPI || !strings.Contains(fe.EN, "redirect") {
		t.Fatalf("got %v", err)
	}
	if other != 0 || n != 1 {
		t.Errorf("redirect target got %d requests, the API %d", other, n)
	}
}

// TestBadAmountNamesTheField: an amount that is no number is refused by the
// CSV mapper, naming the line and the API field; nothing is written.
func TestBadAmountNamesTheField(t *testing.T) {
	db := openLedger(t)
	details := tencentDetails(2)
	details[1]["ComponentSet"].([]map[string]any)[0]["RealCost"] = "12,3O"
	_, acct := tencentServer(t, details, december5)
	_, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	if err == nil || !strings.Contains(err.Error(), "RealCost") || !strings.Contains(err.Error(), "12,3O") ||
		!strings.Contains(err.Error(), "api:tencentcloud/DescribeBillDetail") {
		t.Fatalf("got %v", err)
	}
	if n, _ := ledgerState(t, db); n != 0 {
		t.Errorf("wrote %d", n)
	}
}

package fetch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/fetch/fetchtest"
	"github.com/gpubill/gpubill/ingest"
)

func TestAliyunPagesByNextToken(t *testing.T) {
	db := openLedger(t)
	f, acct := aliyunServer(t, aliyunItems(4), december5) // 8 items
	f.PageSize = 3                                        // 3 + 3 + 2
	out, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Pages != 3 || out.Lines != 8 || out.Result.New != 8 || f.Requests != 3 {
		t.Errorf("outcome %+v, requests %d", out, f.Requests)
	}
	n, sum := ledgerState(t, db)
	if n != 8 || sum != "341.64" {
		t.Errorf("ledger %d lines %s, want 8, 341.64", n, sum)
	}
	if ims, _ := db.Imports(context.Background(), 0); len(ims) != 1 || ims[0].Format != "aliyun-detail" ||
		ims[0].Path != "api:aliyun/DescribeInstanceBill?account=prod&month=2026-11" {
		t.Errorf("imports %+v", ims)
	}
	out, err = Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	if err != nil || out.Result.New != 0 {
		t.Errorf("re-run: %v, %d new", err, out.Result.New)
	}
}

func TestAliyunFetchAndCSVAgree(t *testing.T) {
	ctx := context.Background()
	items := aliyunItems(3)
	csvPath := writeAliyunCSV(t, "2026-11", items)
	db := openLedger(t)
	_, acct := aliyunServer(t, items, december5)
	if _, err := Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)}); err != nil {
		t.Fatal(err)
	}
	n, sum := ledgerState(t, db)
	res, err := ingest.ImportFile(ctx, db, csvPath, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "aliyun-detail" || res.New != 0 || res.Duplicate != 6 {
		t.Errorf("CSV after fetch: %s new %d duplicate %d", res.Format, res.New, res.Duplicate)
	}
	db2 := openLedger(t)
	if _, err := ingest.ImportFile(ctx, db2, csvPath, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if n2, sum2 := ledgerState(t, db2); n2 != n || sum2 != sum {
		t.Errorf("fetch %d %s, CSV %d %s", n, sum, n2, sum2)
	}
}

// TestAliyunThrottledPage: Throttling.User is retried, each retry signed
// anew (the fake refuses a nonce used twice).
func TestAliyunThrottledPage(t *testing.T) {
	db := openLedger(t)
	f, acct := aliyunServer(t, aliyunItems(3), december5)
	f.PageSize = 4
	f.FaultAt(4, fetchtest.Fault{Throttle: true}, fetchtest.Fault{Throttle: true}, fetchtest.Fault{Throttle: true})
	out, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Lines != 6 || f.Requests != 5 {
		t.Errorf("lines %d requests %d, want 6, 5", out.Lines, f.Requests)
	}
	f.FaultAt(0, fetchtest.Fault{Throttle: true}, fetchtest.Fault{Throttle: true}, fetchtest.Fault{Throttle: true}, fetchtest.Fault{Throttle: true})
	db2 := openLedger(t)
	_, err = Fetch(context.Background(), db2, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	var fe *Error
	if !errors.As(err, &fe) || fe.Kind != KindThrottled || !strings.Contains(fe.EN, "Throttling.User") {
		t.Fatalf("got %v", err)
	}
	if n, _ := ledgerState(t, db2); n != 0 {
		t.Errorf("wrote %d", n)
	}
}

func TestAliyunAuthFailure(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(f *fetchtest.Aliyun, a *Account)
		code   string
	}{
		{"wrong secret", func(_ *fetchtest.Aliyun, a *Account) { a.secret = "wrong" }, "SignatureDoesNotMatch"},
		{"unknown key", func(_ *fetchtest.Aliyun, a *Account) { a.KeyID = "LTAIother" }, "InvalidAccessKeyId.NotFound"},
		{"no permission", func(f *fetchtest.Aliyun, _ *Account) { f.Deny = true }, "Forbidden.RAM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openLedger(t)
			f, acct := aliyunServer(t, aliyunItems(2), december5)
			tc.change(f, &acct)
			_, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
			var fe *Error
			if !errors.As(err, &fe) || fe.Kind != KindAuth {
				t.Fatalf("got %v, want an auth error", err)
			}
			for _, s := range []string{tc.code, "ALIBABA_CLOUD_ACCESS_KEY_ID", "bss:DescribeInstanceBill"} {
				if !strings.Contains(fe.EN, s) || !strings.Contains(fe.ZH, s) {
					t.Errorf("message lacks %q: %s / %s", s, fe.EN, fe.ZH)
				}
			}
			if n, _ := ledgerState(t, db); n != 0 {
				t.Errorf("wrote %d", n)
			}
		})
	}
}

func TestAliyunMalformedPage(t *testing.T) {
	for _, tc := range []struct{ name, body, field string }{
		{"items not a list", `{"Code":"Success","Success":true,"Data":{"Items":{"Item":[]},"NextToken":""}}`, "Data.Items should be an array, got an object"},
		{"no payable", `{"Code":"Success","Success":true,"Data":{"Items":[{"InstanceID":"i-1","PretaxGrossAmount":1,"PaymentAmount":1}]}}`, "Data.Items[0].PretaxAmount is missing"},
		{"no data", `{"Code":"Success","Success":true}`, "Data should be an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openLedger(t)
			f, acct := aliyunServer(t, aliyunItems(2), december5)
			f.FaultAt(0, fetchtest.Fault{Body: tc.body})
			_, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
			var fe *Error
			if !errors.As(err, &fe) || fe.Kind != KindShape || !strings.Contains(fe.EN, tc.field) {
				t.Fatalf("got %v, want %q", err, tc.field)
			}
		})
	}
}

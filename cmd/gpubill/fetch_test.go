package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gpubill/gpubill/fetch"
	"github.com/gpubill/gpubill/fetch/fetchtest"
)

// cmdFakeCloud is the script command `fakecloud tencentcloud|aliyun|volcengine MONTH
// FILE.json`: it serves FILE (the month's BillDetail objects, or Items) from
// a fake billing API that checks signatures against the keys in the
// vendor's environment variables, and sets FAKE_URL to it.
func cmdFakeCloud(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: fakecloud tencentcloud|aliyun|volcengine|huaweicloud MONTH FILE.json")
	}
	var data []map[string]any
	d := json.NewDecoder(strings.NewReader(ts.ReadFile(args[2])))
	d.UseNumber()
	if err := d.Decode(&data); err != nil {
		ts.Fatalf("%s: %v", args[2], err)
	}
	var srv *httptest.Server
	switch args[0] {
	case "tencentcloud":
		srv = httptest.NewServer(&fetchtest.Tencent{SecretID: ts.Getenv("TENCENTCLOUD_SECRET_ID"),
			SecretKey: ts.Getenv("TENCENTCLOUD_SECRET_KEY"), Month: args[1], Details: data, PageSize: 10})
	case "aliyun":
		srv = httptest.NewServer(&fetchtest.Aliyun{AccessKeyID: ts.Getenv("ALIBABA_CLOUD_ACCESS_KEY_ID"),
			AccessKeySecret: ts.Getenv("ALIBABA_CLOUD_ACCESS_KEY_SECRET"), BillingCycle: args[1], Items: data, PageSize: 10})
	case "volcengine":
		srv = httptest.NewServer(&fetchtest.Volcengine{AccessKey: ts.Getenv("VOLCENGINE_ACCESS_KEY"),
			SecretKey: ts.Getenv("VOLCENGINE_SECRET_KEY"), BillPeriod: args[1], Items: data, PageSize: 10})
	case "huaweicloud":
		srv = httptest.NewServer(&fetchtest.Huawei{AK: ts.Getenv("HUAWEICLOUD_SDK_AK"), SK: ts.Getenv("HUAWEICLOUD_SDK_SK"),
			DomainID: ts.Getenv("HUAWEICLOUD_SDK_DOMAIN_ID"), Cycle: args[1], Records: data, PageSize: 10,
			Measures: map[int]string{4: "小时", 10: "GB*小时"}})
	default:
		ts.Fatalf("fakecloud: unknown provider %s", args[0])
	}
	ts.Defer(srv.Close)
	ts.Setenv("FAKE_URL", srv.URL)
}

// cmdFakeConfig is `fakeconfig FILE NAME PROVIDER`: it adds to a config
// file (mode 0600) an [[account]] whose keys are the vendor's environment
// variables and whose endpoint is FAKE_URL (a script file cannot name the
// fake's port).
func cmdFakeConfig(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: fakeconfig FILE NAME PROVIDER")
	}
	id, secret := fetch.EnvNames(args[2])
	text := fmt.Sprintf("[[account]]\nname = %q\nprovider = %q\nkey_id = %q\nsecret = %q\nendpoint = %q\n",
		args[1], args[2], ts.Getenv(id), ts.Getenv(secret), ts.Getenv("FAKE_URL"))
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if _, err := f.WriteString(text); err != nil {
		ts.Fatalf("%v", err)
	}
	if err := f.Close(); err != nil {
		ts.Fatalf("%v", err)
	}
}

package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/fetch/fetchtest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	a, ok := FromEnv("tencentcloud", env(map[string]string{"TENCENTCLOUD_SECRET_ID": "AKIDx", "TENCENTCLOUD_SECRET_KEY": testSecret}))
	if !ok || a.KeyID != "AKIDx" || a.Secret() != testSecret || a.Name != "env" {
		t.Errorf("got %v %v", a, ok)
	}
	if _, ok := FromEnv("aliyun", env(map[string]string{"ALIBABA_CLOUD_ACCESS_KEY_ID": "LTAI"})); ok {
		t.Error("an id without a secret was accepted")
	}
	if s := fmt.Sprintf("%v %+v %#v %s", a, a, a, a); strings.Contains(s, testSecret) {
		t.Errorf("formatting an account shows the secret: %s", s)
	}
}

func TestLoadAccounts(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	withSecret := "[params]\nx = 1\n\n[[account]]\nname = \"main\"\nprovider = \"tencentcloud\"\nkey_id = \"AKIDfile\"\nsecret = \"" + testSecret + "\"\n"
	p := write("open.toml", withSecret, 0o644)
	_, err := LoadAccounts(p, env(nil))
	var fe *Error
	if !errors.As(err, &fe) || !strings.Contains(fe.EN, "mode is 0644") || !strings.Contains(fe.EN, "chmod 600") || !strings.Contains(fe.ZH, "chmod 600") {
		t.Fatalf("a 0644 file with a secret: %v", err)
	}
	if strings.Contains(err.Error(), testSecret) {
		t.Error("the refusal shows the secret")
	}
	p = write("private.toml", withSecret, 0o600)
	accts, err := LoadAccounts(p, env(nil))
	if err != nil || len(accts) != 1 || accts[0].KeyID != "AKIDfile" || accts[0].Secret() != testSecret || !strings.Contains(accts[0].SourceEN, "[[account]] main") {
		t.Fatalf("got %v %v", accts, err)
	}
	// No secret in the file: any mode, keys from the environment.
	p = write("nosecret.toml", "[[account]]\nname = \"prod\"\nprovider = \"aliyun\"\nendpoint = \"https://business.ap-southeast-1.aliyuncs.com\"\n", 0o644)
	accts, err = LoadAccounts(p, env(map[string]string{"ALIBABA_CLOUD_ACCESS_KEY_ID": "LTAIenv", "ALIBABA_CLOUD_ACCESS_KEY_SECRET": testSecret}))
	if err != nil || accts[0].KeyID != "LTAIenv" || accts[0].Endpoint == "" || !strings.Contains(accts[0].SourceEN, "ALIBABA_CLOUD_ACCESS_KEY_SECRET") {
		t.Fatalf("got %v %v", accts, err)
	}
	if _, err := LoadAccounts(p, env(nil)); err == nil || !strings.Contains(err.Error(), "ALIBABA_CLOUD_ACCESS_KEY_ID") {
		t.Errorf("no keys anywhere: %v", err)
	}
	for name, text := range map[string]string{
		"unknown key":      "[[account]]\nname = \"a\"\nprovider = \"aliyun\"\npassword = \"x\"\n",
		"unknown provider": "[[account]]\nname = \"a\"\nprovider = \"aws\"\nkey_id = \"k\"\nsecret = \"s\"\n",
		"no name":          "[[account]]\nprovider = \"aliyun\"\n",
		"twice":            "[[account]]\nname = \"a\"\nprovider = \"aliyun\"\nkey_id = \"k\"\nsecret = \"s\"\n[[account]]\nname = \"a\"\nprovider = \"aliyun\"\nkey_id = \"k\"\nsecret = \"s\"\n",
	} {
		p := write(strings.ReplaceAll(name, " ", "_")+".toml", text, 0o600)
		if _, err := LoadAccounts(p, env(nil)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestSecretNeverShown runs every failure and a success with a known
// secret and looks for it in every message and in the ledger file.
func TestSecretNeverShown(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var texts []string
	db := openLedger(t)
	for _, mutate := range []func(*fetchtest.Tencent){
		func(*fetchtest.Tencent) {},
		func(f *fetchtest.Tencent) { f.SecretKey = "other" },
		func(f *fetchtest.Tencent) { f.Deny = true },
		func(f *fetchtest.Tencent) { f.FaultAt(0, fetchtest.Fault{Body: "{"}) },
		func(f *fetchtest.Tencent) {
			for i := 0; i < 5; i++ {
				f.FaultAt(0, fetchtest.Fault{Throttle: true})
			}
		},
	} {
		f, acct := tencentServer(t, tencentDetails(2), december5)
		mutate(f)
		out, err := Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
		texts = append(texts, fmt.Sprintf("%v %+v", out, out.Result))
		if err != nil {
			var fe *Error
			if errors.As(err, &fe) {
				texts = append(texts, fe.ZH, fe.EN)
			}
			texts = append(texts, err.Error())
		}
	}
	for _, mutate := range []func(*fetchtest.Aliyun){
		func(*fetchtest.Aliyun) {},
		func(f *fetchtest.Aliyun) { f.AccessKeySecret = "other" },
	} {
		f, acct := aliyunServer(t, aliyunItems(1), december5)
		mutate(f)
		_, err := Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
		if err != nil {
			texts = append(texts, err.Error(), err.(*Error).ZH)
		}
	}
	for _, s := range texts {
		if strings.Contains(s, testSecret) {
			t.Errorf("a message shows the secret: %s", s)
		}
	}
	db.Close()
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(db.Path()), "*"))
	files = append(files, dir)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(testSecret)) {
			t.Errorf("%s holds the secret", p)
		}
	}
	if len(files) == 0 {
		t.Fatal("no ledger file to search")
	}
}

// TestBrokenConfigHidesTheSecret: a TOML error on the secret's line does
// not quote the secret.
func TestBrokenConfigHidesTheSecret(t *testing.T) {
	for _, text := range []string{
		"[[account]]\nname = \"a\"\nprovider = \"aliyun\"\nkey_id = \"k\"\nsecret = \"" + testSecret + "\n",
		"[[account]]\nname = \"a\"\nsecret = " + testSecret + "\n",
		"[[account]]\nsecret = \"" + testSecret + "\" extra\n",
	} {
		p := filepath.Join(t.TempDir(), "c.toml")
		os.WriteFile(p, []byte(text), 0o600)
		_, err := LoadAccounts(p, env(nil))
		if err == nil {
			t.Fatalf("%q accepted", text)
		}
		if strings.Contains(err.Error(), testSecret) || strings.Contains(err.Error(), testSecret[:12]) {
			t.Errorf("the error shows the secret: %v", err)
		}
	}
}

// TestCancelledFetchWritesNothing: an interrupted fetch leaves nothing
// half-written; the re-run then stores the month whole.
func TestCancelledFetchWritesNothing(t *testing.T) {
	db := openLedger(t)
	f, acct := tencentServer(t, tencentDetails(4), december5)
	f.PageSize = 2
	f.FaultAt(2, fetchtest.Fault{Delay: 5 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := Fetch(ctx, db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)}); err == nil {
		t.Fatal("an interrupted fetch succeeded")
	}
	if n, _ := ledgerState(t, db); n != 0 {
		t.Fatalf("an interrupted fetch wrote %d lines", n)
	}
	out, err := Fetch(context.Background(), db, Request{Account: acct, Month: "2026-11", Options: fastOptions(december5, nil)})
	if err != nil || out.Result.New != 8 {
		t.Fatalf("re-run: %v, %d new", err, out.Result.New)
	}
}

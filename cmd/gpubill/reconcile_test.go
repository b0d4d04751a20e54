package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reconcile"
)

// testApp is an app with the global flags set as setup would set them.
func testApp(t *testing.T, db, month, format string) (*app, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	loc, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		loc = time.FixedZone("CST", 8*3600)
	}
	var out, errb bytes.Buffer
	return &app{stdout: &out, stderr: &errb, dbPath: db, month: month, format: format, formatOn: true, lang: "en", loc: loc}, &out, &errb
}

// TestRunReconcileExitStatus: differences are data (nil error), unless
// --fail-on-difference asks for exit 3; the clean month exits 0 either way.
// It calls the command's run function, so it does not depend on the root
// command listing reconcile.
func TestRunReconcileExitStatus(t *testing.T) {
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "ledger.db")
	db, err := ledger.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.ImportPaths(ctx, db, []string{"../../testdata/reconcile/bills"}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	defaults := reconcileOptions{before: reconcile.DefaultWindow.Before, after: reconcile.DefaultWindow.After,
		refundAfter: reconcile.DefaultRefundWindow.After}
	tests := []struct {
		name     string
		month    string
		fail     bool
		wantCode int // 0 = nil error
	}{
		{"differences without the flag", "2026-10", false, 0},
		{"differences with the flag", "2026-10", true, exitFindings},
		{"clean month with the flag", "2026-11", true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, out, _ := testApp(t, dbPath, tc.month, "json")
			o := defaults
			o.failOnDifference = tc.fail
			err := a.runReconcile(ctx, o)
			var ee *exitError
			switch {
			case tc.wantCode == 0 && err != nil:
				t.Fatalf("got error %v, want none", err)
			case tc.wantCode != 0 && (!errors.As(err, &ee) || ee.code != tc.wantCode || ee.err != nil):
				t.Fatalf("got %v, want a silent exit %d", err, tc.wantCode)
			}
			if !strings.Contains(out.String(), `"month": "`+tc.month+`"`) {
				t.Errorf("output lacks the month %s:\n%s", tc.month, out.String())
			}
		})
	}
	t.Run("default month", func(t *testing.T) {
		a, out, _ := testApp(t, dbPath, "", "json")
		if err := a.runReconcile(ctx, defaults); err != nil {
			t.Fatal(err)
		}
		// The ledger's bill lines span October and November 2026: the default
		// is the last complete month before now, in the app's time zone
		// (December begins 8 hours earlier in Shanghai than in UTC).
		want := `"month": "2026-11"`
		if time.Now().Before(time.Date(2026, 12, 1, 0, 0, 0, 0, a.loc)) {
			want = `"month": "2026-10"`
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("got %.80s…, want %s", out.String(), want)
		}
	})
}

func TestRunInvoiceAdd(t *testing.T) {
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "ledger.db")
	tests := []struct {
		name    string
		o       invoiceAddOptions
		wantErr string
		wantSay string
	}{
		{"added", invoiceAddOptions{provider: "恒源云", number: "26 11 0001", date: "2026/11/3", amount: "¥57.64", period: "2026-10..2026-11", currency: "CNY"}, "", "added invoice 26110001: GPUSHARE 57.64 CNY, covering 2026-10..2026-11"},
		{"again", invoiceAddOptions{provider: "gpushare", number: "26110001", date: "2026-11-03", amount: "57.640", period: "2026-10..2026-11", currency: "cny"}, "", "already recorded"},
		{"period from the date", invoiceAddOptions{provider: "autodl", number: "2", date: "2026-11-03", amount: "1", currency: "CNY"}, "", "covering 2026-11..2026-11"},
		{"bad amount", invoiceAddOptions{provider: "autodl", number: "3", date: "2026-11-03", amount: "12,3O", currency: "CNY"}, "is not an amount", ""},
		{"bad date", invoiceAddOptions{provider: "autodl", number: "3", date: "yesterday", amount: "1", currency: "CNY"}, "--date", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, _, errb := testApp(t, dbPath, "", "table")
			err := a.runInvoiceAdd(ctx, tc.o)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(errb.String(), tc.wantSay) {
				t.Errorf("got %q, want %q", errb.String(), tc.wantSay)
			}
		})
	}
}

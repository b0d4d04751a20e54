package reconcile

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reports"
)

var update = flag.Bool("update", false, "rewrite the golden files of the reconcile tests")

var shanghaiTZ = ledger.DefaultTZ()

// scenarioDir is the acceptance scenario of issue 6 (testdata/reconcile):
// October 2026 on AutoDL (saved web-API JSON), 恒源云 (console copy, GBK,
// plus bill lines in the gpubill template) and 矩池云 (the money-flow
// template), with an Alipay and a WeChat Pay export in their real layouts,
// and planted gaps; November 2026 is the clean month.
const scenarioDir = "../testdata/reconcile"

// openScenario imports the scenario into a fresh ledger.
func openScenario(t *testing.T) *ledger.DB {
	t.Helper()
	ctx := context.Background()
	db := testkit.OpenLedger(t)
	res, err := ingest.ImportPaths(ctx, db, []string{filepath.Join(scenarioDir, "bills")}, ingest.Options{TZ: shanghaiTZ})
	if err != nil {
		t.Fatalf("import the scenario: %v", err)
	}
	if len(res) != 8 {
		t.Fatalf("imported %d files, want 8", len(res))
	}
	if _, err := ingest.ImportInvoices(ctx, db, filepath.Join(scenarioDir, "invoices", "发票清单.csv"), ingest.Options{TZ: shanghaiTZ}); err != nil {
		t.Fatalf("import the invoices: %v", err)
	}
	return db
}

func reconcileJSON(t *testing.T, rep *Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := rep.Write(&b, reports.WriteOptions{Format: reports.FormatJSON, Lang: "en", TZ: shanghaiTZ}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestScenario is the acceptance test of issue 6: every planted gap of
// October is reported (exact JSON in the golden file, and the points that
// matter asserted one by one), and November reconciles to zero exactly.
func TestScenario(t *testing.T) {
	ctx := context.Background()
	db := openScenario(t)

	oct, err := Reconcile(ctx, db, Options{Month: "2026-10", TZ: shanghaiTZ})
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, filepath.Join("testdata", "TestScenario", "2026-10.json"), reconcileJSON(t, oct), *update)
	j := oct.JSON(shanghaiTZ)
	if !j.Differences {
		t.Error("October: differences false, want true")
	}

	t.Run("payment with no top-up", func(t *testing.T) {
		if len(j.UnmatchedPayments) != 1 {
			t.Fatalf("got %d unmatched payments %+v, want 1 (AutoDL ¥50 of 10-20)", len(j.UnmatchedPayments), j.UnmatchedPayments)
		}
		p := j.UnmatchedPayments[0]
		if p.Source != "alipay" || p.Provider != "autodl" || p.Amount != "50.00" || p.Time != "2026-10-20T11:00:00+08:00" {
			t.Errorf("got %+v, want the Alipay payment of ¥50.00 to AutoDL at 2026-10-20 11:00", p)
		}
	})
	t.Run("top-up with no payment", func(t *testing.T) {
		if len(j.UnmatchedTopups) != 1 || j.UnmatchedTopups[0].Provider != "gpushare" || j.UnmatchedTopups[0].Reference != "HY1005" {
			t.Errorf("got %+v, want the 恒源云 top-up HY1005", j.UnmatchedTopups)
		}
	})
	byRef := map[string]MatchJSON{}
	for _, m := range j.Matches {
		byRef[m.Provider+"/"+m.Reference] = m
	}
	t.Run("two equal top-ups the same day", func(t *testing.T) {
		for ref, want := range map[string]string{"autodl/ad-1007": "2026100822001400000801", "autodl/ad-1008": "2026100822001400000802"} {
			if got := byRef[ref].PaymentReference; got != want {
				t.Errorf("top-up %s paid by %q, want %s", ref, got, want)
			}
		}
	})
	t.Run("refund", func(t *testing.T) {
		m, ok := byRef["matpool/MP-5"]
		if !ok || m.Kind != KindRefund || m.Source != "wechatpay" || m.Amount != "10.00" {
			t.Errorf("got %+v, want the 矩池云 withdrawal MP-5 paired with the WeChat refund", m)
		}
		// The closed Alipay payment and its refund take no part.
		for _, m := range j.Matches {
			if m.MerchantOrderNo == "ad-9999" {
				t.Errorf("the closed payment ad-9999 was matched: %+v", m)
			}
		}
	})
	t.Run("voucher", func(t *testing.T) {
		b := findBalance(t, j, "autodl")
		if b.Vouchers != "10.000" || b.Topups != "300.000" || b.Refunds != "21.600" {
			t.Errorf("AutoDL: vouchers %s top-ups %s refunds %s, want 10.000, 300.000, 21.600", b.Vouchers, b.Topups, b.Refunds)
		}
		for _, c := range j.Invoices {
			if c.Provider == "autodl" && c.Invoiceable != "300.000" {
				t.Errorf("AutoDL invoiceable %s, want 300.000 (top-ups; the voucher is not invoiceable)", c.Invoiceable)
			}
		}
	})
	t.Run("top-up never credited to the balance", func(t *testing.T) {
		b := findBalance(t, j, "matpool")
		if b.Difference == nil || *b.Difference != "-50.00" || len(b.Gaps) != 1 {
			t.Fatalf("矩池云: difference %v, %d gaps; want -50.00 and 1 gap", b.Difference, len(b.Gaps))
		}
		g := b.Gaps[0]
		if g.Before == nil || g.Before.Reference != "MP-2" || g.After.Reference != "MP-3" || g.Difference != "-50.00" {
			t.Errorf("gap %+v, want MP-2 → MP-3, -50.00", g)
		}
		if _, ok := byRef["matpool/MP-3"]; !ok {
			t.Error("the payment of MP-3 is not matched, want it matched (the money left Alipay)")
		}
	})
	t.Run("unknown payee matches and says so", func(t *testing.T) {
		if m, ok := byRef["gpushare/HY1006"]; !ok || m.PayeeKnown {
			t.Errorf("got %+v, want HY1006 matched with payee_known false", m)
		}
		if m := byRef["gpushare/HY1001"]; m.Basis != BasisOrderNumber {
			t.Errorf("HY1001 basis %q, want order_number", m.Basis)
		}
	})
	t.Run("daily charges", func(t *testing.T) {
		if len(j.DailyCharges) != 1 || j.DailyCharges[0].Day != "2026-10-03" || j.DailyCharges[0].Difference != "0.40" {
			t.Errorf("got %+v, want one day, 2026-10-03, flow 0.40 above the bill", j.DailyCharges)
		}
	})

	nov, err := Reconcile(ctx, db, Options{Month: "2026-11", TZ: shanghaiTZ})
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, filepath.Join("testdata", "TestScenario", "2026-11.json"), reconcileJSON(t, nov), *update)
	t.Run("clean month", func(t *testing.T) {
		if nov.Differences() {
			t.Errorf("November has differences, want none")
		}
		if len(nov.Balances) != 3 {
			t.Errorf("got %d balances, want 3", len(nov.Balances))
		}
		for _, b := range nov.Balances {
			if !b.Difference.Valid || !b.Difference.Decimal.IsZero() || !b.Opening.Valid {
				t.Errorf("%s: opening %v difference %v, want a known opening and exactly 0", b.Provider, b.Opening, b.Difference)
			}
		}
		if len(nov.Matching.Pairs) != 2 || len(nov.Matching.UnmatchedPayments)+len(nov.Matching.UnmatchedTopups) != 0 || len(nov.Daily) != 0 {
			t.Errorf("November: %d pairs, unmatched %d/%d, %d daily differences; want 2, 0/0, 0",
				len(nov.Matching.Pairs), len(nov.Matching.UnmatchedPayments), len(nov.Matching.UnmatchedTopups), len(nov.Daily))
		}
		// The November opening is October's closing as the export shows it.
		for _, b := range nov.Balances {
			for _, o := range oct.Balances {
				if o.Provider == b.Provider && !o.Closing.Decimal.Equal(b.Opening.Decimal) {
					t.Errorf("%s: November opening %s, want October's closing %s", b.Provider, b.Opening.Decimal, o.Closing.Decimal)
				}
			}
		}
	})
}

func findBalance(t *testing.T, j ReportJSON, provider string) BalanceJSON {
	t.Helper()
	for _, b := range j.Balances {
		if b.Provider == provider {
			return b
		}
	}
	t.Fatalf("no balance for %s", provider)
	return BalanceJSON{}
}

// TestScenarioHumanFormats renders October in every human format and
// language (goldens): CJK columns aligned, money rounded for display only.
func TestScenarioHumanFormats(t *testing.T) {
	db := openScenario(t)
	rep, err := Reconcile(context.Background(), db, Options{Month: "2026-10", TZ: shanghaiTZ})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ format, lang, file string }{
		{reports.FormatTable, "zh", "table_zh.txt"},
		{reports.FormatTable, "en", "table_en.txt"},
		{reports.FormatMarkdown, "zh", "md_zh.md"},
		{reports.FormatCSV, "en", "csv.csv"},
		{reports.FormatTSV, "en", "tsv.tsv"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := rep.Write(&b, reports.WriteOptions{Format: tc.format, Lang: tc.lang, TZ: shanghaiTZ}); err != nil {
				t.Fatal(err)
			}
			testkit.Golden(t, filepath.Join("testdata", "TestScenarioHumanFormats", tc.file), b.Bytes(), *update)
		})
	}
	if err := rep.Write(&bytes.Buffer{}, reports.WriteOptions{Format: "xml"}); err == nil {
		t.Error("format xml accepted, want an error")
	}
}

// TestTimeZone cuts the month in UTC: the top-up of 2026-10-01 09:12 +08:00
// is still October, but the opening no longer counts rows before 08:00
// Beijing time of November 1st as November.
func TestTimeZone(t *testing.T) {
	db := openScenario(t)
	rep, err := Reconcile(context.Background(), db, Options{Month: "2026-11", TZ: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Differences() {
		t.Errorf("November in UTC has differences, want none")
	}
}

// TestRowAt: the human formats cite the row a person sees (a CSV's line, a
// workbook's Sheet!row), CSV and TSV the record number, as JSON does; a
// row whose import mapped nothing keeps its record number everywhere.
func TestRowAt(t *testing.T) {
	r := &Report{imports: map[int64]*ledger.Import{
		1: {Path: "pay.csv", HeaderRow: 25, RowMapped: true},
		2: {Path: "pay.xlsx", Sheet: "账单", HeaderRow: 17, RowMapped: true, RowMap: [][2]int{{3, 22}}},
		3: {Path: "old.csv", HeaderRow: 1},
	}}
	for _, tc := range []struct {
		id     int64
		file   string
		record int
		exact  bool
		want   string
	}{
		{1, "pay.csv", 4, false, "pay.csv:29"},
		{1, "pay.csv", 4, true, "pay.csv:4"},
		{2, "pay.xlsx", 2, false, "pay.xlsx 账单!19"},
		{2, "pay.xlsx", 5, false, "pay.xlsx 账单!24"}, // a record after a multi-line cell
		{2, "pay.xlsx", 5, true, "pay.xlsx:5"},
		{3, "old.csv", 4, false, "old.csv:4"},
		{9, "gone.csv", 4, false, "gone.csv:4"},
		{1, "", 4, false, ""},
	} {
		if got := r.rowAt(tc.id, tc.file, tc.record, tc.exact); got != tc.want {
			t.Errorf("rowAt(%d, %s, %d, exact %v) = %q, want %q", tc.id, tc.file, tc.record, tc.exact, got, tc.want)
		}
	}
}

package packet

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files of the packet tests")

var shanghaiTZ = ledger.DefaultTZ()

// fixedDate is the generated date of every test packet.
var fixedDate = time.Date(2026, 11, 20, 9, 0, 0, 0, shanghaiTZ)

// scenarioDir is the reconcile scenario of issue 6 (see
// reconcile/scenario_test.go): October 2026 on AutoDL and 矩池云 (money flow
// only) and 恒源云 (bill lines, and an invoice of 57.64 spanning October and
// November).
const scenarioDir = "../testdata/reconcile"

func at(day, hour int) time.Time { return time.Date(2026, 10, day, hour, 0, 0, 0, shanghaiTZ) }

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func ndec(s string) decimal.NullDecimal { return decimal.NullDecimal{Decimal: dec(s), Valid: true} }

// luchenItems are October bill lines of 潞晨云 added to the scenario: a
// charge billed twice (duplicate_charge, ¥20.00 at risk), a disk paid by
// vouchers, a credit line, a line with no cash column (estimated) and text
// that would be a formula.
var luchenItems = []ledger.LineItem{
	{Provider: "luchen", BillingAccountID: "lab", BillingPeriod: "2026-10",
		ResourceID: "lc-a100-1", Kind: ledger.KindCompute,
		PricingModel: ledger.PricingOnDemand, ChargePeriodStart: at(10, 10),
		ChargePeriodEnd: at(10, 12), BilledCost: dec("20.00"), GPUModel: "A100",
		SubAccount: "课题A", ResourceName: "train", CashPaid: ndec("20.00")},
	{Provider: "luchen", BillingAccountID: "lab", BillingPeriod: "2026-10",
		ResourceID: "lc-a100-1", Kind: ledger.KindCompute,
		PricingModel: ledger.PricingOnDemand, ChargePeriodStart: at(10, 10),
		ChargePeriodEnd: at(10, 12), BilledCost: dec("20.00"), GPUModel: "A100",
		SubAccount: "课题A", ResourceName: "train", CashPaid: ndec("20.00")},
	{Provider: "luchen", BillingAccountID: "lab", BillingPeriod: "2026-10",
		ResourceID: "lc-disk", Kind: ledger.KindStorage,
		PricingModel: ledger.PricingOnDemand, ChargePeriodStart: at(11, 0), ChargePeriodEnd: at(12, 0),
		BilledCost: dec("5.50"), SubAccount: "课题B", VoucherPaid: ndec("5.50"),
		CashPaid: ndec("0")},
	{Provider: "luchen", BillingAccountID: "lab", BillingPeriod: "2026-10",
		ResourceID: "voucher-1", Kind: ledger.KindCredit,
		ChargeCategory: ledger.CategoryCredit, ChargePeriodStart: at(12, 0), ChargePeriodEnd: at(12, 0),
		BilledCost: dec("-3.00"), Description: "新用户代金券", SubAccount: "课题A",
		VoucherPaid: ndec("3.00"), CashPaid: ndec("-3.00")}, // as ingest.SettlePaid stores it
	{Provider: "luchen", BillingAccountID: "lab", BillingPeriod: "2026-10",
		ResourceID: "lc-h800", Kind: ledger.KindCompute,
		PricingModel: ledger.PricingOnDemand, ChargePeriodStart: at(20, 8), ChargePeriodEnd: at(20, 9),
		BilledCost: dec("1234.567891"), SubAccount: "课题B",
		ResourceName: "=HYPERLINK(\"http://x\")", VoucherPaid: ndec("100.00")},
}

// openPacketLedger imports the scenario and the 潞晨云 lines, records a
// partial 潞晨云 invoice, and runs and stores the October audit.
func openPacketLedger(t *testing.T) *ledger.DB {
	t.Helper()
	ctx := context.Background()
	db := testkit.OpenLedger(t)
	if _, err := ingest.ImportPaths(ctx, db, []string{filepath.Join(scenarioDir, "bills")}, ingest.Options{TZ: shanghaiTZ}); err != nil {
		t.Fatalf("import the scenario: %v", err)
	}
	if _, err := ingest.ImportInvoices(ctx, db, filepath.Join(scenarioDir, "invoices", "发票清单.csv"), ingest.Options{TZ: shanghaiTZ}); err != nil {
		t.Fatalf("import the invoices: %v", err)
	}
	testkit.ImportItems(t, db, "luchen-2026-10.csv", luchenItems)
	if _, err := db.InsertInvoices(ctx, []ledger.Invoice{{Provider: "luchen", Number: "LC-0001", Date: "2026-11-05",
		Amount: dec("1000.00"), Currency: "CNY", Title: "某大学", PeriodStart: "2026-10"}}); err != nil {
		t.Fatal(err)
	}
	cfg := rules.DefaultConfig()
	cfg.TZ = shanghaiTZ
	if _, err := rules.AuditAndSave(ctx, db, "2026-10", "Asia/Shanghai", cfg); err != nil {
		t.Fatal(err)
	}
	return db
}

func build(t *testing.T, db *ledger.DB, opts Options) *Packet {
	t.Helper()
	opts.Month, opts.TZ, opts.Date = "2026-10", shanghaiTZ, fixedDate
	if opts.Name == "" {
		opts.Name, opts.Dept = "张三", "计算机系"
	}
	p, err := Build(context.Background(), db, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p
}

func workbook(t *testing.T, p *Packet) (*excelize.File, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := p.WriteXLSX(&b); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(b.Bytes()), excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, b.Bytes()
}

// ledgerSum is an exact sum over the month's line items, by dsum in SQLite.
func ledgerSum(t *testing.T, db *ledger.DB, expr, where string, args ...any) decimal.Decimal {
	t.Helper()
	var s *string
	q := "SELECT dsum(" + expr + ") FROM line_items WHERE billing_period = '2026-10' " + where
	if err := db.SQL().QueryRow(q, args...).Scan(&s); err != nil {
		t.Fatal(err)
	}
	if s == nil {
		return decimal.Zero
	}
	return dec(*s)
}

// findRow returns the first row of sheet whose column col (1-based) holds
// text.
func findRow(t *testing.T, f *excelize.File, sheet string, col int, text string) int {
	t.Helper()
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if col-1 < len(r) && r[col-1] == text {
			return i + 1
		}
	}
	t.Fatalf("%s: no row with %q in column %d", sheet, text, col)
	return 0
}

func cell(t *testing.T, f *excelize.File, sheet string, col, row int) string {
	t.Helper()
	ref, _ := excelize.CoordinatesToCellName(col, row)
	v, err := f.GetCellValue(sheet, ref)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkFormula asserts that the cell holds a formula whose cached value is
// want exactly and which excelize recomputes to want rounded to the fen.
func checkFormula(t *testing.T, f *excelize.File, sheet string, col, row int, want decimal.Decimal) {
	t.Helper()
	ref, _ := excelize.CoordinatesToCellName(col, row)
	formula, err := f.GetCellFormula(sheet, ref)
	if err != nil || formula == "" {
		t.Errorf("%s!%s: got formula %q (%v), want a formula", sheet, ref, formula, err)
		return
	}
	cached := cell(t, f, sheet, col, row)
	if d, err := decimal.NewFromString(cached); err != nil || !d.Equal(want) {
		t.Errorf("%s!%s (%s): cached value %q, want exactly %s", sheet, ref, formula, cached, want)
	}
	calc, err := f.CalcCellValue(sheet, ref, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Errorf("%s!%s (%s): calc: %v", sheet, ref, formula, err)
		return
	}
	got, err := decimal.NewFromString(calc)
	if err != nil || !got.Round(2).Equal(want.Round(2)) {
		t.Errorf("%s!%s (%s): recomputed %q, want %s", sheet, ref, formula, calc, want.Round(2))
	}
}

// TestPacket is the acceptance test of the packet (issue 6): every sheet,
// totals equal to the ledger exactly, formulas that recompute to them, the
// 大写 amount, the disputed duplicate excluded by default and claimed with
// ClaimDisputed (totals change by exactly its amount), the invoice spanning
// two months, the missing invoice highlighted, bill text neutralised.
func TestPacket(t *testing.T) {
	db := openPacketLedger(t)
	p := build(t, db, Options{})
	f, data := workbook(t, p)

	t.Run("sheets", func(t *testing.T) {
		got := f.GetSheetList()
		want := []string{SheetCover, SheetLines, SheetInvoices, SheetExceptions}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("got sheets %v, want %v", got, want)
		}
	})

	// The ledger's own figures, by dsum.
	// Billed as the packet prints it: a credit line's voucher used is
	// billed by the charges it paid (Line.Billed).
	billed := ledgerSum(t, db, "billed_cost", "").Add(ledgerSum(t, db, "voucher_paid", "AND kind = 'credit'"))
	// Invoiceable: cash paid, else billed − voucher (summed apart: SQLite
	// arithmetic on text gives floats).
	invoiceable := ledgerSum(t, db, "cash_paid", "").
		Add(ledgerSum(t, db, "billed_cost", "AND kind <> 'credit' AND cash_paid IS NULL")).
		Sub(ledgerSum(t, db, "voucher_paid", "AND kind <> 'credit' AND cash_paid IS NULL"))
	duplicate := dec("20.00")
	claimed := invoiceable.Sub(duplicate)
	if want := dec("1207.007891"); !claimed.Equal(want) {
		t.Fatalf("test data: claimed %s, want %s (恒源云 55.44 + 潞晨云 20 − 3 (voucher line) + 1134.567891)", claimed, want)
	}

	t.Run("totals equal the ledger", func(t *testing.T) {
		row := findRow(t, f, SheetLines, 1, "合计 Total")
		if got := cell(t, f, SheetLines, colCurrency, row); got != "CNY" {
			t.Errorf("total row currency %q, want CNY", got)
		}
		// One line has 6 decimals: the printed lines add up to the
		// ledger's figure at the fen, with no 尾差.
		checkFormula(t, f, SheetLines, colBilled, row, billed.Round(2))
		checkFormula(t, f, SheetLines, colCash, row, invoiceable.Round(2))
		checkFormula(t, f, SheetLines, colDisputed, row, duplicate)
		checkFormula(t, f, SheetLines, p.colClaimed(), row, claimed.Round(2))
		if len(p.Claims) != 1 || !p.Claims[0].Claimed.Equal(claimed.Round(2)) || !p.Claims[0].Exact.Equal(claimed) || !p.Claims[0].Rounding.IsZero() {
			t.Errorf("got claims %+v, want CNY %s (exact %s, no rounding)", p.Claims, claimed.Round(2), claimed)
		}
	})

	t.Run("cover", func(t *testing.T) {
		row := findRow(t, f, SheetCover, 1, claimLabel)
		checkFormula(t, f, SheetCover, 3, row, claimed.Round(2))
		if got, want := cell(t, f, SheetCover, 5, row), "人民币壹仟贰佰零柒元零壹分"; got != want {
			t.Errorf("大写: got %s, want %s", got, want)
		}
		for _, tc := range []struct {
			provider string
			billed   string
			claimed  string
		}{
			{"恒源云", "55.44", "55.44"},
			{"潞晨云", "1280.07", "1151.57"},
		} {
			r := findRow(t, f, SheetCover, 1, tc.provider)
			checkFormula(t, f, SheetCover, 3, r, dec(tc.billed))
			checkFormula(t, f, SheetCover, 7, r, dec(tc.claimed))
		}
		for _, want := range []string{"张三", "计算机系", "2026-11-20", "全部项目 / all projects"} {
			if _, err := f.SearchSheet(SheetCover, want); err != nil {
				t.Fatal(err)
			}
			if refs, _ := f.SearchSheet(SheetCover, want); len(refs) == 0 {
				t.Errorf("cover: %q not found", want)
			}
		}
		if refs, _ := f.SearchSheet(SheetCover, "AutoDL、矩池云", true); len(refs) == 0 {
			t.Errorf("cover: no note that AutoDL and 矩池云 (money flow only) are left out")
		}
	})

	t.Run("disputed charge excluded", func(t *testing.T) {
		if len(p.Exceptions) != 1 {
			t.Fatalf("got %d exceptions %+v, want 1 (the duplicate 潞晨云 charge)", len(p.Exceptions), p.Exceptions)
		}
		e := p.Exceptions[0]
		if e.RuleID != "duplicate_charge" || !e.Amount.Equal(duplicate) || e.Claimed || e.File != "luchen-2026-10.csv" || e.Row != 2 {
			t.Errorf("got %+v, want the second copy (row 2) of the duplicate, 20.00, excluded", e)
		}
		if got := cell(t, f, SheetExceptions, 7, 2); got != "已排除，不报销 / excluded" {
			t.Errorf("异常 treatment %q, want excluded", got)
		}
		if got := cell(t, f, SheetExceptions, 8, 2); got == "" {
			t.Error("异常: no reason")
		}
	})

	t.Run("claim disputed", func(t *testing.T) {
		q := build(t, db, Options{ClaimDisputed: true})
		g, _ := workbook(t, q)
		if diff := q.Claims[0].Claimed.Sub(p.Claims[0].Claimed); !diff.Equal(duplicate) {
			t.Errorf("claim grew by %s, want exactly %s", diff, duplicate)
		}
		row := findRow(t, g, SheetLines, 1, "合计 Total")
		checkFormula(t, g, SheetLines, q.colClaimed(), row, invoiceable.Round(2))
		if got := cell(t, g, SheetExceptions, 7, 2); got != "仍报销（有争议）/ claimed but disputed" {
			t.Errorf("异常 treatment %q, want claimed but disputed", got)
		}
		r := findRow(t, g, SheetCover, 1, claimLabel)
		want, _ := CapitalCNY(invoiceable)
		if got := cell(t, g, SheetCover, 5, r); got != "人民币"+want {
			t.Errorf("大写: got %s, want 人民币%s", got, want)
		}
	})

	t.Run("invoice spanning two months", func(t *testing.T) {
		r := findRow(t, f, SheetInvoices, 2, "26120000000000000002")
		if got := cell(t, f, SheetInvoices, 5, r); got != "57.64" {
			t.Errorf("invoice amount %s, want 57.64", got)
		}
		if got := cell(t, f, SheetInvoices, 6, r); got != "55.44" {
			t.Errorf("part for October %s, want 55.44 (November takes 2.20)", got)
		}
		if got := cell(t, f, SheetInvoices, 7, r); got != "2026-10 ~ 2026-11" {
			t.Errorf("period %q, want 2026-10 ~ 2026-11", got)
		}
	})

	t.Run("missing invoice highlighted", func(t *testing.T) {
		r := findRow(t, f, SheetInvoices, 2, "（待索取）")
		if got := cell(t, f, SheetInvoices, 1, r); got != "潞晨云" {
			t.Errorf("missing row platform %q, want 潞晨云", got)
		}
		// 潞晨云 invoiceable 1171.567891 (20 + 20 + 0 − 3 + 1134.567891) − 1000.00 invoiced.
		if got, want := cell(t, f, SheetInvoices, 5, r), "171.57"; got != want {
			t.Errorf("to request %s, want %s", got, want)
		}
		ref, _ := excelize.CoordinatesToCellName(2, r)
		id, err := f.GetCellStyle(SheetInvoices, ref)
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.GetStyle(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Fill.Color) == 0 || st.Fill.Color[0] != "FFF2CC" {
			t.Errorf("missing row fill %+v, want FFF2CC", st.Fill)
		}
		if _, err := f.SearchSheet(SheetInvoices, "（待索取）"); err != nil {
			t.Fatal(err)
		}
		hy := findRow(t, f, SheetInvoices, 1, "恒源云")
		if got := cell(t, f, SheetInvoices, 2, hy); got == "（待索取）" {
			t.Error("恒源云 is fully invoiced, want no missing row")
		}
	})

	t.Run("lines", func(t *testing.T) {
		rows, _ := f.GetRows(SheetLines)
		if got, want := p.LineCount, 4+len(luchenItems); got != want {
			t.Errorf("got %d lines, want %d", got, want)
		}
		h := findRow(t, f, SheetLines, 5, "'=HYPERLINK(\"http://x\")")
		if got := cell(t, f, SheetLines, 15, h); !strings.Contains(got, "估算") {
			t.Errorf("estimated line status %q, want it marked estimated", got)
		}
		if got := cell(t, f, SheetLines, colCash, h); got != "1134.57" {
			t.Errorf("estimated cash %s, want 1134.57 (billed − voucher, at the fen)", got)
		}
		if got := cell(t, f, SheetLines, 16, h); got != "LC-0001" {
			t.Errorf("invoice numbers %q, want LC-0001", got)
		}
		credit := findRow(t, f, SheetLines, 4, "voucher-1")
		// Numbers are compared as numbers: a cell holds -3 shown as -3.00.
		if got := cell(t, f, SheetLines, p.colClaimed(), credit); !dec(got).Equal(dec("-3.00")) {
			t.Errorf("credit line claims %s, want -3.00 (the voucher used comes off the cash)", got)
		}
		if got := cell(t, f, SheetLines, colNotInv, credit); !dec(got).Equal(dec("3.00")) {
			t.Errorf("credit line 不可报销 %s, want 3.00 (the voucher used)", got)
		}
		if got := cell(t, f, SheetLines, 7, 2); !strings.HasPrefix(got, "46") {
			t.Errorf("start %q, want an Excel serial date", got)
		}
		_ = rows
	})

	t.Run("print setup", func(t *testing.T) {
		for _, s := range f.GetSheetList() {
			lo, err := f.GetPageLayout(s)
			if err != nil {
				t.Fatal(err)
			}
			want, wide := "portrait", 1
			if s != SheetCover {
				want = "landscape"
			}
			if s == SheetLines {
				wide = 2 // 18 columns: two pages across, readable
			}
			if *lo.Size != 9 || *lo.Orientation != want || *lo.FitToWidth != wide {
				t.Errorf("%s: size %d orientation %s fit %d, want A4 (9) %s %d", s, *lo.Size, *lo.Orientation, *lo.FitToWidth, want, wide)
			}
			panes, err := f.GetPanes(s)
			if err != nil || !panes.Freeze {
				t.Errorf("%s: panes %+v, want the header frozen", s, panes)
			}
		}
		// The cover's header cells wrap at the space (Chinese above
		// English); each column is at least as wide as its widest line.
		hr := findRow(t, f, SheetCover, 1, "平台\nPlatform")
		for col := 1; col <= len(coverHeaders); col++ {
			h := cell(t, f, SheetCover, col, hr)
			name, _ := excelize.ColumnNumberToName(col)
			w, err := f.GetColWidth(SheetCover, name)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(h, "\n") {
				if need := float64(runewidth.StringWidth(line)); w < need+1 {
					t.Errorf("封面 column %s width %.1f, header line %q needs %.0f", name, w, line, need+1)
				}
			}
		}
		names := f.GetDefinedName()
		titles := 0
		for _, n := range names {
			if n.Name == "_xlnm.Print_Titles" {
				titles++
				if n.Scope == SheetLines && n.RefersTo != "'明细'!$A:$D,'明细'!$1:$1" {
					t.Errorf("明细 print titles %q, want the header row and the columns naming a line", n.RefersTo)
				}
			}
		}
		if titles != 4 {
			t.Errorf("got %d print titles %+v, want 4", titles, names)
		}
	})

	t.Run("deterministic", func(t *testing.T) {
		_, again := workbook(t, build(t, db, Options{}))
		if !bytes.Equal(data, again) {
			t.Error("two builds of the same packet differ")
		}
	})
}

// TestPacketProject: --project keeps the lines of one project and says so.
func TestPacketProject(t *testing.T) {
	db := openPacketLedger(t)
	p := build(t, db, Options{Project: "课题B"})
	f, _ := workbook(t, p)
	if p.LineCount != 2 {
		t.Fatalf("got %d lines, want 2 (the disk and the H800 of 课题B)", p.LineCount)
	}
	n := 0
	if err := p.EachLine(func(l *Line) error {
		n++
		if l.Item.SubAccount != "课题B" {
			t.Errorf("line %d of project %q, want 课题B", l.Item.ID, l.Item.SubAccount)
		}
		return nil
	}); err != nil || n != 2 {
		t.Errorf("EachLine: %d lines, %v; want 2", n, err)
	}
	if want := dec("1134.57"); !p.Claims[0].Claimed.Equal(want) {
		t.Errorf("claimed %s, want %s", p.Claims[0].Claimed, want)
	}
	if refs, _ := f.SearchSheet(SheetCover, "课题B"); len(refs) == 0 {
		t.Error("cover does not name the project 课题B")
	}
	if len(p.Exceptions) != 0 {
		t.Errorf("got exceptions %+v, want none (the duplicate is in 课题A)", p.Exceptions)
	}
}

// TestPacketNotAudited: without a stored audit the packet says that disputed
// charges are unknown.
func TestPacketNotAudited(t *testing.T) {
	db := testkit.OpenLedger(t)
	testkit.ImportItems(t, db, "luchen-2026-10.csv", luchenItems)
	p := build(t, db, Options{})
	if p.Audited || len(p.Exceptions) != 0 {
		t.Errorf("audited %v, %d exceptions; want false, 0", p.Audited, len(p.Exceptions))
	}
	if !strings.Contains(strings.Join(p.Notes(), "\n"), "尚未运行审计") {
		t.Errorf("notes %q, want the warning that no audit is stored", p.Notes())
	}
	if want := dec("1171.57"); !p.Claims[0].Claimed.Equal(want) {
		t.Errorf("claimed %s, want %s (nothing known to be disputed)", p.Claims[0].Claimed, want)
	}
}

// TestCoverHTML compares the HTML cover with its golden file.
func TestCoverHTML(t *testing.T) {
	db := openPacketLedger(t)
	p := build(t, db, Options{Name: "<张三>", Dept: "计算机系"})
	var b bytes.Buffer
	if err := p.WriteCoverHTML(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<张三>") {
		t.Error("claimant name not escaped")
	}
	for _, want := range []string{"人民币壹仟贰佰零柒元零壹分", "@page { size: A4 portrait", `class="missing"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("cover lacks %q", want)
		}
	}
	testkit.Golden(t, filepath.Join("testdata", "TestCoverHTML", "cover.html"), b.Bytes(), *update)
}

// TestPacketInvoicedOnly: 以票报销 claims per platform only what the invoices
// of the month cover; the rest of the claimable amount is 未开票, and rows
// and totals still foot.
func TestPacketInvoicedOnly(t *testing.T) {
	db := openPacketLedger(t)
	p := build(t, db, Options{InvoicedOnly: true})
	f, _ := workbook(t, p)
	got := map[string][2]string{}
	for _, tot := range p.Totals {
		got[tot.Provider] = [2]string{tot.Claimed.StringFixed(2), tot.NotInvoiced.StringFixed(2)}
	}
	// 潞晨云: 1151.57 claimable, one invoice of 1000.00; 恒源云: 55.44, invoiced in full.
	want := map[string][2]string{"luchen": {"1000.00", "151.57"}, "gpushare": {"55.44", "0.00"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got claimed/not invoiced %v, want %v", got, want)
	}
	if c := p.Claims[0]; !c.Claimed.Equal(dec("1055.44")) {
		t.Errorf("claim %s, want 1055.44", c.Claimed)
	}
	if got := cell(t, f, SheetLines, p.colNotInvoiced(), 1); got != headerNotInvoiced {
		t.Errorf("明细 column %d header %q, want %q", p.colNotInvoiced(), got, headerNotInvoiced)
	}
	r := findRow(t, f, SheetCover, 1, claimLabel)
	if got, want := cell(t, f, SheetCover, 5, r), "人民币壹仟零伍拾伍元肆角肆分"; got != want {
		t.Errorf("大写 %s, want %s", got, want)
	}
	footPacket(t, f, p)
}

// TestPacketInvoicedOnlyRedLetter: a platform whose invoices of the month
// net negative claims nothing under 以票报销, not less than nothing (its
// refund line would have made the claim negative); the cover says why, and
// rows and totals still foot.
func TestPacketInvoicedOnlyRedLetter(t *testing.T) {
	db := openPacketLedger(t)
	testkit.ImportItems(t, db, "gpushare-refund.csv", []ledger.LineItem{{Provider: "gpushare", BillingPeriod: "2026-10",
		ResourceID: "hy-refund", Kind: ledger.KindCompute, ChargeCategory: ledger.CategoryAdjustment,
		ChargePeriodStart: at(20, 10), ChargePeriodEnd: at(20, 11), BilledCost: dec("-5.00"), CashPaid: ndec("-5.00")}})
	if _, err := db.InsertInvoices(context.Background(), []ledger.Invoice{{Provider: "gpushare", Number: "HY-RED-1",
		Date: "2026-11-06", Amount: dec("-100.00"), Currency: "CNY", PeriodStart: "2026-10"}}); err != nil {
		t.Fatal(err)
	}
	p := build(t, db, Options{InvoicedOnly: true})
	f, _ := workbook(t, p)
	got := map[string][2]string{}
	for _, tot := range p.Totals {
		got[tot.Provider] = [2]string{tot.Claimed.StringFixed(2), tot.NotInvoiced.StringFixed(2)}
	}
	// 恒源云: 55.44 − 5.00 claimable, invoiced 55.44 − 100.00: nothing claimed.
	want := map[string][2]string{"luchen": {"1000.00", "151.57"}, "gpushare": {"0.00", "50.44"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got claimed/not invoiced %v, want %v", got, want)
	}
	if c := p.Claims[0]; !c.Claimed.Equal(dec("1000.00")) {
		t.Errorf("claim %s, want 1000.00", c.Claimed)
	}
	if fmt.Sprint(p.NegativeInvoiced) != "[gpushare]" {
		t.Errorf("NegativeInvoiced %v, want [gpushare]", p.NegativeInvoiced)
	}
	if notes := strings.Join(p.Notes(), "\n"); !strings.Contains(notes, "恒源云 本月发票合计为负") {
		t.Errorf("the notes do not name 恒源云's negative invoices:\n%s", notes)
	}
	footPacket(t, f, p)
}

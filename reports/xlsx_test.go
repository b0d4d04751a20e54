package reports

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

// openXLSX renders rep as xlsx and opens the bytes with raw cell values.
func openXLSX(t *testing.T, rep interface {
	Write(io.Writer, WriteOptions) error
}, opts WriteOptions) (*excelize.File, []byte) {
	t.Helper()
	opts.Format = FormatXLSX
	data := render(t, rep, opts)
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatalf("open the xlsx output: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f, data
}

// cell reads one raw cell value.
func cell(t *testing.T, f *excelize.File, sheet, ref string) string {
	t.Helper()
	v, err := f.GetCellValue(sheet, ref, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatalf("%s!%s: %v", sheet, ref, err)
	}
	return v
}

// sheetXML returns the XML of the n-th worksheet (1-based) of an xlsx file.
func sheetXML(t *testing.T, data []byte, n int) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	name := "xl/worksheets/sheet" + string(rune('0'+n)) + ".xml"
	for _, zf := range zr.File {
		if zf.Name == name {
			rc, err := zf.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
	t.Fatalf("no %s in the xlsx output", name)
	return ""
}

// headerIndex maps the header row of a sheet to column numbers (1-based).
func headerIndex(t *testing.T, f *excelize.File, sheet string) map[string]int {
	t.Helper()
	rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
	if err != nil || len(rows) == 0 {
		t.Fatalf("sheet %s: no rows (%v)", sheet, err)
	}
	m := map[string]int{}
	for i, h := range rows[0] {
		m[h] = i + 1
	}
	return m
}

func ref(col, row int) string {
	r, _ := excelize.CoordinatesToCellName(col, row)
	return r
}

// TestXLSXSpend checks the spend workbook cell by cell: sheets in the
// report's language, the frozen and filterable header, exact numbers
// (compared with the report's own decimals, which SQL summed), numbers
// formatted, injection-prone text neutralised, totals as formulas whose
// cached value is the exact sum and which excelize recomputes to it.
func TestXLSXSpend(t *testing.T) {
	s := newSample(t)
	rep, err := Spend(context.Background(), s.db, SpendOptions{Month: "2026-10", By: []string{ByProvider, ByResource}})
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh", "en"} {
		t.Run(lang, func(t *testing.T) {
			f, data := openXLSX(t, rep, WriteOptions{Lang: lang})
			sheets := f.GetSheetList()
			if len(sheets) < 2 {
				t.Fatalf("got sheets %q, want the spend sheet, the totals and the notes", sheets)
			}
			main := sheets[0]
			if want := tr(lang, "title.spend") + " 2026-10"; main != want {
				t.Errorf("first sheet: got %q want %q", main, want)
			}
			if got, want := sheets[len(sheets)-1], tr(lang, "xlsx.notes"); got != want {
				t.Errorf("last sheet: got %q want %q", got, want)
			}
			if got := cell(t, f, sheets[len(sheets)-1], "A1"); got != main {
				t.Errorf("notes sheet A1: got %q want the title %q", got, main)
			}
			panes, err := f.GetPanes(main)
			if err != nil {
				t.Fatal(err)
			}
			if !panes.Freeze || panes.YSplit != 1 || panes.TopLeftCell != "A2" {
				t.Errorf("panes: got %+v, want the header row frozen", panes)
			}
			x := sheetXML(t, data, 1)
			wantFilter := `<autoFilter ref="$A$1:$H$` + itoa(len(rep.Rows)+1) + `"`
			if !strings.Contains(x, wantFilter) {
				t.Errorf("sheet 1: no %s in\n%s", wantFilter, x)
			}
			if strings.Contains(x, `t="str"`) {
				t.Errorf("sheet 1: a formula cell keeps a string cached value:\n%s", x)
			}

			h := headerIndex(t, f, main)
			for _, k := range []string{"col.provider", "col.resource_id", "col.resource_name", "col.currency", "col.billed_cost", "col.cash_paid"} {
				if h[tr(lang, k)] == 0 {
					t.Fatalf("header: no %q in %v", tr(lang, k), h)
				}
			}
			billed, cash := h[tr(lang, "col.billed_cost")], h[tr(lang, "col.cash_paid")]
			for i, row := range rep.Rows {
				r := i + 2
				if got, want := cell(t, f, main, ref(billed, r)), money.String(row.BilledCost); got != want {
					t.Errorf("row %d billed: got %q want %q", r, got, want)
				}
				if got, want := cell(t, f, main, ref(cash, r)), FormatNullMoney(row.CashPaid.Amount, row.Currency, true); got != want {
					t.Errorf("row %d cash: got %q want %q (unknown = empty)", r, got, want)
				}
				if typ, _ := f.GetCellType(main, ref(billed, r)); typ != excelize.CellTypeUnset && typ != excelize.CellTypeNumber {
					t.Errorf("row %d billed: cell type %v, want a number", r, typ)
				}
				// People read the workbook: labels are names in the report's
				// language, while the numbers are exact.
				if got, want := cell(t, f, main, ref(h[tr(lang, "col.provider")], r)), providerName(row.Provider, lang); got != want {
					t.Errorf("row %d provider: got %q want %q", r, got, want)
				}
				name := cell(t, f, main, ref(h[tr(lang, "col.resource_name")], r))
				if row.ResourceName == "=cmd|' /C calc'!A0" && name != "'=cmd|' /C calc'!A0" {
					t.Errorf("row %d resource name: got %q, want it with a leading apostrophe", r, name)
				}
				st, _ := f.GetCellStyle(main, ref(billed, r))
				if nf := numFmtOf(t, f, st); nf != numFmtMoney {
					t.Errorf("row %d billed: number format %q, want %q", r, nf, numFmtMoney)
				}
			}

			// Totals: one row per currency after a blank row.
			first := len(rep.Rows) + 3
			if len(rep.Totals) != 2 {
				t.Fatalf("sample has %d currencies, want 2 (CNY and USD)", len(rep.Totals))
			}
			for k, tot := range rep.Totals {
				r := first + k
				if got := cell(t, f, main, ref(h[tr(lang, "col.currency")], r)); got != tot.Currency {
					t.Errorf("total row %d currency: got %q want %q", r, got, tot.Currency)
				}
				c := ref(billed, r)
				formula, err := f.GetCellFormula(main, c)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(formula, "SUMIFS(") {
					t.Errorf("total %s %s: got formula %q, want SUMIFS by currency", tot.Currency, c, formula)
				}
				if got, want := cell(t, f, main, c), money.String(tot.BilledCost); got != want {
					t.Errorf("total %s: cached value %q, want the exact sum %q", tot.Currency, got, want)
				}
				calc, err := f.CalcCellValue(main, c, excelize.Options{RawCellValue: true})
				if err != nil {
					t.Fatalf("calc %s: %v", c, err)
				}
				got, err := decimal.NewFromString(calc)
				if err != nil {
					t.Fatalf("calc %s: %q is not a number", c, calc)
				}
				if want := tot.BilledCost.Round(2); !got.Round(2).Equal(want) {
					t.Errorf("total %s: Excel computes %s, want %s", tot.Currency, got, want)
				}
			}
		})
	}
}

// numFmtOf returns the custom number format of a style id ("" when none).
func numFmtOf(t *testing.T, f *excelize.File, id int) string {
	t.Helper()
	st, err := f.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	if st.CustomNumFmt == nil {
		return ""
	}
	return *st.CustomNumFmt
}

func itoa(n int) string { return decimal.NewFromInt(int64(n)).String() }

// TestXLSXSpendTotalsEqualLedger: the totals of the workbook (cached and
// recomputed) equal dsum over the ledger rows, and the exact sum of the
// line items in Go.
func TestXLSXSpendTotalsEqualLedger(t *testing.T) {
	s := newSample(t)
	ctx := context.Background()
	rep, err := Spend(ctx, s.db, SpendOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := openXLSX(t, rep, WriteOptions{Lang: "en"})
	main := f.GetSheetList()[0]
	h := headerIndex(t, f, main)
	for k, tot := range rep.Totals {
		var fromSQL string
		if err := s.db.SQL().QueryRowContext(ctx, `SELECT dsum(billed_cost) FROM line_items WHERE billing_period = '2026-10' AND currency = ?`, tot.Currency).Scan(&fromSQL); err != nil {
			t.Fatal(err)
		}
		inGo := decimal.Zero
		for _, li := range s.byKey {
			if li.BillingPeriod == "2026-10" && li.Currency == tot.Currency {
				inGo = inGo.Add(li.BilledCost)
			}
		}
		got := cell(t, f, main, ref(h["Billed"], len(rep.Rows)+3+k))
		if got != fromSQL || !inGo.Equal(decimal.RequireFromString(got)) {
			t.Errorf("%s: workbook total %s, ledger dsum %s, line items %s", tot.Currency, got, fromSQL, inGo)
		}
	}
}

// TestXLSXInjection: text from bills that a spreadsheet would run is
// neutralised; negative amounts stay numbers.
func TestXLSXInjection(t *testing.T) {
	db := testkit.OpenLedger(t)
	names := []string{`=HYPERLINK("http://evil.example","x")`, `-cmd|' /C calc'!A0`, `@SUM(1)`, "+1", "\tx", "plain"}
	var items []ledger.LineItem
	for i, n := range names {
		items = append(items, ledger.LineItem{Provider: "autodl",
			BillingPeriod: "2026-10", ChargePeriodStart: bj("2026-10-03 14:00"),
			ChargePeriodEnd: bj("2026-10-03 15:00"), Kind: ledger.KindCompute,
			ResourceID:   "r" + itoa(i),
			BilledCost:   decimal.RequireFromString("-1.25").Add(decimal.NewFromInt(int64(i))),
			ResourceName: n})
	}
	testkit.ImportItems(t, db, "bills/x.csv", items)
	rep, err := Spend(context.Background(), db, SpendOptions{Month: "2026-10", By: []string{ByResource}})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := openXLSX(t, rep, WriteOptions{Lang: "en"})
	main := f.GetSheetList()[0]
	h := headerIndex(t, f, main)
	byID := map[string]int{}
	for r := 2; r < 2+len(rep.Rows); r++ {
		byID[cell(t, f, main, ref(h["Resource ID"], r))] = r
	}
	for i, n := range names {
		r := byID["r"+itoa(i)]
		if r == 0 {
			t.Fatalf("no row of r%d", i)
		}
		want := n
		if strings.ContainsAny(n[:1], "=+-@\t") {
			want = "'" + n
		}
		if got := cell(t, f, main, ref(h["Resource name"], r)); got != want {
			t.Errorf("%q: got %q want %q", n, got, want)
		}
		amount := cell(t, f, main, ref(h["Billed"], r))
		if typ, _ := f.GetCellType(main, ref(h["Billed"], r)); typ == excelize.CellTypeInlineString || typ == excelize.CellTypeSharedString {
			t.Errorf("%q: the amount %q is text, want a number", n, amount)
		}
		if want := money.String(items[i].BilledCost); amount != want {
			t.Errorf("%q: amount got %q want %q", n, amount, want)
		}
	}
}

// TestXLSXTypedCells: every column kind of a hand-built document, JPY
// without decimals, a one-currency total as SUM, unknowns empty, a text
// cell in a numeric column stays text.
func TestXLSXTypedCells(t *testing.T) {
	tz := time.FixedZone("CST", 8*3600)
	g := &grid{cols: []column{textCol("name", "名称"), moneyCol("amount", "金额"), priceCol("price", "单价"),
		countCol("n", "次数"), qtyCol("hours", "小时"), shareCol("share", "占比"), timeCol("at", "时间")}}
	g.add("a", "1000", "2.123456", "3", "1.5", "0.2345", "2026-10-03T14:22:05+08:00")
	g.add("=b", "-5", "", "", "", "", "")
	g.add("c", "", "-", "0", "0", "1", "2026-10-31T23:59:00Z")
	doc := &document{key: "test", title: "测试 Test", notes: []string{"=note"}, sections: []section{
		{key: "jpy", title: "日元/JPY [test]", grid: g, totals: true, currency: "JPY"},
		{key: "empty", title: "日元/JPY [test]", grid: &grid{cols: g.cols}, empty: "nothing"},
	}}
	var buf bytes.Buffer
	if err := writeDocument(&buf, WriteOptions{Format: FormatXLSX, Lang: "zh", TZ: tz}, doc); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(buf.Bytes()), excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheets := f.GetSheetList()
	if want := []string{"日元-JPY (test)", "日元-JPY (test) (2)", "说明"}; strings.Join(sheets, "|") != strings.Join(want, "|") {
		t.Fatalf("sheets: got %q want %q", sheets, want)
	}
	sh := sheets[0]
	for _, tc := range []struct {
		name, ref, want, numFmt string
	}{
		{"money JPY", "B2", "1000", numFmtMoney0},
		{"negative money", "B3", "-5", numFmtMoney0},
		{"unknown money", "B4", "", ""},
		{"price", "C2", "2.123456", numFmtPrice},
		{"dash in a price column", "C4", "-", ""},
		{"count", "D2", "3", numFmtCount},
		{"quantity", "E2", "1.5", ""},
		{"share", "F2", "0.2345", numFmtShare},
		{"time in its zone", "G2", "46298.5986689815", numFmtTime},
		{"UTC time shown in +08:00", "G4", "46327.3326388889", numFmtTime},
		{"formula-like text", "A3", "'=b", ""},
		{"total label", "A6", "合计", ""},
		{"total", "B6", "995", numFmtMoney0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cell(t, f, sh, tc.ref); got != tc.want {
				t.Errorf("%s: got %q want %q", tc.ref, got, tc.want)
			}
			if tc.numFmt == "" {
				return
			}
			st, _ := f.GetCellStyle(sh, tc.ref)
			if got := numFmtOf(t, f, st); got != tc.numFmt {
				t.Errorf("%s: number format %q want %q", tc.ref, got, tc.numFmt)
			}
		})
	}
	if formula, _ := f.GetCellFormula(sh, "B6"); formula != "SUM(B2:B4)" {
		t.Errorf("one-currency total: got formula %q want SUM(B2:B4)", formula)
	}
	if got, _ := f.GetCellFormula(sh, "C6"); got != "" {
		t.Errorf("a price column got a total formula %q", got)
	}
	if got := cell(t, f, sheets[1], "A2"); got != "nothing" {
		t.Errorf("empty section: A2 got %q want its empty text", got)
	}
	if got := cell(t, f, "说明", "A3"); got != "'=note" {
		t.Errorf("notes: got %q want the note neutralised", got)
	}
	props, err := f.GetDocProps()
	if err != nil {
		t.Fatal(err)
	}
	if props.Title != "测试 Test" || props.Creator != "gpubill" {
		t.Errorf("doc props: got title %q creator %q", props.Title, props.Creator)
	}
	// The same document gives the same bytes.
	var again bytes.Buffer
	if err := writeDocument(&again, WriteOptions{Format: FormatXLSX, Lang: "zh", TZ: tz}, doc); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("two renderings of one document differ")
	}
}

func TestSheetName(t *testing.T) {
	x := &xlsxWriter{names: map[string]bool{}}
	for _, tc := range []struct{ title, key, want string }{
		{"支出明细 2026-10", "spend", "支出明细 2026-10"},
		{"a/b\\c?d*e:f[g]", "k", "a-b-c d e f(g)"},
		{"", "totals", "totals"},
		{"totals", "x", "totals (2)"},
		{"TOTALS", "x", "TOTALS (3)"},
		{"'quoted'", "x", "quoted"},
		{"History", "x", "Sheet"},
		{strings.Repeat("很长的标题", 10), "x", strings.Repeat("很长的标题", 6) + "很"},
		{strings.Repeat("很长的标题", 10), "x", strings.Repeat("很长的标题", 5) + "很长 (2)"},
	} {
		if got := x.sheetName(tc.title, tc.key); got != tc.want {
			t.Errorf("sheetName(%q, %q): got %q want %q", tc.title, tc.key, got, tc.want)
		}
	}
}

func TestTableRefusesReportFormats(t *testing.T) {
	tb := NewTable(Column{Key: "a", Title: "A"})
	tb.Add("x")
	for _, f := range []string{FormatXLSX, FormatHTML} {
		var b bytes.Buffer
		err := tb.Write(&b, f)
		if err == nil || !strings.Contains(err.Error(), f+" output is for reports") {
			t.Errorf("%s: got %v, want a refusal", f, err)
		}
		if b.Len() != 0 {
			t.Errorf("%s: wrote %q before refusing", f, b.String())
		}
	}
}

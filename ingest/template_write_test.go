package ingest

import (
	"bytes"
	"context"
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// updateTemplate refreshes the template writer's golden files. It is its own
// flag because the package-wide -update flag belongs to the reader's tests.
var updateTemplate = flag.Bool("update-template", false, "rewrite the template writer's golden files")

// tmplGolden compares got with testdata/<top-level test name>/<name>.golden,
// rewriting it with -update-template.
func tmplGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.GoldenFlag(t, filepath.Join(testkit.TopTestDir(t), name+".golden"), got, *updateTemplate, "-update-template")
}

func TestTemplateCSV(t *testing.T) {
	bom := "\ufeff"
	tests := []struct {
		name, table, lang string
		wantBOM           bool
		wantHeaderStart   []string
		wantCols          int
	}{
		{"bill_zh", "bill", "zh", true, []string{"平台", "账号", "项目", "实例ID"}, len(BillColumns)},
		{"bill_en", "bill", "en", false, []string{"provider", "account", "project", "resource_id"}, len(BillColumns)},
		{"flow_zh", "flow", "zh", true, []string{"平台", "账号", "时间", "类型", "金额"}, len(FlowColumns)},
		{"flow_en", "flow", "en", false, []string{"provider", "account", "time", "type", "amount"}, len(FlowColumns)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteTemplateCSV(&buf, tt.table, tt.lang); err != nil {
				t.Fatalf("WriteTemplateCSV(%s, %s): %v", tt.table, tt.lang, err)
			}
			out := buf.Bytes()
			if got := bytes.HasPrefix(out, []byte(bom)); got != tt.wantBOM {
				t.Errorf("starts with BOM: got %v want %v", got, tt.wantBOM)
			}
			recs, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(out), bom))).ReadAll()
			if err != nil {
				t.Fatalf("read back: %v", err)
			}
			if len(recs) != 2 {
				t.Fatalf("records: got %d want 2 (header + example)", len(recs))
			}
			if len(recs[0]) != tt.wantCols || len(recs[1]) != tt.wantCols {
				t.Errorf("columns: got header %d example %d want %d", len(recs[0]), len(recs[1]), tt.wantCols)
			}
			if got := recs[0][:len(tt.wantHeaderStart)]; !slices.Equal(got, tt.wantHeaderStart) {
				t.Errorf("header: got %q want prefix %q", got, tt.wantHeaderStart)
			}
			tmplGolden(t, tt.name, out)
		})
	}
}

func TestTemplateCSVErrors(t *testing.T) {
	tests := []struct {
		name, table, lang, wantErr string
	}{
		{"unknown table", "bills", "zh", `unknown table "bills"`},
		{"chinese table name", "费用明细", "zh", `unknown table "费用明细"`},
		{"unknown lang", "bill", "fr", `unknown language "fr"`},
		{"empty lang", "flow", "", `unknown language ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := WriteTemplateCSV(&buf, tt.table, tt.lang)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got error %v want one containing %q", err, tt.wantErr)
			}
			if buf.Len() != 0 {
				t.Errorf("got %d bytes written on error, want 0", buf.Len())
			}
		})
	}
	if err := WriteTemplateXLSX(&bytes.Buffer{}, "de"); err == nil || !strings.Contains(err.Error(), `unknown language "de"`) {
		t.Errorf("WriteTemplateXLSX(de): got error %v want unknown language", err)
	}
}

// TestTemplateExampleValid checks that the example rows are rows the reader
// imports and that they are consistent: the bill line is one AutoDL RTX 4090
// hour at ¥1.88 (quantity × unit price = billed = list, cash = billed −
// voucher), the flow row a positive top-up; the English example means the
// same as the Chinese one.
func TestTemplateExampleValid(t *testing.T) {
	for _, table := range []string{"bill", "flow"} {
		for _, lang := range []string{"zh", "en"} {
			t.Run(table+"_"+lang, func(t *testing.T) {
				header, ex, err := TemplateExampleRow(table, lang)
				if err != nil {
					t.Fatal(err)
				}
				cols := BillColumns
				if table == "flow" {
					cols = FlowColumns
				}
				row := map[string]string{}
				for i, c := range cols {
					if want := tmplHeader(c, lang); header[i] != want {
						t.Errorf("header %d: got %q want %q", i, header[i], want)
					}
					row[c.Field] = ex[i]
					if c.Required && ex[i] == "" {
						t.Errorf("required column %s: example is empty", c.Field)
					}
					if codes := TemplateCodes(c, lang); len(codes) > 0 && ex[i] != "" && !slices.Contains(codes, ex[i]) {
						t.Errorf("column %s: example %q is not in its drop-down list %q", c.Field, ex[i], codes)
					}
					if tmplTimeFields[c.Field] && ex[i] != "" {
						if _, err := time.Parse(tmplTimeLayout, ex[i]); err != nil {
							t.Errorf("column %s: example %q is not a time: %v", c.Field, ex[i], err)
						}
					}
				}
				dec := func(field string) decimal.Decimal {
					t.Helper()
					d, err := decimal.NewFromString(row[field])
					if err != nil {
						t.Fatalf("column %s: example %q is not a decimal: %v", field, row[field], err)
					}
					return d
				}
				if p, ok := platform.Parse(row["provider"]); !ok || p != "autodl" {
					t.Errorf("provider %q: got %q, %v want autodl", row["provider"], p, ok)
				}
				if table == "flow" {
					if tx, ok := ParseTxType(row["type"]); !ok || tx != ledger.TxTopup {
						t.Errorf("type %q: got %q, %v want %s", row["type"], tx, ok, ledger.TxTopup)
					}
					if a := dec("amount"); !a.IsPositive() || !a.Equal(dec("balance")) {
						t.Errorf("amount %s balance %s: want a positive first top-up equal to the balance", a, dec("balance"))
					}
					return
				}
				if k, ok := ParseKind(row["kind"]); !ok || k != ledger.KindCompute {
					t.Errorf("kind %q: got %q, %v want compute", row["kind"], k, ok)
				}
				if p, ok := ParsePricingModel(row["pricing_model"]); !ok || p != ledger.PricingOnDemand {
					t.Errorf("pricing_model %q: got %q, %v want on_demand", row["pricing_model"], p, ok)
				}
				if row["gpu_model"] != "RTX 4090" {
					t.Errorf("gpu_model: got %q want RTX 4090", row["gpu_model"])
				}
				start, _ := time.Parse(tmplTimeLayout, row["start"])
				end, _ := time.Parse(tmplTimeLayout, row["end"])
				if end.Sub(start) != time.Hour {
					t.Errorf("charge period %s – %s: got %v want 1h", row["start"], row["end"], end.Sub(start))
				}
				price := decimal.RequireFromString("1.88")
				billed := dec("billed_cost")
				if !billed.Equal(price) {
					t.Errorf("billed_cost: got %s want 1.88", billed)
				}
				if q := dec("billed_quantity").Mul(dec("unit_price")); !q.Equal(billed) {
					t.Errorf("billed_quantity × unit_price = %s, want billed_cost %s", q, billed)
				}
				if !dec("list_cost").Equal(billed) {
					t.Errorf("list_cost: got %s want %s", dec("list_cost"), billed)
				}
				if c := billed.Sub(dec("voucher_paid")); !c.Equal(dec("cash_paid")) {
					t.Errorf("cash_paid: got %s want billed − voucher = %s", dec("cash_paid"), c)
				}
			})
		}
	}
}

// tmplParsers maps each coded column to the function the reader parses it
// with.
var tmplParsers = map[string]func(string) (string, bool){
	"provider":      platform.Parse,
	"kind":          ParseKind,
	"pricing_model": ParsePricingModel,
	"type":          ParseTxType,
	"unit":          ParseUnit,
}

// TestTemplateCodesAccepted checks that every value offered in a drop-down
// list is accepted by the parser of its column, in both languages, and that
// no coded column lacks a parser.
func TestTemplateCodesAccepted(t *testing.T) {
	for _, tb := range tmplTables() {
		for _, c := range tb.cols {
			if len(c.Codes) == 0 {
				continue
			}
			for _, lang := range []string{"zh", "en"} {
				t.Run(tb.name+"_"+c.Field+"_"+lang, func(t *testing.T) {
					codes := TemplateCodes(c, lang)
					if len(codes) == 0 {
						t.Fatalf("got no codes for coded column %s", c.Field)
					}
					parse, ok := tmplParsers[c.Field]
					if !ok {
						t.Fatalf("coded column %s has no parser in tmplParsers", c.Field)
					}
					seen := map[string]bool{}
					for _, v := range codes {
						got, ok := parse(v)
						if !ok || got == "" {
							t.Errorf("%s drop-down value %q: got %q, %v want accepted", c.Field, v, got, ok)
						}
						seen[got] = true
					}
					if c.Field == "provider" && len(seen) != len(platform.All) {
						t.Errorf("provider list covers %d providers, want %d", len(seen), len(platform.All))
					}
					if len(seen) != len(codes) && c.Field != "pricing_model" {
						// Only 包日/包周/包月/包年 may share a meaning (package).
						t.Errorf("%s list %q names %d distinct values, want %d", c.Field, codes, len(seen), len(codes))
					}
				})
			}
		}
	}
}

// tmplOpen writes the XLSX template in lang and opens it again from a file.
func tmplOpen(t *testing.T, lang string) *excelize.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "template_"+lang+".xlsx")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteTemplateXLSX(out, lang); err != nil {
		t.Fatalf("WriteTemplateXLSX(%s): %v", lang, err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatalf("open written template: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func tmplRows(t *testing.T, f *excelize.File, sheet string) [][]string {
	t.Helper()
	rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatalf("rows of %s: %v", sheet, err)
	}
	return rows
}

func TestTemplateXLSX(t *testing.T) {
	tests := []struct {
		lang       string
		wantSheets []string
		wantHelp   []string
		wantYes    string
	}{
		{"zh", []string{"费用明细", "收支明细", "说明"}, tmplHelpHeader("zh"), "是"},
		{"en", []string{"bill_lines", "money_flow", "help"}, tmplHelpHeader("en"), "yes"},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			f := tmplOpen(t, tt.lang)
			if got := f.GetSheetList(); !slices.Equal(got, tt.wantSheets) {
				t.Fatalf("sheets: got %q want %q", got, tt.wantSheets)
			}
			for i, tb := range tmplTables() {
				sheet := tt.wantSheets[i]
				wantHeader, wantExample, err := TemplateExampleRow(tb.name, tt.lang)
				if err != nil {
					t.Fatal(err)
				}
				rows := tmplRows(t, f, sheet)
				if len(rows) != 2 {
					t.Fatalf("%s: got %d rows want 2", sheet, len(rows))
				}
				if !slices.Equal(rows[0], wantHeader) {
					t.Errorf("%s header: got %q want %q", sheet, rows[0], wantHeader)
				}
				for j, c := range tb.cols {
					got := ""
					if j < len(rows[1]) {
						got = rows[1][j]
					}
					tmplCheckExampleCell(t, f, sheet, tmplCell(j+1, 2), c, got, wantExample[j])
					tmplCheckHeaderStyle(t, f, sheet, tmplCell(j+1, 1), c)
				}
				tmplCheckComments(t, f, sheet, tb.cols, tt.lang)
				comments, err := f.GetComments(sheet)
				if err != nil {
					t.Fatal(err)
				}
				if len(comments) != len(tb.cols) {
					t.Errorf("%s: got %d header comments want %d", sheet, len(comments), len(tb.cols))
				}
			}
			for _, sheet := range tt.wantSheets {
				p, err := f.GetPanes(sheet)
				if err != nil {
					t.Fatal(err)
				}
				if !p.Freeze || p.YSplit != 1 || p.XSplit != 0 || p.TopLeftCell != "A2" {
					t.Errorf("%s panes: got freeze %v ysplit %d xsplit %d top-left %q want frozen header row",
						sheet, p.Freeze, p.YSplit, p.XSplit, p.TopLeftCell)
				}
			}

			help := tmplRows(t, f, tt.wantSheets[2])
			if !slices.Equal(help[0], tt.wantHelp) {
				t.Errorf("help header: got %q want %q", help[0], tt.wantHelp)
			}
			n := len(BillColumns) + len(FlowColumns)
			if len(help) < n+1 {
				t.Fatalf("help: got %d rows want at least %d", len(help), n+1)
			}
			// Row 2 describes the first bill column (平台), row n+1 the last flow column.
			first, last := help[1], help[n]
			wantFirst := []string{tt.wantSheets[0], "平台", "provider", tt.wantYes}
			if !slices.Equal(first[:4], wantFirst) {
				t.Errorf("help row 2: got %q want prefix %q", first[:4], wantFirst)
			}
			if want := strings.Join(TemplateCodes(BillColumns[0], tt.lang), map[string]string{"zh": "、", "en": ", "}[tt.lang]); first[7] != want {
				t.Errorf("help row 2 allowed values: got %q want %q", first[7], want)
			}
			lc := FlowColumns[len(FlowColumns)-1]
			if last[0] != tt.wantSheets[1] || last[1] != lc.ZH || last[2] != lc.Field {
				t.Errorf("help row %d: got %q want %s/%s/%s", n+1, last[:3], tt.wantSheets[1], lc.ZH, lc.Field)
			}
			if help[n+1] != nil && len(help[n+1]) != 0 {
				t.Errorf("help row %d: got %q want a blank row before the notes", n+2, help[n+1])
			}
			if len(help) != n+2+len(tmplHelpNotes(tt.lang)) {
				t.Errorf("help: got %d rows want %d (table, blank row, notes)", len(help), n+2+len(tmplHelpNotes(tt.lang)))
			}
		})
	}
}

// tmplCheckExampleCell checks one example cell: numbers as number cells with
// the exact text, times as date-time serials showing the example time, text
// as strings.
func tmplCheckExampleCell(t *testing.T, f *excelize.File, sheet, cell string, c TemplateColumn, got, want string) {
	t.Helper()
	typ, err := f.GetCellType(sheet, cell)
	if err != nil {
		t.Fatal(err)
	}
	style, err := f.GetCellStyle(sheet, cell)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.GetStyle(style)
	if err != nil {
		t.Fatal(err)
	}
	customFmt := ""
	if st.CustomNumFmt != nil {
		customFmt = *st.CustomNumFmt
	}
	switch {
	case want == "":
		if got != "" {
			t.Errorf("%s!%s (%s): got %q want empty", sheet, cell, c.Field, got)
		}
	case tmplTimeFields[c.Field]:
		serial, err := strconv.ParseFloat(got, 64)
		if err != nil {
			t.Fatalf("%s!%s (%s): got %q want an Excel serial date", sheet, cell, c.Field, got)
		}
		tm, err := excelize.ExcelDateToTime(serial, false)
		if err != nil {
			t.Fatal(err)
		}
		if s := tm.Round(time.Second).Format(tmplTimeLayout); s != want {
			t.Errorf("%s!%s (%s): got %s want %s", sheet, cell, c.Field, s, want)
		}
	case tmplMoneyFields[c.Field] || tmplNumberFields[c.Field]:
		if got != want || (typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset) {
			t.Errorf("%s!%s (%s): got %q type %v want number %q", sheet, cell, c.Field, got, typ, want)
		}
	default:
		if got != want || typ != excelize.CellTypeInlineString && typ != excelize.CellTypeSharedString {
			t.Errorf("%s!%s (%s): got %q type %v want text %q", sheet, cell, c.Field, got, typ, want)
		}
	}
	var wantFmt string
	wantNumFmt := 0
	switch {
	case tmplMoneyFields[c.Field]:
		wantFmt = "0.00######"
	case tmplTimeFields[c.Field]:
		wantFmt = "yyyy-mm-dd hh:mm:ss"
	case tmplNumberFields[c.Field]:
	default:
		wantNumFmt = 49
	}
	if want != "" && (customFmt != wantFmt || st.NumFmt != wantNumFmt && wantFmt == "") {
		t.Errorf("%s!%s (%s): got number format %q/%d want %q/%d", sheet, cell, c.Field, customFmt, st.NumFmt, wantFmt, wantNumFmt)
	}
}

func tmplCheckHeaderStyle(t *testing.T, f *excelize.File, sheet, cell string, c TemplateColumn) {
	t.Helper()
	id, err := f.GetCellStyle(sheet, cell)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	if st.Font == nil || !st.Font.Bold {
		t.Errorf("%s!%s (%s): got a header font that is not bold", sheet, cell, c.Field)
		return
	}
	red := strings.EqualFold(strings.TrimPrefix(st.Font.Color, "FF"), "C00000")
	if red != c.Required {
		t.Errorf("%s!%s (%s): got red header %v (color %q) want %v", sheet, cell, c.Field, red, st.Font.Color, c.Required)
	}
}

// tmplValidations returns the list validations of sheet by their range.
func tmplValidations(t *testing.T, f *excelize.File, sheet string) map[string]*excelize.DataValidation {
	t.Helper()
	dvs, err := f.GetDataValidations(sheet)
	if err != nil {
		t.Fatalf("validations of %s: %v", sheet, err)
	}
	out := map[string]*excelize.DataValidation{}
	for _, dv := range dvs {
		out[dv.Sqref] = dv
	}
	return out
}

func TestTemplateXLSXDropLists(t *testing.T) {
	for _, lang := range []string{"zh", "en"} {
		t.Run(lang, func(t *testing.T) {
			f := tmplOpen(t, lang)
			for _, tb := range tmplTables() {
				sheet := tb.sheet(lang)
				dvs := tmplValidations(t, f, sheet)
				want := 0
				for j, c := range tb.cols {
					col := tmplColName(j + 1)
					sqref := col + "2:" + col + "1000"
					dv, ok := dvs[sqref]
					codes := TemplateCodes(c, lang)
					if len(codes) == 0 {
						if ok {
							t.Errorf("%s column %s (%s): got a validation %q want none", sheet, col, c.Field, dv.Formula1)
						}
						continue
					}
					want++
					if !ok {
						t.Errorf("%s column %s (%s): got no validation on %s want a drop-down list", sheet, col, c.Field, sqref)
						continue
					}
					wantFormula := `"` + strings.Join(codes, ",") + `"`
					if dv.Type != "list" || dv.Formula1 != wantFormula {
						t.Errorf("%s %s (%s): got %s %s want list %s", sheet, sqref, c.Field, dv.Type, dv.Formula1, wantFormula)
					}
					if !dv.AllowBlank || dv.ErrorStyle == nil || *dv.ErrorStyle != "warning" {
						t.Errorf("%s %s (%s): got allow blank %v error style %v want blank allowed and a warning",
							sheet, sqref, c.Field, dv.AllowBlank, dv.ErrorStyle)
					}
				}
				if len(dvs) != want {
					t.Errorf("%s: got %d validations want %d", sheet, len(dvs), want)
				}
			}
		})
	}
}

// TestTemplateLongDropList checks the fallback for a list longer than Excel's
// 255 characters: the values go to a help-sheet column, the validation refers
// to that range, and two columns with the same list share it.
func TestTemplateLongDropList(t *testing.T) {
	var long []string
	for i := range 40 {
		long = append(long, "区域代号"+strconv.Itoa(i))
	}
	short := []string{"a", "b"}
	tables := []tmplTable{{name: "bill", sheetZH: "费用明细", sheetEN: "bill_lines", cols: []TemplateColumn{
		{Field: "provider", ZH: "平台", Codes: []string{"AutoDL"}, Example: "AutoDL"},
		{Field: "region", ZH: "区域", Codes: long},
		{Field: "zone", ZH: "可用区", Codes: long},
		{Field: "quoted", ZH: "引号", Codes: []string{`x,y`, "z"}},
		{Field: "plain", ZH: "普通", Codes: short},
	}}}
	path := filepath.Join(t.TempDir(), "long.xlsx")
	var buf bytes.Buffer
	if err := tmplWriteXLSX(&buf, "zh", tables); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dvs := tmplValidations(t, f, "费用明细")
	tests := []struct {
		name, sqref, wantFormula string
	}{
		{"short literal", "A2:A1000", `"AutoDL"`},
		{"long list as range", "B2:B1000", `'说明'!$J$2:$J$41`},
		{"same long list shares the range", "C2:C1000", `'说明'!$J$2:$J$41`},
		{"comma in a value forces a range", "D2:D1000", `'说明'!$K$2:$K$3`},
		{"second literal", "E2:E1000", `"a,b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dv, ok := dvs[tt.sqref]
			if !ok {
				t.Fatalf("got no validation on %s", tt.sqref)
			}
			if dv.Formula1 != tt.wantFormula {
				t.Errorf("formula: got %s want %s", dv.Formula1, tt.wantFormula)
			}
		})
	}
	rows := tmplRows(t, f, "说明")
	var gotJ, gotK []string
	for i, r := range rows {
		if i == 0 {
			continue
		}
		if len(r) > 9 && r[9] != "" {
			gotJ = append(gotJ, r[9])
		}
		if len(r) > 10 && r[10] != "" {
			gotK = append(gotK, r[10])
		}
	}
	if !slices.Equal(gotJ, long) {
		t.Errorf("help column J: got %q want %q", gotJ, long)
	}
	if want := []string{`x,y`, "z"}; !slices.Equal(gotK, want) {
		t.Errorf("help column K: got %q want %q", gotK, want)
	}
	if v, _ := f.GetCellValue("说明", "J1"); v != "下拉列表：区域" {
		t.Errorf("help J1: got %q want 下拉列表：区域", v)
	}
}

// tmplCheckComments checks the header comments: one per header cell, saying
// whether the column is required and what it means.
func tmplCheckComments(t *testing.T, f *excelize.File, sheet string, cols []TemplateColumn, lang string) {
	t.Helper()
	comments, err := f.GetComments(sheet)
	if err != nil {
		t.Fatal(err)
	}
	byCell := map[string]string{}
	for _, c := range comments {
		text := c.Text
		for _, r := range c.Paragraph {
			text += r.Text
		}
		byCell[c.Cell] = text
	}
	for j, c := range cols {
		cell := tmplCell(j+1, 1)
		text, ok := byCell[cell]
		if !ok {
			t.Errorf("%s!%s (%s): got no header comment", sheet, cell, c.Field)
			continue
		}
		tag := map[bool]map[string]string{true: {"zh": "必填。", "en": "Required. "}, false: {}}[c.Required][lang]
		if want := tag + tmplHelp(c, lang); text != want {
			t.Errorf("%s!%s (%s): got comment %q want %q", sheet, cell, c.Field, text, want)
		}
	}
}

// TestTemplateUnitsParallel checks that the English unit list is the Chinese
// one translated, position by position.
func TestTemplateUnitsParallel(t *testing.T) {
	var unit TemplateColumn
	for _, c := range BillColumns {
		if c.Field == "unit" {
			unit = c
		}
	}
	zh, en := TemplateCodes(unit, "zh"), TemplateCodes(unit, "en")
	if len(zh) != len(en) {
		t.Fatalf("units: got %d zh and %d en want the same number", len(zh), len(en))
	}
	for i := range zh {
		a, _ := ParseUnit(zh[i])
		b, _ := ParseUnit(en[i])
		if a == "" || a != b {
			t.Errorf("unit %d: got %q → %q and %q → %q want the same unit", i, zh[i], a, en[i], b)
		}
	}
}

// TestTemplateImport writes each template, imports it into a real ledger and
// checks that exactly the example rows arrive, with their meaning: the
// writer's output is a file the reader recognises and accepts.
func TestTemplateImport(t *testing.T) {
	tests := []struct {
		name      string
		write     func(w *bytes.Buffer) error
		file      string
		wantLines int
		wantTxs   int
	}{
		{"csv bill zh", func(w *bytes.Buffer) error { return WriteTemplateCSV(w, "bill", "zh") }, "bill.csv", 1, 0},
		{"csv bill en", func(w *bytes.Buffer) error { return WriteTemplateCSV(w, "bill", "en") }, "bill.csv", 1, 0},
		{"csv flow zh", func(w *bytes.Buffer) error { return WriteTemplateCSV(w, "flow", "zh") }, "flow.csv", 0, 1},
		{"csv flow en", func(w *bytes.Buffer) error { return WriteTemplateCSV(w, "flow", "en") }, "flow.csv", 0, 1},
		{"xlsx zh", func(w *bytes.Buffer) error { return WriteTemplateXLSX(w, "zh") }, "template.xlsx", 1, 1},
		{"xlsx en", func(w *bytes.Buffer) error { return WriteTemplateXLSX(w, "en") }, "template.xlsx", 1, 1},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var buf bytes.Buffer
			if err := tt.write(&buf); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tt.file)
			if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := ledger.Open(ctx, filepath.Join(dir, "ledger.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			// As written, the template's example rows are skipped.
			res, err := ImportFile(ctx, db, path, Options{})
			if err != nil {
				t.Fatalf("import %s: %v", tt.file, err)
			}
			if res.New != 0 || res.Skipped != tt.wantLines+tt.wantTxs {
				t.Errorf("import of the blank template: got new %d skipped %d, want the %d example rows skipped",
					res.New, res.Skipped, tt.wantLines+tt.wantTxs)
			}
			// With the example's 说明 changed, it is a real row of the user's.
			tmplUnmark(t, path)
			res, err = ImportFile(ctx, db, path, Options{})
			if err != nil {
				t.Fatalf("import %s: %v", tt.file, err)
			}
			if res.New != tt.wantLines+tt.wantTxs || res.Skipped != 0 || res.Duplicate != 0 {
				t.Errorf("import: got new %d skipped %d duplicate %d want new %d and nothing else",
					res.New, res.Skipped, res.Duplicate, tt.wantLines+tt.wantTxs)
			}
			items, err := testkit.LineItems(ctx, db, ledger.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != tt.wantLines {
				t.Fatalf("line items: got %d want %d", len(items), tt.wantLines)
			}
			if tt.wantLines == 1 {
				tmplCheckImportedLine(t, items[0])
			}
			var n int
			var typ, amount, tm string
			if err := db.SQL().QueryRowContext(ctx, `SELECT count(*), coalesce(max(type), ''), coalesce(max(amount), ''),
				coalesce(max(time), '') FROM transactions`).Scan(&n, &typ, &amount, &tm); err != nil {
				t.Fatal(err)
			}
			if n != tt.wantTxs {
				t.Fatalf("transactions: got %d want %d", n, tt.wantTxs)
			}
			if n == 1 && (typ != ledger.TxTopup || !decimal.RequireFromString(amount).Equal(decimal.RequireFromString("100")) ||
				tm != "2026-10-01T01:00:00Z") {
				t.Errorf("transaction: got %s %s at %s want topup 100 at 2026-10-01T01:00:00Z", typ, amount, tm)
			}
		})
	}
}

// tmplUnmark replaces the example-row mark in a written template by an
// ordinary description, as a user who fills in the example row would.
func tmplUnmark(t *testing.T, path string) {
	t.Helper()
	if filepath.Ext(path) != ".xlsx" {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{ExampleMarkZH, ExampleMarkEN} {
			b = bytes.ReplaceAll(b, []byte(m), []byte("filled in"))
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, sheet := range f.GetSheetList() {
		rows, err := f.GetRows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		for r, row := range rows {
			for c, v := range row {
				if v == ExampleMarkZH || v == ExampleMarkEN {
					cell, _ := excelize.CoordinatesToCellName(c+1, r+1)
					if err := f.SetCellStr(sheet, cell, "filled in"); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	if err := f.Save(); err != nil {
		t.Fatal(err)
	}
}

func tmplCheckImportedLine(t *testing.T, li ledger.LineItem) {
	t.Helper()
	dec := func(d decimal.NullDecimal) string {
		if !d.Valid {
			return "null"
		}
		return d.Decimal.String()
	}
	got := []string{li.Provider, li.Kind, li.PricingModel, li.GPUModel, strconv.Itoa(li.GPUCount),
		li.ChargePeriodStart.UTC().Format(time.RFC3339), li.ChargePeriodEnd.UTC().Format(time.RFC3339),
		dec(li.PricingQuantity), li.PricingUnit, dec(li.ListUnitPrice), dec(li.ListCost), li.BilledCost.String(),
		dec(li.VoucherPaid), dec(li.CashPaid), li.Currency, li.ResourceID, li.BillingAccountID, li.SubAccount}
	want := []string{"autodl", ledger.KindCompute, ledger.PricingOnDemand, "RTX 4090", "1",
		"2026-10-03T06:00:00Z", "2026-10-03T07:00:00Z",
		"1", "hour", "1.88", "1.88", "1.88",
		"0", "1.88", "CNY", "c7b24f3a9e", "lab-a", "NSFC-2026"}
	if !slices.Equal(got, want) {
		t.Errorf("imported line item:\n got  %q\n want %q", got, want)
	}
}

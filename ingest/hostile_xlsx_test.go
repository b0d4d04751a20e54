package ingest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/ledger"
)

// xnum is a sheet cell of type t (n, b …) with raw value v, at ref.
func xnum(ref, t, v string) string {
	if t == "" {
		return fmt.Sprintf(`<c r="%s"><v>%s</v></c>`, ref, v)
	}
	return fmt.Sprintf(`<c r="%s" t="%s"><v>%s</v></c>`, ref, t, v)
}

// xrowCells is a sheet row of text cells A… plus extra raw cells.
func xrowCells(r int, texts []string, extra ...string) string {
	row := xrow(r, texts...)
	return strings.TrimSuffix(row, "</row>") + strings.Join(extra, "") + "</row>"
}

// TestHostileXLSXRows: rows stored out of order or twice are refused at
// the sheet and row, never read with rows lost; cells hold what Excel
// shows (booleans TRUE/FALSE, numbers to 15 significant digits).
func TestHostileXLSXRows(t *testing.T) {
	charge := func(r int, start, end string, amount string) string {
		return xrowCells(r, []string{"AutoDL", "hx-1", "GPU计算", start, end}, amount)
	}
	a := func(r int, v string) string { return xnum(fmt.Sprintf("F%d", r), "", v) }
	tests := []struct {
		name      string
		rows      string
		wantErr   string   // "" = imported
		wantCosts []string // billed_cost of the rows, in order
	}{
		{"in order", xrow(1, xlsxHeader...) +
			charge(2, "2026-10-02 10:00", "2026-10-02 11:00", a(2, "1.88")) +
			charge(3, "2026-10-02 11:00", "2026-10-02 12:00", a(3, "1.5")), "", []string{"1.88", "1.5"}},
		{"out of order", xrow(1, xlsxHeader...) +
			charge(4, "2026-10-02 12:00", "2026-10-02 13:00", a(4, "3")) +
			charge(3, "2026-10-02 11:00", "2026-10-02 12:00", a(3, "2")) +
			charge(2, "2026-10-02 10:00", "2026-10-02 11:00", a(2, "1")),
			"x.xlsx: 账单!3: the worksheet stores row 3 after row 4", nil},
		{"row twice", xrow(1, xlsxHeader...) +
			charge(2, "2026-10-02 10:00", "2026-10-02 11:00", a(2, "1")) +
			charge(2, "2026-10-02 11:00", "2026-10-02 12:00", a(2, "2")),
			"x.xlsx: 账单!2: the worksheet stores row 2 twice", nil},
		// Cells stored twice, out of order or in another row's element:
		// excelize would drop the second F2, leave A2 empty, or read F3 as
		// row 2's amount.
		{"cell twice", xrow(1, xlsxHeader...) +
			charge(2, "2026-10-02 10:00", "2026-10-02 11:00", a(2, "1")+a(2, "2")),
			"x.xlsx: 账单!2: the worksheet stores cell F2 twice", nil},
		{"cells out of order", xrow(1, xlsxHeader...) + `<row r="2">` + a(2, "2") +
			strings.TrimPrefix(charge(2, "2026-10-02 10:00", "2026-10-02 11:00", ""), `<row r="2">`),
			"x.xlsx: 账单!2: the worksheet stores cell A2 after F2 (cells out of order)", nil},
		{"cell in another row", xrow(1, xlsxHeader...) +
			charge(2, "2026-10-02 10:00", "2026-10-02 11:00", a(3, "2")),
			"x.xlsx: 账单!2: the worksheet stores cell F3 in row 2", nil},
		{"rows without numbers", strings.ReplaceAll(xrow(1, xlsxHeader...)+
			charge(2, "2026-10-02 10:00", "2026-10-02 11:00", a(2, "1.88"))+
			charge(3, "2026-10-02 11:00", "2026-10-02 12:00", a(3, "1.5")), `<row r="`, `<row x="`), "", []string{"1.88", "1.5"}},
		{"boolean amount", xrow(1, xlsxHeader...) +
			charge(2, "2026-10-02 10:00", "2026-10-02 11:00", xnum("F2", "b", "1")),
			`x.xlsx: 账单!F2: column 应付金额: "TRUE" is not an amount`, nil},
		{"double artefacts", xrow(1, xlsxHeader...) +
			charge(2, "2026-10-02 10:00", "2026-10-02 11:00", a(2, "1.8799999999999999")) +
			charge(3, "2026-10-02 11:00", "2026-10-02 12:00", a(3, "2.0200000000000001")) +
			charge(4, "2026-10-02 12:00", "2026-10-02 13:00", a(4, "0.12345678901234567")),
			"", []string{"1.88", "2.02", "0.123456789012346"}},
		{"double artefacts: negative, large, whole, exponent", xrow(1, xlsxHeader...) +
			charge(2, "2026-10-02 10:00", "2026-10-02 11:00", a(2, "-1.8799999999999999")) +
			charge(3, "2026-10-02 11:00", "2026-10-02 12:00", a(3, "1234567.8900000001")) +
			charge(4, "2026-10-02 12:00", "2026-10-02 13:00", a(4, "3.0000000000000004")) +
			charge(5, "2026-10-02 13:00", "2026-10-02 14:00", a(5, "1.0000000000000001E-3")),
			"", []string{"-1.88", "1234567.89", "3", "0.001"}},
		{"boolean FALSE and an error value", xrow(1, xlsxHeader...) +
			charge(2, "2026-10-02 10:00", "2026-10-02 11:00", xnum("F2", "b", "0")) +
			charge(3, "2026-10-02 11:00", "2026-10-02 12:00", xnum("F3", "e", "#DIV/0!")),
			`x.xlsx: 账单!F2: column 应付金额: "FALSE" is not an amount`, nil},
		// Excel's last day, 9999-12-31, is past the years a stored time
		// reads back in (in UTC it is 9999 here, 10000 west of UTC).
		{"a date of Excel's last day", xrow(1, xlsxHeader...) +
			xrowCells(2, []string{"AutoDL", "hx-1", "GPU计算"}, xnum("D2", "", "2958465"), xnum("E2", "", "2958465.5"), a(2, "1")),
			`x.xlsx: 账单!D2: column 开始时间: "2958465" is not a date-time`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, t.TempDir(), "x.xlsx", minimalXLSX(t, tt.rows, "", nil))
			db := openHostileLedger(t)
			res, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
				}
				if n := ledgerCounts(t, db); n != [2]int{0, 0} {
					t.Errorf("a refused file left %v imports and rows", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.New != len(tt.wantCosts) {
				t.Errorf("got %d new rows, want %d", res.New, len(tt.wantCosts))
			}
			if got := billedCosts(t, db); strings.Join(got, " ") != strings.Join(tt.wantCosts, " ") {
				t.Errorf("got billed costs %v, want %v", got, tt.wantCosts)
			}
		})
	}
}

// billedCosts is the billed_cost of every line item, in id order.
func billedCosts(t *testing.T, db *ledger.DB) []string {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT billed_cost FROM line_items ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// xsheet is one worksheet of sheetsXLSX: its name, its state ("",
// "hidden" or "veryHidden") and its rows.
type xsheet struct{ name, state, rows string }

// sheetsXLSX builds a workbook of the given sheets.
func sheetsXLSX(t testing.TB, sheets ...xsheet) []byte {
	t.Helper()
	var types, wb, rels strings.Builder
	extra := map[string]string{}
	for i, s := range sheets {
		n := i + 1
		fmt.Fprintf(&types, `<Override PartName="/xl/worksheets/sheet%d.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`, n)
		state := ""
		if s.state != "" {
			state = fmt.Sprintf(` state="%s"`, s.state)
		}
		fmt.Fprintf(&wb, `<sheet name="%s" sheetId="%d"%s r:id="rId%d"/>`, s.name, n, state, n)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet%d.xml"/>`, n, n)
		extra[fmt.Sprintf("xl/worksheets/sheet%d.xml", n)] = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + s.rows + `</sheetData></worksheet>`
	}
	extra["[Content_Types].xml"] = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` + types.String() + `</Types>`
	extra["xl/workbook.xml"] = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>` + wb.String() + `</sheets></workbook>`
	extra["xl/_rels/workbook.xml.rels"] = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels.String() + `</Relationships>`
	return minimalXLSX(t, "", "", extra)
}

// TestHostileXLSXSheets: a workbook's hidden and veryHidden sheets are not
// read unless asked for, and a sheet that copies another is read once;
// either way the import says so.
func TestHostileXLSXSheets(t *testing.T) {
	bill := xrow(1, xlsxHeader...) +
		xrow(2, "AutoDL", "hs-1", "GPU计算", "2026-10-02 10:00", "2026-10-02 11:00", "1.88") +
		xrow(3, "AutoDL", "hs-1", "GPU计算", "2026-10-02 11:00", "2026-10-02 12:00", "1.88")
	other := xrow(1, xlsxHeader...) +
		xrow(2, "AutoDL", "hs-2", "存储", "2026-10-02 10:00", "2026-10-03 10:00", "0.50")
	tests := []struct {
		name     string
		sheets   []xsheet
		hidden   bool
		wantNew  int
		wantWarn string // a substring of the warnings, "" for none
	}{
		{"one sheet", []xsheet{{"费用明细", "", bill}}, false, 2, ""},
		{"hidden copy", []xsheet{{"费用明细", "", bill}, {"备份", "hidden", bill}}, false, 2, `sheet "备份" is hidden: not imported`},
		{"visible copy", []xsheet{{"费用明细", "", bill}, {"费用明细 (2)", "", bill}}, false, 2,
			`sheet "费用明细 (2)" holds exactly the cells of sheet "费用明细" (a copy?): imported once`},
		{"veryHidden other charges", []xsheet{{"费用明细", "", bill}, {"x", "veryHidden", other}}, false, 2, `sheet "x" is hidden: not imported`},
		{"veryHidden read when asked", []xsheet{{"费用明细", "", bill}, {"x", "veryHidden", other}}, true, 3, ""},
		{"hidden copy read when asked is still a copy", []xsheet{{"费用明细", "", bill}, {"备份", "hidden", bill}}, true, 2, "imported once"},
		{"two different sheets", []xsheet{{"十月", "", bill}, {"存储", "", other}}, false, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, t.TempDir(), "x.xlsx", sheetsXLSX(t, tt.sheets...))
			db := openHostileLedger(t)
			res, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai, HiddenSheets: tt.hidden})
			if err != nil {
				t.Fatal(err)
			}
			if res.New != tt.wantNew {
				t.Errorf("got %d new rows, want %d", res.New, tt.wantNew)
			}
			var warns []string
			for _, w := range res.Warnings {
				warns = append(warns, w.EN)
				if w.ZH == "" {
					t.Errorf("warning %q has no Chinese text", w.EN)
				}
			}
			all := strings.Join(warns, "\n")
			if tt.wantWarn == "" && all != "" || !strings.Contains(all, tt.wantWarn) {
				t.Errorf("got warnings %q, want one containing %q", warns, tt.wantWarn)
			}
		})
	}
}

package ingest

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// This file writes the gpubill template (DESIGN.md "The gpubill template"):
// `gpubill template` as CSV (one table) or XLSX (both tables and a help
// sheet). The column definitions live in template_spec.go; the reader is
// elsewhere in this package.

// tmplTable is one table of the template: "bill" (费用明细) or "flow" (收支明细).
type tmplTable struct {
	name    string // "bill" or "flow"
	sheetZH string
	sheetEN string
	cols    []TemplateColumn
}

func (t tmplTable) sheet(lang string) string {
	if lang == "zh" {
		return t.sheetZH
	}
	return t.sheetEN
}

func tmplTables() []tmplTable {
	return []tmplTable{
		{name: "bill", sheetZH: "费用明细", sheetEN: "bill_lines", cols: BillColumns},
		{name: "flow", sheetZH: "收支明细", sheetEN: "money_flow", cols: FlowColumns},
	}
}

func tmplFindTable(table string) (tmplTable, error) {
	for _, t := range tmplTables() {
		if t.name == table {
			return t, nil
		}
	}
	return tmplTable{}, fmt.Errorf("template: unknown table %q (want bill or flow)", table)
}

func tmplCheckLang(lang string) error {
	if lang != "zh" && lang != "en" {
		return fmt.Errorf("template: unknown language %q (want zh or en)", lang)
	}
	return nil
}

// tmplMoneyFields are the amount columns (number format 0.00######).
var tmplMoneyFields = map[string]bool{
	"unit_price": true, "list_cost": true, "billed_cost": true, "voucher_paid": true, "cash_paid": true,
	"amount": true, "balance": true,
}

// tmplNumberFields are the other numeric columns (general number format).
var tmplNumberFields = map[string]bool{"billed_quantity": true, "gpu_count": true}

// tmplTimeFields are the time columns (format yyyy-mm-dd hh:mm:ss).
var tmplTimeFields = map[string]bool{"start": true, "end": true, "usage_start": true, "usage_end": true, "time": true}

// tmplTimeLayout is the layout of the Example times in template_spec.go.
const tmplTimeLayout = "2006-01-02 15:04:05"

// tmplUnitsEN are the English units, in the order of the 单位 column's Codes.
var tmplUnitsEN = []string{"hour", "minute", "second", "day", "GB", "GB-day", "GB-month", "count"}

// tmplExampleEN gives the English template's example for the columns whose
// Example is Chinese text, keyed by table and field. Every other column uses
// its Example in both languages.
var tmplExampleEN = map[string]string{
	"bill.provider": "autodl", "bill.kind": ledger.KindCompute, "bill.pricing_model": ledger.PricingOnDemand,
	"bill.unit":     "hour",
	"flow.provider": "autodl", "flow.type": ledger.TxTopup, "flow.description": ExampleMarkEN, "bill.description": ExampleMarkEN,
}

// TemplateCodes returns the values offered in the drop-down list of column c
// in language lang ("zh" or "en"): the Chinese names of TemplateColumn.Codes
// for zh, the English slugs for en (provider slugs, charge kinds, pricing
// models, transaction types, English units). It is nil for a column without
// codes. The reader accepts both languages. The slice is the caller's own.
func TemplateCodes(c TemplateColumn, lang string) []string {
	if len(c.Codes) == 0 {
		return nil
	}
	if lang == "zh" {
		return slices.Clone(c.Codes)
	}
	switch c.Field {
	case "provider":
		var out []string
		for _, p := range platform.All {
			out = append(out, p.Slug)
		}
		return out
	case "kind":
		return slices.Clone(ledger.Kinds)
	case "pricing_model":
		return slices.Clone(ledger.PricingModels)
	case "type":
		return slices.Clone(ledger.TxTypes)
	case "unit":
		return slices.Clone(tmplUnitsEN)
	}
	return slices.Clone(c.Codes)
}

// TemplateExampleRow returns the header and the example row of a template
// table ("bill" or "flow") in language lang ("zh" or "en"), as written by
// WriteTemplateCSV. The reader can use it to warn about an example row left
// in a filled-in template.
func TemplateExampleRow(table, lang string) (header, example []string, err error) {
	if err := tmplCheckLang(lang); err != nil {
		return nil, nil, err
	}
	t, err := tmplFindTable(table)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range t.cols {
		header = append(header, tmplHeader(c, lang))
		example = append(example, tmplExample(t, c, lang))
	}
	return header, example, nil
}

func tmplHeader(c TemplateColumn, lang string) string {
	if lang == "zh" {
		return c.ZH
	}
	return c.Field
}

func tmplExample(t tmplTable, c TemplateColumn, lang string) string {
	if lang == "en" {
		if v, ok := tmplExampleEN[t.name+"."+c.Field]; ok {
			return v
		}
	}
	return c.Example
}

func tmplHelp(c TemplateColumn, lang string) string {
	if lang == "zh" {
		return c.HelpZH
	}
	return c.HelpEN
}

// WriteTemplateCSV writes one table of the gpubill template as CSV: table is
// "bill" (费用明细, bill lines) or "flow" (收支明细, money flow); lang "zh"
// gives Chinese headers and Chinese code values, "en" the English field names
// and English slugs. The header row is followed by one example row (an AutoDL
// RTX 4090 hour at ¥1.88, or a ¥100 top-up) that imports as it is; replace it
// with real rows.
//
// The Chinese template is UTF-8 with a byte-order mark, so that Excel on
// Windows (which otherwise assumes the ANSI code page, GBK) opens it
// correctly; the English one is plain UTF-8 without BOM. Lines end in LF,
// which Excel reads fine.
func WriteTemplateCSV(w io.Writer, table, lang string) error {
	header, example, err := TemplateExampleRow(table, lang)
	if err != nil {
		return err
	}
	if lang == "zh" {
		if _, err := io.WriteString(w, "\ufeff"); err != nil {
			return fmt.Errorf("template: write csv: %w", err)
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("template: write csv: %w", err)
	}
	if err := cw.Write(example); err != nil {
		return fmt.Errorf("template: write csv: %w", err)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("template: write csv: %w", err)
	}
	return nil
}

// tmplLastRow is the last data row that gets drop-down lists and formats.
const tmplLastRow = 1000

// tmplHelpListCol is the first help-sheet column used for drop-down lists too
// long for a literal list (Excel's 255-character limit); one column per list.
const tmplHelpListCol = 10 // J

// tmplStyles holds the style ids of one workbook.
type tmplStyles struct {
	header, headerRequired, money, number, time, text, helpText int
}

func tmplNewStyles(f *excelize.File) (tmplStyles, error) {
	var s tmplStyles
	fill := excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"DDEBF7"}}
	border := []excelize.Border{{Type: "bottom", Color: "808080", Style: 1}}
	moneyFmt, timeFmt := "0.00######", "yyyy-mm-dd hh:mm:ss"
	defs := []struct {
		dst   *int
		style *excelize.Style
	}{
		{&s.header, &excelize.Style{Font: &excelize.Font{Bold: true}, Fill: fill, Border: border,
			Alignment: &excelize.Alignment{Horizontal: "center", Vertical: "center"}}},
		// Required columns: bold red header (the header text itself stays the
		// exact column name, so that the reader recognises it).
		{&s.headerRequired, &excelize.Style{Font: &excelize.Font{Bold: true, Color: "C00000"}, Fill: fill, Border: border,
			Alignment: &excelize.Alignment{Horizontal: "center", Vertical: "center"}}},
		{&s.money, &excelize.Style{CustomNumFmt: &moneyFmt}},
		{&s.number, &excelize.Style{NumFmt: 0}},
		{&s.time, &excelize.Style{CustomNumFmt: &timeFmt}},
		// Text columns are formatted "@" so that Excel keeps ids and order
		// numbers as typed (no 2.02E+19, no lost leading zeros).
		{&s.text, &excelize.Style{NumFmt: 49}},
		{&s.helpText, &excelize.Style{Alignment: &excelize.Alignment{Vertical: "top", WrapText: true}}},
	}
	for _, d := range defs {
		id, err := f.NewStyle(d.style)
		if err != nil {
			return s, fmt.Errorf("template: xlsx style: %w", err)
		}
		*d.dst = id
	}
	return s, nil
}

// WriteTemplateXLSX writes the gpubill template as an XLSX workbook in
// language lang ("zh" or "en"): sheet 1 费用明细 / bill_lines and sheet 2
// 收支明细 / money_flow each hold a bold, frozen header row (required columns
// in red, each header with a comment explaining it) and one example row;
// sheet 3 说明 / help has one row per column of both tables. Coded columns
// carry drop-down lists on rows 2–1000 (Chinese names for zh, English slugs
// for en); other spellings the reader accepts only raise a warning. Amount
// columns are formatted 0.00######, time columns yyyy-mm-dd hh:mm:ss (the
// example times are real date-time cells, as the user's typed times become),
// text columns "@".
func WriteTemplateXLSX(w io.Writer, lang string) error {
	if err := tmplCheckLang(lang); err != nil {
		return err
	}
	return tmplWriteXLSX(w, lang, tmplTables())
}

func tmplWriteXLSX(w io.Writer, lang string, tables []tmplTable) error {
	f := excelize.NewFile()
	defer f.Close()
	st, err := tmplNewStyles(f)
	if err != nil {
		return err
	}
	helpSheet := "help"
	if lang == "zh" {
		helpSheet = "说明"
	}
	for i, t := range tables {
		if i == 0 {
			err = f.SetSheetName("Sheet1", t.sheet(lang))
		} else {
			_, err = f.NewSheet(t.sheet(lang))
		}
		if err != nil {
			return fmt.Errorf("template: xlsx sheet %s: %w", t.sheet(lang), err)
		}
	}
	if _, err := f.NewSheet(helpSheet); err != nil {
		return fmt.Errorf("template: xlsx sheet %s: %w", helpSheet, err)
	}
	if err := tmplWriteHelp(f, helpSheet, lang, tables, st); err != nil {
		return err
	}
	lists := &tmplLists{f: f, sheet: helpSheet, lang: lang, cols: map[string]string{}, next: tmplHelpListCol}
	for _, t := range tables {
		if err := tmplWriteDataSheet(f, t, lang, st, lists); err != nil {
			return err
		}
	}
	f.SetActiveSheet(0)
	if err := f.SetDocProps(&excelize.DocProperties{Title: "gpubill template", Creator: "gpubill",
		Description: "gpubill bill template / gpubill 账单模板"}); err != nil {
		return fmt.Errorf("template: xlsx properties: %w", err)
	}
	if _, err := f.WriteTo(w); err != nil {
		return fmt.Errorf("template: write xlsx: %w", err)
	}
	return nil
}

func tmplCell(col, row int) string {
	name, err := excelize.CoordinatesToCellName(col, row)
	if err != nil {
		// Only reachable with a column beyond XFD, which the template never has.
		panic(fmt.Sprintf("template: cell %d,%d: %v", col, row, err))
	}
	return name
}

func tmplColName(col int) string {
	name, err := excelize.ColumnNumberToName(col)
	if err != nil {
		panic(fmt.Sprintf("template: column %d: %v", col, err))
	}
	return name
}

// tmplWidth is the display width of s in Excel column units (CJK counts two).
func tmplWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		if r >= 0x2E80 || r == '·' {
			w += 2
		} else {
			w++
		}
	}
	return w
}

func tmplWriteDataSheet(f *excelize.File, t tmplTable, lang string, st tmplStyles, lists *tmplLists) error {
	sheet := t.sheet(lang)
	wrap := func(err error) error { return fmt.Errorf("template: xlsx sheet %s: %w", sheet, err) }
	for i, c := range t.cols {
		col := i + 1
		colName := tmplColName(col)
		header, example := tmplHeader(c, lang), tmplExample(t, c, lang)

		dataStyle := st.text
		switch {
		case tmplMoneyFields[c.Field]:
			dataStyle = st.money
		case tmplNumberFields[c.Field]:
			dataStyle = st.number
		case tmplTimeFields[c.Field]:
			dataStyle = st.time
		}
		if err := f.SetColStyle(sheet, colName, dataStyle); err != nil {
			return wrap(err)
		}
		width := max(tmplWidth(header), tmplWidth(example), 8) + 3
		if tmplTimeFields[c.Field] {
			width = max(width, 21)
		}
		if err := f.SetColWidth(sheet, colName, colName, min(width, 40)); err != nil {
			return wrap(err)
		}

		hcell := tmplCell(col, 1)
		if err := f.SetCellStr(sheet, hcell, header); err != nil {
			return wrap(err)
		}
		hs := st.header
		if c.Required {
			hs = st.headerRequired
		}
		if err := f.SetCellStyle(sheet, hcell, hcell, hs); err != nil {
			return wrap(err)
		}
		if err := f.AddComment(sheet, tmplComment(c, hcell, lang)); err != nil {
			return wrap(err)
		}

		if example != "" {
			if err := tmplSetExample(f, sheet, tmplCell(col, 2), c, example, dataStyle); err != nil {
				return wrap(err)
			}
		}

		if codes := TemplateCodes(c, lang); len(codes) > 0 {
			if err := lists.add(sheet, fmt.Sprintf("%s2:%s%d", colName, colName, tmplLastRow), c, codes); err != nil {
				return wrap(err)
			}
		}
	}
	if err := f.SetRowHeight(sheet, 1, 20); err != nil {
		return wrap(err)
	}
	if err := f.SetPanes(sheet, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft",
		Selection: []excelize.Selection{{SQRef: "A2", ActiveCell: "A2", Pane: "bottomLeft"}}}); err != nil {
		return wrap(err)
	}
	return nil
}

// tmplSetExample writes one example cell: numbers as number cells holding
// the exact decimal text (no float64 on the way), times as date-time cells,
// everything else as text.
func tmplSetExample(f *excelize.File, sheet, cell string, c TemplateColumn, v string, style int) error {
	var err error
	switch {
	case tmplMoneyFields[c.Field] || tmplNumberFields[c.Field]:
		err = f.SetCellDefault(sheet, cell, v)
	case tmplTimeFields[c.Field]:
		// The example is a naive Beijing wall-clock time; it is written as that
		// wall clock (excelize converts from UTC), like a time typed into Excel.
		tm, perr := time.ParseInLocation(tmplTimeLayout, v, time.UTC)
		if perr != nil {
			return fmt.Errorf("example %s %q: %w", c.Field, v, perr)
		}
		err = f.SetCellValue(sheet, cell, tm)
	default:
		err = f.SetCellStr(sheet, cell, v)
	}
	if err != nil {
		return err
	}
	return f.SetCellStyle(sheet, cell, cell, style)
}

func tmplComment(c TemplateColumn, cell, lang string) excelize.Comment {
	var runs []excelize.RichTextRun
	if c.Required {
		tag := "必填。"
		if lang == "en" {
			tag = "Required. "
		}
		runs = append(runs, excelize.RichTextRun{Text: tag, Font: &excelize.Font{Bold: true, Color: "C00000"}})
	}
	runs = append(runs, excelize.RichTextRun{Text: tmplHelp(c, lang)})
	return excelize.Comment{Cell: cell, Author: "gpubill", Paragraph: runs, Width: 240, Height: 80}
}

// tmplLists adds drop-down lists. A list whose literal form fits Excel's
// 255-character limit (and holds no comma or quote) is written into the
// validation itself, which survives the help sheet being deleted; a longer
// one is written into a column of the help sheet (from column J on, one
// column per distinct list) and referenced as a range.
type tmplLists struct {
	f     *excelize.File
	sheet string
	lang  string
	cols  map[string]string // joined list → its range on the help sheet
	next  int
}

func (l *tmplLists) add(sheet, sqref string, c TemplateColumn, codes []string) error {
	dv := excelize.NewDataValidation(true)
	dv.SetSqref(sqref)
	literal := true
	for _, v := range codes {
		if strings.ContainsAny(v, ",\"") {
			literal = false
		}
	}
	if literal {
		if err := dv.SetDropList(codes); err != nil {
			literal = false
		}
	}
	if !literal {
		ref, err := l.rangeFor(c, codes)
		if err != nil {
			return err
		}
		dv.SetSqrefDropList(ref)
	}
	// A warning, not a stop: the reader accepts more spellings than the list
	// offers (数据盘, 带宽, English slugs …).
	if l.lang == "zh" {
		dv.SetError(excelize.DataValidationErrorStyleWarning, "不在下拉列表中",
			"这个值不在“"+c.ZH+"”的下拉列表中。gpubill 也接受说明页列出的其他写法；确定要保留吗？")
	} else {
		dv.SetError(excelize.DataValidationErrorStyleWarning, "Not in the list",
			"This value is not in the "+c.Field+" list. gpubill accepts the other spellings listed on the help sheet; keep it?")
	}
	return l.f.AddDataValidation(sheet, dv)
}

func (l *tmplLists) rangeFor(c TemplateColumn, codes []string) (string, error) {
	key := strings.Join(codes, "\x00")
	if ref, ok := l.cols[key]; ok {
		return ref, nil
	}
	col := l.next
	l.next++
	title := "下拉列表：" + c.ZH
	if l.lang == "en" {
		title = "drop-down: " + c.Field
	}
	if err := l.f.SetCellStr(l.sheet, tmplCell(col, 1), title); err != nil {
		return "", fmt.Errorf("help sheet list %s: %w", c.Field, err)
	}
	for i, v := range codes {
		if err := l.f.SetCellStr(l.sheet, tmplCell(col, i+2), v); err != nil {
			return "", fmt.Errorf("help sheet list %s: %w", c.Field, err)
		}
	}
	name := tmplColName(col)
	if err := l.f.SetColWidth(l.sheet, name, name, 18); err != nil {
		return "", fmt.Errorf("help sheet list %s: %w", c.Field, err)
	}
	ref := fmt.Sprintf("'%s'!$%s$2:$%s$%d", l.sheet, name, name, len(codes)+1)
	l.cols[key] = ref
	return ref, nil
}

// tmplHelpHeader is the header row of the help sheet.
func tmplHelpHeader(lang string) []string {
	if lang == "zh" {
		return []string{"表", "中文表头", "英文表头", "必填", "含义", "含义（英文）", "示例", "可选值（下拉列表）"}
	}
	return []string{"table", "Chinese header", "English header", "required", "meaning", "meaning (Chinese)", "example", "allowed values (drop-down)"}
}

// tmplHelpNotes are the notes below the help table.
func tmplHelpNotes(lang string) []string {
	if lang == "zh" {
		return []string{
			"红色表头为必填列；表头可用中文或英文，列的顺序随意，多余的列会原样保留。",
			"第 2 行是示例，导入前请删除或改写，否则它会作为一笔真实费用导入。",
			"时间为北京时间，如 2026-10-03 14:00:00；也接受 2026/10/3 14:00、2026年10月3日 14:00。",
			"金额可写 1.88、¥1,234.56、1234.56元、(1.20)；空白、- 或 -- 表示未知（不是 0）。",
			"下拉列表之外，gpubill 也接受“含义”中列出的其他写法和英文代号。",
		}
	}
	return []string{
		"Red headers are required; headers may be Chinese or English, in any order; extra columns are kept.",
		"Row 2 is an example: delete or overwrite it before importing, or it is imported as a real charge.",
		"Times are Beijing time, e.g. 2026-10-03 14:00:00; 2026/10/3 14:00 and ISO 8601 with offset work too.",
		"Amounts may be written 1.88, ¥1,234.56, 1234.56元, (1.20); empty, - or -- means unknown (not 0).",
		"Besides the drop-down values, gpubill accepts the other spellings in the meaning column and the Chinese names.",
	}
}

func tmplWriteHelp(f *excelize.File, sheet, lang string, tables []tmplTable, st tmplStyles) error {
	wrap := func(err error) error { return fmt.Errorf("template: xlsx sheet %s: %w", sheet, err) }
	header := tmplHelpHeader(lang)
	for i, h := range header {
		if err := f.SetCellStr(sheet, tmplCell(i+1, 1), h); err != nil {
			return wrap(err)
		}
	}
	if err := f.SetCellStyle(sheet, "A1", tmplCell(len(header), 1), st.header); err != nil {
		return wrap(err)
	}
	yes, no, sep := "是", "否", "、"
	if lang == "en" {
		yes, no, sep = "yes", "no", ", "
	}
	other := map[string]string{"zh": "en", "en": "zh"}[lang]
	row := 2
	for _, t := range tables {
		for _, c := range t.cols {
			req := no
			if c.Required {
				req = yes
			}
			cells := []string{t.sheet(lang), c.ZH, c.Field, req, tmplHelp(c, lang), tmplHelp(c, other),
				tmplExample(t, c, lang), strings.Join(TemplateCodes(c, lang), sep)}
			for i, v := range cells {
				if err := f.SetCellStr(sheet, tmplCell(i+1, row), v); err != nil {
					return wrap(err)
				}
			}
			row++
		}
	}
	if err := f.SetCellStyle(sheet, "A2", tmplCell(len(header), row-1), st.helpText); err != nil {
		return wrap(err)
	}
	row++ // one blank row
	for _, n := range tmplHelpNotes(lang) {
		if err := f.SetCellStr(sheet, tmplCell(1, row), n); err != nil {
			return wrap(err)
		}
		row++
	}
	widths := []float64{12, 14, 20, 8, 48, 48, 22, 40}
	for i, wd := range widths {
		c := tmplColName(i + 1)
		if err := f.SetColWidth(sheet, c, c, wd); err != nil {
			return wrap(err)
		}
	}
	if err := f.SetPanes(sheet, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft",
		Selection: []excelize.Selection{{SQRef: "A2", ActiveCell: "A2", Pane: "bottomLeft"}}}); err != nil {
		return wrap(err)
	}
	return nil
}

package packet

import (
	"archive/zip"
	"compress/flate"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"
	"golang.org/x/sync/errgroup"

	"github.com/gpubill/gpubill/internal/xlsxcell"
	"github.com/gpubill/gpubill/money"
	"github.com/gpubill/gpubill/platform"
	"github.com/gpubill/gpubill/reports"
)

// Sheet names of the workbook, in order.
const (
	SheetCover      = "封面"
	SheetLines      = "明细"
	SheetInvoices   = "发票清单"
	SheetExceptions = "异常"
)

// Columns of 明细 (1-based), which the cover's formulas refer to. With
// InvoicedOnly a column 未开票 (not invoiced) comes before 报销金额, and the
// columns from 报销金额 on move one to the right (Packet.colClaimed).
const (
	colProvider = 1  // A
	colCurrency = 9  // I
	colBilled   = 10 // J
	colNotInv   = 11 // K
	colCash     = 12 // L
	colDisputed = 13 // M
)

var lineHeaders = []string{"平台 Platform", "账号 Account", "项目 Project", "实例ID Resource ID", "实例名称 Name",
	"费用类型 Kind", "开始 Start", "结束 End", "币种 Currency", "应付金额 Billed", "不可报销 Vouchers/credits",
	"现金支付 Cash paid", "争议金额 Disputed", "报销金额 Claimed", "状态 Status", "发票号码 Invoices",
	"来源文件 Source file", "行 Row"}

const headerNotInvoiced = "未开票 Not invoiced"

// colNotInvoiced is the column of 未开票 on 明细, 0 without InvoicedOnly.
func (p *Packet) colNotInvoiced() int {
	if p.InvoicedOnly {
		return colDisputed + 1
	}
	return 0
}

// colClaimed is the column of 报销金额 on 明细.
func (p *Packet) colClaimed() int { return colDisputed + 1 + min(p.colNotInvoiced(), 1) }

// lineHeaders are the headers of 明细.
func (p *Packet) lineHeaders() []string {
	if !p.InvoicedOnly {
		return lineHeaders
	}
	h := append([]string{}, lineHeaders[:colDisputed]...)
	return append(append(h, headerNotInvoiced), lineHeaders[colDisputed:]...)
}

// moneyCols are the money columns of 明细, in order.
func (p *Packet) moneyCols() []int {
	cols := []int{colBilled, colNotInv, colCash, colDisputed}
	if c := p.colNotInvoiced(); c > 0 {
		cols = append(cols, c)
	}
	return append(cols, p.colClaimed())
}

var invoiceHeaders = []string{"平台 Platform", "发票号码 Number", "开票日期 Date", "币种 Currency", "发票金额 Amount",
	"本月计入 For this month", "所属期间 Period", "抬头 Title", "说明 Note"}

var exceptionHeaders = []string{"平台 Platform", "类型 Rule", "状态 State", "实例ID Resource ID", "币种 Currency",
	"争议金额 Disputed", "处理 Treatment", "原因 Reason", "来源文件 Source file", "行 Row", "指纹 Fingerprint"}

var coverHeaders = []string{"平台 Platform", "币种 Currency", "应付金额 Billed", "不可报销 Vouchers/gifts",
	"可开票 Invoiceable (cash)", "争议金额 Disputed", "报销金额 Claimed", "已开票 Invoiced", "待索取 To request"}

// coverHeaders are the headers of the cover's totals, with 未开票 before
// 报销金额 under InvoicedOnly.
func (p *Packet) coverHeaders() []string {
	if !p.InvoicedOnly {
		return coverHeaders
	}
	h := append([]string{}, coverHeaders[:6]...)
	return append(append(h, headerNotInvoiced), coverHeaders[6:]...)
}

// Number formats.
const (
	fmtMoney = "#,##0.00"
	fmtTime  = "yyyy-mm-dd hh:mm"
)

// xw is a workbook under construction. Every sheet is written twice by
// its function (lines, cover, invoices, exceptions): a first pass only
// measures the text of every cell for the column widths, which a streamed
// sheet must declare before its first row (明细's line rows were measured
// by Build already, so that the month is read once here); the second
// writes the cells
// through excelize's StreamWriter, row by row, so that a month of hundreds
// of thousands of line items is never held as a workbook in memory (the
// stream spills to a temporary file).
type xw struct {
	f       *excelize.File
	p       *Packet
	styles  map[styleKey]int
	widths  map[string][]int // per sheet, display width per column
	measure bool             // the first pass: widths only
	refs    *styleRefs       // styles named, not made (streamLines' worker)
	memos   []textMemo       // by column (see text)
	out     *sheetOut        // the sheet being written in the second pass
	layout  map[string]sheetLayout
}

// sheetLayout is what finish records of a sheet in the first pass, for the
// second to set before its first row.
type sheetLayout struct {
	headerRow int
	landscape bool
	maxWidth  int
}

// sheetOut is a sheet being streamed: its cells wait in rows until flush
// writes them in order.
type sheetOut struct {
	name    string
	sw      *excelize.StreamWriter
	rows    map[int][]any
	heights map[int]float64
	merges  [][2]string
	written int // rows up to this one are written
	cols    int // the most cells a row has had
}

// styleKey names a cell style of the workbook.
type styleKey struct {
	numFmt string
	bold   bool
	fill   string
	wrap   bool
}

// style returns a cell style: number format ("" = general), bold, fill
// colour ("" = none), wrap.
func (x *xw) style(numFmt string, bold bool, fill string, wrap bool) (int, error) {
	key := styleKey{numFmt, bold, fill, wrap}
	if x.refs != nil {
		id, ok := x.refs.ids[key]
		if !ok {
			id = -1 - len(x.refs.keys)
			x.refs.ids[key] = id
			x.refs.keys = append(x.refs.keys, key)
		}
		return id, nil
	}
	if id, ok := x.styles[key]; ok {
		return id, nil
	}
	st := &excelize.Style{Alignment: &excelize.Alignment{Vertical: "top", WrapText: wrap}}
	if numFmt != "" {
		nf := numFmt
		st.CustomNumFmt = &nf
	}
	if bold {
		st.Font = &excelize.Font{Bold: true}
	}
	if fill != "" {
		st.Fill = excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{fill}}
	}
	id, err := x.f.NewStyle(st)
	if err != nil {
		return 0, err
	}
	x.styles[key] = id
	return id, nil
}

// cellOpts say how a cell looks.
type cellOpts struct {
	bold  bool
	fill  string
	spill bool // long text that may spill over the empty cells to its right: no say in the column width
	wrap  bool // wrapped at its line breaks; the widest line sets the width
}

func (x *xw) width(sheet string, col int, shown string) {
	if !x.measure {
		return
	}
	for line := range strings.SplitSeq(shown, "\n") {
		x.widthN(sheet, col, runewidth.StringWidth(line))
	}
}

// textMemo is the last text of a column and what text made of it: down
// 明细, the lines of a resource repeat most of their text, which is then
// neutralised and measured once.
type textMemo struct {
	sheet, in, out string
	ok, measured   bool // measured: out's width is recorded
}

// memo is the textMemo of col on sheet.
func (x *xw) memo(sheet string, col int) *textMemo {
	for len(x.memos) < col {
		x.memos = append(x.memos, textMemo{})
	}
	m := &x.memos[col-1]
	if m.sheet != sheet {
		*m = textMemo{sheet: sheet}
	}
	return m
}

// widthN records that a cell of col needs n display columns.
func (x *xw) widthN(sheet string, col, n int) {
	w := x.widths[sheet]
	for len(w) < col {
		w = append(w, 0)
	}
	w[col-1] = max(w[col-1], n)
	x.widths[sheet] = w
}

// put sets the cell at col, row of the sheet being written to value (nil:
// no value, only the style) in the look of o and number format numFmt.
// A cell without value and style is left out.
func (x *xw) put(col, row int, value any, formula, numFmt string, o cellOpts) error {
	if x.measure {
		return nil
	}
	id := 0
	if numFmt != "" || o.bold || o.fill != "" || o.wrap {
		var err error
		if id, err = x.style(numFmt, o.bold, o.fill, o.wrap); err != nil {
			return err
		}
	}
	if value == nil && formula == "" && id == 0 {
		return nil
	}
	return x.setCell(col, row, excelize.Cell{StyleID: id, Value: value, Formula: formula})
}

// setCell places c at col, row of the sheet being written.
func (x *xw) setCell(col, row int, c excelize.Cell) error {
	o := x.out
	if row <= o.written {
		return fmt.Errorf("row %d written already (internal error)", row)
	}
	r := o.rows[row]
	if len(r) < col {
		// A row is made as wide as the widest so far at once: grown a
		// cell at a time, 明细's rows took a tenth of a packet's memory.
		if cap(r) < col {
			r = append(make([]any, 0, max(col, o.cols)), r...)
		}
		r = r[:col]
	}
	o.cols = max(o.cols, col)
	r[col-1] = c
	o.rows[row] = r
	return nil
}

// cellStyle sets the style of a cell placed already.
func (x *xw) cellStyle(col, row, style int) {
	if x.measure {
		return
	}
	if r := x.out.rows[row]; col <= len(r) {
		if c, ok := r[col-1].(excelize.Cell); ok {
			c.StyleID = style
			r[col-1] = c
		}
	}
}

// rowHeight sets the height of a row, in points.
func (x *xw) rowHeight(row int, h float64) {
	if !x.measure {
		x.out.heights[row] = h
	}
}

// merge merges the cells from to (A1 references).
func (x *xw) merge(from, to string) {
	if !x.measure {
		x.out.merges = append(x.out.merges, [2]string{from, to})
	}
}

// flush writes the rows before row (every row when row is 0) of the sheet
// being written, in order.
func (x *xw) flush(row int) error {
	o := x.out
	if x.measure || len(o.rows) == 0 {
		return nil
	}
	nums := make([]int, 0, len(o.rows))
	for r := range o.rows {
		if row == 0 || r < row {
			nums = append(nums, r)
		}
	}
	slices.Sort(nums)
	for _, r := range nums {
		ref, _ := excelize.CoordinatesToCellName(1, r)
		var opts []excelize.RowOpts
		if h, ok := o.heights[r]; ok {
			opts = append(opts, excelize.RowOpts{Height: h})
		}
		if err := o.sw.SetRow(ref, o.rows[r], opts...); err != nil {
			return err
		}
		delete(o.rows, r)
		o.written = r
	}
	return nil
}

// text writes bill or report text, neutralised (see safeText).
func (x *xw) text(sheet string, col, row int, s string, o cellOpts) error {
	m := x.memo(sheet, col)
	if !m.ok || m.in != s {
		*m = textMemo{sheet: sheet, in: s, out: safeText(s), ok: true}
	}
	s = m.out
	switch {
	case o.spill:
		x.width(sheet, col, "")
	case !m.measured:
		x.width(sheet, col, s)
		m.measured = x.measure
	}
	var v any
	if s != "" {
		v = s
	}
	return x.put(col, row, v, "", "", o)
}

// number is the cell value of the exact amount d. Excel keeps every number
// as an IEEE double, and excelize's stream writer takes numbers as float64
// and writes them in strconv's shortest form that reads back as the same
// double: a decimal of at most 15 significant digits (any amount at the fen
// below 10^13, any serial date) comes out as its own digits. A longer one
// is checked, so the cell holds exactly d, never a neighbour of it.
func number(d decimal.Decimal) (float64, error) {
	f, _ := d.Float64()
	if d.NumDigits() <= 15 {
		return f, nil
	}
	back, err := decimal.NewFromString(strconv.FormatFloat(f, 'f', -1, 64))
	if err != nil || !back.Equal(d) {
		return 0, fmt.Errorf("the amount %s has more digits than a spreadsheet number keeps", money.String(d))
	}
	return f, nil
}

// money writes an amount as a number with the money format. The packet
// passes printed amounts, already at the minor unit.
func (x *xw) money(sheet string, col, row int, d decimal.Decimal, o cellOpts) error {
	return x.moneyFormula(sheet, col, row, "", d, o)
}

// formula writes a formula whose cached value is the exact amount d.
func (x *xw) formula(sheet string, col, row int, formula string, d decimal.Decimal, o cellOpts) error {
	return x.moneyFormula(sheet, col, row, formula, d, o)
}

func (x *xw) moneyFormula(sheet string, col, row int, formula string, d decimal.Decimal, o cellOpts) error {
	if x.measure {
		x.widthN(sheet, col, shownMoneyWidth(d))
		return nil
	}
	v, err := number(d)
	if err != nil {
		return err
	}
	return x.put(col, row, v, formula, fmtMoney, o)
}

// timeCell writes t as an Excel date-time in the packet's zone.
func (x *xw) timeCell(sheet string, col, row int, t time.Time) error {
	if t.IsZero() {
		return nil
	}
	x.width(sheet, col, "2006-01-02 15:04")
	if x.measure {
		return nil
	}
	return x.put(col, row, xlsxcell.SerialNumber(t.In(x.p.TZ)), "", fmtTime, cellOpts{})
}

func (x *xw) intCell(sheet string, col, row, n int) error {
	x.width(sheet, col, fmt.Sprint(n))
	return x.put(col, row, int64(n), "", "", cellOpts{})
}

// rowCell writes where a line is in its file: a number for a text file's
// row, text for a sheet's (Sheet!row) or a record number.
func (x *xw) rowCell(sheet string, col, row int, r RowRef) error {
	if r.Row > 0 && r.Sheet == "" {
		return x.intCell(sheet, col, row, r.Row)
	}
	return x.text(sheet, col, row, r.String(), cellOpts{})
}

func (x *xw) header(sheet string, row int, titles []string) error {
	for i, h := range titles {
		if err := x.text(sheet, i+1, row, h, cellOpts{bold: true, fill: "D9E1F2"}); err != nil {
			return err
		}
	}
	return nil
}

// header2 writes a header row whose titles ("中文 English") wrap onto two
// lines, Chinese above English, so that narrow money columns still show
// their whole header; the row is made two lines high.
func (x *xw) header2(sheet string, row int, titles []string) error {
	for i, h := range titles {
		if zh, en, ok := strings.Cut(h, " "); ok {
			h = zh + "\n" + en
		}
		// Our own text: written as it is (safeText would turn the line
		// break into a space).
		x.width(sheet, i+1, h)
		if err := x.put(i+1, row, h, "", "", cellOpts{bold: true, fill: "D9E1F2", wrap: true}); err != nil {
			return err
		}
	}
	x.rowHeight(row, 30)
	return nil
}

// WriteXLSX writes the packet as an XLSX workbook with the sheets 封面,
// 明细, 发票清单 and 异常. The same packet gives the same bytes.
func (p *Packet) WriteXLSX(w io.Writer) error {
	f := excelize.NewFile()
	defer f.Close()
	x := &xw{f: f, p: p, styles: map[styleKey]int{}, widths: map[string][]int{}, layout: map[string]sheetLayout{}}
	if err := f.SetSheetName("Sheet1", SheetCover); err != nil {
		return fmt.Errorf("packet: xlsx: %w", err)
	}
	for _, s := range []string{SheetLines, SheetInvoices, SheetExceptions} {
		if _, err := f.NewSheet(s); err != nil {
			return fmt.Errorf("packet: xlsx: %w", err)
		}
	}
	// Before the sheets are streamed: setting the active sheet reads every
	// worksheet, and would read a streamed one back whole.
	f.SetActiveSheet(0)
	for _, step := range []struct {
		sheet string
		fn    func() error
	}{
		{SheetLines, x.lines}, {SheetCover, x.cover}, {SheetInvoices, x.invoices}, {SheetExceptions, x.exceptions},
	} {
		if err := x.sheet(step.sheet, step.fn); err != nil {
			return fmt.Errorf("packet: xlsx sheet %s: %w", step.sheet, err)
		}
	}
	if err := f.SetDocProps(&excelize.DocProperties{
		Title:          "报销材料 " + p.Month,
		Creator:        "gpubill",
		LastModifiedBy: "gpubill",
		Description:    "由 gpubill 生成 / generated by gpubill",
		Language:       "zh-CN",
		Created:        "2000-01-01T00:00:00Z",
		Modified:       "2000-01-01T00:00:00Z",
	}); err != nil {
		return fmt.Errorf("packet: xlsx: %w", err)
	}
	full := true
	if err := f.SetCalcProps(&excelize.CalcPropsOptions{FullCalcOnLoad: &full}); err != nil {
		return fmt.Errorf("packet: xlsx: %w", err)
	}
	// Formula cells hold numeric cached values already: the stream writer
	// types a cell by its value. The package goes to a temporary file
	// first, whose members are then copied to w in name order.
	tmp, err := os.CreateTemp("", "gpubill-packet-*.xlsx")
	if err != nil {
		return fmt.Errorf("packet: xlsx: %w", err)
	}
	// Its name goes at once where the system allows it (nothing is left
	// behind by a killed process), else after use.
	os.Remove(tmp.Name())
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	f.SetZipWriter(packetZip)
	if err := f.Write(tmp); err != nil {
		return fmt.Errorf("packet: xlsx: %w", err)
	}
	if err := sortedZip(w, tmp); err != nil {
		return fmt.Errorf("packet: xlsx: %w", err)
	}
	return nil
}

// deflateLevel is the compression of the workbook's members. archive/zip
// deflates at level 5: for a big month's 明细 (250 MB of sheet XML) that
// was a fifth of the packet's time, spent after every sheet was written.
// Level 2 takes half as long, for a package about a fifth larger.
const deflateLevel = 2

// packetZip is the zip writer excelize writes the package with, deflating
// at deflateLevel.
func packetZip(w io.Writer) excelize.ZipWriter {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, deflateLevel)
	})
	return zw
}

// sortedZip copies the zip package data to w with its members in name
// order: excelize writes streamed sheets in the order of a map, and the
// same packet must give the same bytes. Members are copied compressed, as
// they are (zip.Writer.Copy).
func sortedZip(w io.Writer, f *os.File) error {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(f, size)
	if err != nil {
		return err
	}
	files := slices.Clone(zr.File)
	slices.SortFunc(files, func(a, b *zip.File) int { return strings.Compare(a.Name, b.Name) })
	zw := zip.NewWriter(w)
	for _, zf := range files {
		if err := zw.Copy(zf); err != nil {
			return err
		}
	}
	return zw.Close()
}

// sheet writes one sheet with fn: a pass that measures, then one that
// streams the cells (see xw).
func (x *xw) sheet(name string, fn func() error) error {
	x.measure = true
	if err := fn(); err != nil {
		return err
	}
	x.measure = false
	// The sheet's properties go out when the stream starts.
	fit := true
	if err := x.f.SetSheetProps(name, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
		return err
	}
	sw, err := x.f.NewStreamWriter(name)
	if err != nil {
		return err
	}
	x.out = &sheetOut{name: name, sw: sw, rows: map[int][]any{}, heights: map[int]float64{}}
	lo := x.layout[name]
	for i, w := range x.widths[name] {
		// Bold CJK text is wider than its display width in digit units in
		// LibreOffice's fonts: a tenth more, plus padding.
		if err := sw.SetColWidth(i+1, i+1, float64(min(max(w+w/10+2, 6), lo.maxWidth))); err != nil {
			return err
		}
	}
	if lo.headerRow > 0 {
		top := fmt.Sprintf("A%d", lo.headerRow+1)
		if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: lo.headerRow, TopLeftCell: top, ActivePane: "bottomLeft",
			Selection: []excelize.Selection{{SQRef: top, ActiveCell: top, Pane: "bottomLeft"}}}); err != nil {
			return err
		}
	}
	if err := fn(); err != nil {
		return err
	}
	if err := x.flush(0); err != nil {
		return err
	}
	for _, m := range x.out.merges {
		if err := sw.MergeCell(m[0], m[1]); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	x.out = nil
	return nil
}

// finish records a sheet's layout in the first pass (see sheet) and sets
// its print setup in the second, before the stream is flushed: A4,
// orientation, fit to one page wide (sheet sets fit to page), header row
// repeated on every page, page numbers in the footer. The page setup lives
// in the worksheet's own settings, which the stream writer writes after
// the rows.
func (x *xw) finish(sheet string, headerRow int, landscape bool, maxWidth int) error {
	return x.finishWide(sheet, headerRow, landscape, maxWidth, 1, 0)
}

// finishWide is finish for a sheet too wide for one page: it fits to
// pagesWide pages across and repeats its first keyCols columns (what
// names a row) on each of them.
func (x *xw) finishWide(sheet string, headerRow int, landscape bool, maxWidth, pagesWide, keyCols int) error {
	if x.measure {
		x.layout[sheet] = sheetLayout{headerRow: headerRow, landscape: landscape, maxWidth: maxWidth}
		return nil
	}
	f := x.f
	if headerRow > 0 {
		titles := fmt.Sprintf("'%s'!$%d:$%d", sheet, headerRow, headerRow)
		if keyCols > 0 {
			last, err := excelize.ColumnNumberToName(keyCols)
			if err != nil {
				return err
			}
			titles = fmt.Sprintf("'%s'!$A:$%s,", sheet, last) + titles
		}
		if err := f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Titles", Scope: sheet,
			RefersTo: titles}); err != nil {
			return err
		}
	}
	size, orient, zero := 9, "portrait", 0 // 9 = A4
	if landscape {
		orient = "landscape"
	}
	if err := f.SetPageLayout(sheet, &excelize.PageLayoutOptions{Size: &size, Orientation: &orient, FitToWidth: &pagesWide, FitToHeight: &zero}); err != nil {
		return err
	}
	m := 0.5
	if err := f.SetPageMargins(sheet, &excelize.PageLayoutMarginsOptions{Left: &m, Right: &m, Top: &m, Bottom: &m}); err != nil {
		return err
	}
	return f.SetHeaderFooter(sheet, &excelize.HeaderFooterOptions{
		OddHeader: "&L" + "gpubill 报销材料 " + x.p.Month + "&R" + sheet,
		OddFooter: "&C&P / &N",
	})
}

// linesLast is the last data row of 明细 (the header is row 1); at least 2,
// so that formulas over an empty sheet still name a range.
func (p *Packet) linesLast() int { return max(p.LineCount+1, 2) }

// lines writes 明细: one row per line item, then one total row per currency.
func (x *xw) lines() error {
	s, p := SheetLines, x.p
	heads := p.lineHeaders()
	if err := x.header(s, 1, heads); err != nil {
		return err
	}
	if x.measure {
		// Build measured the lines as it worked them out (see
		// Packet.lineWidths): no pass over the month here.
		w := x.widths[s]
		for len(w) < len(p.lineWidths) {
			w = append(w, 0)
		}
		for i, n := range p.lineWidths {
			w[i] = max(w[i], n)
		}
		x.widths[s] = w
	} else if err := x.streamLines(); err != nil {
		return err
	}
	if p.LineCount == 0 {
		if err := x.text(s, 1, 2, "本月没有账单明细 / no line items this month", cellOpts{}); err != nil {
			return err
		}
	} else if !x.measure {
		last := p.linesLast()
		end, _ := excelize.CoordinatesToCellName(len(heads), last)
		if err := x.f.AutoFilter(s, "A1:"+end, nil); err != nil {
			return err
		}
	}
	// Totals: one row per currency, after a blank row.
	row := p.linesLast() + 2
	single := len(p.Claims) == 1
	for _, c := range p.Claims {
		if err := x.text(s, 1, row, "合计 Total", cellOpts{bold: true}); err != nil {
			return err
		}
		if err := x.text(s, colCurrency, row, c.Currency, cellOpts{bold: true}); err != nil {
			return err
		}
		for _, col := range p.moneyCols() {
			sum := p.lineSum(c.Currency, col)
			if err := x.formula(s, col, row, p.linesFormula(col, row, single), sum, cellOpts{bold: true}); err != nil {
				return err
			}
		}
		row++
	}
	// 尾差: where a column's exact total, at the minor unit, differs from
	// the sum of its printed lines, by how much.
	for _, c := range p.Claims {
		diffs := map[int]decimal.Decimal{}
		for _, col := range p.moneyCols() {
			if d := reports.RoundMoney(p.amount(p.exact[c.Currency], col), c.Currency).Sub(p.lineSum(c.Currency, col)); !d.IsZero() {
				diffs[col] = d
			}
		}
		if len(diffs) == 0 {
			continue
		}
		if err := x.text(s, 1, row, roundingLabel, cellOpts{spill: true}); err != nil {
			return err
		}
		if err := x.text(s, colCurrency, row, c.Currency, cellOpts{}); err != nil {
			return err
		}
		for _, col := range p.moneyCols() {
			if d, ok := diffs[col]; ok {
				if err := x.money(s, col, row, d, cellOpts{}); err != nil {
					return err
				}
			}
		}
		row++
	}
	// 18 columns on one A4 page print too small to read: two pages
	// across, each naming the row by platform, account, project and
	// resource.
	return x.finishWide(s, 1, true, 40, 2, 4)
}

// lineBatch is a run of 明细's line rows, from row first on, and the
// styles they name first (see styleRefs).
type lineBatch struct {
	first int
	rows  [][]any
	keys  []styleKey
}

// styleRefs stands in for the workbook's styles in streamLines' worker: a
// style is named, not made, as StyleID -1-i for keys[i]. The writer makes
// them in the order the rows first use them, as one pass would, so that
// the workbook is the same.
type styleRefs struct {
	ids  map[styleKey]int
	keys []styleKey
}

// streamLines streams 明细's line rows, after its header. The rows take
// most of a packet's time: one goroutine works out each line and its cells
// while this one makes their styles and hands them to the stream writer.
func (x *xw) streamLines() error {
	if err := x.flush(0); err != nil {
		return err
	}
	batches := make(chan lineBatch, 4)
	g, ctx := errgroup.WithContext(context.Background())
	g.Go(func() error {
		defer close(batches)
		refs := &styleRefs{ids: map[styleKey]int{}}
		w := xw{p: x.p, refs: refs, out: &sheetOut{name: x.out.name, rows: map[int][]any{}}}
		r, known := 1, 0
		b := lineBatch{first: 2}
		send := func() error {
			b.keys, known = refs.keys[known:], len(refs.keys)
			select {
			case batches <- b:
			case <-ctx.Done():
				return ctx.Err()
			}
			b = lineBatch{first: r + 1, rows: make([][]any, 0, lineBatchRows)}
			return nil
		}
		err := x.p.EachLine(func(l *Line) error {
			r++
			if err := w.line(r, l); err != nil {
				return err
			}
			b.rows = append(b.rows, w.out.rows[r])
			delete(w.out.rows, r)
			if len(b.rows) == lineBatchRows {
				return send()
			}
			return nil
		})
		if err == nil && len(b.rows) > 0 {
			err = send()
		}
		return err
	})
	g.Go(func() error {
		var styles []int // by ref
		for b := range batches {
			for _, k := range b.keys {
				id, err := x.style(k.numFmt, k.bold, k.fill, k.wrap)
				if err != nil {
					return err
				}
				styles = append(styles, id)
			}
			for i, cells := range b.rows {
				if cells == nil {
					continue // a row without cells, as flush leaves it out
				}
				for j, c := range cells {
					if c, ok := c.(excelize.Cell); ok && c.StyleID < 0 {
						c.StyleID = styles[-1-c.StyleID]
						cells[j] = c
					}
				}
				ref, _ := excelize.CoordinatesToCellName(1, b.first+i)
				if err := x.out.sw.SetRow(ref, cells); err != nil {
					return err
				}
				x.out.written = b.first + i
			}
		}
		return nil
	})
	return g.Wait()
}

// lineBatchRows is how many rows streamLines hands over at a time; a
// variable for the tests.
var lineBatchRows = 256

// line writes (or, measuring, measures) the cells of l on row r of 明细.
func (x *xw) line(r int, l *Line) error {
	s, p := SheetLines, x.p
	claimed := p.colClaimed()
	li := l.Item
	fill := ""
	switch l.Status {
	case StatusDisputed, StatusClaimedDisputed:
		fill = "FCE4D6"
	case StatusCredit, StatusNothingPaid, StatusNotInvoiced:
		fill = "EDEDED"
	}
	o := cellOpts{fill: fill}
	for _, c := range []struct {
		col int
		v   string
	}{{1, platform.Name(li.Provider, "zh")}, {2, li.BillingAccountID}, {3, li.SubAccount},
		{4, li.ResourceID}, {5, li.ResourceName}, {6, KindNameZH(li.Kind)}, {9, li.Currency},
		{claimed + 1, StatusNameZH(l.Status) + estimatedNote(l)}, {claimed + 2, strings.Join(l.Invoices, ", ")},
		{claimed + 3, filepath.Base(li.File)}} {
		if err := x.text(s, c.col, r, c.v, o); err != nil {
			return err
		}
	}
	if err := x.timeCell(s, 7, r, li.ChargePeriodStart); err != nil {
		return err
	}
	if err := x.timeCell(s, 8, r, li.ChargePeriodEnd); err != nil {
		return err
	}
	for _, col := range p.moneyCols() {
		if err := x.money(s, col, r, p.amount(&l.Shown, col), o); err != nil {
			return err
		}
	}
	return x.rowCell(s, claimed+4, r, l.Row)
}

// roundingLabel names a 尾差 row: the exact total at the minor unit less the
// sum of the lines, each rounded once.
const roundingLabel = "尾差 Rounding（精确合计 − 各行舍入后之和 / exact total − sum of rounded lines）"

// amount is an amount of sh in a money column of 明细.
func (p *Packet) amount(sh *Shown, col int) decimal.Decimal {
	switch col {
	case colBilled:
		return sh.Billed
	case colNotInv:
		return sh.NotInvoiceable
	case colCash:
		return sh.Invoiceable
	case colDisputed:
		return sh.Disputed
	case p.colNotInvoiced():
		return sh.NotInvoiced
	case p.colClaimed():
		return sh.Claimed
	}
	return decimal.Zero
}

// linesFormula is the total of a money column of 明细 in the currency of
// the total row: SUM when the sheet holds one currency, else SUMIFS by the
// currency column.
func (p *Packet) linesFormula(col, row int, single bool) string {
	c, _ := excelize.ColumnNumberToName(col)
	cc, _ := excelize.ColumnNumberToName(colCurrency)
	last := p.linesLast()
	if single {
		return fmt.Sprintf("SUM(%s2:%s%d)", c, c, last)
	}
	return fmt.Sprintf("SUMIFS(%s2:%s%d,%s2:%s%d,%s%d)", c, c, last, cc, cc, last, cc, row)
}

// lineSum is the sum of a money column of 明细 as printed, over the lines
// of currency (the sum of its cover totals): the cached value of the
// total's formula.
func (p *Packet) lineSum(currency string, col int) decimal.Decimal {
	var sum decimal.Decimal
	for i := range p.Totals {
		if t := &p.Totals[i]; t.Currency == currency {
			sum = sum.Add(p.amount(&t.Shown, col))
		}
	}
	return sum
}

func estimatedNote(l *Line) string {
	if l.Estimated && l.Status != StatusCredit {
		return "（现金按应付−代金券估算）"
	}
	return ""
}

// sumifs is a cover formula over a 明细 money column: the rows of the
// platform name in column A of the cover row (when byProvider) and of the
// currency in column B.
func (p *Packet) sumifs(col, row int, byProvider bool) string {
	last := p.linesLast()
	rng := func(c int) string {
		n, _ := excelize.ColumnNumberToName(c)
		return fmt.Sprintf("'%s'!$%s$2:$%s$%d", SheetLines, n, n, last)
	}
	f := "SUMIFS(" + rng(col)
	if byProvider {
		f += fmt.Sprintf(",%s,$A%d", rng(colProvider), row)
	}
	return f + fmt.Sprintf(",%s,$B%d)", rng(colCurrency), row)
}

// cover writes 封面.
func (x *xw) cover() error {
	s, p := SheetCover, x.p
	f := x.f
	title := "费用报销单（GPU 算力与云服务）/ Reimbursement packet"
	if err := x.text(s, 1, 1, title, cellOpts{bold: true, spill: true}); err != nil {
		return err
	}
	x.merge("A1", "I1")
	if !x.measure {
		big, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true, Size: 16},
			Alignment: &excelize.Alignment{Horizontal: "center", Vertical: "center"}})
		if err != nil {
			return err
		}
		x.cellStyle(1, 1, big)
	}
	x.rowHeight(1, 30)
	start, _ := time.Parse("2006-01", p.Month)
	project := p.Project
	if project == "" {
		project = "全部项目 / all projects"
	}
	disputed := "不报销（见“异常”）/ excluded, see 异常"
	if p.ClaimDisputed {
		disputed = "仍报销（见“异常”）/ claimed, see 异常"
	}
	info := [][2]string{
		{"报销人 Claimant", p.Name},
		{"部门 Department", p.Dept},
		{"项目 Project", project},
		{"期间 Period", fmt.Sprintf("%s（%s 至 %s）", p.Month, start.Format("2006-01-02"), start.AddDate(0, 1, -1).Format("2006-01-02"))},
		{"生成日期 Generated", p.Generated.Format("2006-01-02")},
		{"争议费用 Disputed charges", disputed},
	}
	row := 3
	for _, kv := range info {
		if err := x.text(s, 1, row, kv[0], cellOpts{bold: true, spill: true}); err != nil {
			return err
		}
		if err := x.text(s, 3, row, kv[1], cellOpts{spill: true}); err != nil {
			return err
		}
		row++
	}
	row++
	headerRow := row
	heads := p.coverHeaders()
	if err := x.header2(s, row, heads); err != nil {
		return err
	}
	row++
	for _, t := range p.Totals {
		if err := x.text(s, 1, row, platform.Name(t.Provider, "zh"), cellOpts{}); err != nil {
			return err
		}
		if err := x.text(s, 2, row, t.Currency, cellOpts{}); err != nil {
			return err
		}
		cols := p.moneyCols()
		for i, col := range cols {
			if err := x.formula(s, 3+i, row, p.sumifs(col, row, true), p.amount(&t.Shown, col), cellOpts{}); err != nil {
				return err
			}
		}
		o := cellOpts{}
		if t.ToRequest.IsPositive() {
			o.fill = "FFF2CC"
		}
		next := 3 + len(cols)
		if err := x.money(s, next, row, t.Invoiced, cellOpts{}); err != nil {
			return err
		}
		if err := x.money(s, next+1, row, t.ToRequest, o); err != nil {
			return err
		}
		row++
	}
	// Per currency: the claim in figures and in capital numerals.
	row++
	for _, c := range p.Claims {
		if err := x.text(s, 1, row, claimLabel, cellOpts{bold: true}); err != nil {
			return err
		}
		if err := x.text(s, 2, row, c.Currency, cellOpts{bold: true}); err != nil {
			return err
		}
		if err := x.formula(s, 3, row, p.sumifs(p.colClaimed(), row, false), c.Claimed, cellOpts{bold: true}); err != nil {
			return err
		}
		if err := x.text(s, 4, row, "大写 In words", cellOpts{bold: true}); err != nil {
			return err
		}
		words := "—"
		if c.Capital != "" {
			words = "人民币" + c.Capital
		}
		if err := x.text(s, 5, row, words, cellOpts{bold: true, spill: true}); err != nil {
			return err
		}
		row++
		if !c.Rounding.IsZero() {
			// 尾差: the claim adds the lines as printed, each rounded once.
			if err := x.text(s, 1, row, "尾差 Rounding", cellOpts{}); err != nil {
				return err
			}
			if err := x.text(s, 2, row, c.Currency, cellOpts{}); err != nil {
				return err
			}
			if err := x.money(s, 3, row, c.Rounding, cellOpts{}); err != nil {
				return err
			}
			if err := x.text(s, 4, row, roundingNote(c), cellOpts{spill: true}); err != nil {
				return err
			}
			row++
		}
	}
	// Notes.
	row++
	for _, n := range p.Notes() {
		if err := x.text(s, 1, row, n, cellOpts{spill: true}); err != nil {
			return err
		}
		row++
	}
	// Signature block.
	row++
	for i, label := range []string{"报销人 Claimant", "审核 Reviewed by", "批准 Approved by"} {
		col := 1 + 3*i
		if err := x.text(s, col, row, label+"：", cellOpts{bold: true, spill: true}); err != nil {
			return err
		}
		if err := x.text(s, col, row+2, "日期 Date：", cellOpts{spill: true}); err != nil {
			return err
		}
	}
	return x.finish(s, headerRow, false, 24)
}

// claimLabel heads the cover's claim rows (short enough for column A).
const claimLabel = "报销金额 Claimed"

// roundingNote says what a 尾差 is: the claim is the sum of the printed
// lines; the exact total differs by the rounding.
func roundingNote(c CurrencyTotal) string {
	exact := reports.FormatMoney(c.Exact, c.Currency, false)
	return fmt.Sprintf("精确合计 %s，报销金额为各行（按分四舍五入）之和 / exact total %s; the claim adds the lines, each rounded", exact, exact)
}

// Notes are the cover's remarks: what the reader must know about the
// figures.
func (p *Packet) Notes() []string {
	var out []string
	if !p.Audited {
		out = append(out, "注意：本月尚未运行审计（gpubill audit），争议费用未知。/ No audit of this month is stored: disputed charges are unknown.")
	}
	est := 0
	for _, t := range p.Totals {
		est += t.Estimated
	}
	if est > 0 {
		out = append(out, fmt.Sprintf("%d 行账单未给出现金支付金额，按 应付 − 代金券 估算。/ %d line(s) state no cash part: taken as billed − voucher.", est, est))
	}
	if len(p.LeftOut) > 0 {
		zh, en := platformNames(p.LeftOut)
		out = append(out, fmt.Sprintf("%s 本月只有充值/收支记录、没有账单明细，未列入本报销单。/ %s: money flow only, no bill lines: not in this packet.", zh, en))
	}
	if len(p.NegativeInvoiced) > 0 {
		zh, en := platformNames(p.NegativeInvoiced)
		out = append(out, fmt.Sprintf("%s 本月发票合计为负（红字发票多于其他发票）：按 0 计，不报销；红字发票冲销的是以前的报销，请与财务另行结清。/ %s: the month's invoices net negative (red-letter invoices beyond the others): counted as 0, nothing claimed; a red-letter invoice cancels an earlier claim, to settle with finance apart.", zh, en))
	}
	if len(p.DuplicateInvoices) > 0 {
		out = append(out, fmt.Sprintf("发票号码重复录入：%s（只计一次）。/ Invoice numbers recorded twice (counted once): %s.",
			strings.Join(p.DuplicateInvoices, ", "), strings.Join(p.DuplicateInvoices, ", ")))
	}
	out = append(out, "代金券、赠送金额与抵扣行不可开票，不报销；金额以平台账单为准，合计为公式，可在 Excel 中重算。/ Vouchers, gifts and credit lines are not invoiceable and not claimed; totals are formulas.")
	return out
}

// platformNames are the platforms' names joined, in Chinese and in English.
func platformNames(slugs []string) (zh, en string) {
	var names, namesEN []string
	for _, s := range slugs {
		names = append(names, platform.Name(s, "zh"))
		namesEN = append(namesEN, platform.Name(s, "en"))
	}
	return strings.Join(names, "、"), strings.Join(namesEN, ", ")
}

// invoices writes 发票清单: per platform, the invoices counted for the
// month, then the amount still to request, highlighted.
func (x *xw) invoices() error {
	s, p := SheetInvoices, x.p
	if err := x.header(s, 1, invoiceHeaders); err != nil {
		return err
	}
	for i, inv := range p.Invoices {
		r := i + 2
		o := cellOpts{}
		if inv.Missing {
			o.fill = "FFF2CC"
			for col, v := range []string{1: platform.Name(inv.Provider, "zh"), 2: "（待索取）", 4: inv.Currency,
				9: "缺少发票，请向平台申请开票 / missing: request an invoice"} {
				if col == 0 {
					continue
				}
				if err := x.text(s, col, r, v, o); err != nil {
					return err
				}
			}
			for _, col := range []int{3, 7, 8} {
				if err := x.text(s, col, r, "", o); err != nil {
					return err
				}
			}
			if err := x.money(s, 5, r, inv.Amount, o); err != nil {
				return err
			}
			if err := x.money(s, 6, r, inv.Allocated, o); err != nil {
				return err
			}
			continue
		}
		period := inv.Invoice.PeriodStart
		if inv.Invoice.PeriodEnd != "" && inv.Invoice.PeriodEnd != inv.Invoice.PeriodStart {
			period += " ~ " + inv.Invoice.PeriodEnd
		}
		note := inv.Invoice.Note
		if inv.Spanning {
			note = strings.TrimSpace("跨月发票，本月计入部分见左 / spans several months " + note)
		}
		for col, v := range []string{1: platform.Name(inv.Provider, "zh"), 2: inv.Invoice.Number, 3: inv.Invoice.Date,
			4: inv.Currency, 7: period, 8: inv.Invoice.Title, 9: note} {
			if col == 0 {
				continue
			}
			if err := x.text(s, col, r, v, o); err != nil {
				return err
			}
		}
		if err := x.money(s, 5, r, inv.Amount, o); err != nil {
			return err
		}
		if err := x.money(s, 6, r, inv.Allocated, o); err != nil {
			return err
		}
	}
	if len(p.Invoices) == 0 {
		if err := x.text(s, 1, 2, "没有发票记录 / no invoices", cellOpts{}); err != nil {
			return err
		}
	}
	return x.finish(s, 1, true, 50)
}

// exceptions writes 异常: the disputed charges with reason and treatment.
func (x *xw) exceptions() error {
	s, p := SheetExceptions, x.p
	if err := x.header(s, 1, exceptionHeaders); err != nil {
		return err
	}
	for i, e := range p.Exceptions {
		r := i + 2
		treat := "已排除，不报销 / excluded"
		if e.Claimed {
			treat = "仍报销（有争议）/ claimed but disputed"
		}
		state := map[string]string{"open": "待处理 open", "acknowledged": "已确认 acknowledged"}[e.State]
		reason := e.ReasonZH
		if reason == "" {
			reason = e.ReasonEN
		}
		for col, v := range []string{1: platform.Name(e.Provider, "zh"), 2: RuleNameZH(e.RuleID), 3: state,
			4: e.ResourceID, 5: e.Currency, 7: treat, 8: reason, 9: filepath.Base(e.File), 11: e.Fingerprint} {
			if col == 0 {
				continue
			}
			if err := x.text(s, col, r, v, cellOpts{}); err != nil {
				return err
			}
		}
		if err := x.money(s, 6, r, e.Amount, cellOpts{}); err != nil {
			return err
		}
		if err := x.rowCell(s, 10, r, e.Cited); err != nil {
			return err
		}
	}
	if len(p.Exceptions) == 0 {
		msg := "没有争议费用 / no disputed charges"
		if !p.Audited {
			msg = "本月尚未审计，请先运行 gpubill audit / no audit of this month: run gpubill audit first"
		}
		if err := x.text(s, 1, 2, msg, cellOpts{}); err != nil {
			return err
		}
	}
	return x.finish(s, 1, true, 60)
}

// safeText makes bill text safe for one cell: control characters become
// spaces, and a cell beginning with = + - @, tab or CR gets a leading
// apostrophe (DESIGN.md "Output safety", xlsxcell.Neutralise).
func safeText(s string) string {
	if s == "" {
		return s
	}
	s = xlsxcell.Neutralise(s)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// shownMoney approximates how Excel shows an amount with #,##0.00, for the
// column width.
func shownMoney(d decimal.Decimal) string {
	s := d.Round(2).StringFixed(2)
	if n := len(strings.TrimPrefix(strings.Split(s, ".")[0], "-")); n > 3 {
		return s + strings.Repeat(",", (n-1)/3)
	}
	return s
}

// shownMoneyWidth is the width of shownMoney(d), counted without making
// the string where d has at most 2 decimals, no positive exponent and 15
// digits (every amount
// at the fen the packet prints).
func shownMoneyWidth(d decimal.Decimal) int {
	if d.Exponent() < -2 || d.Exponent() > 0 || d.NumDigits() > 15 {
		return len(shownMoney(d))
	}
	w := 3 // ".00"
	if d.IsNegative() {
		w++
	}
	n := 1 // integer digits
	for i := d.Abs().IntPart(); i >= 10; i /= 10 {
		n++
	}
	if n > 3 {
		n += (n - 1) / 3
	}
	return w + n
}

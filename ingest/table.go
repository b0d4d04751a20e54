package ingest

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// table is a streaming source of records: the rows of a CSV file or of one
// XLSX sheet. Memory does not grow with the number of rows.
type table interface {
	// sheet names the XLSX sheet ("" for a CSV file).
	sheet() string
	// next returns the next record with its cells trimmed, or io.EOF. The
	// slice is reused by the following call; its strings are not.
	next() ([]string, error)
	// line is the physical position of cell col (0-based) of the current
	// record: the line number in a CSV file (the line the cell starts on,
	// which differs from the record's first line only after a quoted
	// multi-line cell), the row number in a sheet.
	line(col int) int
}

// csvTable reads delimited text as encoding/csv does (csvReader).
type csvTable struct {
	path string
	r    *csvReader
	rec  []string
	// edgeCR: a cell of rec had a CR at its start or end before trimming.
	edgeCR bool
}

func newCSVTable(path string, r io.Reader, delim rune) *csvTable {
	return &csvTable{path: path, r: newCSVReader(&lineLimitReader{r: r, line: 1}, delim)}
}

func (t *csvTable) sheet() string { return "" }

func (t *csvTable) next() ([]string, error) {
	rec, err := t.r.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			msg := "broken quote: " + pe.Err.Error()
			if !errors.Is(pe.Err, csv.ErrQuote) && !errors.Is(pe.Err, csv.ErrBareQuote) {
				msg = pe.Err.Error()
			}
			if pe.StartLine != pe.Line {
				msg += fmt.Sprintf(" (in the record that starts on line %d)", pe.StartLine)
			}
			return nil, &InputError{File: t.path, Line: pe.Line, Msg: msg}
		}
		if err == io.EOF {
			return nil, io.EOF
		}
		var ee *encodingError
		if errors.As(err, &ee) {
			return nil, &InputError{File: t.path, Line: ee.line, Msg: ee.msg}
		}
		var le *lineTooLongError
		if errors.As(err, &le) {
			return nil, &InputError{File: t.path, Line: le.line,
				Msg: fmt.Sprintf("a line longer than %d MiB: not a bill, or a damaged file", maxLineBytes>>20)}
		}
		return nil, &InputError{File: t.path, Msg: "cannot read text", Err: err}
	}
	t.edgeCR = false
	for i, c := range rec {
		// A CR trimmed off a cell's edge may have ended a line (see
		// checkRowLength).
		if n := len(c); n > 0 && (c[0] == '\r' || c[n-1] == '\r') {
			t.edgeCR = true
		}
		rec[i] = trimCell(c)
	}
	t.rec = rec
	if err := checkRecord(t.path, "", rec, t.line); err != nil {
		return nil, err
	}
	return rec, nil
}

func (t *csvTable) line(col int) int {
	if col < 0 || col >= len(t.rec) {
		col = 0
	}
	if len(t.rec) == 0 {
		return 0
	}
	l, _ := t.r.FieldPos(col)
	return l
}

// xlsxTable reads one sheet through excelize's streaming Rows iterator
// (never GetRows, which holds the whole sheet).
type xlsxTable struct {
	path string
	name string
	rows *excelize.Rows
	row  int
	// shown replaces raw values by what a spreadsheet shows (sheetScan).
	shown map[[2]int]string
}

func (t *xlsxTable) sheet() string { return t.name }

func (t *xlsxTable) next() (rec []string, err error) {
	defer func() {
		if r := recover(); r != nil { // excelize on a damaged sheet
			rec, err = nil, &InputError{File: t.path, Sheet: t.name, Line: t.row, Msg: fmt.Sprintf("damaged worksheet: %v", r)}
		}
	}()
	if !t.rows.Next() {
		if err := t.rows.Error(); err != nil {
			return nil, &InputError{File: t.path, Sheet: t.name, Line: t.row + 1, Msg: "cannot read worksheet", Err: err}
		}
		return nil, io.EOF
	}
	t.row++
	cols, err := t.rows.Columns()
	if err != nil {
		return nil, &InputError{File: t.path, Sheet: t.name, Line: t.row, Msg: "cannot read row", Err: err}
	}
	for i, c := range cols {
		if s, ok := t.shown[[2]int{t.row, i + 1}]; ok {
			c = s
		}
		cols[i] = trimCell(c)
	}
	if err := checkRecord(t.path, t.name, cols, t.line); err != nil {
		return nil, err
	}
	return cols, nil
}

func (t *xlsxTable) line(int) int { return t.row }

func (t *xlsxTable) close() error { return t.rows.Close() }

// source is an opened bill file: delimited text or JSON (one table) or an
// XLSX workbook (one table per sheet).
type source struct {
	path      string
	encoding  string // text files: EncUTF8 …; "xlsx" for workbooks
	delimiter rune
	text      io.Reader
	book      *excelize.File
	sheets    []string
	date1904  bool
	json      bool         // text is JSON (AutoDL's saved web-API lists, autodl_json.go)
	jsonBase  int64        // bytes before the decoded text (a UTF-8 BOM), for byte offsets
	pq        *parquetFile // a Parquet file (parquet.go)
	// scans are the worksheets' scans by sheet name (xlsxscan.go), nil
	// when the workbook was not scanned (a ZIP member read from memory).
	scans map[string]*sheetScan
}

// Magic numbers of files that are not bills in a form gpubill reads.
var (
	magicZip      = []byte("PK\x03\x04")
	magicZipEmpty = []byte("PK\x05\x06") // end of central directory first: a ZIP without members
	magicOLE      = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
	magicPDF      = []byte("%PDF")
)

// openSource looks at the content of r (never at the file name) and opens it
// as an XLSX workbook, as Parquet (parquet.go), as JSON (text whose first
// non-space character is { or [) or as delimited text.
func openSource(path string, r io.Reader) (src *source, err error) {
	br := bufio.NewReaderSize(r, sniffSize)
	head, _ := br.Peek(8)
	switch {
	case len(head) == 0:
		return nil, &InputError{File: path, Msg: "empty file"}
	case bytes.HasPrefix(head, magicZip):
		return openXLSX(path, osFile(r), br)
	case bytes.HasPrefix(head, magicParquet):
		return openParquet(path, osFile(r), br)
	case bytes.HasPrefix(head, magicGzip):
		return openGzip(path, br)
	case bytes.HasPrefix(head, magicZipEmpty):
		return nil, &InputError{File: path, Msg: "an empty ZIP archive"}
	case bytes.HasPrefix(head, magicOLE):
		return nil, &InputError{File: path, Msg: "an Excel 97-2003 (.xls) or encrypted workbook: save it as .xlsx or CSV"}
	case bytes.HasPrefix(head, magicPDF):
		return nil, &InputError{File: path, Msg: "a PDF document: export the bill as CSV or XLSX"}
	}
	text, enc, err := decodeText(br)
	if err != nil {
		if errors.Is(err, errBinary) {
			return nil, &InputError{File: path, Msg: err.Error()}
		}
		return nil, &InputError{File: path, Msg: "cannot read", Err: err}
	}
	// Excel's "CSV (Macintosh)" ends lines with CR alone, which the CSV
	// reader takes for one endless line: such text is read with LF instead.
	raw := bufio.NewReaderSize(text, sniffSize)
	if head, _ := raw.Peek(sniffSize); crOnly(head) {
		text = crToLF{raw}
	} else {
		text = raw
	}
	tb := bufio.NewReaderSize(newTextChecker(text, enc), sniffSize)
	sample, err := tb.Peek(sniffSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		var ee *encodingError
		if errors.As(err, &ee) {
			return nil, &InputError{File: path, Line: ee.line, Msg: ee.msg}
		}
		return nil, &InputError{File: path, Msg: "cannot decode text as " + enc, Err: err}
	}
	if looksJSON(sample) {
		src := &source{path: path, encoding: enc, text: tb, json: true}
		if enc == EncUTF8BOM {
			src.jsonBase = 3
		}
		return src, nil
	}
	if looksHTML(sample) {
		return nil, &InputError{File: path, Msg: "an HTML page, not a bill (a web page saved as .xls/.xlsx?): export the bill as CSV or XLSX, or copy the table into the gpubill template"}
	}
	if looksXMLSpreadsheet(sample) {
		return nil, &InputError{File: path, Msg: "an Excel 2003 XML spreadsheet: save it as .xlsx or CSV"}
	}
	delim := detectDelimiter(sample)
	// Exports with stray quotes (WeChat Pay) are repaired before the CSV
	// reader sees them; valid CSV passes through unchanged (csvrepair.go).
	return &source{path: path, encoding: enc, delimiter: delim, text: newQuoteRepair(tb, delim)}, nil
}

// osFile is the file r reads, under the progress counter, or nil.
func osFile(r io.Reader) *os.File {
	if pr, ok := r.(*progressReader); ok {
		r = pr.r
	}
	f, _ := r.(*os.File)
	return f
}

// openXLSX opens the workbook in file, else the one r reads. From a file
// excelize reads the archive where it lies (excelize.OpenFile); from a
// reader it reads it whole into memory first, growing a buffer as it goes
// (excelize.OpenReader): a workbook of a sheet's every row, 99 MB zipped,
// took an import to 261 MB at its peak that way, against excelize's own
// Rows() over the file at 24 MB.
func openXLSX(path string, file *os.File, r io.Reader) (src *source, err error) {
	defer func() {
		if p := recover(); p != nil {
			src, err = nil, &InputError{File: path, Msg: fmt.Sprintf("damaged XLSX workbook: %v", p)}
		}
	}()
	// Unzipped parts above the archive limit are refused (an XLSX is a zip:
	// the same bomb limit applies); worksheets above 16 MB unzip to temporary
	// files rather than memory (excelize's default UnzipXMLSizeLimit).
	opts := excelize.Options{RawCellValue: true, UnzipSizeLimit: DefaultZipArchiveSize}
	var book *excelize.File
	if file != nil {
		book, err = excelize.OpenFile(sameFile(file), opts)
	} else {
		book, err = excelize.OpenReader(r, opts)
	}
	if err != nil {
		return nil, &InputError{File: path, Msg: "not a readable XLSX workbook or ZIP archive (truncated or damaged?)", Err: err}
	}
	src = &source{path: path, encoding: "xlsx", book: book, sheets: book.GetSheetList()}
	if props, err := book.GetWorkbookProps(); err == nil && props.Date1904 != nil {
		src.date1904 = *props.Date1904
	}
	return src, nil
}

func (s *source) isXLSX() bool { return s.book != nil }

// numTables is how many tables the source holds.
func (s *source) numTables() int {
	if s.isXLSX() {
		return len(s.sheets)
	}
	return 1
}

// openTable opens table i; the caller closes it with closeTable.
func (s *source) openTable(i int) (t table, err error) {
	if s.json {
		return newJSONTable(s.path, s.text, s.jsonBase), nil
	}
	if s.pq != nil {
		pt, err := s.pq.table(s.path)
		if err != nil {
			return nil, err
		}
		return pt, nil
	}
	if !s.isXLSX() {
		return newCSVTable(s.path, s.text, s.delimiter), nil
	}
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, &InputError{File: s.path, Sheet: s.sheets[i], Msg: fmt.Sprintf("damaged worksheet: %v", p)}
		}
	}()
	rows, err := s.book.Rows(s.sheets[i])
	if err != nil {
		return nil, &InputError{File: s.path, Sheet: s.sheets[i], Msg: "cannot open worksheet", Err: err}
	}
	xt := &xlsxTable{path: s.path, name: s.sheets[i], rows: rows}
	if sc := s.scans[s.sheets[i]]; sc != nil {
		xt.shown = sc.shown
	}
	return xt, nil
}

func closeTable(t table) {
	switch x := t.(type) {
	case *xlsxTable:
		x.close()
	case *parquetTable:
		x.close()
	}
}

func (s *source) close() error {
	if s.pq != nil {
		return s.pq.close()
	}
	if s.book != nil {
		return s.book.Close()
	}
	return nil
}

// InputError is a problem with a user's file (as opposed to an internal
// error). It prints as FILE:LINE:COL: column NAME: message for text files and
// as FILE: Sheet!D12: column NAME: message for XLSX sheets.
type InputError struct {
	File   string
	Sheet  string // XLSX sheet, "" for text files
	Line   int    // physical line (text) or row (sheet), 1-based; 0 = whole file
	Col    int    // 1-based column (field) number; 0 = whole line
	Column string // the column's header as written in the file, if known
	Msg    string
	// MsgZH, when set, is Msg in Chinese (TextZH); most messages are
	// English only and put into Chinese by the CLI.
	MsgZH string
	Err   error // cause, if any
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	switch {
	case e.Sheet != "" && e.Line > 0 && e.Col > 0:
		fmt.Fprintf(&b, ": %s!%s%d", e.Sheet, columnLetters(e.Col), e.Line)
	case e.Sheet != "" && e.Line > 0:
		fmt.Fprintf(&b, ": %s!%d", e.Sheet, e.Line)
	case e.Sheet != "":
		fmt.Fprintf(&b, ": %s", e.Sheet)
	case e.Line > 0 && e.Col > 0:
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	case e.Line > 0:
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Column != "" {
		b.WriteString("column ")
		b.WriteString(e.Column)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

// TextZH is Error with MsgZH for Msg (Error when there is no MsgZH).
func (e *InputError) TextZH() string {
	if e.MsgZH == "" {
		return e.Error()
	}
	c := *e
	c.Msg = e.MsgZH
	return c.Error()
}

// columnLetters turns a 1-based column number into A, B, … Z, AA, ….
func columnLetters(n int) string {
	var b []byte
	for n > 0 {
		n--
		b = append([]byte{byte('A' + n%26)}, b...)
		n /= 26
	}
	return string(b)
}

// sameFile is a name that opens the file f has open, for a library that
// opens files by name: /proc/self/fd/N where the system has it (the same
// file even if its name has since been given to another, or removed),
// else the name f was opened with.
func sameFile(f *os.File) string {
	st, err := f.Stat()
	if err != nil {
		return f.Name()
	}
	p := "/proc/self/fd/" + strconv.FormatUint(uint64(f.Fd()), 10)
	if pst, err := os.Stat(p); err == nil && os.SameFile(st, pst) {
		return p
	}
	return f.Name()
}

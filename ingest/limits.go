package ingest

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Limits on hostile input that no real bill reaches (issue 8). Each refusal
// names the file and, where there is one, the row and column.
const (
	// maxColumns is the most cells one record may have: XLSX's own limit
	// (column XFD). A header of a million columns would otherwise cost
	// minutes in header detection.
	maxColumns = 16384
	// maxCellBytes is the longest cell accepted (after decoding): the
	// longest description in a real bill is a few hundred bytes.
	maxCellBytes = 1 << 20
	// maxLineBytes is the longest physical line of a text file. encoding/csv
	// holds a whole line before it splits it into cells, so without this a
	// file that is one endless line would be read into memory whole before
	// the cell limit could refuse it.
	maxLineBytes = 32 << 20
)

// lineLimitReader passes text through, and fails once a line (bytes since
// the last newline) grows beyond maxLineBytes.
type lineLimitReader struct {
	r    io.Reader
	run  int // bytes since the last '\n'
	line int // 1-based number of the current line
}

type lineTooLongError struct{ line int }

func (e *lineTooLongError) Error() string {
	return fmt.Sprintf("line %d is longer than %d bytes", e.line, maxLineBytes)
}

func (l *lineLimitReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for rest := p[:n]; ; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			l.run += len(rest)
			break
		}
		if l.run+i > maxLineBytes {
			return 0, &lineTooLongError{line: l.line}
		}
		l.run = 0
		l.line++
		rest = rest[i+1:]
	}
	if l.run > maxLineBytes {
		return 0, &lineTooLongError{line: l.line}
	}
	return n, err
}

// checkRecord refuses a record over maxColumns cells or with a cell over
// maxCellBytes; line(col) is the physical line of cell col (0-based).
func checkRecord(file, sheet string, rec []string, line func(col int) int) error {
	if len(rec) > maxColumns {
		return &InputError{File: file, Sheet: sheet, Line: line(0),
			Msg: fmt.Sprintf("%d cells in one row, more than %d (the most a spreadsheet has): not a bill, or a damaged file", len(rec), maxColumns)}
	}
	for i, c := range rec {
		if len(c) > maxCellBytes {
			return &InputError{File: file, Sheet: sheet, Line: line(i), Col: i + 1,
				Msg: fmt.Sprintf("a cell of %d bytes, over the limit of %d: not a bill, or a damaged file", len(c), maxCellBytes)}
		}
	}
	return nil
}

// checkRowLength refuses a text record whose number of cells differs from
// the header's: in delimited text that is nearly always a value with an
// unquoted separator ("1,234.56") or a lost one, and every cell after it
// lands in the wrong column (an amount of 1 instead of 1234.56, or a time
// read as an amount). Empty cells beyond the header (a trailing separator)
// are fine. A row that stops early is read only when every column it has
// no cell for is free text (shortRowFields) or unknown to the format: hand-
// made files drop empty trailing cells, but a cell lost in the middle of a
// row shifts the rest left, and only the last columns tell: if one of them
// is an amount, a currency or a time, the row is refused (a lost 原价 moved
// 代金券's 0 into 应付金额 and the currency into 说明). The row named is
// the line the record starts on, as a text editor or a spreadsheet shows
// it. Sheets are not checked: a spreadsheet row has no separators to lose,
// and excelize drops a row's empty trailing cells.
func checkRowLength(t table, rec []string, b *binding) error {
	ct, ok := t.(*csvTable)
	if !ok {
		return nil
	}
	header := trimTrailingEmpty(b.header)
	n := len(trimTrailingEmpty(rec))
	switch {
	case n > len(header) && (ct.edgeCR || slices.ContainsFunc(rec, loneCR)):
		// A file joined from a Mac ("CSV (Macintosh)") and another export:
		// only LF ends a line, so the rows of a CR-only part run together.
		return &InputError{File: ct.path, Line: t.line(0), Col: len(header) + 1,
			Msg: fmt.Sprintf("row %d has %d cells, the header has %d: a CR alone ends a line inside it, so the file mixes line ends (CR, LF, CR LF); save it again with one kind",
				t.line(0), n, len(header))}
	case n > len(header):
		return &InputError{File: ct.path, Line: t.line(0), Col: len(header) + 1,
			Msg: fmt.Sprintf("row %d has %d cells, the header has %d: a value with an unquoted %s? Quote that cell, or remove the extra cells",
				t.line(0), n, len(header), separatorName(ct.r.Comma))}
	case len(rec) < len(header):
		missing := -1
		for ci, c := range b.format.Columns {
			p := b.pos[ci]
			if p < len(rec) || p >= len(header) {
				continue
			}
			if c.Required {
				missing = p
				break
			}
			if !shortRowFields[c.Field] && (missing < 0 || p < missing) {
				missing = p
			}
		}
		if missing >= 0 {
			return &InputError{File: ct.path, Line: t.line(0),
				Msg: fmt.Sprintf("row %d has %d cells, the header has %d (column %s is missing): a lost %s, or cells moved? Every row needs a cell for each column of the header",
					t.line(0), len(rec), len(header), b.header[missing], separatorName(ct.r.Comma))}
		}
	}
	return nil
}

// loneCR reports a cell holding a CR that no LF follows.
func loneCR(cell string) bool {
	for i := strings.IndexByte(cell, '\r'); i >= 0; i = strings.IndexByte(cell, '\r') {
		if i+1 == len(cell) || cell[i+1] != '\n' {
			return true
		}
		cell = cell[i+1:]
	}
	return false
}

// shortRowFields are the columns a row may leave out at its end: free text
// that carries no money, time or currency, so that a cell lost before them
// cannot move an amount into another column unnoticed.
var shortRowFields = map[string]bool{
	"description": true, "project": true, "sub_account": true, "resource_name": true,
	"note": true, "remark": true, "tags": true,
}

func separatorName(r rune) string {
	switch r {
	case ',':
		return "comma"
	case '\t':
		return "tab"
	case ';':
		return "semicolon"
	case '|':
		return "bar"
	}
	return strconv.QuoteRune(r)
}

// looksHTML reports text that is a web page (many consoles "export" an
// HTML table named .xls), and looksXMLSpreadsheet an Excel 2003 XML
// spreadsheet; sample is the start of the decoded text.
func looksHTML(sample []byte) bool {
	s := strings.ToLower(string(bytes.TrimLeft(sample[:min(len(sample), 512)], " \t\r\n\ufeff")))
	for _, p := range []string{"<!doctype html", "<html", "<table", "<head", "<body", "<meta "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func looksXMLSpreadsheet(sample []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(sample, " \t\r\n"), []byte("<?xml")) &&
		bytes.Contains(sample, []byte("urn:schemas-microsoft-com:office:spreadsheet"))
}

// checkWorkbook guards an XLSX workbook before excelize reads it: the ZIP
// limits (lim, as for archives: member size, ratio, total size) on the sizes
// its parts declare, which archive/zip holds them to while reading, so that
// a workbook bomb is refused without unpacking it; and every worksheet is
// searched for a formula without a cached value, which gpubill cannot read
// (it never evaluates formulas) and refuses at its cell, and scanned for
// rows out of order and for cells whose raw value is not what Excel shows
// (scanWorksheet; the scans are returned by sheet name).
func checkWorkbook(file string, ra io.ReaderAt, size int64, lim ZipLimits) (map[string]*sheetScan, error) {
	lim = lim.withDefaults()
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, nil // not readable as a ZIP: openXLSX reports it
	}
	var total uint64
	for _, f := range zr.File {
		decl, comp := f.UncompressedSize64, f.CompressedSize64
		if decl > uint64(lim.MemberSize) {
			return nil, &InputError{File: file, Msg: fmt.Sprintf("workbook part %s declares %d bytes uncompressed, over the limit of %d: refused (possible zip bomb)",
				f.Name, decl, lim.MemberSize)}
		}
		if decl > zipRatioFloor && decl/uint64(lim.Ratio) >= comp+1 {
			return nil, &InputError{File: file, Msg: fmt.Sprintf("workbook part %s has a compression ratio over %d:1 (%d bytes from %d): refused (possible zip bomb)",
				f.Name, lim.Ratio, decl, comp)}
		}
		total += decl
		if total > uint64(lim.ArchiveSize) {
			return nil, &InputError{File: file, Msg: fmt.Sprintf("the workbook's parts hold more than %d bytes uncompressed (limit): refused (possible zip bomb)",
				lim.ArchiveSize)}
		}
	}
	sheets := worksheetNames(zr)
	scans := map[string]*sheetScan{}
	for _, f := range zr.File {
		name, ok := sheets[f.Name]
		if !ok {
			continue
		}
		if err := checkFormulas(file, name, f); err != nil {
			return nil, err
		}
		sc, err := scanWorksheet(file, name, f)
		if err != nil {
			return nil, err
		}
		if sc != nil {
			scans[name] = sc
		}
	}
	return scans, nil
}

// worksheetNames maps the ZIP names of a workbook's worksheets to their
// sheet names (xl/workbook.xml and its relationships).
func worksheetNames(zr *zip.Reader) map[string]string {
	var wb struct {
		Sheets []struct {
			Name string `xml:"name,attr"`
			RID  string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
	}
	var rels struct {
		Rels []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	out := map[string]string{}
	if readXMLPart(zr, "xl/workbook.xml", &wb) != nil || readXMLPart(zr, "xl/_rels/workbook.xml.rels", &rels) != nil {
		return out
	}
	targets := map[string]string{}
	for _, r := range rels.Rels {
		t := r.Target
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(t, "/")
		} else {
			t = path.Join("xl", t)
		}
		targets[r.ID] = t
	}
	for _, s := range wb.Sheets {
		if t, ok := targets[s.RID]; ok {
			out[t] = s.Name
		}
	}
	return out
}

// readXMLPart decodes the (small) part name of zr into v.
func readXMLPart(zr *zip.Reader, name string, v any) error {
	for _, f := range zr.File {
		if f.Name != name {
			continue
		}
		if f.UncompressedSize64 > 16<<20 {
			return fmt.Errorf("%s too big", name)
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		return xml.NewDecoder(rc).Decode(v)
	}
	return fmt.Errorf("no %s", name)
}

// checkFormulas refuses the first formula cell of the worksheet part f that
// has no cached value. Sheets without formulas cost one pass of a byte
// search; the XML is decoded only when a formula element appears.
func checkFormulas(file, sheet string, f *zip.File) error {
	found, err := partContains(f, [][]byte{[]byte("<f>"), []byte("<f "), []byte(":f>"), []byte(":f ")})
	if err != nil || !found {
		return nil // a damaged part is excelize's to report
	}
	rc, err := f.Open()
	if err != nil {
		return nil
	}
	defer rc.Close()
	dec := xml.NewDecoder(bufio.NewReaderSize(rc, 64<<10))
	var (
		inCell, hasF, hasV, inF, inV bool
		ref, typ                     string
		formula                      strings.Builder
	)
	for {
		tok, err := dec.RawToken()
		if err != nil {
			return nil // EOF, or damage excelize reports
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "c":
				inCell, hasF, hasV, ref, typ = true, false, false, "", ""
				formula.Reset()
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "r":
						ref = a.Value
					case "t":
						typ = a.Value
					}
				}
			case "f":
				if inCell {
					hasF, inF = true, true
				}
			case "v", "is":
				if inCell {
					inV = true
				}
			}
		case xml.CharData:
			if inF && formula.Len() < 80 {
				formula.Write(t)
			}
			if inV && len(bytes.TrimSpace(t)) > 0 {
				hasV = true
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "f":
				inF = false
			case "v", "is":
				inV = false
			case "c":
				if hasF && !hasV && typ != "inlineStr" {
					return formulaError(file, sheet, ref, formula.String())
				}
				inCell = false
			}
		}
	}
}

func formulaError(file, sheet, ref, formula string) error {
	col, row := splitCellRef(ref)
	msg := "a formula without a cached value"
	if formula != "" {
		msg += fmt.Sprintf(" (=%s)", formula)
	}
	msg += ": gpubill reads the values a spreadsheet saved and never evaluates formulas; open the file in Excel or WPS and save it, or paste the values"
	return &InputError{File: file, Sheet: sheet, Line: row, Col: col, Msg: msg}
}

// splitCellRef turns "F12" into column 6 and row 12 (0, 0 when malformed).
func splitCellRef(ref string) (col, row int) {
	i := 0
	for i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z' {
		col = col*26 + int(ref[i]-'A'+1)
		i++
	}
	row, err := strconv.Atoi(ref[i:])
	if err != nil || i == 0 {
		return 0, 0
	}
	return col, row
}

// partContains reports whether the uncompressed part f contains any of subs.
func partContains(f *zip.File, subs [][]byte) (bool, error) {
	rc, err := f.Open()
	if err != nil {
		return false, err
	}
	defer rc.Close()
	const keep = 8 // longer than every sub
	buf := make([]byte, 256<<10)
	have := 0
	for {
		n, err := rc.Read(buf[have:])
		have += n
		for _, s := range subs {
			if bytes.Contains(buf[:have], s) {
				return true, nil
			}
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if have > keep {
			copy(buf, buf[have-keep:have])
			have = keep
		}
	}
}

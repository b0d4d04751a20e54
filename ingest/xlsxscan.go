package ingest

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"strconv"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"
)

// sheetScan is what one pass over a worksheet's XML (scanWorksheet) learns
// that excelize's Rows iterator does not tell: the cells whose raw value is
// not what a spreadsheet shows, and a digest of every cell, by which a copy
// of a sheet is known.
type sheetScan struct {
	// shown holds, by row and column (1-based), the value Excel shows for a
	// cell whose raw value differs: TRUE or FALSE for a boolean (raw 1 or
	// 0), and a number of more than 15 significant digits rounded to 15
	// (1.8799999999999999 is shown, and summed by Excel, as 1.88).
	shown map[[2]int]string
	// digest hashes every cell's position, type and value; cells counts
	// them. Two sheets with the same digest hold the same cells.
	digest [sha256.Size]byte
	cells  int
}

// excelSigDigits is how many significant digits Excel shows and computes with.
const excelSigDigits = 15

// scanWorksheet reads the worksheet part f of sheet once, as bytes (no XML
// decoder: a tag at a time), and refuses rows stored out of order or twice
// (<row r="4"> before <row r="3">, two <row r="2">): excelize's Rows reads
// such a sheet with rows lost, and a spreadsheet shows it sorted, so the
// user would never learn. Element names with a namespace prefix (x:row) are
// read as without it.
func scanWorksheet(file, sheet string, f *zip.File) (*sheetScan, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, nil // a damaged part is excelize's to report
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 64<<10)
	sc := &sheetScan{shown: map[[2]int]string{}}
	h := sha256.New()
	var (
		lastRow, row, col int
		typ               string
		inCell, inValue   bool
		inRow             bool
		value             []byte
	)
	for {
		text, err := readUntil(br, '<', inValue)
		if err != nil {
			break // EOF, or damage excelize reports
		}
		if inValue {
			value = append(value[:0], text...)
		}
		tag, err := br.ReadSlice('>')
		if err != nil {
			break
		}
		name, attrs, selfClosing := splitTag(tag[:len(tag)-1])
		switch string(name) {
		case "row":
			n := lastRow + 1
			if r := attr(attrs, "r"); r != nil {
				if n, err = strconv.Atoi(string(r)); err != nil || n < 1 {
					return nil, &InputError{File: file, Sheet: sheet, Msg: fmt.Sprintf("a row numbered %q: a damaged worksheet", r)}
				}
			}
			switch {
			case n == lastRow:
				return nil, &InputError{File: file, Sheet: sheet, Line: n,
					Msg: fmt.Sprintf("the worksheet stores row %d twice: a spreadsheet shows one of them, gpubill would read one; open the file in Excel or WPS and save it, then check the row", n)}
			case n < lastRow:
				return nil, &InputError{File: file, Sheet: sheet, Line: n,
					Msg: fmt.Sprintf("the worksheet stores row %d after row %d (rows out of order, written by a tool, not by Excel): rows would be lost; open the file in Excel or WPS and save it", n, lastRow)}
			}
			lastRow, row, col, inRow = n, n, 0, !selfClosing
		case "/row":
			inRow = false
		case "c":
			c, r := splitCellRef(string(attr(attrs, "r")))
			if c > 0 && inRow {
				if err := cellOrder(file, sheet, lastRow, col, c, r); err != nil {
					return nil, err
				}
			}
			if c > 0 {
				col, row = c, r
			} else {
				col++
			}
			if selfClosing {
				continue
			}
			inCell, typ, value = true, string(attr(attrs, "t")), value[:0]
		case "v", "t":
			inValue = inCell && !selfClosing
		case "/v", "/t":
			inValue = false
		case "/c":
			if !inCell {
				continue
			}
			inCell = false
			fmt.Fprintf(h, "%d,%d,%s,%d:", row, col, typ, len(value))
			h.Write(value)
			sc.cells++
			if s, ok := shownValue(typ, value); ok {
				sc.shown[[2]int{row, col}] = s
			}
		}
	}
	h.Sum(sc.digest[:0])
	return sc, nil
}

// cellOrder refuses cell (c, r), which follows column prev in row n, when
// it is stored in another row's element, twice, or before a cell left of
// it: excelize reads such a row with cells lost or moved (a second F2 is
// dropped, A2 after F2 leaves A2 empty), and a spreadsheet repairs it its
// own way.
func cellOrder(file, sheet string, n, prev, c, r int) error {
	ref, _ := excelize.CoordinatesToCellName(c, r)
	fix := ": open the file in Excel or WPS and save it, then check the row"
	switch {
	case r != n:
		return &InputError{File: file, Sheet: sheet, Line: n, Msg: fmt.Sprintf("the worksheet stores cell %s in row %d%s", ref, n, fix)}
	case c == prev:
		return &InputError{File: file, Sheet: sheet, Line: n, Msg: fmt.Sprintf("the worksheet stores cell %s twice%s", ref, fix)}
	case c < prev:
		before, _ := excelize.CoordinatesToCellName(prev, r)
		return &InputError{File: file, Sheet: sheet, Line: n, Msg: fmt.Sprintf("the worksheet stores cell %s after %s (cells out of order)%s", ref, before, fix)}
	}
	return nil
}

// shownValue is the value a spreadsheet shows for a cell of type typ whose
// raw value is raw, when it differs from raw.
func shownValue(typ string, raw []byte) (string, bool) {
	switch typ {
	case "b":
		switch string(bytes.TrimSpace(raw)) {
		case "1":
			return "TRUE", true
		case "0":
			return "FALSE", true
		}
	case "", "n":
		d, err := decimal.NewFromString(string(bytes.TrimSpace(raw)))
		if err != nil || d.IsZero() {
			return "", false
		}
		digits := int32(len(new(big.Int).Abs(d.Coefficient()).String()))
		if digits <= excelSigDigits {
			return "", false
		}
		// The number has digits+exp digits before the point; keep 15
		// significant ones.
		places := excelSigDigits - (digits + d.Exponent())
		return d.Round(places).String(), true
	}
	return "", false
}

// readUntil reads up to and including delim; keep says whether the text is
// wanted (a cell value) or skipped (it may be longer than the buffer).
func readUntil(br *bufio.Reader, delim byte, keep bool) ([]byte, error) {
	var out []byte
	for {
		b, err := br.ReadSlice(delim)
		if keep && len(out) < maxCellBytes {
			out = append(out, b...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if keep {
			return out[:len(out)-1], nil
		}
		return nil, nil
	}
}

// splitTag splits the inside of a tag (between < and >) into its local name
// ("/c" for an end tag), its attribute text, and whether it closes itself.
func splitTag(t []byte) (name, attrs []byte, selfClosing bool) {
	if n := len(t); n > 0 && t[n-1] == '/' {
		t, selfClosing = t[:n-1], true
	}
	end := bytes.IndexAny(t, " \t\r\n")
	if end < 0 {
		end = len(t)
	}
	name, attrs = t[:end], t[end:]
	closing := len(name) > 0 && name[0] == '/'
	if closing {
		name = name[1:]
	}
	if i := bytes.IndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	if closing {
		name = append([]byte{'/'}, name...)
	}
	return name, attrs, selfClosing
}

// attr is the value of attribute key (without namespace prefix) in attrs.
func attr(attrs []byte, key string) []byte {
	for len(attrs) > 0 {
		attrs = bytes.TrimLeft(attrs, " \t\r\n")
		eq := bytes.IndexByte(attrs, '=')
		if eq < 0 || eq+1 >= len(attrs) {
			return nil
		}
		k := bytes.TrimSpace(attrs[:eq])
		if i := bytes.IndexByte(k, ':'); i >= 0 && string(k[:i]) != "xmlns" {
			k = k[i+1:]
		}
		q := attrs[eq+1]
		if q != '"' && q != '\'' {
			return nil
		}
		end := bytes.IndexByte(attrs[eq+2:], q)
		if end < 0 {
			return nil
		}
		v := attrs[eq+2 : eq+2+end]
		if string(k) == key {
			return v
		}
		attrs = attrs[eq+2+end+1:]
	}
	return nil
}

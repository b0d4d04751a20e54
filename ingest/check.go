package ingest

import (
	"fmt"
	"io"
	"os"
)

// CheckResult is what `gpubill formats check FILE` shows: how gpubill reads a
// file, without importing it.
type CheckResult struct {
	Path       string
	Encoding   string // EncUTF8 … for text, "xlsx" for workbooks
	Delimiter  string // "," "\t" or ";" for text files
	Tables     []CheckTable
	Ignored    []string // sheets without a recognised header
	Candidates []string // first rows of the unrecognised tables
	Error      string   `json:",omitempty"` // CheckPaths: why the file was refused or not recognised
	Err        error    `json:"-"`          // CheckPaths: the error behind Error
}

// CheckTable describes one recognised table.
type CheckTable struct {
	Sheet     string // "" for text files
	Format    FormatInfo
	HeaderRow int // physical line (text) or row (sheet) of the header, 1-based
	Header    []string
	Mapped    []MappedColumn
	Unknown   []string // header cells no column claims: kept in raw only
	Absent    []string // known optional columns the file does not have
}

// MappedColumn is one header cell recognised as a column of the format.
type MappedColumn struct {
	Index   int    // 1-based position in the header
	Header  string // as written in the file
	Field   string // the format's column
	RawOnly bool   // recognised but kept only in raw
}

// Check detects the format of every table in the file at path and reports
// its header row and column mapping. It reads only the first records of each
// table and touches no ledger. A file with no recognised table returns the
// result (with Candidates) and an *InputError.
//
// A ZIP archive of bills is refused here: CheckPaths looks into archives.
func Check(path string) (CheckResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return CheckResult{Path: path}, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		if kind, _ := sniffZip(f, st.Size()); kind == zipArchive {
			return CheckResult{Path: path}, &InputError{File: path, Msg: "a ZIP archive of bills, not one bill: check it with CheckPaths"}
		}
	}
	return checkContent(path, f)
}

// checkContent is Check for the content r of the file shown as path.
func checkContent(path string, r io.Reader) (CheckResult, error) {
	res := CheckResult{Path: path}
	if f, ok := r.(*os.File); ok { // the workbook limits, as for an import (limits.go)
		if st, err := f.Stat(); err == nil {
			if kind, _ := sniffZip(f, st.Size()); kind == zipWorkbook {
				if _, err := checkWorkbook(path, f, st.Size(), ZipLimits{}); err != nil {
					return res, err
				}
			}
		}
	}
	src, err := openSource(path, r)
	if err != nil {
		return res, err
	}
	defer src.close()
	res.Encoding = src.encoding
	if !src.isXLSX() && !src.json && src.pq == nil {
		res.Delimiter = string(src.delimiter)
	}
	var foreign *foreignMatch // the first foreign export seen (foreign.go)
	for i := 0; i < src.numTables(); i++ {
		t, err := src.openTable(i)
		if err != nil {
			return res, err
		}
		b, line, seen, err := findHeader(t)
		closeTable(t)
		if err != nil {
			return res, err
		}
		if b == nil {
			if t.sheet() != "" {
				res.Ignored = append(res.Ignored, t.sheet())
			}
			res.Candidates = append(res.Candidates, describeCandidates(t.sheet(), seen)...)
			if foreign == nil {
				foreign = foreignIn(seen)
			}
			continue
		}
		ct := CheckTable{Sheet: t.sheet(), HeaderRow: line, Header: b.header}
		for _, fi := range Formats() {
			if fi.ID == b.format.ID {
				ct.Format = fi
			}
		}
		field := make(map[int]int) // header index → column index
		for ci, hi := range b.pos {
			if hi >= 0 {
				field[hi] = ci
			} else {
				ct.Absent = append(ct.Absent, b.format.Columns[ci].Headers[0])
			}
		}
		for hi, h := range b.header {
			if ci, ok := field[hi]; ok {
				c := b.format.Columns[ci]
				ct.Mapped = append(ct.Mapped, MappedColumn{Index: hi + 1, Header: h, Field: c.Field, RawOnly: c.RawOnly})
			} else if h != "" {
				ct.Unknown = append(ct.Unknown, h)
			}
		}
		res.Tables = append(res.Tables, ct)
	}
	if len(res.Tables) == 0 {
		if foreign != nil {
			return res, foreignError(path, foreign)
		}
		return res, noFormatError(path, res.Candidates)
	}
	return res, nil
}

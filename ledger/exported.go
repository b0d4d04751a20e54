package ledger

import (
	"slices"
	"strconv"
	"strings"
)

// SourceFileColumn, SourceSheetColumn, SourceRowColumn and
// SourceFormatColumn are the columns in which a FOCUS export of gpubill
// (package export) names where each line came from: the vendor's file as
// the ledger stored its path, a workbook's sheet, the row a person sees
// opening it in a spreadsheet (the import's row map already applied), and
// the format the file was read as. A ledger that imports the export keeps
// them in the lines' raw cells, so that its citations can name the
// vendor's bill instead of the export, and tell a bill the user filled in
// (the gpubill template) from one the platform exported.
const (
	SourceFileColumn   = "x_SourceFile"
	SourceSheetColumn  = "x_SourceSheet"
	SourceRowColumn    = "x_SourceRow"
	SourceFormatColumn = "x_SourceFormat"
)

// Source is where a line of a FOCUS export of gpubill came from. Sheet and
// Format are empty in an export written before they were carried.
type Source struct {
	File, Sheet string
	Row         int // a spreadsheet row already: not to go through a row map again
	Format      string
}

// ExportedSource reads the Source columns from the raw cells of a line
// whose import has header. ok is false when the header lacks the file or
// the row column, either cell is blank, the row is no positive number, or
// the file is a fetch (an api: path has no rows to open).
func ExportedSource(header, raw []string) (Source, bool) {
	cell := func(name string) string {
		if i := slices.Index(header, name); i >= 0 && i < len(raw) {
			return strings.TrimSpace(raw[i])
		}
		return ""
	}
	file := cell(SourceFileColumn)
	row, err := strconv.Atoi(cell(SourceRowColumn))
	if file == "" || err != nil || row <= 0 {
		return Source{}, false
	}
	if _, _, api := APIImport(file); api {
		return Source{}, false
	}
	return Source{File: file, Sheet: cell(SourceSheetColumn), Row: row, Format: cell(SourceFormatColumn)}, true
}

// ExportedHeader reports whether header is that of a FOCUS export of
// gpubill that names its lines' sources.
func ExportedHeader(header []string) bool {
	return slices.Contains(header, SourceFileColumn) && slices.Contains(header, SourceRowColumn)
}

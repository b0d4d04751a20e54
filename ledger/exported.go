package ledger

import (
	"slices"
	"strconv"
	"strings"
)

// SourceFileColumn and SourceRowColumn are the columns in which a FOCUS
// export of gpubill (package export) names where each line came from: the
// vendor's file as the ledger stored its path, and the row a person sees
// opening it in a spreadsheet (the import's row map already applied). A
// ledger that imports the export keeps them in the lines' raw cells, so
// that its citations can name the vendor's bill instead of the export.
const (
	SourceFileColumn = "x_SourceFile"
	SourceRowColumn  = "x_SourceRow"
)

// ExportedSource reads SourceFileColumn and SourceRowColumn from the raw
// cells of a line whose import has header. ok is false when the header
// lacks either column, a cell is blank, the row is no positive number, or
// the file is a fetch (an api: path has no rows to open). The row is a
// spreadsheet row already: it must not go through a row map again. The
// export carries no sheet, so a workbook's row comes without it.
func ExportedSource(header, raw []string) (file string, row int, ok bool) {
	fc, rc := slices.Index(header, SourceFileColumn), slices.Index(header, SourceRowColumn)
	if fc < 0 || rc < 0 || fc >= len(raw) || rc >= len(raw) {
		return "", 0, false
	}
	file = strings.TrimSpace(raw[fc])
	row, err := strconv.Atoi(strings.TrimSpace(raw[rc]))
	if file == "" || err != nil || row <= 0 {
		return "", 0, false
	}
	if _, _, api := APIImport(file); api {
		return "", 0, false
	}
	return file, row, true
}

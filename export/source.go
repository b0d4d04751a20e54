package export

import (
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// SourceFileColumn, SourceSheetColumn, SourceRowColumn,
// SourceFormatColumn and SourceIDsColumn are the columns in which an
// export names where each line came from: the vendor's file as the ledger
// stored its path, a workbook's sheet, the row a person sees opening it in
// a spreadsheet (the import's row map already applied), the format the
// file was read as, and the platform's own ids in that row (IDColumns). A
// ledger that imports the export keeps them in the lines' raw cells, so
// that its citations can name the vendor's bill and ids instead of the
// export, and tell a bill the user filled in (the gpubill template) from
// one the platform exported.
const (
	SourceFileColumn   = "x_SourceFile"
	SourceSheetColumn  = "x_SourceSheet"
	SourceRowColumn    = "x_SourceRow"
	SourceFormatColumn = "x_SourceFormat"
	SourceIDsColumn    = "x_SourceIds"
)

// Source is where a line of a FOCUS export of gpubill came from. Sheet and
// Format are empty in an export written before they were carried.
type Source struct {
	File, Sheet string
	Row         int // a spreadsheet row already: not to go through a row map again
	Format      string
}

// LineSource reads the Source columns from the raw cells of a line
// whose import has header. ok is false when the header lacks the file or
// the row column, either cell is blank, the row is no positive number, or
// the file is a fetch (an api: path has no rows to open).
func LineSource(header, raw []string) (Source, bool) {
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
	if _, _, api := ledger.APIImport(file); api {
		return Source{}, false
	}
	return Source{File: file, Sheet: cell(SourceSheetColumn), Row: row, Format: cell(SourceFormatColumn)}, true
}

// CitedColumns are the columns of header that LineSource and the
// IDColumns of header read, ascending.
func CitedColumns(header []string) []int {
	var cols []int
	for i, h := range header {
		switch h {
		case SourceFileColumn, SourceSheetColumn, SourceRowColumn, SourceFormatColumn:
			cols = append(cols, i)
		}
	}
	cols = append(cols, IDColumnsOf(header).cols...)
	slices.Sort(cols)
	return slices.Compact(cols)
}

// HasSources reports whether header is that of a FOCUS export of
// gpubill that names its lines' sources.
func HasSources(header []string) bool {
	return slices.Contains(header, SourceFileColumn) && slices.Contains(header, SourceRowColumn)
}

// An ID is one identifier cell of a vendor's row: its column's header as
// the bill spells it (platform.IDHeader) and the cell as it was.
type ID struct{ Header, Value string }

// IDColumns are the columns of an import's rows that hold their ids: its
// x_SourceIds column (carried: a line imported from an export keeps the
// ids it names), else every identifier column of its header
// (platform.IDHeader), in the header's order.
type IDColumns struct {
	header  []string
	carried bool
	cols    []int
}

// IDColumnsOf finds the id columns of an import with header.
func IDColumnsOf(header []string) IDColumns {
	c := IDColumns{header: header}
	if i := slices.Index(header, SourceIDsColumn); i >= 0 {
		c.carried, c.cols = true, []int{i}
		return c
	}
	for i, h := range header {
		if platform.IDHeader(h) {
			c.cols = append(c.cols, i)
		}
	}
	return c
}

// Row is the ids of a row of the import, raw its cells: a cell the row
// lacks is blank.
func (c IDColumns) Row(raw []string) []ID {
	cells := make([]string, len(c.cols))
	for k, i := range c.cols {
		if i < len(raw) {
			cells[k] = raw[i]
		}
	}
	return c.ids(cells)
}

// ids are the ids in cells, a row's cells of c.cols.
func (c IDColumns) ids(cells []string) []ID {
	if c.carried {
		if len(cells) == 0 {
			return nil
		}
		return parseIDs(cells[0])
	}
	ids := make([]ID, 0, len(c.cols))
	for k, i := range c.cols {
		v := ""
		if k < len(cells) {
			v = cells[k]
		}
		ids = append(ids, ID{c.header[i], v})
	}
	return ids
}

// idsText is ids as the x_SourceIds cell: a JSON object in column order,
// "" when there are none.
func idsText(ids []ID) string {
	if len(ids) == 0 {
		return ""
	}
	b := []byte{'{'}
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(id.Header) // a string always marshals
		v, _ := json.Marshal(id.Value)
		b = append(append(append(b, k...), ':'), v...)
	}
	return string(append(b, '}'))
}

// parseIDs reads an x_SourceIds cell (idsText); nil when it is blank or
// is not such a cell.
func parseIDs(cell string) []ID {
	if strings.TrimSpace(cell) == "" {
		return nil
	}
	d := json.NewDecoder(strings.NewReader(cell))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var ids []ID
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil
		}
		var v string
		if err := d.Decode(&v); err != nil {
			return nil
		}
		ids = append(ids, ID{k.(string), v}) // a key is a string once the object has begun
	}
	if t, err := d.Token(); err != nil || t != json.Delim('}') {
		return nil
	}
	if _, err := d.Token(); err != io.EOF {
		return nil
	}
	return ids
}

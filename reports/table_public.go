package reports

import (
	"fmt"
	"io"

	"github.com/gpubill/gpubill/internal/mdtext"
)

// Column describes one column of a Table.
type Column struct {
	Key     string // snake_case name: the header of csv and tsv output
	Title   string // header of table and md output, in the report's language
	Numeric bool   // right-aligned in tables; never prefixed against formula injection
}

// Table is a small table for command output that is not a report of its
// own (the import summary, the rule list): it gets the same CJK-aware
// alignment and the same encoders as the reports.
type Table struct{ g grid }

// NewTable starts a table with the given columns.
func NewTable(cols ...Column) *Table {
	t := &Table{}
	for _, c := range cols {
		t.g.cols = append(t.g.cols, column{key: c.Key, title: c.Title, numeric: c.Numeric})
	}
	return t
}

// Add appends a row; it must have one cell per column.
func (t *Table) Add(cells ...string) { t.g.add(cells...) }

// Write encodes the table as table, tsv, md or csv (xlsx and html are
// refused: they are report formats).
func (t *Table) Write(w io.Writer, format string) error {
	switch format {
	case FormatTable, "":
		return t.g.writeTable(w)
	case FormatTSV:
		return t.g.writeTSV(w)
	case FormatMarkdown:
		return t.g.writeMarkdown(w)
	case FormatCSV:
		return t.g.writeCSV(w)
	case FormatXLSX, FormatHTML:
		return fmt.Errorf("table: %s output is for reports; this output is table, tsv, md or csv", format)
	}
	return fmt.Errorf("table: unknown format %q", format)
}

// MarkdownText escapes text for a line of Markdown prose, as the reports
// escape bill cells: no HTML, link, emphasis or list marker survives.
func MarkdownText(s string) string { return mdtext.Inline(s) }

// MarkdownCode shows s (a file name, an id) as a Markdown code span; "-"
// when s is empty.
func MarkdownCode(s string) string { return mdCodeOrDash(s) }

package reports

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gpubill/gpubill/internal/mdtext"
	"github.com/gpubill/gpubill/ledger"
)

// Output formats of Write.
const (
	FormatTable    = "table" // aligned columns for a terminal, headers in Lang
	FormatTSV      = "tsv"   // tab-separated, one header line of keys, raw values (stdout not a terminal)
	FormatMarkdown = "md"    // GitHub markdown tables with a title line
	FormatCSV      = "csv"   // encoding/csv, snake_case header, exact values, formula-safe text
	FormatJSON     = "json"  // the documented JSON contract (DESIGN.md "Command line")
	FormatXLSX     = "xlsx"  // a workbook: one sheet per section, exact numbers, totals as formulas (binary)
	FormatHTML     = "html"  // one self-contained page: inline CSS and SVG charts, no network
)

// Formats lists the formats Write accepts.
var Formats = []string{FormatTable, FormatTSV, FormatMarkdown, FormatCSV, FormatJSON, FormatXLSX, FormatHTML}

// WriteOptions says how a report is encoded.
type WriteOptions struct {
	Format string         // one of Formats; "" = table
	Lang   string         // "zh" or "en"; "" = zh
	TZ     *time.Location // zone for times; nil = Asia/Shanghai
	rows   *rowCiter      // set by FindingsReport.Write (findings_rows.go)
}

// normalize fills the defaults and rejects unknown values.
func (o WriteOptions) normalize() (WriteOptions, error) {
	switch o.Format {
	case "":
		o.Format = FormatTable
	case FormatTable, FormatTSV, FormatMarkdown, FormatCSV, FormatJSON, FormatXLSX, FormatHTML:
	default:
		return o, fmt.Errorf("reports: unknown format %q (want table, tsv, md, csv, json, xlsx or html)", o.Format)
	}
	switch o.Lang {
	case "":
		o.Lang = "zh"
	case "zh", "en":
	default:
		return o, fmt.Errorf("reports: unknown language %q (want zh or en)", o.Lang)
	}
	if o.TZ == nil {
		o.TZ = ledger.DefaultTZ()
	}
	return o, nil
}

// exact tells whether the format carries exact values (machine formats) or
// rounded display values (human formats). XLSX is exact: its cells are
// numbers that Excel formats for display itself; HTML is human.
func (o WriteOptions) exact() bool {
	return o.Format == FormatCSV || o.Format == FormatTSV || o.Format == FormatJSON || o.Format == FormatXLSX
}

// codes tells whether labels (providers, kinds, states …) are written as
// their stable codes, for programs (csv, tsv, json), rather than as names in
// the report's language (table, md, html, and xlsx, which people read even
// though its numbers are exact).
func (o WriteOptions) codes() bool {
	return o.Format == FormatCSV || o.Format == FormatTSV || o.Format == FormatJSON
}

// Binary reports whether format is a binary file format (xlsx), which a
// command must not write to a terminal.
func Binary(format string) bool { return format == FormatXLSX }

// Streams reports whether a report's Write in format fails only where
// writing to its io.Writer fails, having checked its options before the
// first byte: the text formats (table, md, csv, tsv, json). A command may
// send their output to its destination as it is encoded. XLSX and HTML
// are laid out as a whole and may fail midway.
func Streams(format string) bool {
	switch format {
	case FormatTable, FormatMarkdown, FormatCSV, FormatTSV, FormatJSON:
		return true
	}
	return false
}

// section is one titled table of a human-format report.
type section struct {
	key    string // stable snake_case id (xlsx sheet, html anchor); "" = the document's key
	title  string // "" = none
	grid   *grid
	empty  string // shown instead of an empty table; "" = tr("none")
	totals bool   // xlsx: append per-currency total rows of every money column, as formulas

	// currency is the currency of the money columns of a section that has
	// no "currency" column ("" = look for one; xlsx picks the number format
	// by it: 0 decimals for JPY/KRW).
	currency string
	// blocks, when set, are what html shows instead of the grid: one
	// readable block per item (a finding). Other formats use the grid.
	blocks []block
}

// writeSections lays out a human-format (table or md) report: a title line,
// then each section, then notes.
func writeSections(w io.Writer, opts WriteOptions, title string, secs []section, notes []string) error {
	md := opts.Format == FormatMarkdown
	var b strings.Builder
	if md {
		b.WriteString("# " + mdHeading(title) + "\n")
	} else {
		b.WriteString(title + "\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	for _, s := range secs {
		b.Reset()
		b.WriteString("\n")
		if s.title != "" {
			if md {
				b.WriteString("## " + mdHeading(s.title) + "\n\n")
			} else {
				b.WriteString(mdtext.OneLine(s.title) + "\n")
			}
		}
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		if s.grid == nil || len(s.grid.rows) == 0 {
			empty := s.empty
			if empty == "" {
				empty = tr(opts.Lang, "none")
			}
			if _, err := io.WriteString(w, empty+"\n"); err != nil {
				return err
			}
			continue
		}
		var err error
		if md {
			err = s.grid.writeMarkdown(w)
		} else {
			err = s.grid.writeTable(w)
		}
		if err != nil {
			return err
		}
	}
	if len(notes) > 0 {
		b.Reset()
		b.WriteString("\n")
		for _, n := range notes {
			if md {
				b.WriteString(mdtext.Cell(n) + "\n\n")
			} else {
				b.WriteString(n + "\n")
			}
		}
		out := b.String()
		if md {
			out = strings.TrimSuffix(out, "\n")
		}
		if _, err := io.WriteString(w, out); err != nil {
			return err
		}
	}
	return nil
}

// mdHeading makes text safe for a markdown heading.
func mdHeading(s string) string { return mdtext.Cell(s) }

// writeTitledGrid appends a titled table and a note under it to b: a "##"
// heading and a markdown table in md, a title line and an aligned table
// otherwise (the closing totals of the block-layout reports).
func writeTitledGrid(b *strings.Builder, md bool, title string, g *grid, note string) error {
	var err error
	if md {
		b.WriteString("\n## " + mdHeading(title) + "\n\n")
		err = g.writeMarkdown(b)
		b.WriteString("\n" + mdtext.Cell(note) + "\n")
	} else {
		b.WriteString("\n" + title + "\n")
		err = g.writeTable(b)
		b.WriteString("\n" + note + "\n")
	}
	return err
}

package reports

import (
	"fmt"
	"io"

	"github.com/shopspring/decimal"
)

// A document is a report laid out for every format but JSON (which each
// report shapes itself, as the stable contract): a title, titled sections
// that each hold one table, notes, and charts.
//
// How each format uses it:
//   - table, md: every section, then the notes (writeSections).
//   - csv, tsv: the first section only (one file holds one table; put the
//     report's main table first). Totals sections are left out on purpose:
//     re-summing a column must not count twice.
//   - xlsx: one sheet per section (sheet name from the section's key in the
//     report's language), header row frozen, money as numbers with a number
//     format, totals as formulas.
//   - html: one self-contained page: the charts, then every section, then the
//     notes.
//
// A report builds its document with cells for the target: exact decimal
// strings for the exact formats (csv, tsv, xlsx: WriteOptions.exact), rounded
// display strings for the human ones (table, md, html).
type document struct {
	key      string // stable report name: "spend", "findings" … (file and sheet naming)
	title    string // in the report's language, with the month
	sections []section
	notes    []string
	charts   []chart // html only
}

// colKind says what a column holds, so that xlsx and html can type and
// format its cells. Every kind but colText is numeric (right-aligned, never
// neutralised against formula injection).
type colKind int

const (
	colText  colKind = iota
	colMoney         // an amount in the currency of the row's "currency" column (or the section's currency)
	colPrice         // a unit price: like money, but shown with up to 4 decimals
	colCount         // an integer count
	colQty           // a quantity (hours, GB …): a decimal, shown as it is
	colShare         // a ratio 0..1 (shown as a percentage by xlsx and html)
	colTime          // RFC 3339 in exact formats, "2006-01-02 15:04" in human ones
)

// The column constructors: key is the stable snake_case name (csv header,
// html class, xlsx header in exact mode), title the header in the report's
// language.
func textCol(key, title string) column { return column{key: key, title: title} }
func moneyCol(key, title string) column {
	return column{key: key, title: title, numeric: true, kind: colMoney}
}
func priceCol(key, title string) column {
	return column{key: key, title: title, numeric: true, kind: colPrice}
}
func countCol(key, title string) column {
	return column{key: key, title: title, numeric: true, kind: colCount}
}
func qtyCol(key, title string) column {
	return column{key: key, title: title, numeric: true, kind: colQty}
}
func shareCol(key, title string) column {
	return column{key: key, title: title, numeric: true, kind: colShare}
}
func timeCol(key, title string) column { return column{key: key, title: title, kind: colTime} }

// A chart is one picture of the html report: a bar chart (kind "bar": one
// bar per label, stacked when there are several series) or a line chart
// over days (kind "line"). Values are exact money in Currency; a chart never
// mixes currencies (a report draws one chart per currency).
type chart struct {
	key      string // stable id: "spend_by_provider_kind", "daily_spend", "top_resources"
	title    string
	kind     string // "bar" | "line"
	currency string
	labels   []string // x axis (bar: category; line: day "2006-01-02")
	series   []chartSeries
}

type chartSeries struct {
	name   string            // legend entry, in the report's language ("" for a single series)
	values []decimal.Decimal // one per label
}

// A block is one item of a section that html lays out as text rather than
// as a table row: a finding with its reason, advice and evidence.
type block struct {
	id        string   // stable anchor ("finding-" + fingerprint)
	class     string   // css modifier: a severity ("high" …) or ""
	badge     string   // short label shown first (the severity in the report's language)
	summary   []string // the parts of the summary line: provider, resource, period, amount …
	amount    string   // money figure shown prominently ("" = none)
	lines     []string // paragraphs: reason, advice
	listTitle string   // title of list ("证据" …)
	list      []string // e.g. the evidence, one file per entry
}

// writeReport is the Write of a report whose JSON is a contract of its
// own (json) and whose every other format lays out its document.
func writeReport(w io.Writer, opts WriteOptions, json func(WriteOptions) any, doc func(WriteOptions) *document) error {
	opts, err := opts.normalize()
	if err != nil {
		return err
	}
	if opts.Format == FormatJSON {
		return writeJSON(w, json(opts))
	}
	return writeDocument(w, opts, doc(opts))
}

// writeDocument encodes doc in opts.Format (normalised). JSON is not
// handled here: each report writes its own JSON contract.
func writeDocument(w io.Writer, opts WriteOptions, doc *document) error {
	switch opts.Format {
	case FormatTable, FormatMarkdown:
		return writeSections(w, opts, doc.title, doc.sections, doc.notes)
	case FormatCSV, FormatTSV:
		g := &grid{}
		if len(doc.sections) > 0 && doc.sections[0].grid != nil {
			g = doc.sections[0].grid
		}
		if opts.Format == FormatCSV {
			return g.writeCSV(w)
		}
		return g.writeTSV(w)
	case FormatXLSX:
		return writeXLSX(w, opts, doc)
	case FormatHTML:
		return writeHTML(w, opts, doc)
	}
	return fmt.Errorf("reports: %s output is not available for the %s report", opts.Format, doc.key)
}

// addMessages adds translations (key → {zh, en}) to the shared table, so
// that each report keeps its own text in its own file. A key defined twice
// is a programming error, caught by every test run.
func addMessages(m map[string][2]string) {
	for k, v := range m {
		if _, dup := messages[k]; dup {
			panic("reports: message " + k + " defined twice")
		}
		messages[k] = v
	}
}

package reports

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/gpubill/gpubill/internal/mdtext"
	"github.com/gpubill/gpubill/internal/xlsxcell"
)

// grid is one table of a report, before encoding. Cells are already
// formatted for the target (display or exact values); the encoders only lay
// them out.
type grid struct {
	cols []column
	rows [][]string
}

type column struct {
	key     string  // stable snake_case name: CSV/TSV header
	title   string  // header in the report's language: table/markdown
	numeric bool    // right-aligned; never prefixed against formula injection
	kind    colKind // what the cells hold (xlsx and html type them by it)
}

func (g *grid) add(cells ...string) { g.rows = append(g.rows, cells) }

// widthCond measures display width: CJK ideographs take two cells. East
// Asian "ambiguous" characters count as one cell whatever the locale, so the
// layout does not depend on the environment; reports keep such characters
// out of every column but the last.
var widthCond = &runewidth.Condition{EastAsianWidth: false}

func displayWidth(s string) int { return widthCond.StringWidth(s) }

// colGap separates the columns of an aligned table.
const colGap = "  "

// writeTable writes g as columns aligned by display width, with the header
// in lang and no trailing spaces.
func (g *grid) writeTable(w io.Writer) error {
	widths := make([]int, len(g.cols))
	for i, c := range g.cols {
		widths[i] = displayWidth(c.title)
	}
	rows := make([][]string, len(g.rows))
	for j, r := range g.rows {
		rows[j] = make([]string, len(r))
		for i, cell := range r {
			rows[j][i] = mdtext.OneLine(cell)
			widths[i] = max(widths[i], displayWidth(rows[j][i]))
		}
	}
	// A numeric column with partial sums ("7.50*") gets a blank after its
	// other cells, so that the digits stay aligned.
	titles := make([]string, len(g.cols))
	for i, c := range g.cols {
		titles[i] = c.title
	}
	for i, c := range g.cols {
		if !c.numeric || !anyMarked(rows, i) {
			continue
		}
		for _, r := range rows {
			if !strings.HasSuffix(r[i], partialMark) {
				r[i] += " "
			}
		}
		titles[i] += " "
		widths[i] = max(widths[i], displayWidth(titles[i]))
		for _, r := range rows {
			widths[i] = max(widths[i], displayWidth(r[i]))
		}
	}
	// Lines lose their trailing blanks unless the last column is numeric
	// (right-aligned, where a blank keeps the digits in line).
	trim := len(g.cols) == 0 || !g.cols[len(g.cols)-1].numeric
	bw := bufio.NewWriter(w)
	line := func(cells []string) {
		var b strings.Builder
		for i, cell := range cells {
			if i > 0 {
				b.WriteString(colGap)
			}
			pad := strings.Repeat(" ", widths[i]-displayWidth(cell))
			if g.cols[i].numeric {
				b.WriteString(pad)
				b.WriteString(cell)
			} else {
				b.WriteString(cell)
				b.WriteString(pad)
			}
		}
		out := b.String()
		if trim {
			out = strings.TrimRight(out, " ")
		}
		bw.WriteString(out)
		bw.WriteByte('\n')
	}
	line(titles)
	for _, r := range rows {
		line(r)
	}
	return bw.Flush()
}

// writeTSV writes g as tab-separated lines: one header line of keys, then
// the raw values (cells cannot hold tabs or line breaks: see mdtext.OneLine).
func (g *grid) writeTSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	keys := make([]string, len(g.cols))
	for i, c := range g.cols {
		keys[i] = c.key
	}
	bw.WriteString(strings.Join(keys, "\t") + "\n")
	for _, r := range g.rows {
		cells := make([]string, len(r))
		for i, cell := range r {
			cells[i] = mdtext.OneLine(cell)
			if !g.cols[i].numeric && cells[i] != "-" {
				// TSV is what a pipe gets by default, and what a paste
				// into a spreadsheet reads: neutralised as in writeCSV,
				// except the lone "-" of an unknown value (no formula).
				cells[i] = xlsxcell.Neutralise(cells[i])
			}
		}
		bw.WriteString(strings.Join(cells, "\t") + "\n")
	}
	return bw.Flush()
}

// writeMarkdown writes g as a GitHub markdown table (money right-aligned).
func (g *grid) writeMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var head, rule []string
	for _, c := range g.cols {
		head = append(head, mdtext.Cell(c.title))
		if c.numeric {
			rule = append(rule, "---:")
		} else {
			rule = append(rule, "---")
		}
	}
	fmt.Fprintf(bw, "| %s |\n|%s|\n", strings.Join(head, " | "), strings.Join(rule, "|"))
	for _, r := range g.rows {
		cells := make([]string, len(r))
		for i, cell := range r {
			cells[i] = mdtext.Cell(cell)
		}
		fmt.Fprintf(bw, "| %s |\n", strings.Join(cells, " | "))
	}
	return bw.Flush()
}

// writeCSV writes g with encoding/csv: a header of keys, exact values, and
// text cells protected against formula injection.
func (g *grid) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	keys := make([]string, len(g.cols))
	for i, c := range g.cols {
		keys[i] = c.key
	}
	if err := cw.Write(keys); err != nil {
		return err
	}
	for _, r := range g.rows {
		cells := make([]string, len(r))
		for i, cell := range r {
			if g.cols[i].numeric {
				cells[i] = cell
			} else {
				cells[i] = xlsxcell.Neutralise(cell)
			}
		}
		if err := cw.Write(cells); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// partialMark flags a sum that covers only some rows (human formats).
const partialMark = "*"

func anyMarked(rows [][]string, col int) bool {
	for _, r := range rows {
		if strings.HasSuffix(r[col], partialMark) {
			return true
		}
	}
	return false
}

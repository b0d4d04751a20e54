package export

import (
	"bufio"
	"encoding/csv"
	"io"
)

// csvEncoder writes a partition as CSV: a header of the column names, then
// one record a line item, every value as text: amounts as the ledger's exact
// decimal text, times in UTC (TimeLayout), NULL as an empty cell.
//
// Cells are written as the ledger holds them, with no leading apostrophe
// for a text beginning with = + - @: the export is data for engines and
// for gpubill import, not a spreadsheet report, and must read back exactly.
type csvEncoder struct {
	bw  *bufio.Writer
	w   *csv.Writer
	rec []string
}

func newCSVEncoder(w io.Writer) (*csvEncoder, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	e := &csvEncoder{bw: bw, w: csv.NewWriter(bw), rec: make([]string, len(columns))}
	for i, c := range columns {
		e.rec[i] = c.name
	}
	return e, e.w.Write(e.rec)
}

func (e *csvEncoder) encode(cells []cell) error {
	for i := range cells {
		e.rec[i] = cells[i].text // "" when null
	}
	return e.w.Write(e.rec)
}

func (e *csvEncoder) close() error {
	e.w.Flush()
	if err := e.w.Error(); err != nil {
		return err
	}
	return e.bw.Flush()
}

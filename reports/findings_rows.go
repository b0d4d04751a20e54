package reports

import (
	"context"
	"fmt"
	"slices"

	"github.com/gpubill/gpubill/ledger"
)

// rowCiter turns the evidence's record numbers (ledger.Evidence.Row, the
// JSON contract) into the rows a person sees opening the file in a
// spreadsheet, from the imports' row mappings (ledger.Import.RowOf). A path
// imported several times with different mappings, or never mapped (an
// import made before migration 0011), keeps its record numbers.
type rowCiter map[string]*ledger.Import

// newRowCiter reads the imports of db into a rowCiter.
func newRowCiter(ctx context.Context, db *ledger.DB) (rowCiter, error) {
	ims, err := db.Imports(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("reports: findings: %w", err)
	}
	c := rowCiter{}
	for i := range ims {
		im := &ims[i]
		prev, seen := c[im.Path]
		switch {
		case !seen:
			c[im.Path] = im
		case prev != nil && !sameRowMapping(prev, im):
			c[im.Path] = nil
		}
	}
	return c, nil
}

func sameRowMapping(a, b *ledger.Import) bool {
	return a.RowMapped == b.RowMapped && a.HeaderRow == b.HeaderRow && a.Sheet == b.Sheet && slices.Equal(a.RowMap, b.RowMap)
}

// rows maps the records of file to spreadsheet rows in place, and returns
// the sheet to cite them on ("" for a CSV file); ok is false where file
// has no single mapping, and records are then left as they are.
func (c rowCiter) rows(file string, records []int) (sheet string, ok bool) {
	im := c[file]
	if im == nil || !im.RowMapped {
		return "", false
	}
	shown := make([]int, len(records))
	for i, r := range records {
		row, ok := im.RowOf(r)
		if !ok {
			return "", false
		}
		shown[i] = row
	}
	copy(records, shown)
	return im.Sheet, true
}

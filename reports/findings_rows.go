package reports

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpubill/gpubill/export"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// rowCiter turns the evidence's record numbers (ledger.Evidence.Row, the
// JSON contract) into the rows a person sees opening the file in a
// spreadsheet, from the imports' row mappings (ledger.Import.RowOf). A path
// imported several times with different mappings, or never mapped (an
// import made before migration 0011), keeps its record numbers.
//
// Evidence from fetched lines (an api: import) has no file to open: it is
// cited by the API and the vendor's own line id (ledger.LineIDColumn),
// read from the cited lines' raw cells. Evidence from lines imported from
// gpubill's own FOCUS export is cited, the same way, by the vendor's file
// and row the export carried (export.LineSource).
type rowCiter struct {
	imports map[string]*ledger.Import
	lineIDs map[int64]string        // line item id → the vendor's line id, for api: evidence
	sources map[int64]export.Source // line item id → the vendor's file, sheet and row, for exported lines
}

// newRowCiter reads the imports of db into a rowCiter, and the line ids of
// the api: lines that fs cite and the sources of the exported lines.
func newRowCiter(ctx context.Context, db *ledger.DB, fs []ledger.Finding) (*rowCiter, error) {
	ims, err := db.Imports(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("reports: findings: %w", err)
	}
	c := &rowCiter{imports: map[string]*ledger.Import{}}
	for i := range ims {
		im := &ims[i]
		prev, seen := c.imports[im.Path]
		switch {
		case !seen:
			c.imports[im.Path] = im
		case prev != nil && !sameRowMapping(prev, im):
			c.imports[im.Path] = nil
		}
	}
	// Only fetched and exported imports have citations in their raw cells.
	carries := map[string]bool{}
	for i := range ims {
		im := &ims[i]
		_, _, api := ledger.APIImport(im.Path)
		if api || export.HasSources(im.Header) {
			carries[im.Path] = true
		}
	}
	if len(carries) == 0 {
		return c, nil
	}
	cited := map[int64]bool{}
	byPath := map[string][2]int64{} // path → the lowest and highest line item id cited
	for i := range fs {
		for _, e := range fs[i].Evidence {
			if !carries[e.File] {
				continue
			}
			cited[e.LineItemID] = true
			r, ok := byPath[e.File]
			if !ok || e.LineItemID < r[0] {
				r[0] = e.LineItemID
			}
			r[1] = max(r[1], e.LineItemID)
			byPath[e.File] = r
		}
	}
	for i := range ims {
		im := &ims[i]
		r, ok := byPath[im.Path]
		if !ok {
			continue
		}
		col := -1
		if _, _, api := ledger.APIImport(im.Path); api {
			col = slices.Index(im.Header, ledger.LineIDColumn)
		}
		if col < 0 && !export.HasSources(im.Header) {
			continue
		}
		f := ledger.Filter{ImportID: im.ID, IDMin: r[0], IDMax: r[1]}
		err := db.EachLineItem(ctx, f, ledger.Read{Order: ledger.AnyOrder}, func(li *ledger.LineItem) error {
			if !cited[li.ID] {
				return nil
			}
			if col >= 0 && col < len(li.Raw) && li.Raw[col] != "" {
				if c.lineIDs == nil {
					c.lineIDs = map[int64]string{}
				}
				c.lineIDs[li.ID] = li.Raw[col]
			} else if src, ok := export.LineSource(im.Header, li.Raw); ok {
				if c.sources == nil {
					c.sources = map[int64]export.Source{}
				}
				c.sources[li.ID] = src
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reports: findings: line ids and sources of %s: %w", im.Path, err)
		}
	}
	return c, nil
}

// FileRow is where a person finds record (a row's SourceRow) of import im
// opening file: file:row, or "file Sheet!row" in a workbook, as the import
// mapped its records (ledger.Import.RowOf); file:record where im is nil or
// mapped nothing.
func FileRow(file string, im *ledger.Import, record int) string {
	if im != nil {
		if row, ok := im.RowOf(record); ok && im.Sheet != "" {
			return file + " " + im.Sheet + "!" + strconv.Itoa(row)
		} else if ok {
			return file + ":" + strconv.Itoa(row)
		}
	}
	return file + ":" + strconv.Itoa(record)
}

func sameRowMapping(a, b *ledger.Import) bool {
	return a.RowMapped == b.RowMapped && a.HeaderRow == b.HeaderRow && a.Sheet == b.Sheet && slices.Equal(a.RowMap, b.RowMap)
}

// rows maps the records of file to spreadsheet rows in place, and returns
// the sheet to cite them on ("" for a CSV file); ok is false where file
// has no single mapping, and records are then left as they are.
func (c *rowCiter) rows(file string, records []int) (sheet string, ok bool) {
	if c == nil {
		return "", false
	}
	im := c.imports[file]
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

// lineID is the vendor's id of the fetched line item id, "" when the
// evidence is a file's row or the line carries none.
func (c *rowCiter) lineID(id int64) string {
	if c == nil {
		return ""
	}
	return c.lineIDs[id]
}

// source is the vendor's file, sheet and row of line item id when it was
// imported from gpubill's FOCUS export; ok is false otherwise.
func (c *rowCiter) source(id int64) (export.Source, bool) {
	if c == nil {
		return export.Source{}, false
	}
	s, ok := c.sources[id]
	return s, ok
}

// apiCite renders the evidence of an api: import for people: the cloud,
// the API and the lines' ids ("腾讯云 API DescribeBillDetail · 明细 ID
// 2026…/GPU"), at most maxRangesShown of them, then "…" and their count;
// ok is false when path is no api: import or a line lacks its id.
func (c *rowCiter) apiCite(path string, ids []int64, lang string) (string, bool) {
	provider, api, ok := ledger.APIImport(path)
	if !ok || len(ids) == 0 {
		return "", false
	}
	var lines []string
	seen := map[string]bool{}
	for _, id := range ids {
		l := c.lineID(id)
		if l == "" {
			return "", false
		}
		if !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	n := len(lines)
	if n > maxRangesShown {
		lines = append(lines[:maxRangesShown], "…")
	}
	if n == 1 {
		return fmt.Sprintf(tr(lang, "find.api_line"), platform.Name(provider, lang), api, lines[0]), true
	}
	return fmt.Sprintf(tr(lang, "find.api_lines"), platform.Name(provider, lang), api, strings.Join(lines, ", "), n), true
}

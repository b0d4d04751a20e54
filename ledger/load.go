package ledger

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"zombiezen.com/go/sqlite"
)

// Reading line items. Every read builds its items from the column table
// (columns.go) on a liteConn: EachLineItem streams a selection, LoadColumns
// keeps a month in memory for an analysis (the audit, whatif), reading it in
// id ranges on several connections at once, LineItemsByID looks up the few
// items a report cites, ScanItems hands a report the named columns of each
// row.

// loadSlab is how many items one allocation of LoadColumns holds.
const loadSlab = 1024

// loadPartMin is the fewest ids worth a reader of their own.
var loadPartMin int64 = 20000

// byIDChunk is how many ids one look-up statement binds.
const byIDChunk = 500

// LoadColumns returns the line items f selects in ByResource order
// (CompareItems), with the named columns of the column table read (nil:
// all but raw) and the others' fields zero. The order needs provider,
// resource_id, charge_period_start and id, and File import_id. Items may
// share strings and amounts; callers must treat them as read-only.
func (db *DB) LoadColumns(ctx context.Context, f Filter, names []string) ([]*LineItem, error) {
	cols, list, err := selectColumns(names, true)
	if err != nil {
		return nil, err
	}
	parts, err := db.parts(ctx, f)
	if err != nil || len(parts) == 0 {
		return nil, err
	}
	paths, err := db.ImportPaths(ctx)
	if err != nil {
		return nil, err
	}
	out := make([][]*LineItem, len(parts))
	err = readParts(parts, func(p int, pf Filter) error {
		ir := newItemReader(cols, paths)
		var slab []LineItem
		where, args := pf.where()
		err := db.Scan(ctx, "SELECT "+list+" FROM line_items li"+where, args, func(r Row) error {
			if len(slab) == 0 {
				slab = make([]LineItem, loadSlab)
			}
			li := &slab[0]
			slab = slab[1:]
			out[p] = append(out[p], li)
			return ir.read(r, li)
		})
		slices.SortFunc(out[p], CompareItems)
		return err
	})()
	if err != nil {
		return nil, fmt.Errorf("ledger: load line items: %w", err)
	}
	return MergeItems(out...), nil
}

// CompareItems is the ByResource order: by provider, resource, charge
// period start and id.
func CompareItems(a, b *LineItem) int {
	if c := strings.Compare(a.Provider, b.Provider); c != 0 {
		return c
	}
	if c := strings.Compare(a.ResourceID, b.ResourceID); c != 0 {
		return c
	}
	if c := a.ChargePeriodStart.Compare(b.ChargePeriodStart); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// MergeItems merges lists sorted by CompareItems into one (on equal items,
// the earlier list's first).
func MergeItems(lists ...[]*LineItem) []*LineItem {
	total := 0
	var heads [][]*LineItem
	for _, l := range lists {
		total += len(l)
		if len(l) > 0 {
			heads = append(heads, l)
		}
	}
	out := make([]*LineItem, 0, total)
	for len(heads) > 1 {
		best := 0
		for i := 1; i < len(heads); i++ {
			if CompareItems(heads[i][0], heads[best][0]) < 0 {
				best = i
			}
		}
		out = append(out, heads[best][0])
		if heads[best] = heads[best][1:]; len(heads[best]) == 0 {
			heads = slices.Delete(heads, best, best+1)
		}
	}
	for _, l := range heads {
		out = append(out, l...)
	}
	return out
}

// readParts runs read for each id range of parts side by side, and returns
// a function that waits for them all and returns their errors joined.
func readParts(parts []Filter, read func(i int, f Filter) error) (wait func() error) {
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, pf := range parts {
		wg.Go(func() { errs[i] = read(i, pf) })
	}
	return func() error {
		wg.Wait()
		return errors.Join(errs...)
	}
}

// parts splits the id range of what f selects (its ends found on the
// month index) into ranges for readers side by side: as many as Go has
// processors, at most 4, at least loadPartMin ids each. None when nothing
// is selected.
func (db *DB) parts(ctx context.Context, f Filter) ([]Filter, error) {
	where, args := Filter{Month: f.Month, IDMin: f.IDMin, IDMax: f.IDMax}.where()
	var lo, hi int64
	err := db.sql.QueryRowContext(ctx, "SELECT ifnull((SELECT min(li.id) FROM line_items li"+where+"), 0), "+
		"ifnull((SELECT max(li.id) FROM line_items li"+where+"), 0)", append(append([]any{}, args...), args...)...).Scan(&lo, &hi)
	if err != nil || hi == 0 {
		return nil, err
	}
	k := max(1, min(runtime.GOMAXPROCS(0), 4, int((hi-lo+1)/loadPartMin)))
	step := (hi - lo + int64(k)) / int64(k)
	var out []Filter
	for p := range k {
		pf := f
		pf.IDMin, pf.IDMax = lo+int64(p)*step, min(lo+int64(p+1)*step-1, hi)
		if pf.IDMin > hi {
			break
		}
		out = append(out, pf)
	}
	return out, nil
}

// ScanItems reads the columns cols of the line items f selects, in id
// ranges side by side, and hands each row, as a line item (ItemsOf), to the
// callback of its range: part(i) is called once per range before the reads
// start, and its callback runs on range i's goroutine only, in order within
// the range. It returns the number of ranges (0 when nothing is selected).
func (db *DB) ScanItems(ctx context.Context, f Filter, order Order, cols []string, part func(i int) func(*LineItem) error) (int, error) {
	_, list, err := selectColumns(cols, false)
	if err != nil {
		return 0, err
	}
	parts, err := db.parts(ctx, f)
	if err != nil || len(parts) == 0 {
		return 0, err
	}
	fns := make([]func(Row) error, len(parts))
	for i := range parts {
		fns[i], _ = ItemsOf(cols, part(i))
	}
	return len(parts), readParts(parts, func(i int, pf Filter) error {
		where, args := pf.where()
		return db.Scan(ctx, "SELECT "+list+" FROM line_items li"+where+order.orderBy(), args, fns[i])
	})()
}

// ItemsOf turns fn, a callback of line items, into a callback of the rows
// of a SELECT of the named columns cols of line_items (in that order), for
// Scan: only the fields of cols are set (by the column table), the others
// are zero. The item is reused, valid only inside fn; texts and amounts
// are shared as EachLineItem shares them.
func ItemsOf(cols []string, fn func(*LineItem) error) (func(Row) error, error) {
	sel, _, err := selectColumns(cols, false)
	if err != nil {
		return nil, err
	}
	ir, li := newItemReader(sel, nil), &LineItem{}
	return func(r Row) error {
		if err := ir.read(r, li); err != nil { // each field of cols is written on every row
			return err
		}
		return fn(li)
	}, nil
}

// EachLineItem streams the line items selected by f to fn, in r.Order.
// Each call of fn gets an item of its own, which fn may keep. Returning an
// error from fn stops the iteration with that error.
func (db *DB) EachLineItem(ctx context.Context, f Filter, r Read, fn func(*LineItem) error) error {
	paths, err := db.ImportPaths(ctx)
	if err != nil {
		return err
	}
	cols, list, _ := selectColumns(nil, r.NoRaw || r.Cells != nil)
	where, args := f.where()
	if r.Cells != nil && !r.NoRaw {
		cols, list = append(cols, &lineItemColumns[columnIndex["raw"]]), list+", "+cellsOf(r.Cells)
	}
	ir := newItemReader(cols, paths)
	return db.Scan(ctx, "SELECT "+list+" FROM line_items li"+where+r.Order.orderBy(), args, func(row Row) error {
		li := &LineItem{}
		if err := ir.read(row, li); err != nil {
			return err
		}
		if r.NoRaw {
			li.Raw = []string{}
		}
		return fn(li)
	})
}

// cellsOf is Read.Cells' select-list expression: each import's cells as a
// JSON array (->> reads a missing one as NULL: ""), a branch per cell list,
// the ids written out (many imports meet no placeholder limit).
func cellsOf(cells map[int64][]int) string {
	groups := map[string][]string{} // a branch's json_array → its imports
	for id, cs := range cells {
		paths := make([]string, len(cs))
		for i, c := range cs {
			paths[i] = fmt.Sprintf("li.raw ->> '$[%d]'", c)
		}
		arr := "json_array(" + strings.Join(paths, ", ") + ")"
		groups[arr] = append(groups[arr], strconv.FormatInt(id, 10))
	}
	if len(groups) == 0 {
		return "NULL"
	}
	sel := "CASE"
	for _, arr := range slices.Sorted(maps.Keys(groups)) {
		slices.Sort(groups[arr])
		sel += " WHEN li.import_id IN (" + strings.Join(groups[arr], ",") + ") THEN " + arr
	}
	return sel + " END"
}

// LineItemsByID returns the line items of month (all months when "") whose
// id is in ids (sorted, distinct), without their raw cells, in id order.
// An id of another month, or one the ledger no longer holds, has no item.
func (db *DB) LineItemsByID(ctx context.Context, month string, ids []int64) ([]*LineItem, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	paths, err := db.ImportPaths(ctx)
	if err != nil {
		return nil, err
	}
	cols, list, _ := selectColumns(nil, true)
	q := "SELECT " + list + " FROM line_items li WHERE li.id IN (%s)"
	var args []any
	if month != "" {
		q += " AND +li.billing_period = ?" // the id decides the row: no month index
		args = append(args, month)
	}
	ir := newItemReader(cols, paths)
	var items []*LineItem
	err = db.eachChunk(ctx, ids, q, args, func(r Row) error {
		li := &LineItem{}
		items = append(items, li)
		if err := ir.read(r, li); err != nil {
			return err
		}
		li.Raw = []string{}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ledger: line items by id: %w", err)
	}
	slices.SortFunc(items, func(a, b *LineItem) int { return cmp.Compare(a.ID, b.ID) })
	return items, nil
}

// eachChunk runs q, whose %s takes the placeholders of a chunk of ids and
// whose other placeholders take args, for each chunk of ids in turn, on a
// read-only connection of its own in one snapshot, and calls fn for each
// row.
func (db *DB) eachChunk(ctx context.Context, ids []int64, q string, args []any, fn func(Row) error) error {
	c, err := openLite(db.path, sqlite.OpenReadOnly)
	if err != nil {
		return err
	}
	defer c.close()
	if _, err := c.exec(ctx, "BEGIN"); err != nil { // one snapshot for all chunks
		return err
	}
	defer c.exec(context.Background(), "ROLLBACK")
	bound := make([]any, 0, byIDChunk+len(args))
	for start := 0; start < len(ids); start += byIDChunk {
		chunk := ids[start:min(start+byIDChunk, len(ids))]
		bound = bound[:0]
		for _, id := range chunk {
			bound = append(bound, id)
		}
		bound = append(bound, args...)
		err := c.query(ctx, fmt.Sprintf(q, placeholders(len(chunk))), bound, fn)
		if err != nil {
			return err
		}
	}
	return nil
}

// ImportPaths maps every import id to its file path (evidence names rows
// by file and row).
func (db *DB) ImportPaths(ctx context.Context) (map[int64]string, error) {
	paths := map[int64]string{}
	err := eachRow(ctx, db.sql, "import paths", `SELECT id, path FROM imports`, nil, func(scan func(...any) error) error {
		var id int64
		var p string
		if err := scan(&id, &p); err != nil {
			return err
		}
		paths[id] = p
		return nil
	})
	return paths, err
}

// RawCells returns, by id, the source cells that cells lists (as Read.Cells)
// for the import of each line item in ids; items of other imports, or gone,
// are absent. For the rows a report cites, not for a month.
func (db *DB) RawCells(ctx context.Context, ids []int64, cells map[int64][]int) (map[int64][]string, error) {
	cols, list, _ := selectColumns([]string{"id"}, true)
	ir := newItemReader(append(cols, &lineItemColumns[columnIndex["raw"]]), nil)
	out := make(map[int64][]string, len(ids))
	err := db.eachChunk(ctx, ids, "SELECT "+list+", "+cellsOf(cells)+" FROM line_items li WHERE li.id IN (%s)", nil, func(r Row) error {
		var li LineItem
		if err := ir.read(r, &li); err != nil {
			return err
		}
		if len(li.Raw) > 0 {
			out[li.ID] = li.Raw
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ledger: raw cells: %w", err)
	}
	return out, nil
}

// Owner is who a line item is charged to: its provider, resource and
// billing account.
type Owner struct{ Provider, ResourceID, BillingAccountID string }

// ChargedOwners returns, once each, the owners of the items f selects that
// charge something: not credits, taxes or adjustments, and not negative
// (a stored amount is negative when it has a minus sign and a digit that
// is not 0).
func (db *DB) ChargedOwners(ctx context.Context, f Filter) ([]Owner, error) {
	where, args := f.where()
	cond := " li.charge_category NOT IN (?, ?, ?) AND NOT (li.billed_cost LIKE '-%' AND trim(substr(li.billed_cost, 2), '0.') <> '')"
	if where == "" {
		where = " WHERE" + cond
	} else {
		where += " AND" + cond
	}
	args = append(args, CategoryCredit, CategoryTax, CategoryAdjustment)
	var out []Owner
	err := db.Scan(ctx, "SELECT DISTINCT li.provider, li.resource_id, li.billing_account_id FROM line_items li"+where, args, func(r Row) error {
		out = append(out, Owner{r.Text(0), r.Text(1), r.Text(2)})
		return nil
	})
	return out, err
}

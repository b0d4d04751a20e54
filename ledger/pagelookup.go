package ledger

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"
)

// Looking rows up by id from the table's pages. A report that cites line
// items (the findings' evidence, its billed costs) reads tens of thousands
// of them by id: through SQL, each id went down the table's tree from its
// root, a B-tree search and a page fetch per level, and its row through
// the virtual machine (report findings of a 297,600-item month: 55k ids,
// 0.14 s of its 0.33 s of CPU). pageLookup walks the tree once, going down
// only into the subtrees that hold one of the ids, and decodes only their
// records, as pageScan does (pages.go).

// pageLookups counts the look-ups pageLookup made (for the tests).
var pageLookups atomic.Int64

// pageLookup calls fn with the columns cols (names of line_items, in this
// order) of each row of ids (ascending, no repeats) that the table holds,
// by ascending id; ids it does not hold are skipped. It returns used =
// false, having called nothing, when the ledger is not one pageScan reads:
// the caller then reads through SQL.
func (db *DB) pageLookup(ctx context.Context, ids []int64, cols []string, fn func(Row) error) (used bool, err error) {
	if len(ids) == 0 {
		return true, nil
	}
	if !slices.IsSorted(ids) {
		return false, fmt.Errorf("ledger: look up: ids not in ascending order")
	}
	p, err := db.openPages(ctx, Filter{}, cols)
	if err != nil || p == nil {
		return false, err
	}
	defer p.c.close()
	pageLookups.Add(1)
	if err := p.walkIDs(ctx, p.root, ids, 0, fn); err != nil {
		return true, fmt.Errorf("ledger: look up: %w", err)
	}
	return true, nil
}

// walkIDs reads the rows of ids (ascending) under page pgno of the tree.
func (p *pageReader) walkIDs(ctx context.Context, pgno uint32, ids []int64, depth int, fn func(Row) error) error {
	b, hdr, err := p.visit(ctx, pgno, depth)
	if err != nil {
		return err
	}
	switch b[hdr] {
	case 0x0d: // a table leaf: its cells and the ids, side by side
		return p.leaf(ctx, pgno, b, hdr, false, func(id int64) bool {
			for len(ids) > 0 && ids[0] < id {
				ids = ids[1:]
			}
			return len(ids) > 0 && ids[0] == id
		}, fn)
	case 0x05: // a table interior page: each child with the ids its subtree may hold
		type part struct {
			child uint32
			ids   []int64
		}
		var parts []part // gathered first: the page is not valid past the next fetch
		rest := ids
		right, err := interiorCells(b, hdr, p.usable, func(child uint32, key int64) bool {
			n := sort.Search(len(rest), func(i int) bool { return rest[i] > key }) // the ids ≤ key
			if n > 0 {
				parts = append(parts, part{child, rest[:n]})
				rest = rest[n:]
			}
			return len(rest) > 0
		})
		if err != nil {
			return fmt.Errorf("page %d: %w", pgno, err)
		}
		if len(rest) > 0 {
			parts = append(parts, part{right, rest})
		}
		for _, pt := range parts {
			if err := p.walkIDs(ctx, pt.child, pt.ids, depth+1, fn); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("page %d: not a page of a table's tree (type %d): %w", pgno, b[hdr], errCorruptPage)
}

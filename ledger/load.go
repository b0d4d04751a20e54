package ledger

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/shopspring/decimal"
)

// Loading a month of line items into memory for an analysis (the audit,
// whatif). EachLineItem hands out one item at a time and fills every field;
// LoadLineItems keeps them all, so what matters is what a million items
// cost to build and to hold:
//   - only the columns an analysis reads, into an Item, never the raw
//     cells, tags or the payment split;
//   - items are allocated in slabs, not one by one;
//   - repeated texts (provider, account, kind, resource id, units …) are
//     one string shared by the items, and so are repeated amounts (a
//     decimal.Decimal is immutable: sharing its coefficient is safe);
//   - the selection is read in id ranges on several connections at once,
//     each scanning its range of the table rather than looking every row up
//     through the month index when the month fills most of its range.

// loadColumnNames are the columns LoadLineItems reads, in the order of
// the lc constants; loadColumns is their list in SQL.
var (
	loadColumnNames = []string{"id", "provider", "billing_account_id", "billing_period", "charge_period_start",
		"charge_period_end", "charge_category", "kind", "pricing_model", "service_name", "resource_id", "resource_type",
		"sku", "parent_resource_id", "gpu_model", "gpu_count", "consumed_quantity", "consumed_unit", "pricing_quantity",
		"pricing_unit", "list_unit_price", "billed_cost", "currency", "usage_start", "usage_end", "description",
		"import_id", "source_row", "row_key"}
	loadColumns = strings.Join(loadColumnNames, ", ")
)

// Column indexes of loadColumns.
const (
	lcID = iota
	lcProvider
	lcAccount
	lcPeriod
	lcStart
	lcEnd
	lcCategory
	lcKind
	lcPricingModel
	lcService
	lcResource
	lcResourceType
	lcSKU
	lcParent
	lcGPUModel
	lcGPUCount
	lcConsumedQty
	lcConsumedUnit
	lcPricingQty
	lcPricingUnit
	lcListUnitPrice
	lcBilled
	lcCurrency
	lcUsageStart
	lcUsageEnd
	lcDescription
	lcImport
	lcSourceRow
	lcRowKey
	lcCount // columns
)

// loadPartMin is the fewest items worth a reader of their own.
var loadPartMin int64 = 20000

// loadSlab is how many items one allocation holds.
const loadSlab = 1024

// LoadLineItems returns the line items f selects, as Items, in
// EachLineItem's order (CompareItems) unless f.Unordered. Items may share
// strings and amounts; callers must treat them as read-only. f.NoRaw is
// implied; f.IDMin and f.IDMax narrow the selection.
func (db *DB) LoadLineItems(ctx context.Context, f Filter) ([]*LineItem, error) {
	f.NoRaw = true
	sel, err := db.selection(ctx, f)
	if err != nil || sel.n == 0 {
		return nil, err
	}
	paths, err := db.ImportPaths(ctx)
	if err != nil {
		return nil, err
	}
	parts := sel.parts()
	out := make([][]*LineItem, len(parts))
	err = readParts(parts, func(p int, pf Filter) error {
		var err error
		out[p], err = db.loadPart(ctx, pf, paths, int(sel.n)/len(parts))
		if !f.Unordered {
			sortLineItems(out[p])
		}
		return err
	})()
	if err != nil {
		return nil, fmt.Errorf("ledger: load line items: %w", err)
	}
	if f.Unordered {
		return slices.Concat(out...), nil
	}
	return MergeItems(out...), nil
}

// CompareItems orders line items as EachLineItem does: by provider,
// resource, charge period start and id.
func CompareItems(a, b *LineItem) int { return keyOf(a).compare(keyOf(b)) }

// CompareLineItems is CompareItems of two LineItems.
func CompareLineItems(a, b *LineItem) int { return CompareItems(a, b) }

// lineItemKey is what CompareItems orders line items by.
type lineItemKey struct {
	provider, resource string
	at                 startAndID
}

// startAndID orders line items of one resource: by charge period start,
// then id.
type startAndID struct {
	sec  int64
	nsec int32
	id   int64
}

func startAndIDOf(li *LineItem) startAndID {
	return startAndID{li.ChargePeriodStart.Unix(), int32(li.ChargePeriodStart.Nanosecond()), li.ID}
}

func (a startAndID) compare(b startAndID) int {
	if c := cmp.Compare(a.sec, b.sec); c != 0 {
		return c
	}
	if c := cmp.Compare(a.nsec, b.nsec); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

func keyOf(li *LineItem) lineItemKey {
	return lineItemKey{li.Provider, li.ResourceID, startAndIDOf(li)}
}

func (a lineItemKey) compare(b lineItemKey) int {
	if c := strings.Compare(a.provider, b.provider); c != 0 {
		return c
	}
	if c := strings.Compare(a.resource, b.resource); c != 0 {
		return c
	}
	return a.at.compare(b.at)
}

// sortLineItems sorts items by CompareItems: by the rank of their
// provider and resource among those of items (comparing the two strings
// once per resource, not once per comparison of items), then by start and
// id within a resource. The items are put in buckets by rank in one pass
// (a counting sort, which keeps their order within a resource), and a
// bucket is sorted only when its items are not in order already: read by
// id, a resource's items mostly come by time. Half a million-item month
// sorts in 51–69 ms; a comparison sort of (rank, start, id) keys took
// 195–377 ms (alternating runs), and comparing the items through their
// pointers three times that.
func sortLineItems(items []*LineItem) {
	type resource struct{ provider, id string }
	type keyed struct {
		at startAndID
		li *LineItem
	}
	seenAt := make([]int32, len(items)) // the first-seen index of each item's resource
	seen := map[resource]int32{}
	var order []resource // in first seen order
	var last resource
	lastAt := int32(-1)
	for i, li := range items {
		r := resource{li.Provider, li.ResourceID}
		if lastAt < 0 || r != last {
			at, ok := seen[r]
			if !ok {
				at = int32(len(order))
				seen[r] = at
				order = append(order, r)
			}
			last, lastAt = r, at
		}
		seenAt[i] = lastAt
	}
	byName := make([]int32, len(order))
	for i := range byName {
		byName[i] = int32(i)
	}
	slices.SortFunc(byName, func(a, b int32) int {
		if c := strings.Compare(order[a].provider, order[b].provider); c != 0 {
			return c
		}
		return strings.Compare(order[a].id, order[b].id)
	})
	// start[r] is where the bucket of the resource of rank r begins.
	rank := make([]int32, len(order))
	for r, at := range byName {
		rank[at] = int32(r)
	}
	start := make([]int, len(order)+1)
	for _, at := range seenAt {
		start[rank[at]+1]++
	}
	for r := range order {
		start[r+1] += start[r]
	}
	keys := make([]keyed, len(items))
	next := slices.Clone(start[:len(order)])
	for i, li := range items {
		r := rank[seenAt[i]]
		keys[next[r]] = keyed{startAndIDOf(li), li}
		next[r]++
	}
	for r := range order {
		bucket := keys[start[r]:start[r+1]]
		if !slices.IsSortedFunc(bucket, func(a, b keyed) int { return a.at.compare(b.at) }) {
			slices.SortFunc(bucket, func(a, b keyed) int { return a.at.compare(b.at) })
		}
	}
	for i := range keys {
		items[i] = keys[i].li
	}
}

// MergeItems merges lists sorted by CompareItems into one (on equal items,
// the earlier list's first). It runs on the load's critical path, after
// the readers: a loop over the lists' heads, a comparison an item, took a
// third of what eachMerged's streams took (80 ms for a million items); the
// audit merges its context's two months with it too. The readers' lists
// are id ranges, so a resource's items come mostly from one list, then
// the next: once one list has given gallopAfter items in a row, it gives
// every item that orders before the next list's head at once, found by
// galloping (BenchmarkMergeItems: 297,600 items in runs, 42-57 ms → 4-5
// ms; alternating items, which never gallop, as before).
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
	// first reports whether a, of heads i, comes before b, of heads j (i <
	// j wins a tie, as the earlier list).
	first := func(a *LineItem, i int, b *LineItem, j int) bool {
		c := CompareItems(a, b)
		return c < 0 || c == 0 && i < j
	}
	last, wins := -1, 0 // the list that gave the last item, and how many in a row
	for len(heads) > 1 {
		best, next := 0, 1
		if first(heads[1][0], 1, heads[0][0], 0) {
			best, next = 1, 0
		}
		for i := 2; i < len(heads); i++ {
			switch {
			case first(heads[i][0], i, heads[best][0], best):
				best, next = i, best
			case first(heads[i][0], i, heads[next][0], next):
				next = i
			}
		}
		if best != last {
			last, wins = best, 0
		}
		h, n := heads[best], 1
		if wins++; wins >= gallopAfter {
			// h[:lo] come before bound (h[0] does); probe h[lo+step-1],
			// doubling step, up to one that does not (hi), then bisect.
			bound := heads[next][0]
			lo, hi := 1, len(h)
			for step := 1; lo+step-1 < len(h); step *= 2 {
				if k := lo + step - 1; !first(h[k], best, bound, next) {
					hi = k
					break
				}
				lo += step
			}
			n = lo + sort.Search(hi-lo, func(k int) bool { return !first(h[lo+k], best, bound, next) })
			out = append(out, h[:n]...)
		} else {
			out = append(out, h[0])
		}
		if heads[best] = h[n:]; len(heads[best]) == 0 {
			heads = slices.Delete(heads, best, best+1)
			last = -1
		}
	}
	for _, l := range heads {
		out = append(out, l...)
	}
	return out
}

// gallopAfter is how many items in a row one list gives MergeItems before
// it gallops through that list.
const gallopAfter = 4

// readParts runs read for each id range of parts side by side, and returns
// a function that waits for them all and returns their errors joined (it
// may be called more than once).
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

// selection is the extent of what a filter selects: its id range, as the
// month index tells it, and its size, n (the other conditions are left to
// the readers: counting them would read every row of the month). n is
// exact for a range of up to selectionExact ids, and estimated beyond
// from selectionSamples windows of the range: counting a month's entries
// of the index took 60 ms at 300k items, a tenth of a report. n only
// decides how the range is read (parts, dense) and sizes buffers. Windows
// of 256 ids: with 1024, the estimate took 6 ms of each load before its
// readers started (2 ms now, 3 fresh processes; the what-if waits for two,
// each report for one).
type selection struct {
	f      Filter
	lo, hi int64
	n      int64
}

// Variables so that tests can make small ledgers take the estimate.
var (
	selectionExact   int64 = 1 << 14
	selectionSamples int64 = 8
	selectionWindow  int64 = 1 << 8
)

func (db *DB) selection(ctx context.Context, f Filter) (selection, error) {
	where, args := Filter{Month: f.Month, IDMin: f.IDMin, IDMax: f.IDMax}.where()
	sel := selection{f: f}
	// min and max as subqueries: each is one seek of the month index.
	err := db.sql.QueryRowContext(ctx, "SELECT ifnull((SELECT min(li.id) FROM line_items li"+where+"), 0), "+
		"ifnull((SELECT max(li.id) FROM line_items li"+where+"), 0)", append(append([]any{}, args...), args...)...).Scan(&sel.lo, &sel.hi)
	if err != nil {
		return sel, fmt.Errorf("ledger: line items: %w", err)
	}
	if sel.hi == 0 {
		return sel, nil // nothing selected
	}
	// Rows of the month in an id window, read as a range of the table.
	count := func(from, to int64) (int64, error) {
		w, a := Filter{Month: f.Month, IDMin: from, IDMax: to}.where()
		var n int64
		err := db.sql.QueryRowContext(ctx, "SELECT count(*) FROM line_items li"+w, a...).Scan(&n)
		return n, err
	}
	span := sel.hi - sel.lo + 1
	if span <= selectionExact {
		if sel.n, err = count(sel.lo, sel.hi); err != nil {
			return sel, fmt.Errorf("ledger: line items: %w", err)
		}
		return sel, nil
	}
	var found, sampled int64
	step := span / selectionSamples
	for i := range selectionSamples {
		from := sel.lo + i*step
		to := min(from+selectionWindow-1, sel.hi)
		n, err := count(from, to)
		if err != nil {
			return sel, fmt.Errorf("ledger: line items: %w", err)
		}
		found, sampled = found+n, sampled+to-from+1
	}
	sel.n = max(2, found*span/sampled) // at least the two ends, which exist
	return sel, nil
}

// parts splits the selection into id ranges for readers side by side (as
// many as Go has processors, at most 4, at least loadPartMin items each).
func (sel selection) parts() []Filter {
	k := max(1, min(runtime.GOMAXPROCS(0), 4, int(sel.n/loadPartMin)))
	step := (sel.hi - sel.lo + int64(k)) / int64(k)
	var out []Filter
	for p := range k {
		pf := sel.f
		pf.IDMin, pf.IDMax = sel.lo+int64(p)*step, min(sel.lo+int64(p+1)*step-1, sel.hi)
		if pf.IDMin > sel.hi {
			break
		}
		out = append(out, pf)
	}
	return out
}

// ScanLineItems runs "SELECT cols FROM line_items li" over the line items
// f selects, in id ranges side by side (as LoadLineItems reads them), and
// hands each row to the callback of its range: part(i) is called once per
// range, before the reads start, and its callback only ever runs on range
// i's goroutine, so that it needs no lock. It returns the number of ranges
// (0 when nothing is selected). Rows come in no particular order, but
// that within a range they come by descending id if f.Descending.
func (db *DB) ScanLineItems(ctx context.Context, f Filter, cols string, part func(i int) func(Row) error) (int, error) {
	sel, err := db.selection(ctx, f)
	if err != nil || sel.n == 0 {
		return 0, err
	}
	parts := sel.parts()
	fns := make([]func(Row) error, len(parts))
	for i := range parts {
		fns[i] = part(i)
	}
	return len(parts), readParts(parts, func(i int, pf Filter) error {
		where, args := pf.where()
		if f.Descending {
			where += " ORDER BY li.id DESC" // the rowid or index walked backwards, no sorter
		}
		return db.Scan(ctx, "SELECT "+cols+" FROM line_items li"+where, args, fns[i])
	})()
}

// loadPart reads one id range of f.
func (db *DB) loadPart(ctx context.Context, f Filter, paths map[int64]string, hint int) ([]*LineItem, error) {
	items := make([]*LineItem, 0, hint)
	l := newLoader(paths)
	where, args := f.where()
	err := db.eachLoaded(ctx, l, where, args, func(li *LineItem) error {
		items = append(items, li)
		return nil
	})
	return items, err
}

// eachLoaded reads the line items of "WHERE … ORDER BY …" (rest) with l,
// through a memory map of the ledger (scan), and calls fn for each.
func (db *DB) eachLoaded(ctx context.Context, l *loader, rest string, args []any, fn func(*LineItem) error) error {
	return db.scan(ctx, "SELECT "+loadColumns+" FROM line_items li"+rest, args, func(r Row) error {
		return l.add(r, fn)
	}, true)
}

// add builds the item of r and hands it to fn.
func (l *loader) add(r Row, fn func(*LineItem) error) error {
	li, err := l.item(r)
	if err != nil {
		return err
	}
	return fn(li)
}

func newLoader(paths map[int64]string) *loader {
	return &loader{paths: paths, RowShare: NewRowShare(lcCount)}
}

// loader builds the items of one reader; its RowShare shares repeated
// texts and amounts between them.
type loader struct {
	paths      map[int64]string
	lastImport int64 // the import of the row before, and its path
	lastFile   string
	slab       []LineItem
	*RowShare
}

func (l *loader) item(r Row) (*LineItem, error) {
	if len(l.slab) == 0 {
		l.slab = make([]LineItem, loadSlab)
	}
	li := &l.slab[0]
	l.slab = l.slab[1:]
	li.ID = r.Int64(lcID)
	li.Provider, li.BillingAccountID, li.BillingPeriod = l.Text(r, lcProvider), l.Text(r, lcAccount), l.Text(r, lcPeriod)
	var err error
	if li.ChargePeriodStart, err = r.Time(lcStart); err != nil {
		return nil, fmt.Errorf("line item %d: %w", li.ID, err)
	}
	if li.ChargePeriodEnd, err = r.Time(lcEnd); err != nil {
		return nil, fmt.Errorf("line item %d: %w", li.ID, err)
	}
	li.ChargeCategory, li.Kind, li.PricingModel = l.Text(r, lcCategory), l.Text(r, lcKind), l.Text(r, lcPricingModel)
	li.ResourceID, li.ParentResourceID = l.Text(r, lcResource), l.Text(r, lcParent)
	li.ConsumedUnit, li.PricingUnit, li.Currency = l.Text(r, lcConsumedUnit), l.Text(r, lcPricingUnit), l.Text(r, lcCurrency)
	for _, d := range [...]struct {
		i   int
		dst *decimal.NullDecimal
	}{{lcConsumedQty, &li.ConsumedQuantity}, {lcPricingQty, &li.PricingQuantity}, {lcListUnitPrice, &li.ListUnitPrice}} {
		if *d.dst, err = l.Amount(r, d.i); err != nil {
			return nil, fmt.Errorf("line item %d: %w", li.ID, err)
		}
	}
	billed, err := l.Amount(r, lcBilled)
	if err != nil {
		return nil, fmt.Errorf("line item %d: %w", li.ID, err)
	}
	if !billed.Valid {
		return nil, fmt.Errorf("line item %d: no billed cost", li.ID)
	}
	li.BilledCost = billed.Decimal
	if li.UsageStart, err = r.Time(lcUsageStart); err != nil {
		return nil, fmt.Errorf("line item %d: %w", li.ID, err)
	}
	if li.UsageEnd, err = r.Time(lcUsageEnd); err != nil {
		return nil, fmt.Errorf("line item %d: %w", li.ID, err)
	}
	l.details(li, r)
	return li, nil
}

// details fills what only the audit's rules and their evidence read.
func (l *loader) details(li *LineItem, r Row) {
	li.ServiceName, li.ResourceType, li.SKU = l.Text(r, lcService), l.Text(r, lcResourceType), l.Text(r, lcSKU)
	li.GPUModel = l.Text(r, lcGPUModel)
	li.GPUCount = int(r.Int64(lcGPUCount)) // NULL reads as 0 = unknown
	li.Description = l.Text(r, lcDescription)
	li.ImportID, li.SourceRow = r.Int64(lcImport), int(r.Int64(lcSourceRow))
	li.RowKey = l.Own(r.Bytes(lcRowKey))
	if li.ImportID != l.lastImport || l.lastFile == "" {
		l.lastImport, l.lastFile = li.ImportID, l.paths[li.ImportID] // rows of one import come together
	}
	li.File = l.lastFile
}

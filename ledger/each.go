package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Reading line items fast. EachLineItem reads on a connection of its own
// (Scan: a liteConn, no database/sql) and copies the texts of a row into one string, which the item's
// fields share: one allocation a row for all its text. The file path comes
// from a map of import ids, not from a join.

// eachColumns are the columns eachRaw reads, in this order (raw last).
var eachColumns = []string{
	"li.id", "li.provider", "li.billing_account_id", "li.sub_account", "li.billing_period",
	"li.charge_period_start", "li.charge_period_end", "li.charge_category", "li.kind", "li.pricing_model",
	"li.service_name", "li.resource_id", "li.resource_name", "li.resource_type", "li.sku",
	"li.parent_resource_id", "li.gpu_model", "li.gpu_count", "li.region", "li.zone",
	"li.consumed_quantity", "li.consumed_unit", "li.pricing_quantity", "li.pricing_unit",
	"li.list_unit_price", "li.list_cost", "li.billed_cost", "li.voucher_paid", "li.cash_paid",
	"li.other_paid", "li.unpaid", "li.currency", "li.usage_start", "li.usage_end",
	"li.tags", "li.description", "li.import_id", "li.source_row", "li.row_key", "li.raw",
}

// eachSelect is the query of eachColumns; without the raw cells for noRaw.
func eachSelect(noRaw bool) string {
	cols := eachColumns
	if noRaw {
		cols = cols[:len(cols)-1]
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM line_items li"
}

// eachRaw runs the line item query with where and order and calls fn for
// every row, an item of its own each time.
func (db *DB) eachRaw(ctx context.Context, f Filter, where, order string, args []any, fn func(*LineItem) error) error {
	paths, err := db.ImportPaths(ctx)
	if err != nil {
		return err
	}
	b := rawItems{paths: paths, noRaw: f.NoRaw}
	return db.Scan(ctx, eachSelect(f.NoRaw)+where+order, args, func(r Row) error {
		li, err := b.item(r)
		if err != nil {
			return err
		}
		return fn(li)
	})
}

// rawItems builds the line items of the rows of eachSelect, one reader's:
// the texts of a row are copied into one string, which the item's fields
// share.
type rawItems struct {
	paths map[int64]string
	noRaw bool
	buf   []byte
	end   [41]int // end of each column's text in buf
}

// item builds the line item of row r (of eachSelect(b.noRaw)).
func (b *rawItems) item(r Row) (*LineItem, error) {
	buf, end := b.buf[:0], &b.end
	for i := 1; i < 39; i++ {
		if i != 17 && i != 36 && i != 37 { // integers, read as such
			buf = append(buf, r.Bytes(i)...)
		}
		end[i] = len(buf)
	}
	b.buf = buf
	s := string(buf)
	col := func(i int) string { return s[end[i-1]:end[i]] }
	li := &LineItem{ID: r.Int64(0)}
	li.Provider, li.BillingAccountID, li.SubAccount, li.BillingPeriod = col(1), col(2), col(3), col(4)
	var err error
	if li.ChargePeriodStart, err = ParseTime(col(5)); err != nil {
		return nil, fmt.Errorf("ledger: line item %d: %w", li.ID, err)
	}
	if li.ChargePeriodEnd, err = ParseTime(col(6)); err != nil {
		return nil, fmt.Errorf("ledger: line item %d: %w", li.ID, err)
	}
	li.ChargeCategory, li.Kind, li.PricingModel, li.ServiceName = col(7), col(8), col(9), col(10)
	li.ResourceID, li.ResourceName, li.ResourceType, li.SKU, li.ParentResourceID, li.GPUModel = col(11), col(12), col(13), col(14), col(15), col(16)
	if !r.Null(17) {
		li.GPUCount = int(r.Int64(17))
	}
	li.Region, li.Zone = col(18), col(19)
	li.ConsumedUnit, li.PricingUnit = col(21), col(23)
	for _, d := range []struct {
		i   int
		dst *decimal.NullDecimal
	}{{20, &li.ConsumedQuantity}, {22, &li.PricingQuantity}, {24, &li.ListUnitPrice}, {25, &li.ListCost},
		{27, &li.VoucherPaid}, {28, &li.CashPaid}, {29, &li.OtherPaid}, {30, &li.Unpaid}} {
		v := col(d.i)
		if v == "" && r.Null(d.i) { // asked only of an empty text: most are not NULL
			continue
		}
		if *d.dst, err = ScanDec(&v); err != nil {
			return nil, err
		}
	}
	billed := col(26)
	bc, err := ScanDec(&billed)
	if err != nil {
		return nil, err
	}
	li.BilledCost = bc.Decimal
	li.Currency = col(31)
	for _, t := range []struct {
		i   int
		dst *time.Time
	}{{32, &li.UsageStart}, {33, &li.UsageEnd}} {
		v := col(t.i)
		if v == "" && r.Null(t.i) {
			continue
		}
		if *t.dst, err = ParseTime(v); err != nil {
			return nil, fmt.Errorf("ledger: line item %d: %w", li.ID, err)
		}
	}
	li.Tags, li.Description = col(34), col(35)
	li.ImportID, li.SourceRow = r.Int64(36), int(r.Int64(37))
	li.RowKey = col(38)
	li.Raw = []string{}
	if !b.noRaw {
		if raw := r.Bytes(39); len(raw) > 0 && string(raw) != "[]" {
			if err := json.Unmarshal(raw, &li.Raw); err != nil {
				return nil, fmt.Errorf("ledger: line item %d raw: %w", li.ID, err)
			}
		}
	}
	li.File = b.paths[li.ImportID]
	return li, nil
}

// eachPart reads what f selects, in EachLineItem's order unless
// f.Unordered.
func (db *DB) eachPart(ctx context.Context, f Filter, fn func(*LineItem) error) error {
	w, args := f.where()
	order := eachOrder
	if f.Unordered {
		order = ""
	}
	return db.eachRaw(ctx, f, w, order, args, fn)
}

// eachBatch is how many items a reader of eachParallel hands over at once.
const eachBatch = 256

// eachOrder is the order of an ordered EachLineItem (CompareLineItems).
const eachOrder = " ORDER BY li.provider, li.resource_id, li.charge_period_start, li.id"

// eachParallel is EachLineItem of a whole selection: its id ranges
// (selection.parts) are read side by side, each reader handing batches of
// items to the calling goroutine, which calls fn. Unordered, the batches
// are taken as they come; ordered, each reader sorts its range (SQLite) and
// the calling goroutine merges the ranges (CompareLineItems, a total order:
// the result is the one sorted read's).
func (db *DB) eachParallel(ctx context.Context, f Filter, fn func(*LineItem) error) error {
	sel, err := db.selection(ctx, f)
	if err != nil || sel.n == 0 {
		return err
	}
	parts := sel.parts()
	if len(parts) == 1 {
		return db.eachPart(ctx, parts[0], fn)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Unordered: one channel for all readers; ordered: one each.
	chans := make([]chan []*LineItem, len(parts))
	for p := range chans {
		if p == 0 || !f.Unordered {
			chans[p] = make(chan []*LineItem, 2)
		} else {
			chans[p] = chans[0]
		}
	}
	wait := readParts(parts, func(p int, pf Filter) error {
		send := func(b []*LineItem) error {
			select {
			case chans[p] <- b:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if !f.Unordered {
			defer close(chans[p])
		}
		batch := make([]*LineItem, 0, eachBatch)
		err := db.eachPart(ctx, pf, func(li *LineItem) error {
			if batch = append(batch, li); len(batch) == eachBatch {
				if err := send(batch); err != nil {
					return err
				}
				batch = make([]*LineItem, 0, eachBatch)
			}
			return nil
		})
		if err == nil && len(batch) > 0 {
			err = send(batch)
		}
		return err
	})
	var fnErr error
	if f.Unordered {
		go func() {
			wait()
			close(chans[0])
		}()
		fnErr = eachUnordered(chans[0], fn)
	} else {
		fnErr = eachMerged(chans, fn)
	}
	if fnErr != nil {
		cancel()
		wait() // the readers stop at their next batch
		return fnErr
	}
	return wait()
}

// eachUnordered calls fn for every item of the batches of ch, as they come.
func eachUnordered(ch <-chan []*LineItem, fn func(*LineItem) error) error {
	for b := range ch {
		for _, li := range b {
			if err := fn(li); err != nil {
				return err
			}
		}
	}
	return nil
}

// eachMerged calls fn for every item of the batches of chans, each a sorted
// stream, in CompareItems order.
func eachMerged(chans []chan []*LineItem, fn func(*LineItem) error) error {
	type head struct {
		ch <-chan []*LineItem
		b  []*LineItem // b[0] is the stream's next item
	}
	// fill makes h.b hold the next item, and reports whether there is one.
	fill := func(h *head) bool {
		for len(h.b) == 0 {
			b, ok := <-h.ch
			if !ok {
				return false
			}
			h.b = b
		}
		return true
	}
	var heads []*head
	for _, ch := range chans {
		if h := (&head{ch: ch}); fill(h) {
			heads = append(heads, h)
		}
	}
	for len(heads) > 0 {
		best := 0
		for i := 1; i < len(heads); i++ {
			if CompareLineItems(heads[i].b[0], heads[best].b[0]) < 0 {
				best = i
			}
		}
		h := heads[best]
		if err := fn(h.b[0]); err != nil {
			return err
		}
		if h.b = h.b[1:]; !fill(h) {
			heads = slices.Delete(heads, best, best+1)
		}
	}
	return nil
}

// ImportPaths maps every import id to its file path (evidence names rows
// by file and row).
func (db *DB) ImportPaths(ctx context.Context) (map[int64]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, path FROM imports`)
	if err != nil {
		return nil, fmt.Errorf("ledger: import paths: %w", err)
	}
	defer rows.Close()
	paths := map[int64]string{}
	for rows.Next() {
		var id int64
		var p string
		if err := rows.Scan(&id, &p); err != nil {
			return nil, fmt.Errorf("ledger: import paths: %w", err)
		}
		paths[id] = p
	}
	return paths, rows.Err()
}

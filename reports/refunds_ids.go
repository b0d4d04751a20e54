package reports

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gpubill/gpubill/export"
	"github.com/gpubill/gpubill/ledger"
)

// The platform's own identifiers in a claim's evidence rows: support finds
// a charge by its order, transaction or bill id (订单号, 交易ID, BillID),
// not by a row number in the user's file. They are read from the raw cells
// the ledger keeps for every row, under the header of its import, or from
// the ids a gpubill export carried (export.IDColumns).

// platformID is one identifier column of a claim's rows with its values.
type platformID struct {
	col    int      // its place among the identifier columns, for the order
	header string   // as the bill spells it
	values []string // distinct, in row order
}

// maxIDValues is how many values of one identifier a ticket lists.
const maxIDValues = 6

// findPlatformIDs fills c.platformIDs from the raw cells of its evidence.
func (c *RefundClaim) findPlatformIDs(items map[int64]*ledger.LineItem, imports map[int64]*ledger.Import, raw map[int64][]string) {
	c.platformIDs = c.platformIDs[:0]
	idx := map[string]int{}
	seen := map[[2]string]bool{}
	cols := map[int64]export.IDColumns{} // by import: its header is read once
	for _, e := range c.Evidence {
		li := items[e.LineItemID]
		if li == nil {
			continue
		}
		im := imports[li.ImportID]
		cells := raw[e.LineItemID]
		if im == nil || len(cells) == 0 {
			continue
		}
		ic, ok := cols[im.ID]
		if !ok {
			ic = export.IDColumnsOf(im.Header)
			cols[im.ID] = ic
		}
		for i, id := range ic.Row(cells) {
			h, v := id.Header, strings.TrimSpace(id.Value)
			if v == "" || v == "-" || v == "--" || v == c.ResourceID || seen[[2]string{h, v}] {
				continue
			}
			seen[[2]string{h, v}] = true
			j, ok := idx[h]
			if !ok {
				j = len(c.platformIDs)
				idx[h] = j
				c.platformIDs = append(c.platformIDs, platformID{col: i, header: h})
			}
			c.platformIDs[j].values = append(c.platformIDs[j].values, v)
		}
	}
	sort.SliceStable(c.platformIDs, func(i, j int) bool { return c.platformIDs[i].col < c.platformIDs[j].col })
}

// idsText renders a claim's platform identifiers: "订单ID 1001、1002；交易ID
// T9" / "订单ID 1001, 1002; 交易ID T9"; "" when there are none.
func idsText(c *RefundClaim, lang string) string {
	var parts []string
	for _, id := range c.platformIDs {
		vs := id.values
		more := ""
		if len(vs) > maxIDValues {
			vs, more = vs[:maxIDValues], pick(lang, " 等", " …")
		}
		parts = append(parts, id.header+" "+strings.Join(vs, pick(lang, "、", ", "))+more)
	}
	return strings.Join(parts, pick(lang, "；", "; "))
}

// billedLower finds, for each price claim, the bill's own evidence: a
// compute line of the same resource, pricing unit and currency billed at a
// lower unit price (the lowest, then the earliest, then the first stored),
// so that the ticket leads with "you billed ¥2.20/h, then ¥2.88/h" before
// any catalog price. One scan of the month's compute of the providers with
// a price claim, keeping only the lines of the claimed resources; the raw
// cells only of the lines found, for their citation (as citeRows).
func billedLower(ctx context.Context, db *ledger.DB, month string, claims []RefundClaim, imports map[int64]*ledger.Import) error {
	var providers []string
	byResource := map[[2]string][]int{} // provider, resource → the price claims
	cited := make([]map[int64]bool, len(claims))
	for i := range claims {
		c := &claims[i]
		if c.RuleID != "price_deviation" || len(c.items) == 0 || !c.items[0].ListUnitPrice.Valid {
			continue
		}
		if !slices.Contains(providers, c.Provider) {
			providers = append(providers, c.Provider)
		}
		k := [2]string{c.Provider, c.ResourceID}
		byResource[k] = append(byResource[k], i)
		cited[i] = map[int64]bool{}
		for _, e := range c.Evidence {
			cited[i][e.LineItemID] = true
		}
	}
	if len(providers) == 0 {
		return nil
	}
	// lower reports whether li is the better evidence than e (nil: none yet).
	lower := func(li, e *ledger.LineItem) bool {
		if e == nil {
			return true
		}
		if c := li.ListUnitPrice.Decimal.Cmp(e.ListUnitPrice.Decimal); c != 0 {
			return c < 0
		}
		if c := li.ChargePeriodStart.Compare(e.ChargePeriodStart); c != 0 {
			return c < 0
		}
		return li.ID < e.ID
	}
	var found [][]*ledger.LineItem // per part, per claim
	cols := []string{"id", "provider", "resource_id", "currency", "pricing_unit", "list_unit_price",
		"charge_period_start", "import_id", "source_row"}
	_, err := db.ScanItems(ctx, ledger.Filter{Month: month, Providers: providers, Kinds: []string{ledger.KindCompute}},
		ledger.AnyOrder, cols, func(int) func(*ledger.LineItem) error {
			best := make([]*ledger.LineItem, len(claims))
			found = append(found, best) // parts are set up one after another
			return func(li *ledger.LineItem) error {
				for _, i := range byResource[[2]string{li.Provider, li.ResourceID}] {
					c, first := &claims[i], claims[i].items[0]
					if cited[i][li.ID] || li.Currency != c.Currency || li.PricingUnit != first.PricingUnit ||
						!li.ListUnitPrice.Valid || li.ListUnitPrice.Decimal.Cmp(first.ListUnitPrice.Decimal) >= 0 || !lower(li, best[i]) {
						continue
					}
					cp := *li // li is the scan's, reused
					best[i] = &cp
				}
				return nil
			}
		})
	if err != nil {
		return fmt.Errorf("reports: refunds: %w", err)
	}
	earlier := map[int64]*ledger.LineItem{} // the lines found, by id
	for i := range claims {
		for _, best := range found {
			if e := best[i]; e != nil && lower(e, claims[i].earlier) {
				claims[i].earlier = e
			}
		}
		if e := claims[i].earlier; e != nil {
			if im := imports[e.ImportID]; im != nil {
				e.File = im.Path
			}
			earlier[e.ID] = e
		}
	}
	if len(earlier) == 0 {
		return nil
	}
	raw, err := ticketRaw(ctx, db, slices.Sorted(maps.Keys(earlier)), earlier, imports) // the scan reads no source cells
	if err != nil {
		return fmt.Errorf("reports: refunds: %w", err)
	}
	for i := range claims {
		e := claims[i].earlier
		if e == nil {
			continue
		}
		c := &claims[i]
		c.earlierRow = rowCite{file: filepath.Base(e.File), row: e.SourceRow, record: true}
		if im := imports[e.ImportID]; im != nil {
			if src, ok := export.LineSource(im.Header, raw[e.ID]); ok {
				c.earlierRow = rowCite{file: filepath.Base(src.File), sheet: src.Sheet, row: src.Row}
			} else if row, ok := im.RowOf(e.SourceRow); ok {
				c.earlierRow = rowCite{file: filepath.Base(e.File), sheet: im.Sheet, row: row}
			}
		}
	}
	return nil
}

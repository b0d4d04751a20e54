package rules

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

// The context of an audit: the compute of the months around the audited
// one. The previous month is loaded whole (sessions that cross into the
// month start there, and price_deviation takes its history from it). Of the
// next month, only what can meet the month's own items is loaded: compute
// that starts before nextMonthWindow past the last end of the month's items
// (sessions that run on across the month's end, copies and overlaps of the
// month's charges, the part of a span inside the month). What lies beyond
// matters only as "this instance (or account) ran compute later", which
// release_risk, snapshot_image and servedBy ask: that is read on its own,
// as a set of keys (laterCompute), without building the items.
//
// Measured on a 1M-row ledger of four months, an audit of a month used to
// spend more on the next month's compute than on its own items (2026-09:
// 0.67 s for its own, 1.47 s for October's compute).

// baseColumns are the columns of line_items that the engine and the shared
// building blocks read of every item: the order of the items, sessions,
// spans and coverage (package billing, coverage.go), evidence and
// fingerprints, the context's edge and user rules' evidence. A rule lists
// what it reads beyond them in its Info.Columns.
var baseColumns = []string{"id", "provider", "billing_account_id", "billing_period", "charge_period_start",
	"charge_period_end", "charge_category", "kind", "pricing_model", "resource_id", "parent_resource_id",
	"consumed_quantity", "consumed_unit", "pricing_quantity", "pricing_unit", "billed_cost", "currency",
	"usage_start", "usage_end", "import_id", "source_row", "row_key"}

// allColumns loads every column but raw, whatever the rules list: tests
// compare the two.
var allColumns = false

// loadColumns is baseColumns and the columns the enabled rules list.
func loadColumns(cfg Config) []string {
	if allColumns {
		return nil
	}
	cols := slices.Clone(baseColumns)
	for _, r := range registry {
		if cfg.enabled(r.ID()) {
			for _, c := range r.Info().Columns {
				if !slices.Contains(cols, c) {
					cols = append(cols, c)
				}
			}
		}
	}
	return cols
}

// nextMonthWindow is how far past the month's last charge or usage end the
// next month's compute is loaded as items: more than any gap that still
// joins two items into one session (a platform's billing step).
const nextMonthWindow = 48 * time.Hour

// wholeNextMonth loads the next month's compute whole, as before the
// window: tests compare the two.
var wholeNextMonth = false

// laterCompute is who ran compute in the next month past the window.
type laterCompute struct {
	inst map[instKey]bool
	acct map[acctKey]bool
}

// nextMonthEdge is where the next month's compute stops being loaded as
// items: nextMonthWindow past the latest end (charge period or usage) of
// the month's items, and never before the month's end. The load notes the
// latest end as it reads the items (in.latestEnd, noteEnds).
func nextMonthEdge(in *Input) time.Time {
	edge := in.MonthEnd
	if sec := in.latestEnd.Load(); sec > edge.Unix() {
		edge = time.Unix(sec, 0).In(edge.Location())
	}
	return edge.Add(nextMonthWindow)
}

// noteEnds returns a function that raises latest (Unix seconds) to an
// item's charge period and usage ends. Stored times are whole seconds.
func noteEnds(latest *atomic.Int64) func(*ledger.LineItem) {
	raise := func(t time.Time) {
		if t.IsZero() {
			return
		}
		for s := t.Unix(); ; {
			cur := latest.Load()
			if s <= cur || latest.CompareAndSwap(cur, s) {
				return
			}
		}
	}
	return func(li *ledger.LineItem) {
		raise(li.ChargePeriodEnd)
		raise(li.UsageEnd)
	}
}

// loadContext loads the compute of the previous month and of the next one
// up to its edge into in.Context (in ledger.CompareItems order), and who
// ran compute in the next month past the edge into in.later.
func loadContext(ctx context.Context, db *ledger.DB, in *Input) error {
	prev, next := in.MonthStart.AddDate(0, -1, 0).Format("2006-01"), in.MonthEnd.Format("2006-01")
	compute := []string{ledger.KindCompute}
	items, err := db.LoadColumns(ctx, ledger.Filter{Month: prev, Kinds: compute}, in.columns)
	if err != nil {
		return fmt.Errorf("rules: load context %s: %w", prev, err)
	}
	in.Context = items
	f := ledger.Filter{Month: next, Kinds: compute}
	in.later = laterCompute{inst: map[instKey]bool{}, acct: map[acctKey]bool{}}
	var later []ledger.Owner
	if !wholeNextMonth {
		f.StartsBefore = nextMonthEdge(in)
		// The rest of the next month's compute: only whose it is, of the
		// items that isRunning would count (its category and the sign of
		// its cost).
		rest := ledger.Filter{Month: next, Kinds: compute, StartsFrom: f.StartsBefore}
		if later, err = db.ChargedOwners(ctx, rest); err != nil {
			return fmt.Errorf("rules: load context %s: %w", next, err)
		}
	}
	items, err = db.LoadColumns(ctx, f, in.columns)
	if err != nil {
		return fmt.Errorf("rules: load context %s: %w", next, err)
	}
	// Merged, not sorted again: both lists are in CompareItems order.
	in.Context = ledger.MergeItems(in.Context, items)
	for _, who := range later {
		if who.ResourceID != "" {
			in.later.inst[instKey{who.Provider, who.ResourceID}] = true
		}
		in.later.acct[acctKey{who.Provider, who.BillingAccountID}] = true
	}
	return nil
}

// ranLater reports whether the served instance (or account) ran compute in
// the next month past what was loaded as items.
func (in *Input) ranLater(sv served) bool {
	if sv.how == servedAccount {
		return in.later.acct[acctKey{sv.provider, sv.id}]
	}
	return in.later.inst[instKey{sv.provider, sv.id}]
}

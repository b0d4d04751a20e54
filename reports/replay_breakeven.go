package reports

import (
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

// Package and spot break-evens, and the age of the catalog entries used.

// breakEvens gives, per target with an on-demand price of the group's
// GPU, the package threshold (where a package term is known) and the spot
// discount at which the target's spot beats the month's actual cost.
func (rp *replayer) breakEvens(g *workGroup, works []sessionWork, targets []string, out *ReplayGroup) []ReplayBreakEven {
	var res []ReplayBreakEven
	for _, t := range targets {
		od, _, ok := rp.onDemandPrice(t, g.key.model)
		if !ok || g.key.model == "" {
			continue
		}
		if term, ok := rp.rates.Term(t, ledger.PricingPackage); ok {
			per := term.PeriodDuration()
			periods := decimal.NewFromInt(int64(rp.in.MonthEnd.Sub(rp.in.MonthStart) / time.Second)).Div(decimal.NewFromInt(int64(per / time.Second)))
			hours := term.Factor.Mul(decimal.NewFromInt(int64(per / time.Hour)))
			run := out.RunHours.DivRound(periods, 2)
			res = append(res, ReplayBreakEven{Target: t, Kind: ledger.PricingPackage, Period: term.Period,
				Hours: known(hours.Round(2)), RunHours: run, Pays: run.GreaterThan(hours),
				Source: term.Source, Seen: term.Seen, Confidence: term.Confidence})
		}
		// Spot: the target's all-in with on-demand compute is A = C + N
		// (compute, the rest); spot at discount d costs C(1−d) + N, which
		// beats the actual cost X when d > 1 − (X − N) ÷ C.
		var row *ReplayRow
		for i := range out.Rows {
			if out.Rows[i].Target == t && out.Rows[i].Status == ReplayPriced {
				row = &out.Rows[i]
			}
		}
		if row == nil || rp.opts.As != ledger.PricingOnDemand || !row.Compute.Decimal.IsPositive() {
			continue
		}
		rest := row.AllIn.Decimal.Sub(row.Compute.Decimal)
		d := decimal.NewFromInt(1).Sub(out.ActualAllIn.Sub(rest).DivRound(row.Compute.Decimal, 8))
		be := ReplayBreakEven{Target: t, Kind: ledger.PricingSpot, Source: od.Source, Seen: od.Seen, Confidence: confidenceOf(od.Source, false)}
		if d.LessThan(decimal.NewFromInt(1)) {
			if d.IsNegative() {
				d = decimal.Zero
			}
			be.Discount = known(d.Round(4))
		}
		if term, ok := rp.rates.Term(t, ledger.PricingSpot); ok {
			off := decimal.NewFromInt(1).Sub(term.Factor)
			be.OfferedSpot = known(off)
			be.Pays = be.Discount.Valid && off.GreaterThan(be.Discount.Decimal)
			be.Source, be.Seen, be.Confidence = term.Source, term.Seen, term.Confidence
		}
		res = append(res, be)
	}
	return res
}

// age finds the oldest date seen of the entries used and those seen more
// than 90 days before opts.Now.
func (rp *replayer) age(rep *ReplayReport) {
	var oldest time.Time
	keys := make([]string, 0, len(rp.used))
	for k := range rp.used {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		a := rp.used[k]
		seen, err := time.Parse("2006-01-02", a.Seen)
		if err != nil {
			if seen, err = time.Parse("2006-01", a.Seen); err != nil {
				continue
			}
		}
		if oldest.IsZero() || seen.Before(oldest) {
			oldest = seen
		}
		if rp.opts.Now.Sub(seen) > replayCatalogStaleDays*24*time.Hour {
			rep.Stale = append(rep.Stale, a)
		}
	}
	if !oldest.IsZero() {
		rep.CatalogSeen = oldest.Format("2006-01-02")
		rep.CatalogAgeDays = int(rp.opts.Now.Sub(oldest) / (24 * time.Hour))
	}
	// The whole catalog, used or not: how many of its entries are stale.
	stale := func(seen string) bool {
		t, err := time.Parse("2006-01-02", seen)
		if err != nil {
			if t, err = time.Parse("2006-01", seen); err != nil {
				return false
			}
		}
		return rp.opts.Now.Sub(t) > replayCatalogStaleDays*24*time.Hour
	}
	for _, p := range rp.prices {
		if stale(p.Seen) {
			rep.CatalogStale++
		}
	}
	for _, r := range rp.rates.Rates {
		if stale(r.Seen) {
			rep.CatalogStale++
		}
	}
	for _, t := range rp.rates.Terms {
		if stale(t.Seen) {
			rep.CatalogStale++
		}
	}
	for _, e := range rp.rates.Equivalents {
		if stale(e.Seen) {
			rep.CatalogStale++
		}
	}
	for _, n := range rp.rates.NotOffered {
		if stale(n.Seen) {
			rep.CatalogStale++
		}
	}
}

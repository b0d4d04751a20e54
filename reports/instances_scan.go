package reports

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// The pass of loadInstances over its month. It reads only the columns it
// needs (ledger.ScanLineItems), in id ranges side by side, each range
// gathered on its own goroutine and the ranges merged at the end: every
// figure is a sum, a count, a set, or the latest or earliest item by time
// and id, so the result does not depend on how the month was split or the
// order rows came in. Building a whole ledger.LineItem (40 columns) for
// every row and handing it to one goroutine was four fifths of the report.
// A row that belongs to an instance fills one line item per range, reused,
// with the fields billing.IsRunning, billing.ActiveSpan and instPositiveUsage
// read, so that the judgement stays theirs.

// instCols are the columns the pass reads, in the order of the ic constants.
var instCols = []string{"id", "provider", "kind", "resource_id", "parent_resource_id", "currency", "billed_cost", "charge_category", "charge_period_start", "charge_period_end", "resource_name", "gpu_model", "pricing_model", "usage_start", "usage_end", "pricing_quantity", "pricing_unit"}

const (
	icID = iota
	icProvider
	icKind
	icResource
	icParent
	icCurrency
	icBilled
	icCategory
	icStart
	icEnd
	icResourceName
	icGPUModel
	icPricingModel
	icUsageStart
	icUsageEnd
	icPricingQty
	icPricingUnit
	icCount // columns
)

// wantedCosts is the line items whose billed cost a scan keeps (none while
// it holds nil). It may be set while the scan runs: the rows read before
// are left for ledger.DB.AddEvidenceCosts to look up, so that the findings
// that say which items are wanted can be read alongside the scan.
type wantedCosts = atomic.Pointer[idSet]

// instGather is what a pass gathers of each instance.
type instGather int

const (
	// gatherAll: everything the instances report shows.
	gatherAll instGather = iota
	// gatherRelease: what the refunds report reads, its release date: its
	// last compute (a name and GPU model aside), the data end of its
	// provider, and which line items it owns. Its money, names, GPU,
	// pricing, first compute, components and last charge are left out (its
	// state may then read unknown for stopped). Refunds needs no more, and
	// gathering them was a sixth of its pass.
	gatherRelease
)

// scanInstances gathers what of the instances of month (not yet sorted,
// looked back or judged), and the billed cost of the line items costsOf
// wants (nil: none) as it reads them (s.costs).
func scanInstances(ctx context.Context, db *ledger.DB, month string, what instGather, costsOf *wantedCosts) (*instanceSet, error) {
	var parts []*instScan
	// Each range from its highest id down: ids rise with time, so an
	// instance's latest compute mostly comes first, and the running rows
	// after it are mostly skipped by outranked.
	f := ledger.Filter{Month: month, Descending: true}
	n, err := db.ScanLineItems(ctx, f, instCols, func(int) func(ledger.Row) error {
		p := newInstScan(what, costsOf)
		parts = append(parts, p)
		return p.add
	})
	if err != nil {
		return nil, err
	}
	s := &instanceSet{month: month, byKey: map[instKey]*instance{}, items: map[int64]*ledger.LineItem{},
		comp: map[instKey]instKey{}, dataEnd: map[string]time.Time{}, costs: map[int64]decimal.NullDecimal{}}
	compAt := map[instKey]rank{}
	owners := 0
	for _, p := range parts[:n] {
		owners += p.owners()
	}
	s.owner = make([]instOwner, 0, owners)
	for _, p := range parts[:n] {
		s.merge(p, compAt)
	}
	slices.SortFunc(s.owner, func(a, b instOwner) int { return cmp.Compare(a.id, b.id) })
	for _, in := range s.order {
		in.sortSums()
	}
	return s, nil
}

// sortSums puts the currencies of in in the order their line items first
// appear by id: the order an ascending read gave them, whatever order they
// were read in.
func (in *instance) sortSums() {
	slices.SortFunc(in.sums, func(a, b instSum) int { return cmp.Compare(a.first, b.first) })
}

// ownerChunk is how many owners one allocation of a range holds. Grown by
// append instead, the owners of the million-item month's two ranges were
// 85 MB allocated for their 16 MB, and the set's as many again. A
// variable for the tests, which fill many chunks.
var ownerChunk = 8192

// addOwner records the instance a line item of the range belongs to.
func (p *instScan) addOwner(o instOwner) {
	if n := len(p.owner); n == 0 || len(p.owner[n-1]) == ownerChunk {
		p.owner = append(p.owner, make([]instOwner, 0, ownerChunk))
	}
	last := &p.owner[len(p.owner)-1]
	*last = append(*last, o)
}

// owners is how many owners the range recorded.
func (p *instScan) owners() int {
	n := 0
	for _, c := range p.owner {
		n += len(c)
	}
	return n
}

// merge adds what the range p gathered to s (compAt: the rank of the
// charge of each component that named its instance).
func (s *instanceSet) merge(p *instScan, compAt map[instKey]rank) {
	maps.Copy(s.costs, p.costs)
	for prov, end := range p.dataEnd {
		if end.After(s.dataEnd[prov]) {
			s.dataEnd[prov] = end
		}
	}
	for _, pin := range p.order {
		in := s.byKey[pin.key]
		if in == nil {
			s.byKey[pin.key] = pin
			s.order = append(s.order, pin)
			continue
		}
		in.merge(pin)
		pin.into = in
	}
	for _, chunk := range p.owner {
		for _, o := range chunk {
			if o.in.into != nil {
				o.in = o.in.into
			}
			s.owner = append(s.owner, o)
		}
	}
	for _, c := range p.comp {
		if at, ok := compAt[c.ck]; !ok || at.before(c.at.at, c.at.id) {
			s.comp[c.ck] = c.k
			compAt[c.ck] = c.at
		}
	}
}

// merge adds what o gathered of the same instance to in.
func (in *instance) merge(o *instance) {
	for i := range o.sums {
		os := &o.sums[i]
		s := in.sum(os.currency)
		if s.items == 0 || os.first < s.first {
			s.first = os.first
		}
		s.items += os.items
		s.compute.AddSum(&os.compute)
		s.other.AddSum(&os.other)
		s.total.AddSum(&os.total)
	}
	if o.lastCharge.After(in.lastCharge) {
		in.lastCharge = o.lastCharge
	}
	if !o.firstStart.IsZero() && (in.firstStart.IsZero() || o.firstStart.Before(in.firstStart)) {
		in.firstStart = o.firstStart
	}
	if o.ran {
		in.seeCompute(o.lastID, o.gpu, "", o.lastEnd)
	}
	if o.runName.name != "" {
		in.runName.keep(o.runName.name, o.runName.at, o.runName.id, true)
	}
	if o.otherName.name != "" {
		in.otherName.keep(o.otherName.name, o.otherName.at, o.otherName.id, false)
	}
	for pm := range o.pricing {
		in.pricing[pm] = true
	}
}

// instScan gathers one id range.
type instScan struct {
	what    instGather
	row     instRow         // the row at hand
	li      ledger.LineItem // the row at hand (item)
	byKey   map[string]*instance
	order   []*instance
	owner   [][]instOwner        // in chunks of ownerChunk: see addOwner
	comp    map[string]*instComp // by provider and the component's own id
	dataEnd map[string]time.Time
	key     []byte                        // scratch for map keys (appendKey)
	costsOf *wantedCosts                  // the line items whose billed cost is wanted; nil: none
	costs   map[int64]decimal.NullDecimal // theirs, of this range
	skipped int                           // running rows outranked (for tests)
}

// instRow is the row at hand, each column fetched from SQLite once: a
// fetch is two calls into it, and the pass reads the provider up to four
// times a row, the kind and the instance's id twice.
type instRow struct {
	r    ledger.Row
	got  uint32 // a bit per column fetched
	cols [icCount][]byte
}

// col is column i of the row (ledger.Row.Bytes), valid while the row is.
func (x *instRow) col(i int) []byte {
	if x.got&(1<<i) == 0 {
		x.cols[i] = x.r.Bytes(i)
		x.got |= 1 << i
	}
	return x.cols[i]
}

// appendKey appends the texts of columns cols to the map key b (the
// package's appendKey, from the columns fetched once).
func (x *instRow) appendKey(b []byte, cols ...int) []byte {
	for _, c := range cols {
		b = appendKeyText(b, x.col(c))
	}
	return b
}

// instComp is the instance a component's latest charge names.
type instComp struct {
	ck, k instKey
	at    rank
}

func newInstScan(what instGather, costsOf *wantedCosts) *instScan {
	return &instScan{what: what, byKey: map[string]*instance{}, comp: map[string]*instComp{},
		dataEnd: map[string]time.Time{}, costsOf: costsOf, costs: map[int64]decimal.NullDecimal{}}
}

func (p *instScan) add(r ledger.Row) error {
	x := &p.row
	x.r, x.got = r, 0
	if err := p.keepCost(x); err != nil {
		return err
	}
	end, err := r.TimeOf(icEnd, x.col(icEnd))
	if err != nil {
		return err
	}
	if prov := x.col(icProvider); end.After(p.dataEnd[string(prov)]) {
		p.dataEnd[string(prov)] = end
	}
	// The instance: instOwnerID.
	idCol := icResource
	if string(x.col(icKind)) != ledger.KindCompute && len(x.col(icParent)) > 0 {
		idCol = icParent
	}
	if len(x.col(idCol)) == 0 {
		return nil
	}
	p.key = x.appendKey(p.key[:0], icProvider, idCol)
	in := p.byKey[string(p.key)]
	if in == nil {
		in = &instance{key: instKey{string(x.col(icProvider)), string(x.col(idCol))}, pricing: map[string]bool{}}
		p.byKey[string(p.key)] = in
		p.order = append(p.order, in)
	}
	var billed ledger.DecimalSum // the term, parsed once
	if err := billed.AddText(x.col(icBilled)); err != nil {
		return err
	}
	li, err := p.item(x, &billed, end)
	if err != nil {
		return err
	}
	p.addOwner(instOwner{li.ID, in})
	if p.what == gatherRelease {
		if !billing.IsRunning(li) {
			return nil
		}
		if _, skip, err := p.outranked(x, in, false); err != nil || skip {
			return err
		}
		if err := p.quantity(x); err != nil {
			return err
		}
		_, end := billing.ActiveSpan(li)
		in.seeCompute(li.ID, "", "", end)
		return nil
	}
	return p.gather(x, in, li, idCol, &billed)
}

// gather adds line item li, row x, which belongs to in by its column idCol,
// to all the pass gathers of in but its owner and data end (gatherAll).
func (p *instScan) gather(x *instRow, in *instance, li *ledger.LineItem, idCol int, billed *ledger.DecimalSum) error {
	cur := ""
	if len(in.sums) > 0 {
		cur = in.sums[0].currency
	}
	sum := in.sum(p.textAs(x, icCurrency, cur))
	if sum.items == 0 || li.ID < sum.first {
		sum.first = li.ID
	}
	sum.add(li.Kind, billed)
	if idCol == icParent && len(x.col(icResource)) > 0 && string(x.col(icResource)) != in.key.id {
		// A component belongs to the instance its latest charge names.
		p.key = x.appendKey(p.key[:0], icProvider, icResource)
		c := p.comp[string(p.key)]
		if c == nil {
			c = &instComp{ck: instKey{in.key.provider, string(x.col(icResource))}, k: in.key, at: rank{li.ChargePeriodStart, li.ID}}
			p.comp[string(p.key)] = c
		} else if c.at.before(li.ChargePeriodStart, li.ID) {
			c.k, c.at = in.key, rank{li.ChargePeriodStart, li.ID}
		}
	}
	if instPositiveUsage(li) && li.ChargePeriodEnd.After(in.lastCharge) {
		in.lastCharge = li.ChargePeriodEnd
	}
	if billing.IsRunning(li) {
		start, skip, err := p.outranked(x, in, true)
		if err != nil {
			return err
		}
		if !skip {
			if err := p.quantity(x); err != nil {
				return err
			}
			var end time.Time
			start, end = billing.ActiveSpan(li)
			in.seeCompute(li.ID, p.textAs(x, icGPUModel, in.gpu), p.textAs(x, icResourceName, in.runName.name), end)
		}
		if in.firstStart.IsZero() || start.Before(in.firstStart) {
			in.firstStart = start
		}
		if pm := x.col(icPricingModel); !in.pricing[string(pm)] {
			in.pricing[string(pm)] = true
		}
	} else if name := x.col(icResourceName); len(name) > 0 && string(x.col(icResource)) == in.key.id {
		in.otherName.keep(string(name), li.ChargePeriodStart, li.ID, false)
	}
	return nil
}

// textAs is column i of row x as a string: prev, the instance's own value
// of it, when the row repeats that, else through p.share. An instance keeps
// its currency, GPU model and name from row to row, but the rows of
// instances interleave, so that p.share's memory of the row before rarely
// holds them: looking them up in its table was a twelfth of the pass.
func (p *instScan) textAs(x *instRow, i int, prev string) string {
	if b := x.col(i); string(b) == prev {
		return prev
	}
	return string(x.col(i))
}

// keepCost keeps the billed cost of row x if it is wanted, parsed as
// ledger.DB.BilledCosts parses it (Row.Decimal): the evidence of the
// month's findings costs nothing more to read than the month itself, where
// looking up its 57k line items one by one took 0.3 s of CPU after the scan.
func (p *instScan) keepCost(x *instRow) error {
	if p.costsOf == nil {
		return nil
	}
	want := p.costsOf.Load()
	if want == nil {
		return nil
	}
	id := x.r.Int64(icID)
	if !want.has(id) {
		return nil
	}
	// Not through p.share: billed costs are mostly distinct (83k of 297k
	// rows), and filling its table with them made every look-up of a
	// pricing quantity slower.
	c, err := x.r.DecimalOf(icBilled, x.col(icBilled))
	if err != nil {
		return err
	}
	p.costs[id] = c
	return nil
}

// signOf is an amount of each sign (-1, 0, 1 at 0, 1, 2).
var signOf = [3]decimal.Decimal{decimal.NewFromInt(-1), decimal.Zero, decimal.NewFromInt(1)}

// item fills p.li with what billing.IsRunning and instPositiveUsage read of
// row x, whose billed cost and charge period end are parsed, and its id,
// kind and charge period start: what the pass reads of every row. Both
// read only the sign of the billed cost, so the item carries an amount of
// that sign, not the amount: building the decimal (a *big.Int) for each of
// 297k rows was a twentieth of the report's CPU. The test that compares the
// pass with whole line items (TestInstancesScanMatchesItems) fails if they
// come to read more.
func (p *instScan) item(x *instRow, billed *ledger.DecimalSum, end time.Time) (*ledger.LineItem, error) {
	li := &p.li
	*li = ledger.LineItem{ID: x.r.Int64(icID), Kind: string(x.col(icKind)),
		ChargeCategory: string(x.col(icCategory)), BilledCost: signOf[billed.Sign()+1],
		ChargePeriodEnd: end}
	var err error
	if li.ChargePeriodStart, err = x.r.TimeOf(icStart, x.col(icStart)); err != nil {
		return nil, err
	}
	return li, nil
}

// outranked reads the usage times of running row x into p.li, and reports
// (skip) whether the row can change nothing seeCompute keeps of in: its
// active span (billing.ActiveSpan) surely ends before in's last compute and,
// if named (names: whether the pass keeps names), before in's named compute
// that ended last. Its billed quantity, GPU model, name and ActiveSpan are
// then left unread; start is its active span's start, which it returns
// then. Without usage times ActiveSpan starts at the charge period's start
// and ends at the latest at the later of its start and end (a billed
// quantity only cuts the span short), which is the bound used; a row with
// usage times is never skipped. Read from the highest id down, most rows
// of an instance come after its latest compute: reading the quantity and
// computing the span of each was a fifth of the pass.
func (p *instScan) outranked(x *instRow, in *instance, names bool) (start time.Time, skip bool, err error) {
	li := &p.li
	for _, t := range [...]struct {
		i   int
		dst *time.Time
	}{{icUsageStart, &li.UsageStart}, {icUsageEnd, &li.UsageEnd}} {
		if *t.dst, err = x.r.TimeOf(t.i, x.col(t.i)); err != nil {
			return time.Time{}, false, err
		}
	}
	if !in.ran || !li.UsageStart.IsZero() || !li.UsageEnd.IsZero() {
		return time.Time{}, false, nil
	}
	bound := li.ChargePeriodEnd
	if bound.Before(li.ChargePeriodStart) {
		bound = li.ChargePeriodStart
	}
	if !bound.Before(in.lastEnd) {
		return time.Time{}, false, nil
	}
	if names {
		if in.runName.name != "" {
			if !bound.Before(in.runName.at) {
				return time.Time{}, false, nil
			}
		} else if len(x.col(icResourceName)) > 0 {
			return time.Time{}, false, nil
		}
	}
	p.skipped++
	return li.ChargePeriodStart, true, nil
}

// quantity fills the fields of p.li that billing.ActiveSpan reads beyond
// those item and outranked filled, for a row that runs (most rows of a
// month are compute, but the others need none of them): its billed
// quantity.
func (p *instScan) quantity(x *instRow) error {
	li := &p.li
	li.PricingUnit = string(x.col(icPricingUnit))
	var err error
	li.PricingQuantity, err = x.r.DecimalOf(icPricingQty, x.col(icPricingQty))
	return err
}

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
	"github.com/gpubill/gpubill/money"
)

// The pass of loadInstances over its month. It reads only the columns it
// needs (ledger.ScanItems), in id ranges side by side, each range
// gathered on its own goroutine and the ranges merged at the end: every
// figure is a sum, a count, a set, or the latest or earliest item by time
// and id, so the result does not depend on how the month was split or the
// order rows came in. Building a whole ledger.LineItem (40 columns) for
// every row and handing it to one goroutine was four fifths of the report.
// Each row is a line item of the pass's columns, which billing.IsRunning,
// billing.ActiveSpan and instPositiveUsage read, so that the judgement
// stays theirs.

// instCols are the columns the pass reads into its line items.
var instCols = []string{"id", "provider", "kind", "resource_id", "parent_resource_id", "currency", "billed_cost", "charge_category", "charge_period_start", "charge_period_end", "resource_name", "gpu_model", "pricing_model", "usage_start", "usage_end", "pricing_quantity", "pricing_unit"}

// wantedCosts is the line items whose billed cost a scan keeps (none while
// it holds nil). It may be set while the scan runs: the rows read before
// are left for ledger.DB.AddEvidenceCosts to look up, so that the findings
// that say which items are wanted can be read alongside the scan.
type wantedCosts = atomic.Pointer[map[int64]bool]

// scanInstances gathers what of the instances of month (not yet sorted,
// looked back or judged), and the billed cost of the line items costsOf
// wants (nil: none) as it reads them (s.costs).
func scanInstances(ctx context.Context, db *ledger.DB, month string, costsOf *wantedCosts) (*instanceSet, error) {
	var parts []*instScan
	// Each range from its highest id down: ids rise with time, so an
	// instance's latest compute mostly comes first, and the running rows
	// after it are mostly skipped by outranked.
	n, err := db.ScanItems(ctx, ledger.Filter{Month: month}, ledger.IDDescending, instCols, func(int) func(*ledger.LineItem) error {
		p := newInstScan(costsOf)
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

// ownerChunk is how many owners one allocation of a range holds (append
// would copy them at each growth). A variable for the tests, which fill
// many chunks.
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
	byKey   map[instKey]*instance
	order   []*instance
	owner   [][]instOwner         // in chunks of ownerChunk: see addOwner
	comp    map[instKey]*instComp // by provider and the component's own id
	dataEnd map[string]time.Time
	costsOf *wantedCosts                  // the line items whose billed cost is wanted; nil: none
	costs   map[int64]decimal.NullDecimal // theirs, of this range
	skipped int                           // running rows outranked (for tests)
}

// instComp is the instance a component's latest charge names.
type instComp struct {
	ck, k instKey
	at    rank
}

func newInstScan(costsOf *wantedCosts) *instScan {
	return &instScan{byKey: map[instKey]*instance{}, comp: map[instKey]*instComp{},
		dataEnd: map[string]time.Time{}, costsOf: costsOf, costs: map[int64]decimal.NullDecimal{}}
}

func (p *instScan) add(li *ledger.LineItem) error {
	p.keepCost(li)
	if end := li.ChargePeriodEnd; end.After(p.dataEnd[li.Provider]) {
		p.dataEnd[li.Provider] = end
	}
	// The instance: instOwnerID.
	id, byParent := li.ResourceID, false
	if li.Kind != ledger.KindCompute && li.ParentResourceID != "" {
		id, byParent = li.ParentResourceID, true
	}
	if id == "" {
		return nil
	}
	k := instKey{li.Provider, id}
	in := p.byKey[k]
	if in == nil {
		in = &instance{key: k, pricing: map[string]bool{}}
		p.byKey[k] = in
		p.order = append(p.order, in)
	}
	p.addOwner(instOwner{li.ID, in})
	p.gather(li, in, byParent)
	return nil
}

// gather adds line item li, which belongs to in (by its parent when
// byParent), to all the pass gathers of in but its owner and data end.
func (p *instScan) gather(li *ledger.LineItem, in *instance, byParent bool) {
	sum := in.sum(li.Currency)
	if sum.items == 0 || li.ID < sum.first {
		sum.first = li.ID
	}
	var billed money.Sum
	billed.Add(li.BilledCost)
	sum.add(li.Kind, &billed)
	if byParent && li.ResourceID != "" && li.ResourceID != in.key.id {
		// A component belongs to the instance its latest charge names.
		ck := instKey{li.Provider, li.ResourceID}
		c := p.comp[ck]
		if c == nil {
			c = &instComp{ck: ck, k: in.key, at: rank{li.ChargePeriodStart, li.ID}}
			p.comp[ck] = c
		} else if c.at.before(li.ChargePeriodStart, li.ID) {
			c.k, c.at = in.key, rank{li.ChargePeriodStart, li.ID}
		}
	}
	if instPositiveUsage(li) && li.ChargePeriodEnd.After(in.lastCharge) {
		in.lastCharge = li.ChargePeriodEnd
	}
	if billing.IsRunning(li) {
		start, skip := p.outranked(li, in)
		if !skip {
			var end time.Time
			start, end = billing.ActiveSpan(li)
			in.seeCompute(li.ID, li.GPUModel, li.ResourceName, end)
		}
		if in.firstStart.IsZero() || start.Before(in.firstStart) {
			in.firstStart = start
		}
		if !in.pricing[li.PricingModel] {
			in.pricing[li.PricingModel] = true
		}
	} else if li.ResourceName != "" && li.ResourceID == in.key.id {
		in.otherName.keep(li.ResourceName, li.ChargePeriodStart, li.ID, false)
	}
}

// keepCost keeps the billed cost of li if it is wanted: the evidence of
// the month's findings costs nothing more to read than the month itself,
// where looking up its line items one by one is a second read after
// the scan.
func (p *instScan) keepCost(li *ledger.LineItem) {
	if p.costsOf == nil {
		return
	}
	if want := p.costsOf.Load(); want != nil && (*want)[li.ID] {
		p.costs[li.ID] = decimal.NullDecimal{Decimal: li.BilledCost, Valid: true}
	}
}

// outranked reports (skip) whether the running line item li can change
// nothing seeCompute keeps of in: its active span (billing.ActiveSpan)
// surely ends before in's last compute and, if named, before in's named
// compute that ended last. Its
// ActiveSpan is then left uncomputed; start is its active span's start,
// which it returns then. Without usage times ActiveSpan starts at the
// charge period's start and ends at the latest at the later of its start
// and end (a billed quantity only cuts the span short), which is the bound
// used; a row with usage times is never skipped. Read from the highest id
// down, most rows of an instance come after its latest compute.
func (p *instScan) outranked(li *ledger.LineItem, in *instance) (start time.Time, skip bool) {
	if !in.ran || !li.UsageStart.IsZero() || !li.UsageEnd.IsZero() {
		return time.Time{}, false
	}
	bound := li.ChargePeriodEnd
	if bound.Before(li.ChargePeriodStart) {
		bound = li.ChargePeriodStart
	}
	if !bound.Before(in.lastEnd) {
		return time.Time{}, false
	}
	if in.runName.name != "" {
		if !bound.Before(in.runName.at) {
			return time.Time{}, false
		}
	} else if li.ResourceName != "" {
		return time.Time{}, false
	}
	p.skipped++
	return li.ChargePeriodStart, true
}

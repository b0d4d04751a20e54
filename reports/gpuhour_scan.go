package reports

import (
	"context"
	"encoding/binary"
	"math"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/rules"
)

// The pass of the GPU-hour report over its month. It reads only the
// columns the report needs (ledger.ScanLineItems), in id ranges side by
// side, each range tallied on its own goroutine and the tallies merged at
// the end (ghTally.merge: exact). Building a whole ledger.LineItem for
// every row and handing it to one goroutine was two thirds of the report.
// A compute row fills one line item per range, reused, with the fields
// that computeSeconds, perGPUHourQuote and rules.IsRunning read, so that
// the report's arithmetic stays theirs.

// ghCols are the columns the pass reads, in the order of the gc constants.
const ghCols = `li.kind, li.provider, li.currency, li.resource_id, li.parent_resource_id, li.gpu_model, li.pricing_model,
	li.billed_cost, li.charge_category, li.gpu_count, li.pricing_quantity, li.pricing_unit, li.list_unit_price,
	li.consumed_quantity, li.consumed_unit, li.usage_start, li.usage_end, li.charge_period_start, li.charge_period_end`

const (
	gcKind = iota
	gcProvider
	gcCurrency
	gcResource
	gcParent
	gcGPUModel
	gcPricingModel
	gcBilled
	gcCategory
	gcGPUCount
	gcPricingQty
	gcPricingUnit
	gcListUnitPrice
	gcConsumedQty
	gcConsumedUnit
	gcUsageStart
	gcUsageEnd
	gcStart
	gcEnd
	gcCount // columns
)

// scanGPUHours tallies the line items of month.
func scanGPUHours(ctx context.Context, db *ledger.DB, month string) (*ghTally, error) {
	var parts []*ghScan
	n, err := db.ScanLineItems(ctx, ledger.Filter{Month: month}, ghCols, func(int) func(ledger.Row) error {
		s := newGHScan()
		parts = append(parts, s)
		return s.add
	})
	if err != nil {
		return nil, err
	}
	t := newGHTally()
	for _, p := range parts[:n] {
		t.merge(p.tally())
	}
	return t, nil
}

// ghScan tallies one id range. Its own tables find a row's group, instance
// and served instance with one map look-up each, by the row's texts as
// they are (no string built for a row seen before); tally puts them in a
// ghTally.
type ghScan struct {
	t      *ghTally
	share  *ledger.RowShare
	li     ledger.Item              // the compute row at hand (compute)
	spells map[string]*ghSpelling   // by provider, GPU model as written, currency
	insts  map[string]*ghInstance   // compute of a named resource: by provider, resource, currency, GPU model as written
	served map[string]*ghServedInst // gpuHourHidden kinds: by provider, served instance, currency
	key    []byte                   // scratch for map keys
}

// ghSpelling is one spelling of a GPU model of a provider and currency.
type ghSpelling struct {
	k     ghKey
	g     *ghGroup // nil for compute without a GPU model
	model string   // as written
	n     int      // its compute line items
}

// ghInstance is the compute cost of an instance under one spelling.
type ghInstance struct {
	inst ghInst
	sp   *ghSpelling
	cost ledger.DecimalSum
}

// ghServedInst is what served one instance.
type ghServedInst struct {
	inst ghInst
	ghServed
}

func newGHScan() *ghScan {
	return &ghScan{t: newGHTally(), share: ledger.NewRowShare(gcCount), spells: map[string]*ghSpelling{},
		insts: map[string]*ghInstance{}, served: map[string]*ghServedInst{}}
}

// keyOf builds in s.key the map key of columns cols of r (appendKey).
func (s *ghScan) keyOf(r ledger.Row, cols ...int) {
	s.key = appendKey(s.key[:0], r, cols...)
}

func (s *ghScan) add(r ledger.Row) error {
	switch kind := r.Bytes(gcKind); {
	case string(kind) == ledger.KindCompute:
		return s.compute(r)
	case gpuHourHidden[string(kind)]:
		return s.serve(r)
	}
	return nil
}

// serve counts a charge of a gpuHourHidden kind for the instance it serves
// (parent_resource_id, else its own resource_id).
func (s *ghScan) serve(r ledger.Row) error {
	id := gcParent
	if len(r.Bytes(gcParent)) == 0 {
		id = gcResource
	}
	s.keyOf(r, gcProvider, id, gcCurrency)
	h := s.served[string(s.key)]
	if h == nil {
		h = &ghServedInst{inst: ghInst{r.Text(gcProvider), r.Text(id), r.Text(gcCurrency)}}
		s.served[string(s.key)] = h
	}
	h.items++
	return h.cost.AddText(r.Bytes(gcBilled))
}

// compute tallies a compute row in its group.
func (s *ghScan) compute(r ledger.Row) error {
	s.keyOf(r, gcProvider, gcGPUModel, gcCurrency)
	sp := s.spells[string(s.key)]
	if sp == nil {
		sp = s.newSpelling(r)
	}
	var in *ghInstance
	if len(r.Bytes(gcResource)) > 0 {
		s.keyOf(r, gcProvider, gcResource, gcCurrency, gcGPUModel)
		in = s.insts[string(s.key)]
		if in == nil {
			in = &ghInstance{inst: ghInst{sp.k.provider, r.Text(gcResource), sp.k.currency}, sp: sp}
			s.insts[string(s.key)] = in
		}
	}
	if sp.g == nil {
		return nil // no GPU: only its instance is told (ghScan.tally)
	}
	var billed ledger.DecimalSum // the term, parsed once
	if err := billed.AddText(r.Bytes(gcBilled)); err != nil {
		return err
	}
	li, err := s.item(r, &billed)
	if err != nil {
		return err
	}
	g := sp.g
	sp.n++
	g.items++
	g.compute.AddSum(&billed)
	pm := g.pricing[li.PricingModel]
	if pm == nil {
		pm = &ledger.DecimalSum{}
		g.pricing[li.PricingModel] = pm
	}
	pm.AddSum(&billed)
	if in != nil {
		in.cost.AddSum(&billed)
	}
	if !rules.IsRunning(li) {
		return nil
	}
	q, unit, basis := computeSeconds(li)
	g.bases[basisIndex(basis)]++
	if n := int64(gpuCount(li)); unit > 0 && n <= math.MaxInt64/unit {
		g.seconds.AddMul(q, unit*n)
	} else {
		g.seconds.Add(q.Mul(decimal.NewFromInt(unit)).Mul(decimal.NewFromInt(n)))
	}
	s.quote(g, r, li)
	return nil
}

// newSpelling enters the spelling of the compute row r.
func (s *ghScan) newSpelling(r ledger.Row) *ghSpelling {
	model := r.Text(gcGPUModel)
	k := ghKey{r.Text(gcProvider), rules.NormalizeGPUModel(model), r.Text(gcCurrency)}
	sp := &ghSpelling{k: k, model: model}
	if k.model != "" {
		sp.g = s.t.group(k)
	}
	s.spells[string(s.key)] = sp
	return sp
}

// item fills s.li with the compute row r, whose billed cost is parsed:
// every field that rules.IsRunning, computeSeconds, gpuCount and
// perGPUHourQuote read, and the pricing model. The billed cost is the
// parsed term's value (not a shared amount: it repeats far less than the
// others, and a table of them cost more than it saved).
func (s *ghScan) item(r ledger.Row, billed *ledger.DecimalSum) (*ledger.Item, error) {
	sh := s.share
	li := &s.li
	*li = ledger.Item{Kind: ledger.KindCompute, ChargeCategory: sh.Text(r, gcCategory),
		PricingModel: sh.Text(r, gcPricingModel), GPUCount: int(r.Int64(gcGPUCount)), // NULL reads as 0 = unknown
		PricingUnit: sh.Text(r, gcPricingUnit), ConsumedUnit: sh.Text(r, gcConsumedUnit),
		BilledCost: billed.Decimal()}
	var err error
	for _, d := range [...]struct {
		i   int
		dst *decimal.NullDecimal
	}{{gcPricingQty, &li.PricingQuantity}, {gcListUnitPrice, &li.ListUnitPrice}, {gcConsumedQty, &li.ConsumedQuantity}} {
		if *d.dst, err = sh.Amount(r, d.i); err != nil {
			return nil, err
		}
	}
	for _, t := range [...]struct {
		i   int
		dst *time.Time
	}{{gcUsageStart, &li.UsageStart}, {gcUsageEnd, &li.UsageEnd}, {gcStart, &li.ChargePeriodStart}, {gcEnd, &li.ChargePeriodEnd}} {
		if *t.dst, err = r.Time(t.i); err != nil {
			return nil, err
		}
	}
	return li, nil
}

// quote counts the running compute row li (r) among the per-GPU-hour
// quotes of g. perGPUHourQuote runs once per distinct set of its inputs:
// a month repeats a few list prices on most of its rows.
func (s *ghScan) quote(g *ghGroup, r ledger.Row, li *ledger.Item) {
	s.key = quoteInputs(s.key[:0], r, li)
	if q := g.quotes[string(s.key)]; q != nil {
		if !q.none {
			q.n++
		}
		return
	}
	v, ok := perGPUHourQuote(li)
	g.quotes[string(s.key)] = &ghQuote{value: v, n: boolInt(ok), none: !ok}
}

// quoteInputs appends to b a key of what perGPUHourQuote(li) depends on:
// the pricing quantity (only whether it is positive when the list unit
// price is), the pricing unit, the GPU count, the list unit price, and the
// billed cost when the list unit price is not positive. Amounts are named
// by their stored text, which decides their value and precision.
func quoteInputs(b []byte, r ledger.Row, li *ledger.Item) []byte {
	list := li.ListUnitPrice.Valid && li.ListUnitPrice.Decimal.IsPositive()
	pqPositive := li.PricingQuantity.Valid && li.PricingQuantity.Decimal.IsPositive()
	b = append(b, byte(boolInt(list)), byte(boolInt(pqPositive)))
	b = binary.AppendVarint(b, int64(li.GPUCount))
	b = appendKey(b, r, gcPricingUnit, gcListUnitPrice)
	if !list {
		b = appendKey(b, r, gcPricingQty, gcBilled)
	}
	return b
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

// tally is what the range gathered.
func (s *ghScan) tally() *ghTally {
	for _, sp := range s.spells {
		if sp.g != nil {
			sp.g.spellings[sp.model] += sp.n // a string of its own (ledger.Row.Text)
		}
	}
	for _, in := range s.insts {
		if in.sp.g == nil {
			s.t.cpuInst[in.inst] = true
		} else {
			s.t.addInstCost(in.inst, in.sp.k, &in.cost)
		}
	}
	for _, h := range s.served {
		s.t.addServed(h.inst, h.items, &h.cost)
	}
	return s.t
}

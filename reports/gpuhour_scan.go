package reports

import (
	"context"
	"encoding/binary"
	"sort"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

// The pass of the GPU-hour report over its month. It reads only the
// columns the report needs (ledger.ScanItems), in id ranges side by
// side, each range tallied on its own goroutine and the tallies merged at
// the end (ghTally.merge: exact, and independent of the order of rows).
// Each row is a line item of the pass's columns (ledger.ScanItems), which
// computeSeconds, perGPUHourQuote and billing.IsRunning read, so that the
// report's arithmetic stays theirs. Compute is tallied per instance
// (ghUse): its billed intervals are kept as a union of disjoint spans,
// which touching hourly rows collapse into one span per session, so the
// pass holds a few spans per instance, not its rows.

// ghCols are the columns the pass reads into its line items.
var ghCols = []string{"kind", "provider", "currency", "resource_id", "parent_resource_id", "gpu_model", "pricing_model", "billed_cost", "charge_category", "gpu_count", "pricing_quantity", "pricing_unit", "list_unit_price", "consumed_quantity", "consumed_unit", "usage_start", "usage_end", "charge_period_start", "charge_period_end", "id", "sku", "resource_type"}

// scanGPUHours tallies the line items of month.
func scanGPUHours(ctx context.Context, db *ledger.DB, month string) (*ghTally, error) {
	var parts []*ghScan
	n, err := db.ScanItems(ctx, ledger.Filter{Month: month}, ledger.AnyOrder, ghCols, func(int) func(*ledger.LineItem) error {
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

// ghScan tallies one id range.
type ghScan struct {
	t      *ghTally
	spells map[ghSpellKey]*ghSpelling
	key    []byte // scratch for the keys of quotes
}

// ghSpellKey is a GPU model as written of a provider, currency and pricing
// model; the spec texts only where no model is written.
type ghSpellKey struct{ provider, model, currency, pricing, sku, resourceType string }

// ghSpelling is one spelling of a GPU model of a provider, currency and
// pricing model.
type ghSpelling struct {
	k     ghKey
	g     *ghGroup
	model string // as written, or as the billing table read it
	count int    // GPUs the spec text states (billing.GPUModelOf), 0 unknown
	n     int    // its compute line items
}

func newGHScan() *ghScan {
	return &ghScan{t: newGHTally(), spells: map[ghSpellKey]*ghSpelling{}}
}

func (s *ghScan) add(li *ledger.LineItem) error {
	switch {
	case li.Kind == ledger.KindCompute:
		return s.compute(li)
	case gpuHourHidden[li.Kind]:
		return s.serve(li)
	}
	return s.other(li)
}

// serve counts a charge of a gpuHourHidden kind for the instance it serves
// (parent_resource_id, else its own resource_id).
func (s *ghScan) serve(li *ledger.LineItem) error {
	id := li.ParentResourceID
	if id == "" {
		id = li.ResourceID
	}
	k := ghHidden{ghInst{li.Provider, id, li.Currency}, li.Kind}
	h := s.t.hidden[k]
	if h == nil {
		h = &ghServed{}
		s.t.hidden[k] = h
	}
	h.add(li)
	return nil
}

// other counts a line item of a kind that no GPU-hour carries (service,
// tax, credit, adjustment, other): it is left out, by kind.
func (s *ghScan) other(li *ledger.LineItem) error {
	k := ghOther{li.Provider, li.Currency, li.Kind}
	h := s.t.others[k]
	if h == nil {
		h = &ghServed{}
		s.t.others[k] = h
	}
	h.add(li)
	return nil
}

// add counts the line item li.
func (h *ghServed) add(li *ledger.LineItem) {
	h.items++
	h.ids = append(h.ids, li.ID)
	h.cost.Add(li.BilledCost)
}

// compute tallies a compute row for its instance and group.
func (s *ghScan) compute(li *ledger.LineItem) error {
	sk := ghSpellKey{provider: li.Provider, model: li.GPUModel, currency: li.Currency, pricing: li.PricingModel}
	if li.GPUModel == "" {
		sk.sku, sk.resourceType = li.SKU, li.ResourceType
	}
	sp := s.spells[sk]
	if sp == nil {
		sp = s.newSpelling(li)
		s.spells[sk] = sp
	}
	inst := ghInst{li.Provider, li.ResourceID, li.Currency}
	uses := s.t.uses[inst]
	if uses == nil {
		uses = map[ghKey]*ghUse{}
		s.t.uses[inst] = uses
	}
	u := uses[sp.k]
	if u == nil {
		u = &ghUse{}
		uses[sp.k] = u
	}
	sp.n++
	u.items++
	u.cost.Add(li.BilledCost)
	if !billing.IsRunning(li) {
		return nil
	}
	n := gpuCount(li)
	if li.GPUCount <= 0 && sp.count > 0 {
		n = sp.count
	}
	u.count = max(u.count, n)
	q, unit, basis := computeSeconds(li)
	u.bases[basisIndex(basis)]++
	u.place(li, li.ResourceID == "", q.Mul(decimal.NewFromInt(unit)), basis)
	s.quote(sp.g, li)
	return nil
}

// newSpelling enters the spelling of the compute row li; a row that names
// no GPU model is read by the billing table from its spec texts (SKU and
// resource type; not the user's own instance name: "sd-4090" may name a
// CPU part of it).
func (s *ghScan) newSpelling(li *ledger.LineItem) *ghSpelling {
	model, count := li.GPUModel, 0
	provider := li.Provider
	if model == "" {
		if m, n, ok := billing.GPUModelOf(provider, li.SKU+" "+li.ResourceType); ok {
			model, count = m, n
		}
	}
	k := ghKey{provider, billing.NormalizeGPUModel(model), li.Currency, li.PricingModel}
	return &ghSpelling{k: k, model: model, count: count, g: s.t.group(k)}
}

// ghUse is the compute of one instance in one group: its money and the
// time it was billed for. A row's time is placed as an interval where the
// bill tells where it lies (its usage times, or a charge period that it
// fills); the union of those intervals is the instance's time, so an hour
// billed twice counts once. A row whose time is shorter than its charge
// period (6 h of a day) cannot be placed: its seconds are kept per charge
// period (bins) and count up to what the period leaves uncovered. Rows of
// no instance (no resource id) and rows without a charge period add their
// seconds as they are (loose).
type ghUse struct {
	items  int
	bases  [len(hoursBases)]int
	cost   money.Sum
	count  int                   // GPUs (the most any row states; 1 when none does)
	spans  []ghSpan              // disjoint, sorted, touching ones joined
	placed int64                 // Σ of each placed row's own seconds
	bins   map[ghSpan]*money.Sum // seconds of rows that cannot be placed, by charge period
	loose  money.Sum             // seconds that are not unioned
	// package rows: the time the bill shows in use, where it does
	used      money.Sum
	usedItems int
}

// ghSpan is a half-open interval in Unix seconds.
type ghSpan struct{ s, e int64 }

// place enters the time of the running compute row li, secs long by
// computeSeconds' basis.
func (u *ghUse) place(li *ledger.LineItem, loose bool, secs decimal.Decimal, basis string) {
	cs, ce := li.ChargePeriodStart, li.ChargePeriodEnd
	period := !cs.IsZero() && ce.After(cs)
	if li.PricingModel == ledger.PricingPackage || li.PricingModel == ledger.PricingReserved {
		// A package reserves its charge period; its use is what the bill shows.
		if use, _, ok := actualUse(li); ok {
			u.used.Add(use)
			u.usedItems++
		}
		if period && !loose {
			u.insert(ghSpan{cs.Unix(), ce.Unix()})
			return
		}
		if period {
			secs = decimal.NewFromInt(ce.Unix() - cs.Unix())
		}
		u.loose.Add(secs)
		return
	}
	switch {
	case loose || !period && basis != HoursUsage:
		u.loose.Add(secs)
	case basis == HoursUsage:
		s, e := li.UsageStart, li.UsageEnd
		if period {
			s, e = billing.Later(s, cs), billing.Earlier(e, ce)
		}
		if e.After(s) {
			u.insert(ghSpan{s.Unix(), e.Unix()})
		}
	case secs.Cmp(decimal.NewFromInt(ce.Unix()-cs.Unix())) >= 0:
		// it fills its charge period (or more: what a bill rounds up,
		// the period holds no more time than its length)
		u.insert(ghSpan{cs.Unix(), ce.Unix()})
	default:
		if u.bins == nil {
			u.bins = map[ghSpan]*money.Sum{}
		}
		k := ghSpan{cs.Unix(), ce.Unix()}
		if u.bins[k] == nil {
			u.bins[k] = &money.Sum{}
		}
		u.bins[k].Add(secs)
	}
}

// insert adds the interval sp (counted as a row's own time in placed) to
// the union.
func (u *ghUse) insert(sp ghSpan) {
	u.placed += sp.e - sp.s
	u.union(sp)
}

// union joins sp into the spans.
func (u *ghUse) union(sp ghSpan) {
	if sp.e <= sp.s {
		return
	}
	i := sort.Search(len(u.spans), func(i int) bool { return u.spans[i].e >= sp.s })
	j := i
	for j < len(u.spans) && u.spans[j].s <= sp.e {
		sp.s, sp.e = min(sp.s, u.spans[j].s), max(sp.e, u.spans[j].e)
		j++
	}
	if i == j {
		u.spans = append(u.spans, ghSpan{})
		copy(u.spans[i+1:], u.spans[i:])
		u.spans[i] = sp
		return
	}
	u.spans[i] = sp
	u.spans = append(u.spans[:i+1], u.spans[j:]...)
}

// covered is how much of [sp.s, sp.e) the spans cover.
func (u *ghUse) covered(sp ghSpan) int64 {
	var n int64
	for _, x := range u.spans {
		if s, e := max(x.s, sp.s), min(x.e, sp.e); e > s {
			n += e - s
		}
	}
	return n
}

// merge adds o, the use of the same instance and group, to u.
func (u *ghUse) merge(o *ghUse) {
	u.items += o.items
	for i, n := range o.bases {
		u.bases[i] += n
	}
	u.cost.AddSum(&o.cost)
	u.count = max(u.count, o.count)
	for _, sp := range o.spans {
		u.union(sp)
	}
	u.placed += o.placed
	for k, b := range o.bins {
		if u.bins == nil {
			u.bins = map[ghSpan]*money.Sum{}
		}
		if u.bins[k] == nil {
			u.bins[k] = &money.Sum{}
		}
		u.bins[k].AddSum(b)
	}
	u.loose.AddSum(&o.loose)
	u.used.AddSum(&o.used)
	u.usedItems += o.usedItems
}

// seconds is the instance's billed time: the union of its placed spans,
// each bin up to what the spans leave of its period, and the loose time;
// billed is the time its rows state one by one (the union plus what was
// billed twice). Both per GPU (times count for GPU-seconds).
func (u *ghUse) seconds() (union, billed decimal.Decimal) {
	var spans int64
	for _, sp := range u.spans {
		spans += sp.e - sp.s
	}
	union = decimal.NewFromInt(spans).Add(u.loose.Decimal())
	billed = decimal.NewFromInt(u.placed).Add(u.loose.Decimal())
	keys := make([]ghSpan, 0, len(u.bins))
	for k := range u.bins {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].s < keys[j].s || keys[i].s == keys[j].s && keys[i].e < keys[j].e })
	for _, k := range keys {
		b := u.bins[k].Decimal()
		billed = billed.Add(b)
		room := decimal.NewFromInt(k.e - k.s - u.covered(k))
		if b.Cmp(room) > 0 {
			b = room
		}
		if b.IsPositive() {
			union = union.Add(b)
		}
	}
	return union, billed
}

// quote counts the running compute row li among the per-GPU-hour quotes
// of g. perGPUHourQuote runs once per distinct set of its inputs.
func (s *ghScan) quote(g *ghGroup, li *ledger.LineItem) {
	s.key = quoteInputs(s.key[:0], li)
	if q := g.quotes[string(s.key)]; q != nil {
		if !q.none {
			q.n++
		}
		return
	}
	v, ok := perGPUHourQuote(li)
	g.quotes[string(s.key)] = &ghQuote{value: v, n: boolInt(ok), none: !ok,
		stated: li.ListUnitPrice.Valid && li.ListUnitPrice.Decimal.IsPositive()}
}

// quoteInputs appends to b a key of what perGPUHourQuote(li) depends on:
// the pricing quantity (only whether it is positive when the list unit
// price is), the pricing unit, the GPU count, the list unit price, and the
// billed cost when the list unit price is not positive. Amounts are named
// by their text as stored (appendKeyAmount), which keeps their precision.
func quoteInputs(b []byte, li *ledger.LineItem) []byte {
	list := li.ListUnitPrice.Valid && li.ListUnitPrice.Decimal.IsPositive()
	pqPositive := li.PricingQuantity.Valid && li.PricingQuantity.Decimal.IsPositive()
	b = append(b, byte(boolInt(list)), byte(boolInt(pqPositive)))
	b = binary.AppendVarint(b, int64(li.GPUCount))
	b = appendKeyText(b, li.PricingUnit)
	b = appendKeyAmount(b, li.ListUnitPrice)
	if !list {
		b = appendKeyAmount(b, li.PricingQuantity)
		b = appendKeyAmount(b, decimal.NullDecimal{Decimal: li.BilledCost, Valid: true})
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
		sp.g.spellings[sp.model] += sp.n
	}
	return s.t
}

package reports

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

// The real price of a GPU-hour: what one GPU-hour of a model cost on a
// platform once the storage, images, traffic and seat fees that served it
// are added to the compute charges, against the sticker price.
//
// Arithmetic, all exact decimals but the displayed price:
//   - Rows are provider × GPU model × currency × pricing model. A compute
//     row that names no model is read through billing.GPUModelOf from its
//     SKU and resource type; a part of an instance that still names none
//     joins the instance's model (money, not time); the rest is the row of
//     an unknown model. Every compute line item is in a row.
//   - GPU-seconds of an instance in a row = the union of its rows' billed
//     intervals (ghUse) × its GPU count (1 when unknown). A row's time, by
//     basis: usage_end − usage_start ("usage"), else consumed_quantity in
//     a time unit ("consumed"), else pricing_quantity in a time unit
//     ("billed"), else the charge period ("period"). Credit, tax and
//     adjustment rows and negative amounts add their money but no time.
//     What the rows state beyond the union is billed twice, named with its
//     money (pro rata) and left in the costs. A package row reserves its
//     charge period; the use its bill shows gives a price per hour used.
//   - compute_cost = the billed cost of the row's compute line items.
//   - attributed_cost = the billed cost of storage, image, snapshot, network
//     and seat line items that serve one of the row's instances
//     (parent_resource_id, else their own resource_id when it ran compute).
//     An instance belongs to its known model where it cost most.
//   - spread_cost = the row's part of the same kinds of charges of its
//     provider and currency that serve no instance of the month, split in
//     proportion to compute_cost (SpreadExact: the parts add up exactly).
//   - all_in_cost = compute + attributed + spread; the real price per
//     GPU-hour = all_in_cost × 3600 ÷ GPU-seconds, shown with 4 decimals.
//   - sticker price: the median of the bill's own per-GPU-hour unit prices,
//     else the catalog's price (billing.PriceCatalog.Lookup), else the median
//     of billed cost ÷ billed quantity; markup = real ÷ sticker − 1.
//   - Every other line item is left out, by reason and kind, with its id:
//     per currency the rows' all-in costs and the left-out costs add up to
//     the month's billed cost.

// Bases of a compute line item's hours.
const (
	HoursUsage    = "usage"
	HoursConsumed = "consumed"
	HoursBilled   = "billed"
	HoursPeriod   = "period"
)

// hoursBases lists the bases in order of preference.
var hoursBases = [...]string{HoursUsage, HoursConsumed, HoursBilled, HoursPeriod}

// basisIndex is the place of basis b (one of hoursBases) in hoursBases.
func basisIndex(b string) int {
	for i, x := range hoursBases {
		if x == b {
			return i
		}
	}
	return len(hoursBases) - 1 // not reached: computeSeconds gives one of them
}

// Sticker price bases: the bill's own unit price (the median of the
// month's stated per-GPU-hour unit prices), else the catalog, else the
// median of billed cost ÷ billed quantity.
const (
	StickerBill    = "bill"
	StickerCatalog = "catalog"
	StickerMedian  = "median"
)

// Reasons a line item is left out of the table.
const (
	LeftOutNotGPUCost = "not_gpu_cost" // a kind no GPU-hour carries: service, tax, credit, adjustment, other
	LeftOutNoCompute  = "no_compute"   // storage, image … of a provider and currency that ran no compute this month
)

// GPUHourOptions selects the month and the reference prices.
type GPUHourOptions struct {
	Month  string                // billing period YYYY-MM (required)
	Prices *billing.PriceCatalog // reference prices; nil = billing.DefaultPrices()
}

// GPUHourRow is one provider × GPU model × currency × pricing model.
// Compute whose GPU model stays unknown has its own row (ModelKey "").
type GPUHourRow struct {
	Provider     string
	GPUModel     string // as the bill writes it (its most frequent spelling); "" when unknown
	ModelKey     string // billing.NormalizeGPUModel; "" when unknown
	Currency     string
	PricingModel string // on_demand, package, spot … : each has its own rows

	ComputeItems    int
	Bases           map[string]int  // compute line items per hours basis
	GPUSeconds      decimal.Decimal // the union of the billed intervals × GPUs
	ComputeCost     decimal.Decimal
	AttributedCost  decimal.Decimal
	AttributedItems int
	SpreadCost      decimal.Decimal
	AllInCost       decimal.Decimal

	// Billed twice: GPU-seconds the rows state beyond their union, and the
	// money of them (pro rata of the instance's cost); the money stays in
	// the costs above. DoubleResources names the instances.
	DoubleSeconds   decimal.Decimal
	DoubleCost      decimal.Decimal
	DoubleResources []string

	// Packages: the GPU-seconds the bill shows in use (UsedItems rows say),
	// and the price per GPU-hour used; GPUSeconds is then the time reserved.
	UsedSeconds decimal.NullDecimal
	UsedItems   int
	UsedPrice   decimal.NullDecimal

	RealPrice     decimal.NullDecimal // per GPU-hour, 4 decimals; unknown without GPU time
	Sticker       decimal.NullDecimal // per GPU-hour
	StickerBasis  string              // StickerBill | StickerCatalog | StickerMedian | ""
	StickerSource string              // the catalog entry's source
	Markup        decimal.NullDecimal // real ÷ sticker − 1, 4 decimals

	realExact   decimal.Decimal // 8 decimals, for the markup
	stickerCost decimal.NullDecimal
}

// GPUHours is GPUSeconds in hours, 4 decimals.
func (r *GPUHourRow) GPUHours() decimal.Decimal { return secondsToHours(r.GPUSeconds) }

// GPUHourProvider sums the rows of one provider and currency.
type GPUHourProvider struct {
	Provider       string
	Currency       string
	GPUSeconds     decimal.Decimal
	ComputeCost    decimal.Decimal
	AttributedCost decimal.Decimal
	SpreadCost     decimal.Decimal
	AllInCost      decimal.Decimal
	RealPrice      decimal.NullDecimal
	// StickerCost is Σ sticker × GPU-hours of its rows (unknown when a row
	// has no sticker); Markup = AllInCost ÷ StickerCost − 1.
	StickerCost decimal.NullDecimal
	Markup      decimal.NullDecimal
}

// GPUHourLeftOut is the line items of one provider, currency, reason and
// kind that no row of the table carries.
type GPUHourLeftOut struct {
	Provider string
	Currency string
	Reason   string // LeftOutNotGPUCost | LeftOutNoCompute
	Kind     string
	Items    int
	Cost     decimal.Decimal
	IDs      []int64 // the line items, ascending
}

// GPUHourReport is the real price of a GPU-hour for one month. Per
// currency, the rows' all-in costs and the left-out costs add up to the
// billed cost of every line item of the month.
type GPUHourReport struct {
	Month     string
	Rows      []GPUHourRow // markup descending (unknown last), then provider, model, currency, pricing model
	Providers []GPUHourProvider
	LeftOut   []GPUHourLeftOut
	// SpreadItems counts the line items spread over a provider's models.
	SpreadItems int
}

// gpuHourHidden are the kinds whose cost serves the compute they belong to.
var gpuHourHidden = map[string]bool{ledger.KindStorage: true, ledger.KindImage: true, ledger.KindSnapshot: true,
	ledger.KindNetwork: true, ledger.KindSeat: true}

type ghKey struct{ provider, model, currency, pricing string }
type ghInst struct{ provider, resource, currency string }
type ghPool struct{ provider, currency string }
type ghOther struct{ provider, currency, kind string }

// ghHidden is the charges of one kind that served one instance.
type ghHidden struct {
	inst ghInst
	kind string
}

// ghServed sums line items: the charges that served one instance
// (gpuHourHidden kinds), or those of a kind left out.
type ghServed struct {
	items int
	cost  money.Sum
	ids   []int64
}

// ghTally is what the pass over the month gathers: only sums, counts,
// unions and sets, so that parts of the month tallied apart (side by
// side, scanGPUHours) merge into exactly what one pass gathers.
type ghTally struct {
	groups map[ghKey]*ghGroup
	uses   map[ghInst]map[ghKey]*ghUse // compute per instance and group
	hidden map[ghHidden]*ghServed      // charges that served an instance, by kind
	others map[ghOther]*ghServed       // kinds no GPU-hour carries
}

// ghGroup is what a group keeps beyond its instances' uses.
type ghGroup struct {
	spellings map[string]int // how often each spelling of the model is seen
	// quotes are the per-GPU-hour quotes (perGPUHourQuote) of the running
	// items, each value with how often it was seen. The keys only have to
	// tell the entries of one tally apart and to match between the parts
	// of a month (merge).
	quotes map[string]*ghQuote
}

// ghQuote is a quote and how many items gave it.
type ghQuote struct {
	value  decimal.Decimal
	n      int
	none   bool // inputs that give no quote (ghScan.quote): n stays 0
	stated bool // the bill's own unit price (list_unit_price)
}

func newGHTally() *ghTally {
	return &ghTally{groups: map[ghKey]*ghGroup{}, uses: map[ghInst]map[ghKey]*ghUse{},
		hidden: map[ghHidden]*ghServed{}, others: map[ghOther]*ghServed{}}
}

// group returns the group of k, new if need be.
func (t *ghTally) group(k ghKey) *ghGroup {
	g := t.groups[k]
	if g == nil {
		g = &ghGroup{spellings: map[string]int{}, quotes: map[string]*ghQuote{}}
		t.groups[k] = g
	}
	return g
}

// addUse adds u to the use of inst in group k.
func (t *ghTally) addUse(inst ghInst, k ghKey, u *ghUse) {
	m := t.uses[inst]
	if m == nil {
		m = map[ghKey]*ghUse{}
		t.uses[inst] = m
	}
	if m[k] == nil {
		m[k] = &ghUse{}
	}
	m[k].merge(u)
}

// merge adds what o gathered to t. Every figure is exact, a count or a
// union, so the result does not depend on how the month was split.
func (t *ghTally) merge(o *ghTally) {
	for k, og := range o.groups {
		g := t.group(k)
		for sp, n := range og.spellings {
			g.spellings[sp] += n
		}
		for qk, q := range og.quotes {
			if s := g.quotes[qk]; s != nil {
				s.n += q.n
			} else {
				g.quotes[qk] = q
			}
		}
	}
	for inst, m := range o.uses {
		for k, u := range m {
			t.addUse(inst, k, u)
		}
	}
	for k, h := range o.hidden {
		s := t.hidden[k]
		if s == nil {
			s = &ghServed{}
			t.hidden[k] = s
		}
		s.merge(h)
	}
	for k, h := range o.others {
		s := t.others[k]
		if s == nil {
			s = &ghServed{}
			t.others[k] = s
		}
		s.merge(h)
	}
}

func (s *ghServed) merge(o *ghServed) {
	s.items += o.items
	s.cost.AddSum(&o.cost)
	s.ids = append(s.ids, o.ids...)
}

// GPUHours computes the report of opts.Month from the ledger.
func GPUHours(ctx context.Context, db *ledger.DB, opts GPUHourOptions) (*GPUHourReport, error) {
	if opts.Month == "" {
		return nil, fmt.Errorf("reports: gpu hours: a month is required")
	}
	if err := checkMonth(opts.Month); err != nil {
		return nil, err
	}
	prices := opts.Prices
	if prices == nil {
		prices = billing.DefaultPrices()
	}
	t, err := scanGPUHours(ctx, db, opts.Month)
	if err != nil {
		return nil, fmt.Errorf("reports: gpu hours: %w", err)
	}
	return t.report(opts.Month, prices), nil
}

// homeOf is the group an instance belongs to: the one of a known GPU
// model where it cost most, else (only unknown models) the one where it
// cost most.
func homeOf(uses map[ghKey]*ghUse) ghKey {
	var best ghKey
	var bestCost decimal.Decimal
	first := true
	for k, u := range uses {
		c := u.cost.Decimal()
		better := first || (k.model != "") != (best.model != "") && k.model != "" ||
			(k.model != "") == (best.model != "") && (c.Cmp(bestCost) > 0 || c.Equal(bestCost) && (k.model < best.model ||
				k.model == best.model && k.pricing < best.pricing))
		if better {
			best, bestCost, first = k, c, false
		}
	}
	return best
}

// report turns the tally of month into the report.
func (t *ghTally) report(month string, prices *billing.PriceCatalog) *GPUHourReport {
	rep := &GPUHourReport{Month: month}
	groups := map[ghKey]*GPUHourRow{}
	row := func(k ghKey) *GPUHourRow {
		g := groups[k]
		if g == nil {
			g = &GPUHourRow{Provider: k.provider, ModelKey: k.model, Currency: k.currency, PricingModel: k.pricing,
				Bases: map[string]int{}}
			groups[k] = g
		}
		return g
	}
	insts := make([]ghInst, 0, len(t.uses))
	for inst := range t.uses {
		insts = append(insts, inst)
	}
	slices.SortFunc(insts, func(a, b ghInst) int {
		return cmp.Or(strings.Compare(a.provider, b.provider), strings.Compare(a.currency, b.currency), strings.Compare(a.resource, b.resource))
	})
	home := map[ghInst]ghKey{}
	used := map[ghKey]*decimal.Decimal{}
	for _, inst := range insts {
		uses := t.uses[inst]
		h := homeOf(uses)
		home[inst] = h
		for k, u := range uses {
			cost := u.cost.Decimal()
			if k.model == "" && h.model != "" && inst.resource != "" {
				// A part of an instance whose GPU another part names (腾讯云's
				// CPU and memory rows beside its GPU row): its money joins
				// that model; the GPU part carries the time.
				g := row(h)
				g.ComputeItems += u.items
				g.ComputeCost = g.ComputeCost.Add(cost)
				continue
			}
			g := row(k)
			g.ComputeItems += u.items
			g.ComputeCost = g.ComputeCost.Add(cost)
			for i, n := range u.bases {
				if n > 0 {
					g.Bases[hoursBases[i]] += n
				}
			}
			union, billed := u.seconds()
			n := decimal.NewFromInt(int64(max(u.count, 1)))
			g.GPUSeconds = g.GPUSeconds.Add(union.Mul(n))
			if d := billed.Sub(union); d.IsPositive() {
				g.DoubleSeconds = g.DoubleSeconds.Add(d.Mul(n))
				g.DoubleCost = g.DoubleCost.Add(cost.Mul(d).DivRound(billed, 8))
				g.DoubleResources = append(g.DoubleResources, inst.resource)
			}
			if u.usedItems > 0 {
				s := used[k]
				if s == nil {
					s = &decimal.Decimal{}
					used[k] = s
				}
				*s = s.Add(u.used.Decimal().Mul(n))
				g.UsedItems += u.usedItems
			}
		}
	}
	for k, s := range used {
		groups[k].UsedSeconds = known(*s)
	}

	// Hidden charges: attributed, spread, or left out.
	leftOut := map[ghOther]*GPUHourLeftOut{}
	leave := func(k ghOther, reason string, h *ghServed) {
		lk := ghOther{k.provider, k.currency, reason + "\x00" + k.kind}
		lo := leftOut[lk]
		if lo == nil {
			lo = &GPUHourLeftOut{Provider: k.provider, Currency: k.currency, Reason: reason, Kind: k.kind}
			leftOut[lk] = lo
		}
		lo.Items += h.items
		lo.Cost = lo.Cost.Add(h.cost.Decimal())
		lo.IDs = append(lo.IDs, h.ids...)
	}
	pools := map[ghPool]*ghServed{}
	poolKinds := map[ghOther]*ghServed{}
	for hk, h := range t.hidden {
		inst := hk.inst
		if k, ok := home[inst]; ok && inst.resource != "" {
			g := row(k)
			g.AttributedCost = g.AttributedCost.Add(h.cost.Decimal())
			g.AttributedItems += h.items
			continue
		}
		p := ghPool{inst.provider, inst.currency}
		if pools[p] == nil {
			pools[p] = &ghServed{}
		}
		pools[p].merge(h)
		pk := ghOther{inst.provider, inst.currency, hk.kind}
		if poolKinds[pk] == nil {
			poolKinds[pk] = &ghServed{}
		}
		poolKinds[pk].merge(h)
	}
	poolKeys := make([]ghPool, 0, len(pools))
	for p := range pools {
		poolKeys = append(poolKeys, p)
	}
	slices.SortFunc(poolKeys, comparePool)
	for _, p := range poolKeys {
		var members []*GPUHourRow
		for k, g := range groups {
			if k.provider == p.provider && k.currency == p.currency {
				members = append(members, g)
			}
		}
		if len(members) == 0 {
			for k, h := range poolKinds {
				if k.provider == p.provider && k.currency == p.currency {
					leave(k, LeftOutNoCompute, h)
				}
			}
			continue
		}
		slices.SortFunc(members, func(a, b *GPUHourRow) int {
			return cmp.Or(strings.Compare(a.ModelKey, b.ModelKey), strings.Compare(a.PricingModel, b.PricingModel))
		})
		weights := make([]decimal.Decimal, len(members))
		for i, g := range members {
			weights[i] = g.ComputeCost
		}
		for i, part := range SpreadExact(pools[p].cost.Decimal(), weights) {
			members[i].SpreadCost = members[i].SpreadCost.Add(part)
		}
		rep.SpreadItems += pools[p].items
	}
	for k, h := range t.others {
		leave(k, LeftOutNotGPUCost, h)
	}

	// Prices.
	h3600 := decimal.NewFromInt(3600)
	for k, g := range groups {
		tg := t.groups[k]
		if tg != nil {
			g.GPUModel = commonSpelling(tg.spellings)
		}
		if k.model == "" {
			g.GPUModel = ""
		}
		sort.Strings(g.DoubleResources)
		g.AllInCost = g.ComputeCost.Add(g.AttributedCost).Add(g.SpreadCost)
		if g.GPUSeconds.IsPositive() {
			g.realExact = g.AllInCost.Mul(h3600).DivRound(g.GPUSeconds, 8)
			g.RealPrice = known(g.AllInCost.Mul(h3600).DivRound(g.GPUSeconds, 4))
		}
		if g.UsedSeconds.Valid && g.UsedSeconds.Decimal.IsPositive() {
			g.UsedPrice = known(g.AllInCost.Mul(h3600).DivRound(g.UsedSeconds.Decimal, 4))
		}
		var quotes map[string]*ghQuote
		if tg != nil {
			quotes = tg.quotes
		}
		if m, ok := countedMedian(quotes, true); ok {
			g.Sticker, g.StickerBasis = known(m), StickerBill
		} else if p, ok := prices.Lookup(g.Provider, g.ModelKey, g.PricingModel, g.Currency); ok && k.model != "" {
			g.Sticker, g.StickerBasis, g.StickerSource = known(p.PerHour), StickerCatalog, p.Source
		} else if m, ok := countedMedian(quotes, false); ok {
			g.Sticker, g.StickerBasis = known(m), StickerMedian
		}
		if g.Sticker.Valid && g.Sticker.Decimal.IsPositive() {
			g.stickerCost = known(g.Sticker.Decimal.Mul(g.GPUSeconds).DivRound(h3600, 8))
			if g.RealPrice.Valid {
				g.Markup = known(g.AllInCost.Mul(h3600).
					DivRound(g.GPUSeconds.Mul(g.Sticker.Decimal), shareDigits+4).Sub(decimal.NewFromInt(1)).Round(shareDigits))
			}
		}
		rep.Rows = append(rep.Rows, *g)
	}
	sort.SliceStable(rep.Rows, func(i, j int) bool {
		a, b := &rep.Rows[i], &rep.Rows[j]
		if a.Markup.Valid != b.Markup.Valid {
			return a.Markup.Valid
		}
		if a.Markup.Valid {
			if c := a.Markup.Decimal.Cmp(b.Markup.Decimal); c != 0 {
				return c > 0
			}
		}
		if a.Provider != b.Provider {
			return a.Provider < b.Provider
		}
		if a.ModelKey != b.ModelKey {
			return a.ModelKey < b.ModelKey
		}
		if a.Currency != b.Currency {
			return a.Currency < b.Currency
		}
		return a.PricingModel < b.PricingModel
	})

	// One line per provider and currency.
	provs := map[ghPool]*GPUHourProvider{}
	var provKeys []ghPool
	for i := range rep.Rows {
		g := &rep.Rows[i]
		pk := ghPool{g.Provider, g.Currency}
		p := provs[pk]
		if p == nil {
			p = &GPUHourProvider{Provider: g.Provider, Currency: g.Currency, StickerCost: known(decimal.Zero)}
			provs[pk] = p
			provKeys = append(provKeys, pk)
		}
		p.GPUSeconds = p.GPUSeconds.Add(g.GPUSeconds)
		p.ComputeCost = p.ComputeCost.Add(g.ComputeCost)
		p.AttributedCost = p.AttributedCost.Add(g.AttributedCost)
		p.SpreadCost = p.SpreadCost.Add(g.SpreadCost)
		p.AllInCost = p.AllInCost.Add(g.AllInCost)
		if g.stickerCost.Valid && p.StickerCost.Valid {
			p.StickerCost = known(p.StickerCost.Decimal.Add(g.stickerCost.Decimal))
		} else {
			p.StickerCost = decimal.NullDecimal{}
		}
	}
	slices.SortFunc(provKeys, comparePool)
	for _, pk := range provKeys {
		p := provs[pk]
		if p.GPUSeconds.IsPositive() {
			p.RealPrice = known(p.AllInCost.Mul(h3600).DivRound(p.GPUSeconds, 4))
		}
		if p.StickerCost.Valid && p.StickerCost.Decimal.IsPositive() {
			p.Markup = known(p.AllInCost.DivRound(p.StickerCost.Decimal, shareDigits+4).Sub(decimal.NewFromInt(1)).Round(shareDigits))
		} else {
			p.StickerCost = decimal.NullDecimal{}
		}
		rep.Providers = append(rep.Providers, *p)
	}
	for _, lo := range leftOut {
		slices.Sort(lo.IDs)
		rep.LeftOut = append(rep.LeftOut, *lo)
	}
	slices.SortFunc(rep.LeftOut, func(a, b GPUHourLeftOut) int {
		return cmp.Or(strings.Compare(a.Provider, b.Provider), strings.Compare(a.Currency, b.Currency),
			strings.Compare(a.Reason, b.Reason), strings.Compare(a.Kind, b.Kind))
	})
	return rep
}

// comparePool orders provider and currency pairs.
func comparePool(a, b ghPool) int {
	return cmp.Or(strings.Compare(a.provider, b.provider), strings.Compare(a.currency, b.currency))
}

// commonSpelling is the spelling of a model written most often, given how
// often each was (ties: the longer, then the first in sort order).
func commonSpelling(n map[string]int) string {
	best := ""
	for t, c := range n {
		b := n[best]
		if best == "" || c > b || c == b && (len(t) > len(best) || len(t) == len(best) && t < best) {
			best = t
		}
	}
	return best
}

// computeSeconds is the actual run time of a compute line item, q × unit
// seconds, and the basis it was read from (see the file comment). The
// caller multiplies: money.Sum.AddMul does without math/big.
func computeSeconds(li *ledger.LineItem) (q decimal.Decimal, unit int64, basis string) {
	if secs, basis, ok := actualUse(li); ok {
		return secs, 1, basis
	}
	if li.PricingQuantity.Valid && !li.PricingQuantity.Decimal.IsNegative() {
		if u, ok := billing.ParseTimeUnit(li.PricingUnit); ok {
			return li.PricingQuantity.Decimal, u.Secs, HoursBilled
		}
	}
	d := li.ChargePeriodEnd.Sub(li.ChargePeriodStart)
	if d < 0 {
		d = 0
	}
	return decimal.NewFromInt(int64(d / time.Second)), 1, HoursPeriod
}

// actualUse is what a line item says about its actual run time: the part
// of usage_start–usage_end inside its charge period (some platforms repeat
// a whole session's run times on each hourly row, so the span is cut to
// the row's own period; a span wholly outside it is not read), else the
// consumed quantity in a time unit (billing.ConsumedSeconds). ok is false when
// the bill says neither.
func actualUse(li *ledger.LineItem) (secs decimal.Decimal, basis string, ok bool) {
	if !li.UsageStart.IsZero() && !li.UsageEnd.IsZero() && !li.UsageEnd.Before(li.UsageStart) {
		s, e := li.UsageStart, li.UsageEnd
		if !li.ChargePeriodStart.IsZero() && li.ChargePeriodEnd.After(li.ChargePeriodStart) {
			if li.ChargePeriodStart.After(s) {
				s = li.ChargePeriodStart
			}
			if li.ChargePeriodEnd.Before(e) {
				e = li.ChargePeriodEnd
			}
		}
		if e.After(s) || li.UsageEnd.Equal(li.UsageStart) {
			return decimal.NewFromInt(int64(max(e.Sub(s), 0) / time.Second)), HoursUsage, true
		}
	}
	if secs, ok := billing.ConsumedSeconds(li); ok {
		return secs, HoursConsumed, true
	}
	return decimal.Zero, "", false
}

func gpuCount(li *ledger.LineItem) int {
	if li.GPUCount > 0 {
		return li.GPUCount
	}
	return 1
}

// perGPUHourQuote is a compute row's price for one GPU-hour: its list unit
// price, else billed cost ÷ billed quantity, per hour ÷ GPUs (8 decimals).
func perGPUHourQuote(li *ledger.LineItem) (decimal.Decimal, bool) {
	if !li.PricingQuantity.Valid || !li.PricingQuantity.Decimal.IsPositive() {
		return decimal.Decimal{}, false
	}
	unit, ok := billing.ParseTimeUnit(li.PricingUnit)
	if !ok {
		return decimal.Decimal{}, false
	}
	u := unit.Secs
	n := decimal.NewFromInt(int64(gpuCount(li)))
	if li.ListUnitPrice.Valid && li.ListUnitPrice.Decimal.IsPositive() {
		return li.ListUnitPrice.Decimal.Mul(decimal.NewFromInt(3600)).DivRound(decimal.NewFromInt(u).Mul(n), 8), true
	}
	secs := li.PricingQuantity.Decimal.Mul(decimal.NewFromInt(u))
	return li.BilledCost.Mul(decimal.NewFromInt(3600)).DivRound(secs.Mul(n), 8), true
}

// countedMedian is the median of the quotes that are the bill's stated
// unit prices (stated) or derived from billed cost ÷ quantity (!stated),
// each value taken as often as it was seen (the mean of the two middle
// values for an even count, 8 decimals): what sorting every quote in a
// list and taking its middle gives.
func countedMedian(quotes map[string]*ghQuote, stated bool) (decimal.Decimal, bool) {
	qs := make([]*ghQuote, 0, len(quotes))
	n := 0
	for _, q := range quotes {
		if q.n > 0 && q.stated == stated {
			qs = append(qs, q)
			n += q.n
		}
	}
	if n == 0 {
		return decimal.Decimal{}, false
	}
	sort.Slice(qs, func(i, j int) bool { return qs[i].value.LessThan(qs[j].value) })
	// at is the i-th quote (from 0, below n) of the sorted list.
	at := func(i int) decimal.Decimal {
		k := 0
		for i >= qs[k].n {
			i -= qs[k].n
			k++
		}
		return qs[k].value
	}
	if n%2 == 1 {
		return at(n / 2), true
	}
	return at(n/2-1).Add(at(n/2)).DivRound(decimal.NewFromInt(2), 8), true
}

// SpreadExact splits amount over weights in proportion: every part but the
// one of the largest weight (the first of equals) is rounded half away from
// zero to 8 decimals; the largest takes the rest, so the parts add up to
// amount exactly. Weights that are not positive get nothing; when no weight
// is positive, the parts are equal.
func SpreadExact(amount decimal.Decimal, weights []decimal.Decimal) []decimal.Decimal {
	parts := make([]decimal.Decimal, len(weights))
	if len(weights) == 0 {
		return parts
	}
	w := make([]decimal.Decimal, len(weights))
	total := decimal.Zero
	for i, x := range weights {
		if x.IsPositive() {
			w[i] = x
			total = total.Add(x)
		}
	}
	if !total.IsPositive() {
		for i := range w {
			w[i] = decimal.NewFromInt(1)
		}
		total = decimal.NewFromInt(int64(len(w)))
	}
	largest := 0
	for i := range w {
		if w[i].Cmp(w[largest]) > 0 {
			largest = i
		}
	}
	rest := amount
	for i := range w {
		if i == largest {
			continue
		}
		parts[i] = amount.Mul(w[i]).DivRound(total, 8)
		rest = rest.Sub(parts[i])
	}
	parts[largest] = rest
	return parts
}

// secondsToHours renders seconds as hours with 4 decimals.
func secondsToHours(secs decimal.Decimal) decimal.Decimal {
	return secs.DivRound(decimal.NewFromInt(3600), 4)
}

func init() {
	addMessages(map[string][2]string{
		"gpuhour.title":             {"GPU 每小时的真实价格", "The real price of a GPU-hour"},
		"gpuhour.providers":         {"按平台", "By provider"},
		"gpuhour.col.gpu_hours":     {"GPU小时", "GPU-hours"},
		"gpuhour.col.basis":         {"时长依据", "Hours from"},
		"gpuhour.col.compute":       {"计算费", "Compute"},
		"gpuhour.col.attributed":    {"关联费用", "Attributed"},
		"gpuhour.col.spread":        {"分摊费用", "Spread"},
		"gpuhour.col.all_in":        {"总成本", "All-in"},
		"gpuhour.col.real":          {"真实单价/GPU时", "Real /GPU-h"},
		"gpuhour.col.sticker":       {"标价/GPU时", "Sticker /GPU-h"},
		"gpuhour.col.sticker_src":   {"标价来源", "Sticker from"},
		"gpuhour.col.markup":        {"溢价", "Markup"},
		"gpuhour.basis.usage":       {"实际起止", "usage"},
		"gpuhour.basis.consumed":    {"用量", "consumed"},
		"gpuhour.basis.billed":      {"计费数量", "billed"},
		"gpuhour.basis.period":      {"计费时段", "period"},
		"gpuhour.sticker.catalog":   {"价格表", "catalog"},
		"gpuhour.sticker.median":    {"本月中位数", "month's median"},
		"gpuhour.none":              {"本月没有带 GPU 型号的计算费用。", "No compute charge of the month names a GPU model."},
		"gpuhour.note.hours":        {"GPU小时 = 实际时长 × GPU数量（未知按 1）；时长依次取：实际起止时间、用量、计费数量、计费时段（括号内为行数）。", "GPU-hours = actual hours × GPU count (1 when unknown); hours come from, in order: usage start/end, consumed quantity, billed quantity, charge period (line items in brackets)."},
		"gpuhour.note.attributed":   {"关联费用 = 服务于该型号实例的存储、镜像、快照、网络、占用费（按所属实例，否则同一资源ID）。", "Attributed = storage, image, snapshot, network and seat charges of the model's instances (by parent resource, else the same resource id)."},
		"gpuhour.note.spread":       {"分摊费用 = 同一平台、币种下无法对应到本月实例的上述费用（共 %d 行），按计算费比例分摊到各型号；各份四舍五入到 8 位小数，余数归计算费最大的型号，合计与原金额完全一致。", "Spread = such charges of the provider and currency that serve no instance of the month (%s), split over its models in proportion to compute cost; each part is rounded to 8 decimals and the largest model takes the remainder, so the parts add up exactly."},
		"gpuhour.note.real":         {"真实单价 = 总成本 ÷ GPU小时（显示 4 位小数）；溢价 = 真实单价 ÷ 标价 − 1。标价取账单自己写明的单价（本月中位数），账单未写明时取价格表中该平台、型号、计费方式的价格（标为“价格表”），否则取本月计算费用 ÷ 计费数量的中位数。", "Real price = all-in cost ÷ GPU-hours (4 decimals, display only); markup = real ÷ sticker − 1. Sticker = the bill's own unit price (the month's median) where the bill states one, else the catalog price for the provider, model and pricing model (labelled catalog), else the median of billed cost ÷ billed quantity."},
		"gpuhour.note.left_out":     {"未计入：%s %s 的 %d 行 %s（%s %s），%s。", "Left out: %s of %s %s, %s (%s %s): %s."},
		"gpuhour.left.not_gpu_cost": {"不属于 GPU 成本的费用类型", "a kind of charge that is no GPU cost"},
		"gpuhour.left.no_compute":   {"该平台本月在此币种下没有计算费用", "the provider ran no compute in this currency this month"},
		"gpuhour.unknown_model":     {"GPU 型号未知", "GPU model unknown"},
		"gpuhour.col.pricing":       {"计费方式", "Pricing"},
		"gpuhour.col.double":        {"重复计费GPU小时", "Billed twice (GPU-h)"},
		"gpuhour.col.used_price":    {"按实际使用/GPU时", "Per GPU-h used"},
		"gpuhour.sticker.bill":      {"账单单价", "bill's unit price"},
		"gpuhour.note.double":       {"GPU小时为同一实例各计费时段的并集：同一小时计费两次只算一个 GPU 小时，多收的钱仍在总成本中（见“重复计费”）。包年包月行的 GPU 小时为预留时长，账单给出实际使用时另列按实际使用的单价。", "GPU-hours are the union of each instance's billed intervals: an hour billed twice is one GPU-hour, and the money of the second stays in the all-in cost (see billed twice). For package rows GPU-hours are the reserved time; where the bill shows use, the price per GPU-hour used is given beside it."},
	})
}

// Write encodes the report (see WriteOptions).
func (r *GPUHourReport) Write(w io.Writer, opts WriteOptions) error {
	return writeReport(w, opts, func(_ WriteOptions) any { return r.json() }, r.document)
}

func (r *GPUHourReport) basisText(g *GPUHourRow, lang string, exact bool) string {
	var parts []string
	for _, b := range hoursBases {
		if n := g.Bases[b]; n > 0 {
			name := b
			if !exact {
				name = tr(lang, "gpuhour.basis."+b)
			}
			parts = append(parts, fmt.Sprintf("%s(%d)", name, n))
		}
	}
	return strings.Join(parts, " ")
}

func priceText(d decimal.NullDecimal, exact bool) string {
	if !d.Valid {
		if exact {
			return ""
		}
		return unknownDisplay
	}
	if exact {
		return money.String(d.Decimal)
	}
	return d.Decimal.StringFixed(4)
}

func (r *GPUHourReport) document(opts WriteOptions) *document {
	exact, lang := opts.exact(), opts.Lang
	main := &grid{cols: []column{
		textCol("provider", tr(lang, "col.provider")),
		textCol("gpu_model", tr(lang, "col.gpu_model")),
		textCol("currency", tr(lang, "col.currency")),
		qtyCol("gpu_hours", tr(lang, "gpuhour.col.gpu_hours")),
		textCol("hours_basis", tr(lang, "gpuhour.col.basis")),
		moneyCol("compute_cost", tr(lang, "gpuhour.col.compute")),
		moneyCol("attributed_cost", tr(lang, "gpuhour.col.attributed")),
		moneyCol("spread_cost", tr(lang, "gpuhour.col.spread")),
		moneyCol("all_in_cost", tr(lang, "gpuhour.col.all_in")),
		priceCol("real_price_per_gpu_hour", tr(lang, "gpuhour.col.real")),
		priceCol("sticker_price_per_gpu_hour", tr(lang, "gpuhour.col.sticker")),
		textCol("sticker_basis", tr(lang, "gpuhour.col.sticker_src")),
		shareCol("markup", tr(lang, "gpuhour.col.markup")),
		// added for issue 27, at the end so that CSV readers by position keep working
		textCol("pricing_model", tr(lang, "gpuhour.col.pricing")),
		qtyCol("double_billed_gpu_hours", tr(lang, "gpuhour.col.double")),
		priceCol("real_price_per_used_gpu_hour", tr(lang, "gpuhour.col.used_price")),
	}}
	for i := range r.Rows {
		g := &r.Rows[i]
		basis := g.StickerBasis
		if !exact && basis != "" {
			basis = tr(lang, "gpuhour.sticker."+basis)
		}
		model := g.GPUModel
		if g.ModelKey == "" {
			model = tr(lang, "gpuhour.unknown_model")
		}
		main.add(dimText(ByProvider, g.Provider, lang, opts.codes()), model, g.Currency,
			g.GPUHours().StringFixed(4), r.basisText(g, lang, exact),
			FormatMoney(g.ComputeCost, g.Currency, exact), FormatMoney(g.AttributedCost, g.Currency, exact),
			FormatMoney(g.SpreadCost, g.Currency, exact), FormatMoney(g.AllInCost, g.Currency, exact),
			priceText(g.RealPrice, exact), priceText(g.Sticker, exact), basis, FormatShare(g.Markup, exact),
			dimText(ByPricingModel, g.PricingModel, lang, opts.codes()), secondsToHours(g.DoubleSeconds).StringFixed(4),
			priceText(g.UsedPrice, exact))
	}
	prov := &grid{cols: []column{
		textCol("provider", tr(lang, "col.provider")),
		textCol("currency", tr(lang, "col.currency")),
		qtyCol("gpu_hours", tr(lang, "gpuhour.col.gpu_hours")),
		moneyCol("compute_cost", tr(lang, "gpuhour.col.compute")),
		moneyCol("attributed_cost", tr(lang, "gpuhour.col.attributed")),
		moneyCol("spread_cost", tr(lang, "gpuhour.col.spread")),
		moneyCol("all_in_cost", tr(lang, "gpuhour.col.all_in")),
		priceCol("real_price_per_gpu_hour", tr(lang, "gpuhour.col.real")),
		shareCol("markup", tr(lang, "gpuhour.col.markup")),
	}}
	for _, p := range r.Providers {
		prov.add(dimText(ByProvider, p.Provider, lang, opts.codes()), p.Currency, secondsToHours(p.GPUSeconds).StringFixed(4),
			FormatMoney(p.ComputeCost, p.Currency, exact), FormatMoney(p.AttributedCost, p.Currency, exact),
			FormatMoney(p.SpreadCost, p.Currency, exact), FormatMoney(p.AllInCost, p.Currency, exact),
			priceText(p.RealPrice, exact), FormatShare(p.Markup, exact))
	}
	var notes []string
	if len(r.Rows) > 0 {
		var spread any = r.SpreadItems
		if lang != "zh" {
			spread = lineItemsEN(r.SpreadItems)
		}
		notes = append(notes, tr(lang, "gpuhour.note.hours"), tr(lang, "gpuhour.note.double"), tr(lang, "gpuhour.note.attributed"),
			fmt.Sprintf(tr(lang, "gpuhour.note.spread"), spread), tr(lang, "gpuhour.note.real"))
	}
	for _, lo := range r.LeftOut {
		why := tr(lang, "gpuhour.left."+lo.Reason)
		money := FormatMoney(lo.Cost, lo.Currency, false)
		kind := dimText(ByKind, lo.Kind, lang, opts.codes())
		if lang == "zh" {
			notes = append(notes, fmt.Sprintf(tr(lang, "gpuhour.note.left_out"), providerName(lo.Provider, lang), lo.Currency,
				lo.Items, kind, money, lo.Currency, why))
		} else {
			notes = append(notes, fmt.Sprintf(tr(lang, "gpuhour.note.left_out"), lineItemsEN(lo.Items), providerName(lo.Provider, lang),
				lo.Currency, kind, money, lo.Currency, why))
		}
	}
	return &document{
		key:   "gpu_hours",
		title: tr(lang, "gpuhour.title") + " " + r.Month,
		sections: []section{
			{key: "gpu_hours", grid: main, totals: true, empty: tr(lang, "gpuhour.none")},
			{key: "gpu_hours_by_provider", title: tr(lang, "gpuhour.providers"), grid: prov, totals: true, empty: tr(lang, "gpuhour.none")},
		},
		notes: notes,
	}
}

// JSON shapes ("gpu_hours" is the list of rows).
type gpuHourJSON struct {
	Month       string                `json:"month"`
	GPUHours    []gpuHourRowJSON      `json:"gpu_hours"`
	Providers   []gpuHourProviderJSON `json:"providers"`
	LeftOut     []gpuHourLeftOutJSON  `json:"left_out"`
	SpreadItems int                   `json:"spread_items"`
}

type gpuHourRowJSON struct {
	Provider        string         `json:"provider"`
	GPUModel        string         `json:"gpu_model"`
	GPUModelKey     string         `json:"gpu_model_key"`
	Currency        string         `json:"currency"`
	PricingModel    string         `json:"pricing_model"`
	ComputeItems    int            `json:"compute_items"`
	HoursBasis      map[string]int `json:"hours_basis"`
	GPUHours        string         `json:"gpu_hours"`
	ComputeCost     *string        `json:"compute_cost"`
	AttributedCost  *string        `json:"attributed_cost"`
	AttributedItems int            `json:"attributed_items"`
	SpreadCost      *string        `json:"spread_cost"`
	AllInCost       *string        `json:"all_in_cost"`
	RealPrice       *string        `json:"real_price_per_gpu_hour"`
	StickerPrice    *string        `json:"sticker_price_per_gpu_hour"`
	StickerBasis    *string        `json:"sticker_basis"`
	StickerSource   string         `json:"sticker_source,omitempty"`
	Markup          *string        `json:"markup"`
	// Added for issue 27 (docs/json.md).
	GPUModelKnown   bool     `json:"gpu_model_known"`
	DoubleHours     string   `json:"double_billed_gpu_hours"`
	DoubleCost      *string  `json:"double_billed_cost"`
	DoubleResources []string `json:"double_billed_resources"`
	UsedHours       *string  `json:"used_gpu_hours"`
	UsedItems       int      `json:"used_items"`
	UsedPrice       *string  `json:"real_price_per_used_gpu_hour"`
}

type gpuHourProviderJSON struct {
	Provider       string  `json:"provider"`
	Currency       string  `json:"currency"`
	GPUHours       string  `json:"gpu_hours"`
	ComputeCost    *string `json:"compute_cost"`
	AttributedCost *string `json:"attributed_cost"`
	SpreadCost     *string `json:"spread_cost"`
	AllInCost      *string `json:"all_in_cost"`
	RealPrice      *string `json:"real_price_per_gpu_hour"`
	StickerCost    *string `json:"sticker_cost"`
	Markup         *string `json:"markup"`
}

type gpuHourLeftOutJSON struct {
	Provider string  `json:"provider"`
	Currency string  `json:"currency"`
	Reason   string  `json:"reason"`
	Items    int     `json:"items"`
	Cost     *string `json:"billed_cost"`
	Kind     string  `json:"kind"`
	IDs      []int64 `json:"line_item_ids"`
}

func price4JSON(d decimal.NullDecimal) *string {
	if !d.Valid {
		return nil
	}
	s := d.Decimal.StringFixed(4)
	return &s
}

func (r *GPUHourReport) json() gpuHourJSON {
	out := gpuHourJSON{Month: r.Month, GPUHours: []gpuHourRowJSON{}, Providers: []gpuHourProviderJSON{},
		LeftOut: []gpuHourLeftOutJSON{}, SpreadItems: r.SpreadItems}
	for i := range r.Rows {
		g := &r.Rows[i]
		var basis *string
		if g.StickerBasis != "" {
			b := g.StickerBasis
			basis = &b
		}
		out.GPUHours = append(out.GPUHours, gpuHourRowJSON{Provider: g.Provider, GPUModel: g.GPUModel, GPUModelKey: g.ModelKey,
			Currency: g.Currency, PricingModel: g.PricingModel, ComputeItems: g.ComputeItems, HoursBasis: g.Bases,
			GPUHours: g.GPUHours().StringFixed(4), ComputeCost: jsonMoney(known(g.ComputeCost)),
			AttributedCost: jsonMoney(known(g.AttributedCost)), AttributedItems: g.AttributedItems,
			SpreadCost: jsonMoney(known(g.SpreadCost)), AllInCost: jsonMoney(known(g.AllInCost)),
			RealPrice: price4JSON(g.RealPrice), StickerPrice: jsonMoney(g.Sticker), StickerBasis: basis,
			StickerSource: g.StickerSource, Markup: shareJSON(g.Markup), GPUModelKnown: g.ModelKey != "",
			DoubleHours: secondsToHours(g.DoubleSeconds).StringFixed(4), DoubleCost: jsonMoney(known(g.DoubleCost)),
			DoubleResources: append([]string{}, g.DoubleResources...), UsedItems: g.UsedItems,
			UsedPrice: price4JSON(g.UsedPrice)})
		if g.UsedSeconds.Valid {
			h := secondsToHours(g.UsedSeconds.Decimal).StringFixed(4)
			out.GPUHours[len(out.GPUHours)-1].UsedHours = &h
		}
	}
	for _, p := range r.Providers {
		out.Providers = append(out.Providers, gpuHourProviderJSON{Provider: p.Provider, Currency: p.Currency,
			GPUHours: secondsToHours(p.GPUSeconds).StringFixed(4), ComputeCost: jsonMoney(known(p.ComputeCost)),
			AttributedCost: jsonMoney(known(p.AttributedCost)), SpreadCost: jsonMoney(known(p.SpreadCost)),
			AllInCost: jsonMoney(known(p.AllInCost)), RealPrice: price4JSON(p.RealPrice),
			StickerCost: jsonMoney(p.StickerCost), Markup: shareJSON(p.Markup)})
	}
	for _, lo := range r.LeftOut {
		out.LeftOut = append(out.LeftOut, gpuHourLeftOutJSON{Provider: lo.Provider, Currency: lo.Currency, Reason: lo.Reason,
			Items: lo.Items, Cost: jsonMoney(known(lo.Cost)), Kind: lo.Kind, IDs: append([]int64{}, lo.IDs...)})
	}
	return out
}

// lineItemsEN is "1 line item", "2 line items".
func lineItemsEN(n int) string {
	if n == 1 {
		return "1 line item"
	}
	return fmt.Sprintf("%d line items", n)
}

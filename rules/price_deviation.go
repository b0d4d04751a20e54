package rules

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

func init() { register(priceDeviation{}) }

// priceDeviation flags compute billed at a unit price well above the
// reference (DESIGN.md "price_deviation"): a promotion that ended, a price
// change, a dearer region picked by mistake.
//
// Unit price: list_unit_price converted to per hour, else billed_cost ÷
// billed hours; either way the billed quantity must be in a time unit
// (billing.ParseTimeUnit), otherwise the item is not judged (its hours are unknown).
// Prices are compared per GPU: an item of n GPUs (gpu_count, else a count
// written in the model text such as "RTX 4090 * 2", else taken as 1 and
// said so) is compared with n × the reference.
//
// Reference, for (provider, GPU model, pricing model, currency): the price
// catalog (prices.json, GPU models matched by NormalizeGPUModel), else the
// median of this user's earlier per-GPU prices for the same key, when there
// are at least min_history of them. "Earlier" = line items of the month and
// of its neighbours (Input.Items + Input.Context) whose charge period starts
// strictly before this item's. A prepaid item is compared only with prepaid
// references of the same term (a 包日 day with earlier 包日 days, never with
// 包周 or on-demand prices). Spot items are not judged by default: their
// price floats by design.
//
// Money at risk per item = (unit price − reference × GPUs) × billed hours,
// where the price actually paid is never exceeded: with a list price above
// the billed cost (a discount), the excess is billed cost − reference cost,
// and an item whose billed cost is within the reference adds nothing. Exact
// decimals; a division by 3600 s or a derived price is carried to 8 decimals.
//
// One finding per (provider, resource, reference, currency) and month: the
// reference is the catalog entry, or the median value (as the history grows
// the median can move; items judged against another median form another
// finding).
type priceDeviation struct{}

const priceDeviationID = "price_deviation"

func (priceDeviation) ID() string { return priceDeviationID }

func (priceDeviation) Info() Info {
	return Info{
		ID:            priceDeviationID,
		TitleZH:       "单价高于参考价",
		TitleEN:       "Price above reference",
		DescriptionZH: "计算（GPU）的单价比参考价高出阈值以上。参考价：价格目录中该平台、该 GPU 型号、该计费方式的价格；目录中没有时，用你此前同平台同型号同计费方式记录的价格中位数（至少 min_history 条）。包日/包周等预付费只与预付费价格比较。风险金额 = (单价 − 参考价) × 计费小时数，不超过实付金额。",
		DescriptionEN: "Compute (GPU) billed at a unit price above the reference by more than the threshold. Reference: the price catalog's price for the platform, GPU model and pricing model; else the median of your earlier prices for it (at least min_history line items). Prepaid packages are compared only with prepaid prices. Money at risk = (unit price − reference) × billed hours, never more than was billed.",
		Columns:       []string{"gpu_model", "gpu_count", "list_unit_price"},
		Params: append([]Param{
			{Name: "max_excess_pct", Type: ParamAmount, Default: "15",
				HelpZH: "单价高于参考价超过此百分比才报告", HelpEN: "report a unit price more than this percentage above the reference"},
			{Name: "min_history", Type: ParamAmount, Default: "3",
				HelpZH: "价格目录没有该型号时，至少要有这么多条更早的价格，才以其中位数为参考价", HelpEN: "without a catalog price, how many earlier prices it takes for their median to be the reference"},
			{Name: "include_spot", Type: ParamBool, Default: "false",
				HelpZH: "是否也判断竞价（抢占式）实例；其价格本就浮动", HelpEN: "whether spot (preemptible) prices are judged too; they float by design"},
			{Name: "min_amount", Type: ParamAmount, Default: "0.01",
				HelpZH: "风险金额低于此值不报告", HelpEN: "findings below this amount at risk are not reported"},
		}, severityParams("1", "10", "50")...),
	}
}

// referencePrices is the catalog the rule reads: the embedded default with
// the user's [[price]] entries (Config.Prices) on top.
func (in *Input) referencePrices() *billing.PriceCatalog {
	if in.cfg.Prices.Len() == 0 {
		return billing.DefaultPrices()
	}
	return billing.DefaultPrices().Overlay(in.cfg.Prices)
}

// priceQuote is one compute line item's unit price, in exact decimals.
type priceQuote struct {
	li         *ledger.LineItem
	start      int64           // charge period start, Unix ns (orders the history without chasing li)
	unitSecs   int64           // seconds in one billed unit
	count      int64           // GPUs, ≥ 1
	perHour    decimal.Decimal // per instance-hour: the list price converted, or billed cost ÷ hours (8 decimals)
	perGPU     decimal.Decimal // perHour ÷ GPUs (8 decimals)
	med        decimal.Decimal // median of the earlier per-GPU prices of its key, when medN > 0
	medN       int             // how many earlier prices the median is of
	key        int32           // index into the rule's history keys
	inMonth    bool            // of the audited month (else context)
	countKnown bool
	fromList   bool
}

// secs is the billed time in seconds (exact).
func (q *priceQuote) secs() decimal.Decimal {
	return q.li.PricingQuantity.Decimal.Mul(decimal.NewFromInt(q.unitSecs))
}

// priceHistKey is what a price is compared with: the same provider, GPU
// model, pricing model (and prepaid term) and currency.
type priceHistKey struct {
	provider, model, pricing, term, currency string
}

// priceKeyInfo is one history key: its catalog price, or the quotes behind
// its medians.
type priceKeyInfo struct {
	hist   priceHistKey
	price  *billing.Price
	quotes []int32      // month and context, for the median
	last   priceVerdict // the last verdict of above
}

// priceVerdict is whether price is above ref × count GPUs × the factor.
type priceVerdict struct {
	price, ref decimal.Decimal
	count      int64
	above, set bool
}

// priceRef is the reference an item was judged against.
type priceRef struct {
	catalog *billing.Price // nil = the user's median
	perGPU  decimal.Decimal
}

type priceGroupKey struct {
	provider, resource, currency string
	key                          int32
	ref                          string // the median (its canonical text), "" for the catalog price
}

type priceTerm struct {
	q       *priceQuote
	money   decimal.Decimal
	capped  bool
	earlier int
}

type priceGroup struct {
	key   priceGroupKey
	hist  priceHistKey
	ref   priceRef
	terms []priceTerm
	total decimal.Decimal
}

// priceModelInfo caches a bill's GPU model text, parsed.
type priceModelInfo struct {
	m   billing.GPUModel
	key string
}

func (r priceDeviation) Run(ctx context.Context, in *Input) ([]ledger.Finding, error) {
	pct, err := in.amountParam("max_excess_pct")
	if err != nil {
		return nil, err
	}
	minHist, err := in.amountParam("min_history")
	if err != nil {
		return nil, err
	}
	if !minHist.IsInteger() || minHist.Cmp(decimal.NewFromInt(1)) < 0 || minHist.Cmp(decimal.NewFromInt(1_000_000)) > 0 {
		return nil, fmt.Errorf("rule parameter %s.min_history: %s is not a whole number from 1", priceDeviationID, minHist)
	}
	minHistory := int(minHist.IntPart())
	includeSpot, err := strconv.ParseBool(in.Param("include_spot"))
	if err != nil {
		return nil, fmt.Errorf("rule parameter %s.include_spot: %q is not true or false", priceDeviationID, in.Param("include_spot"))
	}
	minAmount, th, err := in.amountLimits()
	if err != nil {
		return nil, err
	}
	factor := decimal.NewFromInt(1).Add(pct.Shift(-2)) // 1.15
	cat := in.referencePrices()

	// Quotes of the month and of its context, grouped by history key.
	models := map[string]priceModelInfo{}
	quotes := make([]priceQuote, 0, len(in.Items)+len(in.Context))
	var infos []*priceKeyInfo
	keyIdx := map[priceHistKey]int32{}
	var lastHist priceHistKey
	lastK := int32(-1)
	for i, li := range in.itemsAndContext() {
		q, hist, ok := priceQuoteOf(li, models, includeSpot)
		if !ok {
			continue
		}
		k, seen := lastK, lastK >= 0 && hist == lastHist // a resource's items come together: mostly the key before
		if !seen {
			k, seen = keyIdx[hist]
		}
		if !seen {
			ki := &priceKeyInfo{hist: hist}
			// keyed by pricing model: a package item only meets package prices
			if p, ok := cat.LookupModel(hist.provider, models[li.GPUModel].m, hist.pricing, hist.currency); ok {
				ki.price = &p
			}
			k = int32(len(infos))
			keyIdx[hist] = k
			infos = append(infos, ki)
		}
		lastHist, lastK = hist, k
		q.key, q.inMonth = k, i < len(in.Items)
		if infos[k].price == nil {
			infos[k].quotes = append(infos[k].quotes, int32(len(quotes)))
		}
		quotes = append(quotes, q)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Medians of earlier prices, for keys without a catalog price.
	for _, ki := range infos {
		if ki.price == nil {
			priceMedians(quotes, ki.quotes, minHistory)
		}
	}

	groups := map[priceGroupKey]*priceGroup{}
	for i := range quotes {
		q := &quotes[i]
		if !q.inMonth {
			continue // context: never reported
		}
		ki := infos[q.key]
		ref := priceRef{catalog: ki.price}
		switch {
		case ki.price != nil:
			ref.perGPU = ki.price.PerHour
		case q.medN > 0:
			ref.perGPU = q.med
		default:
			continue // no reference
		}
		if !ki.above(q, ref.perGPU, factor) {
			continue
		}
		t, ok := priceExcess(q, ref.perGPU)
		if !ok {
			continue
		}
		gk := priceGroupKey{provider: q.li.Provider, resource: q.li.ResourceID, currency: q.li.Currency, key: q.key}
		if ki.price == nil {
			gk.ref = q.med.String()
		}
		g := groups[gk]
		if g == nil {
			g = &priceGroup{key: gk, hist: ki.hist, ref: ref}
			groups[gk] = g
		}
		g.terms = append(g.terms, t)
		g.total = g.total.Add(t.money)
	}
	var out []ledger.Finding
	for _, g := range groups {
		if g.total.Cmp(minAmount) < 0 {
			continue
		}
		out = append(out, r.finding(in, g, th))
	}
	return out, nil
}

// above reports whether q's price per instance-hour is above ref × GPUs ×
// factor. Quotes of a key mostly share their price, reference and GPU
// count: the last verdict is kept, and worked out again when one changes.
func (ki *priceKeyInfo) above(q *priceQuote, ref, factor decimal.Decimal) bool {
	v := &ki.last
	if !v.set || v.count != q.count || !v.price.Equal(q.perHour) || !v.ref.Equal(ref) {
		lim := ref.Mul(decimal.NewFromInt(q.count)).Mul(factor)
		*v = priceVerdict{price: q.perHour, ref: ref, count: q.count, above: q.perHour.Cmp(lim) > 0, set: true}
	}
	return v.above
}

// priceExcess is what q paid above ref per GPU-hour: (price − ref × GPUs) ×
// billed hours, the price being what was billed when the list price is above
// it. ok is false when nothing was paid above the reference.
func priceExcess(q *priceQuote, ref decimal.Decimal) (priceTerm, bool) {
	t := priceTerm{q: q, earlier: q.medN}
	secs := q.secs()
	refHour := ref.Mul(decimal.NewFromInt(q.count))
	var refCost decimal.Decimal
	if hours := secs.Div(decimal.NewFromInt(3600)); secs.Mod(decimal.NewFromInt(3600)).IsZero() {
		refCost = refHour.Mul(hours)
	} else {
		refCost = refHour.Mul(secs).DivRound(decimal.NewFromInt(3600), 8)
	}
	paid := q.li.BilledCost
	if q.fromList {
		atList := q.li.ListUnitPrice.Decimal.Mul(q.li.PricingQuantity.Decimal)
		if atList.Cmp(paid) < 0 {
			paid = atList
		} else if atList.Cmp(paid) > 0 {
			t.capped = true
		}
	}
	t.money = paid.Sub(refCost)
	return t, t.money.IsPositive()
}

// priceQuoteOf reads li's unit price; ok is false for an item the rule does
// not judge (not compute, a credit, no GPU model, no billed time, spot …).
func priceQuoteOf(li *ledger.LineItem, models map[string]priceModelInfo, includeSpot bool) (priceQuote, priceHistKey, bool) {
	if li.Kind != ledger.KindCompute || !isUsage(li) || !li.PricingQuantity.Valid || !li.PricingQuantity.Decimal.IsPositive() {
		return priceQuote{}, priceHistKey{}, false
	}
	if li.PricingModel == ledger.PricingSpot && !includeSpot {
		return priceQuote{}, priceHistKey{}, false
	}
	u, ok := billing.ParseTimeUnit(li.PricingUnit)
	if !ok {
		return priceQuote{}, priceHistKey{}, false
	}
	mi, seen := models[li.GPUModel]
	if !seen {
		mi.m = billing.ParseGPUModel(li.GPUModel)
		mi.key = mi.m.Key()
		models[li.GPUModel] = mi
	}
	if mi.key == "" {
		return priceQuote{}, priceHistKey{}, false
	}
	q := priceQuote{li: li, start: li.ChargePeriodStart.UnixNano(), unitSecs: u.Secs, count: 1}
	switch {
	case li.GPUCount > 0:
		q.count, q.countKnown = int64(li.GPUCount), true
	case mi.m.Count() > 0:
		q.count, q.countKnown = int64(mi.m.Count()), true
	}
	hist := priceHistKey{provider: li.Provider, model: mi.key, pricing: li.PricingModel, currency: li.Currency}
	if billing.IsPrepaid(li) {
		hist.term = u.Name
	}
	list := li.ListUnitPrice.Decimal
	q.fromList = li.ListUnitPrice.Valid && list.IsPositive()
	switch {
	case !q.fromList:
		q.perHour = li.BilledCost.Mul(decimal.NewFromInt(3600)).DivRound(q.secs(), 8)
	case u.Secs == 3600:
		q.perHour = list
	case 3600%u.Secs == 0:
		q.perHour = list.Mul(decimal.NewFromInt(3600 / u.Secs))
	default:
		q.perHour = list.Mul(decimal.NewFromInt(3600)).DivRound(decimal.NewFromInt(u.Secs), 8)
	}
	q.perGPU = q.perHour
	if q.count > 1 {
		q.perGPU = q.perHour.DivRound(decimal.NewFromInt(q.count), 8)
	}
	return q, hist, true
}

// priceMedians sets, for each quote of the month among quotes[idx] (all of
// one history key), the median of the per-GPU prices of the quotes that
// start strictly earlier, when there are at least minHistory of them.
func priceMedians(quotes []priceQuote, idx []int32, minHistory int) {
	// By start, then load order. A key gathers many resources, each in time
	// order: idx is mostly not sorted.
	byStart := func(a, b int32) int { return cmp.Or(cmp.Compare(quotes[a].start, quotes[b].start), cmp.Compare(a, b)) }
	if !slices.IsSortedFunc(idx, byStart) {
		slices.SortFunc(idx, byStart)
	}
	rm := newRunningMedian()
	for i := 0; i < len(idx); {
		start := quotes[idx[i]].start
		j := i + 1
		for j < len(idx) && quotes[idx[j]].start == start {
			j++
		}
		if rm.n() >= minHistory {
			med := rm.median()
			for _, k := range idx[i:j] {
				if q := &quotes[k]; q.inMonth {
					q.med, q.medN = med, rm.n()
				}
			}
		}
		for _, k := range idx[i:j] {
			rm.add(&quotes[k].perGPU)
		}
		i = j
	}
}

// runningMedian keeps the median of a growing set of prices in two heaps:
// lo holds the smaller half (its largest on top), hi the larger half (its
// smallest on top), and lo has as many prices as hi or one more.
type runningMedian struct {
	lo, hi decimalHeap
	// the last mean of two middles (mean of lastLo and lastHi): prices
	// repeat, so the middles mostly stay the same from one start to the
	// next, and the mean is not worked out (and allocated) again.
	lastLo, lastHi, mean *decimal.Decimal
}

func newRunningMedian() *runningMedian { return &runningMedian{lo: decimalHeap{max: true}} }

func (m *runningMedian) n() int { return m.lo.Len() + m.hi.Len() }

// add adds *x, which must not change while m is in use.
func (m *runningMedian) add(x *decimal.Decimal) {
	if m.lo.Len() == 0 || x.Cmp(*m.lo.d[0]) <= 0 {
		heap.Push(&m.lo, x)
	} else {
		heap.Push(&m.hi, x)
	}
	if m.lo.Len() > m.hi.Len()+1 {
		heap.Push(&m.hi, heap.Pop(&m.lo))
	} else if m.hi.Len() > m.lo.Len() {
		heap.Push(&m.lo, heap.Pop(&m.hi))
	}
}

// median is the middle price, or the mean of the two middle ones (exact:
// half of a decimal needs one more digit). m must not be empty.
func (m *runningMedian) median() decimal.Decimal {
	if m.lo.Len() > m.hi.Len() {
		return *m.lo.d[0]
	}
	lo, hi := m.lo.d[0], m.hi.d[0]
	if m.mean == nil || !same(lo, m.lastLo) || !same(hi, m.lastHi) {
		mean := lo.Add(*hi).Mul(decimal.New(5, -1))
		m.lastLo, m.lastHi, m.mean = lo, hi, &mean
	}
	return *m.mean
}

// same reports whether a and b are the same decimal, written alike (the
// same digits and exponent: a sum of them is written alike too).
func same(a, b *decimal.Decimal) bool {
	return a == b || a.Exponent() == b.Exponent() && a.Cmp(*b) == 0
}

// decimalHeap is a heap.Interface of decimals: smallest on top, or with
// max the largest. It holds pointers to the quotes' prices: a pointer
// goes in and out of the interface heap.Push and heap.Pop take without
// an allocation.
type decimalHeap struct {
	d   []*decimal.Decimal
	max bool
}

func (h *decimalHeap) Len() int { return len(h.d) }
func (h *decimalHeap) Less(i, j int) bool {
	if h.max {
		return h.d[i].Cmp(*h.d[j]) > 0
	}
	return h.d[i].Cmp(*h.d[j]) < 0
}
func (h *decimalHeap) Swap(i, j int) { h.d[i], h.d[j] = h.d[j], h.d[i] }
func (h *decimalHeap) Push(x any)    { h.d = append(h.d, x.(*decimal.Decimal)) }
func (h *decimalHeap) Pop() any {
	x := h.d[len(h.d)-1]
	h.d = h.d[:len(h.d)-1]
	return x
}

// priceModelText is how a finding names the GPU: the bill's own text.
func priceModelText(g *priceGroup) string {
	s := strings.TrimSpace(g.terms[0].q.li.GPUModel)
	if s == "" {
		s = g.hist.model
	}
	return s
}

func pricingText(pricing, term, lang string) string {
	if lang == "zh" {
		switch pricing {
		case ledger.PricingOnDemand:
			return "按量"
		case ledger.PricingSpot:
			return "竞价"
		case ledger.PricingReserved:
			return "预留"
		}
		switch term {
		case "day":
			return "包日"
		case "week":
			return "包周"
		}
		return "包年包月"
	}
	switch pricing {
	case ledger.PricingOnDemand:
		return "on demand"
	case ledger.PricingSpot:
		return "spot"
	case ledger.PricingReserved:
		return "reserved"
	}
	if term != "" {
		return "package by the " + term
	}
	return "package"
}

// pricePct renders how far price is above ref in percent, 1 decimal.
func pricePct(price, ref decimal.Decimal) string {
	if !ref.IsPositive() {
		return "?"
	}
	return price.Sub(ref).Mul(decimal.NewFromInt(100)).DivRound(ref, 1).StringFixed(1)
}

func (priceDeviation) finding(in *Input, g *priceGroup, th thresholds) ledger.Finding {
	sort.Slice(g.terms, func(i, j int) bool {
		a, b := g.terms[i].q.li, g.terms[j].q.li
		if !a.ChargePeriodStart.Equal(b.ChargePeriodStart) {
			return a.ChargePeriodStart.Before(b.ChargePeriodStart)
		}
		return a.ID < b.ID
	})
	k := g.key
	cur := k.currency
	items := make([]*ledger.LineItem, 0, len(g.terms))
	var start, end time.Time
	var secs decimal.Decimal
	minP, maxP := g.terms[0].q.perGPU, g.terms[0].q.perGPU
	minN, maxN := g.terms[0].earlier, g.terms[0].earlier
	days := map[string]bool{}
	var derived, capped, countGuess bool
	var parts []string
	for i, t := range g.terms {
		li := t.q.li
		items = append(items, li)
		if start.IsZero() || li.ChargePeriodStart.Before(start) {
			start = li.ChargePeriodStart
		}
		if li.ChargePeriodEnd.After(end) {
			end = li.ChargePeriodEnd
		}
		days[formatDay(li.ChargePeriodStart, in.TZ)] = true
		secs = secs.Add(t.q.secs())
		if t.q.perGPU.Cmp(minP) < 0 {
			minP = t.q.perGPU
		}
		if t.q.perGPU.Cmp(maxP) > 0 {
			maxP = t.q.perGPU
		}
		minN, maxN = min(minN, t.earlier), max(maxN, t.earlier)
		derived = derived || !t.q.fromList
		capped = capped || t.capped
		countGuess = countGuess || !t.q.countKnown
		if i < 4 {
			ref := FormatPrice(g.ref.perGPU, cur, "h")
			if t.q.count > 1 {
				ref = fmt.Sprintf("%d × %s", t.q.count, ref)
			}
			parts = append(parts, fmt.Sprintf("(%s − %s) × %s", FormatPrice(t.q.perHour, cur, "h"), ref,
				formatQty(billing.UnitHour.Per(t.q.secs()), billing.UnitHour)))
		}
	}
	dayList := make([]string, 0, len(days))
	for d := range days {
		dayList = append(dayList, d)
	}
	sort.Strings(dayList)
	ranges := dayRanges(dayList)

	amount := FormatMoney(g.total, cur)
	refText := FormatPrice(g.ref.perGPU, cur, "h")
	priceText := FormatPrice(maxP, cur, "h")
	pctText := pricePct(maxP, g.ref.perGPU) + "%"
	upToZH, upToEN := "", ""
	if !minP.Equal(maxP) {
		priceText = FormatPrice(minP, cur, "h") + "–" + priceText
		upToZH, upToEN = "最多", "up to "
	}
	hours, hoursZH := formatDuration(secsDuration(secs)), formatDurationZH(secsDuration(secs))
	n := len(g.terms)
	model := priceModelText(g)
	provZH, provEN := platform.Name(k.provider, "zh"), platform.Name(k.provider, "en")
	pricingZH, pricingEN := pricingText(g.hist.pricing, g.hist.term, "zh"), pricingText(g.hist.pricing, g.hist.term, "en")
	res := k.resource
	if res == "" {
		res = "-"
	}
	countZH, countEN := "", ""
	if countGuess {
		countZH, countEN = "（账单未写 GPU 数量，按 1 卡计）", " (the bill gives no GPU count; taken as 1 GPU)"
	}

	var fromZH, fromEN, refBasis, adviceZH, adviceEN string
	if p := g.ref.catalog; p != nil {
		seen := p.Seen
		if seen == "" {
			seen = "?"
		}
		src := p.Source
		if src == "" {
			src = "no source given"
		}
		noteZH, noteEN := "", ""
		if p.NoteZH != "" {
			noteZH = "，" + p.NoteZH
		}
		if p.NoteEN != "" {
			noteEN = ", " + p.NoteEN
		}
		fromZH = fmt.Sprintf("参考价来自价格目录（%s %s %s，来源：%s，%s 所见%s）", provZH, p.GPUModelText, pricingText(p.PricingModel, "", "zh"), src, seen, noteZH)
		fromEN = fmt.Sprintf("the price catalog's %s %s %s price (source: %s, seen %s%s)", provEN, p.GPUModelText, pricingText(p.PricingModel, "", "en"), src, seen, noteEN)
		if days, old := priceAge(p.Seen, in.MonthEnd); old {
			fromZH += fmt.Sprintf("；该目录价已是 %d 天前（超过 90 天）所见，可能已过时", days)
			fromEN += fmt.Sprintf("; that catalog price was seen %d days before the end of %s (over 90 days) and may be out of date", days, in.Month)
		}
		refBasis = fmt.Sprintf("reference = price catalog %s %s %s %s %s (source: %s, seen %s)", p.Provider, p.GPUModel, p.PricingModel, p.Currency,
			FormatPrice(p.PerHour, p.Currency, "h"), src, seen)
		adviceZH = "到平台价格页核对该型号当前价格（目录价是个人观测的近似值，因地区、时段而异）：若计费单价高于下单时显示的价格，凭这些记录联系客服要求退还差额；否则考虑换用同型号更便宜的地区或平台。"
		adviceEN = "Check the platform's current price for this GPU (catalog prices are approximate observations and vary by region and time): if you were billed above the price shown when you ordered, ask support to refund the difference with these rows; otherwise consider a cheaper region or platform for this GPU."
	} else {
		nZH, nEN := strconv.Itoa(minN), strconv.Itoa(minN)
		if minN != maxN {
			nZH = fmt.Sprintf("%d–%d", minN, maxN)
			nEN = nZH
		}
		fromZH = fmt.Sprintf("参考价是你此前 %s 条同平台、同型号、%s记录的价格中位数", nZH, pricingZH)
		fromEN = fmt.Sprintf("your median of %s earlier prices for this GPU on this platform (%s)", nEN, pricingEN)
		refBasis = fmt.Sprintf("reference = median of %s earlier per-GPU prices of %s %s %s %s", nEN, k.provider, g.hist.model, g.hist.pricing, cur)
		if g.hist.term != "" {
			refBasis += " by the " + g.hist.term
		}
		adviceZH = "该价格高于你以往常付的价格：确认是否促销结束、平台调价，或选错了地区、机型；若计费单价高于下单时显示的价格，凭这些记录联系客服要求退还差额。"
		adviceEN = "This is above what you usually paid: check whether a promotion ended, the price changed, or another region or model was picked; if you were billed above the price shown when you ordered, ask support to refund the difference with these rows."
	}

	basis := strings.Join(parts, " + ")
	if n > 4 {
		basis += fmt.Sprintf(" + … (%d line items)", n)
	}
	basis += " = " + FormatMoney(g.total, cur) + "; " + refBasis
	if derived {
		basis += "; unit price = billed cost ÷ billed hours where no list price (8 decimals)"
	}
	if capped {
		basis += "; never more than the billed cost where the list price exceeds it"
	}
	if countGuess {
		basis += "; GPU count not in the bill, taken as 1"
	}

	return ledger.Finding{
		Severity:     th.severity(g.total),
		Provider:     k.provider,
		ResourceID:   k.resource,
		PeriodStart:  start,
		PeriodEnd:    end,
		AmountAtRisk: valid(g.total),
		Currency:     cur,
		Basis:        basis,
		ReasonZH: fmt.Sprintf("实例 %s（%s %s，%s）在 %s 的单价为每卡 %s%s，比参考价 %s %s高 %s，%s；%d 条记录共计费 %s，比按参考价多付约 %s。",
			res, provZH, model, pricingZH, ranges, priceText, countZH, refText, upToZH, pctText, fromZH, n, hoursZH, amount),
		ReasonEN: fmt.Sprintf("Instance %s (%s %s, %s) was billed %s per GPU%s on %s, %s%s above the reference %s, %s; over %s and %s billed that is about %s more than at the reference.",
			res, provEN, model, pricingEN, priceText, countEN, ranges, upToEN, pctText, refText, fromEN, plural(n, "line item"), hours, amount),
		AdviceZH: adviceZH,
		AdviceEN: adviceEN,
		Evidence: evidenceOf(items),
	}
}

// oldPriceDays is the age past which a catalog price is flagged as old.
const oldPriceDays = 90

// priceAge is how many days before monthEnd (the end of the audited month,
// exclusive) a catalog price was seen, and whether that is more than 90 days.
// The age is taken against the audited month, not the day of the audit, so a
// rerun of an old month gives the same finding. A price seen as a month only
// (YYYY-MM) counts from the last day of that month; an unknown date or month
// end is never flagged.
func priceAge(seen string, monthEnd time.Time) (days int, old bool) {
	if monthEnd.IsZero() {
		return 0, false
	}
	t, err := time.Parse("2006-01-02", seen)
	if err != nil {
		m, err := time.Parse("2006-01", seen)
		if err != nil {
			return 0, false
		}
		t = m.AddDate(0, 1, -1)
	}
	y, mo, d := monthEnd.Date()
	end := time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
	days = int(end.Sub(t).Hours() / 24)
	return days, days > oldPriceDays
}

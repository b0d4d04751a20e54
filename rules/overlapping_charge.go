package rules

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

func init() { register(overlappingCharge{}) }

// overlappingCharge flags one resource charged twice for the same time
// (DESIGN.md "overlapping_charge"): line items of the same provider,
// resource and kind whose periods overlap without being identical (identical
// items are duplicate_charge's; every set of copies counts once here).
//
// Periods are charge periods: usage times often describe the whole session
// on every hourly row (matpool), so they cannot say which row billed which
// time. They only clear a pair: when both items give usage times that do not
// overlap, the items are two separate runs each rounded up to a billed step
// (min_duration_rounding's business), not the same time billed twice. An
// item that gives no usage times and bills less time than its period holds
// (a daily 阿里云 row that bills 0.8 小时: billing.ActiveSpan) ran somewhere
// in that period, unknown where: it overlaps another item only as far as
// their billed times cannot fit their periods apart. Two items over the
// same period that bill different quantities of something other than time
// (the 系统盘 and 数据盘 of one day in GB-hours, two traffic rows in GB)
// bill two things, not one time twice.
// Touching periods (end == next start) do not overlap, and neither do
// periods that share less than min_overlap (timestamps rounded by the
// exporter). Items must agree on account, currency and component (sku,
// resource type, service name), like copies in duplicate_charge; a prepaid
// item is compared only with prepaid items, because an on-demand charge
// inside a package's period is often a legitimate add-on (a temporary
// upgrade), not the same time billed twice.
//
// One finding per chain: items linked by overlaps form one chain, so a
// settlement row lying across three hourly rows is one finding, not three.
// Money at risk: the chain's time is cut at every item boundary; on each
// stretch covered by several items, each item's share is billed_cost ÷ its
// period length × the stretch (pro rata, 8 decimals), and all shares but the
// largest are at risk. For a pair with one rate this is the overlap at the
// billed rate; with two rates, the cheaper share (the claim never exceeds
// what was surely charged twice). A chain with an item placed only by its
// billed time is measured by time alone: what its items bill beyond the
// time their periods cover was surely charged twice, at the lowest rate
// among them (billed cost ÷ billed time). A chain is reported by the latest
// billing period among its items (compute items of the neighbouring months
// are in Input.Context).
type overlappingCharge struct{}

func (overlappingCharge) ID() string { return "overlapping_charge" }

func (overlappingCharge) Info() Info {
	return Info{
		ID:            "overlapping_charge",
		TitleZH:       "计费时段重叠",
		TitleEN:       "Overlapping charges",
		DescriptionZH: "同一平台、同一资源、同一费用类型的记录计费时段相互重叠（但不完全相同，完全相同的归重复计费）。风险金额 = 重叠部分按计费单价（应付金额 ÷ 时段长度 × 重叠时长）计算的金额；相互重叠的一串记录为一条发现。首尾相接不算重叠。只给日期、计费时长短于时段的记录（如阿里云按天的明细行）只在计费时长放不下时才算重叠，风险金额 = 超出时段的计费时长 × 其中最低的单价；时段相同、用量不同的非时长计费（如同一天的系统盘与数据盘、几条流量）是不同的费用。",
		DescriptionEN: "Line items of the same provider, resource and kind whose periods overlap without being identical (identical ones are duplicate charges). Money at risk = the overlapping part at the billed rate (billed cost ÷ period length × overlap); a chain of overlapping items is one finding. Touching periods do not overlap. Items that give a date only and bill less time than their period (阿里云 daily rows) overlap only when their billed time cannot fit, and then the billed time beyond the period is at risk at the lowest rate among them; items over the same period that bill different quantities of something other than time (the system and data disk of a day, traffic rows) are different charges.",
		Columns:       []string{"service_name", "resource_type", "sku"},
		Params: append([]Param{
			{Name: "min_overlap", Type: ParamDuration, Default: "1m",
				HelpZH: "重叠短于此时长视为时间戳取整，不算重叠", HelpEN: "overlaps shorter than this are timestamp rounding, not overlaps"},
			minAmountParam,
		}, severityParams("1", "10", "50")...),
	}
}

// overlapGroupKey is what items must share to be compared.
type overlapGroupKey struct {
	provider, account, resource, kind, currency string
	sku, resourceType, service                  string
	prepaid                                     bool
}

// overlapItem is one candidate with its charge period and usage times in
// Unix seconds (the ledger keeps times to the second); hasUsage is false
// when the bill does not give both usage times. billed is the time it ran
// somewhere in its period: the period's length but for an item that bills
// less time and gives no usage times (its ActiveSpan's length).
type overlapItem struct {
	li                   *ledger.LineItem
	start, end           int64
	usageStart, usageEnd int64
	hasUsage             bool
	billed               int64
	// byQuantity: the item states a quantity in a unit that is not time
	byQuantity bool
}

// placed reports whether the item ran for its whole period.
func (it *overlapItem) placed() bool { return it.billed == it.end-it.start }

// forcedOverlap is the time two items share however their billed times lie
// in their periods: their overlap when both are placed, else the least of
// the two arrangements farthest apart (a before b, b before a).
func forcedOverlap(a, b *overlapItem) int64 {
	apart := func(x, y *overlapItem) int64 { // x at its period's start, y at its end
		return max(0, min(x.start+x.billed, y.end)-max(x.start, y.end-y.billed))
	}
	return min(apart(a, b), apart(b, a))
}

func (r overlappingCharge) Run(ctx context.Context, in *Input) ([]ledger.Finding, error) {
	minOverlap, err := in.durationParam("min_overlap")
	if err != nil {
		return nil, err
	}
	minAmount, th, err := in.amountLimits()
	if err != nil {
		return nil, err
	}
	minSecs := int64((minOverlap + time.Second - 1) / time.Second)
	var out []ledger.Finding
	var subs []overlapSub
	var active []int
	for _, res := range duplicateCandidates(in) {
		// split the resource's items by what they must share to be compared,
		// one representative per set of copies (the first billed): the
		// others are duplicate_charge's.
		subs = subs[:0]
		var subIdx map[overlapGroupKey]int
		for i, li := range res {
			if i > 0 && duplicateKeyCompare(res[i-1], li) == 0 {
				continue
			}
			if !li.ChargePeriodEnd.After(li.ChargePeriodStart) {
				continue // no length, no rate
			}
			it := overlapItem{li: li, start: li.ChargePeriodStart.Unix(), end: li.ChargePeriodEnd.Unix()}
			it.billed = it.end - it.start
			if _, isTime := billing.ParseTimeUnit(li.PricingUnit); !isTime && li.PricingQuantity.Valid {
				it.byQuantity = true
			}
			if !li.UsageStart.IsZero() && !li.UsageEnd.IsZero() {
				it.usageStart, it.usageEnd, it.hasUsage = li.UsageStart.Unix(), li.UsageEnd.Unix(), true
			} else if li.UsageStart.IsZero() && li.UsageEnd.IsZero() {
				s, e := billing.ActiveSpan(li)
				it.billed = min(it.billed, int64(e.Sub(s)/time.Second))
			}
			k := overlapKeyOf(li)
			n := 0
			if subIdx != nil { // many components: look them up
				var ok bool
				if n, ok = subIdx[k]; !ok {
					n = len(subs)
				}
			} else {
				for n < len(subs) && subs[n].key != k {
					n++
				}
			}
			if n == len(subs) {
				var reuse []overlapItem // an earlier resource's list: nothing keeps it past its findings
				if n < cap(subs) {
					reuse = subs[:n+1][n].items[:0]
				}
				subs = append(subs, overlapSub{key: k, items: reuse})
				if subIdx != nil {
					subIdx[k] = n
				} else if len(subs) > 16 {
					subIdx = make(map[overlapGroupKey]int, len(subs))
					for i, sb := range subs {
						subIdx[sb.key] = i
					}
				}
			}
			subs[n].items = append(subs[n].items, it)
		}
		for _, sub := range subs {
			if len(sub.items) < 2 {
				continue
			}
			var chains [][]overlapItem
			chains, active = overlapChains(sub.items, minSecs, active)
			for _, chain := range chains {
				latest := ""
				for _, it := range chain {
					latest = max(latest, it.li.BillingPeriod)
				}
				if latest != in.Month {
					continue
				}
				m := measureOverlap(chain)
				if m.doubled <= 0 || m.amount.Cmp(minAmount) < 0 {
					continue
				}
				out = append(out, r.finding(in, sub.key, chain, m, th))
			}
		}
	}
	return out, nil
}

// overlapSub is the items of one resource that are compared with each other.
type overlapSub struct {
	key   overlapGroupKey
	items []overlapItem
}

func overlapKeyOf(li *ledger.LineItem) overlapGroupKey {
	return overlapGroupKey{li.Provider, li.BillingAccountID, li.ResourceID, li.Kind, li.Currency,
		li.SKU, li.ResourceType, li.ServiceName, billing.IsPrepaid(li)}
}

// overlapChains links items whose periods share at least minSecs seconds
// and returns the chains of two or more items, each ordered by start. It
// sorts items; active is scratch space, returned for reuse.
func overlapChains(items []overlapItem, minSecs int64, active []int) ([][]overlapItem, []int) {
	slices.SortFunc(items, func(a, b overlapItem) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		if c := cmp.Compare(a.end, b.end); c != 0 {
			return c
		}
		return cmp.Compare(a.li.ID, b.li.ID)
	})
	var parent []int // union-find, made at the first link
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	active = active[:0] // items that end after the current start
	for i, it := range items {
		kept := active[:0]
		for _, j := range active {
			if items[j].end > it.start {
				kept = append(kept, j)
			}
		}
		active = kept
		for _, j := range active {
			// items[j] starts no later than it: they share [it.start, min(ends)).
			if min(items[j].end, it.end)-it.start < minSecs {
				continue
			}
			o := &items[j]
			if (!o.placed() || !it.placed()) && forcedOverlap(o, &it) < minSecs {
				continue // their billed times fit their periods apart
			}
			if o.byQuantity && it.byQuantity && o.start == it.start && o.end == it.end &&
				(o.li.PricingUnit != it.li.PricingUnit || !o.li.PricingQuantity.Decimal.Equal(it.li.PricingQuantity.Decimal)) {
				continue // two things billed over one period
			}
			if o.hasUsage && it.hasUsage && min(o.usageEnd, it.usageEnd)-max(o.usageStart, it.usageStart) < minSecs {
				continue // two separate runs, each rounded up
			}
			if parent == nil {
				parent = make([]int, len(items))
				for n := range parent {
					parent[n] = n
				}
			}
			if a, b := find(i), find(j); a != b {
				parent[a] = b
			}
		}
		active = append(active, i)
	}
	if parent == nil {
		return nil, active
	}
	byRoot := map[int][]overlapItem{}
	var roots []int
	for i := range items {
		r := find(i)
		if _, ok := byRoot[r]; !ok {
			roots = append(roots, r)
		}
		byRoot[r] = append(byRoot[r], items[i])
	}
	var out [][]overlapItem
	for _, r := range roots {
		if len(byRoot[r]) > 1 {
			out = append(out, byRoot[r])
		}
	}
	return out, active
}

// overlapMeasure is what a chain charged twice.
type overlapMeasure struct {
	amount     decimal.Decimal
	doubled    time.Duration // time covered by two or more items
	start, end time.Time     // first and last doubled instant
	stretches  int           // doubled stretches between item boundaries
	pairShares []decimal.Decimal
	pairRates  []string // for a single two-item stretch: "¥3.80 ÷ 1h"; by billed time, the lowest rate
	// by billed time (stretches 0): the time the items bill and the time
	// their periods cover
	billed, covered time.Duration
}

// measureOverlap cuts the chain at every item boundary and, on each stretch
// covered by several items, puts every share but the largest at risk; a
// chain with an item that is not placed is measured by billed time
// (measureBilledOverlap).
func measureOverlap(chain []overlapItem) overlapMeasure {
	for i := range chain {
		if !chain[i].placed() {
			return measureBilledOverlap(chain)
		}
	}
	var bounds []int64
	for _, it := range chain {
		bounds = append(bounds, it.start, it.end)
	}
	slices.Sort(bounds)
	var m overlapMeasure
	for i := 0; i+1 < len(bounds); i++ {
		a, b := bounds[i], bounds[i+1]
		if b <= a {
			continue
		}
		var shares []decimal.Decimal
		var covering []overlapItem
		for _, it := range chain {
			if it.start <= a && it.end >= b {
				shares = append(shares, billing.ProRata(it.li.BilledCost, b-a, it.end-it.start))
				covering = append(covering, it)
			}
		}
		if len(shares) < 2 {
			continue
		}
		largest := shares[0]
		sum := decimal.Zero
		for _, s := range shares {
			sum = sum.Add(s)
			if s.Cmp(largest) > 0 {
				largest = s
			}
		}
		m.amount = m.amount.Add(sum.Sub(largest))
		m.doubled += time.Duration(b-a) * time.Second
		if m.start.IsZero() || a < m.start.Unix() {
			m.start = time.Unix(a, 0).UTC()
		}
		if b > m.end.Unix() || m.end.IsZero() {
			m.end = time.Unix(b, 0).UTC()
		}
		m.stretches++
		if len(covering) == 2 {
			m.pairShares = shares
			m.pairRates = nil
			for _, it := range covering {
				m.pairRates = append(m.pairRates, formatExact(it.li.BilledCost, it.li.Currency)+" ÷ "+
					formatDuration(time.Duration(it.end-it.start)*time.Second))
			}
		}
	}
	return m
}

// measureBilledOverlap is what a chain surely charged twice when some of
// its items ran an unknown part of their periods: the time they bill beyond
// the time their periods cover (doubled, stretches 0), at the lowest rate
// of an item (its billed cost ÷ billed time, 8 decimals). start and end are
// the periods' bounds: where in them the doubled time lies is unknown.
func measureBilledOverlap(chain []overlapItem) overlapMeasure {
	var billed, covered int64
	periods := make([]secSpan, len(chain))
	for i, it := range chain {
		billed += it.billed
		periods[i] = secSpan{it.start, it.end}
	}
	merged := mergeIntervals(periods)
	for _, p := range merged {
		covered += p.end - p.start
	}
	m := overlapMeasure{start: secTime(merged[0].start), end: secTime(merged[len(merged)-1].end)}
	extra := billed - covered
	if extra <= 0 {
		return m
	}
	m.doubled = time.Duration(extra) * time.Second
	m.billed, m.covered = time.Duration(billed)*time.Second, time.Duration(covered)*time.Second
	found := false
	for _, it := range chain {
		if it.billed <= 0 {
			continue // no time billed: no rate
		}
		share := billing.ProRata(it.li.BilledCost, extra, it.billed)
		if !found || share.LessThan(m.amount) {
			found = true
			m.amount = share
			m.pairRates = []string{formatExact(it.li.BilledCost, it.li.Currency) + " ÷ " +
				formatDuration(time.Duration(it.billed)*time.Second)}
		}
	}
	return m
}

func (overlappingCharge) finding(in *Input, k overlapGroupKey, chain []overlapItem, m overlapMeasure, th thresholds) ledger.Finding {
	cur := k.currency
	items := make([]*ledger.LineItem, 0, len(chain))
	for _, it := range chain {
		items = append(items, it.li)
	}
	amount := FormatMoney(m.amount, cur)
	span := formatTime(m.start, in.TZ) + "–" + formatTime(m.end, in.TZ)
	if formatDay(m.start, in.TZ) == formatDay(m.end, in.TZ) {
		span = formatTime(m.start, in.TZ) + "–" + m.end.In(in.TZ).Format("15:04")
	}
	var basis, reasonZH, reasonEN string
	kindZH, kindEN := duplicateKindName(k.kind, "zh"), duplicateKindName(k.kind, "en")
	if m.stretches == 0 { // measured by billed time (measureBilledOverlap)
		basis = fmt.Sprintf("billed time %s within periods covering %s: %s charged twice at least, at the lowest rate %s × %s = %s",
			formatDuration(m.billed), formatDuration(m.covered), formatDuration(m.doubled), m.pairRates[0],
			formatDuration(m.doubled), formatExact(m.amount, cur))
		reasonZH = fmt.Sprintf("资源 %s 有 %d 条%s费用记录在 %s（%s）内共计费 %s，超出时段 %s，至少这部分被重复计费，约 %s。",
			k.resource, len(items), kindZH, formatDurationZH(m.covered), span, formatDurationZH(m.billed), formatDurationZH(m.doubled), amount)
		reasonEN = fmt.Sprintf("Resource %s has %d %s line items that bill %s within %s of periods (%s), so at least %s was charged twice, about %s.",
			k.resource, len(items), kindEN, formatDuration(m.billed), formatDuration(m.covered), span, formatDuration(m.doubled), amount)
	} else {
		reasonZH = fmt.Sprintf("资源 %s 有 %d 条%s费用记录的时段相互重叠，共重叠 %s（%s），这段时间被重复计费约 %s。",
			k.resource, len(items), kindZH, formatDurationZH(m.doubled), span, amount)
		reasonEN = fmt.Sprintf("Resource %s has %d %s line items whose periods overlap for %s (%s), so that time was charged twice, about %s.",
			k.resource, len(items), kindEN, formatDuration(m.doubled), span, amount)
		if d := formatDuration(m.doubled); m.stretches == 1 && len(m.pairShares) == 2 {
			basis = fmt.Sprintf("overlap %s at the billed rate: %s × %s = %s, %s × %s = %s; the smaller share is at risk = %s",
				d, m.pairRates[0], d, formatExact(m.pairShares[0], cur), m.pairRates[1], d, formatExact(m.pairShares[1], cur),
				formatExact(m.amount, cur))
		} else {
			basis = fmt.Sprintf("over %s of doubled time in %d stretches: each item's share (billed cost ÷ period length × stretch, 8 decimals), all but the largest per stretch = %s",
				d, m.stretches, formatExact(m.amount, cur))
		}
	}
	return ledger.Finding{
		Severity:     th.severity(m.amount),
		Provider:     k.provider,
		ResourceID:   k.resource,
		PeriodStart:  m.start,
		PeriodEnd:    m.end,
		AmountAtRisk: valid(m.amount),
		Currency:     cur,
		Basis:        basis,
		ReasonZH:     reasonZH,
		ReasonEN:     reasonEN,
		AdviceZH:     "在平台控制台核对这些记录是否为同一段使用重复计费（如结算行与小时行重叠）；若是，凭这些记录联系客服申请退还重叠部分。",
		AdviceEN:     "Check in the platform's console whether these rows bill the same use twice (a settlement row over hourly rows, say); if so, ask support to refund the overlapping part with these rows.",
		Evidence:     evidenceOf(items),
	}
}

package rules

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

// Session is a run of consecutive on-demand (or spot) compute line items of
// one resource whose active spans touch or overlap (DESIGN.md "Session").
// Its provider, resource and currency are its items' (the methods of the
// same names): held in each session too, they made it 136 bytes instead of
// 72, and a 297,600-item month has 254,630 sessions, each written once and
// read by the what-if and forgotten_instance (0.1 s of CPU between them).
type Session struct {
	Start, End time.Time          // union of the items' active spans
	Items      []*ledger.LineItem // ordered by active start; never empty
}

// Provider is the provider of s's items.
func (s *Session) Provider() string { return s.Items[0].Provider }

// ResourceID is the resource of s's items.
func (s *Session) ResourceID() string { return s.Items[0].ResourceID }

// Currency is the currency of s's items.
func (s *Session) Currency() string { return s.Items[0].Currency }

// sessionGapMin is the largest gap that still joins two items when the
// platform's billing step is smaller.
const sessionGapMin = time.Minute

// activeSpan is when li's resource really ran: usage_start/usage_end where
// the bill gives them, else the charge period — cut to the billed time when
// the bill gives no run times and bills less time than the period holds (a
// daily row of 阿里云 or 火山引擎 that bills "2 小时" is a 2-hour run, not a
// day-long one; when in the day is unknown, so it is taken from the start).
// A span never ends before it starts.
func activeSpan(li *ledger.LineItem) (start, end time.Time) {
	if li.Derived.Set {
		return li.Derived.SpanStart, li.Derived.SpanEnd
	}
	return computeActiveSpan(li)
}

// computeActiveSpan is activeSpan without li.Derived.
func computeActiveSpan(li *ledger.LineItem) (start, end time.Time) {
	start, end = li.ChargePeriodStart, li.ChargePeriodEnd
	if li.UsageStart.IsZero() && li.UsageEnd.IsZero() && li.PricingQuantity.Valid {
		if u, ok := parseTimeUnit(li.PricingUnit); ok && li.PricingQuantity.Decimal.Sign() > 0 {
			period := int64(end.Sub(start) / time.Second)
			// secs < period ⇔ ⌊secs⌋ < period, period being whole seconds.
			if whole, fast := u.wholeSeconds(li.PricingQuantity.Decimal); fast {
				if whole < period {
					end = start.Add(time.Duration(whole) * time.Second)
				}
			} else if secs := u.seconds(li.PricingQuantity.Decimal); secs.LessThan(decimal.NewFromInt(period)) {
				end = start.Add(time.Duration(secs.IntPart()) * time.Second)
			}
		}
	}
	if !li.UsageStart.IsZero() {
		start = li.UsageStart
	}
	if !li.UsageEnd.IsZero() {
		end = li.UsageEnd
	}
	if end.Before(start) {
		end = start
	}
	return start, end
}

// isRunning reports whether li says its resource ran: a compute charge that
// is not a credit, tax or adjustment and not negative. Prepaid items count
// (a package runs whether on or off).
func isRunning(li *ledger.LineItem) bool {
	if li.Kind != ledger.KindCompute {
		return false
	}
	switch li.ChargeCategory {
	case ledger.CategoryCredit, ledger.CategoryTax, ledger.CategoryAdjustment:
		return false
	}
	return billedSign(li) >= 0
}

// billedSign is the sign of li's billed cost (li.Derived when set).
func billedSign(li *ledger.LineItem) int {
	if li.Derived.Set {
		return int(li.Derived.BilledSign)
	}
	return li.BilledCost.Sign()
}

// derive fills the Derived of li, freshly loaded and not yet shared with
// the rules.
func derive(li *ledger.LineItem) {
	s, e := computeActiveSpan(li)
	c, exp, small := ledger.SmallOf(li.BilledCost)
	li.Derived = ledger.Derived{SpanStart: s, SpanEnd: e, Billed: c, BilledExp: exp, BilledSign: int8(li.BilledCost.Sign()),
		BilledSmall: small, Set: true, QuantitySign: int8(li.PricingQuantity.Decimal.Sign())}
}

// quantityPositive reports whether li states a pricing quantity above zero
// (li.Derived when set). price_deviation and min_duration_rounding asked
// the quantity's *big.Int of every compute item, a cache miss each: 0.15 s
// of CPU of an audit of 2026-11 of the 1M-row ledger (pprof).
func quantityPositive(li *ledger.LineItem) bool {
	if !li.PricingQuantity.Valid {
		return false
	}
	if li.Derived.Set {
		return li.Derived.QuantitySign > 0
	}
	return li.PricingQuantity.Decimal.IsPositive()
}

// isSessionItem reports whether li takes part in on-demand sessions:
// running compute of a named resource that is not prepaid.
func isSessionItem(li *ledger.LineItem) bool {
	return isRunning(li) && !isPrepaid(li) && li.ResourceID != ""
}

// Sessions builds (once) the sessions of every resource from the month's
// items and their context, ordered by provider, resource, currency, start.
// A session may include context items of the neighbouring months.
func (in *Input) Sessions() []Session {
	c := in.cache()
	c.sessions.once.Do(func() {
		c.sessions.list = buildSessions(in.cfg, in.Items, in.Context)
	})
	return c.sessions.list
}

// isLoneSession reports whether li is a session on its own (the one item of
// its session).
func (in *Input) isLoneSession(li *ledger.LineItem) bool {
	c := in.cache()
	c.lone.once.Do(func() {
		c.lone.ids = map[int64]bool{}
		sessions := in.Sessions()
		for i := range sessions {
			if s := &sessions[i]; len(s.Items) == 1 {
				c.lone.ids[s.Items[0].ID] = true
			}
		}
	})
	return c.lone.ids[li.ID]
}

type sessionKey struct{ provider, resource, currency string }

// buildSessions builds the sessions of the items of parts (each item in
// one of them once: the month and its context are disjoint).
func buildSessions(cfg Config, parts ...[]*ledger.LineItem) []Session {
	// Items come mostly in runs of one resource (the input's order): each
	// run is appended to its group at once rather than item by item.
	groups := map[sessionKey][]*ledger.LineItem{}
	var run []*ledger.LineItem
	var runKey sessionKey
	// starts counts the items that start a session in the input's order
	// (a run's first, or one that starts past the gap after what the run
	// covered so far): where a group comes in time order, as it mostly
	// does, that is its count of sessions.
	starts, gap := 0, sessionGapMin
	var covered time.Time
	for _, items := range parts {
		for _, li := range items {
			if !isSessionItem(li) {
				continue
			}
			s, e := activeSpan(li)
			if k := (sessionKey{li.Provider, li.ResourceID, li.Currency}); k != runKey || len(run) == 0 {
				if len(run) > 0 {
					groups[runKey] = append(groups[runKey], run...)
				}
				if k.provider != runKey.provider || len(run) == 0 {
					gap = sessionGap(cfg, k.provider)
				}
				run, runKey, covered = run[:0], k, e
				starts++
			} else if s.After(covered.Add(gap)) {
				starts++
				covered = e
			} else if e.After(covered) {
				covered = e
			}
			run = append(run, li)
		}
	}
	if len(run) > 0 {
		groups[runKey] = append(groups[runKey], run...)
	}
	keys := make([]sessionKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.provider != b.provider {
			return a.provider < b.provider
		}
		if a.resource != b.resource {
			return a.resource < b.resource
		}
		return a.currency < b.currency
	})
	// out is made at once for the sessions counted, with room for a group
	// out of order (at most one session an item). Grown by doubling, it was
	// 63 MB allocated and copied for the 230k sessions of a 297,600-item
	// month. Made for one session an item, it was 62 MB for the 52k
	// sessions (3.8 MB) of a million-item month, all of it zeroed.
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	out := make([]Session, 0, min(n, starts+starts/4+16))
	type spanned struct {
		li         *ledger.LineItem
		start, end time.Time
	}
	bySpan := func(a, b spanned) int {
		if c := a.start.Compare(b.start); c != 0 {
			return c
		}
		if c := a.end.Compare(b.end); c != 0 {
			return c
		}
		return cmp.Compare(a.li.ID, b.li.ID)
	}
	var lis []spanned // one group's items with their spans, reused group after group
	for _, k := range keys {
		// Spans are computed once per item: activeSpan does decimal
		// arithmetic, too dear for a sort comparator. A group's items come
		// in time order mostly (the input's order): sorted already, they
		// are not sorted again.
		lis = lis[:0]
		for _, li := range groups[k] {
			s, e := activeSpan(li)
			lis = append(lis, spanned{li, s, e})
		}
		if !slices.IsSortedFunc(lis, bySpan) {
			slices.SortFunc(lis, bySpan)
		}
		gap := sessionGap(cfg, k.provider)
		// The sessions of a group are runs of its sorted items: their Items
		// share one array (capped, so that an append copies).
		ptrs := make([]*ledger.LineItem, len(lis))
		for i, sp := range lis {
			ptrs[i] = sp.li
		}
		var cur *Session
		first := 0
		for i, sp := range lis {
			s, e := sp.start, sp.end
			if cur != nil && !s.After(cur.End.Add(gap)) {
				if e.After(cur.End) {
					cur.End = e
				}
				continue
			}
			if cur != nil {
				cur.Items = ptrs[first:i:i]
			}
			out = append(out, Session{Start: s, End: e})
			cur, first = &out[len(out)-1], i
		}
		if cur != nil {
			cur.Items = ptrs[first:len(lis):len(lis)]
		}
	}
	return out
}

// sessionGap is the largest gap that joins two items of provider into one
// session: sessionGapMin, or the platform's billing step when longer.
func sessionGap(cfg Config, provider string) time.Duration {
	if p, ok := cfg.policyFor(provider); ok && p.BillingStep > sessionGapMin {
		return p.BillingStep
	}
	return sessionGapMin
}

// lastItem is the item of s whose charge period ends last (ties: higher id).
func (s *Session) lastItem() *ledger.LineItem {
	var last *ledger.LineItem
	for _, li := range s.Items {
		if last == nil || li.ChargePeriodEnd.After(last.ChargePeriodEnd) ||
			(li.ChargePeriodEnd.Equal(last.ChargePeriodEnd) && li.ID > last.ID) {
			last = li
		}
	}
	return last
}

// served says which instance a charge serves (DESIGN.md "Which instance a
// charge serves").
type served struct {
	how      string // parent | same | account
	provider string
	id       string // instance id, or the billing account id for "account"
}

const (
	servedParent  = "parent"
	servedSame    = "same"
	servedAccount = "account"
)

type instKey struct{ provider, resource string }
type acctKey struct{ provider, account string }

type interval struct{ start, end time.Time }

// secSpan is a half-open span of whole Unix seconds, for the coverage:
// 16 bytes where an interval of two time.Time takes 48, compared as
// integers (in the 2026-11 audit of a 1M-row ledger the coverage's lists
// held 200 MB, and sorting them was 0.27 s of CPU). Stored times are whole
// seconds; a time with a fraction widens the span to the seconds around it
// (floorSec, ceilSec).
type secSpan struct{ start, end int64 }

// floorSec and ceilSec are t in Unix seconds, rounded down and up.
func floorSec(t time.Time) int64 { return t.Unix() }

func ceilSec(t time.Time) int64 {
	if t.Nanosecond() > 0 {
		return t.Unix() + 1
	}
	return t.Unix()
}

// secTime is the time of Unix second s, in UTC.
func secTime(s int64) time.Time { return time.Unix(s, 0).UTC() }

// coverage holds when each instance ran compute, as sorted, merged
// half-open spans.
type coverage struct {
	byInstance map[instKey][]secSpan
}

// coverage builds (once) the compute coverage of each instance from the
// month's items and their context. Every running compute item counts,
// prepaid ones included.
func (in *Input) coverage() *coverage {
	shared := in.cache()
	shared.cover.once.Do(func() {
		m := map[instKey][]secSpan{}
		addCoverage(in, m, func(li *ledger.LineItem) (instKey, bool) {
			return instKey{li.Provider, li.ResourceID}, li.ResourceID != ""
		})
		shared.cover.c = &coverage{byInstance: m}
	})
	return shared.cover.c
}

// accountCoverage builds (once) the compute coverage of each provider
// account, as coverage does for instances. It is built apart: the what-if
// report never asks for it, and its lists are long (a month's items of
// every resource of an account, in resource order, to sort: 0.07 s of
// CPU for a 297,600-item month).
func (in *Input) accountCoverage() map[acctKey][]secSpan {
	shared := in.cache()
	shared.acctCover.once.Do(func() {
		m := map[acctKey][]secSpan{}
		addCoverage(in, m, func(li *ledger.LineItem) (acctKey, bool) { return acctKey{li.Provider, li.BillingAccountID}, true })
		shared.acctCover.m = m
	})
	return shared.acctCover.m
}

// addCoverage puts into m the active span of each running compute item of
// the month and its context under its key (when key says it has one), as
// sorted, merged half-open spans.
func addCoverage[K comparable](in *Input, m map[K][]secSpan, key func(li *ledger.LineItem) (K, bool)) {
	// The items of one resource come together, in order of start: each
	// list is kept at hand while its key lasts (keyedIntervals).
	lists := keyedIntervals[K]{m: m}
	for _, li := range in.itemsAndContext() {
		if !isRunning(li) {
			continue
		}
		k, ok := key(li)
		if !ok {
			continue
		}
		s, e := activeSpan(li)
		sp := secSpan{floorSec(s), ceilSec(e)}
		if sp.end <= sp.start {
			sp.end = sp.start + 1 // a point in time still says it ran then
		}
		lists.add(k, sp)
	}
	lists.flush()
	for k, ivs := range m {
		m[k] = mergeIntervals(ivs)
	}
}

// keyedIntervals appends intervals to lists by key, keeping the list of the
// last key at hand (no map access while the key stays the same), and
// extends the last interval of a list when the next starts within it
// (mergeIntervals would join them anyway): that keeps the lists short.
type keyedIntervals[K comparable] struct {
	m    map[K][]secSpan
	key  K
	list []secSpan
	open bool
}

func (r *keyedIntervals[K]) add(k K, iv secSpan) {
	if !r.open || k != r.key {
		r.flush()
		r.key, r.list, r.open = k, r.m[k], true
	}
	if n := len(r.list); n > 0 && iv.start >= r.list[n-1].start && iv.start <= r.list[n-1].end {
		r.list[n-1].end = max(r.list[n-1].end, iv.end)
		return
	}
	r.list = append(r.list, iv)
}

// flush stores the list at hand in the map.
func (r *keyedIntervals[K]) flush() {
	if r.open {
		r.m[r.key] = r.list
	}
}

// mergeIntervals sorts ivs by start and joins those that touch or overlap,
// in place: the merged list is a prefix of ivs (a list of its own was 11 MB
// allocated and grown for a 297,600-item month's coverage).
func mergeIntervals(ivs []secSpan) []secSpan {
	byStart := func(a, b secSpan) int { return cmp.Compare(a.start, b.start) }
	if !slices.IsSortedFunc(ivs, byStart) { // items come by start mostly
		slices.SortFunc(ivs, byStart)
	}
	out := ivs[:0] // written at or before where it reads
	for _, iv := range ivs {
		if n := len(out); n > 0 && iv.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, iv.end)
			continue
		}
		out = append(out, iv)
	}
	return out
}

// overlaps reports whether any span of ivs overlaps [s, e).
func overlaps(ivs []secSpan, s, e time.Time) bool {
	ss, es := floorSec(s), ceilSec(e)
	i := sort.Search(len(ivs), func(i int) bool { return ivs[i].end > ss })
	return i < len(ivs) && ivs[i].start < es
}

// servedBy resolves which instance the charge li serves: its parent resource
// if the bill names one; else its own resource id when that resource has
// compute in the data (an instance's own component row); else, as a
// fallback, the provider account as a whole.
func (in *Input) servedBy(li *ledger.LineItem) served {
	if li.ParentResourceID != "" {
		return served{servedParent, li.Provider, li.ParentResourceID}
	}
	if li.ResourceID != "" {
		k := instKey{li.Provider, li.ResourceID}
		if _, ok := in.coverage().byInstance[k]; ok || in.later.inst[k] {
			return served{servedSame, li.Provider, li.ResourceID}
		}
	}
	return served{servedAccount, li.Provider, li.BillingAccountID}
}

// ranDuring reports whether the served instance (or account) ran compute
// during [s, e).
func (in *Input) ranDuring(sv served, s, e time.Time) bool {
	if sv.how == servedAccount {
		return overlaps(in.accountCoverage()[acctKey{sv.provider, sv.id}], s, e)
	}
	return overlaps(in.coverage().byInstance[instKey{sv.provider, sv.id}], s, e)
}

// dayStart is the midnight in loc that starts t's day.
func dayStart(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// nextDay is the midnight after the day starting at day.
func nextDay(day time.Time) time.Time {
	y, m, d := day.Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, day.Location())
}

package rules

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// Sessions builds (once) the sessions of every resource from the month's
// items and their context, ordered by provider, resource, currency, start.
// A session may include context items of the neighbouring months.
func (in *Input) Sessions() []billing.Session {
	c := in.cache()
	c.sessions.once.Do(func() {
		c.sessions.list = billing.BuildSessions(in.cfg.PolicyFor, in.Items, in.Context)
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
		if !billing.IsRunning(li) {
			continue
		}
		k, ok := key(li)
		if !ok {
			continue
		}
		s, e := billing.ActiveSpan(li)
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

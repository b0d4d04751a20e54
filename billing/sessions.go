package billing

import (
	"cmp"
	"slices"
	"sort"
	"time"

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

// SessionGapMin is the largest gap that still joins two items of a
// session when the platform's billing step is smaller.
const SessionGapMin = time.Minute

// IsSessionItem reports whether li takes part in on-demand sessions:
// running compute of a named resource that is not prepaid.
func IsSessionItem(li *ledger.LineItem) bool {
	return IsRunning(li) && !IsPrepaid(li) && li.ResourceID != ""
}

type sessionKey struct{ provider, resource, currency string }

// spanned is a session item with its active span.
type spanned struct {
	li         *ledger.LineItem
	start, end time.Time
}

// BuildSessions builds the sessions of the items of parts (each item in one
// of them once, as the month and its context are), ordered by provider,
// resource, currency, start. The gap that still joins two items of a
// provider follows its policy (SessionGap).
func BuildSessions(policies PolicyLookup, parts ...[]*ledger.LineItem) []Session {
	// Items come mostly in runs of one resource (the input's order): each
	// run is appended to its group at once rather than item by item. Each
	// item's span is computed once, here, and kept with it: ActiveSpan does
	// decimal arithmetic, too dear for a sort comparator.
	groups := map[sessionKey][]spanned{}
	var run []spanned
	var runKey sessionKey
	// starts counts the items that start a session in the input's order
	// (a run's first, or one that starts past the gap after what the run
	// covered so far): where a group comes in time order, as it mostly
	// does, that is its count of sessions.
	starts, gap := 0, SessionGapMin
	var covered time.Time
	for _, items := range parts {
		for _, li := range items {
			if !IsSessionItem(li) {
				continue
			}
			s, e := ActiveSpan(li)
			if k := (sessionKey{li.Provider, li.ResourceID, li.Currency}); k != runKey || len(run) == 0 {
				if len(run) > 0 {
					groups[runKey] = append(groups[runKey], run...)
				}
				if k.provider != runKey.provider || len(run) == 0 {
					gap = SessionGap(policies, k.provider)
				}
				run, runKey, covered = run[:0], k, e
				starts++
			} else if s.After(covered.Add(gap)) {
				starts++
				covered = e
			} else if e.After(covered) {
				covered = e
			}
			run = append(run, spanned{li, s, e})
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
	bySpan := func(a, b spanned) int {
		if c := a.start.Compare(b.start); c != 0 {
			return c
		}
		if c := a.end.Compare(b.end); c != 0 {
			return c
		}
		return cmp.Compare(a.li.ID, b.li.ID)
	}
	for _, k := range keys {
		// A group's items come in time order mostly (the input's order):
		// sorted already, they are not sorted again.
		lis := groups[k]
		if !slices.IsSortedFunc(lis, bySpan) {
			slices.SortFunc(lis, bySpan)
		}
		gap := SessionGap(policies, k.provider)
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

// SessionGap is the largest gap that joins two items of provider into one
// session: SessionGapMin, or the platform's billing step when longer.
func SessionGap(policies PolicyLookup, provider string) time.Duration {
	if p, ok := policies.For(provider); ok && p.BillingStep > SessionGapMin {
		return p.BillingStep
	}
	return SessionGapMin
}

// LastItem is the item of s whose charge period ends last (ties: higher id).
func (s *Session) LastItem() *ledger.LineItem {
	var last *ledger.LineItem
	for _, li := range s.Items {
		if last == nil || li.ChargePeriodEnd.After(last.ChargePeriodEnd) ||
			(li.ChargePeriodEnd.Equal(last.ChargePeriodEnd) && li.ID > last.ID) {
			last = li
		}
	}
	return last
}

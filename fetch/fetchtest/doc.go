// Package fetchtest holds fake billing APIs for tests (httptest handlers),
// built from the vendors' documented request and response shapes: each
// verifies the signature of every request the way the vendor documents it
// (with an implementation of its own, not package fetch's) and refuses a
// wrong one with the vendor's error JSON; each pages to the last page and
// can throttle, delay or garble a page on request (Fault).
package fetchtest

import (
	"sync"
	"time"
)

// Fault is what a fake does to one request for a page, instead of
// answering it normally.
type Fault struct {
	Throttle bool          // answer with the vendor's throttling error
	Delay    time.Duration // wait this long first (a slow page), then answer normally
	Body     string        // answer with this body (a malformed page)
}

// faults hands out the faults queued for a page, one per request.
type faults struct {
	mu sync.Mutex
	m  map[string][]Fault
}

func (f *faults) add(page string, fs ...Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string][]Fault{}
	}
	f.m[page] = append(f.m[page], fs...)
}

func (f *faults) next(page string) (Fault, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.m[page]
	if len(q) == 0 {
		return Fault{}, false
	}
	f.m[page] = q[1:]
	return q[0], true
}

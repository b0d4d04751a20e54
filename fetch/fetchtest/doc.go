// Package fetchtest holds fake billing APIs for tests (httptest handlers),
// built from the vendors' documented request and response shapes: each
// verifies the signature of every request the way the vendor documents it
// (with an implementation of its own, not package fetch's) and refuses a
// wrong one with the vendor's error JSON; each pages to the last page and
// can throttle, delay or garble a page on request (Fault).
package fetchtest

import (
	"io"
	"net/http"
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

// serve applies the next fault queued for page to the request: throttle
// answers with the vendor's throttling error, a body is written as
// contentType, a delay waits before the fake answers normally. It reports
// whether the request is answered (or gone) and the fake must stop.
func (f *faults) serve(w http.ResponseWriter, r *http.Request, page, contentType string, throttle func()) bool {
	ft, ok := f.next(page)
	switch {
	case !ok:
		return false
	case ft.Throttle:
		throttle()
		return true
	case ft.Body != "":
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, ft.Body)
		return true
	case ft.Delay > 0:
		select {
		case <-time.After(ft.Delay):
		case <-r.Context().Done():
			return true
		}
	}
	return false
}

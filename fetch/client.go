package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Kind classifies a fetch error.
type Kind int

const (
	KindUsage     Kind = iota + 1 // no or bad credentials configured, a bad flag
	KindAuth                      // the cloud refused the key or its permission
	KindShape                     // a response not of the documented shape
	KindThrottled                 // still throttled after the retries
	KindTimeout                   // no answer within the per-request timeout, after the retries
	KindAPI                       // any other error the API returned
)

// Error is a fetch error in Chinese and English. Its texts never hold a
// secret (scrub).
type Error struct {
	Kind   Kind
	ZH, EN string
}

func (e *Error) Error() string { return e.EN }

// Text is the message in lang ("zh", else English).
func (e *Error) Text(lang string) string {
	if lang == "zh" {
		return e.ZH
	}
	return e.EN
}

// Options tune the HTTP side of a fetch; the zero value is the default.
type Options struct {
	Endpoint    string        // replaces scheme and host of the API's URL; "" = the account's, else the vendor's
	Timeout     time.Duration // per request; default 30 s
	MaxAttempts int           // per page, throttled or timed-out tries included; default 6
	Backoff     time.Duration // first back-off; doubled each retry, with jitter, capped at 30 s; default 1 s
	HTTP        *http.Client  // default: a client of its own
	Now         func() time.Time
	// Sleep waits d or until ctx ends (tests replace it).
	Sleep func(ctx context.Context, d time.Duration) error
	// OnPage is told after each page: pages and lines so far (progress).
	OnPage func(pages, lines int)
}

func (o *Options) defaults() {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 6
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.HTTP == nil {
		// A billing API does not redirect: a signed request is not sent on
		// to another host.
		o.HTTP = &http.Client{CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			return fmt.Errorf("%w to %s", errRedirect, req.URL.Host)
		}}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// errRedirect refuses a redirect (Options.defaults).
var errRedirect = errors.New("the API answered with a redirect, not followed,")

// maxBackoff bounds one wait between retries.
const maxBackoff = 30 * time.Second

// backoff is the wait before retry n (1, 2 …): base·2^(n−1), capped, with
// "full jitter" on its upper half, so that clients throttled together do not
// come back together.
func backoff(base time.Duration, n int) time.Duration {
	d := base << (n - 1)
	if d > maxBackoff || d <= 0 {
		d = maxBackoff
	}
	return d/2 + rand.N(d/2+1)
}

// baseURL is the API's URL with scheme and host taken from endpoint (its
// path, if any, is ignored: the API's own path is kept).
func baseURL(def, endpoint, apiPath string) (*url.URL, error) {
	raw := def
	if endpoint != "" {
		raw = endpoint
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &Error{Kind: KindUsage, ZH: fmt.Sprintf("--endpoint %q：需要 http(s)://主机[:端口]", raw),
			EN: fmt.Sprintf("--endpoint %q: want http(s)://host[:port]", raw)}
	}
	return &url.URL{Scheme: u.Scheme, Host: u.Host, Path: apiPath}, nil
}

// apiError is one failed attempt as the API (or the network) reported it.
type apiError struct {
	status        int
	code, message string
	retry         bool // throttling, a timeout, a server-side hiccup
	timeout       bool
	auth          bool
}

func (e *apiError) Error() string {
	if e.code == "" {
		return e.message
	}
	return e.code + ": " + e.message
}

// attempt sends one signed request (build makes a new one per attempt: a
// new timestamp and nonce) and hands the body to check, which returns nil,
// an *apiError, or an *Error (shape).
type attempt struct {
	build func(ctx context.Context) (*http.Request, error)
	check func(status int, body []byte) error
}

// maxBody bounds one response (a page of 300 lines is well under 1 MB).
const maxBody = 64 << 20

// do runs a with the retry policy of o and returns the last failure as an
// *Error made by fail.
func (o *Options) do(ctx context.Context, a attempt, fail func(e *apiError, tries int) error) error {
	var last *apiError
	for n := 1; n <= o.MaxAttempts; n++ {
		if n > 1 {
			if err := o.Sleep(ctx, backoff(o.Backoff, n-1)); err != nil {
				return err
			}
		}
		err := o.once(ctx, a)
		if err == nil {
			return nil
		}
		var ae *apiError
		if !errors.As(err, &ae) {
			return err // shape errors and cancellation are final
		}
		last = ae
		if !ae.retry {
			break
		}
	}
	return fail(last, o.MaxAttempts)
}

func (o *Options) once(ctx context.Context, a attempt) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	req, err := a.build(rctx)
	if err != nil {
		return err
	}
	resp, err := o.HTTP.Do(req)
	if err == nil {
		defer resp.Body.Close()
		var body []byte
		body, err = io.ReadAll(io.LimitReader(resp.Body, maxBody))
		if err == nil {
			return a.check(resp.StatusCode, body)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &apiError{retry: true, timeout: true, message: fmt.Sprintf("no answer within %s", o.Timeout)}
	}
	if errors.Is(err, errRedirect) {
		return &apiError{code: "redirect", message: scrubURL(err.Error())}
	}
	// A connection refused or reset: worth another try, reported as such.
	return &apiError{retry: true, code: "network", message: scrubURL(err.Error())}
}

// scrubURL drops the query of URLs in a net/http error (the Alibaba Cloud
// query carries the key id and signature: neither belongs in a message).
func scrubURL(s string) string {
	if i := strings.Index(s, "?"); i >= 0 {
		j := strings.IndexAny(s[i:], "\": ")
		if j < 0 {
			return s[:i]
		}
		return s[:i] + s[i+j:]
	}
	return s
}

// scrub removes the secret from a text, should a server ever echo it.
func scrub(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "***")
}

// shapeError is a response that does not match the documented shape.
func shapeError(api, field, want string) *Error {
	return &Error{Kind: KindShape,
		ZH: fmt.Sprintf("%s 的响应不符合文档：字段 %s %s", api, field, want),
		EN: fmt.Sprintf("%s response does not match the documented shape: field %s %s", api, field, want)}
}

package fetch

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// record is one JSON object of a response, read with UseNumber so that
// amounts keep their exact text; path names it in errors
// ("Response.DetailSet[3]").
type record struct {
	api, path string
	m         map[string]any
}

// decodeObject parses body as a JSON object.
func decodeObject(api string, body []byte) (record, error) {
	d := json.NewDecoder(strings.NewReader(string(body)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil || m == nil {
		return record{}, shapeError(api, "(body)", "is not a JSON object")
	}
	return record{api: api, m: m}, nil
}

func (r record) name(k string) string {
	if r.path == "" {
		return k
	}
	return r.path + "." + k
}

// has reports whether k is present and not null.
func (r record) has(k string) bool { v, ok := r.m[k]; return ok && v != nil }

// object is the object at k (required).
func (r record) object(k string) (record, error) {
	v, ok := r.m[k].(map[string]any)
	if !ok {
		return record{}, shapeError(r.api, r.name(k), want("an object", r.m[k]))
	}
	return record{api: r.api, path: r.name(k), m: v}, nil
}

// objects is the array of objects at k (required; may be empty).
func (r record) objects(k string) ([]record, error) {
	a, ok := r.m[k].([]any)
	if !ok {
		return nil, shapeError(r.api, r.name(k), want("an array", r.m[k]))
	}
	out := make([]record, len(a))
	for i, v := range a {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, shapeError(r.api, fmt.Sprintf("%s[%d]", r.name(k), i), want("an object", v))
		}
		out[i] = record{api: r.api, path: fmt.Sprintf("%s[%d]", r.name(k), i), m: m}
	}
	return out, nil
}

// scalar is the text of a string, number or boolean at k; "" when absent
// or null; an error for an object or an array.
func (r record) scalar(k string) (string, error) {
	switch v := r.m[k].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case json.Number:
		return v.String(), nil
	case bool:
		if v {
			return "true", nil
		}
		return "false", nil
	default:
		return "", shapeError(r.api, r.name(k), want("a string or number", v))
	}
}

// required is scalar for a field that must be present.
func (r record) required(k string) (string, error) {
	if !r.has(k) {
		return "", shapeError(r.api, r.name(k), "is missing")
	}
	return r.scalar(k)
}

// integer is the whole number at k (required).
func (r record) integer(k string) (int64, error) {
	n, ok := r.m[k].(json.Number)
	if ok {
		if i, err := n.Int64(); err == nil {
			return i, nil
		}
	}
	return 0, shapeError(r.api, r.name(k), want("an integer", r.m[k]))
}

// want describes what was expected and what came.
func want(what string, got any) string {
	var kind string
	switch got.(type) {
	case nil:
		kind = "nothing (missing or null)"
	case string:
		kind = "a string"
	case json.Number:
		kind = "a number"
	case bool:
		kind = "a boolean"
	case []any:
		kind = "an array"
	case map[string]any:
		kind = "an object"
	}
	return "should be " + what + ", got " + kind
}

// table turns rows (column → text) into a header and records: the fixed
// columns first, then the extra ones (tags) sorted.
func table(fixed []string, rows []map[string]string) ([]string, [][]string) {
	known := map[string]bool{}
	for _, c := range fixed {
		known[c] = true
	}
	extra := map[string]bool{}
	for _, r := range rows {
		for c := range r {
			if !known[c] {
				extra[c] = true
			}
		}
	}
	header := append([]string(nil), fixed...)
	var ex []string
	for c := range extra {
		ex = append(ex, c)
	}
	sort.Strings(ex)
	header = append(header, ex...)
	out := make([][]string, len(rows))
	for i, r := range rows {
		rec := make([]string, len(header))
		for j, c := range header {
			rec[j] = r[c]
		}
		out[i] = rec
	}
	return header, out
}

// envelope decodes a JSON response and its envelope object (Response,
// ResponseMetadata): ae is the error the envelope carries ({Error: {Code,
// Message}}), nil when it carries none. A body that is no JSON object is
// a retryable error on 429 and 5xx, else a shape error naming api.
func envelope(api string, status int, b []byte, name string) (top, env record, ae *apiError, err error) {
	top, err = decodeObject(api, b)
	if err != nil {
		if status == http.StatusTooManyRequests || status >= 500 {
			return record{}, record{}, nil, &apiError{status: status, code: strconv.Itoa(status), message: http.StatusText(status), retry: true}
		}
		return record{}, record{}, nil, err
	}
	if env, err = top.object(name); err != nil {
		return record{}, record{}, nil, err
	}
	if !env.has("Error") {
		return top, env, nil, nil
	}
	e, err := env.object("Error")
	if err != nil {
		return record{}, record{}, nil, err
	}
	code, _ := e.scalar("Code")
	msg, _ := e.scalar("Message")
	return top, env, &apiError{status: status, code: code, message: msg}, nil
}

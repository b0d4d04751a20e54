package reports

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestJSONObjectEqualsWriteJSON: an object written member by member is
// byte for byte what writeJSON writes of the same object whole, for
// members of every shape: text with HTML and line separators, nested
// objects and arrays, empty and nil arrays, and arrays long enough to be
// written in several pieces.
func TestJSONObjectEqualsWriteJSON(t *testing.T) {
	type inner struct {
		Name  string   `json:"name"`
		Tags  []string `json:"tags"`
		Score *string  `json:"score"`
		Skip  string   `json:"skip,omitempty"`
	}
	type whole struct {
		Month  string         `json:"month"`
		Items  []inner        `json:"items"`
		Empty  []inner        `json:"empty"`
		Nil    []inner        `json:"nil"`
		Counts map[string]int `json:"counts"`
		Nums   []int          `json:"nums"`
	}
	score := "1.50"
	for _, n := range []int{0, 1, 3, 2000} {
		items := []inner{} // array writes [] for none, as for an empty slice (never null)
		for i := range n {
			it := inner{Name: fmt.Sprintf("<实例 %d> & \u2028 \"q\"", i), Tags: []string{}}
			if i%3 == 0 {
				it.Tags, it.Score = []string{"a", "b<c>"}, &score
			}
			if i%5 == 0 {
				it.Skip = "x"
			}
			items = append(items, it)
		}
		v := whole{Month: "2026-10", Items: items, Empty: []inner{}, Counts: map[string]int{"b": 2, "a": 1}, Nums: []int{1, 2}}
		var want bytes.Buffer
		if err := writeJSON(&want, v); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		o := newJSONObject(&got)
		o.member("month", v.Month)
		o.array("items", len(v.Items), func(i int) any { return v.Items[i] })
		o.array("empty", 0, nil)
		o.member("nil", v.Nil)
		o.member("counts", v.Counts)
		o.array("nums", len(v.Nums), func(i int) any { return v.Nums[i] })
		if err := o.end(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%d items: streamed JSON differs from the whole:\n%s\nwant\n%s", n, head(got.String()), head(want.String()))
		}
		if n == 2000 && want.Len() < 2*jsonStreamFlush {
			t.Fatalf("2000 items are %d bytes: too few to be written in pieces", want.Len())
		}
	}
	var got bytes.Buffer
	if err := newJSONObject(&got).end(); err != nil || got.String() != "{}\n" {
		t.Fatalf("no members: %q, %v", got.String(), err)
	}
}

// TestJSONObjectStopsAtWriteError: the first write error ends the writing
// and is what end returns; nothing is asked for after it.
func TestJSONObjectStopsAtWriteError(t *testing.T) {
	bad := errors.New("disk full")
	w := &failingWriter{after: 1, err: bad}
	o := newJSONObject(w)
	asked := 0
	o.array("items", 100000, func(i int) any { asked++; return strings.Repeat("x", 100) })
	if err := o.end(); !errors.Is(err, bad) {
		t.Fatalf("end: %v, want %v", err, bad)
	}
	if w.writes != 2 || asked > 2*jsonStreamFlush/100 {
		t.Fatalf("%d writes and %d elements asked after the error", w.writes, asked)
	}
}

type failingWriter struct {
	after, writes int
	err           error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes > w.after {
		return 0, w.err
	}
	return len(p), nil
}

func head(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

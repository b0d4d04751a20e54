package ingest

import "strings"

// textMemo caches f, a pure function of up to three texts of a row (a kind
// from the billing item and product, a pricing model, a GPU model from the
// instance type …). Such texts repeat on nearly every row of a bill, and
// the functions behind them run regular expressions: on a 阿里云 detail
// bill, classifying each row's kind took 63% of the import's CPU before it
// was cached. It stops growing at memoMax entries; the texts it keeps are
// copies, not pieces of a row.
type textMemo[V any] struct {
	f func(a, b, c string) V
	m map[[3]string]V
}

func newTextMemo[V any](f func(a, b, c string) V) *textMemo[V] {
	return &textMemo[V]{f: f, m: map[[3]string]V{}}
}

func (m *textMemo[V]) get(a, b, c string) V {
	k := [3]string{a, b, c}
	if v, ok := m.m[k]; ok {
		return v
	}
	v := m.f(a, b, c)
	if len(m.m) < memoMax {
		m.m[[3]string{strings.Clone(a), strings.Clone(b), strings.Clone(c)}] = v
	}
	return v
}

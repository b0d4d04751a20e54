package ledger

import (
	"unsafe"

	"github.com/shopspring/decimal"
)

// RowShare turns the columns of the rows of one reader (LoadLineItems'
// loaders, the reports' narrow scans) into strings and amounts without an
// allocation for a value seen before: a month repeats its providers,
// units, models and prices on most rows, and an amount is a *big.Int to
// build and then to collect. A decimal.Decimal is immutable, so sharing one
// is safe. A RowShare belongs to one goroutine.
type RowShare struct {
	strs  map[string]string
	decs  *[amountSlots]sharedAmount
	last  []string // the text of each column in the row before
	texts textArena
}

// amountSlots is the size of RowShare's amount table: direct-mapped by a
// hash of the text, so that a look-up costs a hash and one comparison. A
// map of every amount seen (up to rowShareMax) cost 0.36 s of CPU in the
// audit of a 288k-item month with 300k items of context, mostly missing:
// billed costs are many and distinct, while what repeats (unit prices,
// quantities, the billed cost of a fixed-price hour) is few values, which
// a small table holds.
const amountSlots = 1 << 10

// sharedAmount is a slot of the amount table.
type sharedAmount struct {
	text string
	d    decimal.Decimal
}

// rowShareMax bounds each table (past it, new values get their own copy):
// the tables stay small whatever the ledger holds.
const rowShareMax = 1 << 16

// NewRowShare is a RowShare for rows of the given number of columns.
func NewRowShare(columns int) *RowShare {
	return &RowShare{strs: map[string]string{}, decs: new([amountSlots]sharedAmount), last: make([]string, columns)}
}

// Text is column i of r as a string ("" for NULL).
func (s *RowShare) Text(r Row, i int) string { return s.TextOf(i, r.Bytes(i)) }

// TextOf is Text of column i, whose text b the caller has fetched.
func (s *RowShare) TextOf(i int, b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if string(b) == s.last[i] { // most columns repeat the row before
		return s.last[i]
	}
	v, ok := s.strs[string(b)]
	if !ok {
		v = string(b)
		if len(s.strs) < rowShareMax {
			s.strs[v] = v
		}
	}
	s.last[i] = v
	return v
}

// Amount is column i of r as a stored amount (Row.Decimal: not Valid for
// NULL).
func (s *RowShare) Amount(r Row, i int) (decimal.NullDecimal, error) {
	return s.AmountOf(r, i, r.Bytes(i))
}

// AmountOf is Amount of column i, whose text b the caller has fetched.
func (s *RowShare) AmountOf(r Row, i int, b []byte) (decimal.NullDecimal, error) {
	if len(b) == 0 {
		return r.decimalOf(i, b) // NULL, or an empty text: an error
	}
	h := uint32(2166136261) // FNV-1a
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &s.decs[h%amountSlots]
	if slot.text == string(b) {
		return decimal.NullDecimal{Decimal: slot.d, Valid: true}, nil
	}
	d, err := r.decimalOf(i, b)
	if d.Valid {
		slot.text, slot.d = s.texts.String(b), d.Decimal
	}
	return d, err
}

// Own is b as a string of its own, for a text that rarely repeats (a row
// key): copied into a shared allocation, not one of its own.
func (s *RowShare) Own(b []byte) string { return s.texts.String(b) }

// textArena makes strings of bytes appended to it, many to an allocation:
// a string per row (a row key; the text of a billed cost, which rarely
// repeats) was an allocation per row, 1M of them for a million-item month.
// The bytes are never written again once a string points at them: later
// appends write past them, or into a new array (growing one would copy
// what strings already point at). LineItemRows renders into one too.
type textArena struct{ buf []byte }

// textArenaChunk is the size of one allocation of a RowShare's textArena.
const textArenaChunk = 64 << 10

// reserve makes room for n more bytes, starting a new array of at least
// chunk bytes when the current one is full, and returns where they start
// (for take).
func (a *textArena) reserve(n, chunk int) int {
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]byte, 0, max(chunk, n))
	}
	return len(a.buf)
}

// take returns the bytes appended since start (reserve) as a string.
func (a *textArena) take(start int) string {
	if len(a.buf) == start {
		return ""
	}
	return unsafe.String(&a.buf[start], len(a.buf)-start)
}

// String is b copied into the arena.
func (a *textArena) String(b []byte) string {
	start := a.reserve(len(b), textArenaChunk)
	a.buf = append(a.buf, b...)
	return a.take(start)
}

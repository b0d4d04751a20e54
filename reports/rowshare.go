package reports

import (
	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

// rowShare turns the columns of the rows of one scan (ledger.ScanLineItems)
// into strings and amounts without an allocation for a value seen before:
// a month repeats its providers, units, models and prices on most rows,
// and an amount is a *big.Int to build and then to collect. It is what
// ledger's loader does for LoadLineItems, for the narrow scans of reports.
// A decimal.Decimal is immutable, so sharing one is safe.
type rowShare struct {
	strs map[string]string
	decs map[string]decimal.Decimal
	last []string // the text of each column in the row before
}

// rowShareMax bounds each table (past it, new values get their own copy):
// the tables stay small whatever the ledger holds.
const rowShareMax = 1 << 16

func newRowShare(columns int) *rowShare {
	return &rowShare{strs: map[string]string{}, decs: map[string]decimal.Decimal{}, last: make([]string, columns)}
}

// text is column i of r as a string ("" for NULL).
func (s *rowShare) text(r ledger.Row, i int) string { return s.textOf(i, r.Bytes(i)) }

// textOf is text of column i, whose text b the caller has fetched.
func (s *rowShare) textOf(i int, b []byte) string {
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

// amount is column i of r as a stored amount (ledger.Row.Decimal: not Valid
// for NULL).
func (s *rowShare) amount(r ledger.Row, i int) (decimal.NullDecimal, error) {
	return s.amountOf(r, i, r.Bytes(i))
}

// amountOf is amount of column i, whose text b the caller has fetched.
func (s *rowShare) amountOf(r ledger.Row, i int, b []byte) (decimal.NullDecimal, error) {
	if d, ok := s.decs[string(b)]; ok {
		return decimal.NullDecimal{Decimal: d, Valid: true}, nil
	}
	d, err := r.DecimalOf(i, b)
	if d.Valid && len(s.decs) < rowShareMax {
		s.decs[string(b)] = d.Decimal
	}
	return d, err
}

package money

import (
	"bytes"
	"strconv"

	"github.com/shopspring/decimal"
)

// String renders an amount exactly, keeping the precision it was read
// with: "416.00" stays "416.00" (decimal.Decimal.String would print "416"),
// and a sum keeps the finest precision of its terms. It is how money is
// stored and how exact output (JSON, CSV) writes it.
func String(d decimal.Decimal) string {
	return string(Append(make([]byte, 0, 24), d))
}

// Append appends d as String renders it.
func Append(b []byte, d decimal.Decimal) []byte {
	e := d.Exponent()
	if e > 0 {
		return append(b, d.String()...)
	}
	// Fast path, without math/big: almost every amount has a coefficient of
	// at most 18 digits (an int64). It is on the import's hot path.
	if e >= -40 && d.NumDigits() <= 18 {
		return appendScaled(b, d.CoefficientInt64(), int(-e))
	}
	return append(b, d.StringFixed(-e)...)
}

// Canonical renders an amount's value without its precision: the same
// text as decimal.Decimal.String ("1.50" and "1.5" both give "1.5"),
// without math/big on the usual path. Dedupe keys hash it.
func Canonical(d decimal.Decimal) string {
	return string(AppendCanonical(nil, d))
}

// AppendCanonical appends d as Canonical renders it.
func AppendCanonical(b []byte, d decimal.Decimal) []byte {
	start := len(b)
	b = Append(b, d)
	if d.Exponent() >= 0 || bytes.IndexByte(b[start:], '.') < 0 {
		return b
	}
	b = bytes.TrimRight(b, "0") // stops at the '.'
	if b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	if string(b[start:]) == "-0" {
		b = append(b[:start], '0')
	}
	return b
}

// appendScaled appends c × 10^-scale with exactly scale decimals.
func appendScaled(b []byte, c int64, scale int) []byte {
	var digits [20]byte
	u := uint64(c)
	if c < 0 {
		u = -u
		b = append(b, '-')
	}
	ds := strconv.AppendUint(digits[:0], u, 10)
	if c == 0 && len(b) > 0 && b[len(b)-1] == '-' {
		b = b[:len(b)-1]
	}
	if scale == 0 {
		return append(b, ds...)
	}
	if len(ds) <= scale { // 0.000ddd
		b = append(b, '0', '.')
		for i := len(ds); i < scale; i++ {
			b = append(b, '0')
		}
		return append(b, ds...)
	}
	b = append(b, ds[:len(ds)-scale]...)
	b = append(b, '.')
	return append(b, ds[len(ds)-scale:]...)
}

package money

import (
	"math"

	"github.com/shopspring/decimal"
)

// Sum adds amounts exactly, as decimal.Decimal.Add does (the sum has
// the finest precision of its terms, and never a coarser one than units),
// in an int64 while the sum fits one at that precision, then in
// decimal.Decimal: summing a month of line items allocates nothing a term.
//
// The zero value is an empty sum (0).
type Sum struct {
	small int64 // the sum × 10^-exp, while big is nil
	exp   int32 // ≤ 0
	big   *decimal.Decimal
}

// pow10 are the powers of ten an int64 holds.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// Add adds d: in the int64 while d has at most 18 digits and no positive
// exponent and the sum fits.
func (s *Sum) Add(d decimal.Decimal) {
	if e := d.Exponent(); s.big == nil && e <= 0 && e >= -18 && d.NumDigits() <= 18 && s.addSmall(d.CoefficientInt64(), e) {
		return
	}
	s.toBig()
	*s.big = s.big.Add(d)
}

// AddSum adds the sum o (a term parsed once, added to several sums).
func (s *Sum) AddSum(o *Sum) {
	if o.big == nil && s.big == nil && s.addSmall(o.small, o.exp) {
		return
	}
	s.Add(o.Decimal())
}

// Decimal is the sum.
func (s *Sum) Decimal() decimal.Decimal {
	if s.big != nil {
		return *s.big
	}
	return decimal.New(s.small, s.exp)
}

// addSmall adds c × 10^e to the int64 sum; false (and nothing added) when
// the result would not fit.
func (s *Sum) addSmall(c int64, e int32) bool {
	small, exp := s.small, s.exp
	if e < exp { // the term is finer: rescale the sum
		k := exp - e
		if k > 18 || !mulFits(small, pow10[k]) {
			return false
		}
		small, exp = small*pow10[k], e
	} else if e > exp { // the sum is finer: rescale the term
		k := e - exp
		if k > 18 || !mulFits(c, pow10[k]) {
			return false
		}
		c *= pow10[k]
	}
	if (c > 0 && small > math.MaxInt64-c) || (c < 0 && small < math.MinInt64-c) {
		return false
	}
	s.small, s.exp = small+c, exp
	return true
}

// toBig moves the sum to decimal.Decimal.
func (s *Sum) toBig() {
	if s.big == nil {
		d := decimal.New(s.small, s.exp)
		s.big = &d
	}
}

// mulFits reports whether a×m fits an int64 (m > 0).
func mulFits(a, m int64) bool {
	if a >= 0 {
		return a <= math.MaxInt64/m
	}
	return a >= math.MinInt64/m
}

// parseSmall reads a plain decimal ("-12.345") of at most 18 digits as
// coefficient and exponent; false for anything else (left to decimal).
func parseSmall[T string | []byte](b T) (c int64, e int32, ok bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	digits, frac, dot := 0, 0, false
	for ; i < len(b); i++ {
		switch ch := b[i]; {
		case ch >= '0' && ch <= '9':
			if digits == 18 {
				return 0, 0, false
			}
			c = c*10 + int64(ch-'0')
			digits++
			if dot {
				frac++
			}
		case ch == '.' && !dot:
			dot = true
		default:
			return 0, 0, false
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	if neg {
		c = -c
	}
	return c, int32(-frac), true
}

// Small reads a plain decimal text ("-12.345", at most 18 digits) as
// decimal.NewFromString does (the same coefficient and exponent) without
// math/big; false for anything else, which is left to
// decimal.NewFromString. FuzzDecimalString compares the two.
func Small[T string | []byte](text T) (decimal.Decimal, bool) {
	c, e, ok := parseSmall(text)
	if !ok {
		return decimal.Decimal{}, false
	}
	return decimal.New(c, e), true
}

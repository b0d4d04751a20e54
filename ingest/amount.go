package ingest

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gpubill/gpubill/money"
	"github.com/shopspring/decimal"
)

// maxAmountLen bounds the text ParseAmount accepts (after trimming): no bill
// writes a 100-character number, and the bound keeps a hostile cell from
// building a huge decimal.
const maxAmountLen = 100

// maxAmountExp bounds a written exponent ("1e-3"): FOCUS files may use
// exponents, but none near this size; larger ones would build huge numbers.
const maxAmountExp = 60

// ParseAmount turns vendor number text into an exact decimal. It is the only
// place where bill numbers become decimals.
//
// It accepts an optional sign (+ or -), or parentheses for a negative amount
// ("(1.20)" = -1.20; a sign inside them, "(-1.20)", is refused); a ¥ or ￥ sign before the number (also after a sign);
// a 元 suffix; thousands separators in groups of three ("1,234.56"); a plain
// exponent ("1e-3", "2.5E+2", at most e±60; FOCUS files may write them);
// full-width digits; and spaces or tabs around any of these. The empty text,
// "-", "--", "—", "NULL" and "N/A" (any case)
// mean an unknown amount (Valid false, error nil). The source precision is
// kept: nothing is rounded. Anything else is an error quoting the text.
func ParseAmount(s string) (decimal.NullDecimal, error) {
	t := trimCell(s)
	if isUnknownText(t) {
		return decimal.NullDecimal{}, nil
	}
	if fastDecimal(t) {
		if d, ok := money.Small(t); ok {
			return decimal.NullDecimal{Decimal: d, Valid: true}, nil
		}
		d, err := decimal.NewFromString(t)
		if err != nil {
			return decimal.NullDecimal{}, fmt.Errorf("%q is not an amount", s)
		}
		return decimal.NullDecimal{Decimal: d, Valid: true}, nil
	}
	clean, ok := cleanAmount(t)
	if !ok {
		return decimal.NullDecimal{}, fmt.Errorf("%q is not an amount", s)
	}
	d, err := decimal.NewFromString(clean)
	if err != nil {
		return decimal.NullDecimal{}, fmt.Errorf("%q is not an amount", s)
	}
	return decimal.NullDecimal{Decimal: d, Valid: true}, nil
}

// trimCell removes the white space that exports put around cells: ASCII
// space and tab, CR/LF, no-break space, ideographic space and a stray BOM.
func trimCell(s string) string {
	// Most cells start and end with a printable ASCII byte: nothing to trim
	// (strings.Trim with a non-ASCII cutset is dear on the hot path).
	if n := len(s); n == 0 || (s[0] > ' ' && s[0] < 0x80 && s[n-1] > ' ' && s[n-1] < 0x80) {
		return s
	}
	// Chinese cells (恒源云, 按量, 小时) start or end with a non-ASCII
	// character: look at the two end runes before trimming.
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	if !isCellSpace(first) && !isCellSpace(last) {
		return s
	}
	return strings.TrimFunc(s, isCellSpace)
}

// isCellSpace reports whether trimCell removes r.
func isCellSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\r', '\n', '\u00a0', '\u3000', '\ufeff':
		return true
	}
	return false
}

// isUnknownText reports whether an (already trimmed) cell means "no value".
func isUnknownText(t string) bool {
	switch t {
	case "", "-", "--", "—":
		return true
	}
	if len(t) <= 4 {
		switch strings.ToLower(t) {
		case "null", "n/a":
			return true
		}
	}
	return false
}

// fastDecimal reports whether t is a plain decimal ("-12.5", "3", "0.00107")
// that decimal.NewFromString reads as it is: an optional leading minus,
// digits with at most one dot, and a digit on at least one side of it. It is
// the hot path for machine-written bills.
func fastDecimal(t string) bool {
	if len(t) == 0 || len(t) > maxAmountLen {
		return false
	}
	i := 0
	if t[0] == '-' {
		i = 1
	}
	digits, dots := 0, 0
	for ; i < len(t); i++ {
		switch c := t[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return false
		}
	}
	return digits > 0 && dots <= 1
}

// cleanAmount validates the general amount grammar and returns the text that
// decimal.NewFromString should read.
func cleanAmount(t string) (string, bool) {
	t = narrowDigits(t)
	neg, paren := false, false
	// Parentheses: accounting notation for a negative amount.
	if strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") {
		t = trimCell(t[1 : len(t)-1])
		neg, paren = true, true
	}
	t = trimCell(strings.TrimSuffix(t, "元"))
	signed := false
	sign := func() {
		if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
			signed = true
		}
		if strings.HasPrefix(t, "-") {
			neg = !neg
			t = trimCell(t[1:])
		} else if strings.HasPrefix(t, "+") {
			t = trimCell(t[1:])
		}
	}
	sign()
	for _, sym := range []string{"¥", "￥"} {
		if strings.HasPrefix(t, sym) {
			t = trimCell(t[len(sym):])
			sign() // "¥-1.20"
			break
		}
	}
	// "(-1.20)" is no amount: a sign inside accounting parentheses says
	// neither plainly negative nor positive, and two negations read +1.20.
	if t == "" || len(t) > maxAmountLen || (paren && signed) {
		return "", false
	}
	mant, exp, hasExp := t, "", false
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		mant, exp, hasExp = t[:i], t[i+1:], true
	}
	intPart, frac, hasDot := strings.Cut(mant, ".")
	if strings.Contains(frac, ".") {
		return "", false
	}
	// Integer part: plain digits, or 1-3 digits then groups of ",ddd".
	intDigits, ok := groupedDigits(intPart)
	if !ok {
		return "", false
	}
	for i := 0; i < len(frac); i++ {
		if frac[i] < '0' || frac[i] > '9' {
			return "", false
		}
	}
	if intDigits == "" && frac == "" {
		return "", false
	}
	if hasDot && intDigits == "" {
		intDigits = "0"
	}
	var b strings.Builder
	b.Grow(len(t) + 2)
	if neg {
		b.WriteByte('-')
	}
	b.WriteString(intDigits)
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	if hasExp {
		e := exp
		if strings.HasPrefix(e, "+") || strings.HasPrefix(e, "-") {
			e = e[1:]
		}
		if e == "" || len(e) > 2 {
			return "", false
		}
		n := 0
		for i := 0; i < len(e); i++ {
			if e[i] < '0' || e[i] > '9' {
				return "", false
			}
			n = n*10 + int(e[i]-'0')
		}
		if n > maxAmountExp {
			return "", false
		}
		b.WriteByte('e')
		if strings.HasPrefix(exp, "-") {
			b.WriteByte('-')
		}
		b.WriteString(e)
	}
	return b.String(), true
}

// groupedDigits checks an integer part written with or without thousands
// separators and returns its digits.
func groupedDigits(s string) (string, bool) {
	if !strings.Contains(s, ",") {
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return "", false
			}
		}
		return s, true
	}
	groups := strings.Split(s, ",")
	var b strings.Builder
	for i, g := range groups {
		if (i == 0 && (len(g) < 1 || len(g) > 3)) || (i > 0 && len(g) != 3) {
			return "", false
		}
		for j := 0; j < len(g); j++ {
			if g[j] < '0' || g[j] > '9' {
				return "", false
			}
		}
		b.WriteString(g)
	}
	return b.String(), true
}

// narrowDigits turns full-width digits, signs, dot and comma into ASCII.
func narrowDigits(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= '＋' && r <= '９' }) {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= '０' && r <= '９':
			return '0' + (r - '０')
		case r == '．':
			return '.'
		case r == '，':
			return ','
		case r == '－':
			return '-'
		case r == '＋':
			return '+'
		}
		return r
	}, s)
}

// amountMemo remembers the amounts parsed last, by their text: a bill
// repeats its texts (a row's 原价, 应付金额 and 现金支付 are often the same
// number; unit prices recur on most rows), and building a decimal (a
// *big.Int) was most of ParseAmount. A decimal.Decimal is immutable, so
// rows may share one. Direct-mapped: a slot holds the last text that
// hashed to it.
type amountMemo struct {
	slots [256]struct {
		text string
		d    decimal.NullDecimal
	}
}

// parse is ParseAmount(s), from the memo when s was parsed before.
func (m *amountMemo) parse(s string) (decimal.NullDecimal, error) {
	if len(s) == 0 || len(s) > 32 {
		return ParseAmount(s)
	}
	h := uint8(len(s))
	for i := 0; i < len(s); i++ {
		h = h*31 + s[i]
	}
	slot := &m.slots[h]
	if slot.text == s {
		return slot.d, nil
	}
	d, err := ParseAmount(s)
	if err == nil {
		slot.text, slot.d = s, d
	}
	return d, err
}

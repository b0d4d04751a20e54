package reports

import (
	"strings"
	"time"

	"github.com/gpubill/gpubill/money"
	"github.com/shopspring/decimal"
)

// This file is the only place that rounds money (and ratios) for display.
//
// Rounding rule: decimal.Round, i.e. half away from zero (1.005 → 1.01,
// −1.005 → −1.01), to the currency's minor unit (2 decimals; 0 for JPY and
// KRW). Banker's rounding was rejected: users compare our figures with the
// vendors' consoles, which round half up.

// unknownDisplay is how a human format shows an unknown amount.
const unknownDisplay = "-"

// minorDigits is the number of decimals a currency is shown with.
func minorDigits(currency string) int32 {
	switch strings.ToUpper(currency) {
	case "JPY", "KRW", "VND", "IDR":
		return 0
	}
	return 2
}

// FormatMoney renders an amount. exact gives the decimal string at source
// precision (for JSON, CSV, TSV: users re-sum those); otherwise the amount is
// rounded half away from zero to the currency's minor unit and its integer
// part grouped by thousands ("1,234.57"). The currency itself is not
// written: every report shows it in its own column.
func FormatMoney(d decimal.Decimal, currency string, exact bool) string {
	if exact {
		return money.String(d)
	}
	places := minorDigits(currency)
	s := RoundMoney(d, currency).StringFixed(places)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if neg && strings.Trim(s, "0.") != "" { // never print "-0.00"
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// RoundMoney is d at the currency's minor unit (the fen for CNY), rounded
// half away from zero: the figure every human format prints. Documents that
// must foot (the packet) round each line once with it and add the rounded
// figures.
func RoundMoney(d decimal.Decimal, currency string) decimal.Decimal {
	places := minorDigits(currency)
	return d.Round(places)
}

// MinorUnitPlaces is the number of decimals of the currency's minor unit
// (2; 0 for JPY, KRW, VND, IDR).
func MinorUnitPlaces(currency string) int32 { return minorDigits(currency) }

// FormatNullMoney renders an optional amount: unknown is "-" in human
// formats and "" (an empty cell) in exact ones.
func FormatNullMoney(d decimal.NullDecimal, currency string, exact bool) string {
	if !d.Valid {
		if exact {
			return ""
		}
		return unknownDisplay
	}
	return FormatMoney(d.Decimal, currency, exact)
}

// jsonMoney renders an optional amount for JSON: its exact decimal string,
// or nil (null) when unknown.
func jsonMoney(d decimal.NullDecimal) *string {
	if !d.Valid {
		return nil
	}
	s := money.String(d.Decimal)
	return &s
}

// shareDigits is the precision of a share (a ratio) in JSON: 4 decimals,
// i.e. a hundredth of a percent.
const shareDigits = 4

// Share is part/whole rounded half away from zero to 4 decimals ("0.2345");
// unknown when whole is not positive (a month of only credits has no
// meaningful share).
func Share(part, whole decimal.Decimal) decimal.NullDecimal {
	if whole.Sign() <= 0 {
		return decimal.NullDecimal{}
	}
	return decimal.NullDecimal{Decimal: part.DivRound(whole, shareDigits), Valid: true}
}

// FormatShare renders a share: exact gives the 4-decimal ratio ("0.2345"),
// otherwise a percentage with 2 decimals ("23.45%"); unknown as for money.
func FormatShare(s decimal.NullDecimal, exact bool) string {
	if !s.Valid {
		if exact {
			return ""
		}
		return unknownDisplay
	}
	if exact {
		return s.Decimal.StringFixed(shareDigits)
	}
	return s.Decimal.Shift(2).Round(2).StringFixed(2) + "%"
}

// formatRFC3339 renders a time for JSON: RFC 3339 with the zone's offset;
// "" for the zero time.
func formatRFC3339(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format(time.RFC3339)
}

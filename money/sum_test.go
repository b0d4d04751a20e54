package money

import (
	"testing"

	"github.com/shopspring/decimal"
)

// checkSum adds terms with Sum (as decimals and as sums of one
// term) and with decimal.Decimal.Add from zero, and wants the same value
// and precision.
func checkSum(t *testing.T, terms []string) {
	t.Helper()
	var want decimal.Decimal
	var dec, sums Sum
	for _, s := range terms {
		d, err := decimal.NewFromString(s)
		if err != nil {
			return // not an amount: nothing to compare
		}
		want = want.Add(d)
		dec.Add(d)
		var term Sum
		term.Add(d)
		sums.AddSum(&term)
	}
	for _, got := range []decimal.Decimal{dec.Decimal(), sums.Decimal()} {
		if !got.Equal(want) || String(got) != String(want) {
			t.Fatalf("sum of %q = %s, want %s", terms, String(got), String(want))
		}
	}
}

func TestSumIsDecimalAdd(t *testing.T) {
	for _, terms := range [][]string{
		nil, {"0"}, {"416.00"}, {"1.5", "2.25", "-0.75"}, {"0.00107392473", "12", "-3.1"},
		{"-0.0"}, {"999999999999999999", "1"}, {"-999999999999999999", "-999999999999999999"},
		{"0.000000000000000001", "100000000"}, {"123456789012345678901234.5", "1"},
		{"9223372036854775807", "1"}, {".5", "+1"}, {"1e3", "0.5"}, {"-0.25"}, {"-0.1"}, {"2.5", "-2.50"},
		{"-123456789012345678901234.5"}, {"123456789012345678901234.5", "-123456789012345678901234.5"},
	} {
		checkSum(t, terms)
	}
}

func FuzzDecimalSum(f *testing.F) {
	f.Add("1.5", "-0.25", "999999999999999999")
	f.Add("0.00107392473", "1e3", "-0.0")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		checkSum(t, []string{a, b, c, a})
	})
}

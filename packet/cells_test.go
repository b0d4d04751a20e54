package packet

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// TestShownMoneyWidth checks the counted width against the string it
// stands for, on amounts at the fen and at other precisions.
func TestShownMoneyWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := []string{"0", "-0.01", "0.5", "9.99", "999.99", "1000", "-1000.5", "123456.78", "-99999999999.99",
		"1.005", "0.001", "12345678901234.56", "1e20", "-0.004", "7"}
	for range 20000 {
		d := decimal.New(rng.Int64N(2_000_000_000_000)-1_000_000_000_000, -rng.Int32N(4))
		cases = append(cases, d.String())
	}
	for _, c := range cases {
		d := decimal.RequireFromString(c)
		if got, want := shownMoneyWidth(d), len(shownMoney(d)); got != want {
			t.Fatalf("shownMoneyWidth(%s) = %d, want %d (%q)", c, got, want, shownMoney(d))
		}
	}
}

// TestNumber checks that a cell's number is d's own value, and that an
// amount with more digits than a double keeps is refused.
func TestNumber(t *testing.T) {
	for _, c := range []string{"0", "0.85", "-1234567.89", "46296.1438773148", "999999999999999", "0.000001"} {
		f, err := number(decimal.RequireFromString(c))
		if err != nil || decimal.NewFromFloat(f).String() != decimal.RequireFromString(c).String() {
			t.Errorf("number(%s) = %v, %v", c, f, err)
		}
	}
	for _, c := range []string{"1234567890123456.78", "0.12345678901234567"} {
		if _, err := number(decimal.RequireFromString(c)); err == nil {
			t.Errorf("number(%s): no error", c)
		}
	}
}

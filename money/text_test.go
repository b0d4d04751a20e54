package money

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func TestStringKeepsSourcePrecision(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"416.00", "416.00"}, {"-1.50", "-1.50"}, {"0.00107392473", "0.00107392473"}, {"3", "3"}, {"1e3", "1000"}, {"-0.0", "0.0"},
	} {
		if got := String(decimal.RequireFromString(tc.in)); got != tc.want {
			t.Errorf("String(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestAppendIsString(t *testing.T) {
	for _, s := range []string{"0", "-0.00", "416.00", "0.00107392473", "1e3", "-1.5", "123456789012345678.9",
		"12345678901234567890123.45", "0.0000000000000000000000000000000000000000001", "9.99e20"} {
		d := decimal.RequireFromString(s)
		if got, want := string(Append(nil, d)), String(d); got != want {
			t.Errorf("Append(%s) = %q, want %q", s, got, want)
		}
	}
}

// The fast paths of String and Small must agree with
// decimal's own rendering and parsing.
func FuzzDecimalString(f *testing.F) {
	for _, s := range []string{"0", "-0.00", "416.00", "-1.50", "0.00107392473", "1e3", "123456789012345678.9", "-99999999999999999999.5", "1E-40", "5e-41",
		"-999999999999999999", "9999999999999999999", "00012345678901234567.8", ".5", "5.", "+7.25", "-", "1.2.3", "--1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if small, ok := Small(s); ok {
			want, err := decimal.NewFromString(s)
			if err != nil || small.Exponent() != want.Exponent() || small.Cmp(want) != 0 || small.String() != want.String() {
				t.Fatalf("Small(%q) = %s (exponent %d), decimal.NewFromString: %s (exponent %d), %v",
					s, small, small.Exponent(), want, want.Exponent(), err)
			}
		} else if digits := strings.Count(s, "") - 1 - strings.Count(s, ".") - strings.Count(s, "-") - strings.Count(s, "+"); digits <= 18 && strings.Trim(s, "+-.0123456789") == "" &&
			strings.Count(s, ".") <= 1 && strings.LastIndexAny(s, "+-") <= 0 && digits > 0 {
			t.Fatalf("Small(%q) refused a plain decimal of %d digits", s, digits)
		}
		bs, bok := Small([]byte(s))
		if ss, sok := Small(s); bok != sok || bs.String() != ss.String() || bs.Exponent() != ss.Exponent() {
			t.Fatalf("Small(%q) differs between string and []byte", s)
		}
		d, err := decimal.NewFromString(s)
		if err != nil || d.Exponent() < -1000 || d.Exponent() > 1000 {
			return
		}
		got := String(d)
		want := d.String()
		if e := d.Exponent(); e < 0 {
			want = d.StringFixed(-e)
		}
		if got != want {
			t.Fatalf("String(%s) = %q, want %q", s, got, want)
		}
		if got, want := Canonical(d), d.String(); got != want {
			t.Fatalf("Canonical(%s) = %q, want %q", s, got, want)
		}
		if got, want := string(AppendCanonical([]byte("-0."), d)), "-0."+d.String(); got != want {
			t.Fatalf("AppendCanonical(-0., %s) = %q, want %q", s, got, want)
		}
	})
}

package billing

import (
	"testing"

	"github.com/shopspring/decimal"
)

// checkWholeSeconds compares WholeSeconds with the decimal arithmetic it
// stands for: where it answers, the answer is ⌊q × unit⌋.
func checkWholeSeconds(t *testing.T, u TimeUnit, q decimal.Decimal) bool {
	t.Helper()
	got, ok := u.WholeSeconds(q)
	if !ok {
		return false
	}
	want := u.Seconds(q)
	if !q.IsPositive() || !want.IsInteger() && !decimal.NewFromInt(got).Equal(want.Floor()) || want.IsInteger() && !decimal.NewFromInt(got).Equal(want) {
		t.Errorf("%s × %s: WholeSeconds = %d, want ⌊%s⌋", q, u.Name, got, want)
	}
	return true
}

func TestWholeSeconds(t *testing.T) {
	fast := 0
	for _, s := range []string{"1", "0.2", "0.0001", "12.5", "1.00000000", "999999999999", "0.000000000001", "3e6", "7e5",
		"123456789012", "1234567890123", "0.1234567890123", "1e7", "1e-13", "0", "-1", "-0.5", "2.75", "100000000000e1"} {
		for _, u := range []TimeUnit{UnitSecond, UnitMinute, UnitHour, UnitDay, UnitWeek} {
			if checkWholeSeconds(t, u, decimal.RequireFromString(s)) {
				fast++
			}
		}
	}
	// 11 of the quantities (positive, at most 12 digits, exponent -12 … 6)
	// take the int64 path, in each of the 5 units.
	if fast != 55 {
		t.Errorf("%d quantity × unit pairs took the int64 path, want 55", fast)
	}
	for _, s := range []string{"0", "-1", "1234567890123", "1e-13", "1e7"} {
		if _, ok := UnitHour.WholeSeconds(decimal.RequireFromString(s)); ok {
			t.Errorf("WholeSeconds(%s) answered; want the decimal path", s)
		}
	}
}

func FuzzWholeSeconds(f *testing.F) {
	for _, s := range []string{"1", "0.25", "1e6", "123456789012", "0.000000000001"} {
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, s string, unit uint8) {
		q, err := decimal.NewFromString(s)
		if err != nil {
			return
		}
		units := []TimeUnit{UnitSecond, UnitMinute, UnitHour, UnitDay, UnitWeek}
		checkWholeSeconds(t, units[int(unit)%len(units)], q)
	})
}

func TestParseTimeUnit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // "" = not a time unit
	}{
		{"小时", "hour"}, {"Hours", "hour"}, {" h ", "hour"}, {"分钟", "minute"}, {"秒", "second"},
		{"天", "day"}, {"week", "week"}, {"month", ""}, {"GB·天", ""}, {"GB-hours", ""}, {"次", ""}, {"", ""},
		// The names ingest stores, which skip the folding and trimming.
		{"hour", "hour"}, {"second", "second"}, {"minute", "minute"}, {"day", "day"}, {"Hour", "hour"}, {"hour ", "hour"},
	} {
		u, ok := ParseTimeUnit(tc.in)
		if got := u.Name; got != tc.want || ok != (tc.want != "") {
			t.Errorf("ParseTimeUnit(%q): got %q %v, want %q", tc.in, got, ok, tc.want)
		}
	}
}

package packet

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

var capitalCases = []struct {
	name string
	in   string
	want string
}{
	// the acceptance amounts of issue 6
	{"five fen", "0.05", "伍分"},
	{"ten yuan", "10.00", "壹拾元整"},
	{"zero inside, jiao", "1001.10", "壹仟零壹元壹角整"},
	{"one million", "1000000.00", "壹佰万元整"},
	// zeros
	{"zero", "0", "零元整"},
	{"zero with fen places", "0.00", "零元整"},
	{"ten thousand and one fen", "100000.01", "壹拾万元零壹分"},
	{"zero in the hundreds", "1010.00", "壹仟零壹拾元整"},
	{"jiao after round hundred", "100.50", "壹佰元伍角整"},
	{"zero tens and zero jiao", "105.05", "壹佰零伍元零伍分"},
	{"zero runs in both groups", "10010.01", "壹万零壹拾元零壹分"},
	{"two hundred million", "200000000.00", "贰亿元整"},
	{"yi, empty wan group", "1200000003.40", "壹拾贰亿零叁元肆角整"},
	{"wan digit zero, thousands not", "107000.53", "壹拾万零柒仟元伍角叁分"},
	{"PBoC example 1409.50", "1409.50", "壹仟肆佰零玖元伍角整"},
	{"PBoC example 6007.14", "6007.14", "陆仟零柒元壹角肆分"},
	{"PBoC example 16409.02", "16409.02", "壹万陆仟肆佰零玖元零贰分"},
	{"PBoC example 325.04", "325.04", "叁佰贰拾伍元零肆分"},
	{"one yi and one wan", "100010000", "壹亿零壹万元整"},
	{"one yi and one", "100000001", "壹亿零壹元整"},
	{"ten million and one thousand", "10001000", "壹仟万零壹仟元整"},
	{"jiao only", "0.50", "伍角整"},
	{"jiao and fen only", "0.55", "伍角伍分"},
	{"one yuan", "1", "壹元整"},
	{"eleven", "11", "壹拾壹元整"},
	{"every digit", "123456789.98", "壹亿贰仟叁佰肆拾伍万陆仟柒佰捌拾玖元玖角捌分"},
	{"largest", "999999999999.99", "玖仟玖佰玖拾玖亿玖仟玖佰玖拾玖万玖仟玖佰玖拾玖元玖角玖分"},
	{"one fen", "0.01", "壹分"},
	// rounding half up to the fen first
	{"rounds half up", "0.005", "壹分"},
	{"rounds down", "1.234", "壹元贰角叁分"},
	{"rounds up into yuan", "9.995", "壹拾元整"},
	{"source precision", "57.64000000", "伍拾柒元陆角肆分"},
	{"rounds to zero", "0.004", "零元整"},
	// negative
	{"negative", "-5", "负伍元整"},
	{"negative fen", "-0.05", "负伍分"},
	{"negative that rounds to zero", "-0.001", "零元整"},
}

func TestCapitalCNY(t *testing.T) {
	for _, tc := range capitalCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CapitalCNY(decimal.RequireFromString(tc.in))
			if err != nil {
				t.Fatalf("CapitalCNY(%s): got error %v, want %s", tc.in, err, tc.want)
			}
			if got != tc.want {
				t.Errorf("CapitalCNY(%s): got %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestCapitalCNYRange(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
	}{
		{"1e12", "1000000000000"},
		{"rounds up to 1e12", "999999999999.995"},
		{"negative 1e12", "-1000000000000"},
		{"huge", "1e30"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CapitalCNY(decimal.RequireFromString(tc.in))
			if !errors.Is(err, ErrCapitalRange) {
				t.Errorf("CapitalCNY(%s): got %q, %v; want ErrCapitalRange", tc.in, got, err)
			}
		})
	}
}

// FuzzCapitalCNY: never panics; an answer uses only the allowed characters,
// ends in 整 or 分, and has 负 only at the start of a negative amount.
func FuzzCapitalCNY(f *testing.F) {
	for _, tc := range capitalCases {
		f.Add(tc.in)
	}
	f.Add("1e11")
	f.Add("-999999999999.994")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := decimal.NewFromString(s)
		if err != nil || d.Exponent() < -60 || d.Exponent() > 60 {
			return
		}
		got, err := CapitalCNY(d)
		if err != nil {
			if !errors.Is(err, ErrCapitalRange) {
				t.Fatalf("CapitalCNY(%s): unexpected error %v", s, err)
			}
			return
		}
		for _, r := range got {
			if !strings.ContainsRune(CapitalAlphabet, r) {
				t.Fatalf("CapitalCNY(%s) = %s: character %q not allowed", s, got, r)
			}
		}
		if !strings.HasSuffix(got, "整") && !strings.HasSuffix(got, "分") {
			t.Fatalf("CapitalCNY(%s) = %s: want it to end in 整 or 分", s, got)
		}
		if i := strings.Index(got, "负"); i > 0 || (i == 0 && !d.IsNegative()) {
			t.Fatalf("CapitalCNY(%s) = %s: misplaced 负", s, got)
		}
		if strings.Contains(got, "零零") {
			t.Fatalf("CapitalCNY(%s) = %s: two zeros in a row", s, got)
		}
	})
}

package ingest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

var amountCases = []struct {
	name  string
	in    string
	want  string // canonical decimal; "" = unknown
	exp   int32  // exponent that must be kept (source precision), checked when nonzero
	isErr bool
}{
	{name: "plain", in: "1234.56", want: "1234.56"},
	{name: "integer", in: "3", want: "3"},
	{name: "yen sign with thousands", in: "¥1,234.56", want: "1234.56"},
	{name: "full-width yen sign", in: "￥1,234.56", want: "1234.56"},
	{name: "yuan suffix", in: "1234.56元", want: "1234.56"},
	{name: "yuan suffix with space", in: "1,234.56 元", want: "1234.56"},
	{name: "negative", in: "-1.2", want: "-1.2"},
	{name: "parentheses negative", in: "(1.20)", want: "-1.2", exp: -2},
	{name: "parentheses with yen", in: "(¥1,000.00)", want: "-1000"},
	{name: "plus sign", in: "+3", want: "3"},
	{name: "minus before yen", in: "-¥28.16", want: "-28.16"},
	{name: "minus after yen", in: "¥-28.16", want: "-28.16"},
	{name: "exponent", in: "1e-3", want: "0.001"},
	{name: "exponent with plus", in: "2.5E+2", want: "250"},
	{name: "spaces and tabs", in: " \t12.5\t ", want: "12.5"},
	{name: "focus eleven decimals", in: "0.00107392473", want: "0.00107392473", exp: -11},
	{name: "trailing zeros kept as precision", in: "0.00000080000", want: "0.0000008", exp: -11},
	{name: "leading dot", in: ".5", want: "0.5"},
	{name: "trailing dot", in: "5.", want: "5"},
	{name: "full-width digits", in: "１２３．４", want: "123.4"},
	{name: "many decimals kept", in: "0.123456789012345678901234567890", want: "0.12345678901234567890123456789", exp: -30},
	{name: "empty", in: "", want: ""},
	{name: "dash", in: "-", want: ""},
	{name: "double dash", in: "--", want: ""},
	{name: "NULL", in: "NULL", want: ""},
	{name: "null", in: "null", want: ""},
	{name: "N/A", in: "N/A", want: ""},
	{name: "spaces only", in: "   ", want: ""},
	{name: "letter O for zero", in: "12,3O", isErr: true},
	{name: "bad grouping", in: "12,3", isErr: true},
	// Two negations read +1.20: a sign inside parentheses is refused.
	{name: "minus inside parentheses", in: "(-1.20)", isErr: true},
	{name: "plus inside parentheses", in: "(+1.20)", isErr: true},
	{name: "minus after yen inside parentheses", in: "(¥-1.20)", isErr: true},
	{name: "bad grouping 2", in: "1,23.4", isErr: true},
	{name: "european decimal comma", in: "12,50", isErr: true},
	{name: "two dots", in: "1.2.3", isErr: true},
	{name: "words", in: "abc", isErr: true},
	{name: "dollar sign", in: "$5", isErr: true},
	{name: "only sign", in: "+", isErr: true},
	{name: "only yen", in: "¥", isErr: true},
	{name: "exponent without digits", in: "1e", isErr: true},
	{name: "huge exponent", in: "1e999", isErr: true},
	{name: "double minus", in: "--5", isErr: true},
	{name: "hex", in: "0x10", isErr: true},
	{name: "inf", in: "Inf", isErr: true},
	{name: "nan", in: "NaN", isErr: true},
	{name: "too long", in: strings.Repeat("9", 200), isErr: true},
	{name: "percent", in: "5%", isErr: true},
	{name: "inner space", in: "1 000", isErr: true},
}

func TestParseAmount(t *testing.T) {
	for _, tc := range amountCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseAmount(tc.in)
			if tc.isErr {
				if err == nil {
					t.Fatalf("ParseAmount(%q) = %v, want an error", tc.in, got)
				}
				if !strings.Contains(err.Error(), tc.in) {
					t.Errorf("error %q does not quote the text %q", err, tc.in)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseAmount(%q): %v", tc.in, err)
			}
			if tc.want == "" {
				if got.Valid {
					t.Fatalf("ParseAmount(%q) = %v, want unknown", tc.in, got.Decimal)
				}
				return
			}
			if !got.Valid {
				t.Fatalf("ParseAmount(%q) is unknown, want %s", tc.in, tc.want)
			}
			want := decimal.RequireFromString(tc.want)
			if !got.Decimal.Equal(want) {
				t.Errorf("ParseAmount(%q) = %s, want %s", tc.in, got.Decimal, want)
			}
			if tc.exp != 0 && got.Decimal.Exponent() != tc.exp {
				t.Errorf("ParseAmount(%q) exponent = %d, want %d (source precision)", tc.in, got.Decimal.Exponent(), tc.exp)
			}
		})
	}
}

// cellSpace is what trimCell removes, as a cutset for strings.Trim.
const cellSpace = " \t\r\n\u00a0\u3000\ufeff"

func TestTrimCellIsStringsTrim(t *testing.T) {
	for _, s := range []string{"", " ", "1.5", " 1.5\t", "恒源云", "\u3000恒源云\u3000", "按量 ", "\ufeff平台", "小时\r\n",
		"\u00a0", "a\u00a0", "\xff", "\xff ", " \xe3\x80", "\xe3\x80\x80x", "x\xe3\x80\x80", "GPU计算", "\u3000\u3000"} {
		if got, want := trimCell(s), strings.Trim(s, cellSpace); got != want {
			t.Errorf("trimCell(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzParseAmount(f *testing.F) {
	for _, tc := range amountCases {
		f.Add(tc.in)
	}
	f.Add("\u3000恒源云 ")
	f.Add("-999999999999999999")    // 18 digits: the int64 path
	f.Add("9999999999999999999")    // 19: past it
	f.Add("00012345678901234567.8") // leading zeros count as digits here
	f.Add(".5")
	f.Add("\xff\u00a0")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := trimCell(s), strings.Trim(s, cellSpace); got != want {
			t.Fatalf("trimCell(%q) = %q, want %q", s, got, want)
		}
		var m amountMemo
		checkMemo(t, &m, s, 0)
		checkMemo(t, &m, s, 1)
		got, err := ParseAmount(s)
		if err != nil {
			if got.Valid {
				t.Fatalf("ParseAmount(%q) returned a value with error %v", s, err)
			}
			return
		}
		if !got.Valid {
			return
		}
		back, err := decimal.NewFromString(got.Decimal.String())
		if err != nil {
			t.Fatalf("ParseAmount(%q) = %s does not parse back: %v", s, got.Decimal, err)
		}
		if !back.Equal(got.Decimal) {
			t.Fatalf("ParseAmount(%q) = %s, round trip gives %s", s, got.Decimal, back)
		}
		again, err := ParseAmount(got.Decimal.String())
		if err != nil || !again.Valid || !again.Decimal.Equal(got.Decimal) {
			t.Fatalf("ParseAmount(%q) = %s, but ParseAmount of that gives %v, %v", s, got.Decimal, again, err)
		}
	})
}

// The memo gives what ParseAmount gives, text by text, whatever it held
// before: the same value and precision, the same validity, the same error.
func TestAmountMemoIsParseAmount(t *testing.T) {
	var m amountMemo
	texts := []string{"1.50", "1.5", "1.50", "", "-", "x1", "x1", "0.9937", "0.9937", "(1.20)", "¥3", "1e-3", "1,234.56"}
	for _, tc := range amountCases {
		texts = append(texts, tc.in, tc.in)
	}
	for i := range 2000 { // every slot, and texts that share one
		texts = append(texts, fmt.Sprintf("%d.%02d", i%700, i%97))
	}
	for pass := range 2 {
		for _, s := range texts {
			checkMemo(t, &m, s, pass)
		}
	}
}

func checkMemo(t *testing.T, m *amountMemo, s string, pass int) {
	t.Helper()
	want, werr := ParseAmount(s)
	got, gerr := m.parse(s)
	if (gerr == nil) != (werr == nil) || got.Valid != want.Valid ||
		(got.Valid && (!got.Decimal.Equal(want.Decimal) || got.Decimal.Exponent() != want.Decimal.Exponent())) {
		t.Fatalf("pass %d: memo.parse(%q) = %v, %v; ParseAmount = %v, %v", pass, s, got, gerr, want, werr)
	}
}

// BenchmarkParseAmountDistinct parses amounts that a memo would not hold
// (billed costs of up to 8 decimals), through ParseAmount and, as it did
// before money.Small, through decimal.NewFromString.
func BenchmarkParseAmountDistinct(b *testing.B) {
	texts := make([]string, 4096)
	for i := range texts {
		texts[i] = strconv.FormatFloat(float64(i)*1.37+0.00000001*float64(i%97), 'f', 8, 64)
	}
	b.Run("ParseAmount", func(b *testing.B) {
		for i := range b.N {
			if _, err := ParseAmount(texts[i%len(texts)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("NewFromString", func(b *testing.B) {
		for i := range b.N {
			if _, err := decimal.NewFromString(texts[i%len(texts)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

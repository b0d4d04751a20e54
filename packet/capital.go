package packet

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// The Chinese capital numerals of an amount (大写金额), as written on
// invoices, cheques and reimbursement forms. The rules followed are those of
// the People's Bank of China, 《支付结算办法》 annex 1 《正确填写票据和结算凭证
// 的基本规定》 (see doc.go for the points and the choices where it allows two
// forms).

var (
	capitalDigits = []rune("零壹贰叁肆伍陆柒捌玖")
	// capitalPlaces are the units inside a group of four digits, from the
	// thousands down.
	capitalPlaces = []string{"仟", "佰", "拾", ""}
	// capitalGroups are the units of the groups of four digits, from the
	// lowest: 元 (ones), 万, 亿.
	capitalGroups = []string{"", "万", "亿"}
)

// capitalLimit is the first amount CapitalCNY refuses: 1e12 (a 万亿 has no
// standard unit on Chinese forms).
var capitalLimit = decimal.New(1, 12)

// CapitalAlphabet holds every character CapitalCNY may write.
const CapitalAlphabet = "零壹贰叁肆伍陆柒捌玖拾佰仟万亿元角分整负"

// ErrCapitalRange is returned for an amount of 1e12 or more (in absolute
// value, after rounding to the fen).
var ErrCapitalRange = errors.New("amount too large for Chinese capital numerals (limit 999,999,999,999.99)")

// CapitalCNY writes d in Chinese capital numerals (人民币大写), for example
// 1001.10 → 壹仟零壹元壹角整, 0.05 → 伍分, 100000.01 → 壹拾万元零壹分.
// The amount is first rounded half up (away from zero) to the fen. A
// negative amount is written with 负 in front (负伍元整), as spreadsheet
// functions and red-letter invoices do. Amounts of 1e12 or more are refused.
// The word 人民币 is not written: the form prints it before the field.
func CapitalCNY(d decimal.Decimal) (string, error) {
	d = d.Round(2)
	neg := d.IsNegative()
	if neg {
		d = d.Neg()
	}
	if d.Cmp(capitalLimit) >= 0 {
		return "", fmt.Errorf("%s: %w", d.StringFixed(2), ErrCapitalRange)
	}
	fen := d.Shift(2).IntPart() // < 1e14: fits an int64
	yuan, jiao, fenDigit := fen/100, (fen/10)%10, fen%10

	var b strings.Builder
	if neg && fen != 0 {
		b.WriteString("负")
	}
	if yuan > 0 {
		writeCapitalInteger(&b, yuan)
		b.WriteString("元")
	}
	switch {
	case jiao == 0 && fenDigit == 0:
		if yuan == 0 {
			b.WriteString("零元")
		}
		b.WriteString("整")
	case jiao == 0: // 角 is zero, 分 is not: 元 is followed by 零 (rule 4)
		if yuan > 0 {
			b.WriteRune(capitalDigits[0])
		}
		b.WriteRune(capitalDigits[fenDigit])
		b.WriteString("分")
	default:
		b.WriteRune(capitalDigits[jiao])
		b.WriteString("角")
		if fenDigit == 0 {
			b.WriteString("整")
		} else {
			b.WriteRune(capitalDigits[fenDigit])
			b.WriteString("分")
		}
	}
	return b.String(), nil
}

// writeCapitalInteger writes n (0 < n < 1e12) in capital numerals without
// the 元: the digits with their units, one 零 for every run of zeros that
// lies between two non-zero digits, and the group unit (万, 亿) after every
// group that is not all zeros.
func writeCapitalInteger(b *strings.Builder, n int64) {
	var groups []int64 // lowest first
	for n > 0 {
		groups = append(groups, n%10000)
		n /= 10000
	}
	started := false // a non-zero digit has been written
	zeros := false   // zeros seen since the last non-zero digit
	for g := len(groups) - 1; g >= 0; g-- {
		v := groups[g]
		for i, div := 0, int64(1000); i < 4; i, div = i+1, div/10 {
			digit := (v / div) % 10
			if digit == 0 {
				zeros = started
				continue
			}
			if zeros {
				b.WriteRune(capitalDigits[0])
				zeros = false
			}
			b.WriteRune(capitalDigits[digit])
			b.WriteString(capitalPlaces[i])
			started = true
		}
		if v != 0 {
			b.WriteString(capitalGroups[g])
		}
	}
}

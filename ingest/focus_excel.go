package ingest

import (
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// FOCUS files that went through Excel. Opened and saved again, a FOCUS CSV
// comes back with its amounts in Excel's currency format ("$10,100.00 ",
// "($1.20)") and its timestamps in the locale's short date (10/1/26 0:00).
// gpubill reads them, and says so in a warning that names the assumption:
// a $ amount is in the file's BillingCurrency, a date is US month/day/year
// with a two-digit year in 2000–2099, UTC; and Excel kept only the decimals
// it displayed, so the totals are those of the saved file, not of the
// original export. Files in FOCUS's own forms never reach this code.

// excelAmount reads an amount in Excel's currency format: an optional
// sign, $ or parentheses, thousands separators, spaces around.
func excelAmount(s string) (decimal.NullDecimal, bool) {
	t := strings.TrimSpace(strings.ReplaceAll(s, "\u00a0", " "))
	neg := false
	if strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") {
		neg, t = true, strings.TrimSpace(t[1:len(t)-1])
	}
	if strings.HasPrefix(t, "-") {
		neg, t = !neg, strings.TrimSpace(t[1:])
	}
	if !strings.HasPrefix(t, "$") {
		return decimal.NullDecimal{}, false
	}
	t = strings.TrimSpace(t[1:])
	if strings.HasPrefix(t, "-") {
		neg, t = !neg, t[1:]
	}
	d, err := ParseAmount(t)
	if err != nil || !d.Valid || d.Decimal.IsNegative() || strings.ContainsAny(t, "¥￥元eE") {
		return decimal.NullDecimal{}, false
	}
	if neg {
		d.Decimal = d.Decimal.Neg()
	}
	return d, true
}

// excelDate reads Excel's US short date and time: M/D/YY or M/D/YYYY,
// optionally followed by H:MM or H:MM:SS and AM/PM. The time is UTC.
func excelDate(s string) (time.Time, bool) {
	t := strings.Fields(strings.TrimSpace(s))
	if len(t) == 0 || len(t) > 3 {
		return time.Time{}, false
	}
	ymd := strings.Split(t[0], "/")
	if len(ymd) != 3 || (len(ymd[2]) != 2 && len(ymd[2]) != 4) {
		return time.Time{}, false
	}
	var n [3]int
	for i, p := range ymd {
		v, err := strconv.Atoi(p)
		if err != nil || len(p) == 0 || len(p) > 4 || v < 0 {
			return time.Time{}, false
		}
		n[i] = v
	}
	m, d, y := n[0], n[1], n[2]
	if len(ymd[2]) == 2 {
		y += 2000
	}
	if m < 1 || m > 12 || d < 1 || d > 31 || !billYear(y) {
		return time.Time{}, false
	}
	var hh, mm, ss int
	if len(t) >= 2 {
		hms := strings.Split(t[1], ":")
		if len(hms) < 2 || len(hms) > 3 {
			return time.Time{}, false
		}
		var v [3]int
		for i, p := range hms {
			x, err := strconv.Atoi(p)
			if err != nil || len(p) == 0 || len(p) > 2 || x < 0 {
				return time.Time{}, false
			}
			v[i] = x
		}
		hh, mm, ss = v[0], v[1], v[2]
		if len(t) == 3 {
			if hh < 1 || hh > 12 {
				return time.Time{}, false
			}
			switch strings.ToUpper(t[2]) {
			case "AM":
				if hh == 12 {
					hh = 0
				}
			case "PM":
				if hh < 12 {
					hh += 12
				}
			default:
				return time.Time{}, false
			}
			if hh > 23 {
				return time.Time{}, false
			}
		}
		if hh > 23 || mm > 59 || ss > 59 {
			return time.Time{}, false
		}
	}
	at := time.Date(y, time.Month(m), d, hh, mm, ss, 0, time.UTC)
	if at.Day() != d {
		return time.Time{}, false
	}
	return at, true
}

// focusExcel reads a FOCUS row's amounts and times, falling back to
// Excel's forms and warning once per form.
type focusExcel struct {
	env            *mapEnv
	amounts, dates bool // a warning was given
}

func (x *focusExcel) amount(c *rowCtx, i int) (decimal.NullDecimal, error) {
	d, err := c.amount(i)
	if err == nil {
		return d, nil
	}
	if e, ok := excelAmount(focusText(c.cell(i))); ok {
		if !x.amounts {
			x.amounts = true
			x.env.warnings = append(x.env.warnings, Warning{Row: c.t.line(i),
				ZH: "金额是 Excel 的货币格式（如 \"$10,100.00 \"）：已去掉 $ 和千位分隔符，币种按 BillingCurrency；" +
					"Excel 只保留了显示的小数位，合计是这份另存文件的合计，可能与原始导出差几分",
				EN: "amounts are in Excel's currency format (like \"$10,100.00 \"): the $ and thousands separators were dropped and " +
					"the currency taken from BillingCurrency; Excel kept only the decimals it displayed, so totals are those of this " +
					"saved file and may differ from the original export by the rounding"})
		}
		return e, nil
	}
	return d, err
}

func (x *focusExcel) requiredAmount(c *rowCtx, i int) (decimal.Decimal, error) {
	d, err := x.amount(c, i)
	if err != nil {
		return decimal.Decimal{}, err
	}
	if !d.Valid {
		return decimal.Decimal{}, c.errAt(i, "required amount is empty")
	}
	return d.Decimal, nil
}

// time reads a FOCUS time (naive = UTC), else Excel's M/D/YY form.
func (x *focusExcel) time(c *rowCtx, i int) (time.Time, error) {
	t, err := c.time(i, time.UTC)
	if err == nil {
		return t, nil
	}
	if e, ok := excelDate(focusText(c.cell(i))); ok {
		x.warnDates(c, i)
		return e, nil
	}
	return t, err
}

func (x *focusExcel) requiredTime(c *rowCtx, i int) (time.Time, error) {
	t, err := x.time(c, i)
	if err != nil {
		return t, err
	}
	if t.IsZero() {
		return t, c.errAt(i, "required time is empty")
	}
	return t, nil
}

func (x *focusExcel) warnDates(c *rowCtx, i int) {
	if x.dates {
		return
	}
	x.dates = true
	x.env.warnings = append(x.env.warnings, Warning{Row: c.t.line(i),
		ZH: "时间是 Excel 的短日期格式（如 10/1/26 0:00）：按美式 月/日/年 读取，两位年份为 20xx，时区 UTC",
		EN: "times are in Excel's short date format (like 10/1/26 0:00): read as US month/day/year, a two-digit year as 20xx, UTC"})
}

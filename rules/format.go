package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
)

// This file is the only place where rules round money and durations, and
// only for the text of a finding (reason, basis). Amounts in findings stay
// exact decimals.

// FormatMoney renders an amount for display: "¥12.34" for CNY, "12.34 USD"
// for any other currency. It rounds half away from zero to 2 decimals; a
// non-zero amount that would show as 0.00 keeps up to 6 decimals ("¥0.0004").
func FormatMoney(d decimal.Decimal, currency string) string {
	r := d.Round(2)
	s := r.StringFixed(2)
	if r.IsZero() && !d.IsZero() {
		s = d.Round(6).String()
	}
	return withCurrency(s, currency)
}

// formatExact renders an amount at its full precision (at least 2
// decimals), for the basis of a finding: "¥0.066", "¥1.20".
func formatExact(d decimal.Decimal, currency string) string {
	s := d.String()
	if i := strings.IndexByte(s, '.'); i < 0 || len(s)-i-1 < 2 {
		s = d.StringFixed(2)
	}
	return withCurrency(s, currency)
}

// FormatNullMoney is FormatMoney for an optional amount; unknown is "-".
func FormatNullMoney(d decimal.NullDecimal, currency string) string {
	if !d.Valid {
		return "-"
	}
	return FormatMoney(d.Decimal, currency)
}

// FormatPrice renders a unit price with at least 2 and at most 6 decimals
// and its unit: "¥3.00/h", "¥0.0004/h", "0.50 USD/h".
func FormatPrice(d decimal.Decimal, currency, unit string) string {
	r := d.Round(6)
	s := r.String()
	if i := strings.IndexByte(s, '.'); i < 0 || len(s)-i-1 < 2 {
		s = r.StringFixed(2)
	}
	s = withCurrency(s, currency)
	if unit != "" {
		s += "/" + unit
	}
	return s
}

func withCurrency(s, currency string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	switch strings.ToUpper(currency) {
	case "CNY", "RMB", "":
		s = "¥" + s
	default:
		s = s + " " + strings.ToUpper(currency)
	}
	if neg {
		s = "-" + s
	}
	return s
}

// formatQty renders a quantity of a time unit, e.g. "0.2h", "1.0833h", "90s"
// (at most 4 decimals).
func formatQty(q decimal.Decimal, u billing.TimeUnit) string {
	return q.Round(4).String() + u.Abbr
}

// formatDuration renders a duration compactly in English/ASCII: "10h",
// "1h05m", "12m", "45s", "2d3h".
func formatDuration(d time.Duration) string {
	if d < 0 {
		return "-" + formatDuration(-d)
	}
	d = d.Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d/time.Second))
	}
	days := int(d / (24 * time.Hour))
	d -= time.Duration(days) * 24 * time.Hour
	h := int(d / time.Hour)
	d -= time.Duration(h) * time.Hour
	m := int(d / time.Minute)
	d -= time.Duration(m) * time.Minute
	s := int(d / time.Second)
	var b strings.Builder
	if days > 0 {
		fmt.Fprintf(&b, "%dd", days)
	}
	if h > 0 || (days > 0 && (m > 0 || s > 0)) {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m > 0 || (s > 0 && b.Len() > 0) {
		if b.Len() > 0 {
			fmt.Fprintf(&b, "%02dm", m)
		} else {
			fmt.Fprintf(&b, "%dm", m)
		}
	}
	if s > 0 {
		fmt.Fprintf(&b, "%02ds", s)
	}
	return b.String()
}

// formatDurationZH is formatDuration in Chinese units, for the zh texts:
// "1天13小时", "1小时43分", "30分钟", "45秒".
func formatDurationZH(d time.Duration) string {
	if d < 0 {
		return "-" + formatDurationZH(-d)
	}
	d = d.Round(time.Second)
	days := int(d / (24 * time.Hour))
	d -= time.Duration(days) * 24 * time.Hour
	h := int(d / time.Hour)
	d -= time.Duration(h) * time.Hour
	m := int(d / time.Minute)
	s := int((d - time.Duration(m)*time.Minute) / time.Second)
	var b strings.Builder
	if days > 0 {
		fmt.Fprintf(&b, "%d天", days)
	}
	if h > 0 || (days > 0 && (m > 0 || s > 0)) {
		fmt.Fprintf(&b, "%d小时", h)
	}
	switch {
	case m > 0 && b.Len() == 0 && s == 0:
		fmt.Fprintf(&b, "%d分钟", m)
	case m > 0 || (s > 0 && b.Len() > 0):
		fmt.Fprintf(&b, "%d分", m)
	}
	if s > 0 || b.Len() == 0 {
		fmt.Fprintf(&b, "%d秒", s)
	}
	return b.String()
}

// formatTime renders an instant in loc for reasons: "2026-10-03 14:00".
func formatTime(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2006-01-02 15:04")
}

// formatDay renders a day in loc: "2026-10-03".
func formatDay(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2006-01-02")
}

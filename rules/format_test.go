package rules

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestFormatMoney(t *testing.T) {
	for _, tc := range []struct {
		name, amount, currency, want string
	}{
		{"cny", "12.345", "CNY", "¥12.35"},
		{"cny_round_half_away", "-0.125", "CNY", "-¥0.13"},
		{"whole", "30", "CNY", "¥30.00"},
		{"sub_cent", "0.0004", "CNY", "¥0.0004"},
		{"sub_cent_long", "0.00107392473", "USD", "0.001074 USD"},
		{"usd", "1", "USD", "1.00 USD"},
		{"empty_currency_is_cny", "2.5", "", "¥2.50"},
		{"zero", "0", "CNY", "¥0.00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FormatMoney(decimal.RequireFromString(tc.amount), tc.currency); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if got := FormatNullMoney(decimal.NullDecimal{}, "CNY"); got != "-" {
		t.Errorf("unknown amount: got %q, want -", got)
	}
}

func TestFormatPrice(t *testing.T) {
	for _, tc := range []struct {
		name, price, currency, unit, want string
	}{
		{"two_decimals", "3", "CNY", "h", "¥3.00/h"},
		{"more_decimals", "0.0004", "CNY", "h", "¥0.0004/h"},
		{"rounded_to_6", "1.23456789", "USD", "h", "1.234568 USD/h"},
		{"no_unit", "2.5", "CNY", "", "¥2.50"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FormatPrice(decimal.RequireFromString(tc.price), tc.currency, tc.unit); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFormatDuration(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   time.Duration
		want string
	}{
		{"seconds", 45 * time.Second, "45s"},
		{"minutes", 12 * time.Minute, "12m"},
		{"hours", 10 * time.Hour, "10h"},
		{"hours_minutes", 65 * time.Minute, "1h05m"},
		{"minutes_seconds", 90 * time.Second, "1m30s"},
		{"days", 51 * time.Hour, "2d3h"},
		{"days_minutes", 24*time.Hour + 5*time.Minute, "1d0h05m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := formatDuration(tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCrossesNight(t *testing.T) {
	night := func(s, e string) bool {
		return crossesNight(at(t, s), at(t, e), bj, 0, 7*time.Hour)
	}
	for _, tc := range []struct {
		name, start, end string
		want             bool
	}{
		{"day", "2026-10-03 08:00", "2026-10-03 18:00", false},
		{"evening_to_2am", "2026-10-03 20:00", "2026-10-04 02:00", true},
		{"ends_at_midnight", "2026-10-03 16:00", "2026-10-04 00:00", false},
		{"starts_at_7", "2026-10-03 07:00", "2026-10-03 17:00", false},
		{"early_morning", "2026-10-03 06:30", "2026-10-03 09:00", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := night(tc.start, tc.end); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	// a window that wraps midnight (22:00–06:00)
	if !crossesNight(at(t, "2026-10-03 21:00"), at(t, "2026-10-03 23:00"), bj, 22*time.Hour, 6*time.Hour) {
		t.Errorf("22:00–06:00 window: got false for 21:00–23:00, want true")
	}
}

func TestFormatExact(t *testing.T) {
	for _, tc := range []struct{ in, cur, want string }{
		{"0.066", "CNY", "¥0.066"},
		{"1.2", "CNY", "¥1.20"},
		{"0.10", "CNY", "¥0.10"},
		{"30", "USD", "30.00 USD"},
		{"0.00107392473", "USD", "0.00107392473 USD"},
	} {
		if got := formatExact(decimal.RequireFromString(tc.in), tc.cur); got != tc.want {
			t.Errorf("formatExact(%s, %s): got %q, want %q", tc.in, tc.cur, got, tc.want)
		}
	}
}

func TestFormatDurationZH(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0秒"},
		{45 * time.Second, "45秒"},
		{30 * time.Minute, "30分钟"},
		{time.Hour, "1小时"},
		{time.Hour + 43*time.Minute, "1小时43分"},
		{37 * time.Hour, "1天13小时"},
		{15 * 24 * time.Hour, "15天"},
		{24*time.Hour + 30*time.Second, "1天0小时0分30秒"},
		{-2 * time.Hour, "-2小时"},
	} {
		if got := formatDurationZH(tc.d); got != tc.want {
			t.Errorf("formatDurationZH(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

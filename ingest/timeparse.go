package ingest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseTime reads the date-time text of bills and returns it in UTC. It is
// the only place where vendor time formats become times.
//
// Accepted (a single space may be several, or a T):
//
//	2026-10-03 14:22:05   2026-10-03 14:22   2026-10-03 (midnight)
//	2026/10/3 14:22       2026/10/03 14:22:05   2026.10.03
//	2026年10月3日 14:22    2026年10月3日
//	20261003
//	2026-10-03T14:22:05Z  2026-10-03T14:22:05.123+08:00  2026-10-03 14:22:05 +0800
//	2020-08-23 22:00:00 GMT+08:00   2024-09-01 00:00:00 UTC
//
// Seconds may carry a fraction (kept to the nanosecond). Text without a zone
// is wall-clock time in loc (nil means UTC). Impossible dates (2026-02-30,
// 25:00) and years outside 1900–9998, in loc or in UTC, are errors.
func ParseTime(s string, loc *time.Location) (time.Time, error) {
	t, ok := parseTime(trimCell(s), loc)
	if !ok {
		return time.Time{}, fmt.Errorf("%q is not a date-time", s)
	}
	return t, nil
}

// timeScanner walks the text of a time.
type timeScanner struct {
	s string
	i int
}

func (p *timeScanner) eof() bool { return p.i >= len(p.s) }

// digits reads a run of 1..max ASCII digits; n is how many were read.
func (p *timeScanner) digits(max int) (v, n int) {
	for p.i < len(p.s) && n < max && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		v = v*10 + int(p.s[p.i]-'0')
		p.i++
		n++
	}
	return v, n
}

// lit consumes prefix when the text continues with it.
func (p *timeScanner) lit(prefix string) bool {
	if strings.HasPrefix(p.s[p.i:], prefix) {
		p.i += len(prefix)
		return true
	}
	return false
}

func (p *timeScanner) spaces() int {
	n := 0
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
		n++
	}
	return n
}

func parseTime(s string, loc *time.Location) (time.Time, bool) {
	t, ok := parseTimeWall(s, loc)
	if u := t.UTC(); ok && storable(u) {
		return u, true
	}
	return time.Time{}, false
}

// firstYear and lastYear bound the years every reader of a time or a
// billing month accepts: years outside are no bill's, and the bound keeps
// UTC within four-digit years.
const firstYear, lastYear = 1900, 9998

// billYear reports whether y is within firstYear..lastYear.
func billYear(y int) bool { return y >= firstYear && y <= lastYear }

// storable reports whether the UTC time u is within the years every reader
// of a time accepts (billYear). The bounds hold in UTC as well as in the
// bill's zone (1900-01-01 in Shanghai is 1899 in UTC; 9999-12-31 west of
// UTC is 10000), so that the stored form of every time reads back.
func storable(u time.Time) bool { return billYear(u.Year()) }

// parseTimeWall is parseTime keeping the zone the text was written in (or
// loc), so that callers can take the calendar date as written.
func parseTimeWall(s string, loc *time.Location) (time.Time, bool) {
	if loc == nil {
		loc = time.UTC
	}
	if len(s) < 8 || len(s) > 64 {
		return time.Time{}, false
	}
	p := &timeScanner{s: s}
	var year, month, day int
	v, n := p.digits(8)
	switch n {
	case 8: // 20261003
		year, month, day = v/10000, v/100%100, v%100
	case 4:
		year = v
		var sep, sep2 string
		for _, c := range []string{"-", "/", ".", "年"} {
			if p.lit(c) {
				sep = c
				break
			}
		}
		if sep == "" {
			return time.Time{}, false
		}
		if month, n = p.digits(2); n == 0 {
			return time.Time{}, false
		}
		sep2 = sep
		if sep == "年" {
			sep2 = "月"
		}
		if !p.lit(sep2) {
			return time.Time{}, false
		}
		if day, n = p.digits(2); n == 0 {
			return time.Time{}, false
		}
		if sep == "年" {
			if !p.lit("日") {
				p.lit("号")
			}
		}
	default:
		return time.Time{}, false
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || !billYear(year) {
		return time.Time{}, false
	}
	var hour, min, sec, nsec int
	zone := loc
	if !p.eof() {
		if !p.lit("T") && p.spaces() == 0 {
			return time.Time{}, false
		}
		if p.eof() { // trailing spaces after a date
			return time.Date(year, time.Month(month), day, 0, 0, 0, 0, loc), true
		}
		if hour, n = p.digits(2); n == 0 {
			return time.Time{}, false
		}
		if !p.lit(":") && !p.lit("：") {
			return time.Time{}, false
		}
		if min, n = p.digits(2); n != 2 {
			return time.Time{}, false
		}
		if p.lit(":") || p.lit("：") {
			if sec, n = p.digits(2); n != 2 {
				return time.Time{}, false
			}
			if p.lit(".") || p.lit(",") {
				f, n := p.digits(9)
				if n == 0 {
					return time.Time{}, false
				}
				// Ignore digits beyond nanoseconds.
				for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
					p.i++
				}
				for ; n < 9; n++ {
					f *= 10
				}
				nsec = f
			}
		}
		if hour > 23 || min > 59 || sec > 59 {
			return time.Time{}, false
		}
		p.spaces()
		if !p.eof() {
			z, ok := parseZone(p)
			if !ok || !p.eof() {
				return time.Time{}, false
			}
			zone = z
		}
	}
	return time.Date(year, time.Month(month), day, hour, min, sec, nsec, zone), true
}

// parseZone reads Z, UTC, GMT, an offset (+08:00, +0800, +08) or GMT/UTC
// followed by an offset (GMT+08:00).
func parseZone(p *timeScanner) (*time.Location, bool) {
	if p.lit("Z") || p.lit("z") {
		return time.UTC, true
	}
	named := p.lit("GMT") || p.lit("UTC")
	if p.eof() {
		if named {
			return time.UTC, true
		}
		return nil, false
	}
	sign := 1
	switch {
	case p.lit("+"):
	case p.lit("-"):
		sign = -1
	default:
		return nil, false
	}
	h, n := p.digits(2)
	if n == 0 {
		return nil, false
	}
	m := 0
	if p.lit(":") {
		if m, n = p.digits(2); n != 2 {
			return nil, false
		}
	} else if !p.eof() {
		if m, n = p.digits(2); n != 2 {
			return nil, false
		}
	}
	if h > 14 || m > 59 {
		return nil, false
	}
	off := sign * (h*3600 + m*60)
	if off == 0 {
		return time.UTC, true
	}
	return time.FixedZone("", off), true
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// excelSerial reads an Excel serial date-time ("46298.5" = 2026-10-03
// 12:00) as XLSX files store dates, in the 1900 date system (date1904: the
// 1904 one, serial 0 = 1904-01-01), with the wall clock in loc (nil means
// UTC); the result is in UTC, rounded to the second. ok is false for text
// that is not a number, a time whose UTC year is outside those ParseTime
// accepts (storable; Excel's own range ends at 9999-12-31), or Excel's
// phantom 1900-02-29 (serial 60).
func excelSerial(s string, loc *time.Location, date1904 bool) (time.Time, bool) {
	if loc == nil {
		loc = time.UTC
	}
	t := trimCell(s)
	if t == "" || len(t) > 32 {
		return time.Time{}, false
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; !(c >= '0' && c <= '9' || c == '.' || c == 'E' || c == 'e' || c == '-' || c == '+') {
			return time.Time{}, false
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f >= 2958466 {
		return time.Time{}, false
	}
	days := int(math.Floor(f))
	secs := int(math.Round((f - float64(days)) * 86400))
	var base time.Time
	switch {
	case date1904:
		base = time.Date(1904, 1, 1, 0, 0, 0, 0, loc)
	case days < 1:
		return time.Time{}, false // a time of day without a date is no charge time
	case days < 60:
		base = time.Date(1899, 12, 31, 0, 0, 0, 0, loc) // serial 1 = 1900-01-01
	case days == 60:
		return time.Time{}, false // Excel's phantom 1900-02-29
	default:
		// Excel counts the phantom 1900-02-29, so later serials are one day
		// ahead of a plain count from 1899-12-31.
		base = time.Date(1899, 12, 30, 0, 0, 0, 0, loc)
	}
	y, m, d := base.Date()
	u := time.Date(y, m, d+days, 0, 0, secs, 0, loc).UTC()
	if !storable(u) {
		return time.Time{}, false
	}
	return u, true
}

package billing

import (
	"strings"

	"github.com/shopspring/decimal"
)

// TimeUnit is a unit of billed or consumed time.
type TimeUnit struct {
	Name string // hour | minute | second | day | week
	Abbr string // h | min | s | d | wk
	Secs int64  // its length in seconds
}

// The time units that ParseTimeUnit knows.
var (
	UnitSecond = TimeUnit{"second", "s", 1}
	UnitMinute = TimeUnit{"minute", "min", 60}
	UnitHour   = TimeUnit{"hour", "h", 3600}
	UnitDay    = TimeUnit{"day", "d", 86400}
	UnitWeek   = TimeUnit{"week", "wk", 7 * 86400}
)

// ParseTimeUnit reads a pricing or consumed unit that is a pure time unit
// (小时, hour, h, Hours, 分钟, 秒, 天, 周 …; ingest normalises to hour,
// minute, second, day, week). Months and years have no fixed length and are
// not judged; units of other things (GB·天, GB-hour) are not time units.
func ParseTimeUnit(s string) (TimeUnit, bool) {
	switch s { // what ingest stores, without the case folding and trimming below
	case "hour":
		return UnitHour, true
	case "second":
		return UnitSecond, true
	case "minute":
		return UnitMinute, true
	case "day":
		return UnitDay, true
	case "week":
		return UnitWeek, true
	case "":
		return TimeUnit{}, false
	}
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "second", "seconds", "sec", "secs", "s", "秒", "秒钟":
		return UnitSecond, true
	case "minute", "minutes", "min", "mins", "m", "分钟", "分":
		return UnitMinute, true
	case "hour", "hours", "hr", "hrs", "h", "小时", "时", "个小时":
		return UnitHour, true
	case "day", "days", "d", "天", "日":
		return UnitDay, true
	case "week", "weeks", "周", "星期":
		return UnitWeek, true
	}
	return TimeUnit{}, false
}

// Seconds converts a quantity of u into seconds (exact).
func (u TimeUnit) Seconds(q decimal.Decimal) decimal.Decimal {
	return q.Mul(decimal.NewFromInt(u.Secs))
}

// WholeSeconds is u.Seconds(q) truncated to whole seconds, for a positive
// q, computed in int64 where that is exact (a coefficient of at most 12
// digits, an exponent from -12 to 6: every quantity a bill has); ok is
// false otherwise, and the caller computes with decimals.
func (u TimeUnit) WholeSeconds(q decimal.Decimal) (secs int64, ok bool) {
	e := q.Exponent()
	if q.Sign() <= 0 || e < -12 || e > 6 || q.NumDigits()+int(max(e, 0)) > 12 {
		return 0, false
	}
	v := q.CoefficientInt64() * u.Secs // < 10^12 × 604800: no overflow
	if e >= 0 {
		return v * pow10[e], true
	}
	return v / pow10[-e], true
}

// pow10 holds 10^0 … 10^12.
var pow10 = func() (p [13]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// Per converts seconds into a quantity of u (display only: may round).
func (u TimeUnit) Per(secs decimal.Decimal) decimal.Decimal {
	return secs.DivRound(decimal.NewFromInt(u.Secs), 8)
}

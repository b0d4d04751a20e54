package rules

import (
	"strings"

	"github.com/shopspring/decimal"
)

// timeUnit is a unit of billed or consumed time.
type timeUnit struct {
	name string // hour | minute | second | day
	abbr string // h | min | s | d
	secs int64
}

var (
	unitSecond = timeUnit{"second", "s", 1}
	unitMinute = timeUnit{"minute", "min", 60}
	unitHour   = timeUnit{"hour", "h", 3600}
	unitDay    = timeUnit{"day", "d", 86400}
	unitWeek   = timeUnit{"week", "wk", 7 * 86400}
)

// parseTimeUnit reads a pricing or consumed unit that is a pure time unit
// (小时, hour, h, Hours, 分钟, 秒, 天, 周 …; ingest normalises to hour,
// minute, second, day, week). Months and years have no fixed length and are
// not judged; units of other things (GB·天, GB-hour) are not time units.
func parseTimeUnit(s string) (timeUnit, bool) {
	switch s { // what ingest stores, without the case folding and trimming below
	case "hour":
		return unitHour, true
	case "second":
		return unitSecond, true
	case "minute":
		return unitMinute, true
	case "day":
		return unitDay, true
	case "week":
		return unitWeek, true
	case "":
		return timeUnit{}, false
	}
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "second", "seconds", "sec", "secs", "s", "秒", "秒钟":
		return unitSecond, true
	case "minute", "minutes", "min", "mins", "m", "分钟", "分":
		return unitMinute, true
	case "hour", "hours", "hr", "hrs", "h", "小时", "时", "个小时":
		return unitHour, true
	case "day", "days", "d", "天", "日":
		return unitDay, true
	case "week", "weeks", "周", "星期":
		return unitWeek, true
	}
	return timeUnit{}, false
}

// seconds converts a quantity of u into seconds (exact).
func (u timeUnit) seconds(q decimal.Decimal) decimal.Decimal {
	return q.Mul(decimal.NewFromInt(u.secs))
}

// wholeSeconds is u.seconds(q) truncated to whole seconds, for a positive
// q, computed in int64 where that is exact (a coefficient of at most 12
// digits, an exponent from -12 to 6: every quantity a bill has); ok is
// false otherwise, and the caller computes with decimals.
func (u timeUnit) wholeSeconds(q decimal.Decimal) (secs int64, ok bool) {
	e := q.Exponent()
	if q.Sign() <= 0 || e < -12 || e > 6 || q.NumDigits()+int(max(e, 0)) > 12 {
		return 0, false
	}
	v := q.CoefficientInt64() * u.secs // < 10^12 × 604800: no overflow
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

// per converts seconds into a quantity of u (display only: may round).
func (u timeUnit) per(secs decimal.Decimal) decimal.Decimal {
	return secs.DivRound(decimal.NewFromInt(u.secs), 8)
}

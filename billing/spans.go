package billing

import (
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

// ActiveSpan is when li's resource really ran: usage_start/usage_end where
// the bill gives them, else the charge period — cut to the billed time when
// the bill gives no run times and bills less time than the period holds (a
// daily row of 阿里云 or 火山引擎 that bills "2 小时" is a 2-hour run, not a
// day-long one; when in the day is unknown, so it is taken from the start).
// A span never ends before it starts.
func ActiveSpan(li *ledger.LineItem) (start, end time.Time) {
	start, end = li.ChargePeriodStart, li.ChargePeriodEnd
	if li.UsageStart.IsZero() && li.UsageEnd.IsZero() && li.PricingQuantity.Valid {
		if u, ok := ParseTimeUnit(li.PricingUnit); ok && li.PricingQuantity.Decimal.Sign() > 0 {
			period := int64(end.Sub(start) / time.Second)
			// secs < period ⇔ ⌊secs⌋ < period, period being whole seconds.
			if whole, fast := u.WholeSeconds(li.PricingQuantity.Decimal); fast {
				if whole < period {
					end = start.Add(time.Duration(whole) * time.Second)
				}
			} else if secs := u.Seconds(li.PricingQuantity.Decimal); secs.LessThan(decimal.NewFromInt(period)) {
				end = start.Add(time.Duration(secs.IntPart()) * time.Second)
			}
		}
	}
	if !li.UsageStart.IsZero() {
		start = li.UsageStart
	}
	if !li.UsageEnd.IsZero() {
		end = li.UsageEnd
	}
	if end.Before(start) {
		end = start
	}
	return start, end
}

// IsRunning reports whether li says its resource ran: a compute charge that
// is not a credit, tax or adjustment and not negative. Prepaid items count
// (a package runs whether on or off).
func IsRunning(li *ledger.LineItem) bool {
	if li.Kind != ledger.KindCompute {
		return false
	}
	switch li.ChargeCategory {
	case ledger.CategoryCredit, ledger.CategoryTax, ledger.CategoryAdjustment:
		return false
	}
	return li.BilledCost.Sign() >= 0
}

// IsPrepaid reports whether li is a package (包日/周/月/年) or reserved charge.
func IsPrepaid(li *ledger.LineItem) bool {
	return li.PricingModel == ledger.PricingPackage || li.PricingModel == ledger.PricingReserved
}

// Bases of UsageSeconds.
const (
	UsageFromTimes    = "usage"    // usage_end − usage_start
	UsageFromConsumed = "consumed" // consumed_quantity in a time unit
)

// UsageSeconds is li's actual use in seconds: usage_end − usage_start
// where both are given (and in order), else its consumed quantity in
// seconds (ConsumedSeconds). known is false when the bill gives neither.
func UsageSeconds(li *ledger.LineItem) (secs decimal.Decimal, basis string, known bool) {
	if !li.UsageStart.IsZero() && !li.UsageEnd.IsZero() && !li.UsageEnd.Before(li.UsageStart) {
		return decimal.NewFromInt(int64(li.UsageEnd.Sub(li.UsageStart) / time.Second)), UsageFromTimes, true
	}
	if secs, ok := ConsumedSeconds(li); ok {
		return secs, UsageFromConsumed, true
	}
	return decimal.Zero, "", false
}

// ConsumedSeconds is li's consumed quantity in seconds: in its consumed
// unit, else (none given) in its pricing unit. ok is false when the
// quantity is missing or negative, or that unit is no time unit.
func ConsumedSeconds(li *ledger.LineItem) (secs decimal.Decimal, ok bool) {
	if !li.ConsumedQuantity.Valid || li.ConsumedQuantity.Decimal.IsNegative() {
		return decimal.Zero, false
	}
	unit := li.ConsumedUnit
	if strings.TrimSpace(unit) == "" {
		unit = li.PricingUnit
	}
	u, ok := ParseTimeUnit(unit)
	if !ok {
		return decimal.Zero, false
	}
	return u.Seconds(li.ConsumedQuantity.Decimal), true
}

// AddCostBeyond adds to sum li's billed cost after cutoff, pro rata by the
// part of its active span after cutoff (ProRata); false when li ends by
// cutoff (nothing added). It is what a session costs past a point: the
// forgotten_instance rule's money at risk and the what-if's auto-shutdown.
func AddCostBeyond(sum *money.Sum, li *ledger.LineItem, cutoff time.Time) bool {
	s, e := ActiveSpan(li)
	switch {
	case !s.Before(cutoff):
		sum.Add(li.BilledCost)
	case !e.After(cutoff):
		return false
	default:
		part, whole := int64(e.Sub(cutoff)/time.Second), int64(e.Sub(s)/time.Second)
		sum.Add(ProRata(li.BilledCost, part, whole))
	}
	return true
}

// ProRata returns cost × part / whole, rounded to 8 decimals (whole > 0).
// Chinese bills carry at most 8 decimals, so this is the precision of any
// amount a rule has to split.
func ProRata(cost decimal.Decimal, part, whole int64) decimal.Decimal {
	if whole <= 0 || part >= whole {
		return cost
	}
	return cost.Mul(decimal.NewFromInt(part)).DivRound(decimal.NewFromInt(whole), 8)
}

// Later is the later of a and b (b when they are the same instant).
func Later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Earlier is the earlier of a and b (b when they are the same instant).
func Earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

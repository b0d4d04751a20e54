package billing

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

// RoundingBeyondPolicy is the part of li's billed time that its platform's
// own stated rule does not allow, priced as min_duration_rounding prices it
// ((billed − allowed) × unit price, the unit price being list_unit_price,
// else billed_cost ÷ billed quantity; capped at the billed cost). Allowed is
// the actual use rounded up to the policy's billing step, and at least its
// minimum billed duration.
//
// ok is false when the question cannot be answered: li is no time-billed
// on-demand usage charge, its actual use is unknown, or the policy states
// no billing step (then no rule of the platform can be said to be broken).
// A zero amount with ok true means the rounding is what the policy allows.
func RoundingBeyondPolicy(li *ledger.LineItem, p Policy) (amount decimal.Decimal, ok bool) {
	if p.BillingStep <= 0 || !isUsageCharge(li) || IsPrepaid(li) || !li.PricingQuantity.Valid || !li.PricingQuantity.Decimal.IsPositive() {
		return decimal.Zero, false
	}
	u, ok := ParseTimeUnit(li.PricingUnit)
	if !ok {
		return decimal.Zero, false
	}
	actual, _, known := UsageSeconds(li)
	if !known {
		return decimal.Zero, false
	}
	billed := u.Seconds(li.PricingQuantity.Decimal)
	step := decimal.NewFromInt(int64(p.BillingStep / time.Second))
	if step.IsZero() { // a step below one second: every second is allowed
		step = decimal.NewFromInt(1)
	}
	allowed := actual.Div(step).Ceil().Mul(step)
	if minimum := decimal.NewFromInt(int64(p.MinimumBilled / time.Second)); allowed.LessThan(minimum) {
		allowed = minimum
	}
	excess := billed.Sub(allowed)
	if !excess.IsPositive() {
		return decimal.Zero, true
	}
	var money decimal.Decimal
	if li.ListUnitPrice.Valid && li.ListUnitPrice.Decimal.IsPositive() {
		money = excess.Mul(li.ListUnitPrice.Decimal).DivRound(decimal.NewFromInt(u.Secs), 8)
	} else {
		money = excess.Mul(li.BilledCost).DivRound(billed, 8)
	}
	if money.Cmp(li.BilledCost) > 0 {
		money = li.BilledCost
	}
	if money.IsNegative() {
		money = decimal.Zero
	}
	return money, true
}

// isUsageCharge reports whether li is an ordinary charge (not a credit,
// tax or adjustment row) with a positive amount.
func isUsageCharge(li *ledger.LineItem) bool {
	switch li.ChargeCategory {
	case ledger.CategoryCredit, ledger.CategoryTax, ledger.CategoryAdjustment:
		return false
	}
	return li.BilledCost.Sign() > 0
}

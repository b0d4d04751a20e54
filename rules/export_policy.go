package rules

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

// What other stages (the instances and refunds reports) need from the
// rules: the platform policy in effect, and the rules' own notion of when a
// compute charge ran, so that a report and the audit agree.

// PolicyFor returns the policy of provider in effect under c: the user's
// override from the config file, else the embedded entry. ok is false for a
// provider with no policy (FOCUS providers such as aws).
func (c Config) PolicyFor(provider string) (Policy, bool) { return c.policyFor(provider) }

// ActiveSpan is when li actually ran, as the rules judge it: usage_start
// and usage_end win over the charge period, and a charge period longer than
// its billed time quantity is cut to it.
func ActiveSpan(li *ledger.LineItem) (start, end time.Time) { return activeSpan(li) }

// IsRunning reports whether li says its resource ran: a compute charge that
// is not a credit, tax or adjustment and not negative (prepaid included).
func IsRunning(li *ledger.LineItem) bool { return isRunning(li) }

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
	if p.BillingStep <= 0 || !isUsage(li) || isPrepaid(li) || !quantityPositive(li) {
		return decimal.Zero, false
	}
	u, ok := parseTimeUnit(li.PricingUnit)
	if !ok {
		return decimal.Zero, false
	}
	actual, _, known := actualSeconds(li, u)
	if !known {
		return decimal.Zero, false
	}
	billed := u.seconds(li.PricingQuantity.Decimal)
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
		money = excess.Mul(li.ListUnitPrice.Decimal).DivRound(decimal.NewFromInt(u.secs), 8)
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

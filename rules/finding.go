package rules

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

// Helpers shared by the rules to build findings: evidence, severity by
// amount, which charges count, pro-rata amounts.

// evidenceOf lists the evidence of items, with their billed cost.
func evidenceOf(items []*ledger.LineItem) []ledger.Evidence {
	ev := make([]ledger.Evidence, 0, len(items))
	for _, li := range items {
		ev = append(ev, ledger.Evidence{LineItemID: li.ID, File: li.File, Row: li.SourceRow, RowKey: li.RowKey,
			BilledCost: decimal.NullDecimal{Decimal: li.BilledCost, Valid: true}})
	}
	return ev
}

// thresholds maps an amount to a severity: below low → info, below medium
// → low, below high → medium, else high.
type thresholds struct{ low, medium, high decimal.Decimal }

func (in *Input) thresholds() (thresholds, error) {
	var t thresholds
	var err error
	if t.low, err = in.amountParam("severity_low"); err != nil {
		return t, err
	}
	if t.medium, err = in.amountParam("severity_medium"); err != nil {
		return t, err
	}
	if t.high, err = in.amountParam("severity_high"); err != nil {
		return t, err
	}
	return t, nil
}

// amountLimits is the running rule's min_amount (findings below it are
// not reported) and its severity thresholds.
func (in *Input) amountLimits() (decimal.Decimal, thresholds, error) {
	minAmount, err := in.amountParam("min_amount")
	if err != nil {
		return minAmount, thresholds{}, err
	}
	th, err := in.thresholds()
	return minAmount, th, err
}

func (t thresholds) severity(amount decimal.Decimal) string {
	switch {
	case amount.Cmp(t.high) >= 0:
		return ledger.SeverityHigh
	case amount.Cmp(t.medium) >= 0:
		return ledger.SeverityMedium
	case amount.Cmp(t.low) >= 0:
		return ledger.SeverityLow
	}
	return ledger.SeverityInfo
}

// severityParams are the amount thresholds every money rule takes.
// charges accumulates the line items behind one finding: the items, their
// total billed cost and the span of their charge periods. Rules embed it in
// their group types.
type charges struct {
	items      []*ledger.LineItem
	amount     decimal.Decimal
	start, end time.Time
}

// addItem counts li whole.
func (c *charges) addItem(li *ledger.LineItem) {
	c.items = append(c.items, li)
	c.amount = c.amount.Add(li.BilledCost)
	if c.start.IsZero() || li.ChargePeriodStart.Before(c.start) {
		c.start = li.ChargePeriodStart
	}
	if li.ChargePeriodEnd.After(c.end) {
		c.end = li.ChargePeriodEnd
	}
}

// minAmountParam is the param of the money rules below which nothing is
// reported.
var minAmountParam = Param{Name: "min_amount", Type: ParamAmount, Default: "0.01",
	HelpZH: "风险金额低于此值不报告", HelpEN: "findings below this amount at risk are not reported"}

func severityParams(low, medium, high string) []Param {
	return []Param{
		{Name: "severity_low", Type: ParamAmount, Default: low,
			HelpZH: "风险金额达到此值为 low（以下为 info）", HelpEN: "amount at risk from which severity is low (below: info)"},
		{Name: "severity_medium", Type: ParamAmount, Default: medium,
			HelpZH: "风险金额达到此值为 medium", HelpEN: "amount at risk from which severity is medium"},
		{Name: "severity_high", Type: ParamAmount, Default: high,
			HelpZH: "风险金额达到此值为 high", HelpEN: "amount at risk from which severity is high"},
	}
}

// raise returns the severity one step above s (high stays high).
func raise(s string) string {
	switch s {
	case ledger.SeverityInfo:
		return ledger.SeverityLow
	case ledger.SeverityLow:
		return ledger.SeverityMedium
	}
	return ledger.SeverityHigh
}

// valid wraps a known amount.
func valid(d decimal.Decimal) decimal.NullDecimal {
	return decimal.NullDecimal{Decimal: d, Valid: true}
}

// isUsage reports whether li is an ordinary charge (not a credit, tax or
// adjustment row) with a positive amount.
func isUsage(li *ledger.LineItem) bool {
	switch li.ChargeCategory {
	case ledger.CategoryCredit, ledger.CategoryTax, ledger.CategoryAdjustment:
		return false
	}
	return li.BilledCost.Sign() > 0
}

// quantityPositive reports whether li states a pricing quantity above zero.
func quantityPositive(li *ledger.LineItem) bool {
	return li.PricingQuantity.Valid && li.PricingQuantity.Decimal.IsPositive()
}

package rules

import (
	"context"
	"time"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// This file exposes what other stages need of an audit's input and config
// (the what-if report, through cmd/gpubill), so that a session or the
// instance a charge serves means the same there as in the audit. Nothing
// here changes a rule.

// LoadInput loads month as an audit does: the month's line items (without
// their source cells), the compute items of the neighbouring months as
// context (of the next month, those that can meet the month's items:
// context.go), and the end of the data per provider. Its Sessions are those of
// forgotten_instance.
func LoadInput(ctx context.Context, db *ledger.DB, month string, cfg Config) (*Input, error) {
	return load(ctx, db, month, cfg)
}

// PolicyFor returns the policy of provider in effect under c: the user's
// override from the config file, else the embedded entry. ok is false for a
// provider with no policy (FOCUS providers such as aws).
func (c Config) PolicyFor(provider string) (billing.Policy, bool) { return c.policyFor(provider) }

func (c Config) policyFor(provider string) (billing.Policy, bool) {
	if p, ok := c.Policies[provider]; ok {
		return p, true
	}
	return billing.DefaultPolicy(provider)
}

// ReferencePrices is the price catalog in effect under c: the embedded one
// with the user's entries (Config.Prices) on top.
func (c Config) ReferencePrices() *billing.PriceCatalog {
	if c.Prices.Len() == 0 {
		return billing.DefaultPrices()
	}
	return billing.DefaultPrices().Overlay(c.Prices)
}

// Period is the month's bounds in TZ (half-open) and TZ.
func (in *Input) Period() (start, end time.Time, tz *time.Location) {
	return in.MonthStart, in.MonthEnd, in.TZ
}

// MonthItems are the line items of the month (Items, without the context).
func (in *Input) MonthItems() []*ledger.LineItem { return in.Items }

// ServedInstance says which instance the charge li serves, as
// stopped_storage and snapshot_image decide it (servedBy): the instance id,
// and false when no instance is known (the charge is the provider
// account's as a whole).
func (in *Input) ServedInstance(li *ledger.LineItem) (id string, ok bool) {
	sv := in.servedBy(li)
	return sv.id, sv.how != servedAccount && sv.id != ""
}

// ComputeSpans calls fn, in order, with each span during which the instance
// (provider, resource id) ran compute in the month or its context, until fn
// returns false: the running compute items' active spans (a point in time
// counting as a second), merged where they touch or overlap. It is the
// coverage stopped_storage judges idle days by, built once per Input.
func (in *Input) ComputeSpans(provider, resource string, fn func(start, end time.Time) bool) {
	for _, iv := range in.coverage().byInstance[instKey{provider, resource}] {
		if !fn(secTime(iv.start), secTime(iv.end)) {
			return
		}
	}
}

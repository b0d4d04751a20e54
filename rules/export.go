package rules

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

// This file exposes the rules' building blocks to reports (the GPU-hour
// and what-if reports), so that a session, a run time or a reference price
// means the same there as in the audit. Nothing here changes a rule.

// LoadInput loads month as an audit does: the month's line items (without
// their source cells), the compute items of the neighbouring months as
// context (of the next month, those that can meet the month's items:
// context.go), and the end of the data per provider. Its Sessions are those of
// forgotten_instance.
func LoadInput(ctx context.Context, db *ledger.DB, month string, cfg Config) (*Input, error) {
	return load(ctx, db, month, cfg)
}

// QuantityPositive reports whether li states a pricing quantity above
// zero, from li.Derived when the rules' load set it.
func QuantityPositive(li *ledger.LineItem) bool { return quantityPositive(li) }

// ActiveSpan and IsRunning are in export_policy.go (the instances report
// needs them too).

// IsPrepaid reports whether li is prepaid (package or reserved).
func IsPrepaid(li *ledger.LineItem) bool { return isPrepaid(li) }

// AddCostBeyond adds to sum li's billed cost after cutoff, pro rata by the
// part of its active span after cutoff (8 decimals), as forgotten_instance
// computes its money at risk; false when li ends by cutoff.
func AddCostBeyond(sum *ledger.DecimalSum, li *ledger.LineItem, cutoff time.Time) bool {
	return addCostBeyond(sum, li, cutoff)
}

// TimeUnitSeconds gives the length in seconds of a pure time unit (小时,
// hour, 分钟, s, 天 …); ok is false for anything else (GB·天, month).
func TimeUnitSeconds(unit string) (secs int64, ok bool) {
	u, ok := parseTimeUnit(unit)
	return u.secs, ok
}

// ReferencePrices is the price catalog in effect under c: the embedded one
// with the user's entries (Config.Prices) on top.
func (c Config) ReferencePrices() *PriceCatalog {
	if c.Prices.Len() == 0 {
		return defaultPrices
	}
	return defaultPrices.Overlay(c.Prices)
}

// Which instance a charge serves (DESIGN.md), as ServedBy tells it.
const (
	ServedParent  = servedParent  // the bill names the instance (parent_resource_id)
	ServedSame    = servedSame    // the charge's own resource ran compute
	ServedAccount = servedAccount // no instance known: the provider account as a whole
)

// ServedBy says which instance the charge li serves: how (ServedParent,
// ServedSame or ServedAccount) and the instance id (the billing account id
// for ServedAccount), as stopped_storage and snapshot_image decide it.
func (in *Input) ServedBy(li *ledger.LineItem) (how, id string) {
	sv := in.servedBy(li)
	return sv.how, sv.id
}

// Bases of UsageSeconds.
const (
	UsageFromTimes    = "usage"    // usage_end − usage_start
	UsageFromConsumed = "consumed" // consumed_quantity in a time unit
)

// UsageSeconds is li's actual use in seconds as min_duration_rounding reads
// it: usage_end − usage_start where both are given, else the consumed
// quantity in its time unit (the pricing unit when the consumed unit is
// empty). known is false when the bill gives neither in time.
func UsageSeconds(li *ledger.LineItem) (secs decimal.Decimal, basis string, known bool) {
	u, ok := parseTimeUnit(li.PricingUnit)
	if !ok && li.UsageStart.IsZero() {
		if _, cok := parseTimeUnit(li.ConsumedUnit); !cok {
			return decimal.Zero, "", false
		}
	}
	secs, fromConsumed, known := actualSeconds(li, u)
	if !known {
		return decimal.Zero, "", false
	}
	if fromConsumed {
		return secs, UsageFromConsumed, true
	}
	return secs, UsageFromTimes, true
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

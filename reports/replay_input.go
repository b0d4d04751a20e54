package reports

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// The one file through which the replay reads its inputs (the month's
// sessions and charges, policies, the GPU-hour price catalog): everything
// else of the replay works on replayInput, its own types.

// ReplaySource is the month a replay prices: its items, sessions and what
// each charge serves, as the audit sees them (rules.Input satisfies it).
type ReplaySource interface {
	WhatIfSource
	// Period is the month's first instant, the next month's, and the
	// time zone they are in.
	Period() (start, end time.Time, tz *time.Location)
}

// ReplayConfig is the reference data the replay prices with, as for an
// audit: the user's overrides included.
type ReplayConfig struct {
	Policies billing.PolicyLookup  // nil = the embedded policies
	Prices   *billing.PriceCatalog // the GPU-hour catalog in effect; nil = billing.DefaultPrices()
	User     *billing.PriceCatalog // the user's own prices (from the config), shown as such; may be nil
}

// replayInput is the month's work and the reference data to price it.
type replayInput struct {
	Month                string
	MonthStart, MonthEnd time.Time
	TZ                   *time.Location
	Sessions             []replaySession // on-demand and spot sessions, then prepaid items
	Charges              []replayCharge  // storage, image, snapshot, network and seat charges of the month
	LeftOut              []replayCharge  // every other line item of the month (service, other, tax, credit …)
	Policies             map[string]replayPolicy
	Prices               []replayGPUPrice // the GPU-hour catalog in effect
	// NormalizeGPU maps a GPU model's spellings to one key ("RTX 4090",
	// "4090" → "RTX4090"; "" when the text names no model).
	NormalizeGPU func(string) string
}

// replaySession is a run of one resource: its compute line items of the
// month (a session of the rules, cut to the month), or one prepaid item.
type replaySession struct {
	Provider, Resource, Currency string
	PricingModel                 string // of its first item
	Prepaid                      bool
	Parts                        []replayPart    // ordered by start
	Cost                         decimal.Decimal // the parts' billed cost
}

// replayPart is one compute line item of a session.
type replayPart struct {
	ID                 int64
	Component          string    // items of one resource billed side by side (Tencent's GPU, CPU and memory parts) differ in it
	Start, End         time.Time // when it ran (usage times, else the charge period cut to the billed time)
	ChargeStart        time.Time
	ChargeEnd          time.Time
	BilledSeconds      decimal.Decimal // billed quantity in a time unit, else the charge period
	BilledFromQuantity bool
	Cost               decimal.Decimal
	GPUModel           string // as the bill (or its instance type) names it; "" unknown
	GPUCount           int    // 0 unknown
}

// replayCharge is a non-compute line item.
type replayCharge struct {
	ID                     int64
	Provider, Currency     string
	Kind                   string
	Category               string
	Cost                   decimal.Decimal
	Quantity               decimal.NullDecimal
	Unit                   string
	ChargeStart, ChargeEnd time.Time
	Instance               string // the instance it serves; "" when only the account is known
	InstanceRan            bool   // the instance ran compute during the charge period
}

// replayPolicy is how a platform bills on-demand time.
type replayPolicy struct {
	Provider            string
	Step, Minimum       time.Duration
	MinimumCharge       decimal.NullDecimal
	ChargedWhileStopped []string
	Guesses             []string
	Source, Seen        string
}

// replayGPUPrice is one GPU-hour price of the catalog.
type replayGPUPrice struct {
	Provider, GPUModel, GPUModelText, PricingModel, Currency string
	PerHour                                                  decimal.Decimal
	Source, Seen                                             string
	FromConfig                                               bool   // the user's config file gave it
	Confidence                                               string // "" = graded from the source
}

// loadReplayInput reads month from in under cfg.
func loadReplayInput(in ReplaySource, month string, cfg ReplayConfig) *replayInput {
	start, end, tz := in.Period()
	out := &replayInput{Month: month, MonthStart: start, MonthEnd: end, TZ: tz,
		Policies: map[string]replayPolicy{}, NormalizeGPU: memoGPUKeys(billing.NormalizeGPUModel)}
	part := func(li *ledger.LineItem) replayPart {
		s, e := billing.ActiveSpan(li)
		p := replayPart{ID: li.ID, Component: li.SKU, Start: s, End: e, ChargeStart: li.ChargePeriodStart,
			ChargeEnd: li.ChargePeriodEnd, Cost: li.BilledCost, GPUModel: li.GPUModel, GPUCount: li.GPUCount}
		if u, ok := billing.ParseTimeUnit(li.PricingUnit); ok && li.PricingQuantity.Valid {
			p.BilledSeconds = li.PricingQuantity.Decimal.Mul(decimal.NewFromInt(u.Secs))
			p.BilledFromQuantity = true
		} else {
			p.BilledSeconds = decimal.NewFromInt(int64(li.ChargePeriodEnd.Sub(li.ChargePeriodStart) / time.Second))
		}
		if p.GPUModel == "" || out.NormalizeGPU(p.GPUModel) == "" {
			p.GPUModel = ""
			if m, n, ok := billing.GPUModelOf(li.Provider, strings.Join([]string{li.SKU, li.ResourceType, li.Description}, " ")); ok {
				p.GPUModel = m
				if p.GPUCount == 0 {
					p.GPUCount = n
				}
			}
		}
		return p
	}
	// The sessions and the month's other items are read side by side:
	// each builds a cache of in's (the sessions; whom a charge serves).
	var sessions []replaySession
	var side sync.WaitGroup
	side.Go(func() { sessions = replaySessions(in.Sessions(), month, part) })
	var prepaid []replaySession
	for _, li := range in.MonthItems() {
		running := li.Kind == ledger.KindCompute && billing.IsRunning(li)
		switch {
		case running && billing.IsPrepaid(li):
			parts := []replayPart{part(li)}
			prepaid = append(prepaid, replaySession{Provider: li.Provider, Resource: li.ResourceID,
				Currency: li.Currency, PricingModel: li.PricingModel, Prepaid: true, Parts: parts, Cost: partsCost(parts)})
		case running && li.ResourceID != "":
			// in a session (replaySessions)
		case li.Kind != ledger.KindCompute && !li.BilledCost.IsNegative() &&
			(li.ChargeCategory == ledger.CategoryUsage || li.ChargeCategory == ledger.CategoryPurchase || li.ChargeCategory == ""):
			c := replayCharge{ID: li.ID, Provider: li.Provider, Currency: li.Currency, Kind: li.Kind, Category: li.ChargeCategory,
				Cost: li.BilledCost, Quantity: li.PricingQuantity, Unit: li.PricingUnit,
				ChargeStart: li.ChargePeriodStart, ChargeEnd: li.ChargePeriodEnd}
			switch li.Kind {
			case ledger.KindStorage, ledger.KindImage, ledger.KindSnapshot, ledger.KindNetwork, ledger.KindSeat:
				if id, ok := in.ServedInstance(li); ok {
					c.Instance = id
					in.ComputeSpans(li.Provider, id, func(start, end time.Time) bool {
						if start.Before(li.ChargePeriodEnd) && end.After(li.ChargePeriodStart) {
							c.InstanceRan = true
							return false
						}
						return true
					})
				}
				out.Charges = append(out.Charges, c)
			default:
				out.LeftOut = append(out.LeftOut, c)
			}
		default:
			out.LeftOut = append(out.LeftOut, replayCharge{ID: li.ID, Provider: li.Provider, Currency: li.Currency,
				Kind: li.Kind, Category: li.ChargeCategory, Cost: li.BilledCost})
		}
	}
	side.Wait()
	out.Sessions = append(sessions, prepaid...)
	out.Policies, out.Prices = loadReplayCatalog(cfg)
	return out
}

// replaySessions are the month's parts of the rules' sessions, each
// session's parts ordered by start.
func replaySessions(sessions []billing.Session, month string, part func(*ledger.LineItem) replayPart) []replaySession {
	out := make([]replaySession, 0, len(sessions))
	for _, s := range sessions {
		rs := replaySession{Provider: s.Provider(), Resource: s.ResourceID(), Currency: s.Currency(),
			Parts: make([]replayPart, 0, len(s.Items))}
		for _, li := range s.Items {
			if li.BillingPeriod != month {
				continue
			}
			if len(rs.Parts) == 0 {
				rs.PricingModel = li.PricingModel
			}
			rs.Parts = append(rs.Parts, part(li))
		}
		if len(rs.Parts) > 0 {
			rs.Parts = slices.Clip(rs.Parts)
			rs.Cost = partsCost(rs.Parts)
			sort.SliceStable(rs.Parts, func(i, j int) bool { return rs.Parts[i].Start.Before(rs.Parts[j].Start) })
			out = append(out, rs)
		}
	}
	return out
}

// loadReplayCatalog reads the platform policies and the GPU-hour price
// catalog in effect under cfg (the embedded ones with the user's
// overrides on top); a price the user's config gave is marked FromConfig.
func loadReplayCatalog(cfg ReplayConfig) (map[string]replayPolicy, []replayGPUPrice) {
	policies := map[string]replayPolicy{}
	for _, p := range platform.All {
		if pol, ok := cfg.Policies.For(p.Slug); ok {
			policies[p.Slug] = replayPolicy{Provider: p.Slug, Step: pol.BillingStep, Minimum: pol.MinimumBilled,
				MinimumCharge: pol.MinimumCharge, ChargedWhileStopped: pol.ChargedWhileStopped, Guesses: pol.Guesses,
				Source: pol.Source, Seen: pol.Seen}
		}
	}
	user := map[billing.PriceKey]bool{}
	if cfg.User != nil {
		for _, p := range cfg.User.Entries() {
			user[p.Key()] = true
		}
	}
	inEffect := cfg.Prices
	if inEffect == nil {
		inEffect = billing.DefaultPrices()
	}
	var prices []replayGPUPrice
	for _, p := range inEffect.Entries() {
		prices = append(prices, replayGPUPrice{Provider: p.Provider, GPUModel: p.GPUModel, GPUModelText: p.GPUModelText,
			PricingModel: p.PricingModel, Currency: p.Currency, PerHour: p.PerHour, Source: p.Source, Seen: p.Seen,
			FromConfig: user[p.Key()]})
	}
	return policies, prices
}

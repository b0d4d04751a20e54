package reports

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// Storage, images, snapshots, traffic and seat fees priced on a target.

// gbDays reads a storage charge's size × time in GB-days.
func gbDays(c *replayCharge) (decimal.Decimal, bool) {
	if !c.Quantity.Valid {
		return decimal.Zero, false
	}
	q := c.Quantity.Decimal
	days := decimal.NewFromInt(int64(c.ChargeEnd.Sub(c.ChargeStart) / time.Second)).Div(decimal.NewFromInt(86400))
	switch c.Unit {
	case "GB-day":
		return q, true
	case "GB-hour":
		return q.Div(decimal.NewFromInt(24)), true
	case "GB-month":
		return q.Mul(decimal.NewFromInt(30)), true
	case "GB":
		if days.IsPositive() {
			return q.Mul(days), true
		}
	}
	return decimal.Zero, false
}

// chargeDays is the length of a charge's period in days.
func chargeDays(c *replayCharge) decimal.Decimal {
	return decimal.NewFromInt(int64(c.ChargeEnd.Sub(c.ChargeStart) / time.Second)).Div(decimal.NewFromInt(86400))
}

func rateAssumption(r billing.Rate, what string) ReplayAssumption {
	v := "¥" + r.Price.String()
	switch r.What {
	case billing.RateTraffic:
		v += "/GB"
	case billing.RateSeat:
		v += "/day"
	default:
		v += "/GB-day"
	}
	if r.FreeGB.IsPositive() {
		v += ", " + r.FreeGB.String() + " GB free"
	}
	return ReplayAssumption{What: what, Value: v, Source: r.Source, Seen: r.Seen, Confidence: r.Confidence}
}

func (rp *replayer) chargedWhileStopped(target, kind string, r billing.Rate) bool {
	if r.ChargedWhileStopped != nil {
		return *r.ChargedWhileStopped
	}
	for _, k := range rp.in.Policies[target].ChargedWhileStopped {
		if k == kind {
			return true
		}
	}
	return false
}

// storageOn prices g's storage, image and snapshot charges on target.
func (rp *replayer) storageOn(g *workGroup, target string) (decimal.Decimal, []ReplayAssumption) {
	total, carried := decimal.Zero, decimal.Zero
	nCarried := 0
	var as []ReplayAssumption
	usedRate := map[string]bool{}
	for _, c := range g.charges {
		if c.Kind != ledger.KindStorage && c.Kind != ledger.KindImage && c.Kind != ledger.KindSnapshot {
			continue
		}
		what := billing.RateStorage
		if c.Kind != ledger.KindStorage {
			what = billing.RateImage
		}
		r, ok := rp.rates.Rate(target, what)
		if !ok && what == billing.RateImage {
			r, ok = rp.rates.Rate(target, billing.RateStorage)
		}
		gb, qok := gbDays(c)
		if !ok || !qok {
			carried = carried.Add(c.Cost)
			nCarried++
			continue
		}
		if !usedRate[r.What] {
			usedRate[r.What] = true
			as = append(as, rp.note(rateAssumption(r, target+" "+r.What)))
		}
		if !c.InstanceRan && !rp.chargedWhileStopped(target, billing.RateStorage, r) {
			continue
		}
		billable := gb.Sub(r.FreeGB.Mul(chargeDays(c)))
		if billable.IsPositive() {
			total = total.Add(billable.Mul(r.Price))
		}
	}
	if nCarried > 0 {
		as = append(as, ReplayAssumption{What: target + " storage carried as billed", Value: fmt.Sprintf("%d charge(s), %s %s", nCarried, carried.String(), g.key.currency),
			Source: "no storage price of " + target + " known, or no GB in the bill", Confidence: billing.ConfidenceGuess})
	}
	return trimZeros(total.Round(8)).Add(carried), as
}

// networkOn prices g's traffic charges on target.
func (rp *replayer) networkOn(g *workGroup, target string) (decimal.Decimal, []ReplayAssumption) {
	total, carried := decimal.Zero, decimal.Zero
	nCarried, n := 0, 0
	r, ok := rp.rates.Rate(target, billing.RateTraffic)
	for _, c := range g.charges {
		if c.Kind != ledger.KindNetwork {
			continue
		}
		n++
		if !ok || !c.Quantity.Valid || c.Unit != "GB" {
			carried = carried.Add(c.Cost)
			nCarried++
			continue
		}
		total = total.Add(c.Quantity.Decimal.Mul(r.Price))
	}
	var as []ReplayAssumption
	if n > nCarried && ok {
		as = append(as, rp.note(rateAssumption(r, target+" traffic")))
	}
	if nCarried > 0 {
		as = append(as, ReplayAssumption{What: target + " traffic carried as billed", Value: fmt.Sprintf("%d charge(s), %s %s", nCarried, carried.String(), g.key.currency),
			Source: "no traffic price of " + target + " known, or no GB in the bill", Confidence: billing.ConfidenceGuess})
	}
	return trimZeros(total.Round(8)).Add(carried), as
}

// seatOn prices g's seat fees on target: its seat rate per day where the
// catalog has one; nothing where its policy bills no seat while stopped.
func (rp *replayer) seatOn(g *workGroup, target string) (decimal.Decimal, []ReplayAssumption) {
	total, n := decimal.Zero, 0
	r, hasRate := rp.rates.Rate(target, billing.RateSeat)
	for _, c := range g.charges {
		if c.Kind != ledger.KindSeat {
			continue
		}
		n++
		if hasRate {
			total = total.Add(r.Price.Mul(chargeDays(c)))
		}
	}
	if n == 0 {
		return total, nil
	}
	if hasRate {
		return trimZeros(total.Round(8)), []ReplayAssumption{rp.note(rateAssumption(r, target+" seat fee"))}
	}
	pol := rp.in.Policies[target]
	for _, k := range pol.ChargedWhileStopped {
		if k == ledger.KindSeat {
			return total, []ReplayAssumption{{What: target + " seat fee", Value: "billed while stopped, price unknown: 0 counted",
				Source: pol.Source, Seen: pol.Seen, Confidence: billing.ConfidenceGuess}}
		}
	}
	return total, []ReplayAssumption{rp.note(ReplayAssumption{What: target + " seat fee", Value: "none while stopped",
		Source: pol.Source, Seen: pol.Seen, Confidence: confidenceOf(pol.Source, isGuess(pol, "charged_while_stopped"))})}
}

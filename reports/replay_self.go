package reports

import (
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

// The self row: a month replayed onto the platform it ran on with the
// bill's own unit prices, and what that does not reproduce, attributed.

// selfRow replays g onto its own platform with the bill's own prices, and
// attributes what it does not reproduce.
func (rp *replayer) selfRow(g *workGroup, works []sessionWork, out *ReplayGroup) ReplayRow {
	pol, hasPol := rp.in.Policies[g.key.provider]
	row := ReplayRow{Target: g.key.provider, TargetGPU: g.text, Status: ReplaySelf, PricingModel: rp.dominantPricing(g)}
	var sum money.Sum
	var billedSecs int64 // GPU-seconds
	var sc selfScratch
	for i, s := range g.sessions {
		gpus := int64(works[i].gpus)
		if s.Prepaid {
			for _, p := range s.Parts {
				sum.Add(p.Cost)
				billedSecs += int64(p.End.Sub(p.Start)/time.Second) * gpus
			}
			continue
		}
		r, secs, atts := rp.selfSession(s, pol, hasPol, &sc)
		sum.Add(r)
		billedSecs += secs * gpus
		out.Attributions = append(out.Attributions, atts...)
	}
	replayed := trimZeros(sum.Decimal())
	out.Replayed = replayed
	row.Compute = known(replayed)
	row.GPUHours = known(decimal.NewFromInt(billedSecs).DivRound(decimal.NewFromInt(3600), 4))
	row.Storage, row.Network, row.Other = known(out.ActualStorage), known(out.ActualNetwork), known(out.ActualOther)
	row.AllIn = known(replayed.Add(out.ActualStorage).Add(out.ActualNetwork).Add(out.ActualOther))
	row.Difference = known(row.AllIn.Decimal.Sub(out.ActualAllIn))
	row.Assumptions = append(row.Assumptions, ReplayAssumption{What: "unit prices", Value: "the bill's own (cost ÷ billed time)",
		Source: "the imported bill", Confidence: billing.ConfidenceVendor})
	if hasPol {
		row.Assumptions = append(row.Assumptions, rp.policyAssumptions(pol)...)
	} else {
		row.Assumptions = append(row.Assumptions, ReplayAssumption{What: g.key.provider + " billing step", Value: "none known: the run time as it is",
			Source: "no policy of " + g.key.provider, Confidence: billing.ConfidenceGuess})
	}
	return row
}

// selfScratch is selfSession's working memory, reused from one session to
// the next (a group's sessions are replayed one after another).
type selfScratch struct {
	comps        []string
	run, charged []span
}

// selfSession replays session s onto its own platform with the bill's own
// prices: each component's cost × its run time rounded by the policy ÷ its
// billed time; what it does not reproduce is attributed. gpuSecs is the
// policy-rounded time of the components that name the GPU.
func (rp *replayer) selfSession(s *replaySession, pol replayPolicy, hasPol bool, sc *selfScratch) (replayed decimal.Decimal, gpuSecs int64, atts []ReplayAttribution) {
	// components in order of first appearance (a session has one, or a
	// few: Tencent's GPU, CPU and memory)
	sc.comps = sc.comps[:0]
	for i := range s.Parts {
		if c := s.Parts[i].Component; !slices.Contains(sc.comps, c) {
			sc.comps = append(sc.comps, c)
		}
	}
	for _, c := range sc.comps {
		var first *replayPart
		run, charged := sc.run[:0], sc.charged[:0]
		var costSum, billedSum money.Sum
		var chargedSecs int64
		for i := range s.Parts {
			p := &s.Parts[i]
			if p.Component != c {
				continue
			}
			if first == nil {
				first = p
			}
			run = append(run, span{p.Start, p.End})
			charged = append(charged, span{p.ChargeStart, p.ChargeEnd})
			chargedSecs += int64(p.ChargeEnd.Sub(p.ChargeStart) / time.Second)
			costSum.Add(p.Cost)
			billedSum.Add(p.BilledSeconds)
		}
		sc.run, sc.charged = run, charged
		cost, billed := costSum.Decimal(), billedSum.Decimal()
		runSecs := unionSeconds(run)
		allowed := runSecs
		if hasPol {
			allowed = billedSeconds(runSecs, pol.Step, pol.Minimum)
		}
		r := cost
		if billed.IsPositive() {
			r = trimZeros(cost.Mul(decimal.NewFromInt(allowed)).DivRound(billed, 8))
		}
		if rp.in.NormalizeGPU(first.GPUModel) != "" {
			gpuSecs += allowed
		}
		replayed = replayed.Add(r)
		diff := cost.Sub(r)
		if diff.Round(2).IsZero() {
			continue
		}
		var ids []int64 // the component's line items, the evidence
		for i := range s.Parts {
			if s.Parts[i].Component == c {
				ids = append(ids, s.Parts[i].ID)
			}
		}
		if diff.IsNegative() {
			atts = append(atts, ReplayAttribution{Reason: ReplayBilledBelow, Resource: s.Resource, Amount: diff, LineItemIDs: ids})
			continue
		}
		// The part billed twice: charge periods that overlap, at the
		// component's own price; the rest is rounding beyond the policy.
		twice := decimal.Zero
		if over := chargedSecs - unionSeconds(charged); over > 0 && billed.IsPositive() {
			twice = decimal.Min(diff, trimZeros(cost.Mul(decimal.NewFromInt(over)).DivRound(billed, 8)))
			atts = append(atts, ReplayAttribution{Reason: ReplayBilledTwice, Resource: s.Resource, Amount: twice, LineItemIDs: ids})
		}
		if rest := diff.Sub(twice); !rest.Round(2).IsZero() {
			atts = append(atts, ReplayAttribution{Reason: ReplayRoundingBeyond, Resource: s.Resource, Amount: rest, LineItemIDs: ids})
		}
	}
	return replayed, gpuSecs, atts
}

// dominantPricing is the pricing model of most of g's compute cost.
func (rp *replayer) dominantPricing(g *workGroup) string {
	by := map[string]decimal.Decimal{}
	for _, s := range g.sessions {
		by[s.PricingModel] = by[s.PricingModel].Add(s.Cost)
	}
	best := ledger.PricingOnDemand
	for _, pm := range []string{ledger.PricingOnDemand, ledger.PricingPackage, ledger.PricingSpot, ledger.PricingReserved} {
		if by[pm].GreaterThan(by[best]) {
			best = pm
		}
	}
	return best
}

package reports

import (
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// The --jobs view: each session of the month with the platform where it
// would have cost least (compute only, at the target's step, minimum and
// price under --as; packages are priced per session at on-demand), and
// whether moving its data there would eat the saving: the instance's
// largest disk uploaded at the rate the seed's author measured (70 GB in
// about 6 hours), the target instance billed while the upload runs.

// replayUpload is the seed's measured upload: 70 GB in 6 hours.
var replayUpload = struct {
	gb, hours  int64
	source     string
	seen, conf string
}{70, 6, "user report, 2026-11-29 (70 GB uploaded in about 6 hours at ~5 MB/s)", "2026-11-29", billing.ConfidenceUser}

// ReplayJob is one session with its cheapest platform.
type ReplayJob struct {
	Provider, Resource, GPUModel, Currency string
	Start, End                             time.Time
	RunHours                               decimal.Decimal // GPU-hours run
	Actual                                 decimal.Decimal // its compute as billed
	Replayed                               decimal.Decimal // replayed on its own platform with the bill's prices (self-replay)
	Cheapest                               string          // target slug; = Provider when nothing is cheaper
	CheapestCost                           decimal.Decimal
	Saving                                 decimal.Decimal // Replayed − CheapestCost: what moving saves, billing errors aside
	DataGB                                 decimal.NullDecimal
	UploadHours                            decimal.NullDecimal
	UploadCost                             decimal.NullDecimal // the target's GPU price × the upload's hours
	MoveEatsSaving                         bool
}

// jobs computes the --jobs view of the CNY groups.
func (rp *replayer) jobs(groups []*workGroup, targets []string) []ReplayJob {
	var out []ReplayJob
	var sc selfScratch
	for _, g := range groups {
		if g.key.currency != "CNY" || g.key.model == "" {
			continue
		}
		if rp.opts.GPU != "" && rp.in.NormalizeGPU(rp.opts.GPU) != g.key.model {
			continue
		}
		disk := instanceDisks(g)
		for _, s := range g.sessions {
			w := rp.work(s)
			j := ReplayJob{Provider: s.Provider, Resource: s.Resource, GPUModel: g.text, Currency: s.Currency,
				Start: w.start, End: w.end, Cheapest: s.Provider,
				RunHours: decimal.NewFromInt(w.runSecs*int64(w.gpus)).DivRound(decimal.NewFromInt(3600), 4)}
			j.Actual = s.Cost
			j.Replayed = j.Actual
			if !s.Prepaid {
				pol, hasPol := rp.in.Policies[s.Provider]
				j.Replayed, _, _ = rp.selfSession(s, pol, hasPol, &sc)
			}
			j.CheapestCost = j.Replayed
			var cheapestPerHour decimal.Decimal
			for _, t := range targets {
				if t == s.Provider {
					continue
				}
				od, _, ok := rp.onDemandPrice(t, g.key.model)
				if !ok {
					continue
				}
				perHour := od.PerHour
				if rp.opts.As == ledger.PricingSpot {
					if p, ok := rp.lookupPrice(t, g.key.model, ledger.PricingSpot); ok {
						perHour = p.PerHour
					} else if term, ok := rp.rates.Term(t, ledger.PricingSpot); ok {
						perHour = od.PerHour.Mul(term.Factor)
					} else {
						continue
					}
				}
				pol := rp.in.Policies[t]
				b := billedSeconds(w.runSecs, pol.Step, pol.Minimum)
				c := computeCost(b, perHour, w.gpus)
				if pol.MinimumCharge.Valid && b > 0 && c.LessThan(pol.MinimumCharge.Decimal) {
					c = pol.MinimumCharge.Decimal
				}
				if c.LessThan(j.CheapestCost) {
					j.Cheapest, j.CheapestCost, cheapestPerHour = t, c, perHour.Mul(decimal.NewFromInt(int64(w.gpus)))
				}
			}
			j.Saving = j.Replayed.Sub(j.CheapestCost)
			if gb, ok := disk[s.Resource]; ok && j.Cheapest != s.Provider {
				j.DataGB = known(gb)
				hours := gb.Mul(decimal.NewFromInt(replayUpload.hours)).DivRound(decimal.NewFromInt(replayUpload.gb), 2)
				j.UploadHours = known(hours)
				j.UploadCost = known(trimZeros(hours.Mul(cheapestPerHour).Round(8)))
				j.MoveEatsSaving = !j.UploadCost.Decimal.LessThan(j.Saving)
			}
			out = append(out, j)
		}
	}
	sort.SliceStable(out, func(i, k int) bool {
		if !out[i].Start.Equal(out[k].Start) {
			return out[i].Start.Before(out[k].Start)
		}
		return out[i].Resource < out[k].Resource
	})
	return out
}

// instanceDisks is the largest disk (GB) of each instance of g, from its
// storage charges in GB-days (GB-day ÷ the charge's days, or GB).
func instanceDisks(g *workGroup) map[string]decimal.Decimal {
	out := map[string]decimal.Decimal{}
	for _, c := range g.charges {
		if c.Kind != ledger.KindStorage || c.Instance == "" || !c.Quantity.Valid {
			continue
		}
		var gb decimal.Decimal
		switch c.Unit {
		case "GB":
			gb = c.Quantity.Decimal
		case "GB-day":
			days := chargeDays(c)
			if !days.IsPositive() {
				continue
			}
			gb = c.Quantity.Decimal.Div(days).Round(2)
		default:
			continue
		}
		if gb.GreaterThan(out[c.Instance]) {
			out[c.Instance] = gb
		}
	}
	return out
}

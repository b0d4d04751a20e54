package reports

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/sync/errgroup"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
	"github.com/gpubill/gpubill/platform"
)

// Replay: what the month's work would have cost on each platform, all-in.
//
// The work is the month's compute sessions (replay_input.go): per session
// its GPU model, count and the time it ran (the union of its items' run
// times: usage times where the bill gives them, else the charge period cut
// to the billed time), and the storage, image, snapshot, traffic and seat
// charges that served its instance. Rows are provider × currency × GPU
// model (the "group") × target platform.
//
//   - Compute on a target: per session, the run time rounded up to the
//     target's billing step and at least its minimum billed duration, ×
//     the target's price per GPU-hour × GPUs (1 when the bill names none),
//     at least the target's minimum charge. Spot uses spot prices (the
//     catalog's, else a sourced spot factor × on-demand). Package covers
//     each instance's sessions with whole package periods (a period starts
//     at the first session it covers) at factor × on-demand × the period.
//   - Storage, images and snapshots on a target: GB-days (the bill's GB·天,
//     GB × the charge period's days, GB-hours ÷ 24, GB-months × 30) minus
//     the target's free GB for the period, × its price per GB-day; nothing
//     on days the instance did not run where the target does not bill
//     stopped storage. Traffic: GB × its price per GB. A charge with no
//     known quantity, or on a target with no known price, is carried at
//     what it cost where it ran: an assumption marked "guess".
//   - Seat fees: 0 on a target whose policy bills nothing of the kind while
//     stopped, else carried as they cost.
//   - The self row (target = where it ran) prices each component of a
//     session (a run of items with the same SKU: Tencent bills GPU, CPU and
//     memory apart) with the bill's own unit price (its cost ÷ its billed
//     seconds) over the component's run time rounded by the platform's own
//     policy: where the bill follows the policy it reproduces the billed
//     compute, and what it does not reproduce is attributed: billed twice
//     (charge periods that overlap), rounding beyond the stated policy, or
//     billed below it. Prepaid items are kept as billed. Its storage,
//     traffic and seat are as billed.
//   - actual_all_in_cost: the group's compute, storage, image, snapshot,
//     network and seat charges as billed; difference = all-in − actual.
//
// Money: exact decimals; a compute cost is computed to 8 decimals per
// session. Prices are CNY: a group billed in another currency gets its
// self row only (gpubill converts no currency).
// Replay row statuses.
const (
	ReplayPriced     = "priced"
	ReplaySelf       = "self"
	ReplayNoPrice    = "no_price"
	ReplayNotOffered = "not_offered"
)

// Attribution reasons of a self-replay difference.
const (
	ReplayBilledTwice      = "billed_twice"
	ReplayRoundingBeyond   = "rounding_beyond_policy"
	ReplayBilledBelow      = "billed_below_policy"
	replayCatalogStaleDays = 90
)

// ReplayOptions selects the month, the targets and how to price.
type ReplayOptions struct {
	Month           string
	To              []string // target slugs; empty = the ten platforms
	GPU             string   // only this GPU model (any spelling); "" = all
	As              string   // on_demand (default), package or spot
	AllowEquivalent bool     // price a GPU a target lacks as its nearest class
	Jobs            bool     // also list each session with its cheapest platform
	Config          ReplayConfig
	Now             time.Time            // for the catalog's age; zero = time.Now()
	Rates           *billing.RateCatalog // nil = billing.Rates()
}

// ReplayAssumption is one fact a row rests on.
type ReplayAssumption struct {
	What, Value, Source, Seen, Confidence string
}

// ReplayRow is one group priced on one target.
type ReplayRow struct {
	Target       string
	TargetGPU    string // the GPU priced (the equivalent's name when one is used)
	Equivalent   bool
	PricingModel string
	Status       string // ReplayPriced, ReplaySelf, ReplayNoPrice, ReplayNotOffered
	GPUHours     decimal.NullDecimal
	Compute      decimal.NullDecimal
	Storage      decimal.NullDecimal
	Network      decimal.NullDecimal
	Other        decimal.NullDecimal
	AllIn        decimal.NullDecimal
	Difference   decimal.NullDecimal
	Assumptions  []ReplayAssumption
}

// Offered is false only where the catalog says the target lacks the GPU.
func (r *ReplayRow) Offered() bool { return r.Status != ReplayNotOffered }

// ReplayAttribution is a part of a self-replay difference with its cause.
type ReplayAttribution struct {
	Reason      string
	Resource    string
	Amount      decimal.Decimal // billed − replayed (negative: billed below the policy)
	LineItemIDs []int64
}

// ReplayBreakEven is a package or spot threshold on one target.
type ReplayBreakEven struct {
	Target string
	Kind   string // "package" | "spot"
	// Package: the hours a GPU must run per Period for the package to pay
	// off against on-demand; RunHours is this month's average per period.
	Period   string
	Hours    decimal.NullDecimal
	RunHours decimal.Decimal
	// Spot: the discount off the target's on-demand price at which its
	// spot price beats what the month actually cost (0..1; null: never).
	Discount     decimal.NullDecimal
	OfferedSpot  decimal.NullDecimal // the discount the catalog knows, if any
	Pays         bool                // the package pays off this month / the known spot discount beats the actual
	Source, Seen string
	Confidence   string
}

// ReplayGroup is the month's work of one GPU model on one provider.
type ReplayGroup struct {
	Provider, GPUModel, ModelKey, Currency string
	Sessions                               int
	RunHours                               decimal.Decimal // GPU-hours run (the union of run times × GPUs)
	ActualCompute, ActualStorage           decimal.Decimal
	ActualNetwork, ActualOther             decimal.Decimal
	ActualAllIn                            decimal.Decimal
	Rows                                   []ReplayRow // ranked by all-in cost
	// Self-replay: the billed compute, the compute replayed with the bill's
	// own prices under the platform's policy, and what differs, attributed.
	Replayed     decimal.Decimal
	Attributions []ReplayAttribution
	BreakEvens   []ReplayBreakEven
}

// ReplayLeftOut sums the line items the replay does not price.
type ReplayLeftOut struct {
	Provider, Currency, Kind string
	Items                    int
	Cost                     decimal.Decimal
}

// ReplayReport is the replay of one month.
type ReplayReport struct {
	Month           string
	As              string
	AllowEquivalent bool
	Targets         []string
	Groups          []ReplayGroup
	LeftOut         []ReplayLeftOut
	Foreign         []string // "provider currency" of groups replayed onto themselves only
	CatalogSeen     string   // the oldest date seen of the entries used
	CatalogAgeDays  int
	Stale           []ReplayAssumption // entries used that were seen more than 90 days ago
	CatalogStale    int                // entries of the whole catalog seen more than 90 days ago
	Jobs            []ReplayJob        // with ReplayOptions.Jobs
	JobsAsked       bool
	TZ              *time.Location // times are shown in it
}

// Replay replays opts.Month.
func Replay(src ReplaySource, opts ReplayOptions) (*ReplayReport, error) {
	if opts.Month == "" {
		return nil, fmt.Errorf("reports: replay: a month is required")
	}
	if err := checkMonth(opts.Month); err != nil {
		return nil, err
	}
	return replayOf(loadReplayInput(src, opts.Month, opts.Config), opts)
}

// memoGPUKeys remembers normalize's answers: a month has few GPU model
// spellings and many line items, and the normalisation runs regular
// expressions (60% of a 100k-row month's replay before it was kept).
// It is called side by side (the replay's input and groups are built so),
// and almost always with a spelling seen before: readers share the lock.
func memoGPUKeys(normalize func(string) string) func(string) string {
	var mu sync.RWMutex
	seen := map[string]string{}
	return func(s string) string {
		mu.RLock()
		k, ok := seen[s]
		mu.RUnlock()
		if ok {
			return k
		}
		k = normalize(s)
		mu.Lock()
		seen[s] = k
		mu.Unlock()
		return k
	}
}

// ParseReplayTargets reads --to: provider slugs or names, comma-separated.
func ParseReplayTargets(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		slug, ok := platform.Parse(f)
		if !ok {
			return nil, fmt.Errorf("%q is not a platform (%s)", f, strings.Join(replayPlatforms(), ", "))
		}
		out = append(out, slug)
	}
	return out, nil
}

// replayPlatforms are the ten platforms, in platform.All order.
func replayPlatforms() []string {
	var out []string
	for _, p := range platform.All {
		out = append(out, p.Slug)
	}
	return out
}

// replayer holds what pricing needs.
type replayer struct {
	in     *replayInput
	opts   ReplayOptions
	rates  *billing.RateCatalog
	prices map[[4]string]replayGPUPrice // provider, model key, pricing model, currency
	mu     sync.Mutex                   // guards used: groups are replayed side by side
	used   map[string]ReplayAssumption  // every sourced entry used, by what+source
}

func replayOf(in *replayInput, opts ReplayOptions) (*ReplayReport, error) {
	switch opts.As {
	case "":
		opts.As = ledger.PricingOnDemand
	case ledger.PricingOnDemand, ledger.PricingPackage, ledger.PricingSpot:
	default:
		return nil, fmt.Errorf("--as %q: want on_demand, package or spot", opts.As)
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	rates := opts.Rates
	if rates == nil {
		var err error
		if rates, err = billing.Rates(); err != nil {
			return nil, err
		}
	}
	rp := &replayer{in: in, opts: opts, rates: rates, prices: map[[4]string]replayGPUPrice{}, used: map[string]ReplayAssumption{}}
	for _, p := range in.Prices {
		rp.prices[[4]string{p.Provider, p.GPUModel, p.PricingModel, p.Currency}] = p
	}
	for _, p := range rates.GPUPrices { // the rules' catalog wins where both have one
		k := [4]string{p.Provider, in.NormalizeGPU(p.GPUModel), p.PricingModel, p.Currency}
		if _, ok := rp.prices[k]; !ok {
			rp.prices[k] = replayGPUPrice{Provider: p.Provider, GPUModel: k[1], GPUModelText: p.GPUModel,
				PricingModel: p.PricingModel, Currency: p.Currency, PerHour: p.PerHour, Source: p.Source, Seen: p.Seen,
				Confidence: p.Confidence}
		}
	}
	targets := opts.To
	if len(targets) == 0 {
		targets = replayPlatforms()
	}
	rep := &ReplayReport{Month: in.Month, As: opts.As, AllowEquivalent: opts.AllowEquivalent, Targets: targets, TZ: in.TZ}
	gpuFilter := ""
	if opts.GPU != "" {
		if gpuFilter = in.NormalizeGPU(opts.GPU); gpuFilter == "" {
			return nil, fmt.Errorf("--gpu %q names no GPU model", opts.GPU)
		}
	}
	groups := rp.group()
	var picked []*workGroup
	for _, g := range groups {
		if gpuFilter != "" && g.key.model != gpuFilter {
			continue
		}
		picked = append(picked, g)
		if g.key.currency != "CNY" {
			rep.Foreign = append(rep.Foreign, g.key.provider+" "+g.key.currency)
		}
	}
	// Groups share nothing they write but the entries used (rp.note):
	// they are replayed side by side, each into its own place.
	if len(picked) > 0 {
		rep.Groups = make([]ReplayGroup, len(picked))
	}
	var eg errgroup.Group
	eg.SetLimit(runtime.GOMAXPROCS(0))
	for i, g := range picked {
		eg.Go(func() error {
			rep.Groups[i] = rp.replayGroup(g, targets)
			return nil
		})
	}
	_ = eg.Wait() // replayGroup returns no error
	rep.Foreign = uniqueSorted(rep.Foreign)
	rep.LeftOut = rp.leftOut(groups)
	if opts.Jobs {
		rep.JobsAsked = true
		rep.Jobs = rp.jobs(groups, targets)
	}
	rp.age(rep)
	return rep, nil
}

func uniqueSorted(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

type groupKey struct{ provider, currency, model string }

// workGroup is a group being replayed.
type workGroup struct {
	key      groupKey
	text     string // the model as the bill writes it
	sessions []*replaySession
	charges  []*replayCharge
}

// group puts every session and every charge into its group.
func (rp *replayer) group() []*workGroup {
	byKey := map[groupKey]*workGroup{}
	var order []*workGroup
	instGroup := map[[2]string]*workGroup{} // provider, resource → group (where its compute cost most)
	instCost := map[[2]string]decimal.Decimal{}
	provCost := map[[3]string]decimal.Decimal{} // provider, currency, model → compute
	for i := range rp.in.Sessions {
		s := &rp.in.Sessions[i]
		model, text := "", ""
		for _, p := range s.Parts {
			if k := rp.in.NormalizeGPU(p.GPUModel); k != "" {
				model, text = k, p.GPUModel
				break
			}
		}
		k := groupKey{s.Provider, s.Currency, model}
		g := byKey[k]
		if g == nil {
			g = &workGroup{key: k, text: text}
			byKey[k] = g
			order = append(order, g)
		}
		g.sessions = append(g.sessions, s)
		cost := s.Cost
		ik := [2]string{s.Provider, s.Resource}
		if c, ok := instCost[ik]; !ok || cost.GreaterThan(c) {
			instCost[ik], instGroup[ik] = cost, g
		}
		pk := [3]string{s.Provider, s.Currency, model}
		provCost[pk] = provCost[pk].Add(cost)
	}
	// The group of a provider and currency that cost most takes the charges
	// that serve no known instance.
	dominant := map[[2]string]*workGroup{}
	for _, g := range order {
		pc := [2]string{g.key.provider, g.key.currency}
		d := dominant[pc]
		if d == nil || provCost[[3]string{g.key.provider, g.key.currency, g.key.model}].GreaterThan(
			provCost[[3]string{d.key.provider, d.key.currency, d.key.model}]) {
			dominant[pc] = g
		}
	}
	for i := range rp.in.Charges {
		c := &rp.in.Charges[i]
		g := instGroup[[2]string{c.Provider, c.Instance}]
		if g == nil || g.key.currency != c.Currency {
			g = dominant[[2]string{c.Provider, c.Currency}]
		}
		if g == nil {
			continue // no compute of the provider: left out (leftOut)
		}
		g.charges = append(g.charges, c)
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i].key, order[j].key
		if a.provider != b.provider {
			return platform.Rank(a.provider) < platform.Rank(b.provider)
		}
		if a.currency != b.currency {
			return a.currency < b.currency
		}
		return a.model < b.model
	})
	return order
}

// leftOut sums what no group prices: the input's other line items, and
// charges of a provider and currency with no compute.
func (rp *replayer) leftOut(groups []*workGroup) []ReplayLeftOut {
	has := map[[2]string]bool{}
	for _, g := range groups {
		has[[2]string{g.key.provider, g.key.currency}] = true
	}
	sums := map[[3]string]*ReplayLeftOut{}
	add := func(c *replayCharge, kind string) {
		k := [3]string{c.Provider, c.Currency, kind}
		s := sums[k]
		if s == nil {
			s = &ReplayLeftOut{Provider: c.Provider, Currency: c.Currency, Kind: kind}
			sums[k] = s
		}
		s.Items++
		s.Cost = s.Cost.Add(c.Cost)
	}
	for i := range rp.in.LeftOut {
		add(&rp.in.LeftOut[i], rp.in.LeftOut[i].Kind)
	}
	for i := range rp.in.Charges {
		if c := &rp.in.Charges[i]; !has[[2]string{c.Provider, c.Currency}] {
			add(c, c.Kind)
		}
	}
	out := make([]ReplayLeftOut, 0, len(sums))
	for _, s := range sums {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Provider != b.Provider {
			return platform.Rank(a.Provider) < platform.Rank(b.Provider)
		}
		if a.Currency != b.Currency {
			return a.Currency < b.Currency
		}
		return a.Kind < b.Kind
	})
	return out
}

// Time arithmetic.

type span struct{ start, end time.Time }

// unionSeconds is the length of the union of spans, in whole seconds.
func unionSeconds(spans []span) int64 {
	sort.Slice(spans, func(i, j int) bool { return spans[i].start.Before(spans[j].start) })
	var total int64
	var cur span
	open := false
	for _, s := range spans {
		if !s.end.After(s.start) {
			continue
		}
		if open && !s.start.After(cur.end) {
			if s.end.After(cur.end) {
				cur.end = s.end
			}
			continue
		}
		if open {
			total += int64(cur.end.Sub(cur.start) / time.Second)
		}
		cur, open = s, true
	}
	if open {
		total += int64(cur.end.Sub(cur.start) / time.Second)
	}
	return total
}

// billedSeconds is secs of run time as a platform bills it: rounded up to
// its step, at least its minimum (a run of no time bills nothing).
func billedSeconds(secs int64, step, minimum time.Duration) int64 {
	if secs <= 0 {
		return 0
	}
	if st := int64(step / time.Second); st > 1 {
		secs = (secs + st - 1) / st * st
	}
	if m := int64(minimum / time.Second); secs < m {
		secs = m
	}
	return secs
}

// computeCost is billed seconds × price per GPU-hour × GPUs, 8 decimals.
func computeCost(billedSecs int64, perHour decimal.Decimal, gpus int) decimal.Decimal {
	return trimZeros(decimal.NewFromInt(billedSecs).Mul(perHour).Mul(decimal.NewFromInt(int64(gpus))).DivRound(decimal.NewFromInt(3600), 8))
}

// hourPricer prices GPU-seconds at one price per GPU-hour as computeCost
// does, to 8 decimals, with one division per distinct remainder: q
// GPU-seconds are k whole hours, k × the price (exact), and r < 3600
// seconds, whose rounded price is added. The sum is rounded as computeCost
// rounds it, since k × the price has 8 decimals or fewer.
type hourPricer struct {
	perHour decimal.Decimal
	rest    map[int64]decimal.Decimal // r → r seconds' price, 8 decimals
}

func newHourPricer(perHour decimal.Decimal) *hourPricer {
	return &hourPricer{perHour: perHour, rest: map[int64]decimal.Decimal{}}
}

// cost is computeCost(billedSecs, the price, gpus).
func (h *hourPricer) cost(billedSecs int64, gpus int) decimal.Decimal {
	q := billedSecs * int64(gpus)
	if h.perHour.Exponent() < -8 || gpus <= 0 || q < 0 || q/int64(gpus) != billedSecs {
		return computeCost(billedSecs, h.perHour, gpus)
	}
	k, r := q/3600, q%3600
	rest, ok := h.rest[r]
	if !ok {
		rest = decimal.NewFromInt(r).Mul(h.perHour).DivRound(decimal.NewFromInt(3600), 8)
		h.rest[r] = rest
	}
	return trimZeros(h.perHour.Mul(decimal.NewFromInt(k)).Add(rest))
}

// partsCost is the billed cost of parts.
func partsCost(parts []replayPart) decimal.Decimal {
	var sum money.Sum
	for _, p := range parts {
		sum.Add(p.Cost)
	}
	return sum.Decimal()
}

// trimZeros drops the trailing zeros a division to 8 decimals leaves
// ("87.42000000" → "87.42", "87.00000000" → "87"): the value is the same,
// and so is the form, whatever form d had.
func trimZeros(d decimal.Decimal) decimal.Decimal {
	if d.IsInteger() {
		return d.Round(0)
	}
	return d.Normalize()
}

// sessionWork is what a session asks of a target: its GPU model, GPUs and
// run time (the union of the run times of its GPU component: the parts
// that name the model, else all of them).
type sessionWork struct {
	s       *replaySession
	gpus    int
	known   bool // the bill names the GPU count
	runSecs int64
	start   time.Time
	end     time.Time
}

func (rp *replayer) work(s *replaySession) sessionWork {
	w := sessionWork{s: s}
	var spans []span
	for _, p := range s.Parts {
		if rp.in.NormalizeGPU(p.GPUModel) == "" {
			continue
		}
		spans = append(spans, span{p.Start, p.End})
		if p.GPUCount > w.gpus {
			w.gpus = p.GPUCount
		}
	}
	if len(spans) == 0 {
		for _, p := range s.Parts {
			spans = append(spans, span{p.Start, p.End})
		}
	}
	w.known = w.gpus > 0
	if !w.known {
		w.gpus = 1
	}
	for i, sp := range spans {
		if i == 0 || sp.start.Before(w.start) {
			w.start = sp.start
		}
		if i == 0 || sp.end.After(w.end) {
			w.end = sp.end
		}
	}
	w.runSecs = unionSeconds(spans)
	return w
}

// replayGroup prices g on the targets and itself.
func (rp *replayer) replayGroup(g *workGroup, targets []string) ReplayGroup {
	out := ReplayGroup{Provider: g.key.provider, GPUModel: g.text, ModelKey: g.key.model, Currency: g.key.currency,
		Sessions: len(g.sessions)}
	works := make([]sessionWork, len(g.sessions))
	var runGPUSecs int64
	unknownCount := 0
	var compute money.Sum
	for i, s := range g.sessions {
		works[i] = rp.work(s)
		runGPUSecs += works[i].runSecs * int64(works[i].gpus)
		if !works[i].known {
			unknownCount++
		}
		compute.Add(s.Cost)
	}
	out.ActualCompute = compute.Decimal()
	out.RunHours = decimal.NewFromInt(runGPUSecs).DivRound(decimal.NewFromInt(3600), 4)
	var network, other, storage money.Sum
	for _, c := range g.charges {
		switch c.Kind {
		case ledger.KindNetwork:
			network.Add(c.Cost)
		case ledger.KindSeat:
			other.Add(c.Cost)
		default:
			storage.Add(c.Cost)
		}
	}
	out.ActualNetwork, out.ActualOther, out.ActualStorage = network.Decimal(), other.Decimal(), storage.Decimal()
	out.ActualAllIn = out.ActualCompute.Add(out.ActualStorage).Add(out.ActualNetwork).Add(out.ActualOther)

	self := rp.selfRow(g, works, &out)
	rows := []ReplayRow{self}
	if g.key.currency == "CNY" {
		for _, t := range targets {
			if t == g.key.provider {
				continue
			}
			rows = append(rows, rp.targetRow(g, works, t, unknownCount, out.ActualAllIn))
		}
	}
	rankReplayRows(rows)
	out.Rows = rows
	if g.key.currency == "CNY" {
		out.BreakEvens = rp.breakEvens(g, works, targets, &out)
	}
	return out
}

// rankReplayRows orders rows by all-in cost (rows without one after,
// "not offered" last), then by platform.
func rankReplayRows(rows []ReplayRow) {
	tier := func(r *ReplayRow) int {
		switch {
		case r.AllIn.Valid:
			return 0
		case r.Status == ReplayNotOffered:
			return 2
		}
		return 1
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := &rows[i], &rows[j]
		if ta, tb := tier(a), tier(b); ta != tb {
			return ta < tb
		}
		if a.AllIn.Valid && b.AllIn.Valid {
			if c := a.AllIn.Decimal.Cmp(b.AllIn.Decimal); c != 0 {
				return c < 0
			}
		}
		return platform.Rank(a.Target) < platform.Rank(b.Target)
	})
}

// confidenceOf grades a policy or catalog source; an entry without one
// (a config override or an imported catalog may leave it out) is a guess.
func confidenceOf(source string, guess bool) string {
	switch {
	case guess, strings.TrimSpace(source) == "":
		return billing.ConfidenceGuess
	case strings.HasPrefix(strings.TrimSpace(source), "https://"):
		return billing.ConfidenceVendor
	}
	return billing.ConfidenceUser
}

func isGuess(pol replayPolicy, field string) bool {
	for _, g := range pol.Guesses {
		if g == field {
			return true
		}
	}
	return false
}

// note records a sourced entry as used (for the catalog's age) and returns it.
func (rp *replayer) note(a ReplayAssumption) ReplayAssumption {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.used[a.What+"\x00"+a.Source+"\x00"+a.Seen] = a
	return a
}

func (rp *replayer) policyAssumptions(pol replayPolicy) []ReplayAssumption {
	step := "none stated (the run time as it is)"
	if pol.Step > 0 {
		step = formatWhatIfDuration(pol.Step)
	}
	out := []ReplayAssumption{rp.note(ReplayAssumption{What: pol.Provider + " billing step", Value: step, Source: pol.Source, Seen: pol.Seen,
		Confidence: confidenceOf(pol.Source, isGuess(pol, "billing_step"))})}
	if pol.Minimum > 0 {
		out = append(out, rp.note(ReplayAssumption{What: pol.Provider + " minimum billed", Value: formatWhatIfDuration(pol.Minimum),
			Source: pol.Source, Seen: pol.Seen, Confidence: confidenceOf(pol.Source, isGuess(pol, "minimum_billed"))}))
	}
	return out
}

// lookupPrice finds provider's price of model under pricingModel (CNY):
// the exact model, else an entry naming the model without its memory.
func (rp *replayer) lookupPrice(provider, model, pricingModel string) (replayGPUPrice, bool) {
	if p, ok := rp.prices[[4]string{provider, model, pricingModel, "CNY"}]; ok {
		return p, true
	}
	if i := strings.LastIndex(model, "-"); i > 0 && strings.HasSuffix(model, "G") {
		if p, ok := rp.prices[[4]string{provider, model[:i], pricingModel, "CNY"}]; ok {
			return p, true
		}
	}
	return replayGPUPrice{}, false
}

func (rp *replayer) notOffered(provider, model string) (billing.NotOffered, bool) {
	for _, n := range rp.rates.NotOffered {
		if n.Provider == provider && rp.in.NormalizeGPU(n.GPUModel) == model {
			return n, true
		}
	}
	return billing.NotOffered{}, false
}

// onDemandPrice is target's on-demand price of model, or of an equivalent
// when allowed: the price, the model priced, and the equivalence used.
func (rp *replayer) onDemandPrice(target, model string) (replayGPUPrice, *billing.Equivalent, bool) {
	if p, ok := rp.lookupPrice(target, model, ledger.PricingOnDemand); ok {
		return p, nil, true
	}
	if rp.opts.AllowEquivalent {
		for i := range rp.rates.Equivalents {
			e := &rp.rates.Equivalents[i]
			if rp.in.NormalizeGPU(e.GPUModel) != model {
				continue
			}
			if p, ok := rp.lookupPrice(target, rp.in.NormalizeGPU(e.Equivalent), ledger.PricingOnDemand); ok {
				return p, e, true
			}
		}
	}
	return replayGPUPrice{}, nil, false
}

func priceAssumption(p replayGPUPrice, what string) ReplayAssumption {
	c := p.Confidence
	if c == "" {
		c = confidenceOf(p.Source, false)
	}
	return ReplayAssumption{What: p.Provider + " " + what, Value: "¥" + p.PerHour.String() + "/GPU-hour", Source: p.Source, Seen: p.Seen,
		Confidence: c}
}

// targetRow prices g on target.
func (rp *replayer) targetRow(g *workGroup, works []sessionWork, target string, unknownCount int, actual decimal.Decimal) ReplayRow {
	row := ReplayRow{Target: target, TargetGPU: g.text, PricingModel: rp.opts.As}
	model := g.key.model
	if model == "" {
		row.Status = ReplayNoPrice
		return row
	}
	od, eq, ok := rp.onDemandPrice(target, model)
	if eq != nil {
		row.Equivalent, row.TargetGPU = true, eq.Equivalent
	}
	if !ok {
		row.Status = ReplayNoPrice
		if n, no := rp.notOffered(target, model); no {
			row.Status = ReplayNotOffered
			row.Assumptions = append(row.Assumptions, rp.note(ReplayAssumption{What: "not offered", Value: g.text,
				Source: n.Source, Seen: n.Seen, Confidence: n.Confidence}))
		}
		return row
	}
	row.Status = ReplayPriced
	pol := rp.in.Policies[target]
	if eq != nil {
		row.Assumptions = append(row.Assumptions, rp.note(ReplayAssumption{What: "equivalent GPU", Value: g.text + " → " + eq.Equivalent,
			Source: eq.Source, Seen: eq.Seen, Confidence: eq.Confidence}))
	}
	row.Assumptions = append(row.Assumptions, rp.note(priceAssumption(od, od.GPUModelText+" on_demand")))
	// The price per GPU-hour under --as, and for a package its period.
	perHour, period := od.PerHour, time.Duration(0)
	switch rp.opts.As {
	case ledger.PricingSpot, ledger.PricingPackage:
		if p, ok := rp.lookupPrice(target, rp.in.NormalizeGPU(row.TargetGPU), rp.opts.As); ok && rp.opts.As == ledger.PricingSpot {
			perHour = p.PerHour
			row.Assumptions = append(row.Assumptions, rp.note(priceAssumption(p, p.GPUModelText+" spot")))
		} else if t, ok := rp.rates.Term(target, rp.opts.As); ok {
			perHour = od.PerHour.Mul(t.Factor)
			period = t.PeriodDuration()
			row.Assumptions = append(row.Assumptions, rp.note(ReplayAssumption{What: rp.opts.As + " price", Value: "× " + t.Factor.String() +
				" of on-demand" + periodSuffix(t.Period), Source: t.Source, Seen: t.Seen, Confidence: t.Confidence}))
		} else {
			row.Status = ReplayNoPrice
			row.Assumptions = append(row.Assumptions, ReplayAssumption{What: rp.opts.As + " price", Value: "none known",
				Source: "billing/rates.json", Confidence: billing.ConfidenceGuess})
			return row
		}
	}
	if rp.opts.As != ledger.PricingPackage || period == 0 {
		row.Assumptions = append(row.Assumptions, rp.policyAssumptions(pol)...)
	}
	if unknownCount > 0 {
		row.Assumptions = append(row.Assumptions, ReplayAssumption{What: "GPU count", Value: fmt.Sprintf("1 for %d session(s) whose bill names none", unknownCount),
			Source: "the imported bill", Confidence: billing.ConfidenceGuess})
	}
	var compute decimal.Decimal
	var gpuSecs int64
	if period > 0 {
		compute, gpuSecs = packageCost(works, period, perHour)
	} else {
		var sum money.Sum
		price := newHourPricer(perHour)
		for _, w := range works {
			b := billedSeconds(w.runSecs, pol.Step, pol.Minimum)
			c := price.cost(b, w.gpus)
			if pol.MinimumCharge.Valid && b > 0 && c.LessThan(pol.MinimumCharge.Decimal) {
				c = pol.MinimumCharge.Decimal
			}
			sum.Add(c)
			gpuSecs += b * int64(w.gpus)
		}
		compute = sum.Decimal()
	}
	if hasPrepaid(works) {
		row.Assumptions = append(row.Assumptions, ReplayAssumption{What: "prepaid time", Value: "a package's whole period counts as run time",
			Source: "the imported bill (a package bills whether on or off)", Confidence: billing.ConfidenceGuess})
	}
	row.GPUHours = known(decimal.NewFromInt(gpuSecs).DivRound(decimal.NewFromInt(3600), 4))
	row.Compute = known(compute)
	st, stA := rp.storageOn(g, target)
	nw, nwA := rp.networkOn(g, target)
	ot, otA := rp.seatOn(g, target)
	row.Assumptions = append(append(append(row.Assumptions, stA...), nwA...), otA...)
	row.Storage, row.Network, row.Other = known(st), known(nw), known(ot)
	row.AllIn = known(compute.Add(st).Add(nw).Add(ot))
	row.Difference = known(row.AllIn.Decimal.Sub(actual))
	return row
}

func periodSuffix(p string) string {
	if p == "" {
		return ""
	}
	return ", per " + p
}

func hasPrepaid(works []sessionWork) bool {
	for _, w := range works {
		if w.s.Prepaid {
			return true
		}
	}
	return false
}

// packageCost covers each instance's sessions with whole package periods:
// a period starts at the first session not yet covered and covers what
// starts within it; a session running past its end starts another period
// where it ended.
func packageCost(works []sessionWork, period time.Duration, perHour decimal.Decimal) (decimal.Decimal, int64) {
	byInst := map[string][]sessionWork{}
	var insts []string
	for _, w := range works {
		k := w.s.Resource
		if _, ok := byInst[k]; !ok {
			insts = append(insts, k)
		}
		byInst[k] = append(byInst[k], w)
	}
	cost, gpuSecs := decimal.Zero, int64(0)
	per := int64(period / time.Second)
	for _, k := range insts {
		ws := byInst[k]
		sort.Slice(ws, func(i, j int) bool { return ws[i].start.Before(ws[j].start) })
		var until time.Time
		gpus := 1
		n := int64(0)
		for _, w := range ws {
			gpus = max(gpus, w.gpus)
			if w.runSecs == 0 {
				continue
			}
			if n == 0 || !w.start.Before(until) {
				until = w.start
			}
			for w.end.After(until) {
				until = until.Add(period)
				n++
			}
		}
		cost = cost.Add(computeCost(n*per, perHour, gpus))
		gpuSecs += n * per * int64(gpus)
	}
	return cost, gpuSecs
}

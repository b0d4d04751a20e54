package reports

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

// The instances report: every instance of the month with its state as far
// as the bills show, what it cost, its findings and when its platform will
// delete it.
//
// Which charges belong to an instance: a compute line item belongs to its
// resource_id; any other line item to its parent_resource_id, else to its
// own resource_id (Tencent components, the gpubill template). Line items
// with neither (account-level charges: vouchers, platform fees) belong to
// no instance and are left out. A disk or image that names no parent is an
// "instance" of its own: the bills cannot tell it apart from a stopped
// instance whose bill only shows storage.
//
// State, at the end of the provider's data in the month (the latest charge
// period end of its line items of the month, or the end of the billing
// period where a monthly bill brought the month: "data end"):
//   - running: its last compute (usage_end wins over the charge period, as
//     the rules judge it) ends within one billing step (at least a minute)
//     of the data end; a prepaid package covering the end counts;
//   - stopped: not running, but still billed (storage, seat, image …, or
//     compute of a disk-only resource) on the last day of the data;
//   - released: not running, nothing billed on the last day, and its
//     platform's release rule (last compute + Policy.ReleaseDays) has passed
//     by the data end;
//   - unknown: anything else (shut down with nothing billed and no release
//     rule passed: stopped for free, or released by the user; the bills do
//     not say which). The ledger records no explicit release, so none is read.
//
// Name: the resource name on the instance's compute that ended last (of
// those that carry one, this month or, for an instance that did not run
// this month, in the look-back), else the name on its own first other
// charge of the month. Every choice here is by time and id, so the month can
// be read in any order (side by side, ledger.EachLineItem).
//
// Last compute looks back into earlier months of the ledger for an instance
// that did not run this month (an instance stopped all month still costs,
// and its deletion date depends on when it last ran); first compute is the
// first of the month (none for an instance that did not run this month).
// The deletion date is last compute + the policy's release days, in the
// report's zone; none for a running instance or a platform without a
// release rule.

// Instance states.
const (
	StateRunning  = "running"
	StateStopped  = "stopped"
	StateReleased = "released"
	StateUnknown  = "unknown"
)

// InstancesOptions selects the month and the reference data of the
// instances report.
type InstancesOptions struct {
	Month  string         // billing period YYYY-MM (required)
	TZ     *time.Location // zone of the deletion dates (days are added in it); nil = Asia/Shanghai
	Policy billing.PolicyLookup
}

// InstanceRow is one instance in one currency (an instance billed in two
// currencies, which no known platform does, gets two rows).
type InstanceRow struct {
	Provider      string
	ResourceID    string
	ResourceName  string   // of its latest compute, else of its own line items
	GPUModel      string   // of its latest compute
	PricingModels []string // of its compute this month, in ledger.PricingModels order
	State         string   // StateRunning …
	FirstCompute  time.Time
	LastCompute   time.Time // may lie in an earlier month
	DataEnd       time.Time // end of the provider's data in the month
	ReleaseDays   int       // of the policy; 0 = no release rule
	DeleteAt      time.Time // zero = none
	DeleteGuess   bool      // the policy's release_days is a guess
	Currency      string
	Items         int
	ComputeCost   decimal.Decimal
	OtherCost     decimal.Decimal // storage, image, snapshot, network, seat … attributed to it
	TotalCost     decimal.Decimal
	Findings      int                 // stored findings of the month (not resolved) about it
	AtRisk        decimal.NullDecimal // their money at risk, each line item once; unknown when none is known
}

// pendingDeletion reports a deletion date that has not happened as far as
// the bills show.
func (r *InstanceRow) pendingDeletion() bool {
	return !r.DeleteAt.IsZero() && r.State != StateReleased
}

// InstanceTotal sums the rows of one currency.
type InstanceTotal struct {
	Currency    string
	Instances   int
	ComputeCost decimal.Decimal
	OtherCost   decimal.Decimal
	TotalCost   decimal.Decimal
	Findings    int
	AtRisk      decimal.NullDecimal
}

// InstancesReport is the month's instances, most urgent deletion first
// (pending deletion dates, earliest first), then by currency and cost.
type InstancesReport struct {
	Month     string
	Instances []InstanceRow
	Totals    []InstanceTotal
}

// instKey names an instance.
type instKey struct{ provider, id string }

// instance gathers one instance's line items while the report is built.
type instance struct {
	key          instKey
	items        []*ledger.LineItem // of the month, once collect has read them
	sums         []instSum          // of the month, per currency in order of appearance
	ran          bool               // it has a last compute (lastEnd, lastID)
	lastID       int64              // of its last compute
	lastEnd      time.Time
	firstStart   time.Time
	lastCharge   time.Time // latest end of a positive usage charge of the month
	name, gpu    string
	runName      nameAt // the name on the compute that ended last (of those with a name)
	otherName    nameAt // the name on the instance's own first other charge (of those with one)
	pricing      map[string]bool
	state        string
	releaseAt    time.Time
	releaseDays  int
	releaseGuess bool
	dataEnd      time.Time
	into         *instance // the instance of another id range this one was merged into (scanInstances)
}

// instSum is the money of an instance's line items of one currency.
type instSum struct {
	currency              string
	first                 int64 // the smallest id of its line items (scanInstances: order of appearance by id)
	items                 int
	compute, other, total money.Sum
}

// sum is the instSum of currency, new if need be.
func (in *instance) sum(currency string) *instSum {
	for i := range in.sums {
		if in.sums[i].currency == currency {
			return &in.sums[i]
		}
	}
	in.sums = append(in.sums, instSum{currency: currency})
	return &in.sums[len(in.sums)-1]
}

// add counts a line item of kind and billed cost in s.
func (s *instSum) add(kind string, billed *money.Sum) {
	s.items++
	if kind == ledger.KindCompute {
		s.compute.AddSum(billed)
	} else {
		s.other.AddSum(billed)
	}
	s.total.AddSum(billed)
}

// instanceSet is the month's instances, shared by the instances and refunds
// reports. loadInstances keeps no line item: the month is read again by
// collect for the items a report needs.
type instanceSet struct {
	month   string
	byKey   map[instKey]*instance
	order   []*instance
	items   map[int64]*ledger.LineItem    // the line items collect read, by id
	owner   []instOwner                   // the instance of each line item that has one, by id
	comp    map[instKey]instKey           // a component's own id → its instance
	dataEnd map[string]time.Time          // per provider, in the month
	costs   map[int64]decimal.NullDecimal // billed cost of the line items of the month loadInstances was asked for
}

// instOwner is the instance a line item belongs to.
type instOwner struct {
	id int64
	in *instance
}

// ownerOf is the instance line item id belongs to (nil for none).
func (s *instanceSet) ownerOf(id int64) *instance {
	i, ok := slices.BinarySearchFunc(s.owner, id, func(o instOwner, id int64) int { return cmp.Compare(o.id, id) })
	if !ok {
		return nil
	}
	return s.owner[i].in
}

// positiveUsage reports a charge that shows its resource existed: a
// positive usage or purchase charge.
func instPositiveUsage(li *ledger.LineItem) bool {
	switch li.ChargeCategory {
	case ledger.CategoryCredit, ledger.CategoryTax, ledger.CategoryAdjustment:
		return false
	}
	return li.BilledCost.IsPositive()
}

// loadInstances reads the month's line items (and, for instances that did
// not run this month, their last compute of an earlier month) and judges
// each instance's state; s.costs has the billed
// cost of line items costsOf wants (nil: none), of those the pass read
// once they were wanted.
func loadInstances(ctx context.Context, db *ledger.DB, month string, loc *time.Location, policy billing.PolicyLookup, costsOf *wantedCosts) (*instanceSet, error) {
	if err := checkInstancesMonth(month); err != nil {
		return nil, err
	}
	if loc == nil {
		loc = ledger.DefaultTZ()
	}
	s, err := scanInstances(ctx, db, month, costsOf)
	if err != nil {
		return nil, fmt.Errorf("reports: instances: %w", err)
	}
	if err := s.finish(ctx, db, loc, policy); err != nil {
		return nil, err
	}
	return s, nil
}

// checkInstancesMonth checks the month of an instances or refunds report.
func checkInstancesMonth(month string) error {
	if month == "" {
		return fmt.Errorf("reports: instances: a month is required")
	}
	return checkMonth(month)
}

// finish puts the instances gathered in key order, finds the last compute
// of those that did not run in the month, names them and judges them.
func (s *instanceSet) finish(ctx context.Context, db *ledger.DB, loc *time.Location, policy billing.PolicyLookup) error {
	slices.SortFunc(s.order, func(a, b *instance) int {
		return cmp.Or(strings.Compare(a.key.provider, b.key.provider), strings.Compare(a.key.id, b.key.id))
	})
	if err := s.lookBack(ctx, db); err != nil {
		return err
	}
	// A monthly bill covers its month to the end (billing.BillPeriodEnds):
	// an instance of it runs at the end of the data only if its last charge
	// reaches that end.
	covered, err := billing.BillPeriodEnds(ctx, db, loc)
	if err != nil {
		return fmt.Errorf("reports: instances: %w", err)
	}
	for prov, end := range s.dataEnd {
		if c := covered[ledger.PeriodKey{Provider: prov, BillingPeriod: s.month}]; c.After(end) {
			s.dataEnd[prov] = c
		}
	}
	for _, in := range s.order {
		in.chooseName()
		in.judge(s.dataEnd[in.key.provider], loc, policy)
	}
	return nil
}

// collect reads the line items of the month with an id in ids, and every
// item of the instances for which all is true, into s.items and in.items
// (in ledger.CompareItems order). The scan knows every id an instance
// owns, so the items are read by id (ledger.LineItemsByID), not by walking
// the month again.
func (s *instanceSet) collect(ctx context.Context, db *ledger.DB, ids map[int64]bool, all func(*instance) bool) error {
	items, err := db.LineItemsByID(ctx, s.month, s.wanted(ids, all))
	if err != nil {
		return fmt.Errorf("reports: instances: %w", err)
	}
	for _, li := range items {
		s.items[li.ID] = li
		if in := s.ownerOf(li.ID); in != nil && all(in) {
			in.items = append(in.items, li)
		}
	}
	for _, in := range s.order {
		slices.SortFunc(in.items, ledger.CompareItems)
	}
	return nil
}

// wanted is the ids collect reads, sorted and distinct: those of ids and
// those the instances for which all is true own.
func (s *instanceSet) wanted(ids map[int64]bool, all func(*instance) bool) []int64 {
	out := make([]int64, 0, len(ids))
	for id := range ids {
		out = append(out, id)
	}
	whole := map[*instance]bool{}
	for _, in := range s.order {
		if all(in) {
			whole[in] = true
		}
	}
	if len(whole) > 0 {
		for _, o := range s.owner {
			if whole[o.in] {
				out = append(out, o.id)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// seeCompute keeps the compute line item id (of GPU model gpu and resource
// name) as the instance's last compute if it ends last, and its name if it
// is the named compute that ends last.
func (in *instance) seeCompute(id int64, gpu, name string, end time.Time) {
	if !in.ran || end.After(in.lastEnd) || (end.Equal(in.lastEnd) && id > in.lastID) {
		in.ran, in.lastID, in.lastEnd = true, id, end
		in.gpu = gpu
	}
	if name != "" {
		in.runName.keep(name, end, id, true)
	}
}

// rank places a line item among others: by a time, then its id.
type rank struct {
	at time.Time
	id int64
}

// before reports whether r ranks before (at, id): an earlier time, or the
// same time and a smaller id.
func (r rank) before(at time.Time, id int64) bool {
	if c := r.at.Compare(at); c != 0 {
		return c < 0
	}
	return r.id < id
}

// nameAt is a name seen on a line item, with the rank of that item.
type nameAt struct {
	name string
	rank
}

// keep takes name if n has none yet, or if (at, id) ranks after n (last)
// or before it (!last).
func (n *nameAt) keep(name string, at time.Time, id int64, last bool) {
	if n.name != "" && n.before(at, id) != last {
		return
	}
	*n = nameAt{name, rank{at, id}}
}

// chooseName names the instance: the name on its compute that ended last,
// else the name on its own first other charge. (Both are taken whatever
// order the line items are read in.)
func (in *instance) chooseName() {
	in.name = in.runName.name
	if in.name == "" {
		in.name = in.otherName.name
	}
}

// lookBack finds the last compute of the instances that did not run this
// month in the earlier months of the ledger, newest month first.
func (s *instanceSet) lookBack(ctx context.Context, db *ledger.DB) error {
	missing := map[instKey]*instance{}
	for _, in := range s.order {
		if !in.ran {
			missing[in.key] = in
		}
	}
	if len(missing) == 0 {
		return nil
	}
	months, err := db.Months(ctx)
	if err != nil {
		return fmt.Errorf("reports: instances: %w", err)
	}
	for i := len(months) - 1; i >= 0 && len(missing) > 0; i-- {
		if months[i] >= s.month {
			continue
		}
		found := map[instKey]bool{}
		f := ledger.Filter{Month: months[i], Kinds: []string{ledger.KindCompute}}
		err := db.EachLineItem(ctx, f, ledger.Read{NoRaw: true, Order: ledger.AnyOrder}, func(li *ledger.LineItem) error {
			in := missing[instKey{li.Provider, li.ResourceID}]
			if in == nil || !billing.IsRunning(li) {
				return nil
			}
			_, end := billing.ActiveSpan(li)
			in.seeCompute(li.ID, strings.Clone(li.GPUModel), strings.Clone(li.ResourceName), end)
			found[in.key] = true
			return nil
		})
		if err != nil {
			return fmt.Errorf("reports: instances: %w", err)
		}
		for k := range found {
			delete(missing, k)
		}
	}
	return nil
}

// judge sets the instance's state and deletion date (see the file comment).
func (in *instance) judge(dataEnd time.Time, loc *time.Location, policy billing.PolicyLookup) {
	in.dataEnd = dataEnd
	p, hasPolicy := policy.For(in.key.provider)
	tolerance := time.Minute
	if hasPolicy && p.BillingStep > tolerance {
		tolerance = p.BillingStep
	}
	if hasPolicy && p.ReleaseDays > 0 && in.ran {
		in.releaseDays = p.ReleaseDays
		in.releaseGuess = p.IsGuess("release_days")
		in.releaseAt = in.lastEnd.In(loc).AddDate(0, 0, p.ReleaseDays)
	}
	switch {
	case in.ran && !in.lastEnd.Before(dataEnd.Add(-tolerance)):
		in.state = StateRunning
		in.releaseAt = time.Time{}
	case !in.lastCharge.IsZero() && !in.lastCharge.Before(dataEnd.Add(-24*time.Hour)):
		in.state = StateStopped
	case !in.releaseAt.IsZero() && !in.releaseAt.After(dataEnd):
		in.state = StateReleased
	default:
		in.state = StateUnknown
	}
}

// Instances builds the instances report of opts.Month: costs summed exactly
// in Go from the line items, findings from the stored audit of the month.
//
// The findings are read alongside the pass over the month, without the
// billed costs of their evidence: once they are read, the pass keeps those
// of the line items it reads (ledger.DB.AddEvidenceCosts looks up the
// others).
func Instances(ctx context.Context, db *ledger.DB, opts InstancesOptions) (*InstancesReport, error) {
	if err := checkInstancesMonth(opts.Month); err != nil {
		return nil, err
	}
	var want wantedCosts
	var fs []ledger.Finding
	var fsErr error
	read := make(chan struct{})
	go func() {
		defer close(read)
		if fs, fsErr = db.FindingsWithoutCosts(ctx, opts.Month); fsErr == nil {
			fs = slices.DeleteFunc(fs, func(f ledger.Finding) bool { return f.State == "resolved" })
			ids := evidenceIDs(fs)
			want.Store(&ids)
		}
	}()
	s, err := loadInstances(ctx, db, opts.Month, opts.TZ, opts.Policy, &want)
	<-read
	if err != nil {
		return nil, err
	}
	if fsErr != nil {
		return nil, fmt.Errorf("reports: instances: %w", fsErr)
	}
	if err := db.AddEvidenceCosts(ctx, fs, s.costs); err != nil {
		return nil, fmt.Errorf("reports: instances: %w", err)
	}
	return s.report(opts, fs), nil
}

// evidenceIDs is the line items the evidence of fs cites.
func evidenceIDs(fs []ledger.Finding) map[int64]bool {
	ids := map[int64]bool{}
	for i := range fs {
		for _, e := range fs[i].Evidence {
			ids[e.LineItemID] = true
		}
	}
	return ids
}

// report is the instances report of the instances of s and the findings
// of the month that are not resolved, fs (with their evidence's billed
// costs).
func (s *instanceSet) report(opts InstancesOptions, fs []ledger.Finding) *InstancesReport {
	rep := &InstancesReport{Month: opts.Month}
	rowIdx := map[instKey]map[string]int{} // instance → currency → row
	for _, in := range s.order {
		rowIdx[in.key] = map[string]int{}
		for _, sum := range in.sums {
			rowIdx[in.key][sum.currency] = len(rep.Instances)
			r := in.row(sum.currency)
			r.Items, r.ComputeCost, r.OtherCost, r.TotalCost = sum.items, sum.compute.Decimal(), sum.other.Decimal(), sum.total.Decimal()
			rep.Instances = append(rep.Instances, r)
		}
	}

	// Findings: not resolved, each attributed to one instance; money counted
	// once per line item as in the findings report.
	for i := range rep.Instances {
		rep.Instances[i].AtRisk = known(decimal.Zero)
	}
	atRiskSeen := map[int]bool{} // rows with a finding of known amount
	for _, e := range NewFindingsReport(opts.Month, fs, nil).Findings {
		in := s.instanceOf(&e.Finding)
		if in == nil {
			continue
		}
		idx := rowIdx[in.key]
		i, ok := idx[e.Currency]
		if !ok {
			continue // a finding in a currency the instance was not billed in this month
		}
		r := &rep.Instances[i]
		r.Findings++
		if e.Counted.Valid {
			r.AtRisk = known(r.AtRisk.Decimal.Add(e.Counted.Decimal))
			atRiskSeen[i] = true
		}
	}
	for i := range rep.Instances {
		if rep.Instances[i].Findings > 0 && !atRiskSeen[i] {
			rep.Instances[i].AtRisk = decimal.NullDecimal{}
		}
	}

	sort.SliceStable(rep.Instances, func(i, j int) bool {
		a, b := &rep.Instances[i], &rep.Instances[j]
		if pa, pb := a.pendingDeletion(), b.pendingDeletion(); pa != pb {
			return pa
		} else if pa && !a.DeleteAt.Equal(b.DeleteAt) {
			return a.DeleteAt.Before(b.DeleteAt)
		}
		return cmp.Or(strings.Compare(a.Currency, b.Currency), b.TotalCost.Cmp(a.TotalCost),
			strings.Compare(a.Provider, b.Provider), strings.Compare(a.ResourceID, b.ResourceID)) < 0
	})

	tidx := map[string]int{}
	for i := range rep.Instances {
		r := &rep.Instances[i]
		j, ok := tidx[r.Currency]
		if !ok {
			j = len(rep.Totals)
			tidx[r.Currency] = j
			rep.Totals = append(rep.Totals, InstanceTotal{Currency: r.Currency})
		}
		t := &rep.Totals[j]
		t.Instances++
		t.ComputeCost = t.ComputeCost.Add(r.ComputeCost)
		t.OtherCost = t.OtherCost.Add(r.OtherCost)
		t.TotalCost = t.TotalCost.Add(r.TotalCost)
		t.Findings += r.Findings
		if r.AtRisk.Valid {
			t.AtRisk = known(t.AtRisk.Decimal.Add(r.AtRisk.Decimal))
		}
	}
	slices.SortFunc(rep.Totals, func(a, b InstanceTotal) int { return strings.Compare(a.Currency, b.Currency) })
	return rep
}

// row starts the report row of the instance in currency.
func (in *instance) row(currency string) InstanceRow {
	r := InstanceRow{Provider: in.key.provider, ResourceID: in.key.id, ResourceName: in.name, GPUModel: in.gpu,
		State: in.state, FirstCompute: in.firstStart, DataEnd: in.dataEnd, ReleaseDays: in.releaseDays,
		DeleteAt: in.releaseAt, DeleteGuess: in.releaseGuess, Currency: currency}
	if in.ran {
		r.LastCompute = in.lastEnd
	}
	for _, pm := range ledger.PricingModels {
		if in.pricing[pm] {
			r.PricingModels = append(r.PricingModels, pm)
		}
	}
	var other []string // a vendor's own codes, after the known ones
	for pm := range in.pricing {
		if !slices.Contains(ledger.PricingModels, pm) {
			other = append(other, pm)
		}
	}
	slices.Sort(other)
	r.PricingModels = append(r.PricingModels, other...)
	return r
}

// instanceOf is the instance a finding is about: the one owning most of
// its evidence line items (the first in evidence order on a tie), else the
// one its resource id names (as an instance or one of its components).
func (s *instanceSet) instanceOf(f *ledger.Finding) *instance {
	count := map[*instance]int{}
	var best *instance
	for _, ev := range f.Evidence {
		in := s.ownerOf(ev.LineItemID)
		if in == nil {
			continue
		}
		count[in]++
		if best == nil || count[in] > count[best] {
			best = in
		}
	}
	if best != nil {
		return best
	}
	if f.ResourceID == "" {
		return nil
	}
	k := instKey{f.Provider, f.ResourceID}
	if in := s.byKey[k]; in != nil {
		return in
	}
	if parent, ok := s.comp[k]; ok {
		return s.byKey[parent]
	}
	return nil
}

// Write encodes the report (see WriteOptions): JSON is the "instances"
// contract; every other format lays out the document (the instances, then
// the per-currency totals and notes).
func (r *InstancesReport) Write(w io.Writer, opts WriteOptions) error {
	return writeReport(w, opts, func(opts WriteOptions) any { return r.json(opts) }, r.document)
}

func init() {
	addMessages(map[string][2]string{
		"inst.title":          {"实例", "Instances"},
		"inst.totals":         {"合计", "Totals"},
		"inst.none":           {"本月账单中没有实例。", "No instances in this month's bills."},
		"inst.col.provider":   {"平台", "Provider"},
		"inst.col.id":         {"实例ID", "Instance"},
		"inst.col.name":       {"名称", "Name"},
		"inst.col.gpu":        {"GPU型号", "GPU"},
		"inst.col.pricing":    {"计费方式", "Pricing"},
		"inst.col.state":      {"状态", "State"},
		"inst.col.first":      {"本月首次运行", "First run"},
		"inst.col.last":       {"最后运行至", "Last run until"},
		"inst.col.delete":     {"平台删除日期", "Deleted on"},
		"inst.col.compute":    {"计算费用", "Compute"},
		"inst.col.other":      {"其他费用", "Other"},
		"inst.col.total":      {"合计", "Total"},
		"inst.col.findings":   {"发现", "Findings"},
		"inst.col.at_risk":    {"风险金额", "At risk"},
		"inst.col.count":      {"实例数", "Instances"},
		"inst.state.running":  {"运行中", "running"},
		"inst.state.stopped":  {"已关机", "stopped"},
		"inst.state.released": {"已释放", "released"},
		"inst.state.unknown":  {"不明", "unknown"},
		"inst.past":           {"（已过）", " (past)"},
		"inst.guess":          {"?", "?"},
		"inst.note.states": {"状态按各平台本月数据的最后时刻判断：运行中 = 计算费用持续到数据末尾；已关机 = 没有计算，但数据最后一天仍有存储/占用等费用；已释放 = 之后再无任何费用，且已超过平台“关机 N 天释放”的期限；不明 = 其余情况（可能关机未收费，也可能已被你释放）。",
			"State at the end of each platform's data in the month: running = compute up to the end of the data; stopped = no compute, but storage, seat or other charges on the last day; released = nothing billed since, and past the platform's release rule (released after N days shut down); unknown = anything else (stopped without charges, or released by you)."},
		"inst.note.delete": {"平台删除日期 = 最后运行时间 + 平台规则的释放天数（见 gpubill rules 的平台规则表；标 ? 的为推定）；运行中的实例和没有释放规则的平台显示 -。费用含挂在该实例下的磁盘、镜像、流量等（所属实例或同一实例ID）。",
			"Deleted on = last run + the platform's release days (policy table; ? marks a guess); - for running instances and platforms without a release rule. Costs include the disks, images, traffic … attributed to the instance (by parent instance or the same id)."},
	})
}

// stateText renders a state for humans.
func instStateText(lang, state string) string { return trOr(lang, "inst.state.", state) }

// humanTime renders a time for a human table cell, minutes precision.
func instHumanTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return unknownDisplay
	}
	return t.In(loc).Format("2006-01-02 15:04")
}

// timeCell renders a time for a document cell: RFC 3339 in exact formats,
// minutes in human ones; unknown is "" (exact) or "-".
func instTimeCell(t time.Time, opts WriteOptions) string {
	if opts.exact() {
		return formatRFC3339(t, opts.TZ)
	}
	return instHumanTime(t, opts.TZ)
}

func (r *InstancesReport) document(opts WriteOptions) *document {
	lang, exact := opts.Lang, opts.exact()
	g := &grid{cols: []column{
		textCol("provider", tr(lang, "inst.col.provider")),
		textCol("resource_id", tr(lang, "inst.col.id")),
		textCol("resource_name", tr(lang, "inst.col.name")),
		textCol("gpu_model", tr(lang, "inst.col.gpu")),
		textCol("pricing_model", tr(lang, "inst.col.pricing")),
		textCol("state", tr(lang, "inst.col.state")),
		timeCol("first_compute", tr(lang, "inst.col.first")),
		timeCol("last_compute", tr(lang, "inst.col.last")),
		timeCol("delete_at", tr(lang, "inst.col.delete")),
		textCol("currency", tr(lang, "col.currency")),
		moneyCol("compute_cost", tr(lang, "inst.col.compute")),
		moneyCol("other_cost", tr(lang, "inst.col.other")),
		moneyCol("total_cost", tr(lang, "inst.col.total")),
		countCol("findings", tr(lang, "inst.col.findings")),
		moneyCol("amount_at_risk", tr(lang, "inst.col.at_risk")),
	}}
	for i := range r.Instances {
		row := &r.Instances[i]
		provider, state, pricing := row.Provider, row.State, strings.Join(row.PricingModels, "+")
		name, gpu := row.ResourceName, row.GPUModel
		del := instTimeCell(row.DeleteAt, opts)
		if !opts.codes() {
			provider, state = providerName(row.Provider, lang), instStateText(lang, row.State)
			names := make([]string, len(row.PricingModels))
			for j, pm := range row.PricingModels {
				names[j] = trOr(lang, "pricing.", pm)
			}
			pricing, name, gpu = orDash(strings.Join(names, "+")), orDash(name), orDash(gpu)
			if !row.DeleteAt.IsZero() {
				if row.DeleteGuess {
					del += tr(lang, "inst.guess")
				}
				if row.State != StateReleased && !row.DeleteAt.After(row.DataEnd) {
					del += tr(lang, "inst.past")
				}
			}
		}
		g.add(provider, row.ResourceID, name, gpu, pricing, state,
			instTimeCell(row.FirstCompute, opts), instTimeCell(row.LastCompute, opts), del, row.Currency,
			FormatMoney(row.ComputeCost, row.Currency, exact), FormatMoney(row.OtherCost, row.Currency, exact),
			FormatMoney(row.TotalCost, row.Currency, exact), strconv.Itoa(row.Findings),
			FormatNullMoney(row.AtRisk, row.Currency, exact))
	}
	totals := &grid{cols: []column{
		textCol("currency", tr(lang, "col.currency")),
		countCol("instances", tr(lang, "inst.col.count")),
		moneyCol("compute_cost", tr(lang, "inst.col.compute")),
		moneyCol("other_cost", tr(lang, "inst.col.other")),
		moneyCol("total_cost", tr(lang, "inst.col.total")),
		countCol("findings", tr(lang, "inst.col.findings")),
		moneyCol("amount_at_risk", tr(lang, "inst.col.at_risk")),
	}}
	for _, t := range r.Totals {
		totals.add(t.Currency, strconv.Itoa(t.Instances), FormatMoney(t.ComputeCost, t.Currency, exact),
			FormatMoney(t.OtherCost, t.Currency, exact), FormatMoney(t.TotalCost, t.Currency, exact),
			strconv.Itoa(t.Findings), FormatNullMoney(t.AtRisk, t.Currency, exact))
	}
	var notes []string
	if len(r.Instances) > 0 {
		notes = []string{tr(lang, "inst.note.states"), tr(lang, "inst.note.delete")}
	}
	return &document{
		key:   "instances",
		title: tr(lang, "inst.title") + " " + r.Month,
		sections: []section{
			{key: "instances", grid: g, empty: tr(lang, "inst.none"), totals: true},
			{key: "totals", title: tr(lang, "inst.totals"), grid: totals},
		},
		notes: notes,
	}
}

// JSON shapes: the "instances" contract. Unknown times and amounts are null.
type instancesJSON struct {
	Month     string              `json:"month"`
	Instances []instanceJSON      `json:"instances"`
	Totals    []instanceTotalJSON `json:"totals"`
}

type instanceJSON struct {
	Provider     string  `json:"provider"`
	ResourceID   string  `json:"resource_id"`
	ResourceName string  `json:"resource_name"`
	GPUModel     string  `json:"gpu_model"`
	PricingModel string  `json:"pricing_model"` // "+"-joined when the month had several
	State        string  `json:"state"`
	FirstCompute *string `json:"first_compute"`
	LastCompute  *string `json:"last_compute"`
	DataEnd      *string `json:"data_end"`
	ReleaseDays  *int    `json:"release_days"`
	DeleteAt     *string `json:"delete_at"`
	DeleteGuess  bool    `json:"delete_at_is_guess"`
	Currency     string  `json:"currency"`
	Items        int     `json:"line_items"`
	ComputeCost  string  `json:"compute_cost"`
	OtherCost    string  `json:"other_cost"`
	TotalCost    string  `json:"total_cost"`
	Findings     int     `json:"findings"`
	AmountAtRisk *string `json:"amount_at_risk"`
}

type instanceTotalJSON struct {
	Currency     string  `json:"currency"`
	Instances    int     `json:"instances"`
	ComputeCost  string  `json:"compute_cost"`
	OtherCost    string  `json:"other_cost"`
	TotalCost    string  `json:"total_cost"`
	Findings     int     `json:"findings"`
	AmountAtRisk *string `json:"amount_at_risk"`
}

// jsonTime renders an optional time for JSON: RFC 3339 with offset, or null.
func instJSONTime(t time.Time, loc *time.Location) *string {
	if t.IsZero() {
		return nil
	}
	s := formatRFC3339(t, loc)
	return &s
}

func (r *InstancesReport) json(opts WriteOptions) instancesJSON {
	out := instancesJSON{Month: r.Month, Instances: []instanceJSON{}, Totals: []instanceTotalJSON{}}
	for i := range r.Instances {
		row := &r.Instances[i]
		j := instanceJSON{Provider: row.Provider, ResourceID: row.ResourceID, ResourceName: row.ResourceName,
			GPUModel: row.GPUModel, PricingModel: strings.Join(row.PricingModels, "+"), State: row.State,
			FirstCompute: instJSONTime(row.FirstCompute, opts.TZ), LastCompute: instJSONTime(row.LastCompute, opts.TZ),
			DataEnd: instJSONTime(row.DataEnd, opts.TZ), DeleteAt: instJSONTime(row.DeleteAt, opts.TZ),
			DeleteGuess: row.DeleteGuess && !row.DeleteAt.IsZero(), Currency: row.Currency, Items: row.Items,
			ComputeCost: money.String(row.ComputeCost), OtherCost: money.String(row.OtherCost),
			TotalCost: money.String(row.TotalCost), Findings: row.Findings, AmountAtRisk: jsonMoney(row.AtRisk)}
		if row.ReleaseDays > 0 {
			d := row.ReleaseDays
			j.ReleaseDays = &d
		}
		out.Instances = append(out.Instances, j)
	}
	for _, t := range r.Totals {
		out.Totals = append(out.Totals, instanceTotalJSON{Currency: t.Currency, Instances: t.Instances,
			ComputeCost: money.String(t.ComputeCost), OtherCost: money.String(t.OtherCost),
			TotalCost: money.String(t.TotalCost), Findings: t.Findings, AmountAtRisk: jsonMoney(t.AtRisk)})
	}
	return out
}

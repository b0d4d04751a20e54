package reports

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

// What-ifs: what the month would have cost under another billing or another
// habit, computed from the ledger's own line items (never from guesses),
// per provider and currency, with the line items each figure rests on.
//
//   - per_second: time-billed on-demand (and spot) compute billed for more
//     than its actual use (usage times cut to the charge period, else the
//     consumed quantity) re-priced at actual seconds × unit price (the list
//     unit price, else billed cost ÷ billed quantity), 8 decimals, never
//     above what was billed. Items whose bill states no actual use stay as
//     billed and are counted.
//   - auto_shutdown: the on-demand sessions of forgotten_instance (the
//     audit's sessions, billing.Session) cut after ShutdownAfter; the
//     saving is the cost of the session beyond that point, each item pro
//     rata by time (billing.AddCostBeyond). Only the items of the month count.
//   - release_idle_storage: storage, image and snapshot charges of an
//     instance from the moment it had run no compute for ReleaseAfter; an
//     item across that moment counts pro rata by time. The instance is the
//     one the charge serves (WhatIfSource.ServedInstance); a charge that serves no
//     known instance is left as billed. Idle since the end of the
//     instance's last compute before the charge (compute of the neighbouring
//     months included), else since its first charge of the month.

// Scenario identifiers.
const (
	WhatIfPerSecond    = "per_second"
	WhatIfAutoShutdown = "auto_shutdown"
	WhatIfReleaseIdle  = "release_idle_storage"
)

// WhatIfScenarios lists the scenarios in output order.
var WhatIfScenarios = []string{WhatIfPerSecond, WhatIfAutoShutdown, WhatIfReleaseIdle}

// Defaults of the what-if thresholds: the forgotten_instance limit, and
// three days of idleness before storage would be released.
const (
	DefaultShutdownAfter = 8 * time.Hour
	DefaultReleaseAfter  = 72 * time.Hour
)

// WhatIfOptions selects the month and the thresholds.
type WhatIfOptions struct {
	Month         string        // billing period YYYY-MM (required)
	ShutdownAfter time.Duration // 0 = DefaultShutdownAfter
	ReleaseAfter  time.Duration // 0 = DefaultReleaseAfter
}

// WhatIfSource is what the what-if reads of a month as an audit loads it
// (cmd/gpubill passes rules.LoadInput's): the month's items, the sessions
// and compute spans of the month with its neighbours' compute, and which
// instance a charge serves. Sessions and ComputeSpans may be built on
// first use and must be safe to call side by side.
type WhatIfSource interface {
	// MonthItems are the line items of the month (no context).
	MonthItems() []*ledger.LineItem
	// Sessions are the on-demand sessions of the month and its context.
	Sessions() []billing.Session
	// ServedInstance is the instance the charge li serves; ok is false when
	// none is known.
	ServedInstance(li *ledger.LineItem) (id string, ok bool)
	// ComputeSpans calls fn with each span, in order, during which the
	// instance ran compute (month and context), until fn returns false.
	ComputeSpans(provider, resource string, fn func(start, end time.Time) bool)
}

// WhatIfRow is one scenario for one provider and currency.
type WhatIfRow struct {
	Scenario     string
	Provider     string
	Currency     string
	Items        int // line items the scenario looks at
	Changed      int // of them, those whose cost changes
	Unknown      int // of them, those left as billed for lack of data (see the scenario)
	ActualCost   decimal.Decimal
	ScenarioCost decimal.Decimal
	Saving       decimal.Decimal // ActualCost − ScenarioCost
	LineItemIDs  []int64         // the changed line items, ascending
}

// WhatIfReport holds every scenario of one month.
type WhatIfReport struct {
	Month         string
	ShutdownAfter time.Duration
	ReleaseAfter  time.Duration
	Rows          []WhatIfRow // scenario order, then provider, currency
}

// ParseWhatIfDuration reads a what-if threshold: a Go duration ("8h",
// "90m") or a number of days ("3d"); it must be positive.
func ParseWhatIfDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(t, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 || n > 3660 {
			return 0, fmt.Errorf("%q is not a positive number of days such as 3d", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration such as 8h, 90m or 3d", s)
	}
	return d, nil
}

type wiKey struct{ provider, currency string }

// wiRow is a row being summed: the costs in DecimalSums, which add without
// math/big while the sums fit an int64.
type wiRow struct {
	WhatIfRow
	actual, scenario money.Sum
}

// wiRows are the rows of one scenario by provider and currency.
type wiRows struct {
	scenario string
	m        map[wiKey]*wiRow
}

func newWiRows(scenario string) *wiRows { return &wiRows{scenario: scenario, m: map[wiKey]*wiRow{}} }

// row is the row for li's provider and currency.
func (rows *wiRows) row(li *ledger.LineItem) *wiRow {
	k := wiKey{li.Provider, li.Currency}
	r := rows.m[k]
	if r == nil {
		r = &wiRow{WhatIfRow: WhatIfRow{Scenario: rows.scenario, Provider: li.Provider, Currency: li.Currency}}
		rows.m[k] = r
	}
	return r
}

// same adds li, its cost the same under the scenario.
func (r *wiRow) same(li *ledger.LineItem) {
	r.Items++
	r.actual.Add(li.BilledCost)
	r.scenario.Add(li.BilledCost)
}

// costs adds li with its cost under the scenario, computed anew (the
// sum keeps its precision, as it keeps every term's).
func (r *wiRow) costs(li *ledger.LineItem, scenarioCost decimal.Decimal) {
	r.Items++
	r.actual.Add(li.BilledCost)
	r.scenario.Add(scenarioCost)
	if !scenarioCost.Equal(li.BilledCost) {
		r.Changed++
		r.LineItemIDs = append(r.LineItemIDs, li.ID)
	}
}

// perSecondRows is the per_second scenario.
func perSecondRows(items []*ledger.LineItem) *wiRows {
	rows := newWiRows(WhatIfPerSecond)
	for _, li := range items { // sums and counts: any order
		if !billing.IsRunning(li) || billing.IsPrepaid(li) {
			continue
		}
		r := rows.row(li)
		switch cost, repriced, ok := perSecondCost(li); {
		case !ok:
			r.Unknown++
			r.same(li)
		case repriced:
			r.costs(li, cost)
		default:
			r.same(li)
		}
	}
	return rows
}

// autoShutdownRows is the auto_shutdown scenario: the sessions cut after
// shutdownAfter.
func autoShutdownRows(src WhatIfSource, month string, shutdownAfter time.Duration) *wiRows {
	rows := newWiRows(WhatIfAutoShutdown)
	sessions := src.Sessions()
	for i := range sessions {
		s := &sessions[i]
		cutoff := s.Start.Add(shutdownAfter)
		long := s.End.Sub(s.Start) > shutdownAfter
		for _, li := range s.Items {
			if li.BillingPeriod != month {
				continue
			}
			var beyond money.Sum
			if long && billing.AddCostBeyond(&beyond, li, cutoff) {
				rows.row(li).costs(li, li.BilledCost.Sub(beyond.Decimal()))
				continue
			}
			rows.row(li).same(li)
		}
	}
	return rows
}

// releaseIdleRows is the release_idle_storage scenario.
func releaseIdleRows(src WhatIfSource, releaseAfter time.Duration) *wiRows {
	rows := newWiRows(WhatIfReleaseIdle)
	idle := newIdleIndex(src)
	for _, li := range idle.charges {
		switch li.Kind {
		case ledger.KindStorage, ledger.KindImage, ledger.KindSnapshot:
		default:
			continue
		}
		if li.ChargeCategory == ledger.CategoryCredit || li.BilledCost.IsNegative() {
			continue
		}
		r := rows.row(li)
		id, ok := src.ServedInstance(li)
		if !ok {
			r.Unknown++
			r.same(li)
			continue
		}
		// Nothing releasable at no finer a precision than the cost's
		// leaves the cost as it is.
		if rel := idle.releasable(li, id, releaseAfter); rel.Sign() != 0 || rel.Exponent() < li.BilledCost.Exponent() {
			r.costs(li, li.BilledCost.Sub(rel))
			continue
		}
		r.same(li)
	}
	return rows
}

// WhatIf computes the scenarios of opts.Month on src, that month as an
// audit loads it.
func WhatIf(src WhatIfSource, opts WhatIfOptions) (*WhatIfReport, error) {
	if opts.Month == "" {
		return nil, fmt.Errorf("reports: what-if: a month is required")
	}
	if err := checkMonth(opts.Month); err != nil {
		return nil, err
	}
	if opts.ShutdownAfter < 0 || opts.ReleaseAfter < 0 {
		return nil, fmt.Errorf("reports: what-if: thresholds must be positive")
	}
	if opts.ShutdownAfter == 0 {
		opts.ShutdownAfter = DefaultShutdownAfter
	}
	if opts.ReleaseAfter == 0 {
		opts.ReleaseAfter = DefaultReleaseAfter
	}
	return whatIfOf(src, opts), nil
}

// whatIfOf computes the scenarios on src (opts' thresholds set).
func whatIfOf(src WhatIfSource, opts WhatIfOptions) *WhatIfReport {
	// The three scenarios are independent, and so are the caches two of
	// them build (the sessions; the idle index, through the coverage of
	// ServedBy): they run side by side, each into rows of its own (their
	// keys differ by scenario), as the audit builds its caches.
	var shutdown, release *wiRows
	var side sync.WaitGroup
	side.Go(func() { shutdown = autoShutdownRows(src, opts.Month, opts.ShutdownAfter) })
	side.Go(func() { release = releaseIdleRows(src, opts.ReleaseAfter) })
	perSecond := perSecondRows(src.MonthItems())
	side.Wait()
	rep := &WhatIfReport{Month: opts.Month, ShutdownAfter: opts.ShutdownAfter, ReleaseAfter: opts.ReleaseAfter}
	for _, r := range slices.Concat(slices.Collect(maps.Values(perSecond.m)), slices.Collect(maps.Values(shutdown.m)),
		slices.Collect(maps.Values(release.m))) {
		r.ActualCost, r.ScenarioCost = r.actual.Decimal(), r.scenario.Decimal()
		r.Saving = r.ActualCost.Sub(r.ScenarioCost)
		slices.Sort(r.LineItemIDs)
		rep.Rows = append(rep.Rows, r.WhatIfRow)
	}
	slices.SortFunc(rep.Rows, func(a, b WhatIfRow) int {
		return cmp.Or(cmp.Compare(slices.Index(WhatIfScenarios, a.Scenario), slices.Index(WhatIfScenarios, b.Scenario)),
			strings.Compare(a.Provider, b.Provider), strings.Compare(a.Currency, b.Currency))
	})
	return rep
}

// perSecondCost is what li would cost billed by the second: its actual
// seconds × unit price, when it is billed in time for more than it ran
// (repriced: the cost is computed anew, never above what was billed). ok
// is false when the bill states no actual use (or bills no time): li then
// stays as billed.
func perSecondCost(li *ledger.LineItem) (cost decimal.Decimal, repriced, ok bool) {
	// The quantity's sign is asked last: it reads its *big.Int.
	if !li.PricingQuantity.Valid {
		return li.BilledCost, false, false
	}
	u, isTime := billing.ParseTimeUnit(li.PricingUnit)
	if !isTime {
		return li.BilledCost, false, false
	}
	unit := u.Secs
	actual, _, known := actualUse(li)
	if !known || !li.PricingQuantity.Decimal.IsPositive() {
		return li.BilledCost, false, false
	}
	billed := li.PricingQuantity.Decimal.Mul(decimal.NewFromInt(unit))
	if !actual.LessThan(billed) {
		return li.BilledCost, false, true
	}
	var c decimal.Decimal
	if li.ListUnitPrice.Valid && li.ListUnitPrice.Decimal.IsPositive() {
		c = actual.Mul(li.ListUnitPrice.Decimal).DivRound(decimal.NewFromInt(unit), 8)
	} else {
		c = actual.Mul(li.BilledCost).DivRound(billed, 8)
	}
	if c.Cmp(li.BilledCost) > 0 {
		return li.BilledCost, false, true
	}
	return c, true, true
}

// idleIndex knows when each instance ran compute (month and context:
// WhatIfSource.ComputeSpans) and when the month's charges serving it began.
type idleIndex struct {
	src   WhatIfSource
	first map[[2]string]time.Time // provider, instance → first charge start of the month's items serving it
	// charges are the month's items that are not compute, in order: the
	// scenario's own pass reads them, not the whole month again.
	charges []*ledger.LineItem
}

func newIdleIndex(src WhatIfSource) *idleIndex {
	x := &idleIndex{src: src, first: map[[2]string]time.Time{}}
	for _, li := range src.MonthItems() { // the first start of each: any order
		if li.Kind == ledger.KindCompute {
			continue // most of a month: not asked whom it serves
		}
		x.charges = append(x.charges, li)
		id, ok := src.ServedInstance(li)
		if !ok {
			continue
		}
		k := [2]string{li.Provider, id}
		if f, ok := x.first[k]; !ok || li.ChargePeriodStart.Before(f) {
			x.first[k] = li.ChargePeriodStart
		}
	}
	return x
}

// releasable is the part of li's cost after its instance had been idle for
// after: the whole cost when its charge period starts at or after that
// moment, pro rata by time when the period crosses it, 0 when the instance
// ran compute during the period or not long enough before it.
func (x *idleIndex) releasable(li *ledger.LineItem, instance string, after time.Duration) decimal.Decimal {
	k := [2]string{li.Provider, instance}
	s, e := li.ChargePeriodStart, li.ChargePeriodEnd
	if !e.After(s) {
		return decimal.Zero
	}
	since, found, ran := time.Time{}, false, false
	x.src.ComputeSpans(li.Provider, instance, func(start, end time.Time) bool {
		if start.Before(e) && end.After(s) {
			ran = true // during the charge period
			return false
		}
		if !end.After(s) {
			since, found = end, true
		}
		return true
	})
	if ran {
		return decimal.Zero
	}
	if !found {
		f, ok := x.first[k]
		if !ok {
			return decimal.Zero
		}
		since = f
	}
	cutoff := since.Add(after)
	switch {
	case !s.Before(cutoff):
		return li.BilledCost
	case !e.After(cutoff):
		return decimal.Zero
	}
	part := int64(e.Sub(cutoff) / time.Second)
	whole := int64(e.Sub(s) / time.Second)
	return li.BilledCost.Mul(decimal.NewFromInt(part)).DivRound(decimal.NewFromInt(whole), 8)
}

func init() {
	addMessages(map[string][2]string{
		"whatif.title":                         {"假设分析", "What if"},
		"whatif.col.scenario":                  {"假设", "Scenario"},
		"whatif.col.items":                     {"行数", "Items"},
		"whatif.col.changed":                   {"受影响行数", "Changed"},
		"whatif.col.unknown":                   {"缺少数据行数", "No data"},
		"whatif.col.actual":                    {"实际费用", "Actual"},
		"whatif.col.scenario_cost":             {"假设下费用", "Under scenario"},
		"whatif.col.saving":                    {"可节省", "Saving"},
		"whatif.scenario.per_second":           {"按秒计费", "per-second billing"},
		"whatif.scenario.auto_shutdown":        {"%s后自动关机", "auto-shutdown after %s"},
		"whatif.scenario.release_idle_storage": {"闲置%s后释放存储", "release storage idle for %s"},
		"whatif.none":                          {"本月没有可分析的费用。", "Nothing in the month to re-price."},
		"whatif.note.per_second":               {"按秒计费：按时长计费、计费时长超过实际使用（实际起止时间截取到计费时段，否则用量）的按量计算费，按 实际秒数 × 单价 重新计价（单价取原单价，否则 应付 ÷ 计费数量），不超过原应付；账单没有实际使用数据的行按原价计入（见“缺少数据行数”）。", "Per-second billing: on-demand compute billed in time for more than its actual use (usage times cut to the charge period, else the consumed quantity) re-priced at actual seconds × unit price (the list unit price, else billed ÷ billed quantity), never above what was billed; rows whose bill states no actual use stay as billed (\"No data\")."},
		"whatif.note.auto_shutdown":            {"自动关机：与“忘记关机的实例”规则相同的按量会话，在运行%s后截断；可节省 = 超出部分的费用（按时间比例）。", "Auto-shutdown: the on-demand sessions of the forgotten-instance rule cut after %s; saving = the cost beyond that point, pro rata by time."},
		"whatif.note.release_idle":             {"释放闲置存储：实例连续%s没有计算后，其存储、镜像、快照费用视为可省（跨越该时刻的行按时间比例）；无法对应到实例的行按原价计入（见“缺少数据行数”）。释放会删除数据：之后又重新运行的实例也计算在内。", "Release idle storage: storage, image and snapshot charges of an instance after it ran no compute for %s count as saved (a row across that moment pro rata by time); rows that serve no known instance stay as billed (\"No data\"). Releasing deletes the data: instances that ran again later are counted too."},
		"whatif.note.overlap":                  {"各假设分别计算，节省金额不可相加（同一行可能出现在多个假设中）。", "Each scenario stands alone: their savings do not add up (a line item may appear in several)."},
	})
}

// formatWhatIfDuration renders a threshold: whole days as "3d", else a Go duration
// without zero units ("8h", "1h30m").
func formatWhatIfDuration(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
	s := d.String()
	s = strings.Replace(s, "m0s", "m", 1)
	s = strings.Replace(s, "h0m", "h", 1)
	return s
}

// humanDuration renders a threshold for people: "3天" / "3d", "8小时" / "8h".
func humanDuration(d time.Duration, lang string) string {
	s := formatWhatIfDuration(d)
	if lang != "zh" {
		return s
	}
	return strings.NewReplacer("d", "天", "h", "小时", "m", "分钟", "s", "秒").Replace(s)
}

// scenarioTitle names a scenario in lang, with its threshold.
func (r *WhatIfReport) scenarioTitle(scenario, lang string) string {
	switch scenario {
	case WhatIfAutoShutdown:
		return fmt.Sprintf(tr(lang, "whatif.scenario."+scenario), humanDuration(r.ShutdownAfter, lang))
	case WhatIfReleaseIdle:
		return fmt.Sprintf(tr(lang, "whatif.scenario."+scenario), humanDuration(r.ReleaseAfter, lang))
	}
	return tr(lang, "whatif.scenario."+scenario)
}

// Write encodes the report (see WriteOptions).
func (r *WhatIfReport) Write(w io.Writer, opts WriteOptions) error {
	return writeReport(w, opts, func(_ WriteOptions) any { return r.json() }, r.document)
}

func (r *WhatIfReport) document(opts WriteOptions) *document {
	exact, lang := opts.exact(), opts.Lang
	g := &grid{cols: []column{
		textCol("scenario", tr(lang, "whatif.col.scenario")),
		textCol("provider", tr(lang, "col.provider")),
		textCol("currency", tr(lang, "col.currency")),
		countCol("items", tr(lang, "whatif.col.items")),
		countCol("changed_items", tr(lang, "whatif.col.changed")),
		countCol("items_without_data", tr(lang, "whatif.col.unknown")),
		moneyCol("actual_cost", tr(lang, "whatif.col.actual")),
		moneyCol("scenario_cost", tr(lang, "whatif.col.scenario_cost")),
		moneyCol("saving", tr(lang, "whatif.col.saving")),
	}}
	for i := range r.Rows {
		row := &r.Rows[i]
		scen := row.Scenario
		if !exact {
			scen = r.scenarioTitle(row.Scenario, lang)
		}
		g.add(scen, dimText(ByProvider, row.Provider, lang, exact), row.Currency, strconv.Itoa(row.Items),
			strconv.Itoa(row.Changed), strconv.Itoa(row.Unknown), FormatMoney(row.ActualCost, row.Currency, exact),
			FormatMoney(row.ScenarioCost, row.Currency, exact), FormatMoney(row.Saving, row.Currency, exact))
	}
	var notes []string
	if len(r.Rows) > 0 {
		notes = []string{tr(lang, "whatif.note.per_second"),
			fmt.Sprintf(tr(lang, "whatif.note.auto_shutdown"), humanDuration(r.ShutdownAfter, lang)),
			fmt.Sprintf(tr(lang, "whatif.note.release_idle"), humanDuration(r.ReleaseAfter, lang)),
			tr(lang, "whatif.note.overlap")}
	}
	return &document{
		key:      "whatif",
		title:    tr(lang, "whatif.title") + " " + r.Month,
		sections: []section{{key: "whatif", grid: g, empty: tr(lang, "whatif.none")}},
		notes:    notes,
	}
}

type whatIfJSON struct {
	Month         string          `json:"month"`
	ShutdownAfter string          `json:"shutdown_after"`
	ReleaseAfter  string          `json:"release_after"`
	Scenarios     []whatIfRowJSON `json:"scenarios"`
}

type whatIfRowJSON struct {
	Scenario     string  `json:"scenario"`
	Provider     string  `json:"provider"`
	Currency     string  `json:"currency"`
	Items        int     `json:"items"`
	Changed      int     `json:"changed_items"`
	Unknown      int     `json:"items_without_data"`
	ActualCost   *string `json:"actual_cost"`
	ScenarioCost *string `json:"scenario_cost"`
	Saving       *string `json:"saving"`
	LineItemIDs  []int64 `json:"line_item_ids"`
}

func (r *WhatIfReport) json() whatIfJSON {
	out := whatIfJSON{Month: r.Month, ShutdownAfter: formatWhatIfDuration(r.ShutdownAfter),
		ReleaseAfter: formatWhatIfDuration(r.ReleaseAfter), Scenarios: []whatIfRowJSON{}}
	for i := range r.Rows {
		row := &r.Rows[i]
		ids := row.LineItemIDs
		if ids == nil {
			ids = []int64{}
		}
		out.Scenarios = append(out.Scenarios, whatIfRowJSON{Scenario: row.Scenario, Provider: row.Provider,
			Currency: row.Currency, Items: row.Items, Changed: row.Changed, Unknown: row.Unknown,
			ActualCost: jsonMoney(known(row.ActualCost)), ScenarioCost: jsonMoney(known(row.ScenarioCost)),
			Saving: jsonMoney(known(row.Saving)), LineItemIDs: ids})
	}
	return out
}

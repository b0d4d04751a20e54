package watch

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/fetch"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
	"github.com/gpubill/gpubill/rules"
)

// Alert kinds.
const (
	KindRunning = "running_too_long" // an on-demand instance running past forgotten_instance.limit
	KindRelease = "release_soon"     // a stopped instance the platform will release within the warning time
	// From the ledger (bill lines, money flow, the config's budgets):
	KindIdleStorage = "idle_storage" // storage or images still billing for an instance gone or stopped N days
	KindLowBalance  = "low_balance"  // a balance below the threshold, or fewer than N days of runway
	KindBudget      = "budget"       // a [[budget]] crossed 50, 80 or 100%
)

// instanceKinds are judged from the instance APIs, per polled account;
// ledgerKinds from the ledger, once per poll.
var (
	instanceKinds = []string{KindRunning, KindRelease}
	ledgerKinds   = []string{KindIdleStorage, KindLowBalance, KindBudget}
)

// Events of an alert.
const (
	EventNew       = "new"
	EventEscalated = "escalated"
)

// Alert is one alert of a poll, as notifiers get it (JSON on --exec's
// stdin).
type Alert struct {
	Key          string    `json:"key"`
	Kind         string    `json:"kind"`
	Event        string    `json:"event"`
	Severity     string    `json:"severity"`
	Provider     string    `json:"provider"`
	Account      string    `json:"account"`
	Region       string    `json:"region,omitempty"`
	InstanceID   string    `json:"instance_id"`
	InstanceName string    `json:"instance_name,omitempty"`
	State        string    `json:"state"`
	Since        time.Time `json:"since"`
	// SinceKnown is false when the instance was already in its state at
	// the first poll and the API gives no time: Since is then a lower
	// bound of how long (the first poll).
	SinceKnown bool `json:"since_known"`
	// SinceSource says where Since comes from: api (the instance API's
	// start or creation time), poll (a poll of gpubill watch) or bill (the
	// end of its last compute charge in the ledger).
	SinceSource string    `json:"since_source"`
	Now         time.Time `json:"now"`
	// AmountSoFar is the money at stake so far ("" = unknown): for a
	// running instance the cost beyond the limit at PricePerHour.
	AmountSoFar string `json:"amount_so_far"`
	// Projection24h is what another 24 hours add at PricePerHour.
	Projection24h string `json:"projection_24h,omitempty"`
	// Projection is the money at stake projected to ProjectionAt: for
	// idle_storage 30 more days at its rate, for budget the month's spend
	// at its end, for low_balance the balance at the month's end.
	Projection   string     `json:"projection,omitempty"`
	ProjectionAt *time.Time `json:"projection_at,omitempty"`
	// Limit is the budget (budget) or --balance-below (low_balance);
	// Balance the balance now, as estimated (low_balance), and RunsOutAt
	// when it reaches zero at the month's burn rate.
	Limit     string     `json:"limit,omitempty"`
	Balance   string     `json:"balance,omitempty"`
	RunsOutAt *time.Time `json:"runs_out_at,omitempty"`
	// Budget names the [[budget]] (budget), Percent the share spent.
	Budget       string `json:"budget,omitempty"`
	Percent      string `json:"percent,omitempty"`
	Currency     string `json:"currency"`
	PricePerHour string `json:"price_per_hour,omitempty"`
	// PriceSource is api, catalog (billing/prices.json or the config's
	// [[price]]) or unknown.
	PriceSource string     `json:"price_source"`
	ReleaseAt   *time.Time `json:"release_at,omitempty"`
	Source      string     `json:"source"`
	SourceDelay string     `json:"source_delay"`
	MessageZH   string     `json:"message_zh"`
	MessageEN   string     `json:"message_en"`

	step   int
	amount decimal.NullDecimal
}

// Message is the alert's text in lang.
func (a Alert) Message(lang string) string {
	if lang == "zh" {
		return a.MessageZH
	}
	return a.MessageEN
}

// Observed is one instance of a poll with what the state knew of it.
type Observed struct {
	fetch.Instance
	Since       time.Time
	SinceKnown  bool
	SinceSource string // api | poll | bill
}

// Judge holds what alerts are judged by.
type Judge struct {
	Forgotten rules.ForgottenParams
	Config    rules.Config
	// ReleaseWarn is how long before the release a stopped instance is
	// reported (default 3 days).
	ReleaseWarn time.Duration
	Lang        string
	// The ledger's alerts (ledger.go): storage or images billing for an
	// instance idle this many days (0 = off); a balance below BalanceBelow
	// (Valid false = off) or with fewer than RunwayDays of runway (0 =
	// off); the [[budget]] tables.
	IdleStorageDays int
	BalanceBelow    decimal.NullDecimal
	RunwayDays      int
	Budgets         []Budget
}

// alerts judges one observed instance at now.
func (j Judge) alerts(o Observed, now time.Time) []Alert {
	var out []Alert
	switch o.State {
	case fetch.StateRunning:
		if a, ok := j.running(o, now); ok {
			out = append(out, a)
		}
	case fetch.StateStopped:
		if a, ok := j.release(o, now); ok {
			out = append(out, a)
		}
	}
	return out
}

// price is the instance's price per hour: the API's, else the catalog's
// for its GPU model and count.
func (j Judge) price(in fetch.Instance) (decimal.NullDecimal, string, string) {
	if in.PricePerHour.Valid {
		return in.PricePerHour, "api", in.Currency
	}
	if in.GPUModel != "" && in.GPUCount.IsPositive() {
		if p, ok := j.Config.ReferencePrices().Lookup(in.Provider, in.GPUModel, "on_demand", in.Currency); ok {
			return decimal.NullDecimal{Decimal: p.PerHour.Mul(in.GPUCount), Valid: true}, "catalog", p.Currency
		}
	}
	return decimal.NullDecimal{}, "unknown", in.Currency
}

func (j Judge) base(o Observed, kind string, now time.Time) Alert {
	return Alert{Kind: kind, Provider: o.Provider, Account: o.Account, Region: o.Region, InstanceID: o.ID,
		InstanceName: o.Name, State: o.State, Since: o.Since, SinceKnown: o.SinceKnown, SinceSource: o.SinceSource, Now: now,
		Key:         strings.Join([]string{kind, o.Provider, o.Account, o.ID, o.Since.UTC().Format(time.RFC3339)}, "|"),
		Source:      fmt.Sprintf("%s DescribeInstances", platform.Name(o.Provider, "en")),
		SourceDelay: fetch.SourceDelay(o.Provider, j.Lang)}
}

func (j Judge) running(o Observed, now time.Time) (Alert, bool) {
	p := j.Forgotten
	dur := now.Sub(o.Since)
	if !o.OnDemand || dur < p.Limit {
		return Alert{}, false
	}
	a := j.base(o, KindRunning, now)
	price, src, cur := j.price(o.Instance)
	a.PriceSource, a.Currency = src, cur
	amount := decimal.Zero
	if price.Valid {
		secs := int64((dur - p.Limit) / time.Second)
		amount = price.Decimal.Mul(decimal.NewFromInt(secs)).Div(decimal.NewFromInt(3600)).Round(2)
		a.amount = decimal.NullDecimal{Decimal: amount, Valid: true}
		a.AmountSoFar = amount.StringFixed(2)
		a.Projection24h = amount.Add(price.Decimal.Mul(decimal.NewFromInt(24))).StringFixed(2)
		a.PricePerHour = price.Decimal.String()
	}
	night := p.CrossesNight(o.Since, now)
	a.Severity = p.Severity(amount, night)
	a.step = ledger.SeverityRank(a.Severity) * 1000
	if a.Severity == ledger.SeverityHigh && p.High.IsPositive() {
		// At high, every further multiple of severity_high is a step.
		a.step += int(amount.Div(p.High).IntPart())
	}
	loc := p.TZ
	since := o.Since.In(loc).Format("01-02 15:04")
	if !o.SinceKnown {
		since = "≤ " + since
	}
	hZH, hEN := hoursZH(dur), hoursEN(dur)
	zh := fmt.Sprintf("【%s】%s 实例 %s 自 %s 起已连续运行 %s，超过 %s 的上限", a.Severity, platform.Name(o.Provider, "zh"), label(o, true), since, hZH, hoursZH(p.Limit))
	en := fmt.Sprintf("[%s] %s instance %s has run for %s since %s, past the %s limit", a.Severity, platform.Name(o.Provider, "en"), label(o, false), hEN, since, hoursEN(p.Limit))
	if price.Valid {
		srcZH, srcEN := "接口报价", "the API's price"
		if src == "catalog" {
			srcZH, srcEN = "参考价目表（非账单）", "the reference catalog, not the bill"
		}
		zh += fmt.Sprintf("；超出部分已花费约 %s，再运行 24 小时合计约 %s（按 %s/小时，%s）。", rules.FormatMoney(amount, cur), rules.FormatMoney(mustDec(a.Projection24h), cur), rules.FormatMoney(price.Decimal, cur), srcZH)
		en += fmt.Sprintf("; the time beyond it cost about %s so far, %s if it runs 24 more hours (at %s an hour, from %s).", rules.FormatMoney(amount, cur), rules.FormatMoney(mustDec(a.Projection24h), cur), rules.FormatMoney(price.Decimal, cur), srcEN)
	} else {
		zh += "；价格未知（接口不提供，参考价目表中也没有该型号），无法估算费用。"
		en += "; its price is unknown (not in the API, nor in the reference catalog for its model), so no cost is estimated."
	}
	if night {
		zh += fmt.Sprintf("期间跨越夜间（%s–%s）。", clock(p.NightStart), clock(p.NightEnd))
		en += fmt.Sprintf(" It ran through the night (%s–%s).", clock(p.NightStart), clock(p.NightEnd))
	}
	zh += "如已不再需要，请关机。"
	en += " Shut it down if it is no longer needed."
	a.MessageZH, a.MessageEN = zh, en
	return a, true
}

func (j Judge) release(o Observed, now time.Time) (Alert, bool) {
	pol, ok := j.Config.PolicyFor(o.Provider)
	if !ok || pol.ReleaseDays <= 0 {
		return Alert{}, false
	}
	at := o.Since.AddDate(0, 0, pol.ReleaseDays)
	left := at.Sub(now)
	warn := j.ReleaseWarn
	if warn <= 0 {
		warn = 72 * time.Hour
	}
	if left > warn {
		return Alert{}, false
	}
	a := j.base(o, KindRelease, now)
	a.ReleaseAt = &at
	a.Currency = o.Currency
	a.PriceSource = "unknown"
	a.Severity = ledger.SeverityMedium
	if left <= 24*time.Hour {
		a.Severity = ledger.SeverityHigh
	}
	a.step = ledger.SeverityRank(a.Severity) * 1000
	days := int((left + 12*time.Hour) / (24 * time.Hour))
	if left < 0 {
		days = 0
	}
	date := at.In(j.Forgotten.TZ).Format("2006-01-02 15:04")
	stopped := int(now.Sub(o.Since) / (24 * time.Hour))
	least, leastEN := "", ""
	if !o.SinceKnown {
		least, leastEN = "至少", "at least "
	}
	a.MessageZH = fmt.Sprintf("【%s】%s 实例 %s 已关机%s %d 天；平台关机 %d 天后释放实例并删除数据，约 %d 天后（%s）释放。如需保留数据，请在此之前开机或备份。",
		a.Severity, platform.Name(o.Provider, "zh"), label(o, true), least, stopped, pol.ReleaseDays, days, date)
	a.MessageEN = fmt.Sprintf("[%s] %s instance %s has been stopped for %s%d days; the platform releases an instance and deletes its data after %d days stopped: released in about %d days (%s). Start it or back it up before then to keep the data.",
		a.Severity, platform.Name(o.Provider, "en"), label(o, false), leastEN, stopped, pol.ReleaseDays, days, date)
	return a, true
}

// label names the instance: its id, and its name when it has one.
func label(o Observed, zh bool) string {
	switch {
	case o.Name == "" || o.Name == o.ID:
		return o.ID
	case zh:
		return o.ID + "（" + o.Name + "）"
	}
	return o.ID + " (" + o.Name + ")"
}

func mustDec(s string) decimal.Decimal { d, _ := decimal.NewFromString(s); return d }

func clock(d time.Duration) string {
	return fmt.Sprintf("%02d:%02d", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

func hoursEN(d time.Duration) string {
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	if m == 0 {
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d h %d min", h, m)
}

func hoursZH(d time.Duration) string {
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	if m == 0 {
		return fmt.Sprintf("%d 小时", h)
	}
	return fmt.Sprintf("%d 小时 %d 分", h, m)
}

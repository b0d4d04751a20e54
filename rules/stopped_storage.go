package rules

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

func init() { register(stoppedStorage{}) }

// stoppedStorage flags storage billed while the instance it serves ran no
// compute (DESIGN.md "stopped_storage").
//
// A storage item of at most one day counts whole when the served instance
// ran no compute during its charge period (so a day-level item needs a whole
// idle day, an hourly item an idle hour); a longer item (a month of GB·月) is
// cut into days in --tz and counts pro rata by the time of its idle days.
// When the item names no instance, the provider account as a whole is
// checked, by whole days: any compute of the account that day keeps the day
// from being idle.
//
// One finding per (provider, served instance or account, storage resource,
// currency) and month, listing the idle days; the month is the unit because
// the release-risk and refund conversations with a platform happen per
// month and per disk, and a finding per idle run would split one multi-day
// item across findings.
type stoppedStorage struct{}

func (stoppedStorage) ID() string { return "stopped_storage" }

func (stoppedStorage) Info() Info {
	return Info{
		ID:            "stopped_storage",
		TitleZH:       "关机后仍计费的存储",
		TitleEN:       "Storage billed while stopped",
		DescriptionZH: "所服务的实例没有运行（无计算记录）的日子或时段里仍在计费的存储（数据盘、系统盘、文件存储、网盘）。风险金额 = 这些记录的应付金额；按天的记录整条计入，按小时的记录在该小时无计算时计入。未注明所属实例时按整个账号当天是否有计算判断。",
		DescriptionEN: "Storage (data and system disks, file storage, network disks) billed on days or hours when the instance it serves ran no compute. Money at risk = those items' billed cost; a day-level item counts whole, an hourly item when its hour had no compute. Storage that names no instance is judged by any compute of the account that day.",
		Params: append([]Param{
			minAmountParam,
		}, severityParams("1", "10", "50")...),
	}
}

type storageKey struct {
	provider, how, served, resource, currency string
}

type storageGroup struct {
	key      storageKey
	account  string
	items    []*ledger.LineItem
	amount   decimal.Decimal
	prorated int
	days     map[string]bool // idle days in TZ, YYYY-MM-DD
	start    time.Time
	end      time.Time
}

func (r stoppedStorage) Run(ctx context.Context, in *Input) ([]ledger.Finding, error) {
	minAmount, th, err := in.amountLimits()
	if err != nil {
		return nil, err
	}
	groups := map[storageKey]*storageGroup{}
	for _, li := range in.Items {
		if li.Kind != ledger.KindStorage || !isUsage(li) {
			continue
		}
		sv := in.servedBy(li)
		amount, pieces, prorated := in.idleShare(li, sv)
		if len(pieces) == 0 {
			continue
		}
		k := storageKey{li.Provider, sv.how, sv.id, li.ResourceID, li.Currency}
		g := groups[k]
		if g == nil {
			g = &storageGroup{key: k, account: li.BillingAccountID, days: map[string]bool{}}
			groups[k] = g
		}
		g.items = append(g.items, li)
		g.amount = g.amount.Add(amount)
		if prorated {
			g.prorated++
		}
		for _, p := range pieces {
			g.days[formatDay(p.start, in.TZ)] = true
			if g.start.IsZero() || p.start.Before(g.start) {
				g.start = p.start
			}
			if p.end.After(g.end) {
				g.end = p.end
			}
		}
	}
	var out []ledger.Finding
	for _, g := range groups {
		if g.amount.Cmp(minAmount) < 0 {
			continue
		}
		out = append(out, r.finding(in, g, th))
	}
	return out, nil
}

// idleShare returns the part of li's billed cost that fell in idle time of
// the served instance, the idle pieces of its period, and whether the amount
// is pro rata.
func (in *Input) idleShare(li *ledger.LineItem, sv served) (decimal.Decimal, []interval, bool) {
	s, e := li.ChargePeriodStart, li.ChargePeriodEnd
	if !e.After(s) { // a charge at one instant: judge its day
		s = dayStart(s, in.TZ)
		e = nextDay(s)
	}
	// check widens a piece to whole days for the account fallback.
	check := func(ps, pe time.Time) bool {
		if sv.how == servedAccount {
			ps = dayStart(ps, in.TZ)
			if d := dayStart(pe.Add(-time.Nanosecond), in.TZ); !d.Before(ps) {
				pe = nextDay(d)
			}
		}
		return !in.ranDuring(sv, ps, pe)
	}
	if e.Sub(s) <= 24*time.Hour {
		if check(s, e) {
			return li.BilledCost, []interval{{s, e}}, false
		}
		return decimal.Zero, nil, false
	}
	var idle []interval
	var idleSecs int64
	for d := dayStart(s, in.TZ); d.Before(e); d = nextDay(d) {
		ps, pe := billing.Later(s, d), billing.Earlier(e, nextDay(d))
		if !pe.After(ps) {
			continue
		}
		if check(ps, pe) {
			idle = append(idle, interval{ps, pe})
			idleSecs += int64(pe.Sub(ps) / time.Second)
		}
	}
	if len(idle) == 0 {
		return decimal.Zero, nil, false
	}
	total := int64(e.Sub(s) / time.Second)
	return billing.ProRata(li.BilledCost, idleSecs, total), idle, idleSecs < total
}

func (r stoppedStorage) finding(in *Input, g *storageGroup, th thresholds) ledger.Finding {
	sort.Slice(g.items, func(i, j int) bool { return g.items[i].ID < g.items[j].ID })
	k := g.key
	cur := k.currency
	days := make([]string, 0, len(g.days))
	for d := range g.days {
		days = append(days, d)
	}
	sort.Strings(days)
	ranges := dayRanges(days)
	amount := FormatMoney(g.amount, cur)
	n := len(g.items)
	storageZH, storageEN := k.resource, k.resource
	if k.resource == "" {
		storageZH, storageEN = "（账号级存储）", "(account-level storage)"
	}
	var reasonZH, reasonEN string
	switch k.how {
	case servedAccount:
		acct := g.account
		if acct == "" {
			acct = platform.Name(k.provider, "zh")
		}
		acctEN := g.account
		if acctEN == "" {
			acctEN = platform.Name(k.provider, "en")
		}
		reasonZH = fmt.Sprintf("存储 %s 未注明所属实例，按账号 %s 整体判断（兜底）：该账号在 %s（共 %d 天）没有任何计算记录，存储仍计费 %s（%d 条记录）。",
			storageZH, acct, ranges, len(days), amount, n)
		reasonEN = fmt.Sprintf("Storage %s names no instance, so account %s was judged as a whole (fallback): it ran no compute on %s (%s), yet the storage was billed %s (%s).",
			storageEN, acctEN, ranges, plural(len(days), "day"), amount, plural(n, "line item"))
	default:
		reasonZH = fmt.Sprintf("存储 %s 在实例 %s 未运行的时段仍计费 %s（%d 条记录，涉及 %s，共 %d 天）。",
			storageZH, k.served, amount, n, ranges, len(days))
		reasonEN = fmt.Sprintf("Storage %s was billed %s (%s) for time when instance %s ran no compute, on %s (%s).",
			storageEN, amount, plural(n, "line item"), k.served, ranges, plural(len(days), "day"))
	}
	adviceZH := "确认这些数据是否还需要：不需要就备份后释放磁盘；需要长期保存可迁到更便宜的存储。"
	adviceEN := "Check whether you still need this data: if not, back it up and release the disk; if so, move it to cheaper storage."
	if p, ok := in.Policy(k.provider); ok && p.ReleaseDays > 0 {
		adviceZH += fmt.Sprintf("注意：%s的实例连续关机 %d 天会被释放、数据删除。", platform.Name(k.provider, "zh"), p.ReleaseDays)
		adviceEN += fmt.Sprintf(" Note: %s releases an instance shut down for %d days and deletes its data.", platform.Name(k.provider, "en"), p.ReleaseDays)
	}
	terms := make([]decimal.Decimal, 0, n)
	for _, li := range g.items {
		terms = append(terms, li.BilledCost)
	}
	basis := "billed cost of storage line items in idle periods: " + sumText(terms, g.amount, cur)
	if g.prorated > 0 {
		basis = fmt.Sprintf("billed cost of storage line items in idle periods, %s pro rata by idle days (8 decimals) = %s",
			plural(g.prorated, "multi-day item"), amount)
	}
	return ledger.Finding{
		Severity:     th.severity(g.amount),
		Provider:     k.provider,
		ResourceID:   k.resource,
		PeriodStart:  g.start,
		PeriodEnd:    g.end,
		AmountAtRisk: valid(g.amount),
		Currency:     cur,
		Basis:        basis,
		ReasonZH:     reasonZH,
		ReasonEN:     reasonEN,
		AdviceZH:     adviceZH,
		AdviceEN:     adviceEN,
		Evidence:     evidenceOf(g.items),
	}
}

// sumText renders an exact sum: "¥0.066 + ¥0.066 = ¥0.132", or
// "Σ 12 items = ¥4.80" when there are more than 5 terms.
func sumText(terms []decimal.Decimal, total decimal.Decimal, cur string) string {
	if len(terms) == 1 {
		return formatExact(total, cur)
	}
	if len(terms) > 5 {
		return fmt.Sprintf("Σ %d items = %s", len(terms), formatExact(total, cur))
	}
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = formatExact(t, cur)
	}
	return strings.Join(parts, " + ") + " = " + formatExact(total, cur)
}

// dayRanges compresses sorted YYYY-MM-DD days into "2026-10-03, 2026-10-05–2026-10-07"
// (at most 6 ranges, then "…").
func dayRanges(days []string) string {
	var parts []string
	for i := 0; i < len(days); {
		j := i
		for j+1 < len(days) && nextDate(days[j]) == days[j+1] {
			j++
		}
		if i == j {
			parts = append(parts, days[i])
		} else {
			parts = append(parts, days[i]+"–"+days[j])
		}
		i = j + 1
	}
	if len(parts) > 6 {
		parts = append(parts[:6], "…")
	}
	return strings.Join(parts, ", ")
}

func nextDate(day string) string {
	t, err := time.Parse("2006-01-02", day)
	if err != nil {
		return ""
	}
	return t.AddDate(0, 0, 1).Format("2006-01-02")
}

// plural renders "1 day", "2 days".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

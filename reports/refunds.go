package reports

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/rules"
)

// The refund checklist: per platform, the charges a user can dispute, with
// evidence, a ready-to-send support ticket, the unused balance and the
// platform's refund and invoice rules.
//
// Disputable charges (claims):
//   - stored findings of the month of the rules duplicate_charge,
//     overlapping_charge and price_deviation with a positive money at risk;
//   - min_duration_rounding findings, only for the part beyond the
//     platform's own stated rule: each evidence line item's actual use is
//     rounded up to the policy's billing step (and at least its minimum
//     billed duration); what was billed above that is claimed
//     (rules.RoundingBeyondPolicy). Rounding the platform announces (揽睿星舟
//     bills whole hours) is no claim; a platform whose policy states no
//     billing step gives none;
//   - charged_after_release, computed here: line items of an instance (see
//     instances.go) whose charge period ends after the policy's release date
//     (last compute + release days): whole when they start after it, pro rata
//     by time (8 decimals) when they straddle it.
//
// Finding states: resolved findings are left out (the user settled them);
// acknowledged ones stay in (acknowledging says "I have seen it", not "it is
// right": a charge can be both known and refundable).
//
// Money: each claim shows its own amount; the per-platform totals count each
// line item's money once, by the rule of the findings report (higher
// severity first, then the rule listed first; a charged_after_release claim
// ranks as high, after the built-in rules).
//
// Balance: the last balance stated in the platform's money flow
// (transactions) up to the end of the month, per account and currency, with
// the number of later movements that state none (the balance may have
// changed since). A platform is listed when it has a claim or a positive
// balance.

// RuleChargedAfterRelease is the claim computed by the refunds report for
// charges after a platform's release date (no stored finding).
const RuleChargedAfterRelease = "charged_after_release"

// refundRules are the rules whose findings are disputable, in display order.
var refundRules = []string{"duplicate_charge", "overlapping_charge", "min_duration_rounding", "price_deviation", RuleChargedAfterRelease}

// RefundsOptions selects the month and the reference data of the refund
// checklist.
type RefundsOptions struct {
	Month  string         // billing period YYYY-MM (required)
	TZ     *time.Location // zone of days and dates; nil = Asia/Shanghai
	Policy PolicyLookup
}

// RefundClaim is one disputable charge.
type RefundClaim struct {
	RuleID      string // one of refundRules
	Fingerprint string // of the finding; "" for charged_after_release
	State       string // of the finding (open, acknowledged); "" for charged_after_release
	Severity    string
	Provider    string
	Account     string // billing account of its line items ("" = not stated)
	ResourceID  string
	PeriodStart time.Time
	PeriodEnd   time.Time
	Currency    string
	Amount      decimal.Decimal // money at stake
	Counted     decimal.Decimal // the part that counts in the totals (each line item once)
	Evidence    []ledger.Evidence

	// what the ticket text says about it
	items       []*ledger.LineItem
	lastCompute time.Time
	releaseAt   time.Time
	releaseDays int
}

// RefundBalance is the last balance a platform's money flow states.
type RefundBalance struct {
	Account  string
	Currency string
	Balance  decimal.Decimal
	Time     time.Time
	Later    int // later movements (up to the end of the month) that state no balance
}

// RefundTotal is what a platform owes back in one currency.
type RefundTotal struct {
	Currency string
	Amount   decimal.Decimal
	Claims   int
}

// RefundTicket is a support ticket ready to send: one per account and
// currency of a platform.
type RefundTicket struct {
	Account  string
	Currency string
	Amount   decimal.Decimal
	TextZH   string
	TextEN   string
}

// RefundPlatform is the checklist of one platform.
type RefundPlatform struct {
	Provider  string
	Claims    []RefundClaim
	Totals    []RefundTotal // by currency
	Balances  []RefundBalance
	HasPolicy bool
	Policy    rules.Policy
	Tickets   []RefundTicket
	StepsZH   []string
	StepsEN   []string
}

// RefundsReport is the refund checklist of a month.
type RefundsReport struct {
	Month     string
	Platforms []RefundPlatform // in the order of ledger.Providers, then by slug
}

// Refunds builds the refund checklist of opts.Month from the stored
// findings (run the audit first), the line items and the money flow.
func Refunds(ctx context.Context, db *ledger.DB, opts RefundsOptions) (*RefundsReport, error) {
	loc := opts.TZ
	if loc == nil {
		loc = defaultTZ()
	}
	s, err := loadInstances(ctx, db, opts.Month, loc, opts.Policy)
	if err != nil {
		return nil, err
	}
	fs, err := db.Findings(ctx, opts.Month)
	if err != nil {
		return nil, fmt.Errorf("reports: refunds: %w", err)
	}
	var claims []RefundClaim
	for i := range fs {
		f := &fs[i]
		if f.State == "resolved" || !slices.Contains(refundRules, f.RuleID) {
			continue
		}
		c := RefundClaim{RuleID: f.RuleID, Fingerprint: f.Fingerprint, State: f.State, Severity: f.Severity,
			Provider: f.Provider, ResourceID: f.ResourceID, PeriodStart: f.PeriodStart, PeriodEnd: f.PeriodEnd,
			Currency: f.Currency, Evidence: f.Evidence}
		for _, ev := range f.Evidence {
			if li := s.items[ev.LineItemID]; li != nil {
				c.items = append(c.items, li)
			}
		}
		if f.RuleID == "min_duration_rounding" {
			p, ok := opts.Policy.get(f.Provider)
			if !ok {
				continue
			}
			c.Amount, c.Evidence, c.items = decimal.Zero, nil, nil
			for _, ev := range f.Evidence {
				li := s.items[ev.LineItemID]
				if li == nil {
					continue
				}
				if m, ok := rules.RoundingBeyondPolicy(li, p); ok && m.IsPositive() {
					c.Amount = c.Amount.Add(m)
					c.Evidence = append(c.Evidence, ev)
					c.items = append(c.items, li)
				}
			}
			if len(c.items) > 0 {
				c.PeriodStart, c.PeriodEnd = refundItemsPeriod(c.items)
			}
		} else if f.AmountAtRisk.Valid {
			c.Amount = f.AmountAtRisk.Decimal
		}
		if !c.Amount.IsPositive() {
			continue
		}
		claims = append(claims, c)
	}
	claims = append(claims, s.afterRelease()...)
	for i := range claims {
		claims[i].Account = refundAccount(claims[i].items)
	}
	countClaims(claims, s.items)

	// money flow: the last stated balance per provider, account, currency
	monthStart, err := time.ParseInLocation("2006-01", opts.Month, loc)
	if err != nil {
		return nil, fmt.Errorf("reports: refunds: month %q: %w", opts.Month, err)
	}
	txs, err := db.Transactions(ctx, "", time.Unix(0, 0), monthStart.AddDate(0, 1, 0))
	if err != nil {
		return nil, fmt.Errorf("reports: refunds: %w", err)
	}
	balances := lastBalances(txs)

	byProvider := map[string]*RefundPlatform{}
	platform := func(provider string) *RefundPlatform {
		p := byProvider[provider]
		if p == nil {
			p = &RefundPlatform{Provider: provider}
			p.Policy, p.HasPolicy = opts.Policy.get(provider)
			byProvider[provider] = p
		}
		return p
	}
	for _, c := range claims {
		p := platform(c.Provider)
		p.Claims = append(p.Claims, c)
	}
	for _, b := range balances {
		if _, ok := byProvider[b.provider]; !ok && !b.Balance.IsPositive() {
			continue
		}
		p := platform(b.provider)
		p.Balances = append(p.Balances, b.RefundBalance)
	}
	rep := &RefundsReport{Month: opts.Month}
	for _, p := range byProvider {
		p.finish(opts.Month, loc)
		rep.Platforms = append(rep.Platforms, *p)
	}
	sort.Slice(rep.Platforms, func(i, j int) bool {
		a, b := refundProviderRank(rep.Platforms[i].Provider), refundProviderRank(rep.Platforms[j].Provider)
		if a != b {
			return a < b
		}
		return rep.Platforms[i].Provider < rep.Platforms[j].Provider
	})
	return rep, nil
}

func refundProviderRank(slug string) int {
	for i, p := range ledger.Providers {
		if p.Slug == slug {
			return i
		}
	}
	return len(ledger.Providers)
}

// itemsPeriod is the span of the items' charge periods.
func refundItemsPeriod(items []*ledger.LineItem) (start, end time.Time) {
	for _, li := range items {
		if start.IsZero() || li.ChargePeriodStart.Before(start) {
			start = li.ChargePeriodStart
		}
		if li.ChargePeriodEnd.After(end) {
			end = li.ChargePeriodEnd
		}
	}
	return start, end
}

// accountOf is the billing account of the items (the first stated).
func refundAccount(items []*ledger.LineItem) string {
	for _, li := range items {
		if li.BillingAccountID != "" {
			return li.BillingAccountID
		}
	}
	return ""
}

// afterRelease finds, per instance with a release date before the end of
// its data, the charges after that date.
func (s *instanceSet) afterRelease() []RefundClaim {
	var out []RefundClaim
	for _, in := range s.order {
		if in.releaseAt.IsZero() || !in.releaseAt.Before(in.dataEnd) {
			continue
		}
		byCur := map[string]*RefundClaim{}
		var curs []string
		for _, li := range in.items {
			if !instPositiveUsage(li) || !li.ChargePeriodEnd.After(in.releaseAt) {
				continue
			}
			amount := li.BilledCost
			if li.ChargePeriodStart.Before(in.releaseAt) {
				whole := int64(li.ChargePeriodEnd.Sub(li.ChargePeriodStart) / time.Second)
				part := int64(li.ChargePeriodEnd.Sub(in.releaseAt) / time.Second)
				if whole > 0 && part < whole {
					amount = li.BilledCost.Mul(decimal.NewFromInt(part)).DivRound(decimal.NewFromInt(whole), 8)
				}
			}
			c := byCur[li.Currency]
			if c == nil {
				c = &RefundClaim{RuleID: RuleChargedAfterRelease, Severity: ledger.SeverityHigh, Provider: in.key.provider,
					ResourceID: in.key.id, Currency: li.Currency, lastCompute: in.lastEnd, releaseAt: in.releaseAt,
					releaseDays: in.releaseDays}
				byCur[li.Currency] = c
				curs = append(curs, li.Currency)
			}
			c.Amount = c.Amount.Add(amount)
			c.items = append(c.items, li)
			c.Evidence = append(c.Evidence, ledger.Evidence{LineItemID: li.ID, File: li.File, Row: li.SourceRow})
		}
		for _, cur := range curs {
			c := byCur[cur]
			if !c.Amount.IsPositive() {
				continue
			}
			_, c.PeriodEnd = refundItemsPeriod(c.items)
			c.PeriodStart = in.releaseAt
			out = append(out, *c)
		}
	}
	return out
}

// countClaims sets each claim's Counted: its money once per line item,
// under the claim of higher severity, then the rule listed first (the
// attribution of the findings report).
func countClaims(claims []RefundClaim, items map[int64]*ledger.LineItem) {
	fs := make([]ledger.Finding, len(claims))
	billed := map[int64]decimal.Decimal{}
	for i, c := range claims {
		fs[i] = ledger.Finding{Fingerprint: strconv.Itoa(i), RuleID: c.RuleID, Severity: c.Severity, Provider: c.Provider,
			ResourceID: c.ResourceID, PeriodStart: c.PeriodStart, PeriodEnd: c.PeriodEnd, Currency: c.Currency,
			AmountAtRisk: known(c.Amount), Evidence: c.Evidence}
		for _, ev := range c.Evidence {
			if li := items[ev.LineItemID]; li != nil {
				billed[li.ID] = li.BilledCost
			}
		}
	}
	for _, e := range NewFindingsReport("", fs, billed).Findings {
		i, _ := strconv.Atoi(e.Fingerprint)
		claims[i].Counted = e.Counted.Decimal
	}
}

type providerBalance struct {
	provider string
	RefundBalance
}

// lastBalances keeps, per provider, account and currency, the last
// movement that states a balance and counts the movements after it.
func lastBalances(txs []ledger.Transaction) []providerBalance {
	type key struct{ provider, account, currency string }
	idx := map[key]int{}
	var out []providerBalance
	for _, x := range txs { // oldest first
		k := key{x.Provider, x.Account, x.Currency}
		i, ok := idx[k]
		if x.Balance.Valid {
			b := providerBalance{x.Provider, RefundBalance{Account: x.Account, Currency: x.Currency,
				Balance: x.Balance.Decimal, Time: x.Time}}
			if ok {
				out[i] = b
			} else {
				idx[k] = len(out)
				out = append(out, b)
			}
		} else if ok {
			out[i].Later++
		}
	}
	return out
}

// finish sorts the claims, sums the totals and writes the tickets and steps.
func (p *RefundPlatform) finish(month string, loc *time.Location) {
	sort.SliceStable(p.Claims, func(i, j int) bool {
		a, b := &p.Claims[i], &p.Claims[j]
		if x, y := slices.Index(refundRules, a.RuleID), slices.Index(refundRules, b.RuleID); x != y {
			return x < y
		}
		if !a.PeriodStart.Equal(b.PeriodStart) {
			return a.PeriodStart.Before(b.PeriodStart)
		}
		if a.ResourceID != b.ResourceID {
			return a.ResourceID < b.ResourceID
		}
		return a.Fingerprint < b.Fingerprint
	})
	sort.Slice(p.Balances, func(i, j int) bool {
		a, b := p.Balances[i], p.Balances[j]
		if a.Account != b.Account {
			return a.Account < b.Account
		}
		return a.Currency < b.Currency
	})
	tidx := map[string]int{}
	type tkey struct{ account, currency string }
	groups := map[tkey][]*RefundClaim{}
	var order []tkey
	for i := range p.Claims {
		c := &p.Claims[i]
		j, ok := tidx[c.Currency]
		if !ok {
			j = len(p.Totals)
			tidx[c.Currency] = j
			p.Totals = append(p.Totals, RefundTotal{Currency: c.Currency})
		}
		p.Totals[j].Amount = p.Totals[j].Amount.Add(c.Counted)
		p.Totals[j].Claims++
		k := tkey{c.Account, c.Currency}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c)
	}
	sort.Slice(p.Totals, func(i, j int) bool { return p.Totals[i].Currency < p.Totals[j].Currency })
	for _, k := range order {
		cs := groups[k]
		amount := decimal.Zero
		for _, c := range cs {
			amount = amount.Add(c.Counted)
		}
		p.Tickets = append(p.Tickets, RefundTicket{Account: k.account, Currency: k.currency, Amount: amount,
			TextZH: p.ticket("zh", month, k.account, k.currency, amount, cs, loc),
			TextEN: p.ticket("en", month, k.account, k.currency, amount, cs, loc)})
	}
	p.StepsZH, p.StepsEN = p.steps("zh", month), p.steps("en", month)
}

func init() {
	addMessages(map[string][2]string{
		"refund.title":         {"退款清单", "Refund checklist"},
		"refund.none":          {"本月没有可申请退款的费用，也没有账户余额记录。", "Nothing to claim this month, and no account balance on record."},
		"refund.claims":        {"可申请退款的费用", "Disputable charges"},
		"refund.no_claims":     {"没有可申请退款的费用。", "No disputable charges."},
		"refund.to_claim":      {"可申请退款", "To claim"},
		"refund.balance":       {"账户余额", "Balance"},
		"refund.no_balance":    {"账单中没有余额记录", "no balance in the money flow"},
		"refund.balance_at":    {"%s（%s）", "%s (as of %s)"},
		"refund.balance_later": {"；此后还有 %d 笔收支未显示余额，以控制台为准", "; %d later movements show no balance, check the console"},
		"refund.refund_rule":   {"退款规则", "Refund rule"},
		"refund.invoice_rule":  {"开票规则", "Invoice rule"},
		"refund.no_policy":     {"平台规则表中没有该平台", "not in the policy table"},
		"refund.guess":         {"（推定，未经平台确认）", " (a guess, not confirmed by the platform)"},
		"refund.steps":         {"步骤", "Steps"},
		"refund.ticket":        {"工单文本", "Support ticket"},
		"refund.ticket_for":    {"工单文本（账号 %s，%s）", "Support ticket (account %s, %s)"},
		"refund.totals":        {"合计", "Totals"},
		"refund.evidence":      {"证据：", "Evidence: "},
		"refund.fingerprint":   {"指纹", "fingerprint"},
		"refund.computed":      {"由 gpubill 按平台释放规则计算", "computed by gpubill from the release rule"},
		"refund.note.count": {"同一费用行被多项引用时，合计只计一次（严重程度高者优先）。已标记为“已解决”的发现不列入；“已确认”的仍列入。",
			"A line item cited by several claims counts once in the totals (the most severe first). Findings marked resolved are left out; acknowledged ones stay in."},
		"refund.col.platform":        {"平台", "Provider"},
		"refund.col.account":         {"账号", "Account"},
		"refund.col.claim":           {"类型", "Claim"},
		"refund.col.resource":        {"实例/资源", "Resource"},
		"refund.col.period":          {"时段", "Period"},
		"refund.col.amount":          {"涉及金额", "At stake"},
		"refund.col.counted":         {"计入合计", "Counted"},
		"refund.col.claims":          {"项数", "Claims"},
		"refund.col.balance_time":    {"余额时间", "Balance as of"},
		"refund.col.step":            {"步骤", "Step"},
		"refund.col.text":            {"内容", "Text"},
		"rule.charged_after_release": {"释放期限后仍收费", "Charged after the release date"},
	})
}

// claimTitle is a claim's rule title in lang.
func claimTitle(lang, rule string) string { return tr(lang, "rule."+rule) }

// ticketRows renders evidence for a ticket: per file its base name (the
// name the platform gave the export) and its rows as ranges.
func ticketRows(ev []ledger.Evidence, lang string) string {
	var files []string
	rows := map[string][]int{}
	for _, e := range ev {
		f := filepath.Base(e.File)
		if _, ok := rows[f]; !ok {
			files = append(files, f)
		}
		rows[f] = append(rows[f], e.Row)
	}
	parts := make([]string, len(files))
	for i, f := range files {
		text, n := compressRows(rows[f], 0)
		format := pick(lang, "第 %s 行", "rows %s")
		if n == 1 {
			format = pick(lang, "第 %s 行", "row %s")
		}
		parts[i] = f + " " + fmt.Sprintf(format, text)
	}
	return strings.Join(parts, pick(lang, "，", ", "))
}

// unitText names a pricing unit in lang (ingest normalises time units to
// English slugs).
func refundUnit(lang, unit string) string {
	if lang != "zh" {
		return unit
	}
	switch unit {
	case "hour":
		return "小时"
	case "minute":
		return "分钟"
	case "second":
		return "秒"
	case "day":
		return "天"
	}
	return unit
}

// stepText describes a billing step: "按秒" / "by the second".
func stepText(lang string, d time.Duration) string {
	switch d {
	case time.Second:
		return pick(lang, "按秒", "by the second")
	case time.Minute:
		return pick(lang, "按分钟", "by the minute")
	case time.Hour:
		return pick(lang, "按小时", "by the hour")
	}
	return pick(lang, "按 "+d.String(), "in steps of "+d.String())
}

// ruleIntro introduces a platform rule, hedged when the policy entry is a guess.
func ruleIntro(lang string, guess bool) string {
	if guess {
		return pick(lang, "据我了解，贵平台", "As far as I know, your platform")
	}
	return pick(lang, "贵平台", "Your platform")
}

// claimSentence is one numbered item of a ticket.
func (p *RefundPlatform) claimSentence(lang string, c *RefundClaim, loc *time.Location) string {
	amt := moneyWithCurrency(known(c.Amount), c.Currency)
	period := blockPeriod(c.PeriodStart, c.PeriodEnd, loc)
	rows := ticketRows(c.Evidence, lang)
	res := orDash(c.ResourceID)
	n := len(c.Evidence)
	switch c.RuleID {
	case "duplicate_charge":
		return fmt.Sprintf(pick(lang,
			"重复扣费：资源 %s 在 %s 的同一笔费用被重复扣取（%s），多扣 %s。同一时段的使用只应计费一次。",
			"Duplicate charge: resource %s was charged more than once for the same use during %s (%s), %s too much. The same time should be billed once."),
			res, period, rows, amt)
	case "overlapping_charge":
		return fmt.Sprintf(pick(lang,
			"重叠扣费：资源 %s 有 %v 条计费记录的时段互相重叠（%s；%s），重叠部分被计费两次，约 %s。同一时段的使用只应计费一次。",
			"Overlapping charges: resource %s has %s whose periods overlap (%s; %s), so that time was billed twice, about %s. The same time should be billed once."),
			res, refundCount(lang, n, "line item"), period, rows, amt)
	case "min_duration_rounding":
		rule := ""
		if p.HasPolicy {
			rule = ruleIntro(lang, p.Policy.IsGuess("billing_step")) + pick(lang, stepText(lang, p.Policy.BillingStep)+"计费", " bills "+stepText(lang, p.Policy.BillingStep))
			if p.Policy.MinimumBilled > 0 {
				rule += fmt.Sprintf(pick(lang, "、最低计费 %s", ", with a minimum of %s"), p.Policy.MinimumBilled)
			}
		}
		return fmt.Sprintf(pick(lang,
			"计费时长超出规则：资源 %s 在 %s 的 %d 条计算费用（%s）计费时长多于实际使用时长。%s，即使按此取整，仍多计约 %s。",
			"Billed beyond the billing rule: %s of resource %s during %s (%s) billed more time than was used. %s; even rounded that way, about %s too much was billed."),
			refundArgs(lang, []any{res, period, n, rows, rule, amt}, []any{refundPlural(n, "compute line item"), res, period, rows, rule, amt})...)
	case "price_deviation":
		price := ""
		if len(c.items) > 0 && c.items[0].ListUnitPrice.Valid {
			li := c.items[0]
			price = fmt.Sprintf(pick(lang, "（单价 %s/%s）", " (unit price %s per %s)"),
				moneyWithCurrency(li.ListUnitPrice, c.Currency), orDash(refundUnit(lang, li.PricingUnit)))
		}
		return fmt.Sprintf(pick(lang,
			"单价偏高：资源 %s 在 %s 的计算费用%s高于贵平台该型号公布的价格（%s），多收约 %s。请按订购时公布的价格计费。",
			"Price above the published one: the compute of resource %s during %s%s was billed above your published price for this GPU (%s), about %s too much. Please bill at the price published when it was ordered."),
			res, period, price, rows, amt)
	case RuleChargedAfterRelease:
		kinds := map[string]bool{}
		for _, li := range c.items {
			kinds[li.Kind] = true
		}
		var ks []string
		for _, k := range ledger.Kinds {
			if kinds[k] {
				ks = append(ks, trOr(lang, "kind.", k))
			}
		}
		_, until := refundItemsPeriod(c.items)
		rule := ruleIntro(lang, p.Policy.IsGuess("release_days")) +
			fmt.Sprintf(pick(lang, "会释放连续关机 %d 天的实例并删除数据", " releases an instance shut down for %d days and deletes its data"), c.releaseDays)
		return fmt.Sprintf(pick(lang,
			"释放期限后仍收费：实例 %s 最后一次运行结束于 %s。%s，因此它应于 %s 释放，但此后仍收取了 %v 条费用（%s，至 %s；%s），共 %s。",
			"Charged after the release date: instance %s last ran until %s. %s, so it was due for release on %s, yet %d charges followed (%s, until %s; %s), %s in all."),
			res, instHumanTime(c.lastCompute, loc), rule, instHumanTime(c.releaseAt, loc), n,
			strings.Join(ks, pick(lang, "、", " and ")), instHumanTime(until, loc), rows, amt)
	}
	return fmt.Sprintf("%s: %s %s (%s) %s", c.RuleID, res, period, rows, amt)
}

// countArg is n for a Chinese sentence ("%d 条"), "n things" for English.
func refundCount(lang string, n int, thing string) any {
	if lang == "zh" {
		return n
	}
	return refundPlural(n, thing)
}

// plural writes "1 charge", "2 charges".
func refundPlural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// orderArgs picks the argument order of a sentence per language.
func refundArgs(lang string, zh, en []any) []any {
	if lang == "zh" {
		return zh
	}
	return en
}

// ticket writes the support ticket of one account and currency.
func (p *RefundPlatform) ticket(lang, month, account, currency string, amount decimal.Decimal, cs []*RefundClaim, loc *time.Location) string {
	name := providerName(p.Provider, lang)
	var b strings.Builder
	if lang == "zh" {
		b.WriteString("您好！\n\n")
		who := "我的" + name + "账号"
		if account != "" {
			who = "我是" + name + "账号 " + account + " 的用户，"
		} else {
			who += "的"
		}
		fmt.Fprintf(&b, "%s核对 %s 的账单时，发现以下 %d 项费用与贵平台的计费规则不符：\n\n", who, month, len(cs))
	} else {
		b.WriteString("Hello,\n\n")
		who := "my " + name + " account"
		if account != "" {
			who += " " + account
		}
		fmt.Fprintf(&b, "Checking the %s bill of %s, I found %d charges that do not follow your billing rules:\n\n", month, who, len(cs))
	}
	for i, c := range cs {
		fmt.Fprintf(&b, "%d. %s\n", i+1, p.claimSentence(lang, c, loc))
	}
	total := moneyWithCurrency(known(amount), currency)
	if lang == "zh" {
		fmt.Fprintf(&b, "\n以上合计 %s。请核实，并将多扣的费用退回我的账户余额。所列行号为贵平台导出账单中的行（明细附后）。\n\n谢谢！\n", total)
	} else {
		fmt.Fprintf(&b, "\nIn all %s. Please check these charges and refund the excess to my account balance. The row numbers refer to the bills exported from your console (details attached).\n\nThank you.\n", total)
	}
	return b.String()
}

// steps lists what to do, in lang.
func (p *RefundPlatform) steps(lang, month string) []string {
	name := providerName(p.Provider, lang)
	var out []string
	if len(p.Claims) > 0 {
		out = append(out,
			fmt.Sprintf(pick(lang, "登录%s控制台提交工单（没有工单入口就联系在线客服），问题类型选“费用/账单”。",
				"Open a support ticket in the %s console (or contact online support if there is no ticket form), category billing."), name),
			pick(lang, "粘贴下面的工单文本（每个账号一份），核对后提交。",
				"Paste the ticket text below (one per account), check it and send it."),
			fmt.Sprintf(pick(lang, "附上证据：原始账单文件中列出的行，以及 gpubill report refunds --month %s --format csv -o refunds-%s.csv 导出的清单。",
				"Attach the evidence: the rows listed, from the original bill files, and the list exported by gpubill report refunds --month %s --format csv -o refunds-%s.csv."), month, month),
			pick(lang, "请求退回到账户余额，记下工单号；处理后用 gpubill audit resolve 指纹 把对应发现标为已解决。",
				"Ask for the refund to your balance and note the ticket number; once settled, mark the findings with gpubill audit resolve FINGERPRINT."))
	}
	for _, bal := range p.Balances {
		if !bal.Balance.IsPositive() {
			continue
		}
		rule := pick(lang, "平台规则表中没有退款规则", "the policy table has no refund rule")
		if p.HasPolicy {
			if r := pick(lang, p.Policy.RefundZH, p.Policy.RefundEN); r != "" {
				rule = strings.TrimRight(r, "。.")
			}
		}
		out = append(out, fmt.Sprintf(pick(lang, "若不再使用该平台，可申请退回余额 %s（%s）。",
			"If you no longer use the platform, ask for the balance of %s back (%s)."),
			moneyWithCurrency(known(bal.Balance), bal.Currency), rule))
		break
	}
	return out
}

// Write encodes the checklist (see WriteOptions): JSON is the "platforms"
// contract; table and markdown show one block per platform (claims,
// balance, rules, steps, ticket text); CSV and TSV hold one line per claim.
func (r *RefundsReport) Write(w io.Writer, opts WriteOptions) error {
	opts, err := opts.normalize()
	if err != nil {
		return err
	}
	switch opts.Format {
	case FormatJSON:
		return writeJSON(w, r.json(opts))
	case FormatTable, FormatMarkdown:
		return r.writeBlocks(w, opts)
	}
	return writeDocument(w, opts, r.document(opts))
}

// balanceText renders a platform's balances for humans.
func (p *RefundPlatform) balanceText(lang string, loc *time.Location) string {
	if len(p.Balances) == 0 {
		return tr(lang, "refund.no_balance")
	}
	var parts []string
	for _, b := range p.Balances {
		s := fmt.Sprintf(tr(lang, "refund.balance_at"), moneyWithCurrency(known(b.Balance), b.Currency), instHumanTime(b.Time, loc))
		if b.Account != "" {
			s = b.Account + " " + s
		}
		if b.Later > 0 {
			s += fmt.Sprintf(tr(lang, "refund.balance_later"), b.Later)
			if b.Later == 1 && lang != "zh" {
				s = strings.Replace(s, "movements show", "movement shows", 1)
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, pick(lang, "；", "; "))
}

// ruleText renders the refund or invoice rule (field "refund" or "invoice").
func (p *RefundPlatform) ruleText(lang, field string) string {
	if !p.HasPolicy {
		return tr(lang, "refund.no_policy")
	}
	var s string
	if field == "refund" {
		s = pick(lang, p.Policy.RefundZH, p.Policy.RefundEN)
	} else {
		s = pick(lang, p.Policy.InvoiceZH, p.Policy.InvoiceEN)
	}
	if s == "" {
		return unknownDisplay
	}
	if p.Policy.IsGuess(field) && !strings.Contains(s, "推定") && !strings.Contains(s, "assumed") {
		s += tr(lang, "refund.guess")
	}
	return s
}

// balanceTotals renders the positive balances: "¥12.50".
func (p *RefundPlatform) balanceTotals(lang string) string {
	var parts []string
	for _, b := range p.Balances {
		if b.Balance.IsPositive() {
			parts = append(parts, moneyWithCurrency(known(b.Balance), b.Currency))
		}
	}
	return orDash(strings.Join(parts, pick(lang, "；", "; ")))
}

// totalsText renders a platform's totals: "¥12.34；5.00 USD".
func (p *RefundPlatform) totalsText(lang string) string {
	var parts []string
	for _, t := range p.Totals {
		parts = append(parts, moneyWithCurrency(known(t.Amount), t.Currency))
	}
	if len(parts) == 0 {
		return moneyWithCurrency(known(decimal.Zero), "CNY")
	}
	return strings.Join(parts, pick(lang, "；", "; "))
}

// writeBlocks writes the table or markdown checklist.
//
// Table layout (en):
//
//	AutoDL — to claim ¥2.82
//	  1. Duplicate charge  autodl-4090-a  2026-10-08 09:00 ~ 10:00  ¥1.88  fingerprint 5e74df87a5973f1d
//	       Evidence: autodl-2026-10.csv rows 5–6 (2 rows)
//	  Balance: …
//	  Refund rule: …
//	  Steps:
//	    1. …
//	  Support ticket (account lab-zhang, CNY):
//	    | Hello,
func (r *RefundsReport) writeBlocks(w io.Writer, opts WriteOptions) error {
	lang, md, loc := opts.Lang, opts.Format == FormatMarkdown, opts.TZ
	var b strings.Builder
	title := tr(lang, "refund.title") + " " + r.Month
	if md {
		b.WriteString("# " + mdHeading(title) + "\n")
	} else {
		b.WriteString(oneLine(title) + "\n")
	}
	if len(r.Platforms) == 0 {
		b.WriteString("\n" + tr(lang, "refund.none") + "\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	label := func(key string) string { return tr(lang, key) + pick(lang, "：", ": ") }
	for i := range r.Platforms {
		p := &r.Platforms[i]
		head := providerName(p.Provider, lang) + " — " + tr(lang, "refund.to_claim") + " " + p.totalsText(lang)
		if len(p.Claims) == 0 {
			head = providerName(p.Provider, lang) + " — " + tr(lang, "refund.balance") + " " + p.balanceTotals(lang)
		}
		if md {
			b.WriteString("\n## " + mdHeading(head) + "\n\n")
		} else {
			b.WriteString("\n" + oneLine(head) + "\n")
		}
		if len(p.Claims) == 0 {
			if md {
				b.WriteString(tr(lang, "refund.no_claims") + "\n\n")
			} else {
				b.WriteString(blockIndent + tr(lang, "refund.no_claims") + "\n")
			}
		}
		for j := range p.Claims {
			c := &p.Claims[j]
			parts := []string{claimTitle(lang, c.RuleID), orDash(oneLine(c.ResourceID)),
				blockPeriod(c.PeriodStart, c.PeriodEnd, loc), moneyWithCurrency(known(c.Amount), c.Currency)}
			fp := tr(lang, "refund.computed")
			if c.Fingerprint != "" {
				fp = tr(lang, "refund.fingerprint") + " " + c.Fingerprint
			}
			if c.State != "" && c.State != "open" {
				fp += " · " + trOr(lang, "state.", c.State)
			}
			if md {
				fmt.Fprintf(&b, "%d. **%s** · %s · %s · %s · %s\n   - %s%s\n", j+1, mdInline(parts[0]), mdCodeOrDash(c.ResourceID),
					parts[2], parts[3], mdInline(fp), tr(lang, "refund.evidence"), evidenceSummary(c.Evidence, lang, mdCodeOrDash))
			} else {
				fmt.Fprintf(&b, "%s%d. %s  %s\n%s%s%s\n", blockIndent, j+1, strings.Join(parts, "  "), fp,
					detailIndent, tr(lang, "refund.evidence"), evidenceSummary(c.Evidence, lang, oneLineOrDash))
			}
		}
		facts := [][2]string{
			{label("refund.balance"), p.balanceText(lang, loc)},
			{label("refund.refund_rule"), p.ruleText(lang, "refund")},
			{label("refund.invoice_rule"), p.ruleText(lang, "invoice")},
		}
		if md {
			b.WriteString("\n")
		}
		for _, f := range facts {
			if md {
				b.WriteString("- **" + mdInline(strings.TrimSpace(f[0])) + "** " + mdInline(f[1]) + "\n")
			} else {
				b.WriteString(blockIndent + oneLine(f[0]+f[1]) + "\n")
			}
		}
		steps := refundPickList(lang, p.StepsZH, p.StepsEN)
		if len(steps) > 0 {
			if md {
				b.WriteString("\n### " + mdHeading(tr(lang, "refund.steps")) + "\n\n")
			} else {
				b.WriteString(blockIndent + strings.TrimSpace(label("refund.steps")) + "\n")
			}
			for k, s := range steps {
				if md {
					fmt.Fprintf(&b, "%d. %s\n", k+1, mdInline(s))
				} else {
					fmt.Fprintf(&b, "%s%d. %s\n", detailIndent, k+1, oneLine(s))
				}
			}
		}
		for _, t := range p.Tickets {
			head := fmt.Sprintf(tr(lang, "refund.ticket_for"), orDash(t.Account), t.Currency)
			text := pick(lang, t.TextZH, t.TextEN)
			if md {
				b.WriteString("\n### " + mdHeading(head) + "\n\n")
				fence := refundFence(text)
				b.WriteString(fence + "text\n" + text + fence + "\n")
			} else {
				b.WriteString(blockIndent + oneLine(head) + pick(lang, "：", ":") + "\n")
				for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
					b.WriteString(strings.TrimRight(detailIndent+"| "+oneLine(line), " ") + "\n")
				}
			}
		}
	}

	// totals per platform and currency
	if err := writeTitledGrid(&b, md, tr(lang, "refund.totals"), r.totalsGrid(opts), tr(lang, "refund.note.count")); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func refundPickList(lang string, zh, en []string) []string {
	if lang == "zh" {
		return zh
	}
	return en
}

// codeFence is a markdown fence longer than any run of backticks in text.
func refundFence(text string) string {
	run, longest := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// totalsGrid is one line per platform and currency: what to claim, and
// the balance in that currency.
func (r *RefundsReport) totalsGrid(opts WriteOptions) *grid {
	lang, exact := opts.Lang, opts.exact()
	g := &grid{cols: []column{
		textCol("provider", tr(lang, "refund.col.platform")),
		textCol("currency", tr(lang, "col.currency")),
		countCol("claims", tr(lang, "refund.col.claims")),
		moneyCol("amount", tr(lang, "refund.to_claim")),
		moneyCol("balance", tr(lang, "refund.balance")),
		timeCol("balance_time", tr(lang, "refund.col.balance_time")),
	}}
	for i := range r.Platforms {
		p := &r.Platforms[i]
		curs := map[string]bool{}
		for _, t := range p.Totals {
			curs[t.Currency] = true
		}
		for _, b := range p.Balances {
			curs[b.Currency] = true
		}
		var list []string
		for c := range curs {
			list = append(list, c)
		}
		slices.Sort(list)
		name := p.Provider
		if !opts.codes() {
			name = providerName(p.Provider, lang)
		}
		for _, cur := range list {
			amount, n := decimal.Zero, 0
			for _, t := range p.Totals {
				if t.Currency == cur {
					amount, n = t.Amount, t.Claims
				}
			}
			var bal decimal.NullDecimal
			var at time.Time
			for _, b := range p.Balances {
				if b.Currency == cur {
					bal = known(bal.Decimal.Add(b.Balance))
					if b.Time.After(at) {
						at = b.Time
					}
				}
			}
			g.add(name, cur, strconv.Itoa(n), FormatMoney(amount, cur, exact), FormatNullMoney(bal, cur, exact), instTimeCell(at, opts))
		}
	}
	return g
}

// document lays the checklist out for the one-table and spreadsheet
// formats: the claims first (one line each), then the per-platform totals,
// the steps and the ticket texts.
func (r *RefundsReport) document(opts WriteOptions) *document {
	lang, exact := opts.Lang, opts.exact()
	claims := &grid{cols: []column{
		textCol("provider", tr(lang, "refund.col.platform")),
		textCol("account", tr(lang, "refund.col.account")),
		textCol("rule_id", tr(lang, "refund.col.claim")),
		textCol("resource_id", tr(lang, "refund.col.resource")),
		timeCol("period_start", tr(lang, "refund.col.period")),
		timeCol("period_end", tr(lang, "refund.col.period")),
		textCol("currency", tr(lang, "col.currency")),
		moneyCol("amount", tr(lang, "refund.col.amount")),
		moneyCol("counted", tr(lang, "refund.col.counted")),
		textCol("fingerprint", tr(lang, "find.fingerprint")),
		textCol("state", tr(lang, "col.state")),
		textCol("evidence", tr(lang, "col.evidence")),
	}}
	steps := &grid{cols: []column{
		textCol("provider", tr(lang, "refund.col.platform")),
		countCol("step", tr(lang, "refund.col.step")),
		textCol("text", tr(lang, "refund.col.text")),
	}}
	tickets := &grid{cols: []column{
		textCol("provider", tr(lang, "refund.col.platform")),
		textCol("account", tr(lang, "refund.col.account")),
		textCol("currency", tr(lang, "col.currency")),
		moneyCol("amount", tr(lang, "refund.to_claim")),
		textCol("text_zh", tr(lang, "refund.ticket")+" (zh)"),
		textCol("text_en", tr(lang, "refund.ticket")+" (en)"),
	}}
	for i := range r.Platforms {
		p := &r.Platforms[i]
		name := p.Provider
		if !opts.codes() {
			name = providerName(p.Provider, lang)
		}
		for j := range p.Claims {
			c := &p.Claims[j]
			rule, state := c.RuleID, c.State
			if !opts.codes() {
				rule, state = claimTitle(lang, c.RuleID), trOr(lang, "state.", c.State)
			}
			claims.add(name, c.Account, rule, c.ResourceID, instTimeCell(c.PeriodStart, opts), instTimeCell(c.PeriodEnd, opts),
				c.Currency, FormatMoney(c.Amount, c.Currency, exact), FormatMoney(c.Counted, c.Currency, exact),
				c.Fingerprint, state, evidenceText(c.Evidence))
		}
		for k, s := range refundPickList(lang, p.StepsZH, p.StepsEN) {
			steps.add(name, strconv.Itoa(k+1), s)
		}
		for _, t := range p.Tickets {
			tickets.add(name, t.Account, t.Currency, FormatMoney(t.Amount, t.Currency, exact), t.TextZH, t.TextEN)
		}
	}
	return &document{
		key:   "refunds",
		title: tr(lang, "refund.title") + " " + r.Month,
		sections: []section{
			{key: "claims", title: tr(lang, "refund.claims"), grid: claims, empty: tr(lang, "refund.no_claims"), totals: true},
			{key: "platforms", title: tr(lang, "refund.totals"), grid: r.totalsGrid(opts)},
			{key: "steps", title: tr(lang, "refund.steps"), grid: steps},
			{key: "tickets", title: tr(lang, "refund.ticket"), grid: tickets},
		},
		notes: []string{tr(lang, "refund.note.count")},
	}
}

// JSON shapes: the "platforms" contract. Both languages' texts are
// included, so the output does not depend on --lang.
type refundsJSON struct {
	Month     string               `json:"month"`
	Platforms []refundPlatformJSON `json:"platforms"`
}

type refundPlatformJSON struct {
	Provider         string              `json:"provider"`
	Claims           []refundClaimJSON   `json:"claims"`
	Totals           []refundTotalJSON   `json:"totals"`
	Balances         []refundBalanceJSON `json:"balances"`
	RefundRuleZH     string              `json:"refund_rule_zh"`
	RefundRuleEN     string              `json:"refund_rule_en"`
	RefundRuleGuess  bool                `json:"refund_rule_is_guess"`
	InvoiceRuleZH    string              `json:"invoice_rule_zh"`
	InvoiceRuleEN    string              `json:"invoice_rule_en"`
	InvoiceRuleGuess bool                `json:"invoice_rule_is_guess"`
	PolicySource     string              `json:"policy_source"`
	PolicySeen       string              `json:"policy_seen"`
	StepsZH          []string            `json:"steps_zh"`
	StepsEN          []string            `json:"steps_en"`
	Tickets          []refundTicketJSON  `json:"tickets"`
}

type refundClaimJSON struct {
	RuleID      string         `json:"rule_id"`
	Fingerprint *string        `json:"fingerprint"`
	State       *string        `json:"state"`
	Account     string         `json:"account"`
	ResourceID  string         `json:"resource_id"`
	PeriodStart *string        `json:"period_start"`
	PeriodEnd   *string        `json:"period_end"`
	Currency    string         `json:"currency"`
	Amount      string         `json:"amount"`
	Counted     string         `json:"counted"`
	Evidence    []evidenceJSON `json:"evidence"`
}

type refundTotalJSON struct {
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
	Claims   int    `json:"claims"`
}

type refundBalanceJSON struct {
	Account        string `json:"account"`
	Currency       string `json:"currency"`
	Balance        string `json:"balance"`
	Time           string `json:"time"`
	LaterMovements int    `json:"later_movements"`
}

type refundTicketJSON struct {
	Account  string `json:"account"`
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
	TextZH   string `json:"text_zh"`
	TextEN   string `json:"text_en"`
}

func refundOptString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (r *RefundsReport) json(opts WriteOptions) refundsJSON {
	out := refundsJSON{Month: r.Month, Platforms: []refundPlatformJSON{}}
	for i := range r.Platforms {
		p := &r.Platforms[i]
		j := refundPlatformJSON{Provider: p.Provider, Claims: []refundClaimJSON{}, Totals: []refundTotalJSON{},
			Balances: []refundBalanceJSON{}, StepsZH: p.StepsZH, StepsEN: p.StepsEN, Tickets: []refundTicketJSON{}}
		if p.HasPolicy {
			j.RefundRuleZH, j.RefundRuleEN, j.RefundRuleGuess = p.Policy.RefundZH, p.Policy.RefundEN, p.Policy.IsGuess("refund")
			j.InvoiceRuleZH, j.InvoiceRuleEN, j.InvoiceRuleGuess = p.Policy.InvoiceZH, p.Policy.InvoiceEN, p.Policy.IsGuess("invoice")
			j.PolicySource, j.PolicySeen = p.Policy.Source, p.Policy.Seen
		}
		if j.StepsZH == nil {
			j.StepsZH, j.StepsEN = []string{}, []string{}
		}
		for k := range p.Claims {
			c := &p.Claims[k]
			cj := refundClaimJSON{RuleID: c.RuleID, Fingerprint: refundOptString(c.Fingerprint), State: refundOptString(c.State),
				Account: c.Account, ResourceID: c.ResourceID, PeriodStart: instJSONTime(c.PeriodStart, opts.TZ),
				PeriodEnd: instJSONTime(c.PeriodEnd, opts.TZ), Currency: c.Currency, Amount: ledger.DecimalString(c.Amount),
				Counted: ledger.DecimalString(c.Counted), Evidence: []evidenceJSON{}}
			for _, ev := range c.Evidence {
				cj.Evidence = append(cj.Evidence, evidenceJSON{File: ev.File, Row: ev.Row, LineItemID: ev.LineItemID})
			}
			j.Claims = append(j.Claims, cj)
		}
		for _, t := range p.Totals {
			j.Totals = append(j.Totals, refundTotalJSON{Currency: t.Currency, Amount: ledger.DecimalString(t.Amount), Claims: t.Claims})
		}
		for _, b := range p.Balances {
			j.Balances = append(j.Balances, refundBalanceJSON{Account: b.Account, Currency: b.Currency,
				Balance: ledger.DecimalString(b.Balance), Time: formatRFC3339(b.Time, opts.TZ), LaterMovements: b.Later})
		}
		for _, t := range p.Tickets {
			j.Tickets = append(j.Tickets, refundTicketJSON{Account: t.Account, Currency: t.Currency,
				Amount: ledger.DecimalString(t.Amount), TextZH: t.TextZH, TextEN: t.TextEN})
		}
		out.Platforms = append(out.Platforms, j)
	}
	return out
}

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

func init() { register(minDurationRounding{}) }

// minDurationRounding flags time billed above actual use (DESIGN.md
// "min_duration_rounding"): a 12-minute job billed one hour, 1h05 billed 2h.
//
// Billed = pricing_quantity in a time unit (hour, minute, second, day).
// Actual = usage_end − usage_start where the bill gives both, else
// consumed_quantity (in consumed_unit, or the pricing unit when that is
// empty). Money at risk = (billed − actual) × unit price, the unit price being
// list_unit_price, else billed_cost ÷ billed quantity; it never exceeds the
// item's billed cost (a list price above the discounted one could claim more
// than was paid). Prepaid items are skipped: a package is bought for its
// whole period.
//
// Without actual times the rule only judges what the policy table allows: a
// compute charge that forms a session on its own and is billed exactly the
// platform's minimum billed duration (≥ 1 minute) gets an info finding with
// the amount unknown.
//
// One finding per (provider, resource, currency) and month, so a platform
// that rounds every short job gives one finding per instance, not hundreds.
type minDurationRounding struct{}

func (minDurationRounding) ID() string { return "min_duration_rounding" }

func (minDurationRounding) Info() Info {
	return Info{
		ID:            "min_duration_rounding",
		TitleZH:       "最低计费时长取整",
		TitleEN:       "Minimum-duration rounding",
		DescriptionZH: "计费时长多于实际使用时长（如 12 分钟的任务按 1 小时计费）。风险金额 = (计费时长 − 实际时长) × 单价。账单没有实际时间时，只按平台规则判断单独一次、恰为最低计费时长的计费，记为 info、金额未知。",
		DescriptionEN: "Billed time above actual use (a 12-minute job billed one hour). Money at risk = (billed − actual) × unit price. Where the bill has no actual times, only a lone charge of exactly the platform's minimum billed duration is reported, as info with the amount unknown.",
		Columns:       []string{"list_unit_price"},
		Params: append([]Param{
			{Name: "min_amount", Type: ParamAmount, Default: "0.01",
				HelpZH: "多计金额低于此值不报告（避免不足一分钱的噪声）", HelpEN: "findings below this amount at risk are not reported (sub-cent noise)"},
		}, severityParams("1", "10", "50")...),
	}
}

// roundingTerm is one line item billed above its actual use.
type roundingTerm struct {
	li           *ledger.LineItem
	unit         billing.TimeUnit
	billedSecs   decimal.Decimal
	actualSecs   decimal.Decimal
	price        decimal.Decimal // per unit, for display
	priceDerived bool
	fromConsumed bool
	money        decimal.Decimal
	capped       bool
}

type roundingKey struct {
	provider, resource, currency string
	policy                       bool // judged by the policy table only
}

func (r minDurationRounding) Run(ctx context.Context, in *Input) ([]ledger.Finding, error) {
	minAmount, th, err := in.amountLimits()
	if err != nil {
		return nil, err
	}
	groups := map[roundingKey][]roundingTerm{}
	// Most items share their unit and provider with the item before
	// (items come by resource): both are looked up once a run.
	var unitText string
	var u billing.TimeUnit
	var unitOK bool
	var minimum minimumOf
	for _, li := range in.Items {
		if !isUsage(li) || billing.IsPrepaid(li) || !quantityPositive(li) {
			continue
		}
		if li.PricingUnit != unitText || unitText == "" {
			unitText = li.PricingUnit
			u, unitOK = billing.ParseTimeUnit(unitText)
		}
		if !unitOK {
			continue
		}
		actual, basis, known := billing.UsageSeconds(li)
		fromConsumed := basis == billing.UsageFromConsumed
		if !known {
			if in.atPolicyMinimum(li, u, minimum.of(in, li.Provider)) {
				k := roundingKey{li.Provider, li.ResourceID, li.Currency, true}
				groups[k] = append(groups[k], roundingTerm{li: li, unit: u, billedSecs: u.Seconds(li.PricingQuantity.Decimal)})
			}
			continue
		}
		t := roundingTerm{li: li, unit: u, billedSecs: u.Seconds(li.PricingQuantity.Decimal)}
		t.actualSecs, t.fromConsumed = actual, fromConsumed
		excess := t.billedSecs.Sub(actual)
		if !excess.IsPositive() {
			continue
		}
		if li.ListUnitPrice.Valid && li.ListUnitPrice.Decimal.IsPositive() {
			t.price = li.ListUnitPrice.Decimal
			t.money = excess.Mul(t.price).DivRound(decimal.NewFromInt(u.Secs), 8)
		} else {
			t.priceDerived = true
			t.price = li.BilledCost.DivRound(li.PricingQuantity.Decimal, 8)
			t.money = excess.Mul(li.BilledCost).DivRound(t.billedSecs, 8)
		}
		if t.money.Cmp(li.BilledCost) > 0 {
			t.money, t.capped = li.BilledCost, true
		}
		if !t.money.IsPositive() {
			continue
		}
		k := roundingKey{li.Provider, li.ResourceID, li.Currency, false}
		groups[k] = append(groups[k], t)
	}
	var out []ledger.Finding
	for k, terms := range groups {
		sort.Slice(terms, func(i, j int) bool { return terms[i].li.ID < terms[j].li.ID })
		if k.policy {
			out = append(out, r.policyFinding(in, k, terms))
			continue
		}
		total := decimal.Zero
		for _, t := range terms {
			total = total.Add(t.money)
		}
		if total.Cmp(minAmount) < 0 {
			continue
		}
		f := r.finding(k, terms, total, th)
		f.AdviceZH, f.AdviceEN = roundingAdvice(in.Policy(k.provider))
		out = append(out, f)
	}
	return out, nil
}

// minimumOf caches the policy's minimum billed duration of the last
// provider asked.
type minimumOf struct {
	provider string
	asked    bool
	minimum  time.Duration // 0 = none known
}

func (m *minimumOf) of(in *Input, provider string) time.Duration {
	if !m.asked || provider != m.provider {
		m.provider, m.asked, m.minimum = provider, true, 0
		if p, ok := in.Policy(provider); ok {
			m.minimum = p.MinimumBilled
		}
	}
	return m.minimum
}

// atPolicyMinimum reports whether li, billed in unit u with no actual times,
// is a lone on-demand compute charge billed exactly its platform's minimum
// duration (minimum, 0 when the policy has none).
func (in *Input) atPolicyMinimum(li *ledger.LineItem, u billing.TimeUnit, minimum time.Duration) bool {
	if minimum < time.Minute || !billing.IsSessionItem(li) {
		return false
	}
	if !u.Seconds(li.PricingQuantity.Decimal).Equal(decimal.NewFromInt(int64(minimum / time.Second))) {
		return false
	}
	return in.isLoneSession(li)
}

func roundingPeriod(terms []roundingTerm) (start, end time.Time) {
	for _, t := range terms {
		if start.IsZero() || t.li.ChargePeriodStart.Before(start) {
			start = t.li.ChargePeriodStart
		}
		if t.li.ChargePeriodEnd.After(end) {
			end = t.li.ChargePeriodEnd
		}
	}
	return start, end
}

func secsDuration(secs decimal.Decimal) time.Duration {
	return time.Duration(secs.Round(0).IntPart()) * time.Second
}

func (minDurationRounding) finding(k roundingKey, terms []roundingTerm, total decimal.Decimal, th thresholds) ledger.Finding {
	var billed, actual decimal.Decimal
	var parts []string
	var derived, capped, consumed bool
	items := make([]*ledger.LineItem, 0, len(terms))
	for i, t := range terms {
		billed = billed.Add(t.billedSecs)
		actual = actual.Add(t.actualSecs)
		derived = derived || t.priceDerived
		capped = capped || t.capped
		consumed = consumed || t.fromConsumed
		items = append(items, t.li)
		if i < 4 {
			parts = append(parts, fmt.Sprintf("(%s − %s) × %s", formatQty(t.li.PricingQuantity.Decimal, t.unit),
				formatQty(t.unit.Per(t.actualSecs), t.unit), FormatPrice(t.price, k.currency, t.unit.Abbr)))
		}
	}
	basis := strings.Join(parts, " + ")
	if len(terms) > 4 {
		basis += fmt.Sprintf(" + … (%d line items)", len(terms))
	}
	basis += " = " + FormatMoney(total, k.currency)
	if derived {
		basis += "; unit price = billed cost ÷ billed quantity where no list price"
	}
	if consumed {
		basis += "; actual = consumed quantity where no usage times"
	}
	if capped {
		basis += "; capped at the item's billed cost"
	}
	b, a := secsDuration(billed), secsDuration(actual)
	amount := FormatMoney(total, k.currency)
	start, end := roundingPeriod(terms)
	return ledger.Finding{
		Severity:     th.severity(total),
		Provider:     k.provider,
		ResourceID:   k.resource,
		PeriodStart:  start,
		PeriodEnd:    end,
		AmountAtRisk: valid(total),
		Currency:     k.currency,
		Basis:        basis,
		ReasonZH: fmt.Sprintf("%d 条计费记录共计费 %s，实际使用 %s，多计 %s，约 %s。",
			len(terms), formatDurationZH(b), formatDurationZH(a), formatDurationZH(b-a), amount),
		ReasonEN: fmt.Sprintf("%s billed %s in total for %s of actual use: %s more than used, about %s.",
			plural(len(terms), "line item"), formatDuration(b), formatDuration(a), formatDuration(b-a), amount),
		Evidence: evidenceOf(items),
	}
}

// roundingAdvice is the advice of a rounding finding. It states the
// platform's billing step as the policy table does, the same step the
// refund ticket cites (reports/refunds_ticket.go), and never asserts a rule
// the table does not hold.
func roundingAdvice(p billing.Policy, ok bool) (zh, en string) {
	if !ok || p.BillingStep <= 0 {
		return "账单计费时长多于实际使用：若平台声明按秒计费，可凭这些记录申请退还差额；否则短任务尽量合并，或改用按秒计费的平台。",
			"More time was billed than used: if the platform claims per-second billing, ask for the difference back with these rows; otherwise batch short jobs or use a platform that bills by the second."
	}
	stepZH, stepEN := "按 "+formatDurationZH(p.BillingStep), "in steps of "+formatDuration(p.BillingStep)
	switch p.BillingStep {
	case time.Second:
		stepZH, stepEN = "按秒", "by the second"
	case time.Minute:
		stepZH, stepEN = "按分钟", "by the minute"
	case time.Hour:
		stepZH, stepEN = "按小时", "by the hour"
	}
	guessZH, guessEN := "", ""
	if p.IsGuess("billing_step") {
		guessZH, guessEN = "（推测，未经平台确认）", " (a guess, not confirmed by the platform)"
	}
	return fmt.Sprintf("平台规则表记载该平台%s计费%s：超出这一规则多计的部分可凭这些记录申请退还（gpubill report refunds 生成工单）；按这一步长取整属正常计费，短任务尽量合并可减少。", stepZH, guessZH),
		fmt.Sprintf("The policy table says this platform bills %s%s: what was billed beyond that rule can be claimed back with these rows (gpubill report refunds writes the ticket); rounding up to that step is normal billing, which batching short jobs reduces.", stepEN, guessEN)
}

func (minDurationRounding) policyFinding(in *Input, k roundingKey, terms []roundingTerm) ledger.Finding {
	p, _ := in.Policy(k.provider)
	items := make([]*ledger.LineItem, 0, len(terms))
	for _, t := range terms {
		items = append(items, t.li)
	}
	minDur := formatDuration(p.MinimumBilled)
	guess := ""
	if p.IsGuess("minimum_billed") {
		guess = ", a guess"
	}
	start, end := roundingPeriod(terms)
	return ledger.Finding{
		Severity:    ledger.SeverityInfo,
		Provider:    k.provider,
		ResourceID:  k.resource,
		PeriodStart: start,
		PeriodEnd:   end,
		Currency:    k.currency,
		Basis:       fmt.Sprintf("billed quantity = minimum billed duration %s (policy table%s); actual use unknown, so no amount", minDur, guess),
		ReasonZH: fmt.Sprintf("%d 次单独开机各计费 %s，恰为%s的最低计费时长；账单没有实际使用时间，无法算出多计金额。",
			len(terms), formatDurationZH(p.MinimumBilled), platform.Name(k.provider, "zh")),
		ReasonEN: fmt.Sprintf("%s billed %s each, exactly %s's minimum billed duration; the bill has no actual run times, so the excess cannot be computed.",
			plural(len(terms), "separate run"), minDur, platform.Name(k.provider, "en")),
		AdviceZH: "在平台控制台核对实际开关机时间；若实际用时远短于计费时长，短任务尽量合并。",
		AdviceEN: "Check the actual start and stop times in the platform's console; if runs were much shorter than billed, batch short jobs.",
		Evidence: evidenceOf(items),
	}
}

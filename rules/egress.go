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
	"github.com/gpubill/gpubill/money"
	"github.com/gpubill/gpubill/platform"
)

func init() { register(egress{}) }

// egress flags network charges (traffic, bandwidth, public IP) that are
// large in absolute terms or against the compute they served (DESIGN.md
// "egress"): a model download that cost more than the training.
//
// The network line items of the month are grouped by the instance they
// serve (coverage.go servedBy: parent resource, the same resource, or as a
// fallback the provider account as a whole) and currency. A group is
// reported when its total is above max_amount (a plain number in the
// group's currency), or above max_percent of the compute it served. The
// compute served is the billed cost of the served instance's (fallback: the
// account's) running compute items of the month in the same currency, plus
// the part inside the month of context items of the neighbouring months (a
// session across the month's edge), pro rata by time. Prepaid compute counts:
// a package is compute the traffic served.
//
// Money at risk = the network charges of the group; the evidence is those
// network items only (the compute items are the yardstick, not money at
// risk, and must not make the totals' de-duplication drop another rule's
// money).
type egress struct{}

func (egress) ID() string { return "egress" }

func (egress) Info() Info {
	return Info{
		ID:            "egress",
		TitleZH:       "流量与公网费用偏高",
		TitleEN:       "High network charges",
		DescriptionZH: "按所服务的实例（未注明时按整个账号）汇总本月的网络费用（流量、带宽、公网 IP），金额超过阈值（默认 10，按币种的数值），或超过其所服务计算费用的一定比例（默认 20%）时报告。风险金额 = 这些网络费用。",
		DescriptionEN: "Network charges (traffic, bandwidth, public IP) of the month, summed per instance served (or per account when none is named), reported when above an amount (default 10, a plain number in the charge's currency) or above a share of the compute they served (default 20%). Money at risk = those network charges.",
		Params: append([]Param{
			{Name: "max_amount", Type: ParamAmount, Default: "10",
				HelpZH: "每个实例（或账号）当月网络费用超过此金额即报告（按该币种的数值）",
				HelpEN: "network charges of an instance (or account) in a month above this amount are reported (a plain number in their currency)"},
			{Name: "max_percent", Type: ParamAmount, Default: "20",
				HelpZH: "网络费用超过所服务计算费用的此百分比即报告",
				HelpEN: "network charges above this percentage of the compute they served are reported"},
			minAmountParam,
		}, severityParams("1", "20", "100")...),
	}
}

type egressKey struct{ provider, how, served, currency string }

type egressGroup struct {
	charges
	key egressKey
}

// egressComputeKey identifies compute by served instance or account.
type egressComputeKey struct{ provider, how, id, currency string }

func (r egress) Run(ctx context.Context, in *Input) ([]ledger.Finding, error) {
	maxAmount, err := in.amountParam("max_amount")
	if err != nil {
		return nil, err
	}
	maxPercent, err := in.amountParam("max_percent")
	if err != nil {
		return nil, err
	}
	minAmount, th, err := in.amountLimits()
	if err != nil {
		return nil, err
	}
	groups := map[egressKey]*egressGroup{}
	for _, li := range in.Items {
		if li.Kind != ledger.KindNetwork || !isUsage(li) {
			continue
		}
		sv := in.servedBy(li)
		k := egressKey{li.Provider, sv.how, sv.id, li.Currency}
		g := groups[k]
		if g == nil {
			g = &egressGroup{key: k}
			groups[k] = g
		}
		g.addItem(li)
	}
	if len(groups) == 0 {
		return nil, nil
	}
	served := in.egressComputeServed()
	var out []ledger.Finding
	for _, g := range groups {
		if g.amount.Cmp(minAmount) < 0 {
			continue
		}
		k := g.key
		ck := egressComputeKey{k.provider, servedSame, k.served, k.currency}
		if k.how == servedAccount {
			ck.how = servedAccount
		}
		comp := served[ck]
		overAmount := g.amount.Cmp(maxAmount) > 0
		overRatio := g.amount.Mul(decimal.NewFromInt(100)).Cmp(comp.Mul(maxPercent)) > 0
		if !overAmount && !overRatio {
			continue
		}
		out = append(out, r.finding(in, g, comp, maxAmount, maxPercent, overAmount, overRatio, th))
	}
	return out, nil
}

// egressComputeServed sums, per served instance and per account (and
// currency), the running compute billed in the month: the month's items
// whole, the context items by the part of their active span inside the
// month. Items come sorted by resource, so each run of one resource's items
// is summed on its own (money.Sum, no allocation a term) and added
// to the two sums once: adding every item to both through the map was 0.6 s
// of CPU on a million-item month.
func (in *Input) egressComputeServed() map[egressComputeKey]decimal.Decimal {
	sums := map[egressComputeKey]*money.Sum{}
	addTo := func(k egressComputeKey, s *money.Sum) {
		if sums[k] == nil {
			sums[k] = &money.Sum{}
		}
		sums[k].AddSum(s)
	}
	var run money.Sum
	var first *ledger.LineItem // of the run summed in run
	flush := func() {
		if first == nil {
			return
		}
		if first.ResourceID != "" {
			addTo(egressComputeKey{first.Provider, servedSame, first.ResourceID, first.Currency}, &run)
		}
		addTo(egressComputeKey{first.Provider, servedAccount, first.BillingAccountID, first.Currency}, &run)
		run, first = money.Sum{}, nil
	}
	add := func(li *ledger.LineItem, cost decimal.Decimal) {
		if cost.IsZero() {
			return
		}
		if first != nil && (li.ResourceID != first.ResourceID || li.Provider != first.Provider ||
			li.BillingAccountID != first.BillingAccountID || li.Currency != first.Currency) {
			flush()
		}
		if first == nil {
			first = li
		}
		run.Add(cost)
	}
	for _, li := range in.Items {
		if billing.IsRunning(li) {
			add(li, li.BilledCost)
		}
	}
	for _, li := range in.Context {
		if cost, ok := in.monthShare(li); ok {
			add(li, cost)
		}
	}
	flush()
	m := make(map[egressComputeKey]decimal.Decimal, len(sums))
	for k, s := range sums {
		m[k] = s.Decimal()
	}
	return m
}

// monthShare is the part of the running context item li's cost inside the
// month: whole for a point in time within it, pro rata by its active span
// otherwise; ok is false when li is not running compute or has none.
func (in *Input) monthShare(li *ledger.LineItem) (cost decimal.Decimal, ok bool) {
	if !billing.IsRunning(li) || in.InMonth(li) {
		return decimal.Decimal{}, false
	}
	s, e := billing.ActiveSpan(li)
	if !e.After(s) {
		return li.BilledCost, !s.Before(in.MonthStart) && s.Before(in.MonthEnd)
	}
	ps, pe := billing.Later(s, in.MonthStart), billing.Earlier(e, in.MonthEnd)
	if !pe.After(ps) {
		return decimal.Decimal{}, false
	}
	return billing.ProRata(li.BilledCost, int64(pe.Sub(ps)/time.Second), int64(e.Sub(s)/time.Second)), true
}

// egressPercent renders part/whole as a percentage with at most one
// decimal: "70", "4.2".
func egressPercent(part, whole decimal.Decimal) string {
	return part.Mul(decimal.NewFromInt(100)).DivRound(whole, 4).Round(1).String()
}

func (r egress) finding(in *Input, g *egressGroup, comp, maxAmount, maxPercent decimal.Decimal,
	overAmount, overRatio bool, th thresholds) ledger.Finding {
	sort.Slice(g.items, func(i, j int) bool { return g.items[i].ID < g.items[j].ID })
	k := g.key
	cur := k.currency
	amount := FormatMoney(g.amount, cur)
	n := len(g.items)
	limitText := FormatMoney(maxAmount, cur)
	pctLimit := maxPercent.String() + "%"

	whoZH, whoEN := "所服务计算费用", "the compute it served"
	if k.how == servedAccount {
		whoZH, whoEN = "该账号本月计算费用", "the account's compute this month"
	}
	var detailZH, detailEN string
	switch {
	case comp.IsPositive():
		pct := egressPercent(g.amount, comp) + "%"
		detailZH = fmt.Sprintf("相当于%s %s 的 %s", whoZH, FormatMoney(comp, cur), pct)
		detailEN = fmt.Sprintf("%s of %s (%s)", pct, whoEN, FormatMoney(comp, cur))
		switch {
		case overAmount && overRatio:
			detailZH += fmt.Sprintf("，超过 %s 的金额阈值，也超过 %s 的比例阈值", limitText, pctLimit)
			detailEN += fmt.Sprintf(", above both the %s threshold and the %s threshold", limitText, pctLimit)
		case overAmount:
			detailZH += fmt.Sprintf("，超过 %s 的金额阈值", limitText)
			detailEN += fmt.Sprintf(", above the %s threshold", limitText)
		default:
			detailZH += fmt.Sprintf("，超过 %s 的比例阈值", pctLimit)
			detailEN += fmt.Sprintf(", above the %s threshold", pctLimit)
		}
	case k.how == servedAccount:
		detailZH, detailEN = "而该账号本月没有任何计算费用", "while the account had no compute charge this month"
	default:
		detailZH, detailEN = "而该实例本月没有任何计算费用", "while the instance had no compute charge this month"
	}
	if !comp.IsPositive() && overAmount {
		detailZH += fmt.Sprintf("，且超过 %s 的金额阈值", limitText)
		detailEN += fmt.Sprintf(", and above the %s threshold", limitText)
	}

	resource := k.served
	var reasonZH, reasonEN string
	if k.how == servedAccount {
		resource = egressSingleResource(g.items)
		acctZH, acctEN := k.served, k.served
		if k.served == "" {
			acctZH, acctEN = platform.Name(k.provider, "zh"), platform.Name(k.provider, "en")
		}
		reasonZH = fmt.Sprintf("网络费用（流量、带宽、公网 IP）未注明所属实例，按账号 %s 整体判断（兜底）：本月共 %s（%d 条记录），%s。",
			acctZH, amount, n, detailZH)
		reasonEN = fmt.Sprintf("Network charges (traffic, bandwidth, public IP) that name no instance were judged against account %s as a whole (fallback): %s this month (%s), %s.",
			acctEN, amount, plural(n, "line item"), detailEN)
	} else {
		reasonZH = fmt.Sprintf("实例 %s 本月的网络费用（流量、带宽、公网 IP）共 %s（%d 条记录），%s。",
			k.served, amount, n, detailZH)
		reasonEN = fmt.Sprintf("Network charges (traffic, bandwidth, public IP) of instance %s came to %s this month (%s), %s.",
			k.served, amount, plural(n, "line item"), detailEN)
	}
	terms := make([]decimal.Decimal, 0, n)
	for _, li := range g.items {
		terms = append(terms, li.BilledCost)
	}
	basis := "billed cost of network line items: " + sumText(terms, g.amount, cur)
	if comp.IsPositive() {
		basis += fmt.Sprintf("; compute served: %s (%s%%)", formatExact(comp, cur), egressPercent(g.amount, comp))
	} else {
		basis += "; compute served: none"
	}
	return ledger.Finding{
		Severity:     th.severity(g.amount),
		Provider:     k.provider,
		ResourceID:   resource,
		PeriodStart:  g.start,
		PeriodEnd:    g.end,
		AmountAtRisk: valid(g.amount),
		Currency:     cur,
		Basis:        basis,
		ReasonZH:     reasonZH,
		ReasonEN:     reasonEN,
		AdviceZH:     "查清流量来自哪里：模型和数据集尽量走平台内网、镜像源或学术加速下载，不用的公网 IP 和带宽及时释放；若流量不是你产生的，带上这些记录联系客服申请退款。",
		AdviceEN:     "Find out where the traffic came from: download models and datasets through the platform's internal network, mirrors or academic acceleration, release public IPs and bandwidth you do not use, and if you did not cause the traffic, ask support for a refund with these rows.",
		Evidence:     evidenceOf(g.items),
	}
}

// egressSingleResource is the one resource id all items share, else "".
func egressSingleResource(items []*ledger.LineItem) string {
	id := ""
	for i, li := range items {
		if i == 0 {
			id = li.ResourceID
		} else if li.ResourceID != id {
			return ""
		}
	}
	return strings.TrimSpace(id)
}

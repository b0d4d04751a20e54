package rules

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

func init() { register(unclassifiedCharge{}) }

// unclassifiedCharge surfaces every charge of kind other (DESIGN.md
// "unclassified_charge"), so that nothing hides: taxes and credits have
// kinds of their own and are not "other".
//
// Counted: items of kind other with a positive billed cost whose charge
// category is not Tax or Credit (a positive Adjustment counts: it is money
// taken). Negative or zero items take no money and are left out. Money at
// risk = their billed cost. One finding per (provider, label, currency) and
// month, where the label is the item's service name, else its description;
// the finding lists the distinct descriptions of its items.
type unclassifiedCharge struct{}

func (unclassifiedCharge) ID() string { return "unclassified_charge" }

func (unclassifiedCharge) Info() Info {
	return Info{
		ID:            "unclassified_charge",
		TitleZH:       "无法归类的费用",
		TitleEN:       "Unclassified charges",
		DescriptionZH: "类型为“其他”（不是税费或抵扣）的计费记录，按服务名（没有时按描述）汇总并列出各条描述，确保没有费用被遗漏。风险金额 = 这些记录的应付金额。",
		DescriptionEN: "Charges of kind other (not tax or credit), summed per service name (or description when there is none) with their distinct descriptions listed, so that nothing hides. Money at risk = their billed cost.",
		Columns:       []string{"service_name", "description"},
		Params: append([]Param{
			minAmountParam,
		}, severityParams("1", "10", "50")...),
	}
}

// unclassifiedKey groups items; from says where the label comes from:
// "service" (service name) or "description".
type unclassifiedKey struct{ provider, from, label, currency string }

type unclassifiedGroup struct {
	charges
	key       unclassifiedKey
	descs     map[string]bool
	resources map[string]bool
}

func (r unclassifiedCharge) Run(ctx context.Context, in *Input) ([]ledger.Finding, error) {
	minAmount, th, err := in.amountLimits()
	if err != nil {
		return nil, err
	}
	groups := map[unclassifiedKey]*unclassifiedGroup{}
	for _, li := range in.Items {
		if li.Kind != ledger.KindOther || !li.BilledCost.IsPositive() ||
			li.ChargeCategory == ledger.CategoryTax || li.ChargeCategory == ledger.CategoryCredit {
			continue
		}
		from, label := "service", unclassifiedClean(li.ServiceName)
		if label == "" {
			from, label = "description", unclassifiedClean(li.Description)
		}
		k := unclassifiedKey{li.Provider, from, label, li.Currency}
		g := groups[k]
		if g == nil {
			g = &unclassifiedGroup{key: k, descs: map[string]bool{}, resources: map[string]bool{}}
			groups[k] = g
		}
		g.addItem(li)
		if d := unclassifiedClean(li.Description); d != "" {
			g.descs[d] = true
		}
		g.resources[li.ResourceID] = true
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

// unclassifiedClean makes bill text fit for one line of a reason: control
// characters and runs of white space become one space, and the text is cut
// to 60 characters with "…".
func unclassifiedClean(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if rs := []rune(s); len(rs) > 60 {
		s = string(rs[:59]) + "…"
	}
	return s
}

// unclassifiedMaxDescs is how many distinct descriptions a reason lists.
const unclassifiedMaxDescs = 8

func (r unclassifiedCharge) finding(in *Input, g *unclassifiedGroup, th thresholds) ledger.Finding {
	sort.Slice(g.items, func(i, j int) bool { return g.items[i].ID < g.items[j].ID })
	k := g.key
	cur := k.currency
	amount := FormatMoney(g.amount, cur)
	n := len(g.items)
	descs := make([]string, 0, len(g.descs))
	for d := range g.descs {
		descs = append(descs, d)
	}
	sort.Strings(descs)
	moreZH, moreEN := "", ""
	if len(descs) > unclassifiedMaxDescs {
		moreZH = fmt.Sprintf("等 %d 种", len(descs))
		moreEN = fmt.Sprintf(" and %d more", len(descs)-unclassifiedMaxDescs)
		descs = descs[:unclassifiedMaxDescs]
	}
	quotedZH := make([]string, len(descs))
	quotedEN := make([]string, len(descs))
	for i, d := range descs {
		quotedZH[i] = "“" + d + "”"
		quotedEN[i] = "\"" + d + "\""
	}
	var whatZH, whatEN string
	switch {
	case k.label == "":
		whatZH, whatEN = "没有服务名和描述的", "with neither service name nor description"
	case k.from == "service":
		whatZH, whatEN = fmt.Sprintf("服务“%s”下", k.label), fmt.Sprintf("under service %q", k.label)
	default:
		whatZH, whatEN = fmt.Sprintf("描述为“%s”的", k.label), fmt.Sprintf("described as %q", k.label)
	}
	reasonZH := fmt.Sprintf("%s %d 条计费记录共 %s，类型为“其他”，没有规则能识别", whatZH, n, amount)
	var reasonEN string
	if n == 1 {
		reasonEN = fmt.Sprintf("1 line item %s, charged %s, is of kind other, which no rule understands", whatEN, amount)
	} else {
		reasonEN = fmt.Sprintf("%s %s, charged %s, are of kind other, which no rule understands", plural(n, "line item"), whatEN, amount)
	}
	if k.from == "service" && len(descs) > 0 {
		noun := "descriptions"
		if len(descs) == 1 && moreEN == "" {
			noun = "description"
		}
		reasonZH += fmt.Sprintf("，描述：%s%s", strings.Join(quotedZH, "、"), moreZH)
		reasonEN += fmt.Sprintf("; %s: %s%s", noun, strings.Join(quotedEN, ", "), moreEN)
	}
	if g.start.Equal(g.end) {
		reasonZH += fmt.Sprintf("（%s）。", formatTime(g.start, in.TZ))
		reasonEN += fmt.Sprintf(" (%s).", formatTime(g.start, in.TZ))
	} else {
		reasonZH += fmt.Sprintf("（%s 至 %s）。", formatTime(g.start, in.TZ), formatTime(g.end, in.TZ))
		reasonEN += fmt.Sprintf(" (%s to %s).", formatTime(g.start, in.TZ), formatTime(g.end, in.TZ))
	}
	resource := ""
	if len(g.resources) == 1 {
		for id := range g.resources {
			resource = id
		}
	}
	terms := make([]decimal.Decimal, 0, n)
	for _, li := range g.items {
		terms = append(terms, li.BilledCost)
	}
	return ledger.Finding{
		Severity:     th.severity(g.amount),
		Provider:     k.provider,
		ResourceID:   resource,
		PeriodStart:  g.start,
		PeriodEnd:    g.end,
		AmountAtRisk: valid(g.amount),
		Currency:     cur,
		Basis:        "billed cost of line items of kind other: " + sumText(terms, g.amount, cur),
		ReasonZH:     reasonZH,
		ReasonEN:     reasonEN,
		AdviceZH:     "弄清这是什么费用：对照平台的计费说明，仍不明白就带上这些记录问客服，若不是你订购的服务就申请退款。",
		AdviceEN:     "Find out what this charge is: check the platform's pricing pages, and if it is still unclear ask support with these rows and request a refund for anything you did not order.",
		Evidence:     evidenceOf(g.items),
	}
}

package rules

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

func init() { register(seatFee{}) }

// seatFee flags seat fees (DESIGN.md "seat_fee"): what a platform charges to
// keep an instance's GPU reserved while it is shut down (席位费, 关机保留,
// reservation). Every line item of kind seat with a positive billed cost
// counts (a credit or a free seat does not); money at risk = their billed
// cost. One finding per (provider, resource, currency) and month, listing
// the days (in --tz) the charges cover.
type seatFee struct{}

func (seatFee) ID() string { return "seat_fee" }

func (seatFee) Info() Info {
	return Info{
		ID:            "seat_fee",
		TitleZH:       "关机保留（席位）费",
		TitleEN:       "Seat fees",
		DescriptionZH: "实例关机期间为保留 GPU 席位而收取的费用（席位费、关机保留、预留）。风险金额 = 这些记录的应付金额。",
		DescriptionEN: "Charges for keeping an instance's GPU reserved while it is shut down (seat, reservation, 关机保留). Money at risk = their billed cost.",
		Params: append([]Param{
			minAmountParam,
		}, severityParams("1", "10", "50")...),
	}
}

type seatFeeKey struct{ provider, resource, currency string }

type seatFeeGroup struct {
	charges
	key     seatFeeKey
	days    map[string]bool
	parents map[string]bool
}

func (r seatFee) Run(ctx context.Context, in *Input) ([]ledger.Finding, error) {
	minAmount, th, err := in.amountLimits()
	if err != nil {
		return nil, err
	}
	groups := map[seatFeeKey]*seatFeeGroup{}
	for _, li := range in.Items {
		if li.Kind != ledger.KindSeat || !isUsage(li) {
			continue
		}
		k := seatFeeKey{li.Provider, li.ResourceID, li.Currency}
		g := groups[k]
		if g == nil {
			g = &seatFeeGroup{key: k, days: map[string]bool{}, parents: map[string]bool{}}
			groups[k] = g
		}
		g.addItem(li)
		if li.ParentResourceID != "" && li.ParentResourceID != li.ResourceID {
			g.parents[li.ParentResourceID] = true
		}
		for _, d := range seatFeeDays(li.ChargePeriodStart, li.ChargePeriodEnd, in.TZ) {
			g.days[d] = true
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

// seatFeeDays lists the days (YYYY-MM-DD in loc) that [s, e) touches; a
// charge at one instant touches its day. It could be shared: it is the day
// list of any charge period.
func seatFeeDays(s, e time.Time, loc *time.Location) []string {
	if !e.After(s) {
		return []string{formatDay(s, loc)}
	}
	var out []string
	for d := dayStart(s, loc); d.Before(e); d = nextDay(d) {
		out = append(out, formatDay(d, loc))
		if len(out) > 400 { // a charge period of more than a year: enough to show
			break
		}
	}
	return out
}

func (r seatFee) finding(in *Input, g *seatFeeGroup, th thresholds) ledger.Finding {
	sort.Slice(g.items, func(i, j int) bool { return g.items[i].ID < g.items[j].ID })
	k := g.key
	cur := k.currency
	amount := FormatMoney(g.amount, cur)
	n := len(g.items)
	days := make([]string, 0, len(g.days))
	for d := range g.days {
		days = append(days, d)
	}
	sort.Strings(days)
	ranges := dayRanges(days)
	parents := make([]string, 0, len(g.parents))
	for p := range g.parents {
		parents = append(parents, p)
	}
	sort.Strings(parents)
	nameZH, nameEN := "实例 "+k.resource, "Instance "+k.resource
	switch {
	case k.resource == "":
		nameZH, nameEN = "（未注明资源）", "A resource the bill does not name"
	case len(parents) > 0:
		nameZH, nameEN = "资源 "+k.resource, "Resource "+k.resource
	}
	ofZH, ofEN := "", ""
	if len(parents) > 0 {
		ofZH = fmt.Sprintf("（属于实例 %s）", strings.Join(parents, "、"))
		ofEN = fmt.Sprintf(" (of instance %s)", strings.Join(parents, ", "))
	}
	subjectZH := nameZH + ofZH
	if !strings.HasSuffix(subjectZH, "）") {
		subjectZH += " "
	}
	reasonZH := fmt.Sprintf("%s本月被收取关机保留（席位）费 %s（%d 条记录，涉及 %s，共 %d 天）。",
		subjectZH, amount, n, ranges, len(days))
	reasonEN := fmt.Sprintf("%s%s was charged %s in seat fees for keeping its GPU while shut down (%s, on %s, %s).",
		nameEN, ofEN, amount, plural(n, "line item"), ranges, plural(len(days), "day"))
	terms := make([]decimal.Decimal, 0, n)
	for _, li := range g.items {
		terms = append(terms, li.BilledCost)
	}
	return ledger.Finding{
		Severity:     th.severity(g.amount),
		Provider:     k.provider,
		ResourceID:   k.resource,
		PeriodStart:  g.start,
		PeriodEnd:    g.end,
		AmountAtRisk: valid(g.amount),
		Currency:     cur,
		Basis:        "billed cost of seat line items: " + sumText(terms, g.amount, cur),
		ReasonZH:     reasonZH,
		ReasonEN:     reasonEN,
		AdviceZH:     "若短期内不会再开机，把数据存到网盘或下载后释放实例、关闭关机保留，需要时再新开实例；若你没有开通关机保留，带上这些记录联系客服申请退款。",
		AdviceEN:     "If you will not start it again soon, save the data to network storage or download it, release the instance and turn seat keeping off, starting a new one when needed; if you never turned seat keeping on, ask support for a refund with these rows.",
		Evidence:     evidenceOf(g.items),
	}
}

package rules

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

func init() { register(duplicateCharge{}) }

// duplicateCharge flags the same charge billed more than once (DESIGN.md
// "duplicate_charge"): two or more line items with the same provider,
// resource, kind, charge period and billed cost, whether they carry
// different vendor line ids or are identical rows of one file (the importer
// keeps those as distinct rows, #1/#2 in their row key, and adds nothing on
// a re-import, so what is in the ledger twice was charged twice). Money at
// risk = all but one of them.
//
// Two items are copies only if nothing in the bill tells them apart: besides
// the fields above, their account, currency, charge category, pricing model,
// component (sku, resource type, service name) and quantities (pricing and
// consumed, with their units) must be equal too, so that a Tencent-style
// bill with one row per component of an instance, two disks of one size, or
// two runs of one day that cost the same (a 阿里云 bill with a 日期 only
// gives each run the whole day as its period), is not taken for a
// duplicate. Only ordinary charges count (not credits, tax or adjustments,
// not zero) and only items that name a resource: account-level rows without
// a resource id cannot be called "the same resource".
//
// A set of copies whose items are billed in different months (compute items
// of the neighbouring months are in Input.Context) is reported once, by the
// latest billing period among them: that is the bill that charged again.
// One finding per (provider, account, resource, kind, currency) and month,
// listing every duplicated period.
type duplicateCharge struct{}

func (duplicateCharge) ID() string { return "duplicate_charge" }

func (duplicateCharge) Info() Info {
	return Info{
		ID:            "duplicate_charge",
		TitleZH:       "重复计费",
		TitleEN:       "Duplicate charge",
		DescriptionZH: "同一平台、同一资源、同一费用类型、同一计费时段、同一金额、同一用量的两条或多条记录（不论是不同的账单行号，还是同一文件中的相同行；重复导入不会产生重复记录）。风险金额 = 除一条以外的全部金额。",
		DescriptionEN: "Two or more line items with the same provider, resource, kind, charge period, amount and quantity, whether under different vendor line ids or identical rows of one file (a re-import adds nothing, so what is in the ledger twice was charged twice). Money at risk = all of them but one.",
		Columns:       []string{"service_name", "resource_type", "sku"},
		Params: append([]Param{
			{Name: "min_amount", Type: ParamAmount, Default: "0.01",
				HelpZH: "多计金额低于此值不报告", HelpEN: "findings below this amount at risk are not reported"},
		}, severityParams("1", "10", "50")...),
	}
}

// duplicateGroupKey is one finding: a resource's charges of one kind.
type duplicateGroupKey struct {
	provider, account, resource, kind, currency string
}

// duplicateSet is one charge and its copies.
type duplicateSet struct {
	items []*ledger.LineItem // ordered by billing period, file, row, id
}

func (r duplicateCharge) Run(ctx context.Context, in *Input) ([]ledger.Finding, error) {
	minAmount, th, err := in.amountLimits()
	if err != nil {
		return nil, err
	}
	groups := map[duplicateGroupKey][]*duplicateSet{}
	for _, res := range duplicateCandidates(in) {
		for i := 0; i < len(res); {
			j := i + 1
			for j < len(res) && duplicateKeyCompare(res[i], res[j]) == 0 {
				j++
			}
			// res[i:j] are copies, the last billed latest: the set is
			// reported by that billing period.
			if j-i > 1 && res[j-1].BillingPeriod == in.Month {
				li := res[i]
				g := duplicateGroupKey{li.Provider, li.BillingAccountID, li.ResourceID, li.Kind, li.Currency}
				groups[g] = append(groups[g], &duplicateSet{items: res[i:j]})
			}
			i = j
		}
	}
	var out []ledger.Finding
	for g, ss := range groups {
		sort.Slice(ss, func(i, j int) bool {
			a, b := ss[i].items[0], ss[j].items[0]
			if !a.ChargePeriodStart.Equal(b.ChargePeriodStart) {
				return a.ChargePeriodStart.Before(b.ChargePeriodStart)
			}
			if !a.ChargePeriodEnd.Equal(b.ChargePeriodEnd) {
				return a.ChargePeriodEnd.Before(b.ChargePeriodEnd)
			}
			if c := a.BilledCost.Cmp(b.BilledCost); c != 0 {
				return c < 0
			}
			return a.ID < b.ID
		})
		total := decimal.Zero
		for _, s := range ss {
			total = total.Add(s.items[0].BilledCost.Mul(decimal.NewFromInt(int64(len(s.items) - 1))))
		}
		if total.Cmp(minAmount) < 0 {
			continue
		}
		out = append(out, r.finding(in, g, ss, total, th))
	}
	return out, nil
}

// duplicateCandidates groups the ordinary charges (not credits, tax or
// adjustments, not zero) that name a resource, of the month and its context,
// by provider and resource; each group is sorted by duplicateCompare, so the
// copies of one charge are adjacent and the one billed earliest comes first.
// Month items and context items are disjoint (different billing periods).
// Grouping by resource first keeps the hashing cheap on a million items.
// overlapping_charge uses it too: built once (caches), read by both.
func duplicateCandidates(in *Input) [][]*ledger.LineItem {
	c := in.cache()
	c.dup.once.Do(func() { c.dup.groups = buildDuplicateCandidates(in) })
	return c.dup.groups
}

func buildDuplicateCandidates(in *Input) [][]*ledger.LineItem {
	idx := map[instKey]int{}
	var groups [][]*ledger.LineItem
	cur := -1
	var curKey instKey
	for _, li := range in.itemsAndContext() {
		if !isUsage(li) || li.ResourceID == "" {
			continue
		}
		// consecutive rows are often of one resource: skip the map then
		if cur < 0 || li.ResourceID != curKey.resource || li.Provider != curKey.provider {
			curKey = instKey{li.Provider, li.ResourceID}
			i, ok := idx[curKey]
			if !ok {
				i = len(groups)
				idx[curKey] = i
				groups = append(groups, nil)
			}
			cur = i
		}
		groups[cur] = append(groups[cur], li)
	}
	for _, g := range groups {
		if len(g) > 1 {
			slices.SortFunc(g, duplicateCompare)
		}
	}
	return groups
}

// duplicateKeyCompare orders items of one provider and resource by what two
// copies of one charge have in common; 0 means copies. Amounts compare by
// value (1.50 = 1.5).
func duplicateKeyCompare(a, b *ledger.LineItem) int {
	if c := a.ChargePeriodStart.Compare(b.ChargePeriodStart); c != 0 {
		return c
	}
	if c := a.ChargePeriodEnd.Compare(b.ChargePeriodEnd); c != 0 {
		return c
	}
	for _, p := range [...][2]string{{a.Kind, b.Kind}, {a.Currency, b.Currency}} {
		if c := strings.Compare(p[0], p[1]); c != 0 {
			return c
		}
	}
	if c := a.BilledCost.Cmp(b.BilledCost); c != 0 {
		return c
	}
	for _, p := range [...][2]string{{a.BillingAccountID, b.BillingAccountID}, {a.ChargeCategory, b.ChargeCategory},
		{a.PricingModel, b.PricingModel}, {a.SKU, b.SKU}, {a.ResourceType, b.ResourceType}, {a.ServiceName, b.ServiceName},
		{a.PricingUnit, b.PricingUnit}, {a.ConsumedUnit, b.ConsumedUnit}} {
		if c := strings.Compare(p[0], p[1]); c != 0 {
			return c
		}
	}
	if c := compareQuantity(a.PricingQuantity, b.PricingQuantity); c != 0 {
		return c
	}
	return compareQuantity(a.ConsumedQuantity, b.ConsumedQuantity)
}

// compareQuantity orders quantities: unknown first, then by value.
func compareQuantity(a, b decimal.NullDecimal) int {
	switch {
	case a.Valid != b.Valid && !a.Valid:
		return -1
	case a.Valid != b.Valid:
		return 1
	case !a.Valid:
		return 0
	}
	return a.Decimal.Cmp(b.Decimal)
}

// duplicateCompare is duplicateKeyCompare, then billing period, file, row
// and id: among copies, the one billed first comes first.
func duplicateCompare(a, b *ledger.LineItem) int {
	if c := duplicateKeyCompare(a, b); c != 0 {
		return c
	}
	if c := strings.Compare(a.BillingPeriod, b.BillingPeriod); c != 0 {
		return c
	}
	if c := strings.Compare(a.File, b.File); c != 0 {
		return c
	}
	if c := cmp.Compare(a.SourceRow, b.SourceRow); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

func (duplicateCharge) finding(in *Input, g duplicateGroupKey, ss []*duplicateSet, total decimal.Decimal, th thresholds) ledger.Finding {
	cur := g.currency
	var items []*ledger.LineItem
	var start, end time.Time
	extra := 0
	var periods, terms []string
	for i, s := range ss {
		first := s.items[0]
		items = append(items, s.items...)
		extra += len(s.items) - 1
		if start.IsZero() || first.ChargePeriodStart.Before(start) {
			start = first.ChargePeriodStart
		}
		if first.ChargePeriodEnd.After(end) {
			end = first.ChargePeriodEnd
		}
		if i < 3 {
			periods = append(periods, fmt.Sprintf("%s ×%d", duplicatePeriodText(first, in.TZ), len(s.items)))
			terms = append(terms, fmt.Sprintf("%s × %d", formatExact(first.BilledCost, cur), len(s.items)-1))
		}
	}
	if len(ss) > 3 {
		periods = append(periods, "…")
		terms = append(terms, fmt.Sprintf("… (%d periods)", len(ss)))
	}
	amount := FormatMoney(total, cur)
	periodText := strings.Join(periods, ", ")
	kindZH, kindEN := duplicateKindName(g.kind, "zh"), duplicateKindName(g.kind, "en")
	files := map[string]bool{}
	for _, li := range items {
		files[li.File] = true
	}
	whereZH, whereEN := "均在同一文件中", "all in one file"
	if len(files) > 1 {
		whereZH, whereEN = fmt.Sprintf("分布在 %d 个文件中", len(files)), fmt.Sprintf("across %d files", len(files))
	}
	reasonZH := fmt.Sprintf("资源 %s 的%s费用在同一时段以同一金额被计费多次（%s），%d 个时段共多计 %d 条（%s），多付 %s。",
		g.resource, kindZH, periodText, len(ss), extra, whereZH, amount)
	reasonEN := fmt.Sprintf("Resource %s was charged for the same %s period at the same amount more than once (%s): %s in %s (%s), %s paid in excess.",
		g.resource, kindEN, periodText, plural(extra, "extra charge"), plural(len(ss), "period"), whereEN, amount)
	return ledger.Finding{
		Severity:     th.severity(total),
		Provider:     g.provider,
		ResourceID:   g.resource,
		PeriodStart:  start,
		PeriodEnd:    end,
		AmountAtRisk: valid(total),
		Currency:     cur,
		Basis:        "billed cost of every copy but one: " + strings.Join(terms, " + ") + " = " + formatExact(total, cur),
		ReasonZH:     reasonZH,
		ReasonEN:     reasonEN,
		AdviceZH:     "先在平台控制台核对这些记录确实各扣了一次费；若是重复扣费，凭这些记录联系客服申请退还多扣的金额。",
		AdviceEN:     "Check in the platform's console that each of these rows was really deducted; if it was charged twice, ask support to refund the extra charges with these rows.",
		Evidence:     evidenceOf(items),
	}
}

// duplicatePeriodText renders a charge period in loc: "2026-10-03 10:00–11:00",
// "2026-10-03 00:00–2026-10-04 00:00", or one instant.
func duplicatePeriodText(li *ledger.LineItem, loc *time.Location) string {
	s, e := li.ChargePeriodStart, li.ChargePeriodEnd
	if !e.After(s) {
		return formatTime(s, loc)
	}
	if formatDay(s, loc) == formatDay(e, loc) {
		return formatTime(s, loc) + "–" + e.In(loc).Format("15:04")
	}
	return formatTime(s, loc) + "–" + formatTime(e, loc)
}

// duplicateKindName names a charge kind for a reason ("计算", "compute").
// It could be shared by every rule that names kinds.
func duplicateKindName(kind, lang string) string {
	zh := map[string]string{
		ledger.KindCompute: "计算", ledger.KindStorage: "存储", ledger.KindImage: "镜像", ledger.KindSnapshot: "快照",
		ledger.KindNetwork: "网络", ledger.KindSeat: "占用", ledger.KindService: "增值服务", ledger.KindTax: "税",
		ledger.KindCredit: "代金券", ledger.KindAdjustment: "调账", ledger.KindOther: "其他",
	}
	if lang == "zh" {
		if n, ok := zh[kind]; ok {
			return n
		}
	}
	return kind
}

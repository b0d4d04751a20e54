package reports

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// Spend dimensions (values of SpendOptions.By, the CLI's --by).
const (
	ByProvider     = "provider"
	ByKind         = "kind"
	ByResource     = "resource" // resource_id, shown with its resource_name
	ByGPUModel     = "gpu_model"
	ByProject      = "project" // sub_account
	ByPricingModel = "pricing_model"
)

// SpendDimensions lists the accepted dimensions in display order.
var SpendDimensions = []string{ByProvider, ByKind, ByResource, ByGPUModel, ByProject, ByPricingModel}

// DefaultSpendBy is the breakdown used when SpendOptions.By is empty.
var DefaultSpendBy = []string{ByProvider, ByKind}

// SpendOptions selects and groups the line items of a spend report.
type SpendOptions struct {
	Month string         // billing period YYYY-MM; "" = every month in the ledger
	By    []string       // dimensions from SpendDimensions, in output order; empty = DefaultSpendBy
	TZ    *time.Location // cuts the days of SpendReport.Daily; nil = Asia/Shanghai
}

// Sum is the exact total of one money column over a group of line items.
// Rows that do not state the amount (NULL, unknown) are skipped: Amount is
// the sum of the rows that do, and is unknown (Valid false) only when no row
// does. Missing counts the skipped rows, so a partial sum can be flagged.
type Sum struct {
	Amount  decimal.NullDecimal
	Missing int
}

// Partial reports a sum that covers only some of its rows.
func (s Sum) Partial() bool { return s.Amount.Valid && s.Missing > 0 }

// SpendRow is one group of line items: its dimension values (only those
// named in the report's By are meaningful), currency and money.
type SpendRow struct {
	Provider     string
	Kind         string
	ResourceID   string
	ResourceName string // the greatest name seen for ResourceID (names may change within a month)
	GPUModel     string
	Project      string
	PricingModel string
	Currency     string
	Items        int // line items in the group

	BilledCost  decimal.Decimal // never unknown (billed_cost is required)
	VoucherPaid Sum
	CashPaid    Sum
	ListCost    Sum
}

// dim returns the value of one dimension.
func (r *SpendRow) dim(name string) string {
	switch name {
	case ByProvider:
		return r.Provider
	case ByKind:
		return r.Kind
	case ByResource:
		return r.ResourceID
	case ByGPUModel:
		return r.GPUModel
	case ByProject:
		return r.Project
	case ByPricingModel:
		return r.PricingModel
	}
	return ""
}

// SpendTotal is the money of one currency over the whole report.
//
// HiddenCost is the billed cost of every line item that is neither compute
// nor credit; HiddenShare = HiddenCost ÷ the billed cost of every line item
// that is not a credit, rounded half away from zero to 4 decimals. Credits
// (vouchers, compensation: negative) are left out of both because they are a
// way of paying, not a charge: counting them would shrink the denominator and
// could push the share above 1 or below 0. The share is unknown when that
// denominator is not positive.
type SpendTotal struct {
	Currency    string
	Items       int
	BilledCost  decimal.Decimal
	VoucherPaid Sum
	CashPaid    Sum
	ListCost    Sum
	HiddenCost  decimal.Decimal
	HiddenShare decimal.NullDecimal
	// CreditVouchers are the vouchers in VoucherPaid that credit lines
	// record (a voucher billed as a negative line of its own, paying
	// charges billed in full): such a line takes them off BilledCost and
	// CashPaid too, so the columns add up as billed = voucher + cash −
	// CreditVouchers (docs/json.md). Not in the JSON.
	CreditVouchers decimal.Decimal
}

// SpendReport is the month's spend, grouped by By and currency.
type SpendReport struct {
	Month  string
	By     []string
	Rows   []SpendRow   // currency, then billed cost descending, then the dimension values
	Totals []SpendTotal // one per currency, by currency code

	// Previous is the month before Month with its totals; nil when Month is
	// "" (all months) or the ledger holds no line item of that month.
	Previous *PreviousSpend
	// Changes compares the billed cost of each currency with Previous (nil
	// when Previous is).
	Changes []SpendChange
	// TopResources are, per currency, the (at most TopResourceCount)
	// resources with the highest billed cost.
	TopResources []TopResource
	// Daily is the billed cost per day (in TZ) and currency.
	Daily []DailySpend
	// ProviderKinds is the billed cost per provider, kind and currency,
	// whatever By is (the chart of spend by provider and kind).
	ProviderKinds []SpendRow
	TZ            *time.Location
}

var monthRE = regexp.MustCompile(`^\d{4}-(0[1-9]|1[0-2])$`)

// checkMonth accepts "" (all months) or YYYY-MM.
func checkMonth(month string) error {
	if month != "" && !monthRE.MatchString(month) {
		return fmt.Errorf("reports: month %q is not YYYY-MM", month)
	}
	return nil
}

// normalizeBy validates the dimensions, drops repeats and applies the default.
func normalizeBy(by []string) ([]string, error) {
	if len(by) == 0 {
		return append([]string(nil), DefaultSpendBy...), nil
	}
	var out []string
	seen := map[string]bool{}
	for _, b := range by {
		b = strings.TrimSpace(b)
		if b == "resource_id" { // the JSON name of the dimension
			b = ByResource
		} else if b == "sub_account" {
			b = ByProject
		}
		if !slices.Contains(SpendDimensions, b) {
			return nil, fmt.Errorf("reports: unknown spend dimension %q (want %s)", b, strings.Join(SpendDimensions, ", "))
		}
		if !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	return out, nil
}

// Spend sums the line items of opts.Month exactly (dsum over TEXT in SQL),
// grouped by opts.By and currency, with per-currency totals and the
// hidden-charge share.
func Spend(ctx context.Context, db *ledger.DB, opts SpendOptions) (*SpendReport, error) {
	if err := checkMonth(opts.Month); err != nil {
		return nil, err
	}
	by, err := normalizeBy(opts.By)
	if err != nil {
		return nil, err
	}
	rep := &SpendReport{Month: opts.Month, By: by, TZ: opts.TZ}
	if rep.TZ == nil {
		rep.TZ = ledger.DefaultTZ()
	}
	sc, err := scanSpend(ctx, db, opts.Month, by, rep.TZ)
	if err != nil {
		return nil, err
	}
	rep.Rows, rep.Totals = nilIfEmpty(sc.rows()), nilIfEmpty(sc.totalsList())
	rep.ProviderKinds, rep.TopResources, rep.Daily = nilIfEmpty(sc.providerKinds()), nilIfEmpty(sc.topResources()), nilIfEmpty(sc.daily())
	if opts.Month != "" {
		prev := previousMonth(opts.Month)
		ps, err := scanSpend(ctx, db, prev, nil, rep.TZ)
		if err != nil {
			return nil, err
		}
		if totals := ps.totalsList(); len(totals) > 0 {
			rep.Previous = &PreviousSpend{Month: prev, Totals: totals}
			rep.Changes = spendChanges(rep.Totals, totals)
		}
	}
	return rep, nil
}

// nilIfEmpty is s, or nil when it is empty (as the report's lists were when
// SQL filled them: JSON and the goldens tell the two apart).
func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// Write encodes the report (see WriteOptions). CSV and TSV hold the rows
// only (no totals line, so that re-summing a column does not count twice);
// JSON holds rows and totals; table and markdown add the totals and notes.
func (r *SpendReport) Write(w io.Writer, opts WriteOptions) error {
	return writeReport(w, opts, func(_ WriteOptions) any { return r.json() }, r.document)
}

// document lays the report out: the groups, then the per-currency totals.
func (r *SpendReport) document(opts WriteOptions) *document {
	var notes []string
	if r.anyPartial() {
		notes = append(notes, tr(opts.Lang, "note.partial"))
	}
	if len(r.Totals) > 0 {
		notes = append(notes, tr(opts.Lang, "note.hidden"))
	}
	for _, t := range r.Totals {
		if !t.CreditVouchers.IsPositive() {
			continue
		}
		v := FormatMoney(t.CreditVouchers, t.Currency, false)
		note := fmt.Sprintf(tr(opts.Lang, "note.credit_vouchers"), t.Currency, v)
		if t.footsWithCredits() {
			note += fmt.Sprintf(tr(opts.Lang, "note.credit_vouchers_sum"), v)
		} else {
			note += pick(opts.Lang, "。", ".")
		}
		notes = append(notes, note)
	}
	secs := []section{
		{key: "spend", grid: r.rowsGrid(opts), totals: true},
		{key: "totals", title: tr(opts.Lang, "title.spend_totals"), grid: r.totalsGrid(opts)},
	}
	if r.Month != "" {
		prev := section{key: "previous_month", title: tr(opts.Lang, "spend.prev_title"), grid: &grid{}}
		if r.Previous != nil {
			prev.grid = r.prevGrid(opts)
			notes = append(notes, tr(opts.Lang, "spend.note.prev_ratio"))
		} else {
			prev.empty = fmt.Sprintf(tr(opts.Lang, "spend.prev_none"), previousMonth(r.Month))
		}
		secs = append(secs, prev)
	}
	secs = append(secs, section{key: "top_resources", title: tr(opts.Lang, "spend.top_title"), grid: r.topGrid(opts)})
	if len(r.TopResources) > 0 {
		notes = append(notes, fmt.Sprintf(tr(opts.Lang, "spend.note.top"), TopResourceCount))
	}
	if len(r.Daily) > 0 && (opts.Format != FormatTable && opts.Format != FormatMarkdown) {
		// the daily figures are drawn (html), not printed
		notes = append(notes, fmt.Sprintf(tr(opts.Lang, "spend.note.daily"), r.tzName()))
	}
	return &document{
		key:      "spend",
		title:    tr(opts.Lang, "title.spend") + " " + r.monthLabel(opts.Lang),
		sections: secs,
		notes:    notes,
		charts:   r.charts(opts),
	}
}

func (r *SpendReport) tzName() string {
	if r.TZ == nil {
		return ledger.DefaultTZ().String()
	}
	return r.TZ.String()
}

func (r *SpendReport) monthLabel(lang string) string {
	if r.Month == "" {
		return tr(lang, "all_months")
	}
	return r.Month
}

func (r *SpendReport) anyPartial() bool {
	for _, row := range r.Rows {
		if row.VoucherPaid.Partial() || row.CashPaid.Partial() || row.ListCost.Partial() {
			return true
		}
	}
	for _, t := range r.Totals {
		if t.VoucherPaid.Partial() || t.CashPaid.Partial() || t.ListCost.Partial() {
			return true
		}
	}
	return false
}

// dimText renders a dimension value: slugs as they are in exact formats,
// names in lang for humans.
func dimText(dim, v, lang string, exact bool) string {
	if exact {
		return v
	}
	if v == "" {
		return unknownDisplay
	}
	switch dim {
	case ByProvider:
		return providerName(v, lang)
	case ByKind:
		return trOr(lang, "kind.", v)
	case ByPricingModel:
		return trOr(lang, "pricing.", v)
	}
	return v
}

// sumText renders a Sum; a partial sum is marked "*" in human formats.
func sumText(s Sum, currency string, exact bool) string {
	t := FormatNullMoney(s.Amount, currency, exact)
	if !exact && s.Partial() {
		t += partialMark
	}
	return t
}

func (r *SpendReport) rowsGrid(opts WriteOptions) *grid {
	exact := opts.exact()
	g := &grid{}
	for _, b := range r.By {
		switch b {
		case ByResource:
			g.cols = append(g.cols, textCol("resource_id", tr(opts.Lang, "col.resource_id")),
				textCol("resource_name", tr(opts.Lang, "col.resource_name")))
		default:
			g.cols = append(g.cols, textCol(b, tr(opts.Lang, "col."+b)))
		}
	}
	g.cols = append(g.cols, moneyCols(opts.Lang)...)
	for i := range r.Rows {
		row := &r.Rows[i]
		var cells []string
		for _, b := range r.By {
			cells = append(cells, dimText(b, row.dim(b), opts.Lang, opts.codes()))
			if b == ByResource {
				cells = append(cells, dimText(b, row.ResourceName, opts.Lang, opts.codes()))
			}
		}
		cells = append(cells, row.Currency, FormatMoney(row.BilledCost, row.Currency, exact),
			sumText(row.VoucherPaid, row.Currency, exact), sumText(row.CashPaid, row.Currency, exact),
			sumText(row.ListCost, row.Currency, exact))
		g.add(cells...)
	}
	return g
}

func moneyCols(lang string) []column {
	return []column{
		textCol("currency", tr(lang, "col.currency")),
		moneyCol("billed_cost", tr(lang, "col.billed_cost")),
		moneyCol("voucher_paid", tr(lang, "col.voucher_paid")),
		moneyCol("cash_paid", tr(lang, "col.cash_paid")),
		moneyCol("list_cost", tr(lang, "col.list_cost")),
	}
}

func (r *SpendReport) totalsGrid(opts WriteOptions) *grid {
	exact := opts.exact()
	g := &grid{cols: append(moneyCols(opts.Lang),
		moneyCol("hidden_cost", tr(opts.Lang, "col.hidden_cost")),
		shareCol("hidden_share", tr(opts.Lang, "col.hidden_share")))}
	for _, t := range r.Totals {
		g.add(t.Currency, FormatMoney(t.BilledCost, t.Currency, exact),
			sumText(t.VoucherPaid, t.Currency, exact), sumText(t.CashPaid, t.Currency, exact),
			sumText(t.ListCost, t.Currency, exact), FormatMoney(t.HiddenCost, t.Currency, exact),
			FormatShare(t.HiddenShare, exact))
	}
	return g
}

// JSON shapes (DESIGN.md "Command line"): structs, so the field order is
// stable; dimensions not in By are omitted; money is a decimal string or null.
type spendJSON struct {
	Month         string             `json:"month"`
	Rows          []spendRowJSON     `json:"rows"`
	Totals        []spendTotalJSON   `json:"totals"`
	PreviousMonth *previousSpendJSON `json:"previous_month"`
	Change        []spendChangeJSON  `json:"change"`
	TopResources  []topResourceJSON  `json:"top_resources"`
	Daily         []dailySpendJSON   `json:"daily"`
}

type spendRowJSON struct {
	Provider     *string `json:"provider,omitempty"`
	Kind         *string `json:"kind,omitempty"`
	ResourceID   *string `json:"resource_id,omitempty"`
	ResourceName *string `json:"resource_name,omitempty"`
	GPUModel     *string `json:"gpu_model,omitempty"`
	Project      *string `json:"project,omitempty"`
	PricingModel *string `json:"pricing_model,omitempty"`
	Currency     string  `json:"currency"`
	BilledCost   *string `json:"billed_cost"`
	VoucherPaid  *string `json:"voucher_paid"`
	CashPaid     *string `json:"cash_paid"`
	ListCost     *string `json:"list_cost"`
}

type spendTotalJSON struct {
	Currency    string  `json:"currency"`
	BilledCost  *string `json:"billed_cost"`
	VoucherPaid *string `json:"voucher_paid"`
	CashPaid    *string `json:"cash_paid"`
	ListCost    *string `json:"list_cost"`
	HiddenCost  *string `json:"hidden_cost"`
	HiddenShare *string `json:"hidden_share"` // 4-decimal ratio, e.g. "0.2345"; null when undefined
}

func known(d decimal.Decimal) decimal.NullDecimal {
	return decimal.NullDecimal{Decimal: d, Valid: true}
}

func (r *SpendReport) json() spendJSON {
	out := spendJSON{Month: r.Month, Rows: []spendRowJSON{}}
	for i := range r.Rows {
		row := &r.Rows[i]
		j := spendRowJSON{Currency: row.Currency, BilledCost: jsonMoney(known(row.BilledCost)),
			VoucherPaid: jsonMoney(row.VoucherPaid.Amount), CashPaid: jsonMoney(row.CashPaid.Amount),
			ListCost: jsonMoney(row.ListCost.Amount)}
		for _, b := range r.By {
			v := row.dim(b)
			switch b {
			case ByProvider:
				j.Provider = &v
			case ByKind:
				j.Kind = &v
			case ByResource:
				j.ResourceID = &v
				name := row.ResourceName
				j.ResourceName = &name
			case ByGPUModel:
				j.GPUModel = &v
			case ByProject:
				j.Project = &v
			case ByPricingModel:
				j.PricingModel = &v
			}
		}
		out.Rows = append(out.Rows, j)
	}
	out.Totals = totalsJSON(r.Totals)
	if r.Previous != nil {
		out.PreviousMonth = &previousSpendJSON{Month: r.Previous.Month, Totals: totalsJSON(r.Previous.Totals)}
		out.Change = []spendChangeJSON{}
		for _, c := range r.Changes {
			out.Change = append(out.Change, spendChangeJSON{Currency: c.Currency, BilledCost: jsonMoney(known(c.BilledCost)),
				PreviousBilledCost: jsonMoney(known(c.PreviousBilledCost)), Delta: jsonMoney(known(c.Delta)), Ratio: shareJSON(c.Ratio)})
		}
	}
	out.TopResources = []topResourceJSON{}
	for _, t := range r.TopResources {
		out.TopResources = append(out.TopResources, topResourceJSON{Provider: t.Provider, ResourceID: t.ResourceID,
			ResourceName: t.ResourceName, Kinds: t.Kinds, Currency: t.Currency, BilledCost: jsonMoney(known(t.BilledCost))})
	}
	out.Daily = []dailySpendJSON{}
	for _, d := range r.Daily {
		out.Daily = append(out.Daily, dailySpendJSON{Date: d.Date, Currency: d.Currency, BilledCost: jsonMoney(known(d.BilledCost))})
	}
	return out
}

func totalsJSON(totals []SpendTotal) []spendTotalJSON {
	out := []spendTotalJSON{}
	for _, t := range totals {
		out = append(out, spendTotalJSON{Currency: t.Currency, BilledCost: jsonMoney(known(t.BilledCost)),
			VoucherPaid: jsonMoney(t.VoucherPaid.Amount), CashPaid: jsonMoney(t.CashPaid.Amount),
			ListCost: jsonMoney(t.ListCost.Amount), HiddenCost: jsonMoney(known(t.HiddenCost)), HiddenShare: shareJSON(t.HiddenShare)})
	}
	return out
}

// writeJSON writes v with 2-space indent, without HTML escaping (bill text
// with < or & stays readable).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// The spend report's extras: the month before, the top resources, the
// spend per day, and the charts drawn from them.

// TopResourceCount is how many resources SpendReport.TopResources keeps per
// currency.
const TopResourceCount = 10

// PreviousSpend is the month before the report's month, with its totals.
type PreviousSpend struct {
	Month  string
	Totals []SpendTotal
}

// SpendChange compares one currency's billed cost with the month before.
// Delta = BilledCost − PreviousBilledCost (exact); Ratio = Delta ÷
// PreviousBilledCost, 4 decimals, unknown when the previous month's billed
// cost is not positive. A currency billed in only one of the two months
// counts 0 in the other.
type SpendChange struct {
	Currency           string
	BilledCost         decimal.Decimal
	PreviousBilledCost decimal.Decimal
	Delta              decimal.Decimal
	Ratio              decimal.NullDecimal
}

// TopResource is one resource (provider, resource id, currency) among the
// costliest of its currency: every line item of the resource, of any kind.
// Account-level charges (no resource id) are no resource.
type TopResource struct {
	Provider     string
	ResourceID   string
	ResourceName string   // the greatest name seen
	Kinds        []string // kinds of its line items, in ledger.Kinds order
	Currency     string
	Items        int
	BilledCost   decimal.Decimal
}

// DailySpend is the billed cost of one day and currency. A line item counts
// whole on the day (in the report's time zone) its charge period starts, so
// that the days of a currency add up exactly to its total; a monthly
// package therefore shows on its first day.
type DailySpend struct {
	Date       string // YYYY-MM-DD
	Currency   string
	BilledCost decimal.Decimal
}

func init() {
	addMessages(map[string][2]string{
		"spend.prev_title":      {"与上月比较", "vs previous month"},
		"spend.prev_none":       {"账本中没有上月（%s）的账单。", "The ledger holds no bill of the previous month (%s)."},
		"spend.top_title":       {"费用最高的资源", "Top resources"},
		"spend.col.previous":    {"上月应付", "Previous month"},
		"spend.col.delta":       {"变化", "Change"},
		"spend.col.ratio":       {"变化率", "Change %"},
		"spend.col.kinds":       {"费用类型", "Kinds"},
		"spend.col.rank":        {"排名", "Rank"},
		"spend.chart.by_kind":   {"按平台和费用类型的支出（%s）", "Spend by provider and kind (%s)"},
		"spend.chart.daily":     {"每日支出（%s）", "Daily spend (%s)"},
		"spend.chart.top":       {"费用最高的资源（%s）", "Top resources (%s)"},
		"spend.note.daily":      {"每日支出按计费开始时间所在日期（%s）计入，整月套餐计入首日。", "Daily spend counts each line item on the day its charge period starts (%s); a monthly package shows on its first day."},
		"spend.note.top":        {"费用最高的资源：每个币种按应付金额取前 %d 个，含该资源的全部费用类型；无资源ID的账户级费用不计。", "Top resources: per currency, the %d resources with the highest billed cost, all kinds included; account-level charges (no resource id) are not resources."},
		"spend.note.prev_ratio": {"变化率 = （本月 − 上月）÷ 上月应付；上月为 0 时不计算。", "Change % = (this month − previous) ÷ previous billed; not computed when the previous month is 0."},
	})
}

// previousMonth is the month before YYYY-MM month.
func previousMonth(month string) string {
	t, err := time.Parse("2006-01", month)
	if err != nil {
		return ""
	}
	return t.AddDate(0, -1, 0).Format("2006-01")
}

// kindRank orders charge kinds as ledger.Kinds; unknown kinds go last.
func kindRank(kind string) int {
	for i, k := range ledger.Kinds {
		if k == kind {
			return i
		}
	}
	return len(ledger.Kinds)
}

// compareKinds orders kinds as ledger.Kinds lists them, unknown ones after
// by name.
func compareKinds(a, b string) int {
	return cmp.Or(cmp.Compare(kindRank(a), kindRank(b)), strings.Compare(a, b))
}

// spendChanges compares this month's totals with the previous month's, per
// currency present in either.
func spendChanges(cur, prev []SpendTotal) []SpendChange {
	byCur := map[string]*SpendChange{}
	var order []string
	get := func(c string) *SpendChange {
		if ch, ok := byCur[c]; ok {
			return ch
		}
		ch := &SpendChange{Currency: c}
		byCur[c] = ch
		order = append(order, c)
		return ch
	}
	for _, t := range cur {
		get(t.Currency).BilledCost = t.BilledCost
	}
	for _, t := range prev {
		get(t.Currency).PreviousBilledCost = t.BilledCost
	}
	sort.Strings(order)
	out := make([]SpendChange, 0, len(order))
	for _, c := range order {
		ch := byCur[c]
		ch.Delta = ch.BilledCost.Sub(ch.PreviousBilledCost)
		ch.Ratio = Share(ch.Delta, ch.PreviousBilledCost)
		out = append(out, *ch)
	}
	return out
}

// prevGrid is the "vs previous month" section.
func (r *SpendReport) prevGrid(opts WriteOptions) *grid {
	exact := opts.exact()
	g := &grid{cols: []column{
		textCol("currency", tr(opts.Lang, "col.currency")),
		moneyCol("billed_cost", tr(opts.Lang, "col.billed_cost")+" "+r.Month),
		moneyCol("previous_billed_cost", tr(opts.Lang, "spend.col.previous")+" "+r.Previous.Month),
		moneyCol("delta", tr(opts.Lang, "spend.col.delta")),
		shareCol("ratio", tr(opts.Lang, "spend.col.ratio")),
	}}
	for _, c := range r.Changes {
		g.add(c.Currency, FormatMoney(c.BilledCost, c.Currency, exact), FormatMoney(c.PreviousBilledCost, c.Currency, exact),
			FormatMoney(c.Delta, c.Currency, exact), FormatShare(c.Ratio, exact))
	}
	return g
}

// topGrid is the "top resources" section.
func (r *SpendReport) topGrid(opts WriteOptions) *grid {
	exact := opts.exact()
	g := &grid{cols: []column{
		textCol("currency", tr(opts.Lang, "col.currency")),
		countCol("rank", tr(opts.Lang, "spend.col.rank")),
		textCol("provider", tr(opts.Lang, "col.provider")),
		textCol("resource_id", tr(opts.Lang, "col.resource_id")),
		textCol("resource_name", tr(opts.Lang, "col.resource_name")),
		textCol("kinds", tr(opts.Lang, "spend.col.kinds")),
		moneyCol("billed_cost", tr(opts.Lang, "col.billed_cost")),
	}}
	rank, cur := 0, ""
	for _, t := range r.TopResources {
		if t.Currency != cur {
			rank, cur = 0, t.Currency
		}
		rank++
		kinds := make([]string, len(t.Kinds))
		for i, k := range t.Kinds {
			kinds[i] = dimText(ByKind, k, opts.Lang, exact)
		}
		sep := ","
		if !exact && opts.Lang == "zh" {
			sep = "、"
		}
		g.add(t.Currency, fmt.Sprint(rank), dimText(ByProvider, t.Provider, opts.Lang, exact), t.ResourceID,
			dimText(ByResource, t.ResourceName, opts.Lang, exact), strings.Join(kinds, sep),
			FormatMoney(t.BilledCost, t.Currency, exact))
	}
	return g
}

// charts draws, per currency: spend by provider and kind (stacked bars),
// daily spend (a line over every day from the first to the last) and the
// top resources (bars).
func (r *SpendReport) charts(opts WriteOptions) []chart {
	var out []chart
	for _, t := range r.Totals {
		cur := t.Currency
		// by provider and kind
		var providers, kinds []string
		val := map[[2]string]decimal.Decimal{}
		for _, pk := range r.ProviderKinds {
			if pk.Currency != cur {
				continue
			}
			if !containsStr(providers, pk.Provider) {
				providers = append(providers, pk.Provider)
			}
			if !containsStr(kinds, pk.Kind) {
				kinds = append(kinds, pk.Kind)
			}
			val[[2]string{pk.Provider, pk.Kind}] = pk.BilledCost
		}
		sort.SliceStable(kinds, func(i, j int) bool { return kindRank(kinds[i]) < kindRank(kinds[j]) })
		c := chart{key: "spend_by_provider_kind", kind: "bar", currency: cur,
			title: fmt.Sprintf(tr(opts.Lang, "spend.chart.by_kind"), cur)}
		for _, p := range providers {
			c.labels = append(c.labels, providerName(p, opts.Lang))
		}
		for _, k := range kinds {
			s := chartSeries{name: trOr(opts.Lang, "kind.", k)}
			for _, p := range providers {
				s.values = append(s.values, val[[2]string{p, k}]) // zero when absent
			}
			c.series = append(c.series, s)
		}
		out = append(out, c)

		// daily
		d := chart{key: "daily_spend", kind: "line", currency: cur, title: fmt.Sprintf(tr(opts.Lang, "spend.chart.daily"), cur)}
		var first, last time.Time
		byDate := map[string]decimal.Decimal{}
		for _, ds := range r.Daily {
			if ds.Currency != cur {
				continue
			}
			day, err := time.Parse("2006-01-02", ds.Date)
			if err != nil {
				continue
			}
			if first.IsZero() || day.Before(first) {
				first = day
			}
			if day.After(last) {
				last = day
			}
			byDate[ds.Date] = ds.BilledCost
		}
		s := chartSeries{}
		for day := first; !first.IsZero() && !day.After(last); day = day.AddDate(0, 0, 1) {
			d.labels = append(d.labels, day.Format("2006-01-02"))
			s.values = append(s.values, byDate[day.Format("2006-01-02")])
		}
		d.series = []chartSeries{s}
		out = append(out, d)

		// top resources
		tc := chart{key: "top_resources", kind: "bar", currency: cur, title: fmt.Sprintf(tr(opts.Lang, "spend.chart.top"), cur)}
		ts := chartSeries{}
		for _, res := range r.TopResources {
			if res.Currency != cur {
				continue
			}
			label := res.ResourceID
			if res.ResourceName != "" {
				label = res.ResourceName + " (" + res.ResourceID + ")"
			}
			tc.labels = append(tc.labels, label)
			ts.values = append(ts.values, res.BilledCost)
		}
		tc.series = []chartSeries{ts}
		out = append(out, tc)
	}
	return out
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// JSON of the extras.
type previousSpendJSON struct {
	Month  string           `json:"month"`
	Totals []spendTotalJSON `json:"totals"`
}

type spendChangeJSON struct {
	Currency           string  `json:"currency"`
	BilledCost         *string `json:"billed_cost"`
	PreviousBilledCost *string `json:"previous_billed_cost"`
	Delta              *string `json:"delta"`
	Ratio              *string `json:"ratio"` // 4-decimal ratio; null when the previous month is not positive
}

type topResourceJSON struct {
	Provider     string   `json:"provider"`
	ResourceID   string   `json:"resource_id"`
	ResourceName string   `json:"resource_name"`
	Kinds        []string `json:"kinds"`
	Currency     string   `json:"currency"`
	BilledCost   *string  `json:"billed_cost"`
}

type dailySpendJSON struct {
	Date       string  `json:"date"`
	Currency   string  `json:"currency"`
	BilledCost *string `json:"billed_cost"`
}

func shareJSON(s decimal.NullDecimal) *string {
	if !s.Valid {
		return nil
	}
	v := FormatShare(s, true)
	return &v
}

// ChargeKey is a provider and a currency.
type ChargeKey struct{ Provider, Currency string }

// MonthCharges is what the bill lines of month charge per provider and
// currency: the billed cost of every line but credits. Reconcile and the
// refund checklist compare it with what the money flow records.
func MonthCharges(ctx context.Context, db *ledger.DB, month string) (map[ChargeKey]decimal.Decimal, error) {
	rows, err := db.SQL().QueryContext(ctx, `SELECT provider, currency, dsum(billed_cost) FROM line_items
		WHERE billing_period = ? AND kind <> ? GROUP BY provider, currency`, month, ledger.KindCredit)
	if err != nil {
		return nil, fmt.Errorf("reports: bill charges: %w", err)
	}
	defer rows.Close()
	out := map[ChargeKey]decimal.Decimal{}
	for rows.Next() {
		var k ChargeKey
		var s string
		if err := rows.Scan(&k.Provider, &k.Currency, &s); err != nil {
			return nil, fmt.Errorf("reports: bill charges: %w", err)
		}
		d, err := decimal.NewFromString(s)
		if err != nil {
			return nil, fmt.Errorf("reports: stored amount %q: %w", s, err)
		}
		out[k] = d
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reports: bill charges: %w", err)
	}
	return out, nil
}

// footsWithCredits reports whether the printed columns add up as billed =
// voucher + cash − the credit lines' vouchers: every row states both parts
// and nothing else (other payments, unpaid) paid.
func (t SpendTotal) footsWithCredits() bool {
	v, c := t.VoucherPaid, t.CashPaid
	if !v.Amount.Valid || !c.Amount.Valid || v.Missing > 0 || c.Missing > 0 {
		return false
	}
	return t.BilledCost.Equal(v.Amount.Decimal.Add(c.Amount.Decimal).Sub(t.CreditVouchers))
}

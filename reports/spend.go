package reports

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

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

// spendColumn is the SQL expression behind each dimension.
var spendColumn = map[string]string{
	ByProvider:     "li.provider",
	ByKind:         "li.kind",
	ByResource:     "li.resource_id",
	ByGPUModel:     "li.gpu_model",
	ByProject:      "li.sub_account",
	ByPricingModel: "li.pricing_model",
}

// SpendOptions selects and groups the line items of a spend report.
type SpendOptions struct {
	Month string   // billing period YYYY-MM; "" = every month in the ledger
	By    []string // dimensions from SpendDimensions, in output order; empty = DefaultSpendBy
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
}

// SpendReport is the month's spend, grouped by By and currency.
type SpendReport struct {
	Month  string
	By     []string
	Rows   []SpendRow   // currency, then billed cost descending, then the dimension values
	Totals []SpendTotal // one per currency, by currency code
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
		if _, ok := spendColumn[b]; !ok {
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
	rep := &SpendReport{Month: opts.Month, By: by}
	where, args := "", []any(nil)
	if opts.Month != "" {
		where, args = " WHERE li.billing_period = ?", []any{opts.Month}
	}

	// Groups. Dimension names come from the fixed spendColumn map, never
	// from user input, so building the column list is safe.
	var exprs []string
	for _, b := range by {
		exprs = append(exprs, spendColumn[b])
	}
	selectCols := strings.Join(exprs, ", ")
	group := selectCols + ", li.currency"
	q := `SELECT ` + selectCols + `, max(li.resource_name), li.currency, count(*),
		dsum(li.billed_cost), dsum(li.voucher_paid), count(li.voucher_paid), dsum(li.cash_paid), count(li.cash_paid),
		dsum(li.list_cost), count(li.list_cost)
		FROM line_items li` + where + ` GROUP BY ` + group
	rows, err := db.SQL().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reports: spend: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r SpendRow
		dims := make([]string, len(by))
		dest := make([]any, 0, len(by)+10)
		for i := range dims {
			dest = append(dest, &dims[i])
		}
		var name, billed, voucher, cash, list sql.NullString
		var nVoucher, nCash, nList int
		dest = append(dest, &name, &r.Currency, &r.Items, &billed, &voucher, &nVoucher, &cash, &nCash, &list, &nList)
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("reports: spend: %w", err)
		}
		for i, b := range by {
			switch b {
			case ByProvider:
				r.Provider = dims[i]
			case ByKind:
				r.Kind = dims[i]
			case ByResource:
				r.ResourceID = dims[i]
				r.ResourceName = name.String
			case ByGPUModel:
				r.GPUModel = dims[i]
			case ByProject:
				r.Project = dims[i]
			case ByPricingModel:
				r.PricingModel = dims[i]
			}
		}
		if r.BilledCost, err = scanAmount(billed); err != nil {
			return nil, err
		}
		for _, s := range []struct {
			v     sql.NullString
			known int
			dst   *Sum
		}{{voucher, nVoucher, &r.VoucherPaid}, {cash, nCash, &r.CashPaid}, {list, nList, &r.ListCost}} {
			if *s.dst, err = scanSum(s.v, s.known, r.Items); err != nil {
				return nil, err
			}
		}
		rep.Rows = append(rep.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reports: spend: %w", err)
	}
	rows.Close()
	sort.SliceStable(rep.Rows, func(i, j int) bool {
		a, b := &rep.Rows[i], &rep.Rows[j]
		if a.Currency != b.Currency {
			return a.Currency < b.Currency
		}
		if c := a.BilledCost.Cmp(b.BilledCost); c != 0 {
			return c > 0
		}
		for _, d := range by {
			if x, y := a.dim(d), b.dim(d); x != y {
				return x < y
			}
		}
		return a.ResourceName < b.ResourceName
	})

	// Totals per currency, summed by SQL from the line items themselves (not
	// from the groups), so they match the source rows to the last digit.
	tq := `SELECT li.currency, count(*), dsum(li.billed_cost),
		dsum(li.voucher_paid), count(li.voucher_paid), dsum(li.cash_paid), count(li.cash_paid),
		dsum(li.list_cost), count(li.list_cost),
		dsum(CASE WHEN li.kind NOT IN ('compute', 'credit') THEN li.billed_cost END),
		dsum(CASE WHEN li.kind <> 'credit' THEN li.billed_cost END)
		FROM line_items li` + where + ` GROUP BY li.currency ORDER BY li.currency`
	trows, err := db.SQL().QueryContext(ctx, tq, args...)
	if err != nil {
		return nil, fmt.Errorf("reports: spend totals: %w", err)
	}
	defer trows.Close()
	for trows.Next() {
		var t SpendTotal
		var billed, voucher, cash, list, hidden, charged sql.NullString
		var nVoucher, nCash, nList int
		if err := trows.Scan(&t.Currency, &t.Items, &billed, &voucher, &nVoucher, &cash, &nCash, &list, &nList, &hidden, &charged); err != nil {
			return nil, fmt.Errorf("reports: spend totals: %w", err)
		}
		if t.BilledCost, err = scanAmount(billed); err != nil {
			return nil, err
		}
		for _, s := range []struct {
			v     sql.NullString
			known int
			dst   *Sum
		}{{voucher, nVoucher, &t.VoucherPaid}, {cash, nCash, &t.CashPaid}, {list, nList, &t.ListCost}} {
			if *s.dst, err = scanSum(s.v, s.known, t.Items); err != nil {
				return nil, err
			}
		}
		// No hidden (or no non-credit) rows: a known zero, not an unknown.
		if t.HiddenCost, err = scanAmount(hidden); err != nil {
			return nil, err
		}
		base, err := scanAmount(charged)
		if err != nil {
			return nil, err
		}
		t.HiddenShare = Share(t.HiddenCost, base)
		rep.Totals = append(rep.Totals, t)
	}
	if err := trows.Err(); err != nil {
		return nil, fmt.Errorf("reports: spend totals: %w", err)
	}
	return rep, nil
}

// scanAmount parses a dsum result; NULL (no rows) is zero.
func scanAmount(s sql.NullString) (decimal.Decimal, error) {
	if !s.Valid {
		return decimal.Zero, nil
	}
	d, err := decimal.NewFromString(s.String)
	if err != nil {
		return d, fmt.Errorf("reports: stored sum %q: %w", s.String, err)
	}
	return d, nil
}

// scanSum parses a dsum result over a nullable column.
func scanSum(s sql.NullString, known, items int) (Sum, error) {
	sum := Sum{Missing: items - known}
	if !s.Valid {
		return sum, nil
	}
	d, err := decimal.NewFromString(s.String)
	if err != nil {
		return sum, fmt.Errorf("reports: stored sum %q: %w", s.String, err)
	}
	sum.Amount = decimal.NullDecimal{Decimal: d, Valid: true}
	return sum, nil
}

// Write encodes the report (see WriteOptions). CSV and TSV hold the rows
// only (no totals line, so that re-summing a column does not count twice);
// JSON holds rows and totals; table and markdown add the totals and notes.
func (r *SpendReport) Write(w io.Writer, opts WriteOptions) error {
	opts, err := opts.normalize()
	if err != nil {
		return err
	}
	if opts.Format == FormatJSON {
		return writeJSON(w, r.json())
	}
	return writeDocument(w, opts, r.document(opts))
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
	return &document{
		key:   "spend",
		title: tr(opts.Lang, "title.spend") + " " + r.monthLabel(opts.Lang),
		sections: []section{
			{key: "spend", grid: r.rowsGrid(opts), totals: true},
			{key: "totals", title: tr(opts.Lang, "title.spend_totals"), grid: r.totalsGrid(opts)},
		},
		notes: notes,
	}
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
			cells = append(cells, dimText(b, row.dim(b), opts.Lang, exact))
			if b == ByResource {
				cells = append(cells, dimText(b, row.ResourceName, opts.Lang, exact))
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
	Month  string           `json:"month"`
	Rows   []spendRowJSON   `json:"rows"`
	Totals []spendTotalJSON `json:"totals"`
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
	out := spendJSON{Month: r.Month, Rows: []spendRowJSON{}, Totals: []spendTotalJSON{}}
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
	for _, t := range r.Totals {
		var share *string
		if t.HiddenShare.Valid {
			s := FormatShare(t.HiddenShare, true)
			share = &s
		}
		out.Totals = append(out.Totals, spendTotalJSON{Currency: t.Currency, BilledCost: jsonMoney(known(t.BilledCost)),
			VoucherPaid: jsonMoney(t.VoucherPaid.Amount), CashPaid: jsonMoney(t.CashPaid.Amount),
			ListCost: jsonMoney(t.ListCost.Amount), HiddenCost: jsonMoney(known(t.HiddenCost)), HiddenShare: share})
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

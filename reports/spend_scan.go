package reports

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
	"github.com/shopspring/decimal"
)

// The spend report reads its line items once, in one pass (ledger.ScanItems),
// and sums every table of it in Go with exact decimals: the groups, the
// totals, provider × kind, the top resources and the days, rather than a
// GROUP BY query (a scan of the month) for each table.

// spendCols are the columns spendScan reads into its line items.
var spendCols = []string{"provider", "kind", "currency", "resource_id", "resource_name", "gpu_model", "sub_account", "pricing_model", "billed_cost", "voucher_paid", "cash_paid", "list_cost", "charge_period_start"}

// sumAcc sums a nullable amount: dsum and count of the column in SQL.
type sumAcc struct {
	sum   money.Sum
	known int // non-NULL values
}

func (s *sumAcc) add(d decimal.NullDecimal) {
	if d.Valid {
		s.known++
		s.sum.Add(d.Decimal)
	}
}

// merge adds what o summed to s.
func (s *sumAcc) merge(o *sumAcc) {
	s.known += o.known
	s.sum.AddSum(&o.sum)
}

// result is the Sum of a group of items rows (dsum is NULL when no value
// was known).
func (s *sumAcc) result(items int) Sum {
	out := Sum{Missing: items - s.known}
	if s.known > 0 {
		out.Amount = decimal.NullDecimal{Decimal: s.sum.Decimal(), Valid: true}
	}
	return out
}

type groupAcc struct {
	row                 SpendRow
	billed              money.Sum
	voucher, cash, list sumAcc
}

type totalAcc struct {
	items               int
	billed              money.Sum
	voucher, cash, list sumAcc
	hidden, charged     money.Sum
	creditVouchers      money.Sum // the vouchers of credit lines (SpendTotal.CreditVouchers)
}

type kindAcc struct {
	row    SpendRow
	billed money.Sum
}

type resourceAcc struct {
	top    TopResource
	billed money.Sum
	kinds  map[string]bool
}

// dayKey is a currency and a day as yyyymmdd (formatted only at the end).
type dayKey struct {
	currency string
	date     int32
}

// spendScan is what one pass over the selected line items sums.
type spendScan struct {
	by        []string
	tz        *time.Location
	groups    map[SpendRow]*groupAcc     // by the dimensions of by and the currency (the other fields empty)
	totals    map[string]*totalAcc       // by currency
	kinds     map[[3]string]*kindAcc     // by provider, kind, currency
	resources map[[3]string]*resourceAcc // by provider, resource, currency
	days      map[dayKey]*money.Sum
}

// scanSpend sums the line items of month ("" for all) in one pass; by may
// be nil (totals only). The month is read in id ranges side by side
// (ledger.ScanItems), each summed on its own, then merged: every sum
// is exact, so the result does not depend on how the rows were split.
func scanSpend(ctx context.Context, db *ledger.DB, month string, by []string, tz *time.Location) (*spendScan, error) {
	var parts []*spendScan
	n, err := db.ScanItems(ctx, ledger.Filter{Month: month}, ledger.AnyOrder, spendCols, func(int) func(*ledger.LineItem) error {
		s := newSpendScan(by, tz)
		parts = append(parts, s)
		return s.add
	})
	if err != nil {
		return nil, fmt.Errorf("reports: spend: %w", err)
	}
	if n == 0 {
		return newSpendScan(by, tz), nil
	}
	for _, p := range parts[1:] {
		parts[0].merge(p)
	}
	return parts[0], nil
}

func newSpendScan(by []string, tz *time.Location) *spendScan {
	return &spendScan{by: by, tz: tz, groups: map[SpendRow]*groupAcc{}, totals: map[string]*totalAcc{},
		kinds: map[[3]string]*kindAcc{}, resources: map[[3]string]*resourceAcc{}, days: map[dayKey]*money.Sum{}}
}

// merge adds what o summed to s.
func (s *spendScan) merge(o *spendScan) {
	for k, ot := range o.totals {
		t := s.totals[k]
		if t == nil {
			s.totals[k] = ot
			continue
		}
		t.items += ot.items
		t.billed.AddSum(&ot.billed)
		t.voucher.merge(&ot.voucher)
		t.cash.merge(&ot.cash)
		t.list.merge(&ot.list)
		t.hidden.AddSum(&ot.hidden)
		t.charged.AddSum(&ot.charged)
		t.creditVouchers.AddSum(&ot.creditVouchers)
	}
	for k, og := range o.groups {
		g := s.groups[k]
		if g == nil {
			s.groups[k] = og
			continue
		}
		g.row.Items += og.row.Items
		g.billed.AddSum(&og.billed)
		g.voucher.merge(&og.voucher)
		g.cash.merge(&og.cash)
		g.list.merge(&og.list)
		g.row.ResourceName = max(g.row.ResourceName, og.row.ResourceName)
	}
	for k, ok := range o.kinds {
		pk := s.kinds[k]
		if pk == nil {
			s.kinds[k] = ok
			continue
		}
		pk.row.Items += ok.row.Items
		pk.billed.AddSum(&ok.billed)
	}
	for k, ora := range o.resources {
		ra := s.resources[k]
		if ra == nil {
			s.resources[k] = ora
			continue
		}
		ra.top.Items += ora.top.Items
		ra.billed.AddSum(&ora.billed)
		for kind := range ora.kinds {
			ra.kinds[kind] = true
		}
		ra.top.ResourceName = max(ra.top.ResourceName, ora.top.ResourceName)
	}
	for k, od := range o.days {
		d := s.days[k]
		if d == nil {
			s.days[k] = od
			continue
		}
		d.AddSum(od)
	}
}

func (s *spendScan) add(li *ledger.LineItem) error {
	var billed money.Sum // the term, added to several sums
	billed.Add(li.BilledCost)
	currency, kind := li.Currency, li.Kind

	t := s.totals[currency]
	if t == nil {
		t = &totalAcc{}
		s.totals[currency] = t
	}
	t.items++
	t.billed.AddSum(&billed)
	t.voucher.add(li.VoucherPaid)
	t.cash.add(li.CashPaid)
	t.list.add(li.ListCost)
	if kind != ledger.KindCompute && kind != ledger.KindCredit {
		t.hidden.AddSum(&billed)
	}
	if kind != ledger.KindCredit {
		t.charged.AddSum(&billed)
	} else if li.VoucherPaid.Valid {
		t.creditVouchers.Add(li.VoucherPaid.Decimal)
	}
	if s.by == nil {
		return nil // totals only (the previous month)
	}

	key := SpendRow{Currency: currency}
	for _, b := range s.by {
		switch b {
		case ByProvider:
			key.Provider = li.Provider
		case ByKind:
			key.Kind = kind
		case ByResource:
			key.ResourceID = li.ResourceID
		case ByGPUModel:
			key.GPUModel = li.GPUModel
		case ByProject:
			key.Project = li.SubAccount
		case ByPricingModel:
			key.PricingModel = li.PricingModel
		}
	}
	g := s.groups[key]
	if g == nil {
		g = &groupAcc{row: key}
		s.groups[key] = g
	}
	g.row.Items++
	g.billed.AddSum(&billed)
	g.voucher.add(li.VoucherPaid)
	g.cash.add(li.CashPaid)
	g.list.add(li.ListCost)
	if li.ResourceName > g.row.ResourceName { // max(resource_name)
		g.row.ResourceName = li.ResourceName
	}

	pk := s.kinds[[3]string{li.Provider, kind, currency}]
	if pk == nil {
		pk = &kindAcc{row: SpendRow{Provider: li.Provider, Kind: kind, Currency: currency}}
		s.kinds[[3]string{li.Provider, kind, currency}] = pk
	}
	pk.row.Items++
	pk.billed.AddSum(&billed)

	if li.ResourceID != "" {
		rk := [3]string{li.Provider, li.ResourceID, currency}
		ra := s.resources[rk]
		if ra == nil {
			ra = &resourceAcc{top: TopResource{Provider: li.Provider, ResourceID: li.ResourceID, Currency: currency},
				kinds: map[string]bool{}}
			s.resources[rk] = ra
		}
		ra.top.Items++
		ra.billed.AddSum(&billed)
		ra.kinds[kind] = true
		if li.ResourceName > ra.top.ResourceName {
			ra.top.ResourceName = li.ResourceName
		}
	}

	y, m, d := li.ChargePeriodStart.In(s.tz).Date()
	k := dayKey{currency, int32(y*10000 + int(m)*100 + d)}
	day := s.days[k]
	if day == nil {
		day = &money.Sum{}
		s.days[k] = day
	}
	day.AddSum(&billed)
	return nil
}

// rows are the groups, in the report's order.
func (s *spendScan) rows() []SpendRow {
	out := make([]SpendRow, 0, len(s.groups))
	for _, g := range s.groups {
		r := g.row
		r.BilledCost = g.billed.Decimal()
		r.VoucherPaid, r.CashPaid, r.ListCost = g.voucher.result(r.Items), g.cash.result(r.Items), g.list.result(r.Items)
		out = append(out, r)
	}
	by := s.by
	sort.Slice(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if c := cmp.Or(strings.Compare(a.Currency, b.Currency), b.BilledCost.Cmp(a.BilledCost)); c != 0 {
			return c < 0
		}
		for _, d := range by {
			if x, y := a.dim(d), b.dim(d); x != y {
				return x < y
			}
		}
		return a.ResourceName < b.ResourceName
	})
	return out
}

// totalsList is one SpendTotal per currency, by currency code.
func (s *spendScan) totalsList() []SpendTotal {
	out := make([]SpendTotal, 0, len(s.totals))
	for cur, t := range s.totals {
		hidden := t.hidden.Decimal()
		out = append(out, SpendTotal{Currency: cur, Items: t.items, BilledCost: t.billed.Decimal(),
			VoucherPaid: t.voucher.result(t.items), CashPaid: t.cash.result(t.items), ListCost: t.list.result(t.items),
			HiddenCost: hidden, HiddenShare: Share(hidden, t.charged.Decimal()), CreditVouchers: t.creditVouchers.Decimal()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Currency < out[j].Currency })
	return out
}

// providerKinds is the billed cost per provider, kind and currency.
func (s *spendScan) providerKinds() []SpendRow {
	out := make([]SpendRow, 0, len(s.kinds))
	for _, k := range s.kinds {
		r := k.row
		r.BilledCost = k.billed.Decimal()
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b SpendRow) int {
		return cmp.Or(strings.Compare(a.Currency, b.Currency), strings.Compare(a.Provider, b.Provider), compareKinds(a.Kind, b.Kind))
	})
	return out
}

// topResources are, per currency, the TopResourceCount resources with the
// highest billed cost.
func (s *spendScan) topResources() []TopResource {
	all := make([]TopResource, 0, len(s.resources))
	for _, ra := range s.resources {
		t := ra.top
		t.BilledCost = ra.billed.Decimal()
		for k := range ra.kinds {
			t.Kinds = append(t.Kinds, k)
		}
		slices.SortFunc(t.Kinds, compareKinds)
		all = append(all, t)
	}
	slices.SortFunc(all, func(a, b TopResource) int {
		return cmp.Or(strings.Compare(a.Currency, b.Currency), b.BilledCost.Cmp(a.BilledCost),
			strings.Compare(a.Provider, b.Provider), strings.Compare(a.ResourceID, b.ResourceID))
	})
	var out []TopResource
	perCur := map[string]int{}
	for _, t := range all {
		if perCur[t.Currency] < TopResourceCount {
			perCur[t.Currency]++
			out = append(out, t)
		}
	}
	return out
}

// daily is the billed cost per day and currency.
func (s *spendScan) daily() []DailySpend {
	out := make([]DailySpend, 0, len(s.days))
	for k, d := range s.days {
		date := time.Date(int(k.date/10000), time.Month(k.date/100%100), int(k.date%100), 0, 0, 0, 0, time.UTC).Format("2006-01-02")
		out = append(out, DailySpend{Date: date, Currency: k.currency, BilledCost: d.Decimal()})
	}
	slices.SortFunc(out, func(a, b DailySpend) int {
		return cmp.Or(strings.Compare(a.Currency, b.Currency), strings.Compare(a.Date, b.Date))
	})
	return out
}

package reconcile

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// Invoiceable bases: where an invoiceable amount comes from.
const (
	// InvoiceableLineItems: the month's bill lines, cash paid (DESIGN.md
	// "Invoiceable amount": cash_paid where the bill gives it, else billed −
	// voucher; credit lines and vouchers never count).
	InvoiceableLineItems = "line_items"
	// InvoiceableTopups: no bill lines, but money flow: top-ups paid in cash
	// minus withdrawals (the GPU platforms invoice what was topped up; vouchers
	// granted never count).
	InvoiceableTopups = "topups"
	// InvoiceableNone: neither; the amount is 0 and only invoices are shown.
	InvoiceableNone = "none"
)

// InvoiceableAmount is what one provider may invoice for a month, per
// currency.
type InvoiceableAmount struct {
	Provider string
	Currency string
	Month    string
	Amount   decimal.Decimal
	Basis    string // InvoiceableLineItems or InvoiceableTopups
	// Estimated counts the bill lines whose cash part was not given and was
	// taken as billed − voucher (or billed, with no voucher column).
	Estimated int
	Lines     int // bill lines or flow rows behind the amount
}

// InvoiceableOptions narrow Invoiceable.
type InvoiceableOptions struct {
	TZ      *time.Location // for money-flow months; nil = Asia/Shanghai
	Project string         // only bill lines of this project (sub_account); money flow has no project and is then left out
}

// Invoiceable returns the invoiceable amount of every provider and currency
// in month: from the bill lines of the billing period where the provider has
// any, else from its money flow (top-ups − withdrawals of the month). Sums
// are exact (dsum over the ledger's text amounts). Ordered by provider
// (platform.All order) and currency.
func Invoiceable(ctx context.Context, db *ledger.DB, month string, opts InvoiceableOptions) ([]InvoiceableAmount, error) {
	loc := opts.TZ
	if loc == nil {
		loc = ledger.DefaultTZ()
	}
	start, end, err := ledger.MonthRange(month, loc)
	if err != nil {
		return nil, err
	}
	// Cash paid (ingest.SettlePaid): a credit line's negative cash part
	// takes the voucher it used off the charges' cash, down to 0 at most (a
	// voucher larger than the month's charges leaves no negative claim).
	q := `SELECT provider, currency,
		dsum(CASE WHEN kind <> ?1 THEN cash_paid END),
		dsum(CASE WHEN kind <> ?1 AND cash_paid IS NULL THEN billed_cost END),
		dsum(CASE WHEN kind <> ?1 AND cash_paid IS NULL THEN voucher_paid END),
		count(CASE WHEN kind <> ?1 THEN 1 END), count(CASE WHEN kind <> ?1 AND cash_paid IS NULL THEN 1 END),
		dsum(CASE WHEN kind = ?1 THEN coalesce(cash_paid, billed_cost) END)
		FROM line_items WHERE billing_period = ?2`
	args := []any{ledger.KindCredit, month}
	if opts.Project != "" {
		q += ` AND sub_account = ?3`
		args = append(args, opts.Project)
	}
	rows, err := db.SQL().QueryContext(ctx, q+` GROUP BY provider, currency HAVING count(CASE WHEN kind <> ?1 THEN 1 END) > 0`, args...)
	if err != nil {
		return nil, fmt.Errorf("reconcile: invoiceable: %w", err)
	}
	var out []InvoiceableAmount
	have := map[string]bool{}
	for rows.Next() {
		var a InvoiceableAmount
		var cash, billed, voucher, credits sql.NullString
		if err := rows.Scan(&a.Provider, &a.Currency, &cash, &billed, &voucher, &a.Lines, &a.Estimated, &credits); err != nil {
			rows.Close()
			return nil, fmt.Errorf("reconcile: invoiceable: %w", err)
		}
		for _, s := range []struct {
			v    sql.NullString
			sign int
		}{{cash, 1}, {billed, 1}, {voucher, -1}} {
			if !s.v.Valid {
				continue
			}
			d, err := decimal.NewFromString(s.v.String)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("reconcile: invoiceable: %q: %w", s.v.String, err)
			}
			if s.sign < 0 {
				d = d.Neg()
			}
			a.Amount = a.Amount.Add(d)
		}
		if credits.Valid {
			c, err := decimal.NewFromString(credits.String)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("reconcile: invoiceable: %q: %w", credits.String, err)
			}
			a.Amount = decimal.Max(a.Amount.Add(c), decimal.Min(a.Amount, decimal.Zero))
		}
		a.Month, a.Basis = month, InvoiceableLineItems
		have[a.Provider] = true
		out = append(out, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reconcile: invoiceable: %w", err)
	}
	if opts.Project == "" {
		rows, err = db.SQL().QueryContext(ctx, `SELECT provider, currency,
			coalesce(dsum(CASE WHEN type = ? THEN amount END), '0'),
			coalesce(dsum(CASE WHEN type = ? THEN amount END), '0'),
			count(*)
			FROM transactions WHERE time >= ? AND time < ? AND type IN (?, ?) GROUP BY provider, currency`,
			ledger.TxTopup, ledger.TxWithdrawal, ledger.FormatTime(start), ledger.FormatTime(end), ledger.TxTopup, ledger.TxWithdrawal)
		if err != nil {
			return nil, fmt.Errorf("reconcile: invoiceable: %w", err)
		}
		for rows.Next() {
			var a InvoiceableAmount
			var top, wd string
			if err := rows.Scan(&a.Provider, &a.Currency, &top, &wd, &a.Lines); err != nil {
				rows.Close()
				return nil, fmt.Errorf("reconcile: invoiceable: %w", err)
			}
			if have[a.Provider] {
				continue
			}
			t, err1 := decimal.NewFromString(top)
			w, err2 := decimal.NewFromString(wd)
			if err1 != nil || err2 != nil {
				rows.Close()
				return nil, fmt.Errorf("reconcile: invoiceable: stored amounts %q, %q", top, wd)
			}
			a.Amount, a.Month, a.Basis = t.Sub(w), month, InvoiceableTopups
			out = append(out, a)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("reconcile: invoiceable: %w", err)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return lessPC(out[i].Provider, out[i].Currency, out[j].Provider, out[j].Currency) })
	return out, nil
}

func lessPC(p1, c1, p2, c2 string) bool {
	if p1 != p2 {
		r1, r2 := platform.Rank(p1), platform.Rank(p2)
		if r1 != r2 {
			return r1 < r2
		}
		return p1 < p2
	}
	return c1 < c2
}

// AllocatedInvoice is an invoice as it counts for one month.
type AllocatedInvoice struct {
	ledger.Invoice
	// Allocated is the part of the invoice's amount that counts for the
	// month: all of it for a one-month invoice; for one spanning several
	// months, what InvoiceCoverage gave this month.
	Allocated decimal.Decimal
	// PeriodFromDate is set when the invoice states no period and counts for
	// the month it was issued in.
	PeriodFromDate bool
}

// Coverage is the invoice coverage of one provider and currency in a month.
type Coverage struct {
	Provider     string
	Currency     string
	Invoiceable  decimal.Decimal
	Basis        string // InvoiceableLineItems, InvoiceableTopups or InvoiceableNone
	Estimated    int    // see InvoiceableAmount
	Invoiced     decimal.Decimal
	ToRequest    decimal.Decimal // invoiceable − invoiced, when positive
	OverInvoiced decimal.Decimal // invoiced − invoiceable, when positive: invoiced twice or beyond what was paid
	Invoices     []AllocatedInvoice
}

// DuplicateInvoice is an invoice number stored more than once (two imports
// or a hand entry that disagree about it): the first (lowest id) counts, the
// others are listed here and left out of Invoiced.
type DuplicateInvoice struct {
	Number  string
	Counted ledger.Invoice
	Others  []ledger.Invoice
}

// CoverageReport is InvoiceCoverage's answer for a month.
type CoverageReport struct {
	Month      string
	Rows       []Coverage
	Duplicates []DuplicateInvoice // numbers stored twice among the invoices that touch the month
}

// InvoiceCoverage compares the invoices of every provider with its
// invoiceable amount in month.
//
// An invoice counts for the months its period covers; one that states no
// period counts for the month it was issued in. An invoice covering one month
// counts in full there. An invoice spanning several months is split by the
// invoiceable amounts: its months are filled in order, each up to what is
// left of its invoiceable amount after the one-month invoices (and earlier
// spanning invoices, by period start, date, number), and whatever remains
// goes to its last month, where it shows as over-invoiced. The split needs no
// division, so it is exact, and it is the same whichever month is asked.
// Partial invoices simply add up; what they leave is ToRequest.
func InvoiceCoverage(ctx context.Context, db *ledger.DB, month string, opts InvoiceableOptions) (*CoverageReport, error) {
	if _, err := time.Parse("2006-01", month); err != nil {
		return nil, fmt.Errorf("month %q: want YYYY-MM", month)
	}
	all, err := db.Invoices(ctx, ledger.InvoiceFilter{})
	if err != nil {
		return nil, err
	}
	// Duplicates: the same number more than once; the lowest id counts.
	byNumber := map[string][]ledger.Invoice{}
	for _, inv := range all {
		n := strings.ToUpper(strings.TrimSpace(inv.Number))
		byNumber[n] = append(byNumber[n], inv)
	}
	dropped := map[int64]bool{}
	rep := &CoverageReport{Month: month}
	for n, invs := range byNumber {
		if len(invs) < 2 {
			continue
		}
		sort.Slice(invs, func(i, j int) bool { return invs[i].ID < invs[j].ID })
		d := DuplicateInvoice{Number: n, Counted: invs[0], Others: invs[1:]}
		touches := invoiceMonth(&invs[0], month)
		for _, o := range invs[1:] {
			dropped[o.ID] = true
			touches = touches || invoiceMonth(&o, month)
		}
		if touches {
			rep.Duplicates = append(rep.Duplicates, d)
		}
	}
	sort.Slice(rep.Duplicates, func(i, j int) bool { return rep.Duplicates[i].Number < rep.Duplicates[j].Number })

	// Invoiceable amounts of every month a counted invoice of this month
	// touches (spanning invoices need their other months too).
	type pc struct{ provider, currency string }
	type pcm struct {
		pc
		month string
	}
	months := map[string]bool{month: true}
	var counted []ledger.Invoice
	for _, inv := range all {
		if dropped[inv.ID] {
			continue
		}
		counted = append(counted, inv)
		if invoiceMonth(&inv, month) {
			for _, m := range inv.Months() {
				months[m] = true
			}
		}
	}
	// Spanning invoices that share a month with those months take capacity
	// there too: widen until no new month appears.
	for changed := true; changed; {
		changed = false
		for _, inv := range counted {
			ms := inv.Months()
			if len(ms) < 2 {
				continue
			}
			touch := false
			for _, m := range ms {
				touch = touch || months[m]
			}
			if !touch {
				continue
			}
			for _, m := range ms {
				if !months[m] {
					months[m], changed = true, true
				}
			}
		}
	}
	capacity := map[pcm]decimal.Decimal{}
	basis := map[pc]InvoiceableAmount{}
	for m := range months {
		amts, err := Invoiceable(ctx, db, m, opts)
		if err != nil {
			return nil, err
		}
		for _, a := range amts {
			capacity[pcm{pc{a.Provider, a.Currency}, m}] = a.Amount
			if m == month {
				basis[pc{a.Provider, a.Currency}] = a
			}
		}
	}
	// One-month invoices (and those without a period) first.
	alloc := map[int64]decimal.Decimal{} // invoice id → part for month
	var spanning []ledger.Invoice
	for _, inv := range counted {
		ms := inv.Months()
		if len(ms) >= 2 {
			spanning = append(spanning, inv)
			continue
		}
		m := inv.PeriodStart
		if m == "" {
			m = inv.Date[:7]
		}
		if !months[m] {
			continue
		}
		k := pcm{pc{inv.Provider, inv.Currency}, m}
		capacity[k] = capacity[k].Sub(inv.Amount)
		if m == month {
			alloc[inv.ID] = inv.Amount
		}
	}
	sort.SliceStable(spanning, func(i, j int) bool {
		a, b := spanning[i], spanning[j]
		if a.PeriodStart != b.PeriodStart {
			return a.PeriodStart < b.PeriodStart
		}
		if a.Date != b.Date {
			return a.Date < b.Date
		}
		if a.Number != b.Number {
			return a.Number < b.Number
		}
		return a.ID < b.ID
	})
	for _, inv := range spanning {
		ms := inv.Months()
		if !months[ms[0]] {
			continue
		}
		left := inv.Amount
		for i, m := range ms {
			k := pcm{pc{inv.Provider, inv.Currency}, m}
			part := left
			if i < len(ms)-1 {
				room := decimal.Max(capacity[k], decimal.Zero)
				part = decimal.Min(left, room)
			}
			capacity[k] = capacity[k].Sub(part)
			left = left.Sub(part)
			if m == month {
				alloc[inv.ID] = part
			}
		}
	}
	rows := map[pc]*Coverage{}
	row := func(k pc) *Coverage {
		if rows[k] == nil {
			c := &Coverage{Provider: k.provider, Currency: k.currency, Basis: InvoiceableNone}
			if a, ok := basis[k]; ok {
				c.Invoiceable, c.Basis, c.Estimated = a.Amount, a.Basis, a.Estimated
			}
			rows[k] = c
		}
		return rows[k]
	}
	for k := range basis {
		row(k)
	}
	for _, inv := range counted {
		part, ok := alloc[inv.ID]
		if !ok {
			continue
		}
		c := row(pc{inv.Provider, inv.Currency})
		c.Invoiced = c.Invoiced.Add(part)
		c.Invoices = append(c.Invoices, AllocatedInvoice{Invoice: inv, Allocated: part, PeriodFromDate: inv.PeriodStart == ""})
	}
	for _, c := range rows {
		diff := c.Invoiceable.Sub(c.Invoiced)
		if diff.IsPositive() {
			c.ToRequest = diff
		} else if diff.IsNegative() {
			c.OverInvoiced = diff.Neg()
		}
		rep.Rows = append(rep.Rows, *c)
	}
	sort.SliceStable(rep.Rows, func(i, j int) bool {
		return lessPC(rep.Rows[i].Provider, rep.Rows[i].Currency, rep.Rows[j].Provider, rep.Rows[j].Currency)
	})
	return rep, nil
}

// invoiceMonth reports whether an invoice counts for month: its period
// covers it, or it states none and was issued in it.
func invoiceMonth(inv *ledger.Invoice, month string) bool {
	if inv.PeriodStart == "" {
		return strings.HasPrefix(inv.Date, month)
	}
	return inv.Covers(month)
}

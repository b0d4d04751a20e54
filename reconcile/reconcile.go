package reconcile

import (
	"context"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

// Options say what Reconcile does.
type Options struct {
	Month        string         // YYYY-MM, required
	TZ           *time.Location // days and months are cut in it; nil = Asia/Shanghai
	Window       Window         // top-up ↔ payment window; zero = DefaultWindow
	RefundWindow Window         // refund window; zero = DefaultRefundWindow
	Project      string         // invoiceable amounts of this project only (bill lines' sub_account)
}

// Report is the whole reconciliation of a month.
type Report struct {
	Month    string
	TZ       *time.Location
	Window   Window
	Balances []Balance
	Daily    []DailyCharge
	Matching Matching
	Invoices *CoverageReport

	imports map[int64]*ledger.Import // by id, for the rows a person sees (rowAt)
}

// Differences reports whether anything did not reconcile: a balance
// difference, a daily charge difference, an unmatched payment or top-up, an
// invoice number stored twice or an amount invoiced beyond what was paid.
// Invoices still to request are not a difference.
func (r *Report) Differences() bool {
	for _, b := range r.Balances {
		if b.Difference.Valid && !b.Difference.Decimal.IsZero() || b.IncompleteFlow {
			return true
		}
	}
	if len(r.Daily) > 0 || len(r.Matching.UnmatchedPayments) > 0 || len(r.Matching.UnmatchedTopups) > 0 {
		return true
	}
	if r.Invoices != nil {
		if len(r.Invoices.Duplicates) > 0 {
			return true
		}
		for _, c := range r.Invoices.Rows {
			if c.OverInvoiced.IsPositive() {
				return true
			}
		}
	}
	return false
}

// Reconcile runs every check on opts.Month: balances, daily charges,
// top-up ↔ payment matching and invoice coverage.
func Reconcile(ctx context.Context, db *ledger.DB, opts Options) (*Report, error) {
	loc := opts.TZ
	if loc == nil {
		loc = ledger.DefaultTZ()
	}
	if opts.Window == (Window{}) {
		opts.Window = DefaultWindow
	}
	if opts.RefundWindow == (Window{}) {
		opts.RefundWindow = DefaultRefundWindow
	}
	start, end, err := ledger.MonthRange(opts.Month, loc)
	if err != nil {
		return nil, err
	}
	ims, err := db.Imports(ctx, 0)
	if err != nil {
		return nil, err
	}
	rep := &Report{Month: opts.Month, TZ: loc, Window: opts.Window, imports: map[int64]*ledger.Import{}}
	paths := map[int64]string{}
	for i := range ims {
		rep.imports[ims[i].ID], paths[ims[i].ID] = &ims[i], ims[i].Path
	}
	if rep.Balances, err = balances(ctx, db, opts.Month, loc, paths); err != nil {
		return nil, err
	}
	if rep.Daily, err = DailyCharges(ctx, db, opts.Month, loc); err != nil {
		return nil, err
	}
	if rep.Matching, err = matchMonth(ctx, db, start, end, opts, paths); err != nil {
		return nil, err
	}
	if rep.Invoices, err = InvoiceCoverage(ctx, db, opts.Month, InvoiceableOptions{TZ: loc, Project: opts.Project}); err != nil {
		return nil, err
	}
	return rep, nil
}

// matchMonth matches the rows around [start, end) and keeps what belongs to
// the month: pairs and unmatched top-ups whose platform row lies in it, and
// unmatched payments made in it. Rows and payments of the neighbouring
// margins take part, so that a payment on the last evening of the month
// that paid a top-up recorded after midnight is not listed as unmatched.
func matchMonth(ctx context.Context, db *ledger.DB, start, end time.Time, opts Options, paths map[int64]string) (Matching, error) {
	margin := max(opts.Window.Before, opts.Window.After, opts.RefundWindow.Before, opts.RefundWindow.After)
	txs, err := db.Transactions(ctx, "", start.Add(-margin), end.Add(margin))
	if err != nil {
		return Matching{}, err
	}
	orderFlow(txs)
	flows := make([]FlowRow, len(txs))
	for i := range txs {
		flows[i] = flowRow(&txs[i], paths)
	}
	ps, err := db.Payments(ctx, start.Add(-margin), end.Add(margin))
	if err != nil {
		return Matching{}, err
	}
	pays := make([]PaymentRow, len(ps))
	for i := range ps {
		pays[i] = PaymentRowOf(&ps[i], paths[ps[i].ImportID])
	}
	m := Match(flows, pays, MatchOptions{Window: opts.Window, RefundWindow: opts.RefundWindow})
	in := func(t time.Time) bool { return !t.Before(start) && t.Before(end) }
	var out Matching
	for _, p := range m.Pairs {
		if in(p.Flow.Time) {
			out.Pairs = append(out.Pairs, p)
		}
	}
	for _, f := range m.UnmatchedTopups {
		if in(f.Time) {
			out.UnmatchedTopups = append(out.UnmatchedTopups, f)
		}
	}
	for _, p := range m.UnmatchedPayments {
		if in(p.Time) {
			out.UnmatchedPayments = append(out.UnmatchedPayments, p)
		}
	}
	return out, nil
}

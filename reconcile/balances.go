package reconcile

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
	"github.com/gpubill/gpubill/reports"
)

// Balance bases: what the balance column of a money-flow export counts.
const (
	// BasisTotal: the balance is the account's total; freezing moves money
	// between available and frozen without changing it.
	BasisTotal = "total"
	// BasisAvailable: the balance is what is available; a freeze lowers it
	// and an unfreeze raises it (恒源云 shows this). Detected from the
	// export: a freeze row whose balance is the previous one minus the
	// amount.
	BasisAvailable = "available"
)

// FlowRow is one money-flow row as reconciliation shows it, with where it
// came from.
type FlowRow struct {
	ID          int64
	Provider    string
	Account     string
	Time        time.Time
	Type        string
	Amount      decimal.Decimal // positive; Type gives the direction
	Currency    string
	Balance     decimal.NullDecimal
	Reference   string
	Description string
	File        string
	Row         int   // 1-based record number in File (ledger.Transaction.SourceRow)
	ImportID    int64 // the import File came from, for the row a person sees (Report.rowAt)
}

// Gap is a break in an export's balance column: the balance shown after
// row After is not the balance after row Before plus the movement of the
// rows between them (After's own included).
type Gap struct {
	Before     FlowRow
	After      FlowRow
	Expected   decimal.Decimal // Before's balance + the movements up to After
	Shown      decimal.Decimal // After's balance
	Difference decimal.Decimal // Shown − Expected
}

// Balance is the money-flow equation of one provider account and currency
// for a month: Opening + Topups + Vouchers − Charges + Refunds − Withdrawals
// (− Freezes + Unfreezes on BasisAvailable) = Expected, against Closing, the
// balance the export shows. Opening, Closing, Expected and Difference are
// unknown (Valid false) when the export shows no balance.
type Balance struct {
	Provider    string
	Account     string
	Currency    string
	Basis       string // BasisTotal or BasisAvailable
	Opening     decimal.NullDecimal
	Topups      decimal.Decimal
	Vouchers    decimal.Decimal
	Charges     decimal.Decimal
	Refunds     decimal.Decimal
	Withdrawals decimal.Decimal
	Freezes     decimal.Decimal
	Unfreezes   decimal.Decimal
	Expected    decimal.NullDecimal
	// Closing is the balance at the end of the month: the last one shown,
	// carried forward (推算) over the later rows that show none.
	Closing    decimal.NullDecimal
	Difference decimal.NullDecimal
	Rows       int // rows of the month
	Gaps       []Gap
	// Shown is the last balance the export itself shows up to the end of
	// the month, after the row at ShownTime; CarriedRows counts the later
	// rows that show none, over which Closing is carried forward (0: the
	// closing is the one shown). The same balance report refunds gives.
	Shown       decimal.NullDecimal
	ShownTime   time.Time
	CarriedRows int
	// IncompleteFlow: the bill of the month has charges (BillCharges, the
	// billed cost of its non-credit lines) while the money flow of the month
	// has no charge row: the flow is no full record, and its closing and
	// difference say nothing of the charges.
	IncompleteFlow bool
	BillCharges    decimal.NullDecimal
}

// DailyCharge is one day on which a provider's money-flow charges and its
// bill lines disagree.
type DailyCharge struct {
	Provider    string
	Currency    string
	Day         string // YYYY-MM-DD in the report's zone
	FlowCharges decimal.Decimal
	BillCharges decimal.Decimal
	Difference  decimal.Decimal // FlowCharges − BillCharges
	FlowRows    int
	BillLines   int
}

func flowRow(x *ledger.Transaction, paths map[int64]string) FlowRow {
	return FlowRow{ID: x.ID, Provider: x.Provider, Account: x.Account, Time: x.Time, Type: x.Type, Amount: x.Amount,
		Currency: x.Currency, Balance: x.Balance, Reference: x.Reference, Description: x.Description,
		File: paths[x.ImportID], Row: x.SourceRow, ImportID: x.ImportID}
}

// orderFlow sorts rows by time; rows of one instant keep the order of their
// file, read in the direction the file runs (an export listing the newest
// first is read bottom-up), then the import order.
func orderFlow(txs []ledger.Transaction) {
	type span struct {
		first, last       time.Time
		firstRow, lastRow int
	}
	spans := map[int64]*span{}
	for i := range txs {
		x := &txs[i]
		s := spans[x.ImportID]
		if s == nil {
			spans[x.ImportID] = &span{x.Time, x.Time, x.SourceRow, x.SourceRow}
			continue
		}
		if x.SourceRow < s.firstRow {
			s.first, s.firstRow = x.Time, x.SourceRow
		}
		if x.SourceRow > s.lastRow {
			s.last, s.lastRow = x.Time, x.SourceRow
		}
	}
	newestFirst := func(id int64) bool { s := spans[id]; return s != nil && s.first.After(s.last) }
	sort.SliceStable(txs, func(i, j int) bool {
		a, b := &txs[i], &txs[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		if a.ImportID != b.ImportID {
			return a.ImportID < b.ImportID
		}
		if newestFirst(a.ImportID) {
			return a.SourceRow > b.SourceRow
		}
		return a.SourceRow < b.SourceRow
	})
}

// delta is the signed change a row makes to the balance on basis.
func delta(x *FlowRow, basis string) decimal.Decimal {
	switch x.Type {
	case ledger.TxTopup, ledger.TxVoucher, ledger.TxRefund:
		return x.Amount
	case ledger.TxCharge, ledger.TxWithdrawal:
		return x.Amount.Neg()
	case ledger.TxFreeze:
		if basis == BasisAvailable {
			return x.Amount.Neg()
		}
	case ledger.TxUnfreeze:
		if basis == BasisAvailable {
			return x.Amount
		}
	}
	return decimal.Zero
}

// detectBasis looks at the freeze and unfreeze rows whose balance and the
// previous row's balance are both shown: the first one that moved the
// balance by its amount makes the basis available; otherwise it is total.
func detectBasis(rows []FlowRow) string {
	for i := 1; i < len(rows); i++ {
		x, prev := &rows[i], &rows[i-1]
		if (x.Type != ledger.TxFreeze && x.Type != ledger.TxUnfreeze) || !x.Balance.Valid || !prev.Balance.Valid {
			continue
		}
		want := prev.Balance.Decimal.Sub(x.Amount)
		if x.Type == ledger.TxUnfreeze {
			want = prev.Balance.Decimal.Add(x.Amount)
		}
		if x.Balance.Decimal.Equal(want) {
			return BasisAvailable
		}
		if x.Balance.Decimal.Equal(prev.Balance.Decimal) {
			return BasisTotal
		}
	}
	return BasisTotal
}

type flowKey struct{ provider, account, currency string }

// loadFlow reads the money flow up to the end of the month (earlier rows
// give the opening balance), grouped by provider, account and currency, each
// group ordered (orderFlow).
func loadFlow(ctx context.Context, db *ledger.DB, end time.Time, paths map[int64]string) (map[flowKey][]FlowRow, []flowKey, error) {
	txs, err := db.Transactions(ctx, "", time.Unix(0, 0), end)
	if err != nil {
		return nil, nil, err
	}
	orderFlow(txs)
	groups := map[flowKey][]FlowRow{}
	var keys []flowKey
	for i := range txs {
		k := flowKey{txs[i].Provider, txs[i].Account, txs[i].Currency}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], flowRow(&txs[i], paths))
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.provider != b.provider {
			return platform.Rank(a.provider) < platform.Rank(b.provider) || platform.Rank(a.provider) == platform.Rank(b.provider) && a.provider < b.provider
		}
		if a.account != b.account {
			return a.account < b.account
		}
		return a.currency < b.currency
	})
	return groups, keys, nil
}

// Balances computes the balance equation of every provider account and
// currency with money-flow rows in month (times cut in loc).
//
// Opening is the balance after the last earlier row that shows one (carried
// forward over rows without one); without earlier rows, it is worked back
// from the first row of the month that shows a balance. Closing is the
// balance shown after the last row of the month that shows one, carried
// forward over later rows without one. Each time a shown balance disagrees
// with the previous shown balance plus the movements between, a Gap lists
// the two rows, and the chain continues from the shown balance; so the
// Difference (Closing − Expected) is the sum of the gaps.
func Balances(ctx context.Context, db *ledger.DB, month string, loc *time.Location) ([]Balance, error) {
	paths, err := db.ImportPaths(ctx)
	if err != nil {
		return nil, err
	}
	return balances(ctx, db, month, loc, paths)
}

func balances(ctx context.Context, db *ledger.DB, month string, loc *time.Location, paths map[int64]string) ([]Balance, error) {
	start, end, err := ledger.MonthRange(month, loc)
	if err != nil {
		return nil, err
	}
	groups, keys, err := loadFlow(ctx, db, end, paths)
	if err != nil {
		return nil, err
	}
	var out []Balance
	for _, k := range keys {
		rows := groups[k]
		first := sort.Search(len(rows), func(i int) bool { return !rows[i].Time.Before(start) })
		if first == len(rows) {
			continue // no row in the month
		}
		b := Balance{Provider: k.provider, Account: k.account, Currency: k.currency, Basis: detectBasis(rows)}
		// Opening: carried forward over the earlier rows.
		var run decimal.NullDecimal
		for i := 0; i < first; i++ {
			run = step(run, &rows[i], b.Basis)
		}
		b.Opening = run
		month := rows[first:]
		b.Rows = len(month)
		if !b.Opening.Valid {
			acc := decimal.Zero
			for i := range month {
				acc = acc.Add(delta(&month[i], b.Basis))
				if month[i].Balance.Valid {
					b.Opening = valid(month[i].Balance.Decimal.Sub(acc))
					break
				}
			}
		}
		sum := decimal.Zero
		run = b.Opening
		lastShown := -1 // index in month of the row the chain last rested on; -1 = the opening
		for i := range month {
			x := &month[i]
			switch x.Type {
			case ledger.TxTopup:
				b.Topups = b.Topups.Add(x.Amount)
			case ledger.TxVoucher:
				b.Vouchers = b.Vouchers.Add(x.Amount)
			case ledger.TxCharge:
				b.Charges = b.Charges.Add(x.Amount)
			case ledger.TxRefund:
				b.Refunds = b.Refunds.Add(x.Amount)
			case ledger.TxWithdrawal:
				b.Withdrawals = b.Withdrawals.Add(x.Amount)
			case ledger.TxFreeze:
				b.Freezes = b.Freezes.Add(x.Amount)
			case ledger.TxUnfreeze:
				b.Unfreezes = b.Unfreezes.Add(x.Amount)
			}
			d := delta(x, b.Basis)
			sum = sum.Add(d)
			if run.Valid {
				run = valid(run.Decimal.Add(d))
			}
			if !x.Balance.Valid {
				continue
			}
			if run.Valid && !run.Decimal.Equal(x.Balance.Decimal) {
				g := Gap{After: *x, Expected: run.Decimal, Shown: x.Balance.Decimal, Difference: x.Balance.Decimal.Sub(run.Decimal)}
				switch {
				case lastShown >= 0:
					g.Before = month[lastShown]
				case first > 0:
					g.Before = rows[first-1]
				case i > 0:
					g.Before = month[i-1]
				}
				b.Gaps = append(b.Gaps, g)
			}
			run = x.Balance
			lastShown = i
		}
		// The last shown balance may be in an earlier month.
		for i := len(rows) - 1; i >= 0; i-- {
			if rows[i].Balance.Valid {
				b.Shown, b.ShownTime, b.CarriedRows = rows[i].Balance, rows[i].Time, len(rows)-1-i
				break
			}
		}
		if b.Opening.Valid {
			b.Expected = valid(b.Opening.Decimal.Add(sum))
		}
		b.Closing = run
		if b.Expected.Valid && b.Closing.Valid {
			b.Difference = valid(b.Closing.Decimal.Sub(b.Expected.Decimal))
		}
		out = append(out, b)
	}
	if err := incompleteFlows(ctx, db, month, out); err != nil {
		return nil, err
	}
	return out, nil
}

// incompleteFlows flags the balances whose month has bill charges of the
// provider and currency but no charge row in the money flow.
func incompleteFlows(ctx context.Context, db *ledger.DB, month string, bs []Balance) error {
	billed, err := reports.MonthCharges(ctx, db, month)
	if err != nil {
		return err
	}
	for i := range bs {
		b := &bs[i]
		d, ok := billed[reports.ChargeKey{Provider: b.Provider, Currency: b.Currency}]
		if !ok {
			continue
		}
		b.BillCharges = valid(d)
		b.IncompleteFlow = d.IsPositive() && b.Charges.IsZero()
	}
	return nil
}

// step carries a running balance over one row: the row's shown balance, or
// the running one plus the row's movement.
func step(run decimal.NullDecimal, x *FlowRow, basis string) decimal.NullDecimal {
	if x.Balance.Valid {
		return x.Balance
	}
	if run.Valid {
		return valid(run.Decimal.Add(delta(x, basis)))
	}
	return run
}

func valid(d decimal.Decimal) decimal.NullDecimal {
	return decimal.NullDecimal{Decimal: d, Valid: true}
}

// DailyCharges compares, for every provider that has both money flow and
// bill lines in month, the flow's charges with the bill lines' billed cost
// day by day (days cut in loc), and returns the days that differ, by
// provider, currency and day.
//
// A bill line counts on the day its charge is settled: the end of its charge
// period (an hour billed 09:00–10:00 is deducted at 10:00, a day of storage at
// the next midnight), or the start for a package (prepaid when bought).
// Credit lines (vouchers) are left out: a voucher is its own row in the flow.
// Only the days from the later of the two sources' first days to the earlier
// of their last days are compared, so a bill export that covers half the
// month does not make the other half differ.
func DailyCharges(ctx context.Context, db *ledger.DB, month string, loc *time.Location) ([]DailyCharge, error) {
	start, end, err := ledger.MonthRange(month, loc)
	if err != nil {
		return nil, err
	}
	txs, err := db.Transactions(ctx, "", start, end)
	if err != nil {
		return nil, err
	}
	type pc struct{ provider, currency string }
	type day struct {
		flow, bill         decimal.Decimal
		flowRows, billRows int
	}
	days := map[pc]map[string]*day{}
	get := func(k pc, d string) *day {
		m := days[k]
		if m == nil {
			m = map[string]*day{}
			days[k] = m
		}
		if m[d] == nil {
			m[d] = &day{}
		}
		return m[d]
	}
	type span struct{ first, last string }
	flowSpan, billSpan := map[pc]*span{}, map[pc]*span{}
	widen := func(m map[pc]*span, k pc, d string) {
		s := m[k]
		if s == nil {
			m[k] = &span{d, d}
			return
		}
		if d < s.first {
			s.first = d
		}
		if d > s.last {
			s.last = d
		}
	}
	providers := map[string]bool{}
	for i := range txs {
		x := &txs[i]
		k := pc{x.Provider, x.Currency}
		d := x.Time.In(loc).Format("2006-01-02")
		providers[x.Provider] = true
		if x.Type != ledger.TxCharge {
			continue
		}
		// Only charge rows say which days the flow covers: an export of
		// top-ups alone (the demo's AutoDL 收支明细) records no charges at
		// all and is no evidence that a day's bill lines were not charged.
		widen(flowSpan, k, d)
		dd := get(k, d)
		dd.flow = dd.flow.Add(x.Amount)
		dd.flowRows++
	}
	if len(providers) == 0 {
		return nil, nil
	}
	var args []any
	var ph string
	for p := range providers {
		args = append(args, p)
		if ph != "" {
			ph += ","
		}
		ph += "?"
	}
	// Lines settled in the month: their period ends after its start and
	// starts before its end (a package settles at its start, inside that).
	args = append(args, ledger.FormatTime(start), ledger.FormatTime(end), ledger.KindCredit)
	rows, err := db.SQL().QueryContext(ctx, `SELECT provider, currency, pricing_model, charge_period_start, charge_period_end, billed_cost
		FROM line_items WHERE provider IN (`+ph+`) AND charge_period_end >= ? AND charge_period_start < ? AND kind <> ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("reconcile: daily charges: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var provider, currency, pricing, s, e, billed string
		if err := rows.Scan(&provider, &currency, &pricing, &s, &e, &billed); err != nil {
			return nil, fmt.Errorf("reconcile: daily charges: %w", err)
		}
		at, err := ledger.ParseTime(e)
		if pricing == ledger.PricingPackage {
			at, err = ledger.ParseTime(s)
		}
		if err != nil {
			return nil, fmt.Errorf("reconcile: daily charges: %w", err)
		}
		if at.Before(start) || !at.Before(end) {
			continue
		}
		amt, err := decimal.NewFromString(billed)
		if err != nil {
			return nil, fmt.Errorf("reconcile: stored amount %q: %w", billed, err)
		}
		k := pc{provider, currency}
		d := at.In(loc).Format("2006-01-02")
		widen(billSpan, k, d)
		dd := get(k, d)
		dd.bill = dd.bill.Add(amt)
		dd.billRows++
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reconcile: daily charges: %w", err)
	}
	var out []DailyCharge
	for k, m := range days {
		fs, bs := flowSpan[k], billSpan[k]
		if fs == nil || bs == nil {
			continue // only one source for this provider: nothing to compare
		}
		lo, hi := max(fs.first, bs.first), min(fs.last, bs.last)
		for d, v := range m {
			if d < lo || d > hi || v.flow.Equal(v.bill) {
				continue
			}
			out = append(out, DailyCharge{Provider: k.provider, Currency: k.currency, Day: d, FlowCharges: v.flow,
				BillCharges: v.bill, Difference: v.flow.Sub(v.bill), FlowRows: v.flowRows, BillLines: v.billRows})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Provider != b.Provider {
			return platform.Rank(a.Provider) < platform.Rank(b.Provider) || platform.Rank(a.Provider) == platform.Rank(b.Provider) && a.Provider < b.Provider
		}
		if a.Currency != b.Currency {
			return a.Currency < b.Currency
		}
		return a.Day < b.Day
	})
	return out, nil
}

package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Filter selects line items. Empty fields select everything.
type Filter struct {
	Month     string   // billing period YYYY-MM
	Providers []string // provider slugs
	Kinds     []string
	ImportID  int64
	IDMin     int64 // only ids ≥ IDMin (0 = no bound)
	IDMax     int64 // only ids ≤ IDMax (0 = no bound)
	// StartsBefore, when set, keeps only the items whose charge period or
	// usage starts before it.
	StartsBefore time.Time
	// StartsFrom, when set, keeps only the items whose charge period and
	// usage both start at or after it: StartsBefore's complement.
	StartsFrom time.Time
}

// Read says how a read hands over the items it selects (Filter says which).
type Read struct {
	NoRaw bool  // leave LineItem.Raw empty: the source cells are not read at all
	Order Order // the zero value is ByResource
	// Cells, when set (and NoRaw is not), reads only the source cells listed
	// per import (column indexes, in order); other imports' items have none.
	Cells map[int64][]int
}

// Order is the order in which a read hands over its rows.
type Order int

const (
	ByResource   Order = iota // provider, resource, charge period start, id (CompareItems)
	AnyOrder                  // no particular order: the caller sorts (cheaper in Go than SQLite's sorter)
	IDDescending              // highest id first (ids rise with import order, so mostly with time)
)

// orderBy is o as an ORDER BY clause of line_items li ("" for AnyOrder).
func (o Order) orderBy() string {
	switch o {
	case AnyOrder:
		return ""
	case IDDescending:
		return " ORDER BY li.id DESC"
	}
	return " ORDER BY li.provider, li.resource_id, li.charge_period_start, li.id"
}

// where builds a WHERE clause from the filter, with placeholders only.
func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, a ...any) {
		conds, args = append(conds, cond), append(args, a...)
	}
	if f.Month != "" {
		add("li.billing_period = ?", f.Month)
	}
	for _, in := range []struct {
		col  string
		vals []string
	}{{"li.provider", f.Providers}, {"li.kind", f.Kinds}} {
		if len(in.vals) > 0 {
			add(in.col+" IN ("+placeholders(len(in.vals))+")", anys(in.vals)...)
		}
	}
	for _, c := range []struct {
		cond string
		v    int64
	}{{"li.import_id = ?", f.ImportID}, {"li.id >= ?", f.IDMin}, {"li.id <= ?", f.IDMax}} {
		if c.v != 0 {
			add(c.cond, c.v)
		}
	}
	// Stored times compare as text; charge_period_start is NOT NULL, so the
	// condition is never NULL and NOT is its complement.
	const before = "(li.charge_period_start < ? OR ifnull(li.usage_start < ?, 0))"
	if t := f.StartsBefore; !t.IsZero() {
		add(before, FormatTime(t), FormatTime(t))
	}
	if t := f.StartsFrom; !t.IsZero() {
		add("NOT "+before, FormatTime(t), FormatTime(t))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// anys is ss as query arguments.
func anys[T any](vs []T) []any {
	out := make([]any, len(vs))
	for i, s := range vs {
		out[i] = s
	}
	return out
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// queryer is the database or a transaction, for eachRow.
type queryer interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// eachRow runs q with args on db (through database/sql) and calls fn for
// each row, with scan reading its columns, until fn returns an error. An
// error of the query, of scan or of the rows comes back as "ledger: what:
// …" (as it is when what is ""); fn's own errors as they are.
func eachRow(ctx context.Context, db queryer, what, q string, args []any, fn func(scan func(dest ...any) error) error) error {
	wrap := func(err error) error {
		if err == nil || what == "" {
			return err
		}
		return fmt.Errorf("ledger: %s: %w", what, err)
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return wrap(err)
	}
	defer rows.Close()
	scan := func(dest ...any) error { return wrap(rows.Scan(dest...)) }
	for rows.Next() {
		if err := fn(scan); err != nil {
			return err
		}
	}
	return wrap(rows.Err())
}

// Months lists the billing periods present in the ledger, oldest first.
func (db *DB) Months(ctx context.Context) ([]string, error) {
	var ms []string
	err := eachRow(ctx, db.sql, "months", `SELECT DISTINCT billing_period FROM line_items ORDER BY 1`, nil, func(scan func(...any) error) error {
		var m string
		if err := scan(&m); err != nil {
			return err
		}
		ms = append(ms, m)
		return nil
	})
	return ms, err
}

// DefaultMonth is the month commands use without --month: the last complete
// month present in the ledger (a month before the one containing now), or,
// when the ledger only holds the current month or later, the newest month.
// A spill-over month is passed over while another month is left (see
// spillMonths): a 腾讯云 row deducted at 00:00 on the 1st puts one line item
// in the next month's bill, which is no month to report by default. It
// returns "" for an empty ledger.
func (db *DB) DefaultMonth(ctx context.Context, now time.Time) (string, error) {
	ms, err := db.Months(ctx)
	if err != nil || len(ms) == 0 {
		return "", err
	}
	spill, err := db.spillMonths(ctx)
	if err != nil {
		return "", err
	}
	if bulk := slices.DeleteFunc(slices.Clone(ms), func(m string) bool { return spill[m] }); len(bulk) > 0 {
		ms = bulk
	}
	current := now.Format("2006-01")
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i] < current {
			return ms[i], nil
		}
	}
	return ms[len(ms)-1], nil
}

// spillMonths are the billing periods that no import brought the bulk of
// its line items for: in every import that brought rows for the month,
// they are fewer than a quarter of that import's rows for its largest
// month (import_periods, migration 0005). A quarter keeps the months of a
// file that spans several months evenly (a quarter's export), and drops the
// one row of the next month that a month's export carries.
func (db *DB) spillMonths(ctx context.Context) (map[string]bool, error) {
	spill := map[string]bool{}
	err := eachRow(ctx, db.sql, "months", `WITH per AS (
			SELECT import_id, billing_period, sum(line_items) AS n FROM import_periods GROUP BY import_id, billing_period),
		top AS (SELECT import_id, max(n) AS n FROM per GROUP BY import_id)
		SELECT per.billing_period, max(per.n * 4 >= top.n) FROM per JOIN top USING (import_id) GROUP BY per.billing_period`,
		nil, func(scan func(...any) error) error {
			var m string
			var bulk bool
			if err := scan(&m, &bulk); err != nil {
				return err
			}
			if !bulk {
				spill[m] = true
			}
			return nil
		})
	return spill, err
}

// Payments returns the payment records whose time falls in [from, to)
// (all when both are zero), oldest first.
func (db *DB) Payments(ctx context.Context, from, to time.Time) ([]Payment, error) {
	q := `SELECT p.id, p.source, p.time, p.direction, p.counterparty, p.item, p.amount, p.currency, p.status,
		p.order_no, p.merchant_order_no, p.raw, p.import_id, p.source_row, p.row_key FROM payments p`
	var args []any
	if !from.IsZero() || !to.IsZero() {
		q += ` WHERE p.time >= ? AND p.time < ?`
		args = append(args, FormatTime(from), FormatTime(to))
	}
	var out []Payment
	err := eachRow(ctx, db.sql, "payments", q+` ORDER BY p.time, p.id`, args, func(scan func(...any) error) error {
		var p Payment
		var tm, amount, raw string
		err := scan(&p.ID, &p.Source, &tm, &p.Direction, &p.Counterparty, &p.Item, &amount, &p.Currency, &p.Status,
			&p.OrderNo, &p.MerchantOrderNo, &raw, &p.ImportID, &p.SourceRow, &p.RowKey)
		if err != nil {
			return err
		}
		if p.Time, err = ParseTime(tm); err != nil {
			return fmt.Errorf("ledger: payment %d: %w", p.ID, err)
		}
		a, err := scanDec(&amount)
		if err != nil {
			return err
		}
		p.Amount = a.Decimal
		if err := json.Unmarshal([]byte(raw), &p.Raw); err != nil {
			return fmt.Errorf("ledger: payment %d raw: %w", p.ID, err)
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// Transactions returns the money-flow rows of provider ("" = all) whose
// time falls in [from, to) (all when both are zero), oldest first.
func (db *DB) Transactions(ctx context.Context, provider string, from, to time.Time) ([]Transaction, error) {
	q := `SELECT id, provider, account, time, type, amount, currency, balance, reference, description, raw,
		import_id, source_row, row_key FROM transactions WHERE (? = '' OR provider = ?)`
	args := []any{provider, provider}
	if !from.IsZero() || !to.IsZero() {
		q += ` AND time >= ? AND time < ?`
		args = append(args, FormatTime(from), FormatTime(to))
	}
	var out []Transaction
	err := eachRow(ctx, db.sql, "transactions", q+` ORDER BY time, id`, args, func(scan func(...any) error) error {
		var x Transaction
		var tm, amount, raw string
		var balance *string
		err := scan(&x.ID, &x.Provider, &x.Account, &tm, &x.Type, &amount, &x.Currency, &balance, &x.Reference,
			&x.Description, &raw, &x.ImportID, &x.SourceRow, &x.RowKey)
		if err != nil {
			return err
		}
		if x.Time, err = ParseTime(tm); err != nil {
			return fmt.Errorf("ledger: transaction %d: %w", x.ID, err)
		}
		a, err := scanDec(&amount)
		if err != nil {
			return err
		}
		x.Amount = a.Decimal
		if x.Balance, err = scanDec(balance); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(raw), &x.Raw); err != nil {
			return fmt.Errorf("ledger: transaction %d raw: %w", x.ID, err)
		}
		out = append(out, x)
		return nil
	})
	return out, err
}

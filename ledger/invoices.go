package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpubill/gpubill/money"
	"github.com/shopspring/decimal"
)

// Invoice is one invoice (发票) the user received from a platform, recorded
// by hand (gpubill invoice add) or imported from a list (gpubill invoice
// import). Reconciliation compares invoices with the invoiceable amount of
// each provider and month (reconcile.InvoiceCoverage).
type Invoice struct {
	ID       int64
	Provider string          // provider slug
	Number   string          // 发票号码
	Date     string          // 开票日期, YYYY-MM-DD
	Amount   decimal.Decimal // 价税合计 (total including tax)
	Currency string
	Title    string // 抬头
	// PeriodStart and PeriodEnd are the months the invoice covers (YYYY-MM,
	// inclusive); both empty when the invoice does not say. A one-month
	// invoice has PeriodStart == PeriodEnd.
	PeriodStart string
	PeriodEnd   string
	Note        string
	Raw         []string // the source row's cells (imports only)

	ImportID  int64  // 0 = added by hand
	SourceRow int    // 1-based record number in its file (header = 0); 0 by hand
	RowKey    string // dedupe key (InvoiceKey when empty on insert)
	File      string // the imported file's path (filled by Invoices; "" by hand)
	AddedAt   time.Time
}

// Months lists the months the invoice covers, oldest first; nil when it
// states no period (or a broken one).
func (inv *Invoice) Months() []string {
	if inv.PeriodStart == "" {
		return nil
	}
	end := inv.PeriodEnd
	if end == "" {
		end = inv.PeriodStart
	}
	start, err1 := time.Parse("2006-01", inv.PeriodStart)
	last, err2 := time.Parse("2006-01", end)
	if err1 != nil || err2 != nil || last.Before(start) {
		return nil
	}
	var out []string
	for m := start; !m.After(last) && len(out) < 1200; m = m.AddDate(0, 1, 0) {
		out = append(out, m.Format("2006-01"))
	}
	return out
}

// Covers reports whether the invoice's stated period includes month.
func (inv *Invoice) Covers(month string) bool {
	end := inv.PeriodEnd
	if end == "" {
		end = inv.PeriodStart
	}
	return inv.PeriodStart != "" && inv.PeriodStart <= month && month <= end
}

// Validate checks what the ledger relies on: a provider, a number, a date
// YYYY-MM-DD, a currency, and a period of YYYY-MM months in order.
func (inv *Invoice) Validate() error {
	if strings.TrimSpace(inv.Provider) == "" {
		return errors.New("invoice: provider is empty")
	}
	if strings.TrimSpace(inv.Number) == "" {
		return errors.New("invoice: number is empty")
	}
	if _, err := time.Parse("2006-01-02", inv.Date); err != nil {
		return fmt.Errorf("invoice %s: date %q is not YYYY-MM-DD", inv.Number, inv.Date)
	}
	if inv.Currency == "" {
		return fmt.Errorf("invoice %s: currency is empty", inv.Number)
	}
	if inv.PeriodStart == "" && inv.PeriodEnd != "" {
		return fmt.Errorf("invoice %s: period end %q without a start", inv.Number, inv.PeriodEnd)
	}
	for _, m := range []string{inv.PeriodStart, inv.PeriodEnd} {
		if m == "" {
			continue
		}
		if _, err := time.Parse("2006-01", m); err != nil {
			return fmt.Errorf("invoice %s: period month %q is not YYYY-MM", inv.Number, m)
		}
	}
	if inv.PeriodEnd != "" && inv.PeriodEnd < inv.PeriodStart {
		return fmt.Errorf("invoice %s: period %s..%s ends before it starts", inv.Number, inv.PeriodStart, inv.PeriodEnd)
	}
	return nil
}

// InvoiceKey is the dedupe key of an invoice: a hash of provider, number,
// date, amount (canonical: 100 and 100.00 agree), currency and period. Title
// and note are left out, so importing a list again after fixing a title adds
// nothing. Two rows with the same number that differ in any keyed field are
// both kept, and reconciliation reports the number as invoiced twice.
func InvoiceKey(inv *Invoice) string {
	end := inv.PeriodEnd
	if end == "" {
		end = inv.PeriodStart
	}
	h := sha256.New()
	for _, s := range []string{"inv", inv.Provider, strings.TrimSpace(inv.Number), inv.Date, money.Canonical(inv.Amount),
		inv.Currency, inv.PeriodStart, end} {
		h.Write([]byte(s))
		h.Write([]byte{0x1f})
	}
	return "inv:" + hex.EncodeToString(h.Sum(nil)[:16])
}

// InsertInvoices writes a batch of invoices of an imported file (each with
// its ImportID set), ignoring known row keys (an empty RowKey gets
// InvoiceKey); it returns how many were new.
func (t *ImportTx) InsertInvoices(ctx context.Context, invs []Invoice) (int, error) {
	const q = `INSERT OR IGNORE INTO invoices(provider, number, date, amount, currency, title,
		period_start, period_end, note, raw, import_id, source_row, row_key, added_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`
	now := FormatTime(time.Now())
	added := 0
	for i := range invs {
		inv := &invs[i]
		if err := inv.Validate(); err != nil {
			return added, fmt.Errorf("ledger: %w", err)
		}
		if inv.PeriodStart != "" && inv.PeriodEnd == "" {
			inv.PeriodEnd = inv.PeriodStart
		}
		if inv.RowKey == "" {
			inv.RowKey = InvoiceKey(inv)
		}
		var importID any
		if inv.ImportID != 0 {
			importID = inv.ImportID
		}
		n, err := t.c.exec(ctx, q, inv.Provider, strings.TrimSpace(inv.Number), inv.Date, money.String(inv.Amount),
			inv.Currency, inv.Title, inv.PeriodStart, inv.PeriodEnd, inv.Note, jsonText(inv.Raw), importID, inv.SourceRow,
			inv.RowKey, now)
		if err != nil {
			return added, fmt.Errorf("ledger: insert invoice %s: %w", inv.Number, err)
		}
		added += int(n)
	}
	return added, nil
}

// InsertInvoices records invoices entered by hand (ImportID 0), in one
// transaction, ignoring known row keys; it returns how many were new.
func (db *DB) InsertInvoices(ctx context.Context, invs []Invoice) (int, error) {
	t, err := db.BeginImport(ctx)
	if err != nil {
		return 0, err
	}
	added, err := t.InsertInvoices(ctx, invs)
	if err != nil {
		t.Rollback()
		return 0, err
	}
	return added, t.Commit()
}

// RemoveInvoices removes the invoices ids, which must all have been added
// by hand (an imported one goes with its import: UndoImport): all of them
// in one transaction, or none.
func (db *DB) RemoveInvoices(ctx context.Context, ids []int64) error {
	tx, err := db.BeginTx(ctx)
	if err != nil {
		return fmt.Errorf("ledger: remove invoices: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM invoices WHERE import_id IS NULL AND id IN (`+placeholders(len(ids))+`)`, anys(ids)...)
	if err != nil {
		return fmt.Errorf("ledger: remove invoices: %w", err)
	}
	if n, _ := res.RowsAffected(); n != int64(len(slices.Compact(slices.Sorted(slices.Values(ids))))) {
		return fmt.Errorf("ledger: remove invoices: %d of the ids %v are invoices added by hand", n, ids)
	}
	return tx.Commit()
}

// InvoiceFilter selects invoices. Empty fields select everything.
type InvoiceFilter struct {
	Providers []string
	// Month selects the invoices whose period covers it, and those that state
	// no period and were issued in it.
	Month string
	// Months selects, like Month, the invoices that touch any of these
	// months (for invoices spanning several months); used with Month empty.
	Months []string
}

// Invoices returns the invoices selected by f, ordered by provider, period,
// date, number and id.
func (db *DB) Invoices(ctx context.Context, f InvoiceFilter) ([]Invoice, error) {
	var conds []string
	var args []any
	if len(f.Providers) > 0 {
		conds, args = append(conds, "i.provider IN ("+placeholders(len(f.Providers))+")"), anys(f.Providers)
	}
	months := f.Months
	if f.Month != "" {
		months = append([]string{f.Month}, months...)
	}
	if len(months) > 0 {
		var or []string
		for _, m := range months {
			or = append(or, "(i.period_start <> '' AND i.period_start <= ? AND ? <= i.period_end)",
				"(i.period_start = '' AND substr(i.date, 1, 7) = ?)")
			args = append(args, m, m, m)
		}
		conds = append(conds, "("+strings.Join(or, " OR ")+")")
	}
	q := `SELECT i.id, i.provider, i.number, i.date, i.amount, i.currency, i.title, i.period_start, i.period_end, i.note,
		i.raw, coalesce(i.import_id, 0), i.source_row, i.row_key, coalesce(im.path, ''), i.added_at
		FROM invoices i LEFT JOIN imports im ON im.id = i.import_id`
	if len(conds) > 0 {
		q += " WHERE " + strings.Join(conds, " AND ")
	}
	q += " ORDER BY i.provider, i.period_start, i.date, i.number, i.id"
	var out []Invoice
	err := eachRow(ctx, db.sql, "invoices", q, args, func(scan func(...any) error) error {
		var inv Invoice
		var amount, raw, added string
		if err := scan(&inv.ID, &inv.Provider, &inv.Number, &inv.Date, &amount, &inv.Currency, &inv.Title,
			&inv.PeriodStart, &inv.PeriodEnd, &inv.Note, &raw, &inv.ImportID, &inv.SourceRow, &inv.RowKey, &inv.File, &added); err != nil {
			return err
		}
		a, err := scanDec(&amount)
		if err != nil {
			return err
		}
		inv.Amount = a.Decimal
		if err := json.Unmarshal([]byte(raw), &inv.Raw); err != nil {
			return fmt.Errorf("ledger: invoice %d raw: %w", inv.ID, err)
		}
		if added != "" {
			if inv.AddedAt, err = ParseTime(added); err != nil {
				return fmt.Errorf("ledger: invoice %d: %w", inv.ID, err)
			}
		}
		out = append(out, inv)
		return nil
	})
	return out, err
}

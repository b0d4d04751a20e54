package ledger

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// PeriodKey is a provider and billing month.
type PeriodKey struct{ Provider, BillingPeriod string }

// Overlap is an earlier import, in another format, that brought line items
// for a provider and month an import also brings: likely the same charges
// twice.
type Overlap struct {
	PeriodKey
	ImportID int64
	Path     string
	Format   string
	Items    int
}

// AddImportPeriods records, for an import, how many line items of the file
// fall in each provider and month (see migration 0005).
func (t *ImportTx) AddImportPeriods(ctx context.Context, importID int64, counts map[PeriodKey]int) error {
	if len(counts) == 0 {
		return nil
	}
	const q = `INSERT INTO import_periods(import_id, provider, billing_period, line_items) VALUES (?, ?, ?, ?)
		ON CONFLICT(import_id, provider, billing_period) DO UPDATE SET line_items = line_items + excluded.line_items`
	for k, n := range counts {
		if _, err := t.c.exec(ctx, q, importID, k.Provider, k.BillingPeriod, n); err != nil {
			return fmt.Errorf("ledger: import periods: %w", err)
		}
	}
	return nil
}

// Overlaps lists the earlier imports in a format other than format that
// brought line items for one of keys, ordered by provider, month and import.
func (t *ImportTx) Overlaps(ctx context.Context, format string, keys []PeriodKey) ([]Overlap, error) {
	var out []Overlap
	for _, k := range keys {
		if err := t.c.query(ctx, `SELECT ip.import_id, im.path, im.format, ip.line_items
			FROM import_periods ip JOIN imports im ON im.id = ip.import_id
			WHERE ip.provider = ? AND ip.billing_period = ? AND im.format <> ? ORDER BY ip.import_id`,
			[]any{k.Provider, k.BillingPeriod, format}, func(r Row) error {
				out = append(out, Overlap{PeriodKey: k, ImportID: r.Int64(0), Path: r.Text(1), Format: r.Text(2), Items: int(r.Int64(3))})
				return nil
			}); err != nil {
			return nil, fmt.Errorf("ledger: import overlaps: %w", err)
		}
	}
	slices.SortStableFunc(out, func(a, b Overlap) int {
		return cmp.Or(strings.Compare(a.Provider, b.Provider), strings.Compare(a.BillingPeriod, b.BillingPeriod))
	})
	return out, nil
}

// reExportColumns are the columns of a line item's dedupe key but for the
// free text (description): two rows equal on all of them are the same
// charge, whatever note the vendor wrote on it each time.
var reExportColumns = []string{"provider", "resource_id", "charge_period_start", "billing_account_id", "kind",
	"charge_category", "charge_period_end", "usage_start", "usage_end", "pricing_quantity", "pricing_unit",
	"consumed_quantity", "consumed_unit", "list_unit_price", "list_cost", "billed_cost", "voucher_paid", "cash_paid", "currency"}

// DropReExported removes the line items that import importID added but that
// the ledger already held under other imports with only their free text
// changed (a re-export whose 说明 differs), and records them as claims of
// those rows (row_claims), so that they count as duplicates. Identical
// charges are matched by number: of n equal rows in the import, as many go
// as the ledger held before that this import did not already match by key.
// It looks only when other imports brought line items for one of the
// provider-months keys; it returns how many rows went and from which
// imports their twins came.
func (t *ImportTx) DropReExported(ctx context.Context, importID int64, keys []PeriodKey) (int, []int64, error) {
	other := false
	for _, k := range keys {
		if err := t.c.query(ctx, `SELECT 1 FROM import_periods WHERE provider = ? AND billing_period = ? AND import_id != ? LIMIT 1`,
			[]any{k.Provider, k.BillingPeriod, importID}, func(Row) error { other = true; return nil }); err != nil {
			return 0, nil, fmt.Errorf("ledger: re-exported rows: %w", err)
		}
	}
	if !other {
		return 0, nil, nil
	}
	// Each row's group: its key columns but the free text, as one text.
	var g []string
	for _, c := range reExportColumns {
		g = append(g, "coalesce("+c+", x'00')")
	}
	group := strings.Join(g, " || x'1f' || ")
	for _, q := range []string{
		`CREATE TEMP TABLE IF NOT EXISTS reexport_new(g TEXT, id INTEGER, source_row INTEGER)`,
		`CREATE TEMP TABLE IF NOT EXISTS reexport_old(g TEXT, id INTEGER, row_key TEXT, import_id INTEGER)`,
		`DELETE FROM reexport_new`, `DELETE FROM reexport_old`,
	} {
		if _, err := t.c.exec(ctx, q); err != nil {
			return 0, nil, fmt.Errorf("ledger: re-exported rows: %w", err)
		}
	}
	if _, err := t.c.exec(ctx, `INSERT INTO reexport_new SELECT `+group+`, id, source_row FROM line_items WHERE import_id = ?`, importID); err != nil {
		return 0, nil, fmt.Errorf("ledger: re-exported rows: %w", err)
	}
	// The rows of other imports in the same provider-months that this
	// import has not matched by key already.
	for _, k := range keys {
		if _, err := t.c.exec(ctx, `INSERT INTO reexport_old SELECT `+group+`, id, row_key, import_id FROM line_items li
			WHERE billing_period = ?1 AND provider = ?2 AND import_id != ?3
			AND NOT EXISTS (SELECT 1 FROM row_claims c WHERE c.tbl = 'line_items' AND c.row_key = li.row_key AND c.import_id = ?3)`,
			k.BillingPeriod, k.Provider, importID); err != nil {
			return 0, nil, fmt.Errorf("ledger: re-exported rows: %w", err)
		}
	}
	type twin struct {
		id, sourceRow, from int64
		key                 string
	}
	// The k-th row of a group in this import matches the k-th of the
	// group's unmatched rows before it, if there is one.
	var twins []twin
	if err := t.c.query(ctx, `SELECT n.id, n.source_row, o.row_key, o.import_id
		FROM (SELECT *, row_number() OVER (PARTITION BY g ORDER BY source_row, id) AS rn FROM reexport_new) n
		JOIN (SELECT *, row_number() OVER (PARTITION BY g ORDER BY id) AS rn FROM reexport_old) o ON o.g = n.g AND o.rn = n.rn
		ORDER BY n.id`, nil, func(r Row) error {
		twins = append(twins, twin{id: r.Int64(0), sourceRow: r.Int64(1), key: r.Text(2), from: r.Int64(3)})
		return nil
	}); err != nil {
		return 0, nil, fmt.Errorf("ledger: re-exported rows: %w", err)
	}
	for _, tw := range twins {
		if _, err := t.c.exec(ctx, `INSERT OR IGNORE INTO row_claims(tbl, row_key, import_id, source_row) VALUES ('line_items', ?, ?, ?)`,
			tw.key, importID, tw.sourceRow); err != nil {
			return 0, nil, fmt.Errorf("ledger: re-exported rows: %w", err)
		}
	}
	for _, q := range []string{`DELETE FROM reexport_new`, `DELETE FROM reexport_old`} {
		if _, err := t.c.exec(ctx, q); err != nil {
			return 0, nil, fmt.Errorf("ledger: re-exported rows: %w", err)
		}
	}
	var from []int64
	for _, tw := range twins {
		if _, err := t.c.exec(ctx, `DELETE FROM line_items WHERE id = ?`, tw.id); err != nil {
			return 0, nil, fmt.Errorf("ledger: re-exported rows: %w", err)
		}
		from = append(from, tw.from)
	}
	slices.Sort(from)
	return len(twins), slices.Compact(from), nil
}

// PeriodImport is, for a provider, billing period and import format, the
// latest start of an import of that format that brought line items for
// the period (package billing works out from it how far bills cover).
type PeriodImport struct {
	PeriodKey
	Format  string
	Started time.Time // zero when the stored time does not read
}

// PeriodImports lists the PeriodImport of every provider, billing period
// and one of formats.
func (db *DB) PeriodImports(ctx context.Context, formats []string) ([]PeriodImport, error) {
	if len(formats) == 0 {
		return nil, nil
	}
	q := `SELECT ip.provider, ip.billing_period, im.format, max(im.started_at)
		FROM import_periods ip JOIN imports im ON im.id = ip.import_id
		WHERE im.format IN (` + placeholders(len(formats)) + `)
		GROUP BY ip.provider, ip.billing_period, im.format`
	var out []PeriodImport
	err := eachRow(ctx, db.sql, "period imports", q, anys(formats), func(scan func(...any) error) error {
		var p PeriodImport
		var started string
		if err := scan(&p.Provider, &p.BillingPeriod, &p.Format, &started); err != nil {
			return err
		}
		p.Started, _ = ParseTime(started)
		out = append(out, p)
		return nil
	})
	return out, err
}

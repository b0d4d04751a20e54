package ledger

import (
	"context"
	"fmt"
	"sort"
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
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Provider != b.Provider {
			return a.Provider < b.Provider
		}
		return a.BillingPeriod < b.BillingPeriod
	})
	return out, nil
}

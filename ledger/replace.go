package ledger

import (
	"context"
	"fmt"
)

// RemoveImport removes, inside the import transaction, an earlier import
// record and every row it added, and returns how many rows went: a fetch of
// a month that was provisional replaces the lines of the earlier fetch in
// the same transaction that writes the new ones (DB.UndoImport does the same
// in a transaction of its own). The end of data is recomputed from what is
// left; the rows written after it raise it again at commit.
func (t *ImportTx) RemoveImport(ctx context.Context, id int64) (removed int64, err error) {
	for _, table := range []string{"line_items", "transactions", "payments", "invoices", "import_periods"} {
		n, err := t.c.exec(ctx, `DELETE FROM `+table+` WHERE import_id = ?`, id)
		if err != nil {
			return 0, fmt.Errorf("ledger: replace import %d: %w", id, err)
		}
		if table != "import_periods" {
			removed += n
		}
	}
	if _, err := t.c.exec(ctx, `DELETE FROM imports WHERE id = ?`, id); err != nil {
		return 0, fmt.Errorf("ledger: replace import %d: %w", id, err)
	}
	if _, err := t.c.exec(ctx, `DELETE FROM data_ends`); err != nil {
		return 0, fmt.Errorf("ledger: end of data: %w", err)
	}
	if _, err := t.c.exec(ctx, `INSERT INTO data_ends(provider, charge_period_end)
		SELECT provider, max(charge_period_end) FROM line_items GROUP BY provider`); err != nil {
		return 0, fmt.Errorf("ledger: end of data: %w", err)
	}
	return removed, nil
}

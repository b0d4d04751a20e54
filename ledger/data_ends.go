package ledger

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The end of the data: per provider, the latest charge period end in the
// ledger (migration 0007). Stored times compare as text (TimeLayout), so
// the ledger keeps the largest text.

// noteEnds raises t.ends to the charge period ends of rows.
func (t *ImportTx) noteEnds(rows []lineItemRow) {
	if t.ends == nil {
		t.ends = map[string]string{}
	}
	providerAt, periodEndAt := insertAt("provider"), insertAt("charge_period_end")
	for i := range rows {
		p, end := rows[i].col(providerAt), rows[i].col(periodEndAt)
		if cur, ok := t.ends[p]; !ok || end > cur {
			// Copies: the row's texts live in its batch's arena.
			t.ends[strings.Clone(p)] = strings.Clone(end)
		}
	}
}

// RaiseDataEnd raises the end of the data of provider to end when it is
// later: for a file that states how far its data reaches beyond its own
// charges (gpubill's export carries the ledger's end of data).
func (t *ImportTx) RaiseDataEnd(provider string, end time.Time) {
	if t.ends == nil {
		t.ends = map[string]string{}
	}
	if s := FormatTime(end); s > t.ends[provider] {
		t.ends[provider] = s
	}
}

// saveEnds writes t.ends into data_ends, keeping a later end stored there.
func (t *ImportTx) saveEnds(ctx context.Context) error {
	for p, end := range t.ends {
		if _, err := t.c.exec(ctx, `INSERT INTO data_ends(provider, charge_period_end) VALUES (?, ?)
			ON CONFLICT(provider) DO UPDATE SET charge_period_end = max(charge_period_end, excluded.charge_period_end)`, p, end); err != nil {
			return fmt.Errorf("ledger: end of data: %w", err)
		}
	}
	return nil
}

// recomputeEnds set data_ends from the line items (after rows went away).
var recomputeEnds = []string{`DELETE FROM data_ends`, `INSERT INTO data_ends(provider, charge_period_end)
	SELECT provider, max(charge_period_end) FROM line_items GROUP BY provider`}

// DataEnds returns, per provider, the latest charge period end of its line
// items in the whole ledger.
func (db *DB) DataEnds(ctx context.Context) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	err := eachRow(ctx, db.sql, "end of data", `SELECT provider, charge_period_end FROM data_ends`, nil, func(scan func(...any) error) error {
		var p, e string
		if err := scan(&p, &e); err != nil {
			return err
		}
		t, err := ParseTime(e)
		if err != nil {
			return fmt.Errorf("ledger: end of data of %s: %w", p, err)
		}
		out[p] = t
		return nil
	})
	return out, err
}

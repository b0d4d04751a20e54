package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// RawCells returns the source cells (line_items.raw) of the line items
// whose id is in ids, by id; items without cells, or gone, are absent. For
// the few rows a report cites (a ticket's evidence), not for a month.
func (db *DB) RawCells(ctx context.Context, ids []int64) (map[int64][]string, error) {
	out := make(map[int64][]string, len(ids))
	for start := 0; start < len(ids); start += byIDChunk {
		chunk := ids[start:min(start+byIDChunk, len(ids))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		q := `SELECT id, raw FROM line_items WHERE id IN (?` + strings.Repeat(",?", len(chunk)-1) + `)`
		rows, err := db.sql.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("ledger: raw cells: %w", err)
		}
		for rows.Next() {
			var id int64
			var raw []byte
			if err := rows.Scan(&id, &raw); err != nil {
				rows.Close()
				return nil, fmt.Errorf("ledger: raw cells: %w", err)
			}
			if len(raw) == 0 || string(raw) == "[]" {
				continue
			}
			var cells []string
			if err := json.Unmarshal(raw, &cells); err != nil {
				rows.Close()
				return nil, fmt.Errorf("ledger: line item %d raw: %w", id, err)
			}
			out[id] = cells
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("ledger: raw cells: %w", err)
		}
	}
	return out, nil
}

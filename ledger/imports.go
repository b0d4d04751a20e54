package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// Imports lists the import records, newest first (all when limit <= 0).
func (db *DB) Imports(ctx context.Context, limit int) ([]Import, error) {
	q := `SELECT id, path, sha256, size, format, format_version, sheet, header, header_row, rows_read, rows_new,
		rows_duplicate, rows_skipped, started_at, coalesce(finished_at, ''), status, row_map FROM imports ORDER BY id DESC`
	var args []any
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	var out []Import
	err := eachRow(ctx, db.sql, "imports", q, args, func(scan func(...any) error) error {
		var im Import
		var header, started, finished string
		var rowMap sql.NullString
		err := scan(&im.ID, &im.Path, &im.SHA256, &im.Size, &im.Format, &im.FormatVersion, &im.Sheet, &header,
			&im.HeaderRow, &im.RowsRead, &im.RowsNew, &im.RowsDuplicate, &im.RowsSkipped, &started, &finished, &im.Status, &rowMap)
		if err != nil {
			return err
		}
		if rowMap.Valid {
			if err := json.Unmarshal([]byte(rowMap.String), &im.RowMap); err != nil {
				return fmt.Errorf("ledger: import %d row map: %w", im.ID, err)
			}
			im.RowMapped = true
		}
		if err := json.Unmarshal([]byte(header), &im.Header); err != nil {
			return fmt.Errorf("ledger: import %d header: %w", im.ID, err)
		}
		if im.StartedAt, err = ParseTime(started); err != nil {
			return fmt.Errorf("ledger: import %d: %w", im.ID, err)
		}
		if finished != "" {
			if im.FinishedAt, err = ParseTime(finished); err != nil {
				return fmt.Errorf("ledger: import %d: %w", im.ID, err)
			}
		}
		out = append(out, im)
		return nil
	})
	return out, err
}

// UndoImport removes one import record and every row it added (line items,
// money flow, payments), in one transaction, and returns how many rows went.
// Rows that the import only found as duplicates belong to the earlier import
// and stay; rows it stored that a later import also brought (row_claims)
// stay too, handed to that import. Findings are not touched: the next audit
// recomputes them.
func (db *DB) UndoImport(ctx context.Context, id int64) (removed int64, err error) {
	tx, err := db.BeginTx(ctx)
	if err != nil {
		return 0, fmt.Errorf("ledger: undo import: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	var one int
	if err = tx.QueryRowContext(ctx, `SELECT 1 FROM imports WHERE id = ?`, id).Scan(&one); err == sql.ErrNoRows {
		return 0, fmt.Errorf("no import with id %d", id)
	} else if err != nil {
		return 0, fmt.Errorf("ledger: undo import: %w", err)
	}
	// Rows another import brought too go to the earliest such import, with
	// the record number they have in its file, instead of going away.
	for _, table := range []string{"line_items", "transactions", "payments"} {
		claimed := `FROM row_claims c WHERE c.tbl = '` + table + `' AND c.row_key = ` + table + `.row_key AND c.import_id != ?1`
		if _, err = tx.ExecContext(ctx, `UPDATE `+table+` SET
			import_id = (SELECT c.import_id `+claimed+` ORDER BY c.import_id LIMIT 1),
			source_row = (SELECT c.source_row `+claimed+` ORDER BY c.import_id LIMIT 1)
			WHERE import_id = ?1 AND EXISTS (SELECT 1 `+claimed+`)`, id); err != nil {
			return 0, fmt.Errorf("ledger: undo import %d: %w", id, err)
		}
		if _, err = tx.ExecContext(ctx, `DELETE FROM row_claims WHERE tbl = ?1 AND EXISTS
			(SELECT 1 FROM `+table+` x WHERE x.row_key = row_claims.row_key AND x.import_id = row_claims.import_id)`, table); err != nil {
			return 0, fmt.Errorf("ledger: undo import %d: %w", id, err)
		}
	}
	if _, err = tx.ExecContext(ctx, `DELETE FROM row_claims WHERE import_id = ?`, id); err != nil {
		return 0, fmt.Errorf("ledger: undo import %d: %w", id, err)
	}
	for _, table := range []string{"line_items", "transactions", "payments", "invoices"} {
		res, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE import_id = ?`, id)
		if err != nil {
			return 0, fmt.Errorf("ledger: undo import %d: %w", id, err)
		}
		n, _ := res.RowsAffected()
		removed += n
	}
	if _, err = tx.ExecContext(ctx, `DELETE FROM imports WHERE id = ?`, id); err != nil {
		return 0, fmt.Errorf("ledger: undo import %d: %w", id, err)
	}
	for _, q := range recomputeEnds {
		if _, err = tx.ExecContext(ctx, q); err != nil {
			return 0, fmt.Errorf("ledger: end of data: %w", err)
		}
	}
	if err = tx.Commit(); err != nil {
		return 0, fmt.Errorf("ledger: undo import %d: %w", id, err)
	}
	return removed, nil
}

// RowOf is the row a person sees, opening the imported file in a
// spreadsheet, of the record-th record after the header (a line item's
// SourceRow): the header's row plus the record number, as adjusted by
// RowMap. ok is false when the import recorded no mapping (made before
// migration 0011, or a JSON or Parquet file, which have no rows).
func (im *Import) RowOf(record int) (row int, ok bool) {
	if !im.RowMapped || im.HeaderRow <= 0 || record <= 0 {
		return 0, false
	}
	row = im.HeaderRow + record
	for _, m := range im.RowMap {
		if m[0] > record {
			break
		}
		row = m[1] + record - m[0]
	}
	return row, true
}

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
	for _, q := range recomputeEnds {
		if _, err := t.c.exec(ctx, q); err != nil {
			return 0, fmt.Errorf("ledger: end of data: %w", err)
		}
	}
	return removed, nil
}

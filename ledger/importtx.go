package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gpubill/gpubill/money"
	"zombiezen.com/go/sqlite"
)

// ImportTx writes one file's rows in one database transaction: either every
// row of the file lands, or (Rollback, or a crash) none does. A file may hold
// several tables (XLSX sheets, zip members): each gets its own imports record
// through AddImport, all inside the same transaction.
//
// The transaction runs on a connection of its own (liteConn), closed by
// Commit or Rollback: one of them must be called.
type ImportTx struct {
	c        *liteConn
	inserts  map[insertShape]string // multi-row INSERTs by row count and omitted columns
	deferred []string               // CREATE INDEX statements to run again before commit
	// rollbackJournal: the ledger left WAL for this import (ImportOptions.Bulk).
	rollbackJournal bool
	// ends is the latest charge period end per provider of the rows written
	// (data_ends.go).
	ends map[string]string
}

// ImportOptions tune the transaction of one import.
type ImportOptions struct {
	// Bulk marks a big file. Into a ledger without line items, it is written
	// with a rollback journal instead of the WAL, so that its pages reach the
	// disk once, not twice; WAL comes back when the transaction ends (after a
	// crash, at the next Open). Other connections wait meanwhile.
	Bulk bool
}

// BeginImport starts the transaction of one file, waiting for another
// writer as the ledger's other write transactions do.
func (db *DB) BeginImport(ctx context.Context) (*ImportTx, error) {
	return db.BeginImportWith(ctx, ImportOptions{})
}

// BeginImportWith is BeginImport with options.
func (db *DB) BeginImportWith(ctx context.Context, opts ImportOptions) (*ImportTx, error) {
	c, err := openLite(db.path, sqlite.OpenReadWrite)
	if err != nil {
		return nil, err
	}
	t := &ImportTx{c: c, inserts: map[insertShape]string{}}
	if opts.Bulk {
		t.rollbackJournal = db.leaveWAL(ctx, c)
	}
	if err := c.begin(ctx, &db.wait); err != nil {
		t.restoreWAL()
		c.close()
		return nil, fmt.Errorf("ledger: begin import: %w", err)
	}
	return t, nil
}

// leaveWAL switches the ledger to a rollback journal if it holds no line
// items and no other connection has it open, and reports whether it did.
func (db *DB) leaveWAL(ctx context.Context, c *liteConn) bool {
	var empty bool
	if err := c.query(ctx, `SELECT NOT EXISTS (SELECT 1 FROM line_items)`, nil, func(r Row) error {
		empty = r.Int64(0) == 1
		return nil
	}); err != nil || !empty {
		return false
	}
	// An idle connection of the pool keeps the WAL open, which forbids
	// leaving it: close them (the pool opens new ones when needed).
	db.sql.SetMaxIdleConns(0)
	defer db.sql.SetMaxIdleConns(2) // database/sql's default
	var mode string
	if err := c.query(ctx, `PRAGMA journal_mode = DELETE`, nil, func(r Row) error {
		mode = r.Text(0)
		return nil
	}); err != nil {
		return false
	}
	return mode == "delete"
}

// restoreWAL puts the ledger back in WAL mode after a rollback-journal
// import. A failure is left for the next Open, which sets WAL again.
func (t *ImportTx) restoreWAL() {
	if t.rollbackJournal {
		t.rollbackJournal = false
		_ = t.c.query(context.Background(), `PRAGMA journal_mode = WAL`, nil, func(Row) error { return nil })
	}
}

// AddImport records one imported table and sets imp.ID; rows written for it
// carry that id in their ImportID.
func (t *ImportTx) AddImport(ctx context.Context, imp *Import) error {
	if imp.StartedAt.IsZero() {
		imp.StartedAt = time.Now()
	}
	if _, err := t.c.exec(ctx, `INSERT INTO imports(path, sha256, size, format, format_version, sheet, header, header_row, started_at, status)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'running')`,
		imp.Path, imp.SHA256, imp.Size, imp.Format, imp.FormatVersion, imp.Sheet, jsonText(imp.Header), imp.HeaderRow, FormatTime(imp.StartedAt)); err != nil {
		return fmt.Errorf("ledger: record import: %w", err)
	}
	imp.ID = t.c.lastInsertID()
	return nil
}

// FinishImport records the final counts of one table (status "ok").
func (t *ImportTx) FinishImport(ctx context.Context, imp *Import) error {
	if imp.FinishedAt.IsZero() {
		imp.FinishedAt = time.Now()
	}
	imp.Status = "ok"
	imp.RowMapped = true
	if _, err := t.c.exec(ctx, `UPDATE imports SET rows_read=?, rows_new=?, rows_duplicate=?, rows_skipped=?,
		finished_at=?, status=?, row_map=? WHERE id=?`,
		imp.RowsRead, imp.RowsNew, imp.RowsDuplicate, imp.RowsSkipped, FormatTime(imp.FinishedAt), imp.Status, jsonText(imp.RowMap), imp.ID); err != nil {
		return fmt.Errorf("ledger: finish import: %w", err)
	}
	return nil
}

// LineItemCount is the number of line items in the ledger (as this
// transaction sees it); importers use it to decide on DeferIndexes.
func (t *ImportTx) LineItemCount(ctx context.Context) (int64, error) {
	var n int64
	// max(id) is an O(1) look-up, and ids are never reused below it.
	if err := t.c.query(ctx, `SELECT max(id) FROM line_items`, nil, func(r Row) error {
		n = r.Int64(0)
		return nil
	}); err != nil {
		return 0, fmt.Errorf("ledger: %w", err)
	}
	return n, nil
}

// DeferIndexes drops the secondary indexes of line_items (but liveIndexes)
// for the rest of the transaction and builds them again in Commit: for a
// file bigger than the ledger, building an index once over sorted data is
// cheaper than updating it row by row. The unique dedupe index goes too only
// with unique set, for an empty ledger, where a file's keys cannot repeat a
// stored one. A rollback or a crash leaves the indexes as they were. The
// page cache shrinks to deferredCacheKiB meanwhile: SQLite's sorter keeps as
// much in memory per sort thread as the page cache holds, and the rows go in
// at the table's right edge, which needs few pages.
func (t *ImportTx) DeferIndexes(ctx context.Context, unique bool) error {
	if t.deferred != nil {
		return nil
	}
	var names []string
	t.deferred = []string{}
	if err := t.c.query(ctx, `SELECT name, sql FROM sqlite_master
		WHERE type = 'index' AND tbl_name = 'line_items' AND sql IS NOT NULL ORDER BY name`, nil, func(r Row) error {
		name, ddl := r.Text(0), r.Text(1)
		if !unique && strings.HasPrefix(strings.ToUpper(ddl), "CREATE UNIQUE") || liveIndexes[name] {
			return nil
		}
		names = append(names, name)
		t.deferred = append(t.deferred, ddl)
		return nil
	}); err != nil {
		return fmt.Errorf("ledger: defer indexes: %w", err)
	}
	for _, name := range names {
		if _, err := t.c.exec(ctx, `DROP INDEX "`+name+`"`); err != nil {
			return fmt.Errorf("ledger: defer index %s: %w", name, err)
		}
	}
	if len(names) > 0 {
		if _, err := t.c.exec(ctx, fmt.Sprintf("PRAGMA cache_size = -%d", deferredCacheKiB)); err != nil {
			return fmt.Errorf("ledger: defer indexes: %w", err)
		}
	}
	return nil
}

// deferredCacheKiB is the page cache of an import that builds indexes at
// commit (peak memory: see DeferIndexes).
const deferredCacheKiB = 4096

// liveIndexes stay in place during a bulk import. line_items_month: a bill's
// rows come in time order, so its entries go in at the right edge of the
// index, which is cheap.
var liveIndexes = map[string]bool{"line_items_month": true}

// Commit builds any deferred indexes and commits every row of the file.
func (t *ImportTx) Commit() error {
	defer t.c.close()
	ctx := context.Background()
	if err := t.saveEnds(ctx); err != nil {
		t.rollback()
		return err
	}
	for _, ddl := range t.deferred {
		if _, err := t.c.exec(ctx, ddl); err != nil {
			t.rollback()
			return fmt.Errorf("ledger: rebuild index: %w", err)
		}
	}
	if _, err := t.c.exec(ctx, "COMMIT"); err != nil {
		t.rollback()
		return fmt.Errorf("ledger: commit import: %w", err)
	}
	t.restoreWAL()
	return nil
}

// Rollback discards every row written in this transaction (used on error
// and for dry runs).
func (t *ImportTx) Rollback() error {
	defer t.c.close()
	return t.rollback()
}

func (t *ImportTx) rollback() error {
	defer t.restoreWAL()
	if !t.c.inTx() {
		return nil // SQLite rolled back already (after some errors)
	}
	if _, err := t.c.exec(context.Background(), "ROLLBACK"); err != nil {
		return fmt.Errorf("ledger: rollback import: %w", err)
	}
	return nil
}

// lineItemsPerInsert is the number of rows of one multi-row INSERT (the
// fastest of those tried).
const lineItemsPerInsert = 32

// insertShape is what an INSERT of line items depends on: its number of
// rows and the columns it leaves to their defaults (omittedColumns).
type insertShape struct {
	n    int
	omit uint64
}

// maxInsertShapes bounds the INSERTs an import prepares (each is kept, and
// its prepared statement, until the import ends): a file's rows leave a
// few sets of columns empty, but one that varies them without end gets the
// INSERT of every column past the bound.
const maxInsertShapes = 32

// lineItemInsert returns the INSERT of n line items that leaves the columns
// of omit to their defaults.
func (t *ImportTx) lineItemInsert(n int, omit uint64) string {
	shape := insertShape{n, omit}
	if q, ok := t.inserts[shape]; ok {
		return q
	}
	var names []string
	for col, c := range inserted {
		if omit&(1<<col) == 0 {
			names = append(names, c.name)
		}
	}
	row := "(" + placeholders(len(names)) + ")"
	q := "INSERT OR IGNORE INTO line_items(" + strings.Join(names, ",") + ") VALUES " + row + strings.Repeat(","+row, n-1)
	t.inserts[shape] = q
	return q
}

// InsertLineItems writes a batch of line items (each with its ImportID set),
// ignoring rows whose row_key is already in the ledger; it returns how many
// were new.
func (t *ImportTx) InsertLineItems(ctx context.Context, items []LineItem) (int, error) {
	var rows LineItemRows
	for i := range items {
		rows.Append(&items[i])
	}
	return t.InsertLineItemRows(ctx, &rows)
}

// InsertLineItemRows writes a batch of rendered line items, ignoring rows
// whose row_key is already in the ledger; it returns how many were new.
func (t *ImportTx) InsertLineItemRows(ctx context.Context, batch *LineItemRows) (int, error) {
	added := 0
	rows := batch.rows
	t.noteEnds(rows)
	for len(rows) > 0 {
		n := min(len(rows), lineItemsPerInsert)
		omit := omittedColumns(rows[:n])
		if _, known := t.inserts[insertShape{n, omit}]; !known && len(t.inserts) >= maxInsertShapes {
			omit = 0 // a file whose rows leave ever other columns empty
		}
		k, err := t.c.insertRows(ctx, t.lineItemInsert(n, omit), rows[:n], omit)
		if err != nil {
			return added, fmt.Errorf("ledger: insert line items: %w", err)
		}
		if int(k) < n {
			claims := make([]rowClaim, n)
			key, imp, src, line := insertAt("row_key"), insertAt("import_id"), insertAt("source_row"), insertAt("line_key")
			for i := range rows[:n] {
				claims[i] = rowClaim{rows[i].col(key), rows[i].ints[imp], rows[i].ints[src], rows[i].col(line)}
			}
			if err := t.claim(ctx, "line_items", claims); err != nil {
				return added, err
			}
		}
		added += int(k)
		rows = rows[n:]
	}
	return added, nil
}

// InsertTransactions writes a batch of money-flow rows, ignoring known
// row keys; it returns how many were new.
func (t *ImportTx) InsertTransactions(ctx context.Context, txs []Transaction) (int, error) {
	return insertEach(ctx, t, "transactions", `INSERT OR IGNORE INTO transactions(provider, account, time, type, amount, currency,
		balance, reference, description, raw, import_id, source_row, row_key) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		txs, func(x *Transaction) ([]any, rowClaim) {
			return []any{x.Provider, x.Account, FormatTime(x.Time), x.Type, money.String(x.Amount), x.Currency, nullDec(x.Balance),
				x.Reference, x.Description, jsonText(x.Raw), x.ImportID, x.SourceRow, x.RowKey}, rowClaim{x.RowKey, x.ImportID, int64(x.SourceRow), ""}
		})
}

// InsertPayments writes a batch of payment records, ignoring known row
// keys; it returns how many were new.
func (t *ImportTx) InsertPayments(ctx context.Context, ps []Payment) (int, error) {
	return insertEach(ctx, t, "payments", `INSERT OR IGNORE INTO payments(source, time, direction, counterparty, item,
		amount, currency, status, order_no, merchant_order_no, raw, import_id, source_row, row_key)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		ps, func(p *Payment) ([]any, rowClaim) {
			return []any{p.Source, FormatTime(p.Time), p.Direction, p.Counterparty, p.Item, money.String(p.Amount), p.Currency,
				p.Status, p.OrderNo, p.MerchantOrderNo, jsonText(p.Raw), p.ImportID, p.SourceRow, p.RowKey}, rowClaim{p.RowKey, p.ImportID, int64(p.SourceRow), ""}
		})
}

// insertEach runs the INSERT OR IGNORE q into table for each of rows with
// the arguments args gives, claims the rows the table held already, and
// returns how many were new.
func insertEach[T any](ctx context.Context, t *ImportTx, table, q string, rows []T, args func(*T) ([]any, rowClaim)) (int, error) {
	added := 0
	for i := range rows {
		a, c := args(&rows[i])
		n, err := t.c.exec(ctx, q, a...)
		if err != nil {
			return added, fmt.Errorf("ledger: insert into %s: %w", table, err)
		}
		if n == 0 {
			if err := t.claim(ctx, table, []rowClaim{c}); err != nil {
				return added, err
			}
		}
		added += int(n)
	}
	return added, nil
}

// jsonText is v as JSON text, a nil slice as [] (raw cells, headers, row
// maps).
func jsonText[T any](v []T) string {
	if v == nil {
		return "[]"
	}
	b, _ := json.Marshal(v) // slices of strings and ints always encode
	return string(b)
}

// rowClaim is a row an import brought, by key, with its record number;
// lineKey is a line item's vendor line id ("" for none, and for the other
// tables).
type rowClaim struct {
	key       string
	importID  int64
	sourceRow int64
	lineKey   string
}

// claim records, for each of rows that the table already holds under
// another import, that this import brought it too (row_claims); rows that
// are not in the table, or are there under the same import, are left out.
// It runs only for batches in which some rows were duplicates. A line item
// that was a duplicate by its line key alone claims the stored row under
// that row's own row_key, which is what UndoImport hands over.
func (t *ImportTx) claim(ctx context.Context, table string, rows []rowClaim) error {
	for len(rows) > 0 {
		n := min(len(rows), 240) // 4 parameters a row, under SQLite's 999
		var b strings.Builder
		args := make([]any, 0, 4*n+1)
		b.WriteString(`WITH v(k, imp, src, lk) AS (VALUES `)
		for i, r := range rows[:n] {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("(?,?,?,?)")
			args = append(args, r.key, r.importID, r.sourceRow, r.lineKey)
		}
		b.WriteString(`) INSERT OR IGNORE INTO row_claims(tbl, row_key, import_id, source_row)
			SELECT '` + table + `', x.row_key, v.imp, v.src FROM v JOIN ` + table + ` x ON x.row_key = v.k WHERE x.import_id != v.imp`)
		if table == "line_items" {
			b.WriteString(` UNION ALL SELECT 'line_items', x.row_key, v.imp, v.src FROM v JOIN line_items x
				ON x.line_key <> '' AND x.line_key = v.lk WHERE v.lk <> '' AND x.import_id != v.imp`)
		}
		if _, err := t.c.exec(ctx, b.String(), args...); err != nil {
			return fmt.Errorf("ledger: record duplicate rows: %w", err)
		}
		rows = rows[n:]
	}
	return nil
}

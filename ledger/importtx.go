package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// ImportTx writes one file's rows in one database transaction: either every
// row of the file lands, or (Rollback, or a crash) none does. A file may hold
// several tables (XLSX sheets, zip members): each gets its own imports record
// through AddImport, all inside the same transaction.
type ImportTx struct {
	tx       *sql.Tx
	stmts    map[int]*sql.Stmt // multi-row INSERTs by row count, prepared once
	deferred []string          // CREATE INDEX statements to run again before commit
}

// BeginImport starts the transaction of one file.
func (db *DB) BeginImport(ctx context.Context) (*ImportTx, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("ledger: begin import: %w", err)
	}
	return &ImportTx{tx: tx, stmts: map[int]*sql.Stmt{}}, nil
}

// AddImport records one imported table and sets imp.ID; rows written for it
// carry that id in their ImportID.
func (t *ImportTx) AddImport(ctx context.Context, imp *Import) error {
	header, _ := json.Marshal(nonNil(imp.Header))
	if imp.StartedAt.IsZero() {
		imp.StartedAt = time.Now()
	}
	res, err := t.tx.ExecContext(ctx, `INSERT INTO imports(path, sha256, size, format, format_version, sheet, header, header_row, started_at, status)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'running')`,
		imp.Path, imp.SHA256, imp.Size, imp.Format, imp.FormatVersion, imp.Sheet, string(header), imp.HeaderRow, FormatTime(imp.StartedAt))
	if err != nil {
		return fmt.Errorf("ledger: record import: %w", err)
	}
	if imp.ID, err = res.LastInsertId(); err != nil {
		return fmt.Errorf("ledger: record import: %w", err)
	}
	return nil
}

// FinishImport records the final counts of one table (status "ok").
func (t *ImportTx) FinishImport(ctx context.Context, imp *Import) error {
	if imp.FinishedAt.IsZero() {
		imp.FinishedAt = time.Now()
	}
	imp.Status = "ok"
	if _, err := t.tx.ExecContext(ctx, `UPDATE imports SET rows_read=?, rows_new=?, rows_duplicate=?, rows_skipped=?,
		finished_at=?, status=? WHERE id=?`,
		imp.RowsRead, imp.RowsNew, imp.RowsDuplicate, imp.RowsSkipped, FormatTime(imp.FinishedAt), imp.Status, imp.ID); err != nil {
		return fmt.Errorf("ledger: finish import: %w", err)
	}
	return nil
}

// LineItemCount is the number of line items in the ledger (as this
// transaction sees it); importers use it to decide on DeferIndexes.
func (t *ImportTx) LineItemCount(ctx context.Context) (int64, error) {
	var n sql.NullInt64
	// max(id) is an O(1) look-up, and ids are never reused below it.
	if err := t.tx.QueryRowContext(ctx, `SELECT max(id) FROM line_items`).Scan(&n); err != nil {
		return 0, fmt.Errorf("ledger: %w", err)
	}
	return n.Int64, nil
}

// DeferIndexes drops the secondary indexes of line_items for the rest of the
// transaction and builds them again in Commit. For a bulk import into a ledger
// that holds fewer rows than the file, building an index once over sorted
// data is much cheaper than updating it row by row. The unique dedupe index
// is dropped too only with unique set, which is for an empty ledger: there a
// file's rows cannot repeat a stored key, and the keys of one file are unique
// by construction, so the rebuilt unique index refuses only a broken import.
// Otherwise it stays, so duplicates are still ignored row by row. Being inside
// the transaction, a rollback or a crash leaves the indexes as they were.
func (t *ImportTx) DeferIndexes(ctx context.Context, unique bool) error {
	if t.deferred != nil {
		return nil
	}
	rows, err := t.tx.QueryContext(ctx, `SELECT name, sql FROM sqlite_master
		WHERE type = 'index' AND tbl_name = 'line_items' AND sql IS NOT NULL ORDER BY name`)
	if err != nil {
		return fmt.Errorf("ledger: defer indexes: %w", err)
	}
	var names []string
	t.deferred = []string{}
	for rows.Next() {
		var name, ddl string
		if err := rows.Scan(&name, &ddl); err != nil {
			rows.Close()
			return fmt.Errorf("ledger: defer indexes: %w", err)
		}
		if !unique && strings.HasPrefix(strings.ToUpper(ddl), "CREATE UNIQUE") {
			continue
		}
		names = append(names, name)
		t.deferred = append(t.deferred, ddl)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("ledger: defer indexes: %w", err)
	}
	for _, name := range names {
		if _, err := t.tx.ExecContext(ctx, `DROP INDEX "`+name+`"`); err != nil {
			return fmt.Errorf("ledger: defer index %s: %w", name, err)
		}
	}
	return nil
}

// Commit builds any deferred indexes and commits every row of the file.
func (t *ImportTx) Commit() error {
	for _, ddl := range t.deferred {
		if _, err := t.tx.Exec(ddl); err != nil {
			t.tx.Rollback()
			return fmt.Errorf("ledger: rebuild index: %w", err)
		}
	}
	if err := t.tx.Commit(); err != nil {
		return fmt.Errorf("ledger: commit import: %w", err)
	}
	return nil
}

// Rollback discards every row written in this transaction (used on error
// and for dry runs).
func (t *ImportTx) Rollback() error { return t.tx.Rollback() }

// LineItemArgs is the number of values AppendLineItemArgs appends per line
// item: the columns InsertLineItemArgs writes.
const LineItemArgs = 39

// maxBatch keeps a multi-row INSERT under SQLite's 32766 bound variables.
const maxBatch = 32766 / LineItemArgs

// lineItemStmt returns the prepared INSERT of n line items.
func (t *ImportTx) lineItemStmt(ctx context.Context, n int) (*sql.Stmt, error) {
	if st, ok := t.stmts[n]; ok {
		return st, nil
	}
	var b strings.Builder
	b.WriteString(`INSERT OR IGNORE INTO line_items(provider, billing_account_id, sub_account, billing_period,
		charge_period_start, charge_period_end, charge_category, kind, pricing_model, service_name,
		resource_id, resource_name, resource_type, sku, parent_resource_id, gpu_model, gpu_count, region, zone,
		consumed_quantity, consumed_unit, pricing_quantity, pricing_unit, list_unit_price, list_cost, billed_cost,
		voucher_paid, cash_paid, other_paid, unpaid, currency, usage_start, usage_end, tags, description, raw,
		import_id, source_row, row_key) VALUES `)
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", LineItemArgs), ",") + ")"
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(row)
	}
	st, err := t.tx.PrepareContext(ctx, b.String())
	if err != nil {
		return nil, fmt.Errorf("ledger: prepare insert: %w", err)
	}
	t.stmts[n] = st
	return st, nil
}

// InsertLineItems writes a batch of line items (each with its ImportID set),
// ignoring rows whose row_key is already in the ledger; it returns how many
// were new.
func (t *ImportTx) InsertLineItems(ctx context.Context, items []LineItem) (int, error) {
	args := make([]any, 0, len(items)*LineItemArgs)
	for i := range items {
		var err error
		if args, err = AppendLineItemArgs(args, &items[i]); err != nil {
			return 0, err
		}
	}
	return t.InsertLineItemArgs(ctx, args)
}

// AppendLineItemArgs appends the values of one line item, as InsertLineItemArgs
// binds them, to dst. Importers call it in their parsing goroutine so that
// the goroutine writing to SQLite only binds and steps.
func AppendLineItemArgs(dst []any, li *LineItem) ([]any, error) {
	raw, err := json.Marshal(nonNil(li.Raw))
	if err != nil {
		return dst, fmt.Errorf("ledger: raw row: %w", err)
	}
	tags := li.Tags
	if tags == "" {
		tags = "{}"
	}
	var gpuCount any
	if li.GPUCount > 0 {
		gpuCount = li.GPUCount
	}
	pricing := li.PricingModel
	if pricing == "" {
		pricing = PricingOnDemand
	}
	return append(dst, li.Provider, li.BillingAccountID, li.SubAccount, li.BillingPeriod,
		FormatTime(li.ChargePeriodStart), FormatTime(li.ChargePeriodEnd), li.ChargeCategory, li.Kind, pricing, li.ServiceName,
		li.ResourceID, li.ResourceName, li.ResourceType, li.SKU, li.ParentResourceID, li.GPUModel, gpuCount, li.Region, li.Zone,
		nullDec(li.ConsumedQuantity), li.ConsumedUnit, nullDec(li.PricingQuantity), li.PricingUnit, nullDec(li.ListUnitPrice), nullDec(li.ListCost), DecimalString(li.BilledCost),
		nullDec(li.VoucherPaid), nullDec(li.CashPaid), nullDec(li.OtherPaid), nullDec(li.Unpaid), li.Currency, nullTime(li.UsageStart), nullTime(li.UsageEnd), tags, li.Description, string(raw),
		li.ImportID, li.SourceRow, li.RowKey), nil
}

// InsertLineItemArgs writes line items given as the concatenated values of
// AppendLineItemArgs, ignoring rows whose row_key is already in the ledger;
// it returns how many were new.
func (t *ImportTx) InsertLineItemArgs(ctx context.Context, args []any) (int, error) {
	if len(args)%LineItemArgs != 0 {
		return 0, fmt.Errorf("ledger: %d values do not make whole line items", len(args))
	}
	added := 0
	for len(args) > 0 {
		n := min(len(args)/LineItemArgs, maxBatch)
		st, err := t.lineItemStmt(ctx, n)
		if err != nil {
			return added, err
		}
		res, err := st.ExecContext(ctx, args[:n*LineItemArgs]...)
		if err != nil {
			return added, fmt.Errorf("ledger: insert line items: %w", err)
		}
		k, err := res.RowsAffected()
		if err != nil {
			return added, err
		}
		added += int(k)
		args = args[n*LineItemArgs:]
	}
	return added, nil
}

// InsertTransactions writes a batch of money-flow rows, ignoring known
// row keys; it returns how many were new.
func (t *ImportTx) InsertTransactions(ctx context.Context, txs []Transaction) (int, error) {
	stmt, err := t.tx.PrepareContext(ctx, `INSERT OR IGNORE INTO transactions(provider, account, time, type, amount, currency,
		balance, reference, description, raw, import_id, source_row, row_key) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`)
	if err != nil {
		return 0, fmt.Errorf("ledger: insert transactions: %w", err)
	}
	defer stmt.Close()
	added := 0
	for i := range txs {
		x := &txs[i]
		raw, err := json.Marshal(nonNil(x.Raw))
		if err != nil {
			return added, err
		}
		res, err := stmt.ExecContext(ctx, x.Provider, x.Account, FormatTime(x.Time), x.Type, DecimalString(x.Amount), x.Currency,
			nullDec(x.Balance), x.Reference, x.Description, string(raw), x.ImportID, x.SourceRow, x.RowKey)
		if err != nil {
			return added, fmt.Errorf("ledger: insert transaction: %w", err)
		}
		n, _ := res.RowsAffected()
		added += int(n)
	}
	return added, nil
}

// InsertPayments writes a batch of payment records, ignoring known row
// keys; it returns how many were new.
func (t *ImportTx) InsertPayments(ctx context.Context, ps []Payment) (int, error) {
	stmt, err := t.tx.PrepareContext(ctx, `INSERT OR IGNORE INTO payments(source, time, direction, counterparty, item,
		amount, currency, status, order_no, merchant_order_no, raw, import_id, source_row, row_key)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
	if err != nil {
		return 0, fmt.Errorf("ledger: insert payments: %w", err)
	}
	defer stmt.Close()
	added := 0
	for i := range ps {
		p := &ps[i]
		raw, err := json.Marshal(nonNil(p.Raw))
		if err != nil {
			return added, err
		}
		res, err := stmt.ExecContext(ctx, p.Source, FormatTime(p.Time), p.Direction, p.Counterparty, p.Item,
			DecimalString(p.Amount), p.Currency, p.Status, p.OrderNo, p.MerchantOrderNo, string(raw), p.ImportID, p.SourceRow, p.RowKey)
		if err != nil {
			return added, fmt.Errorf("ledger: insert payment: %w", err)
		}
		n, _ := res.RowsAffected()
		added += int(n)
	}
	return added, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

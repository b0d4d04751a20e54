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
	tx *sql.Tx
}

// BeginImport starts the transaction of one file.
func (db *DB) BeginImport(ctx context.Context) (*ImportTx, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("ledger: begin import: %w", err)
	}
	return &ImportTx{tx: tx}, nil
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

// Commit commits every row of the file.
func (t *ImportTx) Commit() error {
	if err := t.tx.Commit(); err != nil {
		return fmt.Errorf("ledger: commit import: %w", err)
	}
	return nil
}

// Rollback discards every row written in this transaction (used on error
// and for dry runs).
func (t *ImportTx) Rollback() error { return t.tx.Rollback() }

const lineItemCols = 40 // columns written per line item, see InsertLineItems

// maxBatch keeps a multi-row INSERT under SQLite's 32766 bound variables.
const maxBatch = 32766 / lineItemCols

// InsertLineItems writes a batch of line items (each with its ImportID set),
// ignoring rows whose row_key is already in the ledger; it returns how many
// were new.
func (t *ImportTx) InsertLineItems(ctx context.Context, items []LineItem) (int, error) {
	added := 0
	for len(items) > 0 {
		n := min(len(items), maxBatch)
		k, err := t.insertLineItems(ctx, items[:n])
		if err != nil {
			return added, err
		}
		added += k
		items = items[n:]
	}
	return added, nil
}

func (t *ImportTx) insertLineItems(ctx context.Context, items []LineItem) (int, error) {
	var b strings.Builder
	b.WriteString(`INSERT OR IGNORE INTO line_items(provider, billing_account_id, sub_account, billing_period,
		charge_period_start, charge_period_end, charge_category, kind, pricing_model, service_name,
		resource_id, resource_name, resource_type, sku, parent_resource_id, gpu_model, gpu_count, region, zone,
		consumed_quantity, consumed_unit, pricing_quantity, pricing_unit, list_unit_price, list_cost, billed_cost,
		voucher_paid, cash_paid, other_paid, unpaid, currency, usage_start, usage_end, tags, description, raw,
		import_id, source_row, row_key, id) VALUES `)
	args := make([]any, 0, len(items)*lineItemCols)
	for i := range items {
		li := &items[i]
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,NULL)")
		raw, err := json.Marshal(nonNil(li.Raw))
		if err != nil {
			return 0, fmt.Errorf("ledger: raw row: %w", err)
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
		args = append(args, li.Provider, li.BillingAccountID, li.SubAccount, li.BillingPeriod,
			FormatTime(li.ChargePeriodStart), FormatTime(li.ChargePeriodEnd), li.ChargeCategory, li.Kind, pricing, li.ServiceName,
			li.ResourceID, li.ResourceName, li.ResourceType, li.SKU, li.ParentResourceID, li.GPUModel, gpuCount, li.Region, li.Zone,
			nullDec(li.ConsumedQuantity), li.ConsumedUnit, nullDec(li.PricingQuantity), li.PricingUnit, nullDec(li.ListUnitPrice), nullDec(li.ListCost), li.BilledCost.String(),
			nullDec(li.VoucherPaid), nullDec(li.CashPaid), nullDec(li.OtherPaid), nullDec(li.Unpaid), li.Currency, nullTime(li.UsageStart), nullTime(li.UsageEnd), tags, li.Description, string(raw),
			li.ImportID, li.SourceRow, li.RowKey)
	}
	res, err := t.tx.ExecContext(ctx, b.String(), args...)
	if err != nil {
		return 0, fmt.Errorf("ledger: insert line items: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
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
		res, err := stmt.ExecContext(ctx, x.Provider, x.Account, FormatTime(x.Time), x.Type, x.Amount.String(), x.Currency,
			nullDec(x.Balance), x.Reference, x.Description, string(raw), x.ImportID, x.SourceRow, x.RowKey)
		if err != nil {
			return added, fmt.Errorf("ledger: insert transaction: %w", err)
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

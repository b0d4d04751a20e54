package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// Scan runs the read-only query q with args on a connection of its own
// (liteConn) and calls fn for each row: for the reads that walk many line
// items. The SQL functions gpubill registers on its database/sql
// connections (dsum) are not defined on that connection.
func (db *DB) Scan(ctx context.Context, q string, args []any, fn func(Row) error) error {
	return db.scan(ctx, q, args, fn, false)
}

// scan is Scan, reading the ledger through a memory map when mapped
// (PRAGMA mmap_size: pages without a pread and a copy each), for the load
// of a month. The mapped pages count in the process's resident size, so
// the reports' scans, which keep little, do without.
func (db *DB) scan(ctx context.Context, q string, args []any, fn func(Row) error, mapped bool) error {
	c, err := openLiteReadOnly(db.path)
	if err != nil {
		return err
	}
	defer c.close()
	if mapped {
		if _, err := c.exec(ctx, "PRAGMA mmap_size = 8589934592"); err != nil {
			return fmt.Errorf("ledger: scan: %w", err)
		}
	}
	if err := c.query(ctx, q, args, fn); err != nil {
		return fmt.Errorf("ledger: scan: %w", err)
	}
	return nil
}

// Decimal parses column i as a stored amount (not Valid for NULL).
func (r Row) Decimal(i int) (decimal.NullDecimal, error) { return r.DecimalOf(i, r.Bytes(i)) }

// DecimalOf is Decimal of column i, whose text b (Bytes) the caller has
// fetched already. Only an empty b asks whether the column is NULL.
func (r Row) DecimalOf(i int, b []byte) (decimal.NullDecimal, error) {
	if len(b) == 0 && r.Null(i) {
		return decimal.NullDecimal{}, nil
	}
	d, err := ParseStoredAmount(b)
	return decimal.NullDecimal{Decimal: d, Valid: err == nil}, err
}

// ParseStoredAmount parses the text of a stored amount (not empty).
func ParseStoredAmount(b []byte) (decimal.Decimal, error) {
	if len(b) == 0 {
		return decimal.Decimal{}, fmt.Errorf("ledger: stored amount is empty")
	}
	if d, ok := SmallDecimal(b); ok {
		return d, nil
	}
	d, err := decimal.NewFromString(string(b))
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("ledger: stored amount %q: %w", string(b), err)
	}
	return d, nil
}

// Time parses column i as a stored time (zero for NULL).
func (r Row) Time(i int) (time.Time, error) { return r.TimeOf(i, r.Bytes(i)) }

// TimeOf is Time of column i, whose text b (Bytes) the caller has fetched
// already.
func (r Row) TimeOf(i int, b []byte) (time.Time, error) {
	if len(b) == 0 {
		if r.Null(i) {
			return time.Time{}, nil
		}
		return time.Time{}, fmt.Errorf("ledger: stored time is empty")
	}
	return parseTime(b)
}

package ledger

import (
	"context"
	"fmt"
	"strconv"
	"time"
	"unsafe"

	"github.com/shopspring/decimal"
)

// Scan runs the read-only query q with args on a connection of its own
// (liteConn: no database/sql, no driver mutex per column) and calls fn for each row. It is for the
// reads that walk many line items, where the driver's per-column cost is
// most of the time. The SQL functions gpubill registers on its database/sql
// connections (dsum) are not defined on that connection.
func (db *DB) Scan(ctx context.Context, q string, args []any, fn func(Row) error) error {
	return db.scan(ctx, q, args, fn, false)
}

// mappedBytes is the most of the ledger a mapped scan (LoadLineItems) maps
// (SQLite maps no more than the file, and caps it at its compile-time
// limit).
const mappedBytes = 8 << 30

// scan is Scan, through a memory map of the ledger when mapped (PRAGMA
// mmap_size): SQLite then takes each page from the page cache without a
// pread and a copy. LoadLineItems reads so where it reads through SQL
// (measured when it always did: a million-item month, alternately without
// and with it, 1.72–2.29 s → 1.54–1.83 s and 3.31–3.91 → 2.95–3.19 s of
// CPU). The mapped pages count in the process's resident size while
// mapped (the kernel's page cache, not the Go heap), so the SQL scans of
// reports, which keep little, do without (report spend of a 300k-item
// month: 97 → 163 MB with it, for no measurable speed, when it read
// through SQL).
func (db *DB) scan(ctx context.Context, q string, args []any, fn func(Row) error, mapped bool) error {
	c, err := db.openReader(ctx, mapped)
	if err != nil {
		return err
	}
	defer c.close()
	if err := c.query(ctx, q, args, func(r liteRow) error { return fn(Row{r: r}) }); err != nil {
		return fmt.Errorf("ledger: scan: %w", err)
	}
	return nil
}

// openReader opens a read-only connection to the ledger, reading it
// through a memory map when mapped (scan).
func (db *DB) openReader(ctx context.Context, mapped bool) (*liteConn, error) {
	c, err := openLiteReadOnly(db.path)
	if err != nil {
		return nil, err
	}
	if mapped {
		if _, err := c.exec(ctx, "PRAGMA mmap_size = "+strconv.Itoa(mappedBytes)); err != nil {
			c.close()
			return nil, fmt.Errorf("ledger: scan: %w", err)
		}
	}
	return c, nil
}

// Row is the current row of a Scan, valid only inside its callback.
type Row struct {
	r liteRow
}

// Null reports whether column i (from 0) is NULL.
func (r Row) Null(i int) bool {
	return r.r.Null(i)
}

// Int64 is column i as an integer.
func (r Row) Int64(i int) int64 {
	return r.r.Int64(i)
}

// Text is column i as a string of its own ("" for NULL).
func (r Row) Text(i int) string { return string(r.Bytes(i)) }

// Bytes is column i as text, in SQLite's memory: valid until the callback
// returns (copy what must outlive it).
func (r Row) Bytes(i int) []byte {
	return r.r.bytes(i)
}

// Decimal parses column i as a stored amount (not Valid for NULL).
func (r Row) Decimal(i int) (decimal.NullDecimal, error) { return r.decimalOf(i, r.Bytes(i)) }

// DecimalOf is Decimal of column i, whose text b (Bytes) the caller has
// fetched already.
func (r Row) DecimalOf(i int, b []byte) (decimal.NullDecimal, error) { return r.decimalOf(i, b) }

// decimalOf parses b, the text of column i (Bytes), as a stored amount.
// Only an empty b asks whether the column is NULL: reading a column costs
// a call into SQLite, and most are not NULL.
func (r Row) decimalOf(i int, b []byte) (decimal.NullDecimal, error) {
	if len(b) == 0 {
		if r.Null(i) {
			return decimal.NullDecimal{}, nil
		}
		return decimal.NullDecimal{}, fmt.Errorf("ledger: stored amount is empty")
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
	d, err := decimal.NewFromString(unsafe.String(&b[0], len(b)))
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
	t, err := ParseTime(unsafe.String(&b[0], len(b)))
	if err != nil {
		return ParseTime(string(b)) // again on a copy: the error keeps its text
	}
	return t, nil
}

package ledger

import (
	"context"
	"fmt"

	"github.com/gpubill/gpubill/money"
	"github.com/shopspring/decimal"
	"zombiezen.com/go/sqlite"
)

// Scan runs the read-only query q with args on a connection of its own
// (liteConn) and calls fn for each row: for the reads that walk many line
// items. The SQL functions gpubill registers on its database/sql
// connections (dsum) are not defined on that connection.
func (db *DB) Scan(ctx context.Context, q string, args []any, fn func(Row) error) error {
	c, err := openLite(db.path, sqlite.OpenReadOnly)
	if err != nil {
		return err
	}
	defer c.close()
	if err := c.query(ctx, q, args, fn); err != nil {
		return fmt.Errorf("ledger: scan: %w", err)
	}
	return nil
}

// parseAmount parses the text of a stored amount (not empty).
func parseAmount[T string | []byte](b T) (decimal.Decimal, error) {
	if len(b) == 0 {
		return decimal.Decimal{}, fmt.Errorf("ledger: stored amount is empty")
	}
	if d, ok := money.Small(b); ok {
		return d, nil
	}
	d, err := decimal.NewFromString(string(b))
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("ledger: stored amount %q: %w", string(b), err)
	}
	return d, nil
}

// scanDec parses a stored optional amount (nil: NULL).
func scanDec(s *string) (decimal.NullDecimal, error) {
	if s == nil {
		return decimal.NullDecimal{}, nil
	}
	d, err := parseAmount(*s)
	return decimal.NullDecimal{Decimal: d, Valid: err == nil}, err
}

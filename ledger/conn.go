package ledger

import (
	"context"
	"fmt"
	"slices"

	"zombiezen.com/go/sqlite"
)

// liteConn is one SQLite connection on zombiezen.com/go/sqlite (the public
// C API of modernc.org/sqlite) for the two paths that bind or read many
// values: an import's transaction (ImportTx) and the reads of many line
// items (Scan). Through database/sql each value costs the driver's lock and
// conversion. It is opened NOMUTEX and is not safe for concurrent use;
// prepared statements are cached by their SQL text.
type liteConn struct {
	c *sqlite.Conn
}

// openLite opens path (an existing ledger, sqlite.OpenReadWrite or
// OpenReadOnly) with the pragmas Open gives its connections.
func openLite(path string, mode sqlite.OpenFlags) (*liteConn, error) {
	c, err := sqlite.OpenConn(path, mode|sqlite.OpenNoMutex)
	if err != nil {
		return nil, fmt.Errorf("ledger: open %s: %w", path, err)
	}
	lc := &liteConn{c: c}
	c.SetBusyTimeout(busyTimeout)
	cache := "PRAGMA cache_size = -16384"
	if mode&sqlite.OpenReadOnly != 0 {
		cache = "PRAGMA cache_size = -2048"
	}
	for _, p := range []string{"PRAGMA foreign_keys = ON", "PRAGMA synchronous = NORMAL", cache, "PRAGMA threads = 2"} {
		if _, err := lc.exec(context.Background(), p); err != nil {
			lc.close()
			return nil, fmt.Errorf("ledger: open %s: %w", path, err)
		}
	}
	return lc, nil
}

// close finalizes the prepared statements and closes the connection (an open
// transaction is rolled back).
func (c *liteConn) close() {
	if c.c == nil {
		return // closed already
	}
	c.c.Close()
	c.c = nil
}

// errClosed is what a closed liteConn answers.
var errClosed = fmt.Errorf("ledger: the import transaction has ended")

// statement is the prepared statement of q, if ctx has not ended.
func (c *liteConn) statement(ctx context.Context, q string) (*sqlite.Stmt, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.c == nil {
		return nil, errClosed
	}
	return c.c.Prepare(q)
}

// bind binds args to the parameters of st, from 1.
func bind(st *sqlite.Stmt, args []any) error {
	for i, a := range args {
		n := i + 1
		switch v := a.(type) {
		case nil:
			st.BindNull(n)
		case string:
			st.BindText(n, v)
		case int64:
			st.BindInt64(n, v)
		case int:
			st.BindInt64(n, int64(v))
		default:
			return fmt.Errorf("ledger: cannot bind a %T", a)
		}
	}
	return nil
}

// exec runs q with args to its end and returns the number of rows it
// changed.
func (c *liteConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	if err := c.query(ctx, q, args, nil); err != nil {
		return 0, err
	}
	return int64(c.c.Changes()), nil
}

// insertRows runs the INSERT q, whose parameters are the columns of rows
// but those of omit, one after the other, and returns the number of rows it
// added.
func (c *liteConn) insertRows(ctx context.Context, q string, rows []lineItemRow, omit uint64) (int64, error) {
	st, err := c.statement(ctx, q)
	if err != nil {
		return 0, err
	}
	defer st.Reset()
	n := 0
	for i := range rows {
		row := &rows[i]
		for col := range inserted {
			if omit&(1<<col) != 0 {
				continue
			}
			n++
			switch {
			case row.null&(1<<col) != 0:
				st.BindNull(n)
			case intColumns&(1<<col) != 0:
				st.BindInt64(n, row.ints[col])
			default:
				st.BindText(n, row.col(col))
			}
		}
	}
	if _, err := st.Step(); err != nil {
		return 0, err
	}
	return int64(c.c.Changes()), nil
}

// lastInsertID is the rowid of the last row inserted on c.
func (c *liteConn) lastInsertID() int64 { return c.c.LastInsertRowID() }

// query runs q with args and calls row, unless nil, for each result row.
func (c *liteConn) query(ctx context.Context, q string, args []any, row func(Row) error) error {
	st, err := c.statement(ctx, q)
	if err != nil {
		return err
	}
	defer st.Reset()
	defer st.ClearBindings()
	if err := bind(st, args); err != nil {
		return err
	}
	r := Row{st: st, buf: new([]byte)}
	for {
		more, err := st.Step()
		if err != nil || !more {
			return err
		}
		if row == nil {
			continue
		}
		*r.buf = (*r.buf)[:0]
		if err := row(r); err != nil {
			return err
		}
	}
}

// inTx reports whether a transaction is open on c.
func (c *liteConn) inTx() bool {
	return c.c != nil && !c.c.AutocommitEnabled()
}

// begin starts a write transaction (BEGIN IMMEDIATE), waiting for another
// writer as the database/sql connections do (safety.go): each attempt waits
// up to busyTimeout inside SQLite, w hears of the wait once, and the wait
// ends with ctx.
func (c *liteConn) begin(ctx context.Context, w *waitState) error {
	return waitForLock(ctx, w, func() error {
		_, err := c.exec(ctx, "BEGIN IMMEDIATE")
		return err
	})
}

// Row is the current row of a query (liteConn.query, DB.Scan), valid only
// inside its callback.
type Row struct {
	st  *sqlite.Stmt
	buf *[]byte // the row's texts, copied out of SQLite
}

// Null reports whether column i (from 0) is NULL.
func (r Row) Null(i int) bool { return r.st.ColumnType(i) == sqlite.TypeNull }

// Int64 is column i as an integer.
func (r Row) Int64(i int) int64 { return r.st.ColumnInt64(i) }

// Text is column i as a string of its own ("" for NULL).
func (r Row) Text(i int) string { return r.st.ColumnText(i) }

// Bytes is column i as text, valid until the callback returns (copied into
// the row's buffer, which the next row reuses).
func (r Row) Bytes(i int) []byte {
	n := r.st.ColumnLen(i)
	if n == 0 {
		return nil
	}
	b := slices.Grow(*r.buf, n)
	at := len(b)
	b = b[:at+n]
	r.st.ColumnBytes(i, b[at:])
	*r.buf = b
	return b[at : at+n : at+n]
}

package ledger

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Waiting for another writer.
//
// SQLite lets one writer at a time hold a database file. Every write
// transaction of the ledger starts with BEGIN IMMEDIATE (_txlock=immediate),
// so a second gpubill that wants to write waits at its BEGIN, under
// busy_timeout, and would fail with SQLITE_BUSY ("database is locked") once
// that runs out, however healthy the first process is. An import of a big
// file holds the lock for minutes. So every connection of a DB is wrapped
// (waitConn): its BeginTx retries on SQLITE_BUSY until it gets the lock or
// its context ends, and tells the user once that it waits (Options.OnWait):
// when the first attempt has not got the lock after waitNoticeAfter, or has
// failed busy. Readers never wait on a writer (WAL) and are not wrapped in
// any loop; a statement outside a transaction still has busy_timeout.
//
// A process that dies holding the lock (SIGKILL, power loss) releases it
// with its file descriptors: the next writer goes on, and SQLite rolls the
// dead transaction back from the WAL.

var (
	// busyTimeout is SQLite's busy_timeout of every connection: how long one
	// attempt waits for a lock before the retry loop of waitConn.BeginTx
	// (or, outside a transaction, the statement) sees SQLITE_BUSY.
	busyTimeout = 10 * time.Second
	// waitNoticeAfter is how long a BEGIN may take before OnWait is called:
	// an uncontended BEGIN IMMEDIATE takes microseconds.
	waitNoticeAfter = 500 * time.Millisecond
	// busyRetryPause is the pause between two attempts after SQLITE_BUSY.
	busyRetryPause = 50 * time.Millisecond
)

// waitState is what the connections of one DB share about waiting.
type waitState struct {
	onWait func()
	once   sync.Once
}

// notify calls onWait, once.
func (w *waitState) notify() {
	if w.onWait != nil {
		w.once.Do(w.onWait)
	}
}

// openWaiting opens the database at dsn with connections that wait for
// another writer (waitConn).
func openWaiting(dsn string, w *waitState) (*sql.DB, error) {
	base, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(waitConnector{Connector: base, w: w}), nil
}

type waitConnector struct {
	driver.Connector
	w *waitState
}

func (c waitConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &waitConn{Conn: conn, w: c.w}, nil
}

// waitConn is a connection of the driver whose BeginTx waits for the write
// lock without a time limit. It forwards every optional interface of the
// driver's connections (sqlite.NewConnector says which) and unwraps to the
// driver's connection (for sql.Conn.Raw: backups).
type waitConn struct {
	driver.Conn
	w *waitState
}

// Unwrap returns the driver's connection.
func (c *waitConn) Unwrap() driver.Conn { return c.Conn }

func (c *waitConn) BeginTx(ctx context.Context, opts driver.TxOptions) (tx driver.Tx, err error) {
	err = waitForLock(ctx, c.w, func() error {
		tx, err = c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
		return err
	})
	return tx, err
}

// waitForLock calls begin until it gets the write lock (does not fail with
// SQLITE_BUSY) or ctx ends, pausing busyRetryPause between attempts; w
// hears of the wait once.
func waitForLock(ctx context.Context, w *waitState, begin func() error) error {
	timer := time.AfterFunc(waitNoticeAfter, w.notify)
	defer timer.Stop()
	for {
		err := begin()
		if err == nil || !IsBusy(err) {
			return err
		}
		w.notify()
		pause := time.NewTimer(busyRetryPause)
		select {
		case <-ctx.Done():
			pause.Stop()
			return ctx.Err()
		case <-pause.C:
		}
	}
}

func (c *waitConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *waitConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (c *waitConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

func (c *waitConn) Ping(ctx context.Context) error { return c.Conn.(driver.Pinger).Ping(ctx) }

func (c *waitConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *waitConn) IsValid() bool { return c.Conn.(driver.Validator).IsValid() }

// IsBusy reports whether err is SQLite's SQLITE_BUSY (any extended code):
// another connection holds a lock this one needs.
func IsBusy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()&0xff == sqlite3.SQLITE_BUSY
	}
	return isLiteBusy(err)
}

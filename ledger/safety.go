package ledger

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// Waiting for another writer.
//
// SQLite lets one writer at a time hold a database file. Every write
// transaction of the ledger starts with BEGIN IMMEDIATE (_txlock=immediate),
// so a second gpubill that wants to write waits at its BEGIN, under
// busy_timeout, and would fail with SQLITE_BUSY ("database is locked") once
// that runs out, however healthy the first process is. An import of a big
// file holds the lock for minutes. So every write transaction begins
// through waitForLock (DB.BeginTx, liteConn.begin): it retries on
// SQLITE_BUSY until it gets the lock or its context ends, and tells the
// user once that it waits (Options.OnWait): when the first attempt has not
// got the lock after waitNoticeAfter, or has failed busy. Readers never wait
// on a writer (WAL); a statement outside a transaction still has
// busy_timeout.
//
// A process that dies holding the lock (SIGKILL, power loss) releases it
// with its file descriptors: the next writer goes on, and SQLite rolls the
// dead transaction back from the WAL.

var (
	// busyTimeout is SQLite's busy_timeout of every connection: how long one
	// attempt waits for a lock before the retry loop of waitForLock
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

// BeginTx begins a write transaction on the database/sql connections,
// waiting for another writer as every write transaction of the ledger does.
func (db *DB) BeginTx(ctx context.Context) (tx *sql.Tx, err error) {
	err = waitForLock(ctx, &db.wait, func() error {
		tx, err = db.sql.BeginTx(ctx, nil)
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
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(busyRetryPause):
		}
	}
}

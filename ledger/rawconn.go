package ledger

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"modernc.org/libc"
	"modernc.org/libc/sys/types"
	sqlite3 "modernc.org/sqlite/lib"
)

// rawConn is one SQLite connection driven through modernc.org/sqlite/lib
// directly, without database/sql and its driver: the write transaction of an
// import runs on it (ImportTx). A bulk import binds about forty values a row,
// and through the driver each bind costs a C string copy, a free, a lock of
// the connection's mutex and database/sql's argument conversion: a third of
// the import's wall time at a million rows. Here the connection is opened
// with SQLITE_OPEN_NOMUTEX (it is used by one goroutine at a time), and the
// texts of a statement are copied into one C buffer, reused from statement
// to statement, and bound SQLITE_STATIC from there.
//
// Every pointer SQLite sees is C memory (modernc.org/libc's allocator), never
// Go memory: the Go runtime may move what it owns, and checkptr (-race)
// rightly refuses Go pointers that come back as uintptr.
//
// It is not safe for concurrent use.
type rawConn struct {
	tls   *libc.TLS
	db    uintptr
	slot  uintptr            // 8 bytes of C memory for out-parameters (sqlite3**, sqlite3_stmt**)
	stmts map[string]uintptr // prepared statements by SQL text, finalized by close
	buf   uintptr            // C buffer the bound texts are copied into
	bufN  int                // its size
}

// rawError is an error reported by SQLite on a rawConn.
type rawError struct {
	code int32 // extended result code
	msg  string
}

func (e *rawError) Error() string {
	return fmt.Sprintf("%s (%d)", e.msg, e.code)
}

// openRaw opens path (an existing ledger) with the pragmas Open gives its
// connections.
func openRaw(path string) (*rawConn, error) { return openRawFlags(path, sqlite3.SQLITE_OPEN_READWRITE) }

// openRawReadOnly opens the ledger at path for reading.
func openRawReadOnly(path string) (*rawConn, error) {
	return openRawFlags(path, sqlite3.SQLITE_OPEN_READONLY)
}

func openRawFlags(path string, mode int32) (*rawConn, error) {
	c := &rawConn{tls: libc.NewTLS(), stmts: map[string]uintptr{}}
	if c.slot = libc.Xcalloc(c.tls, 1, 8); c.slot == 0 {
		c.tls.Close()
		return nil, fmt.Errorf("ledger: open %s: out of memory", path)
	}
	name, err := libc.CString(path)
	if err != nil {
		c.close()
		return nil, err
	}
	rc := sqlite3.Xsqlite3_open_v2(c.tls, name, c.slot, mode|sqlite3.SQLITE_OPEN_NOMUTEX, 0)
	libc.Xfree(c.tls, name)
	c.db = c.out()
	if rc != sqlite3.SQLITE_OK {
		err := c.error(rc)
		c.close()
		return nil, fmt.Errorf("ledger: open %s: %w", path, err)
	}
	sqlite3.Xsqlite3_extended_result_codes(c.tls, c.db, 1)
	sqlite3.Xsqlite3_busy_timeout(c.tls, c.db, int32(busyTimeout.Milliseconds()))
	for _, p := range []string{"PRAGMA foreign_keys = ON", "PRAGMA synchronous = NORMAL", "PRAGMA cache_size = -16384", "PRAGMA threads = 2"} {
		if _, err := c.exec(context.Background(), p); err != nil {
			c.close()
			return nil, fmt.Errorf("ledger: open %s: %w", path, err)
		}
	}
	return c, nil
}

// out reads the pointer SQLite wrote to the out-parameter slot.
func (c *rawConn) out() uintptr { return uintptr(binary.NativeEndian.Uint64(libc.GoBytes(c.slot, 8))) }

// reserve makes the bind buffer hold at least n bytes (n ≥ 1, so that an
// empty text gets a valid pointer: a NULL one would bind NULL). It must not
// be called while texts of a statement are bound and not yet stepped.
func (c *rawConn) reserve(n int) error {
	n = max(n, 1)
	if n <= c.bufN {
		return nil
	}
	n = max(n, 2*c.bufN, 64<<10)
	p := libc.Xrealloc(c.tls, c.buf, types.Size_t(n))
	if p == 0 {
		return fmt.Errorf("ledger: out of memory for %d bytes of bound values", n)
	}
	c.buf, c.bufN = p, n
	return nil
}

// put copies b into the bind buffer at off and returns its C address.
func (c *rawConn) put(off int, b string) uintptr {
	copy(libc.GoBytes(c.buf+uintptr(off), len(b)), b)
	return c.buf + uintptr(off)
}

// close finalizes the prepared statements and closes the connection (an open
// transaction is rolled back).
func (c *rawConn) close() {
	if c.tls == nil {
		return // closed already
	}
	for _, st := range c.stmts {
		sqlite3.Xsqlite3_finalize(c.tls, st)
	}
	c.stmts = nil
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}
	libc.Xfree(c.tls, c.buf)
	libc.Xfree(c.tls, c.slot)
	c.buf, c.bufN, c.slot = 0, 0, 0
	c.tls.Close()
	c.tls = nil
}

// errClosed is what a closed rawConn answers.
var errClosed = fmt.Errorf("ledger: the import transaction has ended")

// error is the connection's current error, for result code rc.
func (c *rawConn) error(rc int32) error {
	if c.db == 0 {
		return &rawError{code: rc, msg: libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc))}
	}
	return &rawError{code: sqlite3.Xsqlite3_extended_errcode(c.tls, c.db), msg: libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db))}
}

// prepare returns the prepared statement of q, preparing it once.
func (c *rawConn) prepare(q string) (uintptr, error) {
	if c.tls == nil {
		return 0, errClosed
	}
	if st, ok := c.stmts[q]; ok {
		return st, nil
	}
	z, err := libc.CString(q)
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(c.tls, z)
	if rc := sqlite3.Xsqlite3_prepare_v3(c.tls, c.db, z, -1, sqlite3.SQLITE_PREPARE_PERSISTENT, c.slot, 0); rc != sqlite3.SQLITE_OK {
		return 0, c.error(rc)
	}
	st := c.out()
	if st == 0 {
		return 0, fmt.Errorf("ledger: empty statement %q", q)
	}
	c.stmts[q] = st
	return st, nil
}

// bind binds args to the parameters of st, from 1. Texts and blobs are
// copied into the bind buffer, valid until the next bind.
func (c *rawConn) bind(st uintptr, args []any) error {
	size := 0
	for _, a := range args {
		switch v := a.(type) {
		case string:
			size += len(v)
		case []byte:
			size += len(v)
		}
	}
	if err := c.reserve(size); err != nil {
		return err
	}
	off := 0
	for i, a := range args {
		n := int32(i + 1)
		var rc int32
		switch v := a.(type) {
		case nil:
			rc = sqlite3.Xsqlite3_bind_null(c.tls, st, n)
		case string:
			rc = sqlite3.Xsqlite3_bind_text(c.tls, st, n, c.put(off, v), int32(len(v)), sqlite3.SQLITE_STATIC)
			off += len(v)
		case []byte:
			rc = sqlite3.Xsqlite3_bind_blob(c.tls, st, n, c.put(off, string(v)), int32(len(v)), sqlite3.SQLITE_STATIC)
			off += len(v)
		case int64:
			rc = sqlite3.Xsqlite3_bind_int64(c.tls, st, n, v)
		case int:
			rc = sqlite3.Xsqlite3_bind_int64(c.tls, st, n, int64(v))
		case int32:
			rc = sqlite3.Xsqlite3_bind_int64(c.tls, st, n, int64(v))
		case bool:
			b := int64(0)
			if v {
				b = 1
			}
			rc = sqlite3.Xsqlite3_bind_int64(c.tls, st, n, b)
		default:
			return fmt.Errorf("ledger: cannot bind a %T", a)
		}
		if rc != sqlite3.SQLITE_OK {
			return c.error(rc)
		}
	}
	return nil
}

// exec runs q with args to its end and returns the number of rows it
// changed.
func (c *rawConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	if err := c.query(ctx, q, args, nil); err != nil {
		return 0, err
	}
	return sqlite3.Xsqlite3_changes64(c.tls, c.db), nil
}

// statement is the prepared statement of q, if ctx has not ended.
func (c *rawConn) statement(ctx context.Context, q string) (uintptr, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return c.prepare(q)
}

// insertRows runs the INSERT q, whose parameters are the columns of rows
// but those of omit, one after the other, and returns the number of rows it
// added.
func (c *rawConn) insertRows(ctx context.Context, q string, rows []lineItemRow, omit uint64) (int64, error) {
	st, err := c.statement(ctx, q)
	if err != nil {
		return 0, err
	}
	defer sqlite3.Xsqlite3_reset(c.tls, st)
	size := 0
	for i := range rows {
		for _, text := range rows[i].text {
			size += len(text)
		}
	}
	if err := c.reserve(size); err != nil {
		return 0, err
	}
	off := 0
	n := int32(0)
	b := c.binder(st)
	for i := range rows {
		row := &rows[i]
		for col, text := range row.text {
			if omit&(1<<col) != 0 {
				continue
			}
			n++
			var rc int32
			switch {
			case col == colImportID:
				rc = b.int64(n, row.importID)
			case col == colSourceRow:
				rc = b.int64(n, row.sourceRow)
			case row.null&(1<<col) != 0:
				rc = b.null(n)
			case col == colGPUCount:
				rc = b.int64(n, row.gpuCount)
			default:
				rc = b.text(n, c.put(off, text), len(text))
				off += len(text)
			}
			if rc != sqlite3.SQLITE_OK {
				return 0, c.error(rc)
			}
		}
	}
	if rc := sqlite3.Xsqlite3_step(c.tls, st); rc != sqlite3.SQLITE_DONE {
		return 0, c.error(rc)
	}
	return sqlite3.Xsqlite3_changes64(c.tls, c.db), nil
}

// lastInsertID is the rowid of the last row inserted on c.
func (c *rawConn) lastInsertID() int64 { return sqlite3.Xsqlite3_last_insert_rowid(c.tls, c.db) }

// query runs q with args and calls row, unless nil, for each result row.
// row must not use c: the statement's bound values live in c's bind buffer
// until it ends.
func (c *rawConn) query(ctx context.Context, q string, args []any, row func(rawRow) error) error {
	st, err := c.statement(ctx, q)
	if err != nil {
		return err
	}
	defer sqlite3.Xsqlite3_reset(c.tls, st)
	if err := c.bind(st, args); err != nil {
		return err
	}
	for {
		switch rc := sqlite3.Xsqlite3_step(c.tls, st); rc {
		case sqlite3.SQLITE_ROW:
			if row == nil {
				continue
			}
			if err := row(c.resultRow(st)); err != nil {
				return err
			}
		case sqlite3.SQLITE_DONE:
			return nil
		default:
			return c.error(rc)
		}
	}
}

// inTx reports whether a transaction is open on c.
func (c *rawConn) inTx() bool {
	return c.tls != nil && sqlite3.Xsqlite3_get_autocommit(c.tls, c.db) == 0
}

// begin starts a write transaction (BEGIN IMMEDIATE), waiting for another
// writer as the database/sql connections do (safety.go): each attempt waits
// up to busyTimeout inside SQLite, w hears of the wait once, and the wait
// ends with ctx.
func (c *rawConn) begin(ctx context.Context, w *waitState) error {
	timer := time.AfterFunc(waitNoticeAfter, w.notify)
	defer timer.Stop()
	for {
		_, err := c.exec(ctx, "BEGIN IMMEDIATE")
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

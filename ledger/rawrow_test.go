package ledger

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// TestRawRowIsColumnAPI reads every kind of value SQLite can hand back both
// ways, from the result registers (rawRow) and through sqlite3_column_*,
// and wants the same text, integer and NULL-ness; also past the last
// column, and on a statement that has not stepped to a row.
func TestRawRowIsColumnAPI(t *testing.T) {
	for _, enc := range []string{"UTF-8", "UTF-16le"} { // the ledger is UTF-8; UTF-16 texts take the API
		t.Run(enc, func(t *testing.T) { testRawRow(t, enc) })
	}
}

func testRawRow(t *testing.T, encoding string) {
	ctx := context.Background()
	c := openScratchRaw(t)
	long := strings.Repeat("长文本 overflow ", 3000) // past a page: an overflow chain, copied out of the page
	for _, q := range []string{
		`PRAGMA encoding = '` + encoding + `'`,
		`CREATE TABLE t(a TEXT, b INTEGER, c, d REAL, e BLOB)`,
		`INSERT INTO t VALUES ('x', 1, 'free', 1.5, x'00ff'), ('', 0, 7, -0.0, x''), (NULL, NULL, NULL, NULL, NULL),
			('中文', -9223372036854775808, 9223372036854775807, 1e300, zeroblob(3)), ('7', '8', 2.5, 3, 'text in blob'),
			('0.10000000', '12abc', x'414243', '4.0', 12)`,
	} {
		if _, err := c.exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.exec(ctx, `INSERT INTO t(a, c) VALUES (?, ?)`, long, long); err != nil {
		t.Fatal(err)
	}
	queries := []string{
		`SELECT a, b, c, d, e FROM t`,
		`SELECT a || 'y', b + 1, c || c, d * 2, e, length(a), typeof(c), NULL, 3, '', CAST(b AS TEXT), CAST(a AS INTEGER), rowid FROM t`,
		`SELECT upper(a), substr(c, 2), hex(e), b IS NULL, json_object('k', a) FROM t`,
	}
	rows, registers, values := 0, 0, 0
	for _, q := range queries {
		err := c.query(ctx, q, nil, func(r rawRow) error {
			rows++
			n := int(sqlite3.Xsqlite3_column_count(c.tls, r.st))
			if r.ncol != n || r.row == 0 {
				t.Errorf("%s: result row has %d columns at %#x, the statement %d", q, r.ncol, r.row, n)
			}
			api := apiRow{c, r.st}
			for i := 0; i <= n; i++ { // one past the end: the API's answer
				if got, want := r.Null(i), api.null(i); got != want {
					t.Errorf("%s: column %d: Null %v, API %v", q, i, got, want)
				}
				if got, want := r.Int64(i), api.int64(i); got != want {
					t.Errorf("%s: column %d: Int64 %d, API %d", q, i, got, want)
				}
				// A copy: the API may convert the value in place (a function's
				// text without its terminating NUL is copied and freed), as
				// it may invalidate what it returned itself.
				got := bytes.Clone(r.bytes(i))
				if want := api.bytes(i); !bytes.Equal(got, want) {
					t.Errorf("%s: column %d: bytes %q, API %q", q, i, trim(got), trim(want))
				}
				// Int64 and Null must not have changed the value the text is read from.
				if got, want := r.Text(i), string(api.bytes(i)); got != want {
					t.Errorf("%s: column %d: Text after Int64 %q, API %q", q, i, trim([]byte(got)), trim([]byte(want)))
				}
				if i < n {
					values++
					if api.isRegister(r.mem(i), i) {
						registers++
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if rows != 3*7 {
		t.Fatalf("read %d rows, want 21", rows)
	}
	// The registers read are the API's: the same text pointer or integer.
	if registers != values {
		t.Errorf("%d of %d values were read from a register the API does not read", values-registers, values)
	}
	if r := (rawRow{c: c}); r.mem(0) != nil {
		t.Error("a row without result registers has a register")
	}
}

// openScratchRaw opens a rawConn on a new, empty database (an empty file
// is an empty database), closed when the test ends.
func openScratchRaw(t *testing.T) *rawConn {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scratch.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	return c
}

// apiRow reads the current row through sqlite3_column_*, as rawRow did
// before it read the registers.
type apiRow struct {
	c  *rawConn
	st uintptr
}

func (a apiRow) null(i int) bool {
	return sqlite3.Xsqlite3_column_type(a.c.tls, a.st, int32(i)) == sqlite3.SQLITE_NULL
}

func (a apiRow) int64(i int) int64 { return sqlite3.Xsqlite3_column_int64(a.c.tls, a.st, int32(i)) }

func (a apiRow) bytes(i int) []byte {
	p := sqlite3.Xsqlite3_column_text(a.c.tls, a.st, int32(i))
	n := sqlite3.Xsqlite3_column_bytes(a.c.tls, a.st, int32(i))
	if p == 0 || n == 0 {
		return nil
	}
	return libc.GoBytes(p, int(n))
}

func trim(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}

// isRegister reports whether m holds what the API reads of column i: its
// NULL, its integer or its (converted) text at the same address.
func (a apiRow) isRegister(m *sqlite3.TMem, i int) bool {
	switch sqlite3.Xsqlite3_column_type(a.c.tls, a.st, int32(i)) {
	case sqlite3.SQLITE_NULL:
		return m.Fflags&sqlite3.MEM_Null != 0
	case sqlite3.SQLITE_INTEGER:
		return m.Fflags&sqlite3.MEM_Int != 0 && *(*int64)(unsafe.Pointer(&m.Fu)) == a.int64(i)
	}
	p := sqlite3.Xsqlite3_column_text(a.c.tls, a.st, int32(i))
	return m.Fflags&sqlite3.MEM_Str != 0 && m.Fz == p
}

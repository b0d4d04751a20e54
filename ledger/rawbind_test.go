package ledger

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// bindValue is a value to bind: text, an integer, or NULL.
type bindValue struct {
	kind string // text | int | null
	s    string
	i    int64
}

// TestVarBinderIsBindAPI binds rounds of values to one statement through
// varBinder and to another through sqlite3_bind_*, and wants the same
// values back (type and text) from SELECT and from an INSERT's stored row.
// A register holding a copy SQLite owns (TRANSIENT) is written directly
// too; one holding a value with a destructor (a bound pointer) goes
// through the API.
func TestVarBinderIsBindAPI(t *testing.T) {
	ctx := context.Background()
	c := openScratchRaw(t)
	if _, err := c.exec(ctx, `CREATE TABLE t(a TEXT NOT NULL, b INTEGER, c, d TEXT)`); err != nil {
		t.Fatal(err)
	}
	rounds := [][]bindValue{
		{{kind: "text", s: "autodl"}, {kind: "int", i: 3}, {kind: "null"}, {kind: "text", s: ""}},
		{{kind: "text", s: "中文 ✓"}, {kind: "null"}, {kind: "int", i: -9223372036854775808}, {kind: "text", s: strings.Repeat("长", 70000)}},
		{{kind: "text", s: "0.10000000"}, {kind: "text", s: "12"}, {kind: "text", s: "x\x00y"}, {kind: "int", i: 9223372036854775807}},
		{{kind: "null"}, {kind: "int", i: 0}, {kind: "text", s: "last"}, {kind: "null"}},
	}
	direct, api := `SELECT ?1, ?2, ?3, ?4, typeof(?1), typeof(?2), typeof(?3), typeof(?4)`, `SELECT ?1, ?2, ?3, ?4, typeof(?1), typeof(?2), typeof(?3), typeof(?4) -- api`
	for r, vals := range rounds {
		got := selectBound(t, c, direct, vals, true, r)
		want := selectBound(t, c, api, vals, false, -1)
		if got != want {
			t.Errorf("round %d: bound directly %q, through the API %q", r, trim([]byte(got)), trim([]byte(want)))
		}
	}
	// Stored rows: the NOT NULL column refuses the direct NULL as it does the API's.
	for r, vals := range rounds {
		for _, directly := range []bool{true, false} {
			q := `INSERT INTO t VALUES (?, ?, ?, ?)`
			if !directly {
				q += ` -- api`
			}
			st, err := c.statement(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			bindAll(t, c, st, vals, directly, 0)
			rc := sqlite3.Xsqlite3_step(c.tls, st)
			sqlite3.Xsqlite3_reset(c.tls, st)
			if wantOK := vals[0].kind != "null"; (rc == sqlite3.SQLITE_DONE) != wantOK {
				t.Errorf("round %d (direct %v): INSERT gave %d", r, directly, rc)
			}
		}
	}
	var rows []string
	if err := c.query(ctx, `SELECT quote(a) || quote(b) || quote(c) || quote(d) FROM t ORDER BY rowid`, nil, func(r rawRow) error {
		rows = append(rows, r.Text(0))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 {
		t.Fatalf("stored %d rows, want 6 (3 rounds both ways)", len(rows))
	}
	for i := 0; i < len(rows); i += 2 {
		if rows[i] != rows[i+1] {
			t.Errorf("stored row %d: directly %q, through the API %q", i/2, trim([]byte(rows[i])), trim([]byte(rows[i+1])))
		}
	}
}

// selectBound binds vals to q, directly or through the API, steps it once
// and returns its columns (type and text) as one string. Before, in round
// 1 every value is bound through the API with SQLITE_TRANSIENT (a copy
// SQLite owns), in round 2 as a pointer (a value with a destructor, which
// varBinder must leave to the API).
func selectBound(t *testing.T, c *rawConn, q string, vals []bindValue, directly bool, round int) string {
	t.Helper()
	st, err := c.statement(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer sqlite3.Xsqlite3_reset(c.tls, st)
	typ, err := libc.CString("gpubill-test")
	if err != nil {
		t.Fatal(err)
	}
	defer libc.Xfree(c.tls, typ)
	for n := int32(1); n <= int32(len(vals)); n++ {
		var rc int32
		switch round {
		case 1:
			if err := c.reserve(15); err != nil {
				t.Fatal(err)
			}
			rc = sqlite3.Xsqlite3_bind_text(c.tls, st, n, c.put(0, "transient value"), 15, sqlite3.SQLITE_TRANSIENT)
		case 2:
			rc = sqlite3.Xsqlite3_bind_pointer(c.tls, st, n, typ, typ, 0)
		}
		if rc != sqlite3.SQLITE_OK {
			t.Fatal(c.error(rc))
		}
	}
	fallback := 0
	if round == 2 {
		fallback = len(vals)
	}
	bindAll(t, c, st, vals, directly, fallback)
	if rc := sqlite3.Xsqlite3_step(c.tls, st); rc != sqlite3.SQLITE_ROW {
		t.Fatal(c.error(rc))
	}
	var out []string
	for i := int32(0); i < sqlite3.Xsqlite3_column_count(c.tls, st); i++ {
		a := apiRow{c, st}
		out = append(out, fmt.Sprintf("%d:%q", sqlite3.Xsqlite3_column_type(c.tls, st, i), a.bytes(int(i))))
	}
	return strings.Join(out, " ")
}

// bindAll binds vals to st; directly, it wants the first fallback values
// bound through the API and the others directly.
func bindAll(t *testing.T, c *rawConn, st uintptr, vals []bindValue, directly bool, fallback int) {
	t.Helper()
	size := 0
	for _, v := range vals {
		size += len(v.s)
	}
	if err := c.reserve(size); err != nil {
		t.Fatal(err)
	}
	b := c.binder(st)
	off := 0
	for i, v := range vals {
		n := int32(i + 1)
		if want := i >= fallback; directly && (b.plain(n) != nil) != want {
			t.Errorf("%s: value %d: direct %v, want %v", libc.GoString(sqlite3.Xsqlite3_sql(c.tls, st)), n, !want, want)
		}
		var rc int32
		switch v.kind {
		case "text":
			p := c.put(off, v.s)
			off += len(v.s)
			if directly {
				rc = b.text(n, p, len(v.s))
			} else {
				rc = sqlite3.Xsqlite3_bind_text(c.tls, st, n, p, int32(len(v.s)), sqlite3.SQLITE_STATIC)
			}
		case "int":
			if directly {
				rc = b.int64(n, v.i)
			} else {
				rc = sqlite3.Xsqlite3_bind_int64(c.tls, st, n, v.i)
			}
		default:
			if directly {
				rc = b.null(n)
			} else {
				rc = sqlite3.Xsqlite3_bind_null(c.tls, st, n)
			}
		}
		if rc != sqlite3.SQLITE_OK {
			t.Fatal(c.error(rc))
		}
	}
}

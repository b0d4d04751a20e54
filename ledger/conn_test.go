package ledger

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"zombiezen.com/go/sqlite"
)

func openScratchLite(t *testing.T) *liteConn {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scratch.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := openLite(path, sqlite.OpenReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	return c
}

// TestLiteRow: a row's texts stay valid together until its callback
// returns, however long (past a page, growing the row's buffer), and read
// as SQLite holds them; integers and NULLs read as such; bound values of
// every kind come back.
func TestLiteRow(t *testing.T) {
	ctx := context.Background()
	c := openScratchLite(t)
	long := strings.Repeat("长文本 overflow ", 3000)
	if _, err := c.exec(ctx, `CREATE TABLE t(a TEXT, b INTEGER, c TEXT, d)`); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]any{{"x", int64(1), long, nil}, {"", 0, "中文", int64(1)}, {nil, nil, nil, "blob"}, {"7", -9, long + "z", "t"}} {
		if _, err := c.exec(ctx, `INSERT INTO t VALUES (?, ?, ?, ?)`, args...); err != nil {
			t.Fatal(err)
		}
	}
	type row struct {
		a, c, d string
		b       int64
		nullA   bool
	}
	var got []row
	err := c.query(ctx, `SELECT a, b, c, d FROM t ORDER BY rowid`, nil, func(r Row) error {
		a, cc, d := r.Bytes(0), r.Bytes(2), r.Bytes(3) // all three held at once
		got = append(got, row{a: string(a), c: string(cc), d: string(d), b: r.Int64(1), nullA: r.Null(0)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []row{{"x", long, "", 1, false}, {"", "中文", "1", 0, false}, {"", "", "blob", 0, true}, {"7", long + "z", "t", -9, false}}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: got a=%.20q b=%d c=%.20q d=%q null=%v, want a=%.20q b=%d c=%.20q d=%q null=%v", i,
				got[i].a, got[i].b, got[i].c, got[i].d, got[i].nullA, want[i].a, want[i].b, want[i].c, want[i].d, want[i].nullA)
		}
	}
	if _, err := c.exec(ctx, `SELECT nonsense FROM t`); err == nil {
		t.Error("a bad query gave no error")
	}
	if _, err := c.exec(ctx, `SELECT ?`, true); err == nil {
		t.Error("a bool was bound: want an error for a type the ledger does not store")
	}
}

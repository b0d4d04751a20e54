package ledger

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestRowShareIsRow: RowShare gives, row after row, what the row itself
// gives: the same text, and the same amount (value, precision, validity,
// error), over more distinct amounts than its table has slots, repeated
// near and far, "1.5" next to "1.50", NULLs and texts that are no amount.
func TestRowShareIsRow(t *testing.T) {
	ctx := context.Background()
	c := openScratchLite(t)
	if _, err := c.exec(ctx, `CREATE TABLE t(s TEXT, a TEXT)`); err != nil {
		t.Fatal(err)
	}
	if _, err := c.exec(ctx, `BEGIN`); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 8))
	fixed := []any{"1.5", "1.50", "-0.00", "2.47", "123456789012345678901234.5", "abc", "", nil, "1e3"}
	for i := range 6000 {
		var a any
		switch k := rng.IntN(10); {
		case k < 3:
			a = fixed[rng.IntN(len(fixed))]
		case k < 6:
			a = fmt.Sprintf("%d.%02d", rng.IntN(40), rng.IntN(100)) // few values, recurring
		default:
			a = fmt.Sprintf("%d.%08d", rng.IntN(1_000_000), rng.IntN(100_000_000)) // mostly distinct
		}
		s := []any{"autodl", "gpushare", nil, "", "中文"}[i%5]
		if _, err := c.exec(ctx, `INSERT INTO t VALUES (?, ?)`, s, a); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.exec(ctx, `COMMIT`); err != nil {
		t.Fatal(err)
	}
	share := NewRowShare(2)
	n, errs := 0, 0
	if err := c.query(ctx, `SELECT s, a FROM t ORDER BY rowid`, nil, func(r liteRow) error {
		row := Row{r: r}
		n++
		if got, want := share.Text(row, 0), string(row.Bytes(0)); got != want {
			t.Errorf("row %d: Text %q, the row %q", n, got, want)
		}
		got, gerr := share.Amount(row, 1)
		want, werr := row.Decimal(1)
		if (gerr != nil) != (werr != nil) {
			t.Errorf("row %d (%q): error %v, the row's %v", n, row.Bytes(1), gerr, werr)
		}
		if gerr != nil {
			errs++
		}
		if got.Valid != want.Valid || got.Valid && (got.Decimal.Exponent() != want.Decimal.Exponent() || !got.Decimal.Equal(want.Decimal)) {
			t.Errorf("row %d (%q): amount %v, the row's %v", n, row.Bytes(1), got, want)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 6000 || errs == 0 {
		t.Fatalf("read %d rows, %d with an amount error: the test reads nothing it should", n, errs)
	}
}

// TestTextArena: each string a textArena makes keeps its text while the
// bytes it was made from are overwritten and the arena goes on into new
// chunks, including texts longer than a chunk and the empty text.
func TestTextArena(t *testing.T) {
	var a textArena
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 0, 3*textArenaChunk)
	var got, want []string
	for i := range 20000 {
		n := rng.IntN(60)
		if i%5000 == 17 {
			n = textArenaChunk + rng.IntN(100)
		}
		buf = buf[:0]
		for range n {
			buf = append(buf, byte('a'+rng.IntN(26)))
		}
		got = append(got, a.String(buf))
		want = append(want, string(buf))
		for j := range buf {
			buf[j] = '#' // the caller's bytes change; the string must not
		}
	}
	chunks := 0
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("string %d is %.40q, want %.40q", i, got[i], want[i])
		}
		if len(want[i]) > textArenaChunk {
			chunks++
		}
	}
	if chunks < 4 {
		t.Fatalf("%d texts longer than a chunk: the test misses them", chunks)
	}
	if s := a.String(nil); s != "" {
		t.Errorf("String(nil) = %q", s)
	}
}

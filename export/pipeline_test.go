package export

import (
	"context"
	"errors"
	"testing"

	"github.com/gpubill/gpubill/ledger"
)

// TestPipelined hands every item to write in order, and stops both sides
// at the first error of either, returning it.
func TestPipelined(t *testing.T) {
	scan := func(n int, fail error) func(context.Context, func(*ledger.LineItem) error) error {
		return func(ctx context.Context, fn func(*ledger.LineItem) error) error {
			for i := range n {
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := fn(&ledger.LineItem{ID: int64(i + 1)}); err != nil {
					return err
				}
			}
			return fail
		}
	}
	var got []int64
	write := func(li *ledger.LineItem) error { got = append(got, li.ID); return nil }
	if err := pipelined(context.Background(), scan(1000, nil), write); err != nil || len(got) != 1000 {
		t.Fatalf("pipelined: %d items, %v; want 1000, nil", len(got), err)
	}
	for i, id := range got {
		if id != int64(i+1) {
			t.Fatalf("item %d is %d: out of order", i, id)
		}
	}
	// A write error stops the scan, which would otherwise run for ever.
	full := errors.New("disk full")
	written := 0
	err := pipelined(context.Background(), scan(1<<62, nil), func(li *ledger.LineItem) error {
		if written++; written == 300 {
			return full
		}
		return nil
	})
	if !errors.Is(err, full) || written != 300 {
		t.Errorf("write error: %v after %d writes; want %v after 300", err, written, full)
	}
	// A scan error is returned (the partition is then dropped whole).
	broken := errors.New("disk I/O error")
	if err := pipelined(context.Background(), scan(600, broken), write); !errors.Is(err, broken) {
		t.Errorf("scan error: %v, want %v", err, broken)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := pipelined(ctx, scan(1<<62, nil), write); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

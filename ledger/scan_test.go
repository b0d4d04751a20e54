package ledger

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/money"
)

func TestScanReadsColumns(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	a, b := item("a", "416.00"), item("b", "0.00107392473")
	b.UsageStart = time.Date(2026, 10, 3, 6, 0, 0, 0, time.UTC)
	importItems(t, db, []LineItem{a, b})
	var got []string
	cols := []string{"row_key", "billed_cost", "voucher_paid", "usage_start", "source_row"}
	fn, err := ItemsOf(cols, func(li *LineItem) error {
		got = append(got, strings.Join([]string{li.RowKey, money.String(li.BilledCost),
			map[bool]string{true: "voucher", false: "no voucher"}[li.VoucherPaid.Valid], li.UsageStart.Format(time.RFC3339)}, " "))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Scan(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM line_items WHERE billing_period = ? ORDER BY id`, []any{a.BillingPeriod},
		func(r Row) error {
			if r.Null(3) != (r.Text(0) == "a") || string(r.Bytes(0)) != r.Text(0) {
				return fmt.Errorf("row %s: Null(3) %v, Bytes(0) %q", r.Text(0), r.Null(3), r.Bytes(0))
			}
			return fn(r)
		})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a 416.00 no voucher 0001-01-01T00:00:00Z", "b 0.00107392473 no voucher 2026-10-03T06:00:00Z"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("scanned %q, want %q", got, want)
	}
	if err := db.Scan(ctx, `SELECT dsum(billed_cost) FROM line_items`, nil, func(Row) error { return nil }); err == nil {
		t.Error("dsum is not defined on a Scan's connection, yet the query ran")
	}
}

// A NULL amount or time reads as unknown; an empty or malformed text is an
// error (a damaged ledger), also when the reader shares the value of the
// row before.
func TestScanNullEmptyAndBadValues(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	for _, tt := range []struct {
		value       string // SQL literal
		wantDecimal string // "null", "error" or the amount
		wantTime    string // "zero", "error" or RFC 3339
	}{
		{"NULL", "null", "zero"},
		{"''", "error", "error"},
		{"'x'", "error", "error"},
		{"'1.50'", "1.50", "error"},
		{"'2026-10-03T06:00:00Z'", "error", "2026-10-03T06:00:00Z"},
	} {
		var gotDec, gotTime string
		dec := newItemReader([]*column{&lineItemColumns[columnIndex["list_cost"]]}, nil)
		tm := newItemReader([]*column{&lineItemColumns[columnIndex["usage_start"]]}, nil)
		err := db.Scan(ctx, "SELECT "+tt.value, nil, func(r Row) error {
			for range 2 { // the second read is the shared one
				var li LineItem
				if err := dec.read(r, &li); err != nil {
					gotDec = "error"
				} else if d := li.ListCost; !d.Valid {
					gotDec = "null"
				} else {
					gotDec = money.String(d.Decimal)
				}
				if err := tm.read(r, &li); err != nil {
					gotTime = "error"
				} else if li.UsageStart.IsZero() {
					gotTime = "zero"
				} else {
					gotTime = li.UsageStart.Format(time.RFC3339)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if gotDec != tt.wantDecimal || gotTime != tt.wantTime {
			t.Errorf("%s: amount %s, time %s; want %s, %s", tt.value, gotDec, gotTime, tt.wantDecimal, tt.wantTime)
		}
	}
}

// ScanItems reads every selected row once, in parts side by side; with
// IDDescending each part comes from its highest id down.
func TestScanItemsDescending(t *testing.T) {
	defer func(n int64) { loadPartMin = n }(loadPartMin)
	loadPartMin = 10 // several parts for a small ledger
	db := openTest(t)
	var items []LineItem
	for i := range 100 {
		items = append(items, item(fmt.Sprintf("k%03d", i), "1"))
	}
	importItems(t, db, items)
	for _, desc := range []bool{false, true} {
		var parts [][]int64
		order := AnyOrder
		if desc {
			order = IDDescending
		}
		n, err := db.ScanItems(context.Background(), Filter{Month: "2026-10"}, order, []string{"id"}, func(int) func(*LineItem) error {
			parts = append(parts, nil)
			p := len(parts) - 1
			return func(li *LineItem) error {
				parts[p] = append(parts[p], li.ID)
				return nil
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if n < 2 {
			t.Fatalf("descending %v: %d parts, want several", desc, n)
		}
		var all []int64
		for _, p := range parts {
			if desc && !slices.IsSortedFunc(p, func(a, b int64) int { return cmp.Compare(b, a) }) {
				t.Errorf("descending: a part's ids %v are not in descending order", p)
			}
			all = append(all, p...)
		}
		slices.Sort(all)
		if len(all) != 100 || all[0] != 1 || all[99] != 100 || len(slices.Compact(all)) != 100 {
			t.Errorf("descending %v: read ids %v, want 1…100 once each", desc, all)
		}
	}
}

package ingest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// TestUndoKeepsRowsAnotherImportBrought: import A (15 charges), then an
// overlapping export B (25 charges, 10 of them A's), then undo A: every
// charge of B stays, cited at its row in B, and the total is B's.
func TestUndoKeepsRowsAnotherImportBrought(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	charge := func(h int) string {
		d, hh := 2+h/24, h%24
		return fmt.Sprintf("AutoDL,u-1,GPU计算,2026-10-%02d %02d:00,2026-10-%02d %02d:59,%s\n", d, hh, d, hh, amountOf(h))
	}
	var a, b strings.Builder
	a.WriteString(templateHeader)
	b.WriteString(templateHeader)
	want := decimal.Zero
	for h := 0; h < 15; h++ { // A: hours 0–14
		a.WriteString(charge(h))
	}
	for h := 5; h < 30; h++ { // B: hours 5–29, 10 of them in A
		b.WriteString(charge(h))
		want = want.Add(decimal.RequireFromString(amountOf(h)))
	}
	pa := writeTemp(t, dir, "a.csv", []byte(a.String()))
	pb := writeTemp(t, dir, "b.csv", []byte(b.String()))
	db := openHostileLedger(t)
	if _, err := ImportFile(ctx, db, pa, Options{TZ: shanghai}); err != nil {
		t.Fatal(err)
	}
	res, err := ImportFile(ctx, db, pb, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if res.New != 15 || res.Duplicate != 10 {
		t.Fatalf("B: got %d new, %d duplicate; want 15, 10", res.New, res.Duplicate)
	}
	ims, err := db.Imports(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var idA int64
	for _, im := range ims {
		if im.Path == pa {
			idA = im.ID
		}
	}
	if _, err := db.UndoImport(ctx, idA); err != nil {
		t.Fatal(err)
	}
	got := decimal.Zero
	for _, c := range billedCosts(t, db) {
		got = got.Add(decimal.RequireFromString(c))
	}
	if !got.Equal(want) {
		t.Errorf("after undoing A the ledger holds %s, want %s (B's charges)", got, want)
	}
	// Every row left is cited at its own row in B: hour h is record h-4.
	rows, err := db.SQL().Query(`SELECT im.path, li.source_row, li.charge_period_start FROM line_items li JOIN imports im ON im.id = li.import_id ORDER BY li.charge_period_start`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var path, start string
		var rec int
		if err := rows.Scan(&path, &rec, &start); err != nil {
			t.Fatal(err)
		}
		if path != pb || rec != n+1 {
			t.Errorf("row %d (%s) is cited as %s record %d, want %s record %d", n, start, path, rec, pb, n+1)
		}
		n++
	}
	if n != 25 {
		t.Errorf("%d rows left, want 25", n)
	}
	// Undoing B too leaves nothing, and no claim behind.
	ims, _ = db.Imports(ctx, 0)
	for _, im := range ims {
		if _, err := db.UndoImport(ctx, im.ID); err != nil {
			t.Fatal(err)
		}
	}
	if n := countRows(t, db, "line_items") + countRows(t, db, "row_claims"); n != 0 {
		t.Errorf("after undoing both imports %d rows and claims are left", n)
	}
}

// amountOf is charge h's amount: 0.55, 0.60, … (distinct, so a lost or
// doubled row shows in the total).
func amountOf(h int) string { return decimal.New(int64(55+5*h), -2).String() }

// TestReExportWithChangedNote: the same charges exported again with their
// 说明 rewritten add nothing and say so; a charge that is really new is
// added; two identical charges of which the ledger held one add one.
func TestReExportWithChangedNote(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	header := strings.TrimSuffix(templateHeader, "\n") + ",说明\n"
	first := header +
		"AutoDL,n-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88,训练\n" +
		"AutoDL,n-1,GPU计算,2026-10-02 11:00,2026-10-02 12:00,1.88,训练\n" +
		"AutoDL,n-2,存储,2026-10-02 00:00,2026-10-03 00:00,0.50,数据盘\n"
	again := header +
		"AutoDL,n-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88,训练 (RTX 4090)\n" +
		"AutoDL,n-1,GPU计算,2026-10-02 11:00,2026-10-02 12:00,1.88,\n" +
		"AutoDL,n-2,存储,2026-10-02 00:00,2026-10-03 00:00,0.50,数据盘\n" +
		"AutoDL,n-2,存储,2026-10-02 00:00,2026-10-03 00:00,0.50,数据盘 2\n" + // a second, identical charge
		"AutoDL,n-3,GPU计算,2026-10-02 12:00,2026-10-02 13:00,2.10,新\n"
	db := openHostileLedger(t)
	if _, err := ImportFile(ctx, db, writeTemp(t, dir, "first.csv", []byte(first)), Options{TZ: shanghai}); err != nil {
		t.Fatal(err)
	}
	res, err := ImportFile(ctx, db, writeTemp(t, dir, "again.csv", []byte(again)), Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if res.New != 2 || res.Duplicate != 3 {
		t.Errorf("re-export: got %d new, %d duplicate; want 2 (n-3, the second n-2), 3", res.New, res.Duplicate)
	}
	got := decimal.Zero
	for _, c := range billedCosts(t, db) {
		got = got.Add(decimal.RequireFromString(c))
	}
	if want := decimal.RequireFromString("6.86"); !got.Equal(want) {
		t.Errorf("the ledger holds %s, want %s", got, want)
	}
	var warned bool
	for _, w := range res.Warnings {
		warned = warned || strings.Contains(w.EN, "2 rows are charges already in the ledger (import 1) with only their description changed")
	}
	if !warned {
		t.Errorf("got warnings %+v, want one about 2 re-exported rows", res.Warnings)
	}
	if countRows(t, db, "line_items") != 5 {
		t.Errorf("the ledger holds %d line items, want 5", countRows(t, db, "line_items"))
	}
}

// TestSamePathEdited: the same path imported again after two rows were
// edited says so.
func TestSamePathEdited(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openHostileLedger(t)
	path := writeTemp(t, dir, "bill.csv", []byte(templateHeader+goodRows))
	if res, err := ImportFile(ctx, db, path, Options{TZ: shanghai}); err != nil || len(res.Warnings) != 0 {
		t.Fatalf("first import: %v, warnings %+v", err, res.Warnings)
	}
	if res, err := ImportFile(ctx, db, path, Options{TZ: shanghai}); err != nil || len(res.Warnings) != 0 || res.Duplicate != 2 {
		t.Fatalf("the same file again: %v, %d duplicate, warnings %+v; want 2 duplicates and no warning", err, res.Duplicate, res.Warnings)
	}
	writeTemp(t, dir, "bill.csv", []byte(templateHeader+strings.ReplaceAll(goodRows, "1.88", "1.99")))
	res, err := ImportFile(ctx, db, path, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].EN, "a file at this path was imported before (import 1, 2) with other content") ||
		!strings.Contains(res.Warnings[0].ZH, "内容已改变") {
		t.Errorf("edited file: got warnings %+v, want one saying the path was imported before with other content", res.Warnings)
	}
}

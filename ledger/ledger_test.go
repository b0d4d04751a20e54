package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func openTest(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "sub", "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func item(key, amount string) LineItem {
	start := time.Date(2026, 10, 3, 6, 0, 0, 0, time.UTC)
	return LineItem{Provider: "autodl", BillingPeriod: "2026-10",
		ChargePeriodStart: start, ChargePeriodEnd: start.Add(time.Hour), ChargeCategory: CategoryUsage,
		Kind: KindCompute, BilledCost: decimal.RequireFromString(amount),
		Currency: "CNY", RowKey: key, SourceRow: 1, Raw: []string{"a", amount}}
}

// importItems writes items as one file and returns how many were new.
func importItems(t testing.TB, db *DB, items []LineItem) int {
	t.Helper()
	return importItemsWith(t, db, items, (*ImportTx).InsertLineItems)
}

// importItemsWith is importItems with the items written by insert.
func importItemsWith(t testing.TB, db *DB, items []LineItem, insert func(*ImportTx, context.Context, []LineItem) (int, error)) int {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginImport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	imp := &Import{Path: "x.csv", SHA256: "00", Format: "test"}
	if err := tx.AddImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	for i := range items {
		items[i].ImportID = imp.ID
	}
	n, err := insert(tx, ctx, items)
	if err != nil {
		t.Fatal(err)
	}
	imp.RowsNew = n
	if err := tx.FinishImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpenCreatesPrivateFileAndMigratesOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data", "ledger.db")
	for i := 0; i < 2; i++ {
		db, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		var n, v int
		if err := db.SQL().QueryRow(`SELECT count(*), max(version) FROM schema_migrations`).Scan(&n, &v); err != nil {
			t.Fatal(err)
		}
		// Numbers may have gaps (branches reserve theirs): one row each.
		ms, _ := migrations()
		if n != len(ms) || v != SchemaVersion() {
			t.Errorf("open %d: migrations %d rows, version %d; want %d rows, version %d", i, n, v, len(ms), SchemaVersion())
		}
		db.Close()
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("ledger mode %v, want 0600", st.Mode().Perm())
	}
	dst, _ := os.Stat(filepath.Dir(path))
	if dst.Mode().Perm() != 0o700 {
		t.Errorf("ledger dir mode %v, want 0700", dst.Mode().Perm())
	}
}

func TestDsumIsExact(t *testing.T) {
	db := openTest(t)
	amounts := []string{"0.00107392473", "52815.31669621", "-0.1", "0.2", "1e-11", "3"}
	var items []LineItem
	want := decimal.Zero
	for i, a := range amounts {
		items = append(items, item(string(rune('a'+i)), a))
		want = want.Add(decimal.RequireFromString(a))
	}
	importItems(t, db, items)
	var got, float string
	if err := db.SQL().QueryRow(`SELECT dsum(billed_cost), CAST(sum(billed_cost) AS TEXT) FROM line_items`).Scan(&got, &float); err != nil {
		t.Fatal(err)
	}
	if !decimal.RequireFromString(got).Equal(want) {
		t.Errorf("dsum = %s, want %s", got, want)
	}
	if float == want.String() {
		t.Logf("SQLite SUM happened to be exact here (%s)", float)
	}
	var null *string
	if err := db.SQL().QueryRow(`SELECT dsum(voucher_paid) FROM line_items`).Scan(&null); err != nil {
		t.Fatal(err)
	}
	if null != nil {
		t.Errorf("dsum of only NULLs = %q, want NULL", *null)
	}
	if _, err := db.SQL().Exec(`SELECT dsum(1.5)`); err == nil {
		t.Error("dsum accepted a float")
	}
}

func TestInsertIgnoresKnownRowKeys(t *testing.T) {
	db := openTest(t)
	if n := importItems(t, db, []LineItem{item("k1", "1"), item("k2", "2")}); n != 2 {
		t.Fatalf("first import added %d, want 2", n)
	}
	if n := importItems(t, db, []LineItem{item("k2", "2"), item("k3", "3")}); n != 1 {
		t.Fatalf("overlapping import added %d, want 1", n)
	}
	items, err := lineItems(context.Background(), db, Filter{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 || items[0].File != "x.csv" || items[0].Raw[0] != "a" || items[0].VoucherPaid.Valid {
		t.Errorf("got %d items, first %+v", len(items), items[0])
	}
}

func TestRollbackLeavesNothing(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	tx, err := db.BeginImport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	imp := &Import{Path: "bad.csv", Format: "test"}
	if err := tx.AddImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	it := item("k1", "1")
	it.ImportID = imp.ID
	if _, err := tx.InsertLineItems(ctx, []LineItem{it}); err != nil {
		t.Fatal(err)
	}
	tx.Rollback()
	var n, m int
	db.SQL().QueryRow(`SELECT (SELECT count(*) FROM line_items), (SELECT count(*) FROM imports)`).Scan(&n, &m)
	if n != 0 || m != 0 {
		t.Errorf("after rollback: %d line items, %d imports; want 0, 0", n, m)
	}
}

func TestSaveAuditIsIdempotent(t *testing.T) {
	db := openTest(t)
	importItems(t, db, []LineItem{item("k1", "1")})
	ctx := context.Background()
	mk := func() []Finding {
		return []Finding{{Fingerprint: "fp1", RuleID: "seat_fee", Severity: SeverityLow, Provider: "autodl",
			PeriodStart: time.Unix(0, 0), PeriodEnd: time.Unix(3600, 0), Currency: "CNY",
			AmountAtRisk: decimal.NewNullDecimal(decimal.RequireFromString("1.5")),
			ReasonZH:     "原因", ReasonEN: "reason", Evidence: []Evidence{{LineItemID: 1, File: "x.csv", Row: 1}}}}
	}
	if _, err := db.SaveAudit(ctx, "2026-10", "Asia/Shanghai", "{}", mk()); err != nil {
		t.Fatal(err)
	}
	if err := db.SetFindingState(ctx, "fp1", "acknowledged"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveAudit(ctx, "2026-10", "Asia/Shanghai", "{}", mk()); err != nil {
		t.Fatal(err)
	}
	fs, err := db.Findings(ctx, "2026-10")
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].State != "acknowledged" || len(fs[0].Evidence) != 1 || !fs[0].AmountAtRisk.Decimal.Equal(decimal.RequireFromString("1.5")) {
		t.Errorf("after two audits: %+v", fs)
	}
	if err := db.SetFindingState(ctx, "nope", "resolved"); err == nil {
		t.Error("SetFindingState on an unknown fingerprint succeeded")
	}
}

// TestSaveAuditInBatches: findings stored across several upsert statements
// (findingBatch each) get ids in the order given; a rerun with part of them,
// in another order and with other evidence, keeps their ids and states,
// replaces their evidence, adds the new ones after, and prunes the open ones
// it no longer produced.
func TestSaveAuditInBatches(t *testing.T) {
	db := openTest(t)
	var items []LineItem
	for i := range 5 {
		items = append(items, item(fmt.Sprintf("k%d", i), "1"))
	}
	importItems(t, db, items)
	ctx := context.Background()
	n := 2*findingBatch + 7
	mk := func(i int, ev ...int64) Finding {
		f := Finding{Fingerprint: fmt.Sprintf("fp%03d", i), RuleID: "seat_fee", Severity: SeverityLow, Provider: "autodl",
			PeriodStart: time.Unix(0, 0), PeriodEnd: time.Unix(3600, 0), Currency: "CNY",
			AmountAtRisk: decimal.NewNullDecimal(decimal.New(int64(i), -2)), ReasonZH: "原因", ReasonEN: "reason"}
		for _, id := range ev {
			f.Evidence = append(f.Evidence, Evidence{LineItemID: id, File: "x.csv", Row: int(id)})
		}
		return f
	}
	var first []Finding
	for i := range n {
		first = append(first, mk(i, 1, 2))
	}
	if _, err := db.SaveAudit(ctx, "2026-10", "Asia/Shanghai", "{}", first); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < n; i++ {
		if first[i].ID <= first[i-1].ID {
			t.Fatalf("ids not in the order given: %s has %d after %d", first[i].Fingerprint, first[i].ID, first[i-1].ID)
		}
	}
	if err := db.SetFindingState(ctx, "fp005", "acknowledged"); err != nil {
		t.Fatal(err)
	}
	// Rerun: the odd ones and fp005, backwards, with new evidence, plus new ones.
	var second []Finding
	for i := n - 1; i >= 0; i-- {
		if i%2 == 1 || i == 5 {
			second = append(second, mk(i, 3))
		}
	}
	for i := n; i < n+findingBatch; i++ {
		second = append(second, mk(i, 4, 5))
	}
	if _, err := db.SaveAudit(ctx, "2026-10", "Asia/Shanghai", "{}", second); err != nil {
		t.Fatal(err)
	}
	stored, err := db.Findings(ctx, "2026-10")
	if err != nil {
		t.Fatal(err)
	}
	firstID := map[string]int64{}
	for _, f := range first {
		firstID[f.Fingerprint] = f.ID
	}
	byFP := map[string]Finding{}
	for _, f := range stored {
		byFP[f.Fingerprint] = f
	}
	if len(stored) != len(second) {
		t.Fatalf("%d findings stored after the rerun, want %d", len(stored), len(second))
	}
	for _, f := range second {
		got, ok := byFP[f.Fingerprint]
		var ev []int64
		for _, e := range got.Evidence {
			ev = append(ev, e.LineItemID)
		}
		want := "[3]"
		if old, seen := firstID[f.Fingerprint]; !seen {
			want = "[4 5]"
			if got.ID <= first[n-1].ID {
				t.Errorf("%s is new but got id %d, not after the first run's", f.Fingerprint, got.ID)
			}
		} else if got.ID != old || f.ID != old {
			t.Errorf("%s: id %d (set %d), want the first run's %d", f.Fingerprint, got.ID, f.ID, old)
		}
		wantState := "open"
		if f.Fingerprint == "fp005" {
			wantState = "acknowledged"
		}
		if !ok || fmt.Sprint(ev) != want || got.State != wantState || f.State != wantState {
			t.Errorf("%s: stored %v, evidence %v, state %q (set %q); want evidence %s, state %s", f.Fingerprint, ok, ev, got.State, f.State, want, wantState)
		}
	}
	var orphans int
	db.SQL().QueryRow(`SELECT count(*) FROM finding_evidence WHERE finding_id NOT IN (SELECT id FROM findings)`).Scan(&orphans)
	if orphans != 0 {
		t.Errorf("%d evidence rows of pruned findings left", orphans)
	}
}

func TestDefaultMonth(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	if m, _ := db.DefaultMonth(ctx, time.Now()); m != "" {
		t.Errorf("empty ledger: %q", m)
	}
	a, b := item("a", "1"), item("b", "1")
	b.BillingPeriod = "2026-11"
	importItems(t, db, []LineItem{a, b})
	for _, tc := range []struct{ now, want string }{{"2026-11-15", "2026-10"}, {"2026-12-01", "2026-11"}, {"2026-09-01", "2026-11"}} {
		now, _ := time.Parse("2006-01-02", tc.now)
		if got, _ := db.DefaultMonth(ctx, now); got != tc.want {
			t.Errorf("now %s: got %s, want %s", tc.now, got, tc.want)
		}
	}
}

// TestDefaultMonthSkipsSpillOver: a month's export that carries one row
// of the next month (a 腾讯云 row deducted at 00:00 on the 1st) leaves the
// default on the month that holds the bulk of the data; once the next
// month's own export is imported, that month is the default.
func TestDefaultMonthSkipsSpillOver(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	var oct []LineItem
	for i := range 9 {
		oct = append(oct, item(fmt.Sprintf("r%d", i), "1"))
	}
	spill := item("spill", "0.02")
	spill.BillingPeriod = "2026-11"
	importPeriods(t, db, append(oct, spill))
	now, _ := time.Parse("2006-01-02", "2026-12-05")
	if got, _ := db.DefaultMonth(ctx, now); got != "2026-10" {
		t.Errorf("October's export with one November row: got %s, want 2026-10", got)
	}
	var nov []LineItem
	for i := range 3 {
		li := item(fmt.Sprintf("n%d", i), "1")
		li.BillingPeriod = "2026-11"
		nov = append(nov, li)
	}
	importPeriods(t, db, nov)
	if got, _ := db.DefaultMonth(ctx, now); got != "2026-11" {
		t.Errorf("with November's own export: got %s, want 2026-11", got)
	}
}

// importPeriods imports items as one file, recording its provider-months
// as the importer does (ImportTx.AddImportPeriods).
func importPeriods(t *testing.T, db *DB, items []LineItem) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginImport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	imp := &Import{Path: "x.csv", SHA256: fmt.Sprint(len(items)), Format: "test"}
	if err := tx.AddImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	counts := map[PeriodKey]int{}
	for i := range items {
		items[i].ImportID = imp.ID
		counts[PeriodKey{items[i].Provider, items[i].BillingPeriod}]++
	}
	if imp.RowsNew, err = tx.InsertLineItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	if err := tx.AddImportPeriods(ctx, imp.ID, counts); err != nil {
		t.Fatal(err)
	}
	if err := tx.FinishImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func indexNames(t *testing.T, db *DB) []string {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'line_items' AND sql IS NOT NULL ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	return names
}

func TestDeferIndexesRebuildsOrRestores(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	want := indexNames(t, db)
	if len(want) < 2 {
		t.Fatalf("schema has indexes %v, want at least 2 (dedupe key, period)", want)
	}
	for _, commit := range []bool{false, true} {
		tx, err := db.BeginImport(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.DeferIndexes(ctx, false); err != nil {
			t.Fatal(err)
		}
		imp := &Import{Path: "bulk.csv", Format: "test"}
		if err := tx.AddImport(ctx, imp); err != nil {
			t.Fatal(err)
		}
		a, b := item("bulk1", "1"), item("bulk1", "1")
		a.ImportID, b.ImportID = imp.ID, imp.ID
		n, err := tx.InsertLineItems(ctx, []LineItem{a, b})
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("with deferred indexes, a repeated row key was inserted %d times, want once", n)
		}
		if commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := indexNames(t, db); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("commit=%v: indexes %v, want %v", commit, got, want)
		}
	}
	var n int
	db.SQL().QueryRow(`SELECT count(*) FROM line_items INDEXED BY line_items_month WHERE billing_period = '2026-10'`).Scan(&n)
	if n != 1 {
		t.Errorf("rebuilt index finds %d rows, want 1", n)
	}
}

// With the unique dedupe index deferred too (an empty ledger), the keys are
// checked when it is rebuilt at commit: distinct keys commit, a repeated one
// fails the commit and leaves nothing.
func TestDeferUniqueIndex(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	want := indexNames(t, db)
	for _, tc := range []struct {
		name   string
		keys   []string
		wantOK bool
	}{{"distinct keys", []string{"u1", "u2"}, true}, {"a repeated key", []string{"u3", "u3"}, false}} {
		tx, err := db.BeginImport(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.DeferIndexes(ctx, true); err != nil {
			t.Fatal(err)
		}
		imp := &Import{Path: "bulk.csv", Format: "test"}
		if err := tx.AddImport(ctx, imp); err != nil {
			t.Fatal(err)
		}
		var items []LineItem
		for _, k := range tc.keys {
			it := item(k, "1")
			it.ImportID = imp.ID
			items = append(items, it)
		}
		if _, err := tx.InsertLineItems(ctx, items); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); (err == nil) != tc.wantOK {
			t.Errorf("%s: commit error %v, want ok %v", tc.name, err, tc.wantOK)
		}
		if got := indexNames(t, db); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: indexes %v, want %v", tc.name, got, want)
		}
	}
	var n int
	db.SQL().QueryRow(`SELECT count(*) FROM line_items`).Scan(&n)
	if n != 2 {
		t.Errorf("%d line items stored, want the 2 of the committed import", n)
	}
}

func TestDsumKeepsTheFinestPrecision(t *testing.T) {
	db := openTest(t)
	importItems(t, db, []LineItem{item("a", "416.00"), item("b", "0.5")})
	var got string
	if err := db.SQL().QueryRow(`SELECT dsum(billed_cost) FROM line_items`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "416.50" {
		t.Errorf("dsum = %s, want 416.50 (the finer of the terms' precisions)", got)
	}
}

func TestPaymentsAndTransactionsRoundTrip(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	tx, err := db.BeginImport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	imp := &Import{Path: "alipay.csv", Format: "test"}
	if err := tx.AddImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 10, 1, 1, 12, 40, 0, time.UTC)
	p := Payment{Source: "alipay", Time: when, Direction: "out", Counterparty: "优刻得", Amount: decimal.RequireFromString("200.00"),
		Currency: "CNY", Status: "交易成功", OrderNo: "2026100122001", MerchantOrderNo: "AD202610010912", Raw: []string{"x"},
		ImportID: imp.ID, SourceRow: 1, RowKey: "p1"}
	x := Transaction{Provider: "autodl", Time: when.Add(time.Minute), Type: TxTopup, Amount: decimal.RequireFromString("200.00"),
		Currency: "CNY", Balance: decimal.NewNullDecimal(decimal.RequireFromString("200.00")), Reference: "AD202610010912",
		ImportID: imp.ID, SourceRow: 1, RowKey: "t1"}
	for i := 0; i < 2; i++ { // the second write of the same keys adds nothing
		np, err := tx.InsertPayments(ctx, []Payment{p})
		if err != nil {
			t.Fatal(err)
		}
		nt, err := tx.InsertTransactions(ctx, []Transaction{x})
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 - i; np != want || nt != want {
			t.Errorf("write %d: new payments %d, transactions %d; want %d each", i+1, np, nt, want)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	ps, err := db.Payments(ctx, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Amount.String() != "200" || ps[0].MerchantOrderNo != "AD202610010912" || !ps[0].Time.Equal(when) {
		t.Errorf("payments: %+v", ps)
	}
	if got, _ := db.Payments(ctx, when.Add(time.Second), when.Add(time.Hour)); len(got) != 0 {
		t.Errorf("time filter kept %d payments", len(got))
	}
	xs, err := db.Transactions(ctx, "autodl", time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(xs) != 1 || !xs[0].Balance.Valid || xs[0].Type != TxTopup {
		t.Errorf("transactions: %+v", xs)
	}
	if got, _ := db.Transactions(ctx, "gpushare", time.Time{}, time.Time{}); len(got) != 0 {
		t.Errorf("provider filter kept %d transactions", len(got))
	}
}

func TestOpenPathWithURICharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a?b#c%d", "ledger.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the ledger is not where asked: %v", err)
	}
	ro, err := OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.SQL().Exec(`DELETE FROM imports`); err == nil {
		t.Error("a read-only ledger accepted a DELETE")
	}
}

func TestReadNoRaw(t *testing.T) {
	db := openTest(t)
	importItems(t, db, []LineItem{item("k1", "1")})
	for _, noRaw := range []bool{false, true} {
		items := readItems(t, db, Filter{}, Read{NoRaw: noRaw})
		if got := len(items[0].Raw); (got == 0) != noRaw {
			t.Errorf("NoRaw %v: %d raw cells", noRaw, got)
		}
	}
}

func TestImportsAndUndo(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	importItems(t, db, []LineItem{item("a", "1"), item("b", "2")})
	importItems(t, db, []LineItem{item("b", "2"), item("c", "3")}) // b is a duplicate of the first import
	ims, err := db.Imports(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ims) != 2 || ims[0].ID <= ims[1].ID || ims[0].RowsNew != 1 {
		t.Fatalf("imports: %+v", ims)
	}
	n, err := db.UndoImport(ctx, ims[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("undo removed %d rows, want 1 (c; b belongs to the first import)", n)
	}
	var keys []string
	items, _ := lineItems(ctx, db, Filter{})
	for _, li := range items {
		keys = append(keys, li.RowKey)
	}
	if strings.Join(keys, ",") != "a,b" {
		t.Errorf("left %v, want a,b", keys)
	}
	if _, err := db.UndoImport(ctx, ims[0].ID); err == nil {
		t.Error("undoing a removed import succeeded")
	}
	if got, _ := db.Imports(ctx, 0); len(got) != 1 {
		t.Errorf("%d imports left, want 1", len(got))
	}
}

// openWithPageSize opens a ledger made of a database that SQLite created
// with pages of size bytes before gpubill first opened it.
func openWithPageSize(t *testing.T, size int) *DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(fmt.Sprintf("PRAGMA page_size = %d; CREATE TABLE before_gpubill(x)", size)); err != nil {
		t.Fatal(err)
	}
	old.Close()
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// A new ledger gets pageSize pages; a ledger created with another page size
// keeps it, and works.
func TestPageSizeOfNewAndExistingLedgers(t *testing.T) {
	ctx := context.Background()
	pageSizeOf := func(db *DB) int {
		t.Helper()
		var n int
		if err := db.SQL().QueryRowContext(ctx, "PRAGMA page_size").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := pageSizeOf(openTest(t)); got != pageSize {
		t.Errorf("new ledger: page size %d, want %d", got, pageSize)
	}

	db := openWithPageSize(t, 4096)
	if n := importItems(t, db, []LineItem{item("a", "1.5"), item("b", "2")}); n != 2 {
		t.Fatalf("imported %d items, want 2", n)
	}
	if got := pageSizeOf(db); got != 4096 {
		t.Errorf("existing ledger: page size %d, want its own 4096", got)
	}
	var sum, check string
	if err := db.SQL().QueryRowContext(ctx, "SELECT dsum(billed_cost) FROM line_items").Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if err := db.SQL().QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil {
		t.Fatal(err)
	}
	if sum != "3.5" || check != "ok" {
		t.Errorf("existing ledger: sum %s, integrity %s; want 3.5, ok", sum, check)
	}
}

// SaveAudit refuses two findings with one fingerprint, in one batch of the
// writer or in two, and stores nothing.
func TestSaveAuditRefusesRepeatedFingerprints(t *testing.T) {
	db := openTest(t)
	importItems(t, db, []LineItem{item("k", "1")})
	ctx := context.Background()
	for _, at := range []int{1, findingBatch + 3} {
		var fs []Finding
		for i := range findingBatch + 5 {
			fp := fmt.Sprintf("fp%03d", i)
			if i == at {
				fp = "fp000"
			}
			fs = append(fs, Finding{Fingerprint: fp, RuleID: "seat_fee", Severity: SeverityLow, Provider: "autodl",
				PeriodStart: time.Unix(0, 0), PeriodEnd: time.Unix(3600, 0), Currency: "CNY", ReasonZH: "原因", ReasonEN: "reason",
				Evidence: []Evidence{{LineItemID: 1, File: "x.csv", Row: 1}}})
		}
		if _, err := db.SaveAudit(ctx, "2026-10", "Asia/Shanghai", "{}", fs); err == nil || !strings.Contains(err.Error(), "fp000") {
			t.Errorf("fp000 again at %d: %v, want an error naming it", at, err)
		}
		if stored, err := db.Findings(ctx, "2026-10"); err != nil || len(stored) != 0 {
			t.Errorf("fp000 again at %d: %d findings stored (%v), want none", at, len(stored), err)
		}
	}
}

package ledger

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/shopspring/decimal"
)

var update = flag.Bool("update", false, "rewrite the ledger's test fixtures (testdata/schema-v2.db)")

// shortWaits makes one attempt at the write lock give up after 100 ms, so
// that a test holding the lock for a second proves the retry loop, not a
// long busy_timeout.
func shortWaits(t *testing.T) {
	t.Helper()
	bt, wn := busyTimeout, waitNoticeAfter
	busyTimeout, waitNoticeAfter = 100*time.Millisecond, 50*time.Millisecond
	t.Cleanup(func() { busyTimeout, waitNoticeAfter = bt, wn })
}

// holdWriteLock begins an import on db, writes one row and commits it after
// hold; the returned channel yields the commit's error.
func holdWriteLock(t *testing.T, db *DB, hold time.Duration) (started <-chan struct{}, done <-chan error) {
	t.Helper()
	st, dn := make(chan struct{}), make(chan error, 1)
	go func() {
		ctx := context.Background()
		tx, err := db.BeginImport(ctx)
		if err != nil {
			close(st)
			dn <- err
			return
		}
		imp := &Import{Path: "first.csv", SHA256: "01", Format: "test"}
		if err := tx.AddImport(ctx, imp); err != nil {
			tx.Rollback()
			close(st)
			dn <- err
			return
		}
		it := item("first-1", "1.00")
		it.ImportID = imp.ID
		n, err := tx.InsertLineItems(ctx, []LineItem{it})
		if err == nil {
			imp.RowsNew = n
			err = tx.FinishImport(ctx, imp)
		}
		close(st)
		time.Sleep(hold)
		if err != nil {
			tx.Rollback()
			dn <- err
			return
		}
		dn <- tx.Commit()
	}()
	return st, dn
}

func TestSecondWriterWaitsForTheFirst(t *testing.T) {
	shortWaits(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	first, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	var waits atomic.Int32
	second, err := OpenWith(ctx, path, Options{OnWait: func() { waits.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()

	const hold = 1500 * time.Millisecond // 15 times the busy timeout of one attempt
	started, done := holdWriteLock(t, first, hold)
	<-started
	t0 := time.Now()

	// A reader does not wait for the writer (WAL).
	var n int
	if err := second.SQL().QueryRowContext(ctx, `SELECT count(*) FROM line_items`).Scan(&n); err != nil {
		t.Fatalf("read while another connection writes: %v", err)
	}
	if took := time.Since(t0); took > hold/2 {
		t.Errorf("a read waited %v for the writer, want no wait", took)
	}

	// Two writes of the second process: both wait, the notice comes once.
	for i := 0; i < 2; i++ {
		got := importItems(t, second, []LineItem{item(fmt.Sprintf("second-%d", i), "2.00")})
		if got != 1 {
			t.Errorf("second import %d: got %d new rows, want 1", i, got)
		}
	}
	if took := time.Since(t0); took < hold-100*time.Millisecond {
		t.Errorf("the second writer finished after %v, before the first released the lock (%v)", took, hold)
	}
	if err := <-done; err != nil {
		t.Fatalf("first writer: %v", err)
	}
	if got := waits.Load(); got != 1 {
		t.Errorf("OnWait called %d times, want once", got)
	}
	if err := first.SQL().QueryRowContext(ctx, `SELECT count(*) FROM line_items`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("got %d line items, want 3 (one from the first writer, two from the second)", n)
	}
}

func TestWaitingWriterStopsWithItsContext(t *testing.T) {
	shortWaits(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	first, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	started, done := holdWriteLock(t, first, time.Second)
	<-started
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	tx, err := second.BeginImport(cctx)
	if err == nil {
		tx.Rollback()
		t.Fatal("BeginImport got the lock while another writer held it")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got error %v, want the context's deadline", err)
	}
	if took := time.Since(t0); took > 900*time.Millisecond {
		t.Errorf("BeginImport returned after %v, want soon after its context ended (300ms)", took)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestIsBusy(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A plain connection with no wait at all sees SQLITE_BUSY at once.
	raw, err := sql.Open("sqlite", fileURI(path, map[string][]string{"_txlock": {"immediate"}}))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	started, done := holdWriteLock(t, db, 300*time.Millisecond)
	<-started
	tx, err := raw.Begin()
	if err == nil {
		tx.Rollback()
		t.Fatal("a second BEGIN IMMEDIATE succeeded while the lock was held")
	}
	if !IsBusy(err) {
		t.Errorf("IsBusy(%v) = false, want true", err)
	}
	if IsBusy(errors.New("database is locked")) {
		t.Error("IsBusy of a plain error = true, want false")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestFileModes(t *testing.T) {
	old := syscall.Umask(0) // the modes must not depend on a lax umask
	defer syscall.Umask(old)
	ctx := context.Background()
	root := t.TempDir()
	userDir := filepath.Join(root, "shared")
	if err := os.Mkdir(userDir, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		dir     string      // the directory to check
		dirMode fs.FileMode // its mode afterwards
	}{
		{"new directories are private", filepath.Join(root, "a", "b", "ledger.db"), filepath.Join(root, "a", "b"), 0o700},
		{"new parent of the new directory too", filepath.Join(root, "a", "b", "ledger.db"), filepath.Join(root, "a"), 0o700},
		{"an existing directory is the user's", filepath.Join(userDir, "ledger.db"), userDir, 0o755},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(ctx, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			importItems(t, db, []LineItem{item("k1", "1")})
			for _, f := range []string{tt.path, tt.path + "-wal", tt.path + "-shm"} {
				st, err := os.Stat(f)
				if err != nil {
					t.Fatal(err)
				}
				if got := st.Mode().Perm(); got != 0o600 {
					t.Errorf("%s: got mode %v, want 0600", filepath.Base(f), got)
				}
			}
			db.Close()
			st, err := os.Stat(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode().Perm(); got != tt.dirMode {
				t.Errorf("directory %s: got mode %v, want %v", tt.dir, got, tt.dirMode)
			}
		})
	}
}

// schemaV2 is the ledger made by the first released schema (migrations
// 0001 and 0002), with a few rows of every kind.
const schemaV2 = "testdata/schema-v2.db"

// writeSchemaV2 makes the fixture from the first two migrations only, so
// that rewriting it after later migrations were added still gives the old
// schema.
func writeSchemaV2(t *testing.T) {
	t.Helper()
	os.Remove(schemaV2)
	db, err := sql.Open("sqlite", fileURI(schemaV2, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`}
	for _, name := range []string{"0001_init.sql", "0002_views.sql"} {
		b, err := migrationFS.ReadFile("migrations/" + name)
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, string(b))
	}
	stmts = append(stmts,
		`INSERT INTO schema_migrations VALUES (1, '0001_init.sql', '2026-09-01T00:00:00Z'), (2, '0002_views.sql', '2026-09-01T00:00:00Z')`,
		`INSERT INTO imports(id, path, sha256, size, format, started_at, finished_at, status, rows_read, rows_new)
			VALUES (1, 'autodl-2026-09.csv', 'aa', 100, 'gpubill-bill', '2026-10-01T01:00:00Z', '2026-10-01T01:00:01Z', 'ok', 3, 3),
			       (2, 'flow.csv', 'bb', 50, 'gpubill-flow', '2026-10-01T02:00:00Z', '2026-10-01T02:00:01Z', 'ok', 2, 2),
			       (3, 'alipay.csv', 'cc', 40, 'alipay', '2026-10-01T03:00:00Z', '2026-10-01T03:00:01Z', 'ok', 1, 1)`,
		`INSERT INTO line_items(provider, billing_period, charge_period_start, charge_period_end, charge_category, kind,
			resource_id, billed_cost, voucher_paid, cash_paid, currency, import_id, source_row, row_key) VALUES
			('autodl', '2026-09', '2026-09-03T06:00:00Z', '2026-09-03T07:00:00Z', 'Usage', 'compute', 'i-1', '1.88', NULL, '1.88', 'CNY', 1, 1, 'k1'),
			('autodl', '2026-09', '2026-09-03T00:00:00Z', '2026-09-04T00:00:00Z', 'Usage', 'storage', 'i-1', '0.00660000', '0', '0.0066', 'CNY', 1, 2, 'k2'),
			('autodl', '2026-09', '2026-09-04T06:00:00Z', '2026-09-04T07:00:00Z', 'Credit', 'credit', '', '-5.5', NULL, NULL, 'CNY', 1, 3, 'k3')`,
		`INSERT INTO transactions(provider, time, type, amount, currency, balance, import_id, source_row, row_key) VALUES
			('autodl', '2026-09-01T00:00:00Z', 'topup', '100', 'CNY', '100', 2, 1, 't1'),
			('autodl', '2026-09-03T07:00:00Z', 'charge', '1.88', 'CNY', NULL, 2, 2, 't2')`,
		`INSERT INTO payments(source, time, direction, counterparty, amount, currency, import_id, source_row, row_key) VALUES
			('alipay', '2026-09-01T00:00:00Z', 'out', 'AutoDL', '100.00', 'CNY', 3, 1, 'p1')`,
		`INSERT INTO invoices(provider, number, date, amount, currency) VALUES ('autodl', 'INV-1', '2026-09-30', '1.88', 'CNY')`,
		`INSERT INTO audit_runs(id, started_at, month, tz) VALUES (1, '2026-10-02T00:00:00Z', '2026-09', 'Asia/Shanghai')`,
		`INSERT INTO findings(id, fingerprint, run_id, first_run_id, month, rule_id, severity, provider, resource_id,
			period_start, period_end, amount_at_risk, currency, reason_zh, reason_en) VALUES
			(1, 'fp1', 1, 1, '2026-09', 'stopped_storage', 'low', 'autodl', 'i-1', '2026-09-03T00:00:00Z', '2026-09-04T00:00:00Z', '0.0066', 'CNY', '关机存储', 'storage while stopped')`,
		`INSERT INTO finding_evidence VALUES (1, 2, 'autodl-2026-09.csv', 2)`,
	)
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("fixture: %v\n%s", err, s)
		}
	}
}

// v2Tables are the tables of the first schema.
var v2Tables = []string{"imports", "line_items", "transactions", "payments", "invoices", "audit_runs", "findings", "finding_evidence"}

// tableRows are the rows of one table, each as column → value.
type tableRows []map[string]any

// dump reads every row of the tables of the first schema, for comparing a
// ledger before and after a migration.
func dump(t *testing.T, db *sql.DB) map[string]tableRows {
	t.Helper()
	out := map[string]tableRows{}
	for _, table := range v2Tables {
		rows, err := db.Query(`SELECT * FROM ` + table + ` ORDER BY 1, 2`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		var tr tableRows
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			row := map[string]any{}
			for i, c := range cols {
				row[c] = vals[i]
			}
			tr = append(tr, row)
		}
		rows.Close()
		out[table] = tr
	}
	return out
}

// compareDumps reports every row that differs between before and after in a
// column both have (a later migration may add, or rebuild a table without, a
// column: such a migration has its own test).
func compareDumps(t *testing.T, before, after map[string]tableRows) {
	t.Helper()
	for _, table := range v2Tables {
		b, a := before[table], after[table]
		if len(a) != len(b) {
			t.Errorf("table %s: got %d rows after, want %d", table, len(a), len(b))
			continue
		}
		for i := range b {
			for col, want := range b[i] {
				got, ok := a[i][col]
				if ok && fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("table %s row %d column %s: got %v, want %v", table, i+1, col, got, want)
				}
			}
		}
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestOldLedgerMigratesKeepingEveryRow(t *testing.T) {
	if *update {
		writeSchemaV2(t)
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	copyFile(t, schemaV2, path)
	raw, err := sql.Open("sqlite", fileURI(path, nil))
	if err != nil {
		t.Fatal(err)
	}
	before := dump(t, raw)
	raw.Close()
	if len(before["line_items"]) != 3 || len(before["payments"]) != 1 {
		t.Fatalf("the fixture %s holds no rows", schemaV2)
	}

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("open a ledger of schema 2: %v", err)
	}
	defer db.Close()
	v, err := schemaVersion(ctx, db.SQL())
	if err != nil {
		t.Fatal(err)
	}
	if v != SchemaVersion() {
		t.Errorf("got schema version %d after open, want %d", v, SchemaVersion())
	}
	// Migration 0012 gives credit lines the meaning of ingest.SettlePaid.
	for _, row := range before["line_items"] {
		if row["kind"] == KindCredit {
			billed := fmt.Sprint(row["billed_cost"])
			row["voucher_paid"], row["cash_paid"] = strings.TrimPrefix(billed, "-"), billed
			row["other_paid"], row["unpaid"] = nil, nil
		}
	}
	compareDumps(t, before, dump(t, db.SQL()))
	// Migration 0007 computed the end of the data of the old rows.
	if ends, err := db.DataEnds(ctx); err != nil || len(ends) == 0 || !maps.Equal(ends, scanEnds(t, db)) {
		t.Errorf("end of the data after migrating: %v (%v), the line items say %v", ends, err, scanEnds(t, db))
	}
	// The migrated ledger works: its sums, and a new import.
	var total string
	if err := db.SQL().QueryRowContext(ctx, `SELECT dsum(billed_cost) FROM line_items`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if got, want := decimal.RequireFromString(total), decimal.RequireFromString("-3.6134"); !got.Equal(want) {
		t.Errorf("got dsum %s of the old rows, want %s", got, want)
	}
	if n := importItems(t, db, []LineItem{item("new-1", "1"), item("k1", "1.88")}); n != 1 {
		t.Errorf("import into the migrated ledger: got %d new rows, want 1 (k1 is an old row)", n)
	}
}

func TestFailedMigrationChangesNothing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	copyFile(t, schemaV2, path)
	raw, err := sql.Open("sqlite", fileURI(path, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	before := dump(t, raw)

	m := fstest.MapFS{}
	for _, name := range []string{"0001_init.sql", "0002_views.sql"} {
		b, _ := migrationFS.ReadFile("migrations/" + name)
		m["migrations/"+name] = &fstest.MapFile{Data: b}
	}
	m["migrations/9001_good.sql"] = &fstest.MapFile{Data: []byte(`CREATE TABLE added_by_9001 (x); ALTER TABLE line_items ADD COLUMN note_9001 TEXT;`)}
	m["migrations/9002_bad.sql"] = &fstest.MapFile{Data: []byte(`CREATE TABLE added_by_9002 (x); INSERT INTO no_such_table VALUES (1);`)}
	saved := migrationSource
	migrationSource = m
	defer func() { migrationSource = saved }()

	db, err := Open(ctx, path)
	if err == nil {
		db.Close()
		t.Fatal("open with a failing migration succeeded")
	}
	if !strings.Contains(err.Error(), "9002_bad.sql") {
		t.Errorf("got error %q, want it to name the failing migration 9002_bad.sql", err)
	}
	v, err := schemaVersion(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	if v != 2 {
		t.Errorf("got schema version %d after a failed migration, want 2 (9001 rolled back with 9002)", v)
	}
	var n int
	if err := raw.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name IN ('added_by_9001', 'added_by_9002')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d table(s) of the failed migrations remain, want 0", n)
	}
	if err := raw.QueryRow(`SELECT count(*) FROM pragma_table_info('line_items') WHERE name = 'note_9001'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Error("the column added by 9001 remains after 9002 failed, want it rolled back")
	}
	compareDumps(t, before, dump(t, raw))
}

func TestNewerLedgerIsRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "new.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().Exec(`INSERT INTO schema_migrations VALUES (?, 'future.sql', '2030-01-01T00:00:00Z')`, SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "upgrade gpubill") {
		t.Errorf("got %v, want a refusal asking to upgrade gpubill", err)
	}
}

// A bulk import into a ledger without line items leaves WAL for its
// transaction and comes back to it, whether it commits or rolls back; into
// a ledger that holds line items it stays in WAL.
func TestBulkImportUsesARollbackJournalOnlyIntoAnEmptyLedger(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	mode := func() string {
		var m string
		if err := db.SQL().QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for i, commit := range []bool{false, true, true} {
		tx, err := db.BeginImportWith(ctx, ImportOptions{Bulk: true})
		if err != nil {
			t.Fatal(err)
		}
		if want := i < 2; tx.rollbackJournal != want {
			t.Errorf("import %d: rollback journal %v, want %v", i, tx.rollbackJournal, want)
		}
		imp := &Import{Path: fmt.Sprintf("bulk%d.csv", i), SHA256: "01", Format: "test"}
		if err := tx.AddImport(ctx, imp); err != nil {
			t.Fatal(err)
		}
		it := item(fmt.Sprintf("bulk-%d", i), "1.00")
		it.ImportID = imp.ID
		if _, err := tx.InsertLineItems(ctx, []LineItem{it}); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
		if m := mode(); m != "wal" {
			t.Errorf("import %d (commit %v): journal mode %s after it, want wal", i, commit, m)
		}
		var n int
		db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM line_items`).Scan(&n)
		if want := i; n != want {
			t.Errorf("import %d (commit %v): %d line items, want %d", i, commit, n, want)
		}
	}
}

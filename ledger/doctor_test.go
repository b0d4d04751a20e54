package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// healthyLedger makes a ledger at path holding two imports, and closes it.
func healthyLedger(t *testing.T, path string) {
	t.Helper()
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	importItems(t, db, []LineItem{item("a1", "1"), item("a2", "2"), item("a3", "3")})
	importItems(t, db, []LineItem{item("b1", "1.5")})
	if _, err := db.SQL().Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
}

// rawExec runs statements on path without foreign keys, as a hand edit would.
func rawExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", fileURI(path, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func TestDoctor(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(t *testing.T, path string)
		want   map[string]string // check name → status; checks not named must be ok
		detail string            // a substring of the details of the checks not ok
		ok     bool
	}{
		{name: "healthy ledger", setup: healthyLedger, ok: true},
		{name: "line item of a removed import", setup: func(t *testing.T, path string) {
			healthyLedger(t, path)
			rawExec(t, path, `INSERT INTO line_items(provider, billing_period, charge_period_start, charge_period_end, charge_category,
				kind, billed_cost, currency, import_id, source_row, row_key)
				VALUES ('autodl', '2026-10', 'x', 'y', 'Usage', 'compute', '1', 'CNY', 999, 1, 'orphan')`)
		}, want: map[string]string{"foreign_keys": CheckProblem, "orphan_rows": CheckProblem, "data_ends": CheckProblem}, detail: "line_items: 1"},
		{name: "stored end of the data disagrees with the line items", setup: func(t *testing.T, path string) {
			healthyLedger(t, path)
			rawExec(t, path, `UPDATE data_ends SET charge_period_end = '2027-01-01T00:00:00Z' WHERE provider = 'autodl'`,
				`INSERT INTO data_ends VALUES ('aliyun', '2026-10-01T00:00:00Z')`)
		}, want: map[string]string{"data_ends": CheckProblem},
			detail: "aliyun: stored 2026-10-01T00:00:00Z, line items end none; autodl: stored 2027-01-01T00:00:00Z, line items end 2026-10-03T07:00:00Z"},
		{name: "import record disagrees with its rows", setup: func(t *testing.T, path string) {
			healthyLedger(t, path)
			rawExec(t, path, `DELETE FROM line_items WHERE row_key = 'a2'`)
		}, want: map[string]string{"import_counts": CheckProblem}, detail: "recorded 3 new, holds 2"},
		{name: "unfinished import record", setup: func(t *testing.T, path string) {
			healthyLedger(t, path)
			rawExec(t, path, `UPDATE imports SET status = 'running' WHERE id = 2`)
		}, want: map[string]string{"unfinished_imports": CheckProblem}, detail: "not finished: 2"},
		{name: "older schema is a warning", setup: func(t *testing.T, path string) {
			copyFile(t, schemaV2, path)
		}, want: map[string]string{"schema_version": CheckWarning}, detail: "version 2, older", ok: true},
		{name: "newer schema", setup: func(t *testing.T, path string) {
			healthyLedger(t, path)
			rawExec(t, path, fmt.Sprintf(`INSERT INTO schema_migrations VALUES (%d, 'future.sql', 'x')`, SchemaVersion()+1))
		}, want: map[string]string{"schema_version": CheckProblem}, detail: "upgrade gpubill"},
		{name: "readable by others is a warning", setup: func(t *testing.T, path string) {
			healthyLedger(t, path)
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}, want: map[string]string{"file_mode": CheckWarning}, detail: "chmod 600", ok: true},
		{name: "not a database", setup: func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(strings.Repeat("not sqlite at all ", 500)), 0o600); err != nil {
				t.Fatal(err)
			}
		}, want: map[string]string{"integrity": CheckProblem}, detail: "not a readable SQLite database"},
		{name: "not a gpubill ledger", setup: func(t *testing.T, path string) {
			rawExec(t, path, `CREATE TABLE other(x)`)
		}, want: map[string]string{"schema_version": CheckProblem}, detail: "not a gpubill ledger"},
		{name: "empty file: a first command killed before its migration committed", setup: func(t *testing.T, path string) {
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, want: map[string]string{"schema_version": CheckWarning}, detail: "not created yet", ok: true},
		{name: "database without tables", setup: func(t *testing.T, path string) {
			rawExec(t, path, `CREATE TABLE other(x)`, `DROP TABLE other`)
		}, want: map[string]string{"schema_version": CheckWarning}, detail: "not created yet", ok: true},
		{name: "damaged page", setup: func(t *testing.T, path string) {
			healthyLedger(t, path)
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			// Scribble over the start of the last page, a b-tree page of the
			// ledger (its header and cell pointers).
			if _, err := f.WriteAt([]byte(strings.Repeat("\xff\x00garbage", 400)), st.Size()-pageSize); err != nil {
				t.Fatal(err)
			}
		}, want: map[string]string{"integrity": CheckProblem}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.db")
			tt.setup(t, path)
			before, _ := os.ReadFile(path)
			r, err := Doctor(context.Background(), path)
			if err != nil {
				t.Fatalf("Doctor: %v", err)
			}
			var details []string
			seen := map[string]bool{}
			for _, c := range r.Checks {
				seen[c.Name] = true
				want := tt.want[c.Name]
				if want == "" {
					want = CheckOK
				}
				if c.Status != want {
					t.Errorf("check %s: got %s (%s), want %s", c.Name, c.Status, c.Detail, want)
				}
				if c.Status != CheckOK {
					details = append(details, c.Detail)
				}
			}
			for name := range tt.want {
				if !seen[name] {
					t.Errorf("check %s missing from the report", name)
				}
			}
			if got := strings.Join(details, " | "); !strings.Contains(got, tt.detail) {
				t.Errorf("got details %q, want them to contain %q", got, tt.detail)
			}
			if r.OK() != tt.ok {
				t.Errorf("got OK() %v, want %v", r.OK(), tt.ok)
			}
			after, _ := os.ReadFile(path)
			if string(before) != string(after) {
				t.Error("Doctor changed the ledger file")
			}
		})
	}
}

func TestDoctorMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.db")
	if _, err := Doctor(context.Background(), path); err == nil {
		t.Fatal("Doctor of a missing file: got no error")
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("Doctor created the missing ledger")
	}
}

func TestBackupWhileImporting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	importItems(t, db, []LineItem{item("first", "1")})

	// Another connection imports files of 400 rows while the backups run.
	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	imported := 0
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			items := make([]LineItem, 400)
			for j := range items {
				items[j] = item(fmt.Sprintf("w%d-%d", i, j), "0.01")
			}
			importItems(t, other, items)
			imported++
		}
	}()
	var sizes []int64
	for i := 0; i < 5; i++ {
		dst := filepath.Join(dir, fmt.Sprintf("backup-%d.db", i))
		n, err := db.Backup(ctx, dst, false)
		if err != nil {
			t.Fatalf("backup %d: %v", i, err)
		}
		sizes = append(sizes, n)
		st, err := os.Stat(dst)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() != n {
			t.Errorf("backup %d: got size %d, file has %d", i, n, st.Size())
		}
		if got := st.Mode().Perm(); got != 0o600 {
			t.Errorf("backup %d: got mode %v, want 0600", i, got)
		}
		r, err := Doctor(ctx, dst)
		if err != nil {
			t.Fatal(err)
		}
		if !r.OK() {
			t.Errorf("backup %d is not sound: %+v", i, r.Checks)
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if imported == 0 {
		t.Error("no import ran beside the backups; the test proves nothing")
	}
	if sizes[len(sizes)-1] <= sizes[0] {
		t.Logf("backup sizes %v: the imports did not grow the copies", sizes)
	}
	// No temporary file is left next to the backups.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".gpubill-backup-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestBackupDestination(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	importItems(t, db, []LineItem{item("k", "1")})
	existing := filepath.Join(dir, "old.db")
	tests := []struct {
		name      string
		dst       string
		overwrite bool
		wantErr   string // "" = success
	}{
		{"new file", filepath.Join(dir, "new.db"), false, ""},
		{"existing file refused", existing, false, "use --force"},
		{"existing file overwritten with force", existing, true, ""},
		{"the ledger itself", filepath.Join(dir, "ledger.db"), true, "the ledger itself"},
		{"a directory", dir, true, "is a directory"},
		{"missing folder", filepath.Join(dir, "no", "such", "x.db"), false, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(existing, []byte("keep me"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := db.Backup(ctx, tt.dst, tt.overwrite)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
				if !errors.Is(err, ErrBackupDestination) {
					t.Errorf("errors.Is(%v, ErrBackupDestination) = false, want true", err)
				}
				if b, _ := os.ReadFile(existing); string(b) != "keep me" && tt.dst == existing {
					t.Error("a refused backup changed the existing file")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			bk, err := Open(ctx, tt.dst)
			if err != nil {
				t.Fatal(err)
			}
			defer bk.Close()
			var n int
			if err := bk.SQL().QueryRow(`SELECT count(*) FROM line_items WHERE row_key = 'k'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Errorf("got %d copies of the row in the backup, want 1", n)
			}
		})
	}
}

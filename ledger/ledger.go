package ledger

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationSource is where migrations() reads migrations/NNNN_name.sql;
// tests replace it to prove that a failing migration rolls back them all.
var migrationSource fs.FS = migrationFS

// DB is an open ledger.
type DB struct {
	sql  *sql.DB
	path string
	wait waitState // write transactions that wait for another process (safety.go)
}

// SQL returns the underlying database handle, for packages that run their
// own queries (reports, rules). Sum money with dsum(), never SUM(); begin a
// write transaction with BeginTx.
func (db *DB) SQL() *sql.DB { return db.sql }

// Path is the file the ledger lives in.
func (db *DB) Path() string { return db.path }

// Close closes the ledger.
func (db *DB) Close() error { return db.sql.Close() }

// Options change how OpenWith opens a ledger.
type Options struct {
	// OnWait is called, at most once per DB, when a write transaction has to
	// wait for another process (another gpubill) that holds the ledger's
	// write lock. The CLI prints a notice on a terminal; the write then goes
	// on waiting, however long the other process takes, until it gets the
	// lock or its context ends.
	OnWait func()
}

// Open opens (creating if needed) the ledger at path and brings its schema
// up to date; see OpenWith.
func Open(ctx context.Context, path string) (*DB, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith opens (creating if needed) the ledger at path and brings its
// schema up to date, every pending migration in one transaction.
//
// File modes: a new ledger file is created 0600 whatever the umask, and so
// are its -wal and -shm files (SQLite gives them the mode of the database
// file). Missing parent directories are created 0700; a directory that
// already exists is the user's and is left as it is.
//
// Concurrency: several processes may open the same ledger. Readers never
// wait (WAL), except for a bulk import into a ledger without line items,
// which runs on a rollback journal (ImportOptions.Bulk). A write transaction (BEGIN IMMEDIATE) that finds another
// writer waits for it without a time limit (safety.go), calling
// opts.OnWait once, instead of failing with "database is locked".
func OpenWith(ctx context.Context, path string, opts Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("ledger: empty path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	// Create the file ourselves so that it gets 0600 whatever the umask.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	f.Close()

	q := url.Values{}
	for _, p := range []string{
		"foreign_keys(1)",
		fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()),
		"synchronous(NORMAL)",
		"cache_size(-16384)",
		// pageSize applies to a ledger created now (and to backups, which
		// VACUUM INTO a new file); an existing ledger keeps its own.
		fmt.Sprintf("page_size(%d)", pageSize),
	} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db := &DB{path: path}
	sdb, err := sql.Open("sqlite", fileURI(path, q))
	if err != nil {
		return nil, fmt.Errorf("ledger: open %s: %w", path, err)
	}
	db.sql = sdb
	db.wait.onWait = opts.OnWait
	// WAL is a property of the file: set here once, not by every new
	// connection, so that opening does not fail while a bulk import holds
	// the ledger in a rollback journal (ImportOptions.Bulk); that import
	// restores WAL itself when it ends.
	if _, err := sdb.ExecContext(ctx, "PRAGMA journal_mode = WAL"); err != nil && !IsBusy(err) {
		sdb.Close()
		return nil, fmt.Errorf("ledger: open %s: %w", path, err)
	}
	if err := db.migrate(ctx); err != nil {
		sdb.Close()
		return nil, err
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		_ = os.Chmod(path+suffix, 0o600)
	}
	return db, nil
}

// pageSize is the page size of a new ledger: line items are rows of about
// 450 bytes, and 16 KiB pages take a quarter of the page writes and reads
// of 4 KiB pages. The page cache is sized in KiB, so memory stays the same.
const pageSize = 16384

// fileURI is the driver's DSN for the file at path with the query q; the
// characters that would end or escape the path part are escaped.
func fileURI(path string, q url.Values) string {
	return "file:" + uriPathEscaper.Replace(path) + "?" + q.Encode()
}

var uriPathEscaper = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationSource, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("ledger: migration %q is not named NNNN_name.sql", name)
		}
		b, err := fs.ReadFile(migrationSource, "migrations/"+name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// SchemaVersion is the newest migration this binary knows.
func SchemaVersion() int {
	ms, _ := migrations()
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// migrate applies every pending migration in one write transaction: a
// ledger from an older gpubill is either fully upgraded or left as it was
// (a crash or an error in the middle rolls every step back). A ledger that
// is up to date is only read, so opening it never waits for a writer.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	newest := SchemaVersion()
	current, err := schemaVersion(ctx, db.sql)
	if err != nil {
		return fmt.Errorf("ledger: %s: %w", db.path, err)
	}
	if current > newest {
		return fmt.Errorf("ledger: %s has schema version %d, newer than this gpubill knows (%d); upgrade gpubill", db.path, current, newest)
	}
	if current == newest && current > 0 {
		return nil
	}
	tx, err := db.BeginTx(ctx)
	if err != nil {
		return fmt.Errorf("ledger: migrate %s: %w", db.path, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("ledger: migrate %s: %w", db.path, err)
	}
	// Another process may have migrated between the read above and the lock.
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("ledger: migrate %s: %w", db.path, err)
	}
	now := FormatTime(time.Now())
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("ledger: %s: migration %s: %w", db.path, m.name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)`,
			m.version, m.name, now); err != nil {
			return fmt.Errorf("ledger: %s: migration %s: %w", db.path, m.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("ledger: migrate %s: %w", db.path, err)
	}
	return nil
}

// schemaVersion reads the newest applied migration (0 for a new file).
func schemaVersion(ctx context.Context, q *sql.DB) (int, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&n); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	var v int
	if err := q.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, err
	}
	return v, nil
}

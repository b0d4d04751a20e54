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

// DB is an open ledger.
type DB struct {
	sql  *sql.DB
	path string
}

// SQL returns the underlying database handle, for packages that run their
// own queries (reports, rules). Sum money with dsum(), never SUM().
func (db *DB) SQL() *sql.DB { return db.sql }

// Path is the file the ledger lives in.
func (db *DB) Path() string { return db.path }

// Close closes the ledger.
func (db *DB) Close() error { return db.sql.Close() }

// Open opens (creating if needed, with mode 0600 in a 0700 directory) the
// ledger at path and brings its schema up to date.
func Open(ctx context.Context, path string) (*DB, error) {
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
		"journal_mode(WAL)",
		"busy_timeout(10000)",
		"synchronous(NORMAL)",
		"cache_size(-16384)",
	} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	sdb, err := sql.Open("sqlite", fileURI(path, q))
	if err != nil {
		return nil, fmt.Errorf("ledger: open %s: %w", path, err)
	}
	db := &DB{sql: sdb, path: path}
	if err := db.migrate(ctx); err != nil {
		sdb.Close()
		return nil, err
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		_ = os.Chmod(path+suffix, 0o600)
	}
	return db, nil
}

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
	entries, err := fs.ReadDir(migrationFS, "migrations")
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
		b, err := migrationFS.ReadFile("migrations/" + name)
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

func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.sql.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	ms, err := migrations()
	if err != nil {
		return err
	}
	var current int
	if err := db.sql.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	if n := len(ms); n > 0 && current > ms[n-1].version {
		return fmt.Errorf("ledger: %s has schema version %d, newer than this gpubill knows (%d); upgrade gpubill", db.path, current, ms[n-1].version)
	}
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		tx, err := db.sql.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			tx.Rollback()
			return fmt.Errorf("ledger: migration %s: %w", m.name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)`,
			m.version, m.name, FormatTime(time.Now())); err != nil {
			tx.Rollback()
			return fmt.Errorf("ledger: %w", err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("ledger: migration %s: %w", m.name, err)
		}
	}
	return nil
}

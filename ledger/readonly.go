package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"modernc.org/sqlite"
)

// readOnlyMarker is a query parameter of every read-only DSN. SQLite reads
// it as an unknown URI parameter and ignores it; the connection hook below
// uses it to tell read-only connections from the others.
const readOnlyMarker = "gpubill_readonly"

// Every connection opened by OpenReadOnly gets an authorizer that lets
// statements read and nothing else: no INSERT, UPDATE, DELETE, DDL, PRAGMA,
// ATTACH or transaction control. With mode=ro and query_only this is the
// third wall around user SQL.
func init() {
	sqlite.RegisterConnectionHook(func(conn sqlite.ExecQuerierContext, dsn string) error {
		_, query, _ := strings.Cut(dsn, "?")
		q, err := url.ParseQuery(query)
		if err != nil || q.Get(readOnlyMarker) == "" {
			return nil
		}
		reg, ok := conn.(sqlite.AuthorizerRegisterer)
		if !ok {
			return errors.New("ledger: the sqlite driver offers no authorizer; refusing a read-only connection")
		}
		return reg.RegisterAuthorizer(readOnlyAuthorizer)
	})
}

func readOnlyAuthorizer(action sqlite.AuthorizerActionCode, _, _, _, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthFunction, sqlite.AuthRecursive:
		return sqlite.AuthorizerOK
	}
	return sqlite.AuthorizerDeny
}

// OpenReadOnly opens the existing ledger at path for reading only, for SQL
// that gpubill does not trust (user rules): the file is opened with
// mode=ro, every connection runs PRAGMA query_only=ON, and an authorizer
// refuses any statement but a read. It creates nothing and migrates
// nothing: the ledger must already have the current schema (open it with
// Open first). dsum() is available, as on every connection.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("ledger: empty path")
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "query_only(1)")
	q.Set(readOnlyMarker, "1")
	sdb, err := sql.Open("sqlite", fileURI(path, q))
	if err != nil {
		return nil, fmt.Errorf("ledger: open %s read-only: %w", path, err)
	}
	db := &DB{sql: sdb, path: path}
	var v sql.NullInt64
	if err := sdb.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
		sdb.Close()
		return nil, fmt.Errorf("ledger: open %s read-only: %w", path, err)
	}
	if want := SchemaVersion(); int(v.Int64) != want {
		sdb.Close()
		return nil, fmt.Errorf("ledger: %s has schema version %d, want %d (open it with gpubill once to migrate)", path, v.Int64, want)
	}
	return db, nil
}

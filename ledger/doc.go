// Package ledger is gpubill's store: one SQLite file (modernc.org/sqlite, no cgo)
// holding every imported line item, money movement, payment, invoice and
// finding, plus the record of each import.
//
// The schema lives in numbered, embedded migrations (migrations/NNNN_name.sql),
// recorded in schema_migrations; a ledger of an older schema is brought up to
// date on open, every pending migration in one transaction (all or none), and
// a ledger newer than the binary is refused.
//
// Safety: files are created 0600 (the ledger, its -wal and -shm) in a 0700
// folder. A writer that finds another gpubill writing waits for it, however
// long it takes (BEGIN IMMEDIATE retried until the context ends; Options.OnWait
// tells the user once); readers never wait (WAL), except during a bulk import
// into a ledger without line items, which runs on a rollback journal
// (ImportOptions.Bulk). Doctor checks a ledger
// without changing it (integrity, foreign keys, schema version, orphan rows,
// import records against their rows, data_ends against them); DB.Backup writes a consistent, checked
// copy while other commands run (VACUUM INTO a temporary file, then rename).
// The heavy paths bypass database/sql on connections of their own
// (liteConn, conn.go: zombiezen.com/go/sqlite, opened NOMUTEX): an import's
// transaction (ImportTx), an audit's findings (AuditWriter), and the scans of many line
// items (Scan, EachLineItem), where the driver's mutex and copy per column
// were most of the time. LoadLineItems (load.go) reads a month into memory
// for an analysis: the fields the rules read (an Item: a LineItem holds one
// and the rest of the source's detail), in id ranges on several
// connections, items in slabs with shared texts and amounts. The end of the
// data per provider is kept in data_ends (data_ends.go), so that an audit
// need not scan line_items for it.
//
// Money is never a float: Go code uses decimal.Decimal, SQLite stores the
// canonical decimal string in TEXT columns, and sums go through the exact
// aggregate dsum(x) that this package registers with the driver (SQLite's own
// SUM over text returns a float). Times are stored in UTC as RFC 3339 text
// ("2026-10-03T06:22:05Z"), which sorts chronologically as text.
package ledger

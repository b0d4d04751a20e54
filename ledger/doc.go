// Package ledger is gpubill's store: one SQLite file (modernc.org/sqlite, no
// cgo) holding every imported line item, money movement, payment, invoice
// and finding, plus the record of each import.
//
// The schema lives in numbered, embedded migrations (migrations/NNNN_name.sql),
// applied on open in one transaction; a ledger newer than the binary is
// refused. The columns of line_items are listed once (columns.go): the
// INSERT, the SELECTs and the reading of a row into a LineItem come from
// that table.
//
// Safety: files are created 0600 in a 0700 folder. A writer that finds
// another gpubill writing waits for it (safety.go); readers never wait
// (WAL), except during a bulk import into a ledger without line items
// (ImportOptions.Bulk). Doctor checks a ledger without changing it;
// DB.Backup writes a consistent, checked copy.
//
// Two hot paths run on a connection of their own without database/sql
// (liteConn, conn.go: zombiezen.com/go/sqlite): an import's transaction
// (ImportTx) and the reading of many line items (LoadColumns, EachLineItem,
// ScanItems). Everything else goes through database/sql.
//
// Money is never a float: Go code uses decimal.Decimal, SQLite stores the
// decimal text of package money in TEXT columns, and sums go through the exact
// aggregate dsum(x) that this package registers with the driver. Times are
// stored in UTC as RFC 3339 text ("2026-10-03T06:22:05Z"), which sorts
// chronologically as text.
package ledger

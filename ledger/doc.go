// Package ledger is gpubill's store: one SQLite file (modernc.org/sqlite, no cgo)
// holding every imported line item, money movement, payment, invoice and
// finding, plus the record of each import.
//
// The schema lives in numbered, embedded migrations (migrations/NNNN_name.sql),
// applied in order, one transaction each, and recorded in schema_migrations.
//
// Money is never a float: Go code uses decimal.Decimal, SQLite stores the
// canonical decimal string in TEXT columns, and sums go through the exact
// aggregate dsum(x) that this package registers with the driver (SQLite's own
// SUM over text returns a float). Times are stored in UTC as RFC 3339 text
// ("2026-10-03T06:22:05Z"), which sorts chronologically as text.
package ledger

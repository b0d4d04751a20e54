// Package reports turns the ledger into what a user reads: the month's spend
// broken down by provider, kind, resource … (Spend), and the audit findings
// with the money at risk (FindingsReport). Each report is a plain value that
// encodes itself as an aligned terminal table, tab-separated text, GitHub
// markdown, CSV or JSON (Write with WriteOptions).
//
// Money stays exact from the ledger to the output: sums are computed in SQL
// with the exact aggregate dsum() over TEXT columns, JSON, CSV and TSV carry
// the exact decimal string, and only the human formats (table, md) round, in
// one place (format.go). An unknown amount is never zero: it is null in
// JSON, an empty cell in CSV/TSV and "-" in tables. Amounts of different
// currencies are never added: every total is per currency.
//
// Translations of headers and titles (zh, en) live in i18n.go.
package reports

// Package export writes the ledger's line items as FOCUS 1.2 cost data
// (FinOps Open Cost and Usage Specification) for warehouse engines: DuckDB,
// ClickHouse, Spark, Trino. One folder, Hive-style partitions by billing
// period (billing_period=2026-10/part-00000.csv or .parquet), so an engine
// reads it as one table.
//
// Columns are FOCUS's where the concept exists there, and x_ columns for
// what gpubill knows beyond it: the charge kind and pricing model, actual
// run times, GPU model and count, what vouchers and cash paid, the source
// file and row, and the stored findings' rule IDs and money at risk per
// line (docs/export.md). The importer reads the export back (ingest's FOCUS
// format honours the x_ columns), so a ledger survives the round trip.
//
// Money is exact: CSV cells hold the ledger's decimal text, Parquet columns
// the DECIMAL logical type; an amount that does not fit is refused, never
// rounded. Months are read as a stream and written row group by row group:
// memory does not grow with the ledger.
package export

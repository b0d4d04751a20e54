// Package ingest turns bill files into ledger rows.
//
// A file's format is detected from its content (the header row, found after
// any preamble lines), never from its name. Text is decoded from UTF-8, UTF-8
// with BOM, GBK/GB18030 or UTF-16; XLSX sheets are read with excelize's
// streaming reader; Parquet files (FOCUS) row group by row group
// (parquet.go); text whose first non-space character is { or [ is JSON:
// AutoDL's saved web-API lists, streamed item by item (autodl_json.go); ZIP
// archives are opened member by member (zip.go). Columns are mapped by header
// name through alias tables, so reordered, renamed or extra columns keep
// working; the source cells are
// kept in each row's raw field. Rows are streamed, mapped, given a dedupe key
// and written in batches inside one database transaction per file, so a bad
// row leaves the ledger exactly as it was.
//
// Vendor formats are one file each (template.go, focus.go …) declaring a
// Format that registers itself from init (registerFormat in format.go); amount.go and
// timeparse.go are the only places where vendor number and time formats
// become decimals and times.
//
// Positions: an error names the physical place a user opens in an editor,
// FILE:LINE:COL for text (the line the cell starts on, COL the 1-based field
// number) and FILE: Sheet!D12 for XLSX. A stored row's source_row is its
// record number after the header (header = record 0): for a CSV without
// blank lines or multi-line cells that is line − header line; for a sheet,
// row − header row. Dedupe keys are described in dedupe.go.
package ingest

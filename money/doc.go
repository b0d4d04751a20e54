// Package money is gpubill's exact decimal text and sums: how an amount
// (decimal.Decimal) is written for storage and exact output, keeping the
// precision it was read with (String, Append), its value alone for dedupe
// keys (Canonical), the parsing of plain decimal text without math/big
// (Small), and a sum of many amounts that stays in an int64 while it fits
// (Sum).
//
// Money is never a float. The package knows nothing of the ledger; the
// ledger stores amounts as this package writes them.
package money

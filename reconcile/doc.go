// Package reconcile checks a month of money against itself (DESIGN.md
// "reconcile/", issue 6):
//
//   - balances (balances.go): per provider, account and currency, opening
//     balance + top-ups + vouchers − charges + refunds − withdrawals = the
//     closing balance the money-flow export shows; every break in the
//     export's own balance column is listed with the rows on both sides; where
//     the ledger also holds bill lines of the provider, the flow's charges and
//     the bill lines are compared day by day;
//   - top-ups ↔ payments (match.go, payees.go): each platform top-up is paired
//     one-to-one with an Alipay / WeChat Pay payment, refunds with the
//     platform's refunds, deterministically; what is left on either side is
//     listed;
//   - invoices (invoices.go): per provider and month, the invoiceable amount
//     (cash paid, never vouchers), what invoices cover it, what is still to
//     request, and amounts invoiced twice.
//
// Reconcile runs all three for the CLI (report.go encodes the result as
// table, md, csv, tsv or json); Balances, Match, Invoiceable and
// InvoiceCoverage are the parts other packages (the reimbursement packet)
// call on their own. Money is decimal throughout; sums over the ledger use
// dsum() in SQL or decimal in Go, never floats, and are never added across
// currencies.
package reconcile

// Package packet builds the reimbursement packet of a month (报销材料, issue
// 6): one XLSX workbook that a finance department accepts without retyping,
// and optionally an HTML cover that prints on A4.
//
// DESIGN.md lists the packet under reports/. It has a package of its own
// because it is no report of the document model that reports' encoders
// share: it is one fixed workbook of four sheets with formulas, print setup
// and a signature block, built from reports (the refund claims), reconcile
// (invoice coverage) and the ledger. Keeping it apart leaves the report
// encoders free of its special cases.
//
// The parts:
//   - packet.go: Build computes the packet (a Packet value) from the ledger,
//     in one pass over the month's line items in 明细's order, each line
//     added to the totals and measured for 明细's column widths as it is read;
//   - items.go: the store that keeps those line items for 明细's rows: in
//     memory for a month of ordinary size, else a temporary file, so that
//     a packet's memory does not grow with the month;
//   - xlsx.go: Packet.WriteXLSX, the workbook: 封面 (cover), 明细 (line items),
//     发票清单 (invoices to attach, missing ones highlighted), 异常 (disputed
//     charges);
//   - cover.go: Packet.WriteCoverHTML, a self-contained HTML cover for A4;
//   - capital.go: CapitalCNY, an amount in Chinese capital numerals (大写).
//
// What is claimed. Every line item of the month (and of --project, the
// bill's 项目 / sub_account) is listed on 明细. A line's claimable amount is
// its invoiceable part, as reconcile.Invoiceable defines it: cash_paid where
// the bill gives it, else billed − voucher (marked estimated). Vouchers,
// gifts and bonus balances are never claimed. A credit line (kind credit: a
// voucher billed as a negative line of its own) holds, as the ledger stores it
// (ingest.SettlePaid), the voucher it used (不可报销) and a negative cash part
// that takes it off the claim, so that voucher money is never claimed as cash.
// Other negative lines (a refund or adjustment returned to the
// balance) are claimed as they are, that is they reduce the claim, so that
// the claim never exceeds what was paid and matches the invoiceable amount of
// reconcile.
//
// Disputed charges. The refund claims of reports.Refunds (stored findings of
// duplicate_charge, overlapping_charge, min_duration_rounding beyond the
// platform's rule and price_deviation that are open or acknowledged, and
// charges after the release date) are spread over their evidence line items:
// for a duplicate charge the first line (lowest id) is the real charge and the
// money at risk lies on the others; for the other rules it is laid on the
// evidence lines from the last one back, each up to its own amount. A line's
// disputed part is capped at its claimable amount. By default the disputed
// part is excluded from the claim (明细 shows it, 异常 lists it with the
// reason); with ClaimDisputed it is claimed and 异常 lists it as claimed but
// disputed. Either way totals differ by exactly the disputed amount.
//
// Invoices. reconcile.InvoiceCoverage gives, per platform and currency, the
// invoices that count for the month (the part of an invoice spanning several
// months that counts for this one), the invoiced amount and what is still to
// request; 明细 lists on each line the invoice numbers of its platform's
// coverage. Platforms with no bill lines in the packet (money flow only) are
// left out, and the cover says so.
//
// Money is exact: decimal from the ledger to the cell XML (numbers are
// written as their exact decimal strings, never through float64). Totals on
// the sheets are formulas (SUM / SUMIFS per currency over the 明细 columns)
// whose cached values are the exact sums, so a spreadsheet that recomputes
// gets the same figures. Text from bills is neutralised against formula
// injection (a leading apostrophe before = + - @, tab, CR).
//
// 大写. CapitalCNY follows 《支付结算办法》 annex 1, 《正确填写票据和结算凭证的
// 基本规定》 (People's Bank of China, 1997), as quoted by many accounting
// pages (searched: "正确填写票据和结算凭证的基本规定 中文大写金额数字"):
// 整 after 元 when the amount stops at 元, and after 角 too (the rule
// allows it and the example 壹仟零壹元壹角整 uses it); no 整 after
// 分; one 零 for a run of zeros between non-zero digits (¥6007.14 →
// 陆仟零柒元壹角肆分); 零 after 元 when 角 is 0 and 分 is not (¥16409.02 →
// 壹万陆仟肆佰零玖元零贰分). Where the rule allows both forms (a zero 万 or 元
// digit before a non-zero 千 or 角 digit: ¥107,000.53) we write the 零 in the
// integer part (壹拾万零柒仟元) and none between 元 and 角 (…元伍角叁分), the
// forms most spreadsheet templates print. 拾 always takes its digit (壹拾元).
// 人民币 is not written: the forms print it before the field.
package packet

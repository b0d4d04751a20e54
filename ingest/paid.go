package ingest

import (
	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

// What paid a line item: the one meaning of voucher_paid, cash_paid,
// other_paid and unpaid, whatever format the line came from (docs/json.md
// "What paid a line item").
//
//   - A charge (any kind but credit): billed_cost = voucher_paid + cash_paid +
//     other_paid + unpaid, for the parts the source states. voucher_paid is
//     what vouchers, coupons and gifts paid, cash_paid what money paid (the
//     balance topped up in cash), other_paid stored-value cards, credit
//     lines, commission accounts and write-offs, unpaid what is owed. A
//     refund of a charge negates every part.
//   - A credit line (kind credit: a voucher, bonus or compensation billed as
//     a negative line of its own) pays for charges billed elsewhere at their
//     full price in cash. Where it is a voucher (the source states its
//     voucher part, or no part at all), voucher_paid is the voucher used
//     (positive) and cash_paid the cash the charges state that the voucher
//     paid instead (negative): voucher_paid = −billed_cost, cash_paid =
//     billed_cost when it is all voucher. Where the source says it holds no
//     voucher (voucher part 0: compensation paid back in money), its parts
//     stay as stated, negative.
//
// So over any set of line items Σ cash_paid ≤ Σ billed_cost (as long as the
// charges' parts are not negative), Σ voucher_paid is the vouchers actually
// used, and Σ(voucher + cash + other + unpaid) is the billed cost of the
// charges before credits.

// SettlePaid applies that meaning to li after a format mapped it, whose
// parts follow the source (a credit line's parts add up to its negative
// billed cost, as vendors write them); billedIsCash (FOCUS: BilledCost is
// what is invoiced, paid in money) sets cash_paid = billed_cost on a charge
// that states no part. The source's cells stay in raw.
func SettlePaid(li *ledger.LineItem, billedIsCash bool) {
	if li.Kind == ledger.KindCredit {
		v := li.VoucherPaid
		switch {
		case !v.Valid: // no voucher column: a credit line is a voucher
			li.VoucherPaid = decimal.NullDecimal{Decimal: li.BilledCost.Neg(), Valid: true}
			li.CashPaid = decimal.NullDecimal{Decimal: li.BilledCost, Valid: true}
			li.OtherPaid, li.Unpaid = decimal.NullDecimal{}, decimal.NullDecimal{}
		case !v.Decimal.IsZero():
			// The stated voucher part becomes the voucher used, and comes
			// off the cash (with any money the line paid back).
			used := v.Decimal.Abs()
			cash := used.Neg()
			if li.CashPaid.Valid && li.CashPaid.Decimal.IsNegative() {
				cash = cash.Add(li.CashPaid.Decimal)
			}
			li.VoucherPaid = decimal.NullDecimal{Decimal: used, Valid: true}
			li.CashPaid = decimal.NullDecimal{Decimal: cash, Valid: true}
		}
		return
	}
	if billedIsCash && !li.VoucherPaid.Valid && !li.CashPaid.Valid && !li.OtherPaid.Valid && !li.Unpaid.Valid {
		li.CashPaid = decimal.NullDecimal{Decimal: li.BilledCost, Valid: true}
	}
}

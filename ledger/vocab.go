package ledger

import (
	"slices"
)

// Charge kinds: what a line item pays for (DESIGN.md "Vocabulary").
const (
	KindCompute    = "compute"
	KindStorage    = "storage"
	KindImage      = "image"
	KindSnapshot   = "snapshot"
	KindNetwork    = "network"
	KindSeat       = "seat"
	KindService    = "service"
	KindTax        = "tax"
	KindCredit     = "credit"
	KindAdjustment = "adjustment"
	KindOther      = "other"
)

// Kinds lists every charge kind in display order.
var Kinds = []string{KindCompute, KindStorage, KindImage, KindSnapshot, KindNetwork, KindSeat,
	KindService, KindTax, KindCredit, KindAdjustment, KindOther}

// Pricing models.
const (
	PricingOnDemand = "on_demand"
	PricingPackage  = "package"
	PricingSpot     = "spot"
	PricingReserved = "reserved"
)

// PricingModels lists every pricing model.
var PricingModels = []string{PricingOnDemand, PricingPackage, PricingSpot, PricingReserved}

// Charge categories (FOCUS ChargeCategory).
const (
	CategoryUsage      = "Usage"
	CategoryPurchase   = "Purchase"
	CategoryTax        = "Tax"
	CategoryCredit     = "Credit"
	CategoryAdjustment = "Adjustment"
)

// ChargeCategories lists the FOCUS charge categories.
var ChargeCategories = []string{CategoryUsage, CategoryPurchase, CategoryTax, CategoryCredit, CategoryAdjustment}

// Money-flow transaction types.
const (
	TxTopup      = "topup"
	TxCharge     = "charge"
	TxRefund     = "refund"
	TxWithdrawal = "withdrawal"
	TxVoucher    = "voucher"
	TxFreeze     = "freeze"
	TxUnfreeze   = "unfreeze"
)

// TxTypes lists the money-flow types.
var TxTypes = []string{TxTopup, TxCharge, TxRefund, TxWithdrawal, TxVoucher, TxFreeze, TxUnfreeze}

// Payment sources (Payment.Source): the exports of Alipay and WeChat Pay.
const (
	SourceAlipay    = "alipay"
	SourceWeChatPay = "wechatpay"
)

// RuleIDs are the built-in rules in the order of DESIGN.md: rules run and
// print in this order, and it breaks ties between findings (then user rules
// follow, by id).
var RuleIDs = []string{"stopped_storage", "egress", "snapshot_image", "min_duration_rounding", "seat_fee",
	"forgotten_instance", "duplicate_charge", "overlapping_charge", "price_deviation", "unclassified_charge",
	"release_risk"}

// RuleRank is a rule's position in RuleIDs; rules not listed rank last.
func RuleRank(id string) int {
	if i := slices.Index(RuleIDs, id); i >= 0 {
		return i
	}
	return len(RuleIDs)
}

// Finding claims (Finding.Claim): why a finding can be claimed back from
// the platform although its rule is not a refund rule ("" = as its rule
// says).
const (
	// ClaimGuardStop: billed after gpubill guard ran its shutdown command.
	ClaimGuardStop = "guard_stop"
)

// Severities, from least to most severe.
const (
	SeverityInfo   = "info"
	SeverityLow    = "low"
	SeverityMedium = "medium"
	SeverityHigh   = "high"
)

// SeverityRank orders severities (higher is more severe); unknown is -1.
func SeverityRank(s string) int {
	return slices.Index([]string{SeverityInfo, SeverityLow, SeverityMedium, SeverityHigh}, s)
}

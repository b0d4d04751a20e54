package ledger

import (
	"strings"
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
	for i, r := range RuleIDs {
		if r == id {
			return i
		}
	}
	return len(RuleIDs)
}

// Severities, from least to most severe.
const (
	SeverityInfo   = "info"
	SeverityLow    = "low"
	SeverityMedium = "medium"
	SeverityHigh   = "high"
)

// SeverityRank orders severities (higher is more severe); unknown is -1.
func SeverityRank(s string) int {
	switch s {
	case SeverityInfo:
		return 0
	case SeverityLow:
		return 1
	case SeverityMedium:
		return 2
	case SeverityHigh:
		return 3
	}
	return -1
}

// Provider describes one platform gpubill knows by name.
type Provider struct {
	Slug    string
	NameZH  string
	NameEN  string
	Aliases []string // other spellings seen in bills and on payees (matched case-insensitively)
}

// Providers are the platforms of DESIGN.md, in display order.
var Providers = []Provider{
	{"autodl", "AutoDL", "AutoDL", []string{"autodl", "autodl算力云", "算力云"}},
	{"gpushare", "恒源云", "GPUSHARE", []string{"恒源云", "gpushare", "恒源"}},
	{"matpool", "矩池云", "Matpool", []string{"矩池云", "matpool", "矩池"}},
	{"gpugeek", "GpuGeek", "GpuGeek", []string{"gpugeek"}},
	{"lanrui", "揽睿星舟", "Lanrui", []string{"揽睿星舟", "揽睿", "lanrui"}},
	{"luchen", "潞晨云", "Luchen Cloud", []string{"潞晨云", "潞晨", "luchen", "luchentech"}},
	{"aliyun", "阿里云", "Alibaba Cloud", []string{"阿里云", "aliyun", "alibaba cloud", "alibabacloud", "alibaba"}},
	{"tencentcloud", "腾讯云", "Tencent Cloud", []string{"腾讯云", "tencentcloud", "tencent cloud", "tencent", "qcloud"}},
	{"huaweicloud", "华为云", "Huawei Cloud", []string{"华为云", "huaweicloud", "huawei cloud", "huawei"}},
	{"volcengine", "火山引擎", "Volcengine", []string{"火山引擎", "volcengine", "火山云", "byteplus"}},
}

// ParseProvider maps a slug, brand or Chinese name to a provider slug.
// ok is false for a name it does not know.
func ParseProvider(s string) (slug string, ok bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return "", false
	}
	for _, p := range Providers {
		if t == p.Slug || t == strings.ToLower(p.NameZH) || t == strings.ToLower(p.NameEN) {
			return p.Slug, true
		}
		for _, a := range p.Aliases {
			if t == strings.ToLower(a) {
				return p.Slug, true
			}
		}
	}
	return "", false
}

// ProviderRank is a provider's position in Providers (the order reports list
// platforms in); providers not listed (FOCUS providers) rank last.
func ProviderRank(slug string) int {
	for i, p := range Providers {
		if p.Slug == slug {
			return i
		}
	}
	return len(Providers)
}

// ProviderName gives a provider's display name in lang ("zh" or "en");
// unknown slugs (FOCUS providers such as aws) are returned as they are.
func ProviderName(slug, lang string) string {
	for _, p := range Providers {
		if p.Slug == slug {
			if lang == "zh" {
				return p.NameZH
			}
			return p.NameEN
		}
	}
	return slug
}

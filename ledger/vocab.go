package ledger

import (
	"regexp"
	"slices"
	"strings"
	"sync"
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
func RuleRank(id string) int { return rank(slices.Index(RuleIDs, id), len(RuleIDs)) }

// rank is i, or last when i is -1 (not found).
func rank(i, last int) int {
	if i < 0 {
		return last
	}
	return i
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
	return slices.Index([]string{SeverityInfo, SeverityLow, SeverityMedium, SeverityHigh}, s)
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
		same := func(a string) bool { return t == strings.ToLower(a) }
		if same(p.Slug) || same(p.NameZH) || same(p.NameEN) || slices.ContainsFunc(p.Aliases, same) {
			return p.Slug, true
		}
	}
	return "", false
}

// ProviderRank is a provider's position in Providers (the order reports list
// platforms in); providers not listed (FOCUS providers) rank last.
func ProviderRank(slug string) int {
	return rank(slices.IndexFunc(Providers, func(p Provider) bool { return p.Slug == slug }), len(Providers))
}

// otherProviders are display names of providers that are not platforms of
// DESIGN.md but appear in FOCUS files (ProviderName lower-cased) and in
// users' profiles: shown as their brands write them (AWS, not aws).
var otherProviders = map[string][2]string{ // slug: zh, en
	"aws":       {"AWS", "AWS"},
	"amazon":    {"AWS", "AWS"},
	"azure":     {"Azure", "Azure"},
	"microsoft": {"Microsoft Azure", "Microsoft Azure"},
	"google":    {"Google Cloud", "Google Cloud"},
	"gcp":       {"Google Cloud", "Google Cloud"},
	"oracle":    {"Oracle Cloud", "Oracle Cloud"},
	"oci":       {"Oracle Cloud", "Oracle Cloud"},
	"ibm":       {"IBM Cloud", "IBM Cloud"},
	"baidu":     {"百度智能云", "Baidu AI Cloud"},
	"ucloud":    {"UCloud", "UCloud"},
	"jdcloud":   {"京东云", "JD Cloud"},
	"ksyun":     {"金山云", "Kingsoft Cloud"},
	"ctyun":     {"天翼云", "China Telecom Cloud"},
}

// namedProviders are display names declared at run time (a profile's
// [provider] name_zh / name_en), by slug.
var namedProviders sync.Map // slug → [2]string{zh, en}

// SetProviderName declares the display names of a provider slug that is
// not one of Providers (a user's profile for AWS or an internal cloud); an
// empty name falls back to the other, then to the slug's own display form.
func SetProviderName(slug, zh, en string) {
	if zh == "" {
		zh = en
	}
	if en == "" {
		en = zh
	}
	if zh == "" {
		return
	}
	namedProviders.Store(slug, [2]string{zh, en})
}

// slugRE is the form of a provider slug that is not one of Providers:
// lower-case letters, digits and dashes, starting with a letter.
var slugRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// ValidProviderSlug reports whether s can name a provider of its own.
func ValidProviderSlug(s string) bool { return slugRE.MatchString(s) }

// ProviderName gives a provider's display name in lang ("zh" or "en").
// Slugs that are not platforms of DESIGN.md (FOCUS providers, profiles'
// own slugs) are shown by a declared or well-known name (AWS for aws),
// else as a brand would write the slug: upper case up to three letters
// (gcp → GCP), else capitalised (mycloud → Mycloud).
func ProviderName(slug, lang string) string {
	names, ok := otherProviders[slug]
	if v, found := namedProviders.Load(slug); found {
		names, ok = v.([2]string), true
	}
	if i := slices.IndexFunc(Providers, func(p Provider) bool { return p.Slug == slug }); i >= 0 {
		names, ok = [2]string{Providers[i].NameZH, Providers[i].NameEN}, true
	}
	if ok {
		if lang == "zh" {
			return names[0]
		}
		return names[1]
	}
	if !slugRE.MatchString(slug) {
		return slug
	}
	if len(slug) <= 3 {
		return strings.ToUpper(slug)
	}
	return strings.ToUpper(slug[:1]) + slug[1:]
}

package reports

import "github.com/gpubill/gpubill/platform"

// All report text in Chinese and English, in one place. Keys are stable
// identifiers; a key missing here prints as itself (so a new rule id from a
// user rule still shows up, untranslated).
var messages = map[string][2]string{ // key → {zh, en}
	// titles and notes
	"title.spend":              {"支出明细", "Spend"},
	"title.spend_totals":       {"合计", "Totals"},
	"title.findings":           {"审计发现", "Findings"},
	"title.find_totals":        {"风险金额合计", "Money at risk, totals"},
	"all_months":               {"全部月份", "all months"},
	"none":                     {"（无）", "(none)"},
	"no_findings":              {"没有发现问题。", "No findings."},
	"no_bills":                 {"%s 没有账单：账本里没有这个月的费用明细，所以无可审计（不是没有问题）。用 gpubill import 导入这个月的账单后再审计。", "No bills for %s: the ledger holds no line items of that month, so there is nothing to audit (not a clean month). Import the month's bills with gpubill import, then audit."},
	"note.partial":             {"* 部分行缺少该金额，合计只含已知部分。", "* some rows do not state this amount; the sum covers the rows that do."},
	"note.credit_vouchers":     {"%s：代金券含以单独负数行列出的代金券 %s，这些行同时从应付和现金中扣除", "%s: Voucher includes %s of vouchers billed as lines of their own, which take them off Billed and Cash too"},
	"note.credit_vouchers_sum": {"，因此 应付 = 代金券 + 现金 − %s。", ", so Billed = Voucher + Cash − %s."},
	"note.hidden":              {"隐性费用 = 除计算和代金券以外的全部费用；占比 = 隐性费用 ÷ 除代金券以外的应付金额。", "Hidden = everything billed that is not compute or credit; share = hidden ÷ everything billed except credits."},
	"note.find_totals":         {"同一费用行被多条发现引用时，只计入严重程度最高（其次规则靠前）的一条。", "A line item flagged by several findings counts once, under the most severe finding (then the rule listed first)."},

	// finding blocks (table and markdown)
	"find.at_risk":     {"涉及金额", "at risk"},
	"find.fingerprint": {"指纹", "fingerprint"},
	"find.state":       {"状态", "state"},
	"find.advice":      {"建议：", "Advice: "},
	"find.evidence":    {"证据：", "Evidence: "},
	"find.row":         {"第 %s 行", "row %s"},
	"find.rows":        {"第 %s 行（共 %d 行）", "rows %s (%d rows)"},
	"find.file_sep":    {"；", "; "},
	"find.api_line":    {"%s API %s · 明细 ID %s", "%s API %s · line %s"},
	"find.api_lines":   {"%s API %s · 明细 ID %s（共 %d 条）", "%s API %s · lines %s (%d lines)"},

	// column headers
	"col.provider":      {"平台", "Provider"},
	"col.kind":          {"费用类型", "Kind"},
	"col.resource_id":   {"实例ID", "Resource ID"},
	"col.resource_name": {"实例名称", "Resource name"},
	"col.gpu_model":     {"GPU型号", "GPU model"},
	"col.project":       {"项目", "Project"},
	"col.pricing_model": {"计费方式", "Pricing"},
	"col.currency":      {"币种", "Currency"},
	"col.items":         {"行数", "Items"},
	"col.billed_cost":   {"应付金额", "Billed"},
	"col.voucher_paid":  {"代金券", "Voucher"},
	"col.cash_paid":     {"现金支付", "Cash"},
	"col.list_cost":     {"原价", "List"},
	"col.hidden_cost":   {"隐性费用", "Hidden"},
	"col.hidden_share":  {"隐性占比", "Hidden share"},
	"col.severity":      {"严重程度", "Severity"},
	"col.resource":      {"资源", "Resource"},
	"col.period":        {"时段", "Period"},
	"col.amount":        {"风险金额", "At risk"},
	"col.count":         {"条数", "Count"},
	"col.reason":        {"原因", "Reason"},
	"col.advice":        {"建议", "Advice"},
	"col.state":         {"状态", "State"},
	"col.evidence":      {"依据（文件:行）", "Evidence (file:row)"},

	// charge kinds
	"kind.compute":    {"计算", "compute"},
	"kind.storage":    {"存储", "storage"},
	"kind.image":      {"镜像", "image"},
	"kind.snapshot":   {"快照", "snapshot"},
	"kind.network":    {"网络", "network"},
	"kind.seat":       {"占用费", "seat"},
	"kind.service":    {"增值服务", "service"},
	"kind.tax":        {"税", "tax"},
	"kind.credit":     {"代金券/抵扣", "credit"},
	"kind.adjustment": {"调账", "adjustment"},
	"kind.other":      {"其他", "other"},

	// pricing models
	"pricing.on_demand": {"按量", "on demand"},
	"pricing.package":   {"包时", "package"},
	"pricing.spot":      {"竞价", "spot"},
	"pricing.reserved":  {"预留", "reserved"},

	// severities and states
	"severity.info":      {"提示", "info"},
	"severity.low":       {"低", "low"},
	"severity.medium":    {"中", "medium"},
	"severity.high":      {"高", "high"},
	"state.open":         {"待处理", "open"},
	"state.acknowledged": {"已确认", "acknowledged"},
	"state.resolved":     {"已解决", "resolved"},

	// rule titles
	"rule.stopped_storage":       {"关机期间的存储费", "Storage while stopped"},
	"rule.egress":                {"公网流量费", "Egress traffic"},
	"rule.snapshot_image":        {"快照与镜像费", "Snapshots and images"},
	"rule.min_duration_rounding": {"最低计费时长取整", "Minimum-duration rounding"},
	"rule.seat_fee":              {"关机占用费", "Seat fee while stopped"},
	"rule.forgotten_instance":    {"遗忘的实例", "Forgotten instance"},
	"rule.duplicate_charge":      {"重复扣费", "Duplicate charge"},
	"rule.overlapping_charge":    {"重叠扣费", "Overlapping charge"},
	"rule.price_deviation":       {"单价高于参考价", "Price above reference"},
	"rule.unclassified_charge":   {"未归类费用", "Unclassified charge"},
	"rule.release_risk":          {"实例即将被释放", "Instance about to be released"},
}

// tr translates key into lang ("zh" or "en"); an unknown key is returned
// as it is.
func tr(lang, key string) string {
	m, ok := messages[key]
	if !ok {
		return key
	}
	if lang == "zh" {
		return m[0]
	}
	return m[1]
}

// trOr translates prefix+value, falling back to value itself (a vendor's
// own code we have no name for).
func trOr(lang, prefix, value string) string {
	if _, ok := messages[prefix+value]; ok {
		return tr(lang, prefix+value)
	}
	return value
}

// providerName is a provider's display name in lang.
func providerName(slug, lang string) string { return platform.Name(slug, lang) }

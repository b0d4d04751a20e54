package ingest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// 腾讯云 Tencent Cloud bills (FORMATS.md "腾讯云"): the L3 明细账单, one row per
// component of a resource (CPU, 内存, GPU, 系统盘, 带宽 …), and the L2 资源账单,
// one row per resource, which labels the same money differently. Both come
// from 费用中心 → 账单详情 (the console zips them; the zip is opened elsewhere).
//
// Money, as Tencent documents it: 组件原价 / 原价 = 刊例价 × 用量 × 时长 (list);
// 优惠后总价 = payable (billed); it is paid by 代金券 (voucher), 赠送账户 / 赠送金
// (gift balance) and 分成金 (commission balance), both other_paid, and the
// 现金账户 (cash). Detail bills carry up to 8 decimals, kept as written (the
// real deduction is rounded to 2 decimals by Tencent; gpubill keeps the
// bill's figures). The bill has no arrears column: unpaid stays unknown.
//
// The two layouts are two formats because one describes components and the
// other resources: they share the row mapper (tencentLines). Importing both
// exports of one month would count it twice (the granularity differs, so
// dedupe cannot see it): `gpubill imports` shows which one a file was.

func init() {
	registerFormat(tencentDetailFormat, 32)
	registerFormat(tencentResourceFormat, 33)
}

// tencentCommonColumns are the columns L3 and L2 share: identity, product,
// resource, times and tags. Chinese console headers first, then the English
// console's and the API's names (DescribeBillDetail / DescribeBillResourceSummary).
func tencentCommonColumns() []Column {
	return []Column{
		{Field: "payer_uin", Headers: []string{"支付者UIN", "Payer Account ID", "PayerUin"}},
		{Field: "owner_uin", Headers: []string{"使用者UIN", "Owner Account ID", "OwnerUin"}, RawOnly: true},
		{Field: "operator_uin", Headers: []string{"操作者UIN", "Operator Account ID", "OperateUin"}, RawOnly: true},
		{Field: "product", Headers: []string{"产品名称", "Product Name", "ProductName", "BusinessCodeName"}},
		{Field: "subproduct", Headers: []string{"子产品名称", "Subproduct Name", "SubproductName", "ProductCodeName"}},
		{Field: "billing_mode", Headers: []string{"计费模式", "Billing Mode", "BillingMode", "PayModeName"}},
		{Field: "project", Headers: []string{"项目名称", "Project Name", "ProjectName"}},
		{Field: "region", Headers: []string{"地域", "Region", "RegionName"}},
		{Field: "zone", Headers: []string{"可用区", "Availability Zone", "ZoneName"}},
		{Field: "site", Headers: []string{"国内国际", "Domestic and international"}, RawOnly: true},
		{Field: "resource_id", Headers: []string{"资源ID", "实例ID", "Instance ID", "InstanceID", "ResourceId"}, Required: true},
		{Field: "resource_name", Headers: []string{"实例名称", "资源别名", "Instance Name", "InstanceName", "ResourceName"}},
		{Field: "instance_type", Headers: []string{"实例类型", "Instance Type", "InstanceType"}},
		{Field: "transaction_type", Headers: []string{"交易类型", "Transaction Type", "TransactionType", "ActionTypeName"}},
		{Field: "order_id", Headers: []string{"订单ID", "Order ID", "OrderId"}, RawOnly: true},
		{Field: "transaction_id", Headers: []string{"交易ID", "Transaction ID", "TransactionID", "BillId"}, RawOnly: true},
		{Field: "pay_time", Headers: []string{"扣费时间", "Transaction Time", "TransactionTime", "PayTime"}},
		{Field: "start", Headers: []string{"开始使用时间", "Usage Start Time", "FeeBeginTime"}},
		{Field: "end", Headers: []string{"结束使用时间", "Usage End Time", "FeeEndTime"}},
		{Field: "bill_month", Headers: []string{"账单月份", "Bill Month", "BillMonth"}},
		{Field: "currency", Headers: []string{"币种", "Currency"}},
	}
}

var tencentDetailFormat = &Format{
	ID:         "tencentcloud-detail",
	Version:    "L3",
	NameZH:     "腾讯云 明细账单（L3，每个组件一行）",
	NameEN:     "Tencent Cloud detail bill (L3, one row per component)",
	Confidence: ConfidenceParser,
	DetectZH: "表头含 资源ID、组件名称、优惠后总价、现金账户支出（表头取自第三方解析器与腾讯账单字段说明，未见真实导出文件；" +
		"标签键:<键> 列读入 tags）",
	DetectEN: "header holds 资源ID, 组件名称, 优惠后总价 and 现金账户支出 (header from a third-party parser and Tencent's " +
		"field description, no real export seen; 标签键:<key> columns become tags)",
	DedupeKey: "the line id 交易ID / 组件类型 / 组件名称 (the API's BillId and component; 交易ID alone is shared by the " +
		"components of one deduction), and the hash of provider, account (支付者UIN), resource (资源ID), kind, charge " +
		"category, usage period, quantity, list unit price and amounts, description (子产品名称 / 组件类型 / 组件名称 / 交易类型); " +
		"each + occurrence number in the file; a row is a duplicate when either is known",
	Target: TargetLineItems,
	Columns: append(tencentCommonColumns(),
		Column{Field: "component_type", Headers: []string{"组件类型", "Component Type", "ComponentType", "ComponentCodeName"}},
		Column{Field: "component_name", Headers: []string{"组件名称", "Component Name", "ComponentName", "ItemCodeName"}, Required: true},
		Column{Field: "list_unit_price", Headers: []string{"组件刊例价", "Component List Price", "SinglePrice"}},
		Column{Field: "contract_price", Headers: []string{"组件单价", "Component Contracted Price", "ContractPrice"}, RawOnly: true},
		Column{Field: "price_unit", Headers: []string{"组件价格单位", "Component Price Measurement Unit", "PriceUnit"}},
		Column{Field: "usage", Headers: []string{"组件用量", "Component Usage", "UsedAmount"}},
		Column{Field: "usage_unit", Headers: []string{"组件用量单位", "Component Usage Unit", "UsedAmountUnit"}},
		Column{Field: "duration", Headers: []string{"使用时长", "Usage Duration", "TimeSpan"}},
		Column{Field: "duration_unit", Headers: []string{"时长单位", "Duration Unit", "TimeUnitName"}},
		Column{Field: "list_cost", Headers: []string{"组件原价", "Original Cost", "OriginalCost", "Cost"}},
		Column{Field: "discount_rate", Headers: []string{"折扣率", "Discount Rate", "DiscountRate", "Discount"}, RawOnly: true},
		Column{Field: "billed_cost", Headers: []string{"优惠后总价", "Total Amount After Discount", "RealTotalCost", "RealCost"}, Required: true},
		Column{Field: "voucher", Headers: []string{"代金券支出", "优惠券支出", "Voucher Payment", "VoucherPayAmount"}},
		Column{Field: "gift", Headers: []string{"赠送账户支出", "Free Credit Payment", "IncentivePayAmount"}},
		Column{Field: "commission", Headers: []string{"分成金账户支出", "Commission Credit Payment", "TransferPayAmount"}},
		Column{Field: "cash", Headers: []string{"现金账户支出", "Cash Payment", "CashPayAmount"}, Required: true},
		Column{Field: "original_usage", Headers: []string{"原始用量", "Original Usage"}, RawOnly: true},
		Column{Field: "original_duration", Headers: []string{"原始时长", "Original Duration"}, RawOnly: true},
		Column{Field: "deducted_usage", Headers: []string{"抵扣用量", "Deducted Usage"}, RawOnly: true},
		Column{Field: "blended_discount", Headers: []string{"混合折扣率", "Blended Discount Rate"}, RawOnly: true},
	),
	lines: tencentLines,
}

var tencentResourceFormat = &Format{
	ID:         "tencentcloud-resource",
	Version:    "L2",
	NameZH:     "腾讯云 资源账单（L2，每个资源一行）",
	NameEN:     "Tencent Cloud resource bill (L2, one row per resource)",
	Confidence: ConfidenceGuess,
	DetectZH: "表头含 资源ID、优惠后总价(元)、现金支付(元)，且无组件列（金额列名取自腾讯账单字段说明，其余列按明细账单推测，" +
		"未见真实导出文件）",
	DetectEN: "header holds 资源ID, 优惠后总价(元) and 现金支付(元) and no component columns (money column names from " +
		"Tencent's field description, the rest guessed from the detail bill; no real export seen)",
	DedupeKey: "hash of provider, account (支付者UIN), resource (资源ID), kind, charge category, usage period, amounts, " +
		"description (子产品名称 / 配置描述 / 交易类型) + occurrence number in the file",
	Target: TargetLineItems,
	Columns: append(tencentCommonColumns(),
		Column{Field: "config", Headers: []string{"配置描述", "Configuration Description", "ConfigDesc"}},
		Column{Field: "list_cost", Headers: []string{"原价", "Original Cost", "OriginalCost", "TotalCost"}},
		Column{Field: "billed_cost", Headers: []string{"优惠后总价", "Total Amount After Discount", "RealTotalCost"}, Required: true},
		Column{Field: "voucher", Headers: []string{"优惠券支付", "代金券支付", "Voucher Payment", "VoucherPayAmount"}},
		Column{Field: "gift", Headers: []string{"赠送金支付", "Free Credit Payment", "IncentivePayAmount"}},
		Column{Field: "commission", Headers: []string{"分成金支付", "Commission Credit Payment", "TransferPayAmount"}},
		Column{Field: "cash", Headers: []string{"现金支付", "Cash Payment", "CashPayAmount"}, Required: true},
	),
	// A detail bill carries the resource bill's signature under other names
	// only through shared English aliases; its component columns rule it out.
	match: func(b *binding) bool { return !tencentHasComponents(b.header) },
	lines: tencentLines,
}

// tencentHasComponents reports a header with the L3 component columns.
func tencentHasComponents(header []string) bool {
	for _, h := range header {
		switch normCol(h) {
		case "组件名称", "componentname", "itemcodename":
			return true
		}
	}
	return false
}

// tencentTagPrefixes start the dynamic tag columns (标签键:team → tag team).
var tencentTagPrefixes = []string{"标签键:", "标签键：", "tag:", "tagkey:"}

// tencentTagColumns finds the tag columns of a header: position → tag key.
func tencentTagColumns(header []string) map[int]string {
	out := map[int]string{}
	for i, h := range header {
		n := strings.TrimSpace(h)
		for _, p := range tencentTagPrefixes {
			if len(n) > len(p) && strings.EqualFold(n[:len(p)], p) {
				if k := strings.TrimSpace(n[len(p):]); k != "" {
					out[i] = k
				}
				break
			}
		}
	}
	return out
}

// tencentLines maps rows of either Tencent layout (the L2 bill simply lacks
// the component columns).
func tencentLines(b *binding, env *mapEnv) (lineMapper, error) {
	ix := struct {
		payer, product, subproduct, mode, project, region, zone, resourceID, resourceName, instanceType,
		txType, payTime, start, end, billMonth, currency, componentType, componentName, config, unitPrice,
		priceUnit, usage, usageUnit, duration, durationUnit, list, billed, voucher, gift, commission, cash int
	}{
		b.idx("payer_uin"), b.idx("product"), b.idx("subproduct"), b.idx("billing_mode"), b.idx("project"),
		b.idx("region"), b.idx("zone"), b.idx("resource_id"), b.idx("resource_name"), b.idx("instance_type"),
		b.idx("transaction_type"), b.idx("pay_time"), b.idx("start"), b.idx("end"), b.idx("bill_month"),
		b.idx("currency"), b.idx("component_type"), b.idx("component_name"), b.idx("config"),
		b.idx("list_unit_price"), b.idx("price_unit"), b.idx("usage"), b.idx("usage_unit"), b.idx("duration"), b.idx("duration_unit"),
		b.idx("list_cost"), b.idx("billed_cost"), b.idx("voucher"), b.idx("gift"), b.idx("commission"), b.idx("cash"),
	}
	tags := tencentTagColumns(b.header)
	// The line id: a detail bill's 交易ID (the API's BillId) names one
	// deduction, and its components are told apart by 组件类型 and 组件名称.
	txID := -1
	if ix.componentName >= 0 {
		txID = b.idx("transaction_id")
	}
	currencies := newMemo(normCurrency)
	derived := newCloudDerived("tencentcloud", tencentPricing, nil)
	return func(c *rowCtx, li *ledger.LineItem) (bool, error) {
		if isTotalRow(c.rec) {
			return true, nil
		}
		text := func(i int) string { return cloudText(c.cell(i)) }
		var err error
		li.Provider = "tencentcloud"
		li.BillingAccountID = text(ix.payer)
		li.SubAccount = text(ix.project)
		li.ServiceName = text(ix.product)
		li.ResourceType = text(ix.subproduct)
		li.ResourceID = text(ix.resourceID)
		li.ResourceName = text(ix.resourceName)
		li.Region = text(ix.region)
		li.Zone = text(ix.zone)
		componentType, componentName := text(ix.componentType), text(ix.componentName)
		li.SKU = componentName
		if li.SKU == "" {
			li.SKU = text(ix.config)
		}
		txType := text(ix.txType)
		li.Description = joinNonEmpty(" / ", li.ResourceType, componentType, componentName, text(ix.config), txType)

		// Times: the usage period, else the deduction time as a point.
		payTime, err := c.time(ix.payTime, env.tz)
		if err != nil {
			return false, err
		}
		if li.ChargePeriodStart, err = c.time(ix.start, env.tz); err != nil {
			return false, err
		}
		if li.ChargePeriodEnd, err = c.time(ix.end, env.tz); err != nil {
			return false, err
		}
		switch {
		case li.ChargePeriodStart.IsZero() && li.ChargePeriodEnd.IsZero():
			if payTime.IsZero() {
				return false, c.errAt(tencentFirstPresent(ix.start, ix.payTime), "no usage start time and no deduction time (开始使用时间 / 扣费时间)")
			}
			li.ChargePeriodStart, li.ChargePeriodEnd = payTime, payTime
		case li.ChargePeriodStart.IsZero():
			li.ChargePeriodStart = li.ChargePeriodEnd
		case li.ChargePeriodEnd.IsZero():
			li.ChargePeriodEnd = li.ChargePeriodStart
		}
		if li.ChargePeriodEnd.Before(li.ChargePeriodStart) {
			return false, c.errAt(ix.end, fmt.Sprintf("usage end %q is before usage start %q", c.cell(ix.end), c.cell(ix.start)))
		}
		// Billing month: 账单月份 where the file has it, else the month of
		// the deduction (Tencent bills by deduction time), else of the start.
		switch {
		case text(ix.billMonth) != "":
			p, ok := billingMonth(text(ix.billMonth))
			if !ok {
				return false, c.errAt(ix.billMonth, fmt.Sprintf("%q is not a billing month (YYYY-MM)", c.cell(ix.billMonth)))
			}
			li.BillingPeriod = p
		case !payTime.IsZero():
			li.BillingPeriod = payTime.In(env.tz).Format("2006-01")
		default:
			li.BillingPeriod = li.ChargePeriodStart.In(env.tz).Format("2006-01")
		}

		// Money.
		if li.ListCost, err = c.amount(ix.list); err != nil {
			return false, err
		}
		if li.BilledCost, err = c.requiredAmount(ix.billed); err != nil {
			return false, err
		}
		// The consumed quantity stays unknown: newer files split 原始用量 and
		// 抵扣用量, kept in raw.
		var gift, commission, usage, duration decimal.NullDecimal
		if err := c.amounts(amountCell{ix.voucher, &li.VoucherPaid}, amountCell{ix.cash, &li.CashPaid},
			amountCell{ix.gift, &gift}, amountCell{ix.commission, &commission}, amountCell{ix.unitPrice, &li.ListUnitPrice},
			amountCell{ix.usage, &usage}, amountCell{ix.duration, &duration}); err != nil {
			return false, err
		}
		li.OtherPaid = addNullDecimal(gift, commission)
		li.PricingQuantity, li.PricingUnit = tencentQuantity(usage, text(ix.usageUnit), duration, text(ix.durationUnit), text(ix.priceUnit))
		if li.Currency, err = c.currency(ix.currency, currencies); err != nil {
			return false, err
		}

		// Classification.
		li.Kind = derived.kind(componentType+" "+componentName, li.ResourceType, li.ServiceName, text(ix.config))
		li.PricingModel = derived.pricing.get(text(ix.mode), text(ix.instanceType), txType)
		li.ChargeCategory = cloudCategory(li.Kind, li.PricingModel)
		if tencentRefund(txType) {
			li.ChargeCategory = ledger.CategoryCredit
			negateMoney(li)
		} else if strings.Contains(txType, "调账") {
			li.Kind, li.ChargeCategory = ledger.KindAdjustment, ledger.CategoryAdjustment
		}
		if li.Kind == ledger.KindCompute {
			derived.gpu.get(li.SKU+" "+li.ResourceType+" "+text(ix.config), "", "").set(li)
		}
		if len(tags) > 0 {
			m := map[string]string{}
			for i, k := range tags {
				if v := cloudText(c.cell(i)); v != "" {
					m[k] = v
				}
			}
			if len(m) > 0 {
				js, err := jsonObject(m)
				if err != nil {
					return false, c.errAt(-1, "cannot encode tags: "+err.Error())
				}
				li.Tags = js
			}
		}
		if id := text(txID); id != "" {
			li.LineKey = id + "/" + componentType + "/" + componentName
		}
		li.Raw = c.raw()
		return false, nil
	}, nil
}

// tencentFirstPresent returns the first column index that exists (for error
// positions).
func tencentFirstPresent(ix ...int) int {
	for _, i := range ix {
		if i >= 0 {
			return i
		}
	}
	return -1
}

// tencentQuantity is the billed quantity of a component: 组件用量 × 使用时长,
// so that 组件刊例价 × quantity = 组件原价 as Tencent defines it. Its unit
// comes from the price unit (元/GB/小时 → GB·小时 → GB-hour; 元/GB → GB; 元/核/
// 小时 → 核·小时, kept as written), dropping a piece count when the usage is one
// piece (元/颗/小时 for 1 颗 → hour). Without a price unit it is built the same
// way from the usage and duration units. A missing factor leaves the other.
func tencentQuantity(usage decimal.NullDecimal, usageUnit string, duration decimal.NullDecimal, durationUnit, priceUnit string) (decimal.NullDecimal, string) {
	var q decimal.NullDecimal
	switch {
	case usage.Valid && duration.Valid:
		q = decimal.NullDecimal{Decimal: usage.Decimal.Mul(duration.Decimal), Valid: true}
	case duration.Valid:
		q, usageUnit = duration, ""
	case usage.Valid:
		q, durationUnit = usage, ""
	default:
		return q, ""
	}
	var parts []string
	if pu := strings.TrimSpace(priceUnit); pu != "" {
		pu = strings.TrimPrefix(strings.TrimPrefix(pu, "元"), "/")
		for _, p := range strings.Split(pu, "/") {
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
	} else {
		parts = []string{usageUnit, durationUnit}
	}
	if len(parts) == 2 && tencentPieceUnit(parts[0]) && usage.Valid && usage.Decimal.Equal(decimal.NewFromInt(1)) {
		parts = parts[1:]
	}
	unit := joinNonEmpty("·", parts...)
	if u, ok := ParseUnit(unit); ok {
		return q, u
	}
	return q, unit
}

// tencentPieceUnit reports a usage unit that counts pieces (1 个 GPU).
func tencentPieceUnit(u string) bool {
	switch strings.TrimSpace(u) {
	case "个", "颗", "台", "块", "张", "卡", "次", "piece", "pieces", "unit", "units":
		return true
	}
	return false
}

// tencentPricing derives the pricing model: 实例类型 (竞价实例, RI, SP, 资源包)
// and a 竞价 transaction win over 计费模式 (包年包月 / 按量计费).
func tencentPricing(mode, instanceType, txType string) string {
	it := strings.ToLower(instanceType)
	switch {
	case strings.Contains(it, "竞价") || strings.Contains(it, "spot") || strings.Contains(txType, "竞价"):
		return ledger.PricingSpot
	case it == "ri" || it == "sp" || strings.Contains(it, "预留") || strings.Contains(it, "reserved") || strings.Contains(it, "节省计划"):
		return ledger.PricingReserved
	case strings.Contains(it, "资源包"):
		return ledger.PricingPackage
	}
	m := strings.ToLower(normHeader(mode))
	switch {
	case strings.Contains(m, "竞价") || strings.Contains(m, "spot"):
		return ledger.PricingSpot
	case strings.Contains(m, "包年包月") || strings.Contains(m, "预付费") || strings.Contains(m, "subscription") || strings.Contains(m, "prepaid"):
		return ledger.PricingPackage
	case strings.Contains(m, "预留") || m == "ri" || strings.Contains(m, "standardri") || strings.Contains(m, "reserved"):
		return ledger.PricingReserved
	}
	return ledger.PricingOnDemand
}

// tencentRefund reports a refund transaction (包年包月退款, 调账退费 …).
func tencentRefund(txType string) bool {
	return strings.Contains(txType, "退款") || strings.Contains(txType, "退费") || strings.Contains(strings.ToLower(txType), "refund")
}

// ---- helpers shared by the Chinese cloud formats (Tencent, Huawei) ----

// cloudText turns the "no value" spellings of Chinese exports (-, --, null)
// into an empty cell.
func cloudText(s string) string {
	if isUnknownText(s) {
		return ""
	}
	return s
}

// jsonObject renders tags as a JSON object (keys sorted: stable text).
func jsonObject(m map[string]string) (string, error) {
	js, err := json.Marshal(m)
	return string(js), err
}

// joinNonEmpty joins the non-empty parts with sep.
func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// addNullDecimal adds two optional amounts: unknown only when both are.
func addNullDecimal(a, b decimal.NullDecimal) decimal.NullDecimal {
	switch {
	case !a.Valid:
		return b
	case !b.Valid:
		return a
	}
	return decimal.NullDecimal{Decimal: a.Decimal.Add(b.Decimal), Valid: true}
}

// negateMoney makes a refund row's amounts negative: a bill may write a
// refund as a positive amount next to a refund transaction type, and a
// refund must lower the month's spend. Amounts already negative stay as
// written (never flipped twice).
func negateMoney(li *ledger.LineItem) {
	neg := func(d decimal.Decimal) decimal.Decimal {
		if d.IsPositive() {
			return d.Neg()
		}
		return d
	}
	nneg := func(d decimal.NullDecimal) decimal.NullDecimal {
		if d.Valid {
			d.Decimal = neg(d.Decimal)
		}
		return d
	}
	li.BilledCost = neg(li.BilledCost)
	li.ListCost = nneg(li.ListCost)
	li.VoucherPaid = nneg(li.VoucherPaid)
	li.CashPaid = nneg(li.CashPaid)
	li.OtherPaid = nneg(li.OtherPaid)
	li.Unpaid = nneg(li.Unpaid)
}

// cloudKindRules classify charge text, most specific first: a snapshot or an
// image bought for an instance is not compute; traffic of a storage product
// (COS 外网下行流量) is network.
var cloudKindRules = []struct {
	kind  string
	words []string
}{
	{ledger.KindTax, []string{"税"}},
	{ledger.KindCredit, []string{"代金券", "优惠券", "现金券"}},
	{ledger.KindSnapshot, []string{"快照", "snapshot"}},
	{ledger.KindImage, []string{"镜像", "image"}},
	{ledger.KindNetwork, []string{"流量", "带宽", "公网ip", "弹性ip", "弹性公网", "eip", "cdn", "ip地址", "nat网关", "负载均衡",
		"bandwidth", "traffic", "hws.resource.type.ip", "hws.resource.type.bandwidth"}},
	{ledger.KindStorage, []string{"系统盘", "数据盘", "云盘", "云硬盘", "硬盘", "存储", "cos", "cfs", "nas", "obs", "evs", "sfs",
		"disk", "volume", "storage", "hws.resource.type.volume"}},
	{ledger.KindCompute, []string{"gpu", "cpu", "vcpu", "内存", "实例", "计算", "云服务器", "云主机", "主机", "服务器", "cvm", "ecs",
		"算力", "ascend", "昇腾", "instance", "memory", "hws.resource.type.vm", "hws.resource.type.bms"}},
}

// firstKind is the kind of the first text that kindOf names one for, else
// other.
func firstKind(kindOf func(string) string, texts []string) string {
	for _, s := range texts {
		if k := kindOf(s); k != "" {
			return k
		}
	}
	return ledger.KindOther
}

// cloudKindOf is the kind one text names, or "".
func cloudKindOf(s string) string {
	t := strings.ToLower(s)
	if strings.TrimSpace(t) == "" {
		return ""
	}
	for _, r := range cloudKindRules {
		for _, w := range r.words {
			if containsWord(t, w) {
				return r.kind
			}
		}
	}
	return ""
}

// cloudDerived caches what the 腾讯云 and 华为云 mappers derive from texts
// that repeat row after row (textMemo): the kind each text names, the GPU
// model of an instance spec, the pricing model and the tags (华为云 only:
// 腾讯云's tags are columns of their own, and tags is nil). Without it
// these took a third of a 华为云 import's parsing.
type cloudDerived struct {
	kindOf, pricing, tags *textMemo[string]
	gpu                   *textMemo[cloudGPU]
}

func newCloudDerived(provider string, pricing func(a, b, c string) string, tags func(string) string) cloudDerived {
	d := cloudDerived{
		kindOf:  newTextMemo(func(s, _, _ string) string { return cloudKindOf(s) }),
		gpu:     newTextMemo(func(s, _, _ string) cloudGPU { return cloudGPUOf(provider, s) }),
		pricing: newTextMemo(pricing),
	}
	if tags != nil {
		d.tags = newTextMemo(func(s, _, _ string) string { return tags(s) })
	}
	return d
}

// kind is cloudKind through the cache.
func (d cloudDerived) kind(texts ...string) string {
	return firstKind(func(s string) string { return d.kindOf.get(s, "", "") }, texts)
}

// containsWord reports whether t contains w; an ASCII word must not be part
// of a longer Latin word ("cos" is not in "cost"; a plural s is allowed).
func containsWord(t, w string) bool {
	if !isASCIIWord(w) {
		return strings.Contains(t, w)
	}
	letter := func(b byte) bool { return b >= 'a' && b <= 'z' }
	for from := 0; ; {
		i := strings.Index(t[from:], w)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(w)
		if (i == 0 || !letter(t[i-1])) && (j == len(t) || !letter(t[j]) || (t[j] == 's' && (j+1 == len(t) || !letter(t[j+1])))) {
			return true
		}
		from = i + 1
	}
}

func isASCIIWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 {
			return false
		}
	}
	return true
}

// cloudCategory derives the FOCUS charge category from kind and pricing.
func cloudCategory(kind, pricing string) string {
	switch {
	case kind == ledger.KindCredit:
		return ledger.CategoryCredit
	case kind == ledger.KindTax:
		return ledger.CategoryTax
	case pricing == ledger.PricingPackage:
		return ledger.CategoryPurchase
	}
	return ledger.CategoryUsage
}

// cloudGPU is the GPU of a compute line: its model, "" when unsure, and
// how many, 0 when the text does not say ("GPU:NVIDIA A10*4" says 4).
type cloudGPU struct {
	model string
	count int
}

// cloudGPUOf is the GPU of a compute line of provider, from its spec texts
// (billing.GPUModelOf: a GPU named in the text, else the provider's
// instance family).
func cloudGPUOf(provider, text string) cloudGPU {
	m, n, _ := billing.GPUModelOf(provider, text)
	return cloudGPU{m, n}
}

// set gives li the GPU: its model, and its count where the text states it.
func (g cloudGPU) set(li *ledger.LineItem) {
	li.GPUModel = g.model
	if g.count > 0 {
		li.GPUCount = g.count
	}
}

// billingMonth reads a billing period: 2026-10, 2026/10, 202610 or 2026年10月
// (a full date is cut to its month).
func billingMonth(s string) (string, bool) {
	t := trimCell(s)
	var y, m int
	digits := func(s string) (int, bool) {
		if s == "" || len(s) > 4 {
			return 0, false
		}
		n := 0
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			n = n*10 + int(s[i]-'0')
		}
		return n, true
	}
	var ok1, ok2 bool
	switch {
	case len(t) == 6 && !strings.ContainsAny(t, "-/.年"):
		y, ok1 = digits(t[:4])
		m, ok2 = digits(t[4:])
	case strings.HasSuffix(t, "月") && strings.Contains(t, "年"):
		a, b, _ := strings.Cut(strings.TrimSuffix(t, "月"), "年")
		y, ok1 = digits(a)
		m, ok2 = digits(b)
	default:
		for _, sep := range []string{"-", "/", "."} {
			if a, b, ok := strings.Cut(t, sep); ok {
				if rest, _, more := strings.Cut(b, sep); more {
					b = rest // 2026-10-01: the month of the date
				}
				y, ok1 = digits(a)
				m, ok2 = digits(b)
				break
			}
		}
	}
	if !ok1 || !ok2 || !billYear(y) || m < 1 || m > 12 {
		return "", false
	}
	return time.Date(y, time.Month(m), 1, 0, 0, 0, 0, time.UTC).Format("2006-01"), true
}

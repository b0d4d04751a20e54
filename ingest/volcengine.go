package ingest

import (
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// 火山引擎 Volcengine 费用中心 → 账单详情. The API fields are documented
// (ListBillDetail in volcengine-go-sdk service/billing); the console export's
// Chinese header is NOT confirmed: the labels below are the API's own
// descriptions (原价, 优惠金额, 抹零金额, 折后价 …), which is a guess at what
// the console writes. A 合计 total row at the end is skipped.
//
// The trap (FORMATS.md): 优惠金额 (PreferentialBillAmount) is the discount
// taken off, not a price; 折后价 (DiscountBillAmount) is the price after it:
//
//	折后价 = 原价 − 优惠金额 − 抹零金额      168.74 − 148.500779 − 0.559221 = 19.68
//	应付金额 = 折后价 − 代金券抵扣
//
// So list_cost = 原价, billed_cost = 应付金额 (or, when a file lacks that
// column, 折后价 − 代金券抵扣), voucher_paid = 代金券抵扣, cash_paid = 现金支付
// (PaidAmount), unpaid = 欠费金额. 优惠金额 never becomes a cost: reading it
// as the price after discount would turn a ¥19.68 line into ¥148.50.

func init() { registerFormat(volcengineFormat, 33) }

var volcengineFormat = &Format{
	ID:         "volcengine-bill",
	Version:    "1",
	NameZH:     "火山引擎 账单详情（中文表头或 API 字段名）",
	NameEN:     "Volcengine bill details (Chinese or API headers)",
	Confidence: ConfidenceGuess,
	DetectZH: "表头含 原价 与 折后价（或 OriginalBillAmount 与 DiscountBillAmount）。API 字段名有官方文档；控制台导出的中文表头未经证实，" +
		"是按 API 字段说明推测的。优惠金额是优惠掉的金额，折后价才是优惠后的价格；末尾“合计”行会被跳过",
	DetectEN: "header holds 原价 and 折后价 (or OriginalBillAmount and DiscountBillAmount). The API field names are documented; " +
		"the console export's Chinese header is a guess taken from the API's field descriptions. 优惠金额 is the discount " +
		"taken off, 折后价 the price after it; a trailing 合计 row is skipped",
	DedupeKey: "the line id 账单明细ID (BillDetailId) where the file has it, and the hash of provider, account, instance, " +
		"kind, charge category, charge period, quantity and unit, unit price, list/billed/voucher/cash amounts, currency, " +
		"计费项; each + occurrence number in the file; a row is a duplicate when either is known (a console file without " +
		"the id column dedupes against fetched lines by the hash)",
	Target: TargetLineItems,
	Columns: []Column{
		{Field: "list_cost", Headers: []string{"原价", "OriginalBillAmount"}, Required: true},
		{Field: "discount_bill", Headers: []string{"折后价", "DiscountBillAmount"}, Required: true},
		{Field: "preferential", Headers: []string{"优惠金额", "PreferentialBillAmount"}},
		{Field: "round", Headers: []string{"抹零金额", "RoundAmount", "RoundBillAmount"}},
		{Field: "coupon", Headers: []string{"代金券抵扣", "CouponAmount"}},
		{Field: "billed_cost", Headers: []string{"应付金额", "PayableAmount"}},
		{Field: "paid", Headers: []string{"现金支付", "PaidAmount"}},
		{Field: "unpaid", Headers: []string{"欠费金额", "UnpaidAmount"}},
		{Field: "currency", Headers: []string{"币种", "Currency"}},
		{Field: "billing_period", Headers: []string{"账期", "BillPeriod"}},
		{Field: "expense_date", Headers: []string{"消费日期", "ExpenseDate"}},
		{Field: "expense_begin", Headers: []string{"消费开始时间", "ExpenseBeginTime"}},
		{Field: "expense_end", Headers: []string{"消费结束时间", "ExpenseEndTime"}},
		{Field: "bill_category", Headers: []string{"账单类型", "BillCategory", "BillCategoryParent"}},
		{Field: "billing_mode", Headers: []string{"计费模式", "BillingMode"}},
		{Field: "product_zh", Headers: []string{"产品", "ProductZh", "产品名称"}},
		{Field: "product", Headers: []string{"Product", "产品编码", "产品英文名称"}},
		{Field: "payer_id", Headers: []string{"账号ID", "PayerID", "支付账号ID"}},
		{Field: "project", Headers: []string{"项目", "Project", "ProjectDisplayName"}},
		{Field: "instance_id", Headers: []string{"实例ID", "InstanceNo", "实例编号"}},
		{Field: "instance_name", Headers: []string{"实例名称", "InstanceName"}},
		{Field: "config", Headers: []string{"配置", "ConfigName", "配置名称"}},
		{Field: "element", Headers: []string{"计费项", "Element"}},
		{Field: "region", Headers: []string{"地域", "Region"}},
		{Field: "zone", Headers: []string{"可用区", "Zone"}},
		{Field: "price", Headers: []string{"单价", "Price"}},
		{Field: "count", Headers: []string{"用量", "Count"}},
		{Field: "unit", Headers: []string{"用量单位", "Unit"}},
		{Field: "tag", Headers: []string{"标签", "Tag"}},
		// Known columns without a ledger column of their own.
		{Field: "bill_id", Headers: []string{"账单ID", "BillID"}, RawOnly: true},
		{Field: "bill_detail_id", Headers: []string{"账单明细ID", "BillDetailId", "BillDetailID"}, RawOnly: true},
		{Field: "price_unit", Headers: []string{"单价单位", "PriceUnit"}, RawOnly: true},
		{Field: "use_duration", Headers: []string{"使用时长", "UseDuration"}, RawOnly: true},
		{Field: "use_duration_unit", Headers: []string{"使用时长单位", "UseDurationUnit"}, RawOnly: true},
		{Field: "owner_id", Headers: []string{"Owner账号ID", "OwnerID"}, RawOnly: true},
		{Field: "settlement_type", Headers: []string{"结算类型", "SettlementType"}, RawOnly: true},
		{Field: "credit_carried", Headers: []string{"信控额度退款抵扣", "CreditCarriedAmount"}, RawOnly: true},
		{Field: "element_code", Headers: []string{"计费项编码", "ElementCode"}, RawOnly: true},
		{Field: "factor", Headers: []string{"计费因子", "Factor"}, RawOnly: true},
		{Field: "trade_time", Headers: []string{"交易时间", "TradeTime"}, RawOnly: true},
	},
	lines: volcengineLines,
}

// volcengineLines maps 账单详情 rows.
func volcengineLines(b *binding, env *mapEnv) (lineMapper, error) {
	ix := struct {
		list, discountBill, preferential, round, coupon, billed, paid, unpaid, currency, period, date, begin, end,
		category, mode, productZh, product, payer, project, instance, instanceName, config, element, region, zone,
		price, count, unit, tag int
	}{
		b.idx("list_cost"), b.idx("discount_bill"), b.idx("preferential"), b.idx("round"), b.idx("coupon"),
		b.idx("billed_cost"), b.idx("paid"), b.idx("unpaid"), b.idx("currency"), b.idx("billing_period"),
		b.idx("expense_date"), b.idx("expense_begin"), b.idx("expense_end"), b.idx("bill_category"),
		b.idx("billing_mode"), b.idx("product_zh"), b.idx("product"), b.idx("payer_id"), b.idx("project"),
		b.idx("instance_id"), b.idx("instance_name"), b.idx("config"), b.idx("element"), b.idx("region"),
		b.idx("zone"), b.idx("price"), b.idx("count"), b.idx("unit"), b.idx("tag"),
	}
	detailID := b.idx("bill_detail_id") // the line id, where the file has it
	currencies, units := newMemo(normCurrency), newMemo(ParseUnit)
	derived := newAliyunDerived("volcengine")
	text := func(c *rowCtx, i int) string {
		s := c.cell(i)
		if isUnknownText(s) {
			return ""
		}
		return s
	}
	return func(c *rowCtx, li *ledger.LineItem) (bool, error) {
		if isTotalRow(c.rec) {
			return true, nil
		}
		var err error
		li.Provider = "volcengine"
		// 优惠金额 and 抹零金额 are deductions, checked but kept in raw only.
		var afterDiscount decimal.NullDecimal
		if err := c.amounts(amountCell{ix.list, &li.ListCost}, amountCell{ix.preferential, nil}, amountCell{ix.round, nil},
			amountCell{ix.discountBill, &afterDiscount}, amountCell{ix.coupon, &li.VoucherPaid}); err != nil {
			return false, err
		}
		if ix.billed >= 0 {
			if li.BilledCost, err = c.requiredAmount(ix.billed); err != nil {
				return false, err
			}
		} else {
			// No 应付金额 column: payable = 折后价 − 代金券抵扣.
			if !afterDiscount.Valid {
				return false, c.errAt(ix.discountBill, "required amount is empty (the file has no 应付金额 column)")
			}
			li.BilledCost = afterDiscount.Decimal
			if li.VoucherPaid.Valid {
				li.BilledCost = li.BilledCost.Sub(li.VoucherPaid.Decimal)
			}
		}
		if err := c.amounts(amountCell{ix.paid, &li.CashPaid}, amountCell{ix.unpaid, &li.Unpaid},
			amountCell{ix.price, &li.ListUnitPrice}, amountCell{ix.count, &li.PricingQuantity}); err != nil {
			return false, err
		}
		if u := text(c, ix.unit); u != "" {
			li.PricingUnit = u
			if n, ok := units.get(u); ok {
				li.PricingUnit = n
			}
		}
		if li.Currency, err = c.currency(ix.currency, currencies); err != nil {
			return false, err
		}
		// The billing month: 账期, else the month the charge starts in.
		month := ""
		if ix.period >= 0 && text(c, ix.period) != "" {
			if month, err = c.aliyunBillMonth(ix.period, derived.month); err != nil {
				return false, err
			}
		}
		if month == "" {
			for _, i := range []int{ix.begin, ix.date} {
				if m, ok := aliyunParseMonth(text(c, i)); ok {
					month = m
					break
				}
			}
		}
		if month == "" {
			return false, c.errAt(ix.period, "no billing month: 账期 (BillPeriod), 消费开始时间 and 消费日期 are all empty or absent")
		}
		li.BillingPeriod = month
		if li.ChargePeriodStart, li.ChargePeriodEnd, err = c.aliyunChargePeriod(env.tz, month, ix.begin, ix.end, ix.date, -1); err != nil {
			return false, err
		}
		li.BillingAccountID = text(c, ix.payer)
		li.SubAccount = text(c, ix.project)
		if li.SubAccount == "default" {
			li.SubAccount = ""
		}
		li.ServiceName = text(c, ix.productZh)
		if li.ServiceName == "" {
			li.ServiceName = text(c, ix.product)
		}
		li.ResourceType = text(c, ix.product)
		li.ResourceID = text(c, ix.instance)
		li.ResourceName = text(c, ix.instanceName)
		li.SKU = text(c, ix.config)
		li.Region = text(c, ix.region)
		li.Zone = text(c, ix.zone)
		li.Description = text(c, ix.element)
		li.Tags = derived.tags.get(text(c, ix.tag), "", "")
		category := volcCategoryText(text(c, ix.category))
		li.Kind = derived.kind.get(category, li.Description, li.ServiceName+" "+text(c, ix.product))
		mode := volcBillingMode(text(c, ix.mode))
		li.PricingModel = derived.pricing.get(mode, li.Description+" "+li.SKU, "")
		li.ChargeCategory = aliyunCategory(category, li.Kind, li.PricingModel)
		if li.Kind == ledger.KindCompute {
			derived.gpu.get(li.SKU, "", "").set(li)
		}
		li.LineKey = text(c, detailID)
		li.Raw = c.raw()
		return false, nil
	}, nil
}

// volcBillingMode turns the API's BillingMode codes into their names
// (1 包年包月, 2 按量计费, 3 合同计费, 4 履约计费); text is kept.
func volcBillingMode(s string) string {
	switch s {
	case "1":
		return "包年包月"
	case "2":
		return "按量计费"
	case "3":
		return "合同计费"
	case "4":
		return "履约计费"
	}
	return s
}

// volcCategoryText turns the API's bill category codes (consume, refund,
// transfer) into the console's words.
func volcCategoryText(s string) string {
	switch s {
	case "consume":
		return "消费"
	case "refund":
		return "退款"
	case "transfer":
		return "调账"
	}
	return s
}

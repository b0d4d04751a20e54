package ingest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

// 阿里云 Alibaba Cloud 费用与成本 → 账单详情 → 明细账单 (计费项明细), as
// FORMATS.md describes it: the older 41-column file (原价), the newer one
// (官网价, 日期, ~25 more columns) and files with the English API names of
// DescribeInstanceBill (BillingCycle, PretaxGrossAmount …). Large exports
// arrive zipped with several CSVs inside; the zip is opened elsewhere and
// each inner CSV comes here.
//
// Money (help.aliyun.com/document_detail/89133.html, 311840.html):
//
//	官网价/原价 (PretaxGrossAmount)        list price            → list_cost
//	优惠金额 (InvoiceDiscount)              discount              → raw only
//	优惠券抵扣 (DeductedByCoupons)          discount (coupon)     → raw only
//	应付金额 (PretaxAmount)                 payable = list − both discounts → billed_cost
//	现金支付 (PaymentAmount)                paid in cash          → cash_paid
//	代金券抵扣 (DeductedByCashCoupons)      paid by vouchers      → voucher_paid
//	储值卡支付金额 (DeductedByPrepaidCard)  paid by prepaid card  → other_paid
//	欠费金额 (OutstandingAmount)            left unpaid           → unpaid
//
// The ledger has no discount column: list_cost − billed_cost is the discount
// (优惠金额 + 优惠券抵扣), and both cells stay in raw.
//
// Invoiceable amount, as Alibaba Cloud defines it (document 311840):
// 应付金额 − 储值卡支付金额 − 代金券抵扣, i.e. billed_cost − other_paid −
// voucher_paid (which equals cash_paid + unpaid, since unpaid amounts are
// invoiced once paid). Newer exports carry it as 消费金额(可开票); that column
// is recognised and kept in raw, and the ledger's invoiceable figure is
// derived from the columns above so that files without it agree.

func init() { registerFormat(aliyunFormat, 30) }

var aliyunFormat = &Format{
	ID:         "aliyun-detail",
	Version:    "1",
	NameZH:     "阿里云 明细账单（计费项明细，含新旧表头与 API 英文表头）",
	NameEN:     "Alibaba Cloud detailed bill (billing-item detail; old and new headers, API names)",
	Confidence: ConfidenceParser,
	DetectZH: "表头含 账期、应付金额、官网价或原价，以及 储值卡支付金额、产品Code 或 优惠券抵扣 之一（或英文 BillingCycle、PretaxAmount、" +
		"PretaxGrossAmount …）。表头来自第三方解析器与 API 文档，非阿里云导出文件的正式说明；压缩包需先解压（或由 zip 导入处理）",
	DetectEN: "header holds 账期, 应付金额, 官网价 or 原价, and one of 储值卡支付金额, 产品Code or 优惠券抵扣 (or the API names " +
		"BillingCycle, PretaxAmount, PretaxGrossAmount …). The layout comes from third-party parsers and the API reference, " +
		"not from a vendor description of the export; zipped exports are read member by member",
	DedupeKey: "hash of provider, account, instance, kind, charge category, charge period (日期 or 账单开始/结束时间), quantity and unit, " +
		"unit price, list/billed/voucher/cash amounts, currency, 计费项 + occurrence number in the file (the detail bill has no " +
		"per-line id: 订单号/账单号 is shared by the lines of one order)",
	Target: TargetLineItems,
	Columns: []Column{
		{Field: "billing_period", Headers: []string{"账期", "BillingCycle"}, Required: true},
		{Field: "billed_cost", Headers: []string{"应付金额", "PretaxAmount"}, Required: true},
		{Field: "list_cost", Headers: []string{"官网价", "原价", "PretaxGrossAmount"}, Required: true},
		{Field: "discount", Headers: []string{"优惠金额", "InvoiceDiscount"}},
		{Field: "coupon", Headers: []string{"优惠券抵扣", "DeductedByCoupons"}},
		{Field: "cash_paid", Headers: []string{"现金支付", "PaymentAmount"}},
		{Field: "voucher_paid", Headers: []string{"代金券抵扣", "DeductedByCashCoupons"}},
		{Field: "prepaid_card", Headers: []string{"储值卡支付金额", "储值卡支付", "DeductedByPrepaidCard"}},
		{Field: "unpaid", Headers: []string{"欠费金额", "OutstandingAmount"}},
		{Field: "currency", Headers: []string{"币种", "Currency"}},
		{Field: "date", Headers: []string{"日期", "BillingDate", "消费日期"}},
		{Field: "usage_start", Headers: []string{"账单开始时间", "UsageStartTime", "使用开始时间"}},
		{Field: "usage_end", Headers: []string{"账单结束时间", "UsageEndTime", "使用结束时间"}},
		{Field: "payment_time", Headers: []string{"消费时间", "PaymentTime"}},
		{Field: "cost_unit", Headers: []string{"财务单元", "CostUnit"}},
		{Field: "account_id", Headers: []string{"账号ID", "AccountID", "BillAccountID", "UserID"}},
		{Field: "product_code", Headers: []string{"产品Code", "ProductCode"}},
		{Field: "product", Headers: []string{"产品", "ProductName"}},
		{Field: "product_detail", Headers: []string{"产品明细", "ProductDetail"}},
		{Field: "consume_type", Headers: []string{"消费类型", "SubscriptionType"}},
		{Field: "bill_type", Headers: []string{"账单类型", "Item"}},
		{Field: "billing_method", Headers: []string{"计费方式", "BillingType"}},
		{Field: "instance_id", Headers: []string{"实例ID", "InstanceID"}},
		{Field: "nickname", Headers: []string{"实例昵称", "NickName"}},
		{Field: "tags", Headers: []string{"实例标签", "Tag"}},
		{Field: "instance_config", Headers: []string{"实例配置", "InstanceConfig"}},
		{Field: "instance_spec", Headers: []string{"实例规格", "InstanceSpec"}},
		{Field: "region", Headers: []string{"地域", "Region"}},
		{Field: "zone", Headers: []string{"可用区", "Zone"}},
		{Field: "billing_item", Headers: []string{"计费项", "BillingItem"}},
		{Field: "billing_item_code", Headers: []string{"计费项Code", "BillingItemCode"}},
		{Field: "unit_price", Headers: []string{"单价", "ListPrice"}},
		{Field: "usage", Headers: []string{"用量", "Usage"}},
		{Field: "usage_unit", Headers: []string{"用量单位", "UsageUnit"}},
		// Known columns without a ledger column of their own.
		{Field: "invoiceable", Headers: []string{"消费金额(可开票)", "可开票金额"}, RawOnly: true},
		{Field: "account_name", Headers: []string{"账号", "AccountName", "BillAccountName"}, RawOnly: true},
		{Field: "owner_id", Headers: []string{"Owner账号ID", "Owner账号", "OwnerID"}, RawOnly: true},
		{Field: "product_detail_code", Headers: []string{"产品明细Code", "ProductType"}, RawOnly: true},
		{Field: "business_type", Headers: []string{"业务类型", "BizType"}, RawOnly: true},
		{Field: "service_period", Headers: []string{"服务时长", "ServicePeriod"}, RawOnly: true},
		{Field: "service_period_unit", Headers: []string{"时长单位", "ServicePeriodUnit"}, RawOnly: true},
		{Field: "record_id", Headers: []string{"订单号/账单号", "RecordID"}, RawOnly: true},
		{Field: "resource_group", Headers: []string{"资源组", "ResourceGroup"}, RawOnly: true},
		{Field: "internet_ip", Headers: []string{"公网IP", "InternetIP"}, RawOnly: true},
		{Field: "intranet_ip", Headers: []string{"私网IP", "IntranetIP"}, RawOnly: true},
		{Field: "unit_price_unit", Headers: []string{"单价单位", "ListPriceUnit"}, RawOnly: true},
		{Field: "resource_package", Headers: []string{"资源包抵扣", "DeductedByResourcePackage"}, RawOnly: true},
		{Field: "ri_deduction", Headers: []string{"抵扣量（含RI）", "抵扣量"}, RawOnly: true},
		{Field: "saving_plan", Headers: []string{"节省计划抵扣金额"}, RawOnly: true},
		{Field: "credit_refund", Headers: []string{"信用额度退款抵扣"}, RawOnly: true},
		{Field: "adjust_amount", Headers: []string{"调账金额", "AdjustAmount"}, RawOnly: true},
	},
	match: func(b *binding) bool {
		return b.idx("prepaid_card") >= 0 || b.idx("product_code") >= 0 || b.idx("coupon") >= 0
	},
	lines: aliyunLines,
}

// aliyunLines maps 明细账单 rows.
func aliyunLines(b *binding, env *mapEnv) (lineMapper, error) {
	ix := struct {
		period, billed, list, discount, coupon, cash, voucher, card, unpaid, currency, date, start, end, payTime,
		costUnit, account, productCode, product, productDetail, consumeType, billType, method, instance, nickname,
		tags, config, spec, region, zone, item, itemCode, unitPrice, usage, usageUnit int
	}{
		b.idx("billing_period"), b.idx("billed_cost"), b.idx("list_cost"), b.idx("discount"), b.idx("coupon"),
		b.idx("cash_paid"), b.idx("voucher_paid"), b.idx("prepaid_card"), b.idx("unpaid"), b.idx("currency"),
		b.idx("date"), b.idx("usage_start"), b.idx("usage_end"), b.idx("payment_time"), b.idx("cost_unit"),
		b.idx("account_id"), b.idx("product_code"), b.idx("product"), b.idx("product_detail"), b.idx("consume_type"),
		b.idx("bill_type"), b.idx("billing_method"), b.idx("instance_id"), b.idx("nickname"), b.idx("tags"),
		b.idx("instance_config"), b.idx("instance_spec"), b.idx("region"), b.idx("zone"), b.idx("billing_item"),
		b.idx("billing_item_code"), b.idx("unit_price"), b.idx("usage"), b.idx("usage_unit"),
	}
	currencies, units := newMemo(normCurrency), newMemo(ParseUnit)
	derived := newAliyunDerived("aliyun")
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
		li.Provider = "aliyun"
		month, err := c.aliyunBillMonth(ix.period, derived.month)
		if err != nil {
			return false, err
		}
		li.BillingPeriod = month
		if li.ChargePeriodStart, li.ChargePeriodEnd, err = c.aliyunChargePeriod(env.tz, month, ix.start, ix.end, ix.date, ix.payTime); err != nil {
			return false, err
		}
		if li.BilledCost, err = c.requiredAmount(ix.billed); err != nil {
			return false, err
		}
		// Discounts have no ledger column (list − billed): only checked.
		if err := c.amounts(amountCell{ix.list, &li.ListCost}, amountCell{ix.discount, nil}, amountCell{ix.coupon, nil},
			amountCell{ix.cash, &li.CashPaid}, amountCell{ix.voucher, &li.VoucherPaid}, amountCell{ix.card, &li.OtherPaid},
			amountCell{ix.unpaid, &li.Unpaid}, amountCell{ix.unitPrice, &li.ListUnitPrice},
			amountCell{ix.usage, &li.PricingQuantity}); err != nil {
			return false, err
		}
		if u := text(c, ix.usageUnit); u != "" {
			li.PricingUnit = u
			if n, ok := units.get(u); ok {
				li.PricingUnit = n
			}
		}
		if li.Currency, err = c.currency(ix.currency, currencies); err != nil {
			return false, err
		}
		li.BillingAccountID = text(c, ix.account)
		if cu := text(c, ix.costUnit); cu != "未分配" && !strings.EqualFold(cu, "unallocated") {
			li.SubAccount = cu
		}
		li.ServiceName = text(c, ix.product)
		if li.ServiceName == "" {
			li.ServiceName = text(c, ix.productCode)
		}
		li.ResourceType = text(c, ix.productDetail)
		li.ResourceID = text(c, ix.instance)
		li.ResourceName = text(c, ix.nickname)
		li.SKU = text(c, ix.spec)
		li.Region = text(c, ix.region)
		li.Zone = text(c, ix.zone)
		li.Description = text(c, ix.item)
		if li.Description == "" {
			li.Description = text(c, ix.itemCode)
		}
		li.Tags = derived.tags.get(text(c, ix.tags), "", "")
		billType := text(c, ix.billType)
		li.Kind = derived.kind.get(billType, text(c, ix.item)+" "+text(c, ix.itemCode),
			li.ServiceName+" "+text(c, ix.productCode)+" "+li.ResourceType)
		li.PricingModel = derived.pricing.get(text(c, ix.consumeType)+" "+text(c, ix.method),
			text(c, ix.method)+" "+li.Description+" "+li.ResourceType+" "+text(c, ix.config), "")
		li.ChargeCategory = aliyunCategory(billType, li.Kind, li.PricingModel)
		if li.Kind == ledger.KindCompute {
			derived.gpu.get(li.SKU, text(c, ix.config), "").set(li)
		}
		li.Raw = c.raw()
		return false, nil
	}, nil
}

// aliyunDerived caches what the 阿里云 and 火山引擎 mappers derive from texts
// that repeat row after row (textMemo).
type aliyunDerived struct {
	kind, pricing, tags *textMemo[string]
	gpu                 *textMemo[cloudGPU]
	month               *textMemo[billMonth]
}

// billMonth is what aliyunParseMonth found.
type billMonth struct {
	month string
	ok    bool
}

func newAliyunDerived(provider string) aliyunDerived {
	return aliyunDerived{
		kind:    newTextMemo(aliyunKind),
		pricing: newTextMemo(func(mode, detail, _ string) string { return aliyunPricing(mode, detail) }),
		tags:    newTextMemo(func(s, _, _ string) string { return aliyunTags(s) }),
		gpu:     newTextMemo(func(spec, config, _ string) cloudGPU { return cloudGPUOf(provider, spec+" "+config) }),
		month: newTextMemo(func(s, _, _ string) billMonth {
			m, ok := aliyunParseMonth(s)
			return billMonth{m, ok}
		}),
	}
}

// aliyunBillMonth reads a 账期 cell (2026-10, 2026/10, 202610, 2026年10月, or a
// full date) as YYYY-MM, through months (newAliyunDerived).
func (c *rowCtx) aliyunBillMonth(i int, months *textMemo[billMonth]) (string, error) {
	s, err := c.required(i)
	if err != nil {
		return "", err
	}
	if m := months.get(s, "", ""); m.ok {
		return m.month, nil
	}
	return "", c.errAt(i, fmt.Sprintf("%q is not a billing month (YYYY-MM)", s))
}

var aliyunMonthRe = regexp.MustCompile(`^(\d{4})(?:[-/.年](\d{1,2})月?|(\d{2}))$`)

// aliyunParseMonth reads a billing month; a full date gives its month.
func aliyunParseMonth(s string) (string, bool) {
	t := trimCell(s)
	if m := aliyunMonthRe.FindStringSubmatch(t); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2] + m[3])
		if billYear(y) && mo >= 1 && mo <= 12 {
			return fmt.Sprintf("%04d-%02d", y, mo), true
		}
		return "", false
	}
	if tm, ok := parseTimeWall(t, time.UTC); ok {
		return tm.Format("2006-01"), true
	}
	return "", false
}

// aliyunChargePeriod derives a line's charge period, most precise first: the
// start and end columns; else the day of the date column ([d, d+1)); else
// the moment of the payment-time column (a prepaid order); else the whole
// billing month. Naive times are in tz.
func (c *rowCtx) aliyunChargePeriod(tz *time.Location, month string, start, end, date, moment int) (time.Time, time.Time, error) {
	s, err := c.time(start, tz)
	if err != nil {
		return s, s, err
	}
	e, err := c.time(end, tz)
	if err != nil {
		return s, e, err
	}
	switch {
	case !s.IsZero() && !e.IsZero():
		if e.Before(s) {
			return s, e, c.errAt(end, fmt.Sprintf("end %q is before start %q", c.cell(end), c.cell(start)))
		}
		return s, e, nil
	case !s.IsZero():
		return s, s, nil
	}
	d, err := c.time(date, tz)
	if err != nil {
		return d, d, err
	}
	if !d.IsZero() {
		w := d.In(tz)
		day := time.Date(w.Year(), w.Month(), w.Day(), 0, 0, 0, 0, tz)
		return day.UTC(), day.AddDate(0, 0, 1).UTC(), nil
	}
	m, err := c.time(moment, tz)
	if err != nil {
		return m, m, err
	}
	if !m.IsZero() {
		return m, m, nil
	}
	first, err := time.ParseInLocation("2006-01", month, tz)
	if err != nil {
		return first, first, c.errAt(-1, "no charge time: "+err.Error())
	}
	return first.UTC(), first.AddDate(0, 1, 0).UTC(), nil
}

// aliyunKind classifies a Chinese cloud's bill line from its bill type, its
// billing item (计费项, most specific) and its product text: adjustment,
// credit and tax first, then snapshot, image, network, storage and compute
// words in the billing item, then the same in the product; anything else is
// other, never dropped.
func aliyunKind(billType, item, product string) string {
	if bt := strings.ToLower(billType); strings.Contains(bt, "调账") || strings.Contains(bt, "adjust") || bt == "transfer" {
		return ledger.KindAdjustment
	}
	for _, s := range []string{item, product} {
		if k := aliyunKindOf(s, false); k != "" {
			return k
		}
	}
	for _, s := range []string{item, product} {
		if k := aliyunKindOf(s, true); k != "" {
			return k
		}
	}
	return ledger.KindOther
}

// Words of each kind (case-insensitive; short ASCII words only as whole
// words, so "oss" does not match "gross"), most specific first.
var (
	aliyunCreditRe   = regexp.MustCompile(`(?i)代金券|优惠券|voucher|coupon`)
	aliyunTaxRe      = regexp.MustCompile(`(?i)税|\btax\b`)
	aliyunSnapshotRe = regexp.MustCompile(`(?i)快照|snapshot`)
	aliyunImageRe    = regexp.MustCompile(`(?i)镜像|\bimage`)
	aliyunNetworkRe  = regexp.MustCompile(`(?i)流量|带宽|公网\s*ip|弹性公网|\beip\b|\bcdn\b|nat网关|\bnat\b|负载均衡|\b[sc]lb\b|` +
		`internet|bandwidth|traffic|outbound|egress|public\s*ip`)
	aliyunStorageRe = regexp.MustCompile(`(?i)系统盘|数据盘|云盘|块存储|存储|硬盘|磁盘|\boss\b|\bnas\b|disk|storage|\bebs\b|\btos\b`)
	aliyunComputeRe = regexp.MustCompile(`(?i)实例|规格|\bgpu|vcpu|\bcpu|内存|\becs\b|云服务器|弹性计算|计算|instance|\bpai\b|灵骏|` +
		`machine\s*learning|机器学习`)
)

// aliyunKindOf finds a kind in text; compute words are tried only when
// compute is set (a product such as 云服务器ECS says compute only when its
// billing item said nothing more specific).
func aliyunKindOf(t string, compute bool) string {
	switch {
	case strings.TrimSpace(t) == "":
		return ""
	case compute:
		if aliyunComputeRe.MatchString(t) {
			return ledger.KindCompute
		}
		return ""
	case aliyunCreditRe.MatchString(t):
		return ledger.KindCredit
	case aliyunTaxRe.MatchString(t):
		return ledger.KindTax
	case aliyunSnapshotRe.MatchString(t):
		return ledger.KindSnapshot
	case aliyunImageRe.MatchString(t):
		return ledger.KindImage
	case aliyunNetworkRe.MatchString(t):
		return ledger.KindNetwork
	case aliyunStorageRe.MatchString(t):
		return ledger.KindStorage
	}
	return ""
}

// aliyunPricing derives the pricing model: spot (抢占式/竞价/spot) and
// reserved (预留实例) from any of the texts in detail, else package for
// 预付费/包年包月/Subscription, else on_demand (后付费, 按量, PayAsYouGo …).
func aliyunPricing(mode, detail string) string {
	d := strings.ToLower(detail + " " + mode)
	switch {
	case strings.Contains(d, "抢占式") || strings.Contains(d, "竞价") || strings.Contains(d, "spot") || strings.Contains(d, "preemptible"):
		return ledger.PricingSpot
	case strings.Contains(d, "预留实例") || strings.Contains(d, "reserved"):
		return ledger.PricingReserved
	}
	m := strings.ToLower(mode)
	if strings.Contains(m, "预付") || strings.Contains(m, "包年") || strings.Contains(m, "包月") || strings.Contains(m, "subscription") ||
		strings.Contains(m, "prepaid") {
		return ledger.PricingPackage
	}
	return ledger.PricingOnDemand
}

// aliyunCategory derives the FOCUS charge category: adjustments (调账) and
// refunds (退款) are Adjustment, credits Credit, tax Tax, prepaid lines
// Purchase, the rest Usage.
func aliyunCategory(billType, kind, pricing string) string {
	bt := strings.ToLower(billType)
	if kind == ledger.KindAdjustment || strings.Contains(bt, "退款") || strings.Contains(bt, "refund") {
		return ledger.CategoryAdjustment
	}
	return cloudCategory(kind, pricing)
}

// aliyunTags turns a tag cell into a JSON object: "k1:v1;k2:v2" (the API
// form) or "key:k1 value:v1; key:k2 value:v2" (the console form). A cell
// that fits neither gives "" (it stays in raw).
func aliyunTags(s string) string {
	if s == "" {
		return ""
	}
	if strings.HasPrefix(s, "{") && json.Valid([]byte(s)) {
		return s
	}
	tags := map[string]string{}
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '；' || r == ',' }) {
		part = trimCell(part)
		if part == "" {
			continue
		}
		var k, v string
		if rest, ok := strings.CutPrefix(part, "key:"); ok {
			kk, vv, found := strings.Cut(rest, " value:")
			if !found {
				return ""
			}
			k, v = kk, vv
		} else {
			kk, vv, found := strings.Cut(part, ":")
			if !found {
				if kk, vv, found = strings.Cut(part, "="); !found {
					return ""
				}
			}
			k, v = kk, vv
		}
		k, v = trimCell(k), trimCell(v)
		if k == "" {
			return ""
		}
		tags[k] = v
	}
	if len(tags) == 0 {
		return ""
	}
	out, err := json.Marshal(tags)
	if err != nil {
		return ""
	}
	return string(out)
}

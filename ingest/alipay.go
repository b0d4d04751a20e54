package ingest

import "fmt"

// Alipay (支付宝) exports, for matching platform top-ups (FORMATS.md
// "Payments"). Both are GBK text with a preamble; the header is found by
// content, so the preamble's length does not matter; its 共N笔记录 summary
// is never used for totals, only compared with the records read (a mismatch
// is an import warning: see statedCount in payments.go).

func init() {
	registerFormat(alipayMobileFormat, 70)
	registerFormat(alipayWebFormat, 71)
}

// alipayMobileFormat is the 交易明细 CSV of the Alipay app (支付宝交易明细
// (YYYYMMDD-YYYYMMDD).csv): about 24 preamble lines ending in a dashed
// 电子客户回单 line, then
//
//	交易时间,交易分类,交易对方,对方账号,商品说明,收/支,金额,收/付款方式,交易状态,交易订单号,商家订单号,备注,
//
// with a trailing comma, cells padded with spaces and order numbers followed
// by a tab. An older export orders the same columns differently (收/支 first,
// 交易时间 last); columns are matched by name, so both read the same.
var alipayMobileFormat = &Format{
	ID:         "alipay-mobile",
	Version:    "2023",
	NameZH:     "支付宝交易明细（手机端导出）",
	NameEN:     "Alipay transaction records (mobile app export)",
	Confidence: ConfidenceParser,
	DetectZH: "表头含 交易时间、交易分类、收/支、金额、交易订单号（前面的导出信息行按内容跳过）；" +
		"布局来自第三方解析器的真实样例（double-entry-generator），不是支付宝文档",
	DetectEN: "header holds 交易时间, 交易分类, 收/支, 金额 and 交易订单号 (the preamble is skipped by content); " +
		"layout from a third-party parser's real sample (double-entry-generator), not from Alipay documentation",
	DedupeKey: fmt.Sprintf(payDedupeKey, "交易订单号"),
	Target:    TargetPayments,
	Columns: []Column{
		{Field: "time", Headers: []string{"交易时间"}, Required: true},
		{Field: "category", Headers: []string{"交易分类"}, Required: true, RawOnly: true},
		{Field: "counterparty", Headers: []string{"交易对方"}},
		{Field: "counterparty_account", Headers: []string{"对方账号"}, RawOnly: true},
		{Field: "item", Headers: []string{"商品说明", "商品名称"}},
		{Field: "direction", Headers: []string{"收/支"}, Required: true},
		{Field: "amount", Headers: []string{"金额", "金额(元)"}, Required: true},
		{Field: "method", Headers: []string{"收/付款方式"}, RawOnly: true},
		{Field: "status", Headers: []string{"交易状态"}},
		{Field: "order_no", Headers: []string{"交易订单号"}, Required: true},
		{Field: "merchant_order_no", Headers: []string{"商家订单号", "商户订单号"}},
		{Field: "note", Headers: []string{"备注"}, RawOnly: true},
	},
	pays: payFields(SourceAlipay),
}

// alipayWebFormat is the older 交易记录 CSV of the Alipay website: a few
// preamble lines, a -----交易记录明细列表----- line, then
//
//	交易号,商家订单号,交易创建时间,付款时间,最近修改时间,交易来源地,类型,交易对方,商品名称,金额（元）,收/支,
//	交易状态,服务费（元）,成功退款（元）,备注,资金状态
//
// (some files spell 商户订单号), the rows, a dashed line and a footer
// (共N笔记录, 已收入/待收入/已支出/待支出 sums, 导出时间), which is skipped.
// The time stored is 交易创建时间: 付款时间 is empty until a trade is paid,
// and the dedupe key must not change when it is filled in. 服务费 and 成功退款
// (a refund recorded on the original row) stay in raw.
var alipayWebFormat = &Format{
	ID:         "alipay-web",
	Version:    "2019",
	NameZH:     "支付宝交易记录（网页版导出）",
	NameEN:     "Alipay transaction records (website export)",
	Confidence: ConfidenceParser,
	DetectZH: "表头含 交易号、交易创建时间、金额（元）、收/支；页脚（共N笔记录、已收入…）跳过；" +
		"布局来自第三方解析器，手头没有真实文件，样例是按描述写的",
	DetectEN: "header holds 交易号, 交易创建时间, 金额（元） and 收/支; the footer (共N笔记录, 已收入 …) is skipped; " +
		"layout from third-party parsers, no real file at hand: the sample is written from the description",
	DedupeKey: fmt.Sprintf(payDedupeKey, "交易号"),
	Target:    TargetPayments,
	Columns: []Column{
		{Field: "order_no", Headers: []string{"交易号"}, Required: true},
		{Field: "merchant_order_no", Headers: []string{"商家订单号", "商户订单号"}},
		{Field: "time", Headers: []string{"交易创建时间"}, Required: true},
		{Field: "paid_time", Headers: []string{"付款时间"}, RawOnly: true},
		{Field: "modified_time", Headers: []string{"最近修改时间"}, RawOnly: true},
		{Field: "origin", Headers: []string{"交易来源地"}, RawOnly: true},
		{Field: "type", Headers: []string{"类型"}, RawOnly: true},
		{Field: "counterparty", Headers: []string{"交易对方"}},
		{Field: "item", Headers: []string{"商品名称", "商品说明"}},
		{Field: "amount", Headers: []string{"金额（元）", "金额"}, Required: true},
		{Field: "direction", Headers: []string{"收/支"}, Required: true},
		{Field: "status", Headers: []string{"交易状态"}},
		{Field: "fee", Headers: []string{"服务费（元）"}, RawOnly: true},
		{Field: "refunded", Headers: []string{"成功退款（元）"}, RawOnly: true},
		{Field: "note", Headers: []string{"备注"}, RawOnly: true},
		{Field: "fund_status", Headers: []string{"资金状态"}, RawOnly: true},
	},
	pays: payFields(SourceAlipay),
}

package ingest

import "fmt"

// WeChat Pay (微信支付) bills, for matching platform top-ups (FORMATS.md
// "Payments"): 微信支付账单(YYYYMMDD-YYYYMMDD).csv (UTF-8) or .xlsx, 16
// preamble lines padded with commas (found by content; the 共N笔记录
// summary only warns when it disagrees with the records read), then on line 17
//
//	交易时间,交易类型,交易对方,商品,收/支,金额(元),支付方式,当前状态,交易单号,商户单号,备注
//
// Amounts are written ¥28.16; 收/支 is 收入, 支出 or "/" (中性交易: top-ups,
// withdrawals, transfers between one's own wallets); "/" also marks empty
// cells. Order numbers are followed by a tab, sometimes after the closing
// quote ("3985734"<TAB>,), which csvrepair.go mends. In an XLSX sheet the
// time may be an Excel serial number and the amount a number cell.
// The fee of a withdrawal (备注 服务费¥0.10) stays in raw.

func init() { registerFormat(wechatPayFormat, 72) }

var wechatPayFormat = &Format{
	ID:         "wechatpay",
	Version:    "2024",
	NameZH:     "微信支付账单明细（CSV 或 XLSX）",
	NameEN:     "WeChat Pay bill records (CSV or XLSX)",
	Confidence: ConfidenceParser,
	DetectZH: "表头含 交易时间、交易类型、收/支、金额(元)、当前状态、交易单号（前面的说明行按内容跳过）；" +
		"布局来自第三方解析器的真实样例（double-entry-generator），不是微信文档",
	DetectEN: "header holds 交易时间, 交易类型, 收/支, 金额(元), 当前状态 and 交易单号 (the preamble is skipped by content); " +
		"layout from a third-party parser's real sample (double-entry-generator), not from WeChat documentation",
	DedupeKey: fmt.Sprintf(payDedupeKey, "交易单号"),
	Target:    TargetPayments,
	Columns: []Column{
		{Field: "time", Headers: []string{"交易时间"}, Required: true},
		{Field: "type", Headers: []string{"交易类型"}, Required: true, RawOnly: true},
		{Field: "counterparty", Headers: []string{"交易对方"}},
		{Field: "item", Headers: []string{"商品"}},
		{Field: "direction", Headers: []string{"收/支"}, Required: true},
		{Field: "amount", Headers: []string{"金额(元)", "金额"}, Required: true},
		{Field: "method", Headers: []string{"支付方式"}, RawOnly: true},
		{Field: "status", Headers: []string{"当前状态"}, Required: true},
		{Field: "order_no", Headers: []string{"交易单号"}, Required: true},
		{Field: "merchant_order_no", Headers: []string{"商户单号"}},
		{Field: "note", Headers: []string{"备注"}, RawOnly: true},
	},
	pays: payFields(SourceWeChatPay),
}

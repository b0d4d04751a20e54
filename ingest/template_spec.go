package ingest

import (
	"strings"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// TemplateColumn is one column of the gpubill template (DESIGN.md "The
// gpubill template"). Field is the stable English header, ZH the Chinese one.
type TemplateColumn struct {
	Field    string
	ZH       string
	Required bool
	// Aliases are further header spellings accepted on import (matched after
	// normalising case, spaces and full-width brackets).
	Aliases []string
	// Codes, when set, are the values offered in the XLSX drop-down list.
	Codes   []string
	HelpZH  string
	HelpEN  string
	Example string
}

// BillColumns are the columns of the bill-lines sheet (费用明细).
var BillColumns = []TemplateColumn{
	{Field: "provider", ZH: "平台", Required: true, Aliases: []string{"platform", "厂商", "云平台"},
		Codes: providerCodes(), HelpZH: "平台代号或名称：AutoDL、恒源云、矩池云、GpuGeek、揽睿星舟、潞晨云、阿里云、腾讯云、华为云、火山引擎",
		HelpEN: "provider slug or its Chinese/brand name", Example: "AutoDL"},
	{Field: "account", ZH: "账号", Aliases: []string{"billing_account", "账户"}, HelpZH: "计费账号（可选）", HelpEN: "billing account (optional)", Example: "lab-a"},
	{Field: "project", ZH: "项目", Aliases: []string{"sub_account", "cost_center", "成本中心"}, HelpZH: "项目或经费号，用于报销（可选）", HelpEN: "project / cost centre, for reimbursement", Example: "NSFC-2026"},
	{Field: "resource_id", ZH: "实例ID", Aliases: []string{"instance_id", "实例id", "资源ID", "资源id", "实例"}, HelpZH: "实例、磁盘、镜像等的ID；账号级费用可空", HelpEN: "instance, disk, image … id; empty only for account-level charges", Example: "c7b24f3a9e"},
	{Field: "resource_name", ZH: "实例名称", Aliases: []string{"instance_name", "资源名称"}, HelpZH: "实例名称（可选）", HelpEN: "instance name (optional)", Example: "train-llama"},
	{Field: "parent_resource_id", ZH: "所属实例", Aliases: []string{"parent_id", "parent_instance"}, HelpZH: "磁盘、镜像、IP 所服务的实例ID（可选）", HelpEN: "for a disk, image or IP: the instance it serves", Example: ""},
	{Field: "kind", ZH: "费用类型", Required: true, Aliases: []string{"charge_kind", "类型", "计费项"}, Codes: kindCodes(),
		HelpZH: "GPU计算/计算、存储/数据盘/系统盘/文件存储/网盘、镜像、快照、流量/带宽/公网IP、占用费/关机保留费、增值服务、代金券、税、调账、其他；或英文代号",
		HelpEN: "compute, storage, image, snapshot, network, seat, service, credit, tax, adjustment, other (or the Chinese names)", Example: "GPU计算"},
	{Field: "pricing_model", ZH: "计费方式", Aliases: []string{"pricing", "billing_mode", "计费模式"}, Codes: []string{"按量", "包日", "包周", "包月", "包年", "竞价"},
		HelpZH: "按量 / 包日 / 包周 / 包月 / 包年 / 竞价；空 = 按量", HelpEN: "on_demand, package, spot, reserved (or the Chinese names); empty = on_demand", Example: "按量"},
	{Field: "gpu_model", ZH: "GPU型号", Aliases: []string{"gpu", "显卡", "显卡型号"}, HelpZH: "如 RTX 4090、A100 80G", HelpEN: "e.g. RTX 4090, A100 80G", Example: "RTX 4090"},
	{Field: "gpu_count", ZH: "GPU数量", Aliases: []string{"gpus", "卡数"}, HelpZH: "整数", HelpEN: "integer", Example: "1"},
	{Field: "start", ZH: "开始时间", Required: true, Aliases: []string{"charge_period_start", "计费开始时间", "start_time"}, HelpZH: "计费周期开始，如 2026-10-03 14:22:05", HelpEN: "charge period start, e.g. 2026-10-03 14:22:05", Example: "2026-10-03 14:00:00"},
	{Field: "end", ZH: "结束时间", Required: true, Aliases: []string{"charge_period_end", "计费结束时间", "end_time"}, HelpZH: "计费周期结束（不含）", HelpEN: "charge period end (exclusive)", Example: "2026-10-03 15:00:00"},
	{Field: "usage_start", ZH: "实际开始", Aliases: []string{"实际开始时间"}, HelpZH: "实例真正开机的时间（可选）", HelpEN: "when the instance really started, if known", Example: ""},
	{Field: "usage_end", ZH: "实际结束", Aliases: []string{"实际结束时间"}, HelpZH: "实例真正关机的时间（可选）", HelpEN: "when it really stopped, if known", Example: ""},
	{Field: "billed_quantity", ZH: "计费数量", Aliases: []string{"quantity", "pricing_quantity", "用量", "数量", "时长"}, HelpZH: "按“单位”计的计费数量", HelpEN: "billed quantity in unit", Example: "1"},
	{Field: "unit", ZH: "单位", Aliases: []string{"pricing_unit", "计费单位"}, Codes: []string{"小时", "分钟", "秒", "天", "GB", "GB·天", "GB·月", "次"},
		HelpZH: "小时 / 秒 / 分钟 / 天 / GB / GB·天 / GB·月 / 次", HelpEN: "hour, second, minute, day, GB, GB-day, GB-month, count", Example: "小时"},
	{Field: "unit_price", ZH: "单价", Aliases: []string{"list_unit_price", "price"}, HelpZH: "每单位原价", HelpEN: "list price per unit", Example: "1.88"},
	{Field: "list_cost", ZH: "原价", Aliases: []string{"官网价"}, HelpZH: "优惠前金额（可选）", HelpEN: "cost before discounts (optional)", Example: "1.88"},
	{Field: "billed_cost", ZH: "应付金额", Required: true, Aliases: []string{"amount", "cost", "金额", "费用", "消费金额"}, HelpZH: "平台实际扣费", HelpEN: "what the platform charged", Example: "1.88"},
	{Field: "voucher_paid", ZH: "代金券", Aliases: []string{"voucher", "代金券抵扣", "优惠券"}, HelpZH: "代金券支付部分（不可开票）", HelpEN: "part paid by vouchers (not invoiceable)", Example: "0"},
	{Field: "cash_paid", ZH: "现金支付", Aliases: []string{"cash", "现金"}, HelpZH: "现金支付部分（可开票）；空 = 应付 − 代金券", HelpEN: "part paid in cash (invoiceable); empty = billed − voucher", Example: "1.88"},
	{Field: "description", ZH: "说明", Aliases: []string{"备注", "note", "notes", "描述"}, HelpZH: "说明（可选）；示例行的说明为“示例行：导入时自动跳过”", HelpEN: "free text (optional); the example row says it is skipped", Example: ExampleMarkZH},
	{Field: "currency", ZH: "币种", Aliases: []string{"货币"}, HelpZH: "币种，空 = CNY", HelpEN: "currency code, empty = CNY", Example: "CNY"},
}

// FlowColumns are the columns of the money-flow sheet (收支明细).
var FlowColumns = []TemplateColumn{
	{Field: "provider", ZH: "平台", Required: true, Aliases: []string{"platform"}, Codes: providerCodes(), HelpZH: "同费用明细", HelpEN: "as in the bill lines", Example: "AutoDL"},
	{Field: "account", ZH: "账号", Aliases: []string{"账户"}, HelpZH: "计费账号（可选）", HelpEN: "billing account (optional)", Example: "lab-a"},
	{Field: "time", ZH: "时间", Required: true, Aliases: []string{"交易时间", "datetime"}, HelpZH: "发生时间", HelpEN: "when it happened", Example: "2026-10-01 09:00:00"},
	{Field: "type", ZH: "类型", Required: true, Aliases: []string{"收支类型", "交易类型"}, Codes: []string{"充值", "消费", "退款", "提现", "代金券", "冻结", "解冻"},
		HelpZH: "充值 / 消费 / 退款 / 提现 / 代金券 / 冻结 / 解冻", HelpEN: "topup, charge, refund, withdrawal, voucher, freeze, unfreeze", Example: "充值"},
	{Field: "amount", ZH: "金额", Required: true, Aliases: []string{"交易金额"}, HelpZH: "正数，方向由类型决定", HelpEN: "positive; the type gives the direction", Example: "100.00"},
	{Field: "balance", ZH: "余额", Aliases: []string{"账户余额"}, HelpZH: "变动后余额（可选）", HelpEN: "balance after the movement, if shown", Example: "100.00"},
	{Field: "reference", ZH: "单号", Aliases: []string{"订单号", "流水号", "交易单号"}, HelpZH: "订单号或流水号（可选）", HelpEN: "order / transaction number", Example: "R20261001090000"},
	{Field: "description", ZH: "说明", Aliases: []string{"备注", "note"}, HelpZH: "说明（可选）；示例行的说明为“示例行：导入时自动跳过”", HelpEN: "free text (optional); the example row says it is skipped", Example: ExampleMarkZH},
	{Field: "currency", ZH: "币种", Aliases: []string{"货币"}, HelpZH: "币种，空 = CNY", HelpEN: "currency code, empty = CNY", Example: "CNY"},
}

func providerCodes() []string {
	var out []string
	for _, p := range platform.All {
		out = append(out, p.NameZH)
	}
	return out
}

func kindCodes() []string {
	return []string{"GPU计算", "存储", "镜像", "快照", "流量", "占用费", "增值服务", "代金券", "税", "调账", "其他"}
}

// kindNames maps the Chinese and English names of the template's 费用类型
// column to charge kinds. Keys are normalised with normHeader.
var kindNames = map[string]string{
	"gpu计算": ledger.KindCompute, "计算": ledger.KindCompute, "算力": ledger.KindCompute, "gpu": ledger.KindCompute, "无卡模式": ledger.KindCompute, "实例": ledger.KindCompute,
	"存储": ledger.KindStorage, "数据盘": ledger.KindStorage, "系统盘": ledger.KindStorage, "文件存储": ledger.KindStorage, "网盘": ledger.KindStorage, "云盘": ledger.KindStorage, "数据盘扩容": ledger.KindStorage,
	"镜像": ledger.KindImage, "保存镜像": ledger.KindImage,
	"快照": ledger.KindSnapshot,
	"流量": ledger.KindNetwork, "带宽": ledger.KindNetwork, "公网ip": ledger.KindNetwork, "网络": ledger.KindNetwork,
	"占用费": ledger.KindSeat, "关机保留费": ledger.KindSeat, "关机保留": ledger.KindSeat, "座位费": ledger.KindSeat,
	"增值服务": ledger.KindService, "服务": ledger.KindService,
	"代金券": ledger.KindCredit, "优惠": ledger.KindCredit,
	"税": ledger.KindTax, "税费": ledger.KindTax,
	"调账": ledger.KindAdjustment,
	"其他": ledger.KindOther,
}

// ParseKind maps a template 费用类型 value (Chinese name or English slug) to a
// charge kind.
func ParseKind(s string) (string, bool) {
	t := normHeader(s)
	for _, k := range ledger.Kinds {
		if t == k {
			return k, true
		}
	}
	k, ok := kindNames[t]
	return k, ok
}

// ParsePricingModel maps 按量/包日/包周/包月/包年/竞价 (or an English slug) to a
// pricing model; empty means on_demand.
func ParsePricingModel(s string) (string, bool) {
	t := normHeader(s)
	switch t {
	case "", "按量", "按量计费", "按时", "按需", "后付费", ledger.PricingOnDemand, "on-demand", "ondemand":
		return ledger.PricingOnDemand, true
	case "包日", "包天", "包周", "包月", "包年", "包年包月", "预付费", ledger.PricingPackage, "prepaid", "subscription":
		return ledger.PricingPackage, true
	case "竞价", "抢占式", "竞价实例", ledger.PricingSpot, "preemptible":
		return ledger.PricingSpot, true
	case "预留实例", ledger.PricingReserved:
		return ledger.PricingReserved, true
	}
	return "", false
}

// ParseTxType maps a money-flow 类型 value to a transaction type.
func ParseTxType(s string) (string, bool) {
	t := normHeader(s)
	for _, k := range ledger.TxTypes {
		if t == k {
			return k, true
		}
	}
	switch t {
	case "充值", "在线充值", "top-up":
		return ledger.TxTopup, true
	case "消费", "扣费", "支出":
		return ledger.TxCharge, true
	case "退款", "退费":
		return ledger.TxRefund, true
	case "提现":
		return ledger.TxWithdrawal, true
	case "代金券", "赠送", "优惠券":
		return ledger.TxVoucher, true
	case "冻结":
		return ledger.TxFreeze, true
	case "解冻":
		return ledger.TxUnfreeze, true
	}
	return "", false
}

// normHeader normalises a header cell or coded value for matching: trims
// spaces (including the ideographic space), lower-cases ASCII, turns
// full-width brackets into ASCII ones and drops spaces inside.
func normHeader(s string) string {
	s = strings.TrimSpace(strings.Trim(s, "\ufeff\u3000\t "))
	return strings.ToLower(headerReplacer.Replace(s))
}

// headerReplacer is built once: a strings.Replacer is costly to build.
var headerReplacer = strings.NewReplacer("（", "(", "）", ")", " ", "", "\u3000", "")

package ingest

import (
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// aliyunSampleHeader is the newer 阿里云 明细账单 (计费项明细) header of
// FORMATS.md, plus 消费金额(可开票), which newer exports carry: 46 columns.
var aliyunSampleHeader = []string{
	"账期", "日期", "财务单元", "账号ID", "账号", "Owner账号ID", "产品Code", "产品", "产品明细Code", "产品明细",
	"业务类型", "消费类型", "服务时长", "时长单位", "账单类型", "计费方式", "实例ID", "实例昵称", "资源组", "实例标签",
	"实例配置", "实例规格", "公网IP", "私网IP", "地域", "可用区", "计费项", "单价", "单价单位", "用量",
	"用量单位", "资源包抵扣", "抵扣量（含RI）", "官网价", "优惠金额", "优惠券抵扣", "应付金额", "现金支付", "代金券抵扣", "储值卡支付金额",
	"欠费金额", "币种", "节省计划抵扣金额", "信用额度退款抵扣", "计费项Code", "消费金额(可开票)",
}

// Indexes into aliyunSampleHeader of the cells that change from row to row.
const (
	alyPeriod = iota
	alyDate
	alyCostUnit
	alyAccountID
	alyAccount
	alyOwnerID
	alyProductCode
	alyProduct
	alyDetailCode
	alyDetail
	alyBizType
	alyConsumeType
	alyServicePeriod
	alyServiceUnit
	alyBillType
	alyMethod
	alyInstance
	alyNickname
	alyResourceGroup
	alyTags
	alyConfig
	alySpec
	alyPublicIP
	alyPrivateIP
	alyRegion
	alyZone
	alyItem
	alyUnitPrice
	alyUnitPriceUnit
	alyUsage
	alyUsageUnit
	alyResourcePackage
	alyRIDeduction
	alyList
	alyDiscount
	alyCoupon
	alyBilled
	alyCash
	alyVoucher
	alyCard
	alyUnpaid
	alyCurrency
	alySavingPlan
	alyCreditRefund
	alyItemCode
	alyInvoiceable
	alyColumns
)

// aliyunSampleSpec is one ECS GPU instance type of the generated bill.
type aliyunSampleSpec struct {
	spec, config, nick string
	price              decimal.Decimal // 按量付费 元/小时
}

// aliyunSampleInstance is one generated instance: everything its rows
// repeat.
type aliyunSampleInstance struct {
	id, nick, spec, config string
	costUnit, tags         string
	accountID, account     string
	region, zone           string
	publicIP, privateIP    string
	price                  decimal.Decimal // 元/小时
	rate                   decimal.Decimal // share of 官网价 payable before coupons (an enterprise discount)
	spot                   bool
	sysGB, dataGB          int64
}

// WriteSampleAliyunCSV writes a synthetic 阿里云 明细账单 (计费项明细, the
// newer header of FORMATS.md with 消费金额(可开票): 46 columns, UTF-8 with a
// BOM as the console exports it) of rows data rows, the same for the same
// seed. It is WriteSampleTemplateCSV's bill in Alibaba Cloud's layout, for
// benchmarks and load tests: row i is instance i%400's row of hour i/400
// from 2026-10-01 00:00 Beijing time, so a million rows cover October to
// mid-January. All instances are ECS GPU instances (产品Code ecs) in
// cn-hangzhou and cn-shanghai; at its own hour of the day an instance bills
// its 系统盘 for the day, twelve hours later its 数据盘, and every other hour
// its 实例规格 (a part of an hour of compute, most rows) or, one hour in twenty,
// its 公网流量. Amounts: 官网价 = 单价 × 用量 (6 decimals); 应付金额 (2 to 8
// decimals) = 官网价 − 优惠金额 − 优惠券抵扣, and it is paid by 现金支付 +
// 代金券抵扣 + 储值卡支付金额 + 欠费金额 exactly; 消费金额(可开票) = 现金支付 +
// 欠费金额.
//
// The newer header has a 日期 but no usage times, so each line's charge
// period is its whole day; the usage of a compute or traffic row is
// distinct among the rows of its instance and day (seconds or MB congruent
// to the hour modulo 24), so that every row is distinct and importing the
// file adds rows line items. No 应付金额 is zero.
func WriteSampleAliyunCSV(w io.Writer, rows int, seed int64) error {
	if rows < 0 {
		return fmt.Errorf("sample aliyun bill: negative row count %d", rows)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x2545f4914f6cdd1d))
	if _, err := io.WriteString(w, "\uFEFF"); err != nil {
		return fmt.Errorf("sample aliyun bill: %w", err)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(aliyunSampleHeader); err != nil {
		return fmt.Errorf("sample aliyun bill: %w", err)
	}
	const instances = 400
	insts := make([]aliyunSampleInstance, instances)
	for i := range insts {
		insts[i] = aliyunSampleInstanceOf(i)
	}
	beijing := time.FixedZone("CST", 8*3600)
	base := time.Date(2026, 10, 1, 0, 0, 0, 0, beijing)
	var (
		sysPrice     = decimal.New(7, -4)  // ESSD PL0, 元/GB/小时
		dataPrice    = decimal.New(15, -4) // ESSD PL1, 元/GB/小时
		trafficPrice = decimal.New(8, -1)  // 元/GB
		hour3600     = decimal.New(3600, 0)
		half         = decimal.New(5, -1)
		tenth        = decimal.New(1, -1)
		zero         = decimal.Zero
	)
	rec := make([]string, alyColumns)
	// Cells that are the same on every row.
	rec[alyProductCode], rec[alyProduct], rec[alyDetailCode] = "ecs", "云服务器 ECS", "ecs"
	rec[alyBizType], rec[alyConsumeType], rec[alyBillType] = "云产品", "后付费", "后付账单"
	rec[alyServicePeriod], rec[alyServiceUnit], rec[alyResourceGroup] = "--", "--", "默认资源组"
	rec[alyResourcePackage], rec[alyRIDeduction] = "--", "--"
	rec[alyCurrency], rec[alySavingPlan], rec[alyCreditRefund] = "CNY", "0", "0"
	day, dayStart := -1, base
	for i := 0; i < rows; i++ {
		hour, n := i/instances, i%instances
		in := &insts[n]
		if d := hour / 24; d != day {
			day, dayStart = d, base.AddDate(0, 0, d)
		}
		hod := hour % 24 // hour of the Beijing day
		rec[alyPeriod], rec[alyDate] = dayStart.Format("2006-01"), dayStart.Format("20060102")
		rec[alyCostUnit], rec[alyAccountID], rec[alyAccount], rec[alyOwnerID] = in.costUnit, in.accountID, in.account, in.accountID
		rec[alyInstance], rec[alyNickname], rec[alyTags] = in.id, in.nick, in.tags
		rec[alyConfig], rec[alySpec], rec[alyPublicIP], rec[alyPrivateIP] = in.config, in.spec, in.publicIP, in.privateIP
		rec[alyRegion], rec[alyZone] = in.region, in.zone
		rec[alyDetail], rec[alyMethod] = "云服务器ECS-按量付费", "按量付费"

		var price, usage, list, coupon decimal.Decimal
		compute := false
		switch {
		case hod == n%24: // the system disk's day
			price, usage = sysPrice, decimal.New(in.sysGB*24, 0)
			rec[alyItem], rec[alyItemCode], rec[alyUnitPriceUnit], rec[alyUsageUnit] = "系统盘", "systemdisk", "元/GB/小时", "GB*小时"
		case hod == (n+12)%24: // the data disk's day
			price, usage = dataPrice, decimal.New(in.dataGB*24, 0)
			rec[alyItem], rec[alyItemCode], rec[alyUnitPriceUnit], rec[alyUsageUnit] = "数据盘", "datadisk", "元/GB/小时", "GB*小时"
		case rng.IntN(20) == 0: // an hour's outbound traffic: 48 MB to 96 GB
			mb := int64(24*(2+rng.IntN(4000)) + hod)
			price, usage = trafficPrice, decimal.New(mb, -3)
			rec[alyItem], rec[alyItemCode], rec[alyUnitPriceUnit], rec[alyUsageUnit] = "公网流量", "internet_traffic_out", "元/GB", "GB"
		default: // 10 to 60 minutes of the instance, in seconds
			secs := int64(600 + 24*rng.IntN(125) + hod)
			compute, price, usage = true, in.price, decimal.New(secs, 0).Div(hour3600).Round(6)
			rec[alyItem], rec[alyItemCode], rec[alyUnitPriceUnit], rec[alyUsageUnit] = "实例规格", "instance_type", "元/小时", "小时"
			if in.spot {
				rec[alyDetail], rec[alyMethod] = "云服务器ECS-抢占式实例", "抢占式实例"
			}
		}
		list = price.Mul(usage).Round(6)
		// At most 8 decimals: 官网价 has 6, the discount rate 2.
		after := list.Mul(in.rate)
		if compute && rng.IntN(40) == 0 { // a coupon (优惠券) now and then
			coupon = after.Mul(tenth).Truncate(2)
		}
		places := int32(2 + rng.IntN(7))
		billed := after.Sub(coupon).Truncate(places)
		discount := list.Sub(coupon).Sub(billed)
		cash, voucher, card, unpaid := billed, zero, zero, zero
		switch p := rng.IntN(100); {
		case p < 80:
		case p < 90:
			voucher = billed.Mul(half).Truncate(2)
			cash = billed.Sub(voucher)
		case p < 97:
			cash, card = zero, billed
		default:
			cash, unpaid = zero, billed
		}
		rec[alyUnitPrice], rec[alyUsage] = price.String(), usage.String()
		rec[alyList], rec[alyDiscount], rec[alyCoupon] = list.StringFixed(6), aliyunSampleAmount(discount, 8), aliyunSampleAmount(coupon, 2)
		rec[alyBilled] = billed.StringFixed(places)
		rec[alyCash], rec[alyVoucher] = aliyunSampleAmount(cash, places), aliyunSampleAmount(voucher, 2)
		rec[alyCard], rec[alyUnpaid] = aliyunSampleAmount(card, places), aliyunSampleAmount(unpaid, places)
		rec[alyInvoiceable] = aliyunSampleAmount(cash.Add(unpaid), places)
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("sample aliyun bill: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("sample aliyun bill: %w", err)
	}
	return nil
}

// aliyunSampleAmount writes an amount as the console does: 0 as "0", others
// with places decimals (d must have no more).
func aliyunSampleAmount(d decimal.Decimal, places int32) string {
	if d.IsZero() {
		return "0"
	}
	return d.StringFixed(places)
}

// aliyunBase36 writes x in base 36, left-padded with zeros to width digits.
func aliyunBase36(x uint64, width int) string {
	s := strconv.FormatUint(x, 36)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// aliyunSampleSpecs are the instance types of the generated bill, with
// plausible 按量付费 prices in cn-hangzhou (not quoted from a price list).
var aliyunSampleSpecs = []aliyunSampleSpec{
	{"ecs.gn7i-c8g1.2xlarge", "CPU:8核;内存:30GB;GPU:NVIDIA A10*1", "a10", decimal.RequireFromString("11.96")},
	{"ecs.gn7i-c16g1.4xlarge", "CPU:16核;内存:60GB;GPU:NVIDIA A10*1", "a10", decimal.RequireFromString("14.84")},
	{"ecs.gn6i-c4g1.xlarge", "CPU:4核;内存:15GB;GPU:NVIDIA T4*1", "t4", decimal.RequireFromString("8.65")},
	{"ecs.gn6v-c8g1.2xlarge", "CPU:8核;内存:32GB;GPU:NVIDIA V100*1", "v100", decimal.RequireFromString("26.46")},
	{"ecs.gn7-c12g1.3xlarge", "CPU:12核;内存:94GB;GPU:NVIDIA A100*1", "a100", decimal.RequireFromString("29.50")},
	{"ecs.gn7e-c16g1.4xlarge", "CPU:16核;内存:125GB;GPU:NVIDIA A100 80GB*1", "a100-80g", decimal.RequireFromString("34.78")},
}

// aliyunSampleInstanceOf derives instance n of the generated bill (no
// randomness: an instance is the same in every file).
func aliyunSampleInstanceOf(n int) aliyunSampleInstance {
	sp := aliyunSampleSpecs[n%len(aliyunSampleSpecs)]
	teams := []struct{ unit, tag string }{{"NLP组", "nlp"}, {"CV组", "cv"}, {"语音组", "speech"}, {"平台组", "platform"}, {"未分配", ""}}
	accounts := []struct{ id, name string }{
		{"1876543210987654", "ml-lab@example.com"}, {"1398765432101234", "cv-lab@example.com"}, {"1576012345678901", "ops@example.com"},
	}
	team, acct := teams[n%len(teams)], accounts[n%len(accounts)]
	in := aliyunSampleInstance{
		nick: fmt.Sprintf("train-%s-%03d", sp.nick, n), costUnit: team.unit, tags: "--",
		accountID: acct.id, account: acct.name, spec: sp.spec, config: sp.config, price: sp.price,
		publicIP: fmt.Sprintf("47.%d.%d.%d", 96+n%4, n/250, 2+n%250), privateIP: fmt.Sprintf("172.16.%d.%d", n/250, 2+n%250),
		rate: decimal.New(1, 0), sysGB: []int64{40, 100, 200}[n%3], dataGB: []int64{500, 1000, 2000, 4096}[n%4],
	}
	if team.tag != "" {
		env := "prod"
		if n%3 == 0 {
			env = "dev"
		}
		in.tags = "key:team value:" + team.tag + "; key:env value:" + env
	}
	// Instance ids: "i-", the region's three-character prefix and 17 base-36
	// characters, the last 13 of which are a bijection of n (distinct ids).
	prefix := "bp1"
	in.region, in.zone = "cn-hangzhou", "cn-hangzhou-"+string("hijk"[n%4])
	if n%9 == 8 {
		prefix = "uf6"
		in.region, in.zone = "cn-shanghai", "cn-shanghai-"+string("lmn"[n%3])
	}
	in.id = "i-" + prefix + aliyunBase36(uint64(n+1)*0xbf58476d1ce4e5b9%(36*36*36*36), 4) +
		aliyunBase36(uint64(n+1)*0x9e3779b97f4a7c15, 13)
	if n%10 == 7 { // spot (抢占式) instances pay about 30% of the list price
		in.spot = true
		in.price = sp.price.Mul(decimal.New(3, -1)).Round(2)
	}
	if n%4 == 1 { // an enterprise discount of 15%
		in.rate = decimal.New(85, -2)
	}
	return in
}

package reconcile

import (
	"sort"
	"strings"

	"github.com/gpubill/gpubill/platform"
)

// Payee is one name under which a platform appears as the other party of an
// Alipay / WeChat Pay payment (交易对方) or in its item text (商品说明):
// its company name rather than its brand, often.
type Payee struct {
	Provider string
	Name     string // matched as a case-insensitive substring
	Source   string // where the name comes from, and how sure it is
}

// Payees is the embedded alias table. Brand names come from platform.All
// (added by PayeeProvider); this table adds the company names seen on
// payment records. Names marked [guess] are not confirmed by a payment record
// at hand: a payment to an unknown payee still matches a top-up on amount and
// time, and the match says the payee was not recognised.
var Payees = []Payee{
	{"autodl", "视拓云", "[guess] AutoDL's instances are reached at *.seetacloud.com (SeetaCloud, 北京视拓云科技有限公司)"},
	{"autodl", "seetacloud", "[guess] as above, English spelling"},
	{"autodl", "AutoDL", "brand, shown as the item of Alipay top-ups"},
	{"gpushare", "恒源", "brand 恒源云; company name not confirmed [guess]"},
	{"matpool", "矩池", "brand 矩池云 (company name 矩池云（北京）科技有限公司 not confirmed [guess])"},
	{"gpugeek", "GpuGeek", "brand [guess]"},
	{"lanrui", "揽睿", "brand 揽睿星舟 [guess]"},
	{"luchen", "潞晨", "潞晨科技 (HPC-AI Tech), which runs 潞晨云"},
	{"aliyun", "阿里云计算有限公司", "the company that invoices Alibaba Cloud (China site)"},
	{"aliyun", "阿里云", "brand"},
	{"tencentcloud", "腾讯云计算", "腾讯云计算（北京）有限责任公司, which invoices Tencent Cloud"},
	{"tencentcloud", "腾讯云", "brand"},
	{"huaweicloud", "华为云计算技术有限公司", "the company that invoices Huawei Cloud"},
	{"huaweicloud", "华为云", "brand"},
	{"volcengine", "火山引擎", "北京火山引擎科技有限公司 and the brand"},
}

// payeeNames is every alias (table + platform.All), longest first, so
// that a longer name wins over a shorter one it contains.
var payeeNames = func() []Payee {
	var all []Payee
	all = append(all, Payees...)
	for _, p := range platform.All {
		for _, a := range append([]string{p.NameZH, p.NameEN}, p.Aliases...) {
			if len([]rune(a)) >= 2 {
				all = append(all, Payee{Provider: p.Slug, Name: a, Source: "platform.All"})
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return len(all[i].Name) > len(all[j].Name) })
	return all
}()

// PayeeProvider names the platform a payment went to, from its counterparty
// first, then its item text; ok is false when neither names a known
// platform.
func PayeeProvider(counterparty, item string) (slug string, ok bool) {
	for _, s := range []string{counterparty, item} {
		t := strings.ToLower(s)
		if t == "" {
			continue
		}
		for _, p := range payeeNames {
			if strings.Contains(t, strings.ToLower(p.Name)) {
				return p.Provider, true
			}
		}
	}
	return "", false
}

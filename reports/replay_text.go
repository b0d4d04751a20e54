package reports

import (
	"regexp"
	"strings"
)

// The replay's assumptions are built in English (the JSON contract keeps
// them so); human formats in Chinese show them translated here.

var replayWhatZH = map[string]string{
	"billing step": "计费步长", "minimum billed": "最短计费时长", "seat fee": "关机占用费",
	"storage_gb_day": "存储单价", "image_gb_day": "镜像单价", "traffic": "流量单价",
	"unit prices": "单价", "GPU count": "GPU 数量", "prepaid time": "预付费时长", "equivalent GPU": "等效 GPU",
	"package price": "包时价格", "spot price": "竞价价格", "not offered": "不提供",
	"storage carried as billed": "存储按原费用计入", "traffic carried as billed": "流量按原费用计入",
}

var replayValueZH = map[string]string{
	"none while stopped":                          "关机不收",
	"the bill's own (cost ÷ billed time)":         "账单自身（费用 ÷ 计费时长）",
	"a package's whole period counts as run time": "包时整段按运行时间计",
	"none known":                                     "未知",
	"none known: the run time as it is":              "未知：按实际时长",
	"none stated (the run time as it is)":            "未说明（按实际时长）",
	"billed while stopped, price unknown: 0 counted": "关机计费但价格未知：按 0 计",
}

var (
	reCharges    = regexp.MustCompile(`^(\d+) charge\(s\), (.+)$`)
	reGPUCount   = regexp.MustCompile(`^1 for (\d+) session\(s\) whose bill names none$`)
	reModelPrice = regexp.MustCompile(`^(.+) (on_demand|spot)$`)
)

// replayWhatText renders an assumption's subject in lang.
func replayWhatText(what, lang string) string {
	if lang != "zh" {
		return what
	}
	if zh, ok := replayWhatZH[what]; ok {
		return zh
	}
	prov, rest, ok := strings.Cut(what, " ")
	if !ok {
		return what
	}
	name := providerName(prov, lang)
	if name == prov && !isProviderSlug(prov) {
		return what
	}
	if zh, ok := replayWhatZH[rest]; ok {
		return name + " " + zh
	}
	if m := reModelPrice.FindStringSubmatch(rest); m != nil {
		return name + " " + m[1] + " " + tr(lang, "pricing."+m[2]) + "单价"
	}
	return name + " " + rest
}

func isProviderSlug(s string) bool {
	for _, p := range replayPlatforms() {
		if p == s {
			return true
		}
	}
	return false
}

// replayValueText renders an assumption's value in lang.
func replayValueText(v, lang string) string {
	if lang != "zh" {
		return v
	}
	if zh, ok := replayValueZH[v]; ok {
		return zh
	}
	if m := reCharges.FindStringSubmatch(v); m != nil {
		return m[1] + " 笔，" + m[2]
	}
	if m := reGPUCount.FindStringSubmatch(v); m != nil {
		return "账单未写明的 " + m[1] + " 个会话按 1 计"
	}
	return strings.NewReplacer("/GPU-hour", "/GPU·小时", "/GB-day", "/GB·天", "/GB", "/GB", "/day", "/天",
		" GB free", " GB 免费", " of on-demand", " 倍按量价", ", per week", "，按周", ", per day", "，按天",
		", per month", "，按月", "× ", "× ").Replace(v)
}

package platform

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Platform describes one platform gpubill knows by name.
type Platform struct {
	Slug    string
	NameZH  string
	NameEN  string
	Aliases []string // other spellings seen in bills and on payees (matched case-insensitively)
}

// All are the platforms of DESIGN.md, in display order.
var All = []Platform{
	{"autodl", "AutoDL", "AutoDL", []string{"autodl", "autodl算力云", "算力云"}},
	{"gpushare", "恒源云", "GPUSHARE", []string{"恒源云", "gpushare", "恒源"}},
	{"matpool", "矩池云", "Matpool", []string{"矩池云", "matpool", "矩池"}},
	{"gpugeek", "GpuGeek", "GpuGeek", []string{"gpugeek"}},
	{"lanrui", "揽睿星舟", "Lanrui", []string{"揽睿星舟", "揽睿", "lanrui"}},
	{"luchen", "潞晨云", "Luchen Cloud", []string{"潞晨云", "潞晨", "luchen", "luchentech"}},
	{"aliyun", "阿里云", "Alibaba Cloud", []string{"阿里云", "aliyun", "alibaba cloud", "alibabacloud", "alibaba"}},
	{"tencentcloud", "腾讯云", "Tencent Cloud", []string{"腾讯云", "tencentcloud", "tencent cloud", "tencent", "qcloud"}},
	{"huaweicloud", "华为云", "Huawei Cloud", []string{"华为云", "huaweicloud", "huawei cloud", "huawei"}},
	{"volcengine", "火山引擎", "Volcengine", []string{"火山引擎", "volcengine", "火山云", "byteplus"}},
}

// Parse maps a slug, brand or Chinese name to a provider slug.
// ok is false for a name it does not know.
func Parse(s string) (slug string, ok bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return "", false
	}
	for _, p := range All {
		same := func(a string) bool { return t == strings.ToLower(a) }
		if same(p.Slug) || same(p.NameZH) || same(p.NameEN) || slices.ContainsFunc(p.Aliases, same) {
			return p.Slug, true
		}
	}
	return "", false
}

// Rank is a provider's position in All (the order reports list platforms
// in); providers not listed (FOCUS providers) rank last.
func Rank(slug string) int {
	if i := index(slug); i >= 0 {
		return i
	}
	return len(All)
}

// index is the position of slug in All, or -1.
func index(slug string) int {
	return slices.IndexFunc(All, func(p Platform) bool { return p.Slug == slug })
}

// otherProviders are display names of providers that are not platforms of
// DESIGN.md but appear in FOCUS files (ProviderName lower-cased) and in
// users' profiles: shown as their brands write them (AWS, not aws).
var otherProviders = map[string][2]string{ // slug: zh, en
	"aws":       {"AWS", "AWS"},
	"amazon":    {"AWS", "AWS"},
	"azure":     {"Azure", "Azure"},
	"microsoft": {"Microsoft Azure", "Microsoft Azure"},
	"google":    {"Google Cloud", "Google Cloud"},
	"gcp":       {"Google Cloud", "Google Cloud"},
	"oracle":    {"Oracle Cloud", "Oracle Cloud"},
	"oci":       {"Oracle Cloud", "Oracle Cloud"},
	"ibm":       {"IBM Cloud", "IBM Cloud"},
	"baidu":     {"百度智能云", "Baidu AI Cloud"},
	"ucloud":    {"UCloud", "UCloud"},
	"jdcloud":   {"京东云", "JD Cloud"},
	"ksyun":     {"金山云", "Kingsoft Cloud"},
	"ctyun":     {"天翼云", "China Telecom Cloud"},
}

// namedProviders are display names declared at run time (a profile's
// [provider] name_zh / name_en), by slug.
var namedProviders sync.Map // slug → [2]string{zh, en}

// SetName declares the display names of a provider slug that is
// not one of All (a user's profile for AWS or an internal cloud); an
// empty name falls back to the other, then to the slug's own display form.
func SetName(slug, zh, en string) {
	if zh == "" {
		zh = en
	}
	if en == "" {
		en = zh
	}
	if zh == "" {
		return
	}
	namedProviders.Store(slug, [2]string{zh, en})
}

// slugRE is the form of a provider slug that is not one of All:
// lower-case letters, digits and dashes, starting with a letter.
var slugRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// ValidSlug reports whether s can name a provider of its own.
func ValidSlug(s string) bool { return slugRE.MatchString(s) }

// Name gives a provider's display name in lang ("zh" or "en").
// Slugs that are not platforms of DESIGN.md (FOCUS providers, profiles'
// own slugs) are shown by a declared or well-known name (AWS for aws),
// else as a brand would write the slug: upper case up to three letters
// (gcp → GCP), else capitalised (mycloud → Mycloud).
func Name(slug, lang string) string {
	names, ok := otherProviders[slug]
	if v, found := namedProviders.Load(slug); found {
		names, ok = v.([2]string), true
	}
	if i := index(slug); i >= 0 {
		names, ok = [2]string{All[i].NameZH, All[i].NameEN}, true
	}
	if ok {
		if lang == "zh" {
			return names[0]
		}
		return names[1]
	}
	if !slugRE.MatchString(slug) {
		return slug
	}
	if len(slug) <= 3 {
		return strings.ToUpper(slug)
	}
	return strings.ToUpper(slug[:1]) + slug[1:]
}

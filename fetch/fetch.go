package fetch

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/ledger"
)

// vendor is one cloud's billing API.
type vendor struct {
	provider, api, endpoint string
	// permZH / permEN name the read-only permission the key needs.
	permZH, permEN string
	// pull fetches every page of month: the lines as a table in the API's
	// field names.
	pull func(ctx context.Context, o *Options, acct Account, month string) ([]string, [][]string, error)
}

var vendors = map[string]*vendor{"tencentcloud": tencentAPI, "aliyun": aliyunAPI, "volcengine": volcAPI,
	"huaweicloud": huaweiAPI}

// The pull functions name their vendor in errors: set here, not in the
// literals, which would make an initialisation cycle.
func init() {
	tencentAPI.pull = tencentPull
	aliyunAPI.pull = aliyunPull
	volcAPI.pull = volcPull
	huaweiAPI.pull = huaweiPull
}

// failure turns the last failed attempt into the error the user sees.
func (v *vendor) failure(acct Account, e *apiError, tries int) error {
	what := fmt.Sprintf("%s %s (%s)", v.provider, v.api, acct.Name)
	detail := scrub(e.Error(), acct.Secret())
	switch {
	case e.auth:
		return &Error{Kind: KindAuth,
			ZH: fmt.Sprintf("%s：认证或授权失败（%s）。请检查 %s 的密钥是否正确、未停用，以及该密钥所属用户是否有 %s；未写入任何数据。",
				what, detail, acct.SourceZH, v.permZH),
			EN: fmt.Sprintf("%s: authentication or permission refused (%s). Check the key in %s (right, not disabled) and that its user has %s; nothing was written.",
				what, detail, acct.SourceEN, v.permEN)}
	case e.timeout:
		return &Error{Kind: KindTimeout,
			ZH: fmt.Sprintf("%s：%d 次请求均超时（%s）；未写入任何数据，稍后重试。", what, tries, detail),
			EN: fmt.Sprintf("%s: %d requests timed out (%s); nothing was written, try again later.", what, tries, detail)}
	case e.retry:
		return &Error{Kind: KindThrottled,
			ZH: fmt.Sprintf("%s：重试 %d 次后仍被限流或不可用（%s）；未写入任何数据，稍后重试。", what, tries, detail),
			EN: fmt.Sprintf("%s: still throttled or unavailable after %d tries (%s); nothing was written, try again later.", what, tries, detail)}
	}
	return &Error{Kind: KindAPI,
		ZH: fmt.Sprintf("%s：接口返回错误（HTTP %d，%s）；未写入任何数据。", what, e.status, detail),
		EN: fmt.Sprintf("%s: the API returned an error (HTTP %d, %s); nothing was written.", what, e.status, detail)}
}

// Request is one fetch: a month of one account.
type Request struct {
	Account Account
	Month   string // YYYY-MM
	DryRun  bool
	TZ      *time.Location // of billing months and naive times; nil = Asia/Shanghai
	Options Options
	// Progress is handed to the import (rows mapped); nil = none.
	Progress *ingest.Progress
}

// Outcome is what a fetch did.
type Outcome struct {
	Provider, Account, Month, Name string
	Pages, Lines                   int
	Provisional                    bool
	Replaced                       int // earlier provisional imports whose lines this fetch replaced
	Result                         ingest.Result
}

// Fetch pulls req.Month of req.Account and imports it in one transaction.
// Nothing is written when any page fails.
func Fetch(ctx context.Context, db *ledger.DB, req Request) (Outcome, error) {
	acct := req.Account
	v, ok := vendors[acct.Provider]
	if !ok {
		return Outcome{}, &Error{Kind: KindUsage, ZH: fmt.Sprintf("不支持的平台 %q", acct.Provider),
			EN: fmt.Sprintf("unknown provider %q", acct.Provider)}
	}
	if req.TZ == nil {
		req.TZ = ledger.DefaultTZ()
	}
	o := req.Options
	if o.Endpoint == "" {
		o.Endpoint = acct.Endpoint
	}
	o.defaults()
	m, err := time.ParseInLocation("2006-01", req.Month, req.TZ)
	if err != nil {
		return Outcome{}, &Error{Kind: KindUsage, ZH: fmt.Sprintf("--month %q：需要 YYYY-MM", req.Month),
			EN: fmt.Sprintf("--month %q: want YYYY-MM", req.Month)}
	}
	now := o.Now()
	if !now.After(m) {
		return Outcome{}, &Error{Kind: KindUsage, ZH: fmt.Sprintf("%s 尚未开始，没有账单", req.Month),
			EN: fmt.Sprintf("%s has not begun: there is no bill yet", req.Month)}
	}
	out := Outcome{Provider: v.provider, Account: acct.Name, Month: req.Month, Provisional: !Final(v.provider, req.Month, now, req.TZ)}
	out.Name = ImportName(v.provider, v.api, acct.Name, req.Month, out.Provisional)
	pages := o.OnPage
	o.OnPage = func(p, l int) {
		out.Pages, out.Lines = p, l
		if pages != nil {
			pages(p, l)
		}
	}
	header, rows, err := v.pull(ctx, &o, acct, req.Month)
	if err != nil {
		return out, err
	}
	out.Lines = len(rows)
	// The earlier provisional fetches of this month and account: their
	// lines give way to this fetch's, in its transaction.
	var replace []int64
	ims, err := db.Imports(ctx, 0)
	if err != nil {
		return out, err
	}
	prov := ImportName(v.provider, v.api, acct.Name, req.Month, true)
	for _, im := range ims {
		if im.Path == prov {
			replace = append(replace, im.ID)
		}
	}
	out.Replaced = len(replace)
	res, err := ingest.ImportAPITable(ctx, db, ingest.APITable{Name: out.Name, Header: header, Rows: rows},
		ingest.Options{DryRun: req.DryRun, TZ: req.TZ, Replace: replace, Progress: req.Progress})
	out.Result = res
	return out, err
}

// ImportName is the path an import of fetched lines is recorded under: the
// API and the account instead of a file.
func ImportName(provider, api, account, month string, provisional bool) string {
	q := url.Values{"account": {account}, "month": {month}}
	s := "api:" + provider + "/" + api + "?" + q.Encode()
	if provisional {
		s += "&provisional=1"
	}
	return s
}

// Final reports whether the bill of month is final at now. 阿里云 finalises
// a month's bill after the 3rd of the next month (as issue 30 states); the
// same rule is applied to 腾讯云 and 火山引擎, whose detail lines of a month also keep
// changing in its first days (an assumption: no documented day was found).
// 华为云 documents its own day: the bill is final at 10:00 (Beijing) on the
// 3rd of the next month, on the 4th for accounts billed monthly (月结), so
// 10:00 on the 4th for all. Until then the month is provisional and the next
// fetch replaces it.
func Final(provider, month string, now time.Time, tz *time.Location) bool {
	m, err := time.ParseInLocation("2006-01", month, tz)
	if err != nil {
		return false
	}
	if provider == "huaweicloud" {
		m, err = time.ParseInLocation("2006-01", month, ledger.DefaultTZ())
		if err != nil {
			return false
		}
		return !now.Before(m.AddDate(0, 1, 3).Add(10 * time.Hour))
	}
	return !now.Before(m.AddDate(0, 1, 3)) // the 4th of the next month, 00:00
}

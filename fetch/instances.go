package fetch

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// Instance is one cloud instance as an instance API lists it now: what
// gpubill watch judges. Times the API does not give are zero.
type Instance struct {
	Provider, Account string
	ID, Name, Region  string
	Type              string // the instance type (GN7.2XLARGE32, ecs.gn6i-c4g1.xlarge)
	// State is running, stopped, or other (starting, stopping, pending …);
	// RawState is the API's own word.
	State, RawState string
	// OnDemand is true for pay-as-you-go instances (POSTPAID_BY_HOUR,
	// PostPaid); prepaid ones cost the same whether forgotten or not.
	OnDemand bool
	// StartedAt is the last start as the API states it (阿里云 StartTime;
	// 腾讯云 gives none); CreatedAt the creation time.
	StartedAt, CreatedAt time.Time
	GPUModel             string
	GPUCount             decimal.Decimal // 0 when the type has no GPU; 腾讯云 vGPU types give fractions
	// PricePerHour is the instance's price per hour when the API states it
	// (none of the instance APIs here does: the caller takes the catalog's).
	PricePerHour decimal.NullDecimal
	Currency     string
}

// Instance states.
const (
	StateRunning = "running"
	StateStopped = "stopped"
	StateOther   = "other"
)

// instanceAPI lists the instances of one cloud's region.
type instanceAPI struct {
	*vendor
	// delay is how late the API's view can be (for messages).
	delayZH, delayEN string
	defaultRegion    string
	list             func(ctx context.Context, o *Options, acct Account, region string) ([]Instance, error)
}

var instanceAPIs = map[string]*instanceAPI{}

// InstanceProviders are the clouds gpubill watch can list instances of.
func InstanceProviders() []string {
	return []string{"aliyun", "huaweicloud", "tencentcloud", "volcengine"}
}

// SourceDelay says how late provider's instance API is, in lang.
func SourceDelay(provider, lang string) string {
	a, ok := instanceAPIs[provider]
	if !ok {
		return ""
	}
	if lang == "zh" {
		return a.delayZH
	}
	return a.delayEN
}

// ListInstances lists the instances of acct in region ("" = the account's,
// else the vendor's default region), every page.
func ListInstances(ctx context.Context, acct Account, region string, o Options) ([]Instance, error) {
	a, ok := instanceAPIs[acct.Provider]
	if !ok {
		return nil, &Error{Kind: KindUsage, ZH: fmt.Sprintf("不支持列出 %q 的实例", acct.Provider),
			EN: fmt.Sprintf("cannot list instances of %q", acct.Provider)}
	}
	if o.Endpoint == "" {
		o.Endpoint = acct.Endpoint
	}
	if region == "" {
		region = acct.Region
	}
	if region == "" {
		region = a.defaultRegion
	}
	o.defaults()
	return a.list(ctx, &o, acct, region)
}

// apiTime parses the API's UTC times: 2006-01-02T15:04:05Z or, as 阿里云
// writes them, without seconds.
func apiTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04Z"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

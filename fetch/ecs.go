package fetch

import (
	"context"
	"net/http"
	"strconv"

	"github.com/shopspring/decimal"
)

// 阿里云 ECS DescribeInstances (version 2014-05-26,
// help.aliyun.com/document_detail/25506.html): the instances of a RegionId,
// paged by PageNumber / PageSize (≤ 100) with TotalCount. An instance has
// Status (Running, Stopped, …), InstanceChargeType (PostPaid, PrePaid),
// StartTime (its last start), CreationTime, GPUSpec and GPUAmount. Signed
// as the bill API: RPC signature v1.0, HMAC-SHA1, a GET query. A RAM user
// without the permission gets an empty list, so an empty first page is
// checked with DryRun=true (DryRunOperation = allowed).
var ecsAPI = &instanceAPI{
	vendor: &vendor{
		provider: "aliyun",
		api:      "DescribeInstances",
		endpoint: "https://ecs.aliyuncs.com",
		permZH:   "RAM 权限 ecs:DescribeInstances（只读；系统策略 AliyunECSReadOnlyAccess 包含它）",
		permEN:   "the RAM action ecs:DescribeInstances (read-only; the system policy AliyunECSReadOnlyAccess grants it)",
	},
	delayZH:       "实时（实例状态即刻更新；开机时间取 API 的 StartTime）",
	delayEN:       "live (states change at once; the start time is the API's StartTime)",
	defaultRegion: "cn-hangzhou",
}

func init() {
	ecsAPI.list = ecsList
	instanceAPIs["aliyun"] = ecsAPI
}

const (
	ecsVersion  = "2014-05-26"
	ecsPageSize = 100
)

func ecsList(ctx context.Context, o *Options, acct Account, region string) ([]Instance, error) {
	u, err := baseURL(ecsAPI.endpoint, o.Endpoint, "/")
	if err != nil {
		return nil, err
	}
	var out []Instance
	// call sends one page (or, with dry, the DryRun permission check).
	call := func(page int, dry bool) (record, error) {
		var top record
		err := o.do(ctx, attempt{
			build: func(ctx context.Context) (*http.Request, error) {
				q := acsRPCParams(ecsAPI.api, ecsVersion, acct.KeyID, o.Now())
				q.Set("RegionId", region)
				q.Set("PageNumber", strconv.Itoa(page))
				q.Set("PageSize", strconv.Itoa(ecsPageSize))
				if dry {
					q.Set("DryRun", "true")
				}
				q.Set("Signature", ACSRPCSignature(http.MethodGet, q, acct.Secret()))
				ru := *u
				ru.RawQuery = q.Encode()
				return http.NewRequestWithContext(ctx, http.MethodGet, ru.String(), nil)
			},
			check: func(status int, b []byte) error {
				r, err := decodeObject(ecsAPI.api, b)
				if err != nil {
					if status == http.StatusTooManyRequests || status >= 500 {
						return &apiError{status: status, code: strconv.Itoa(status), message: http.StatusText(status), retry: true}
					}
					return err
				}
				if code, _ := r.scalar("Code"); dry && code == "DryRunOperation" {
					return nil // the request would have succeeded: the key may list instances
				}
				if status != http.StatusOK || r.has("Code") {
					return aliyunError(status, r)
				}
				top = r
				return nil
			},
		}, func(e *apiError, tries int) error { return ecsAPI.failure(acct, e, tries) })
		return top, err
	}
	for page := 1; ; page++ {
		top, err := call(page, false)
		if err != nil {
			return nil, err
		}
		total, err := top.integer("TotalCount")
		if err != nil {
			return nil, err
		}
		wrap, err := top.object("Instances")
		if err != nil {
			return nil, err
		}
		list, err := wrap.objects("Instance")
		if err != nil {
			return nil, err
		}
		for _, r := range list {
			in, err := ecsInstance(r)
			if err != nil {
				return nil, err
			}
			in.Account = acct.Name
			if in.Region == "" {
				in.Region = region
			}
			out = append(out, in)
		}
		if page == 1 && len(list) == 0 {
			// A RAM user without ecs:DescribeInstances gets an empty list,
			// not an error (as the API documents): a DryRun tells an empty
			// region from a missing permission, which would otherwise look
			// like every instance gone.
			if _, err := call(1, true); err != nil {
				return nil, err
			}
		}
		if len(list) == 0 || int64(len(out)) >= total {
			break
		}
	}
	return out, nil
}

func ecsInstance(r record) (Instance, error) {
	in := Instance{Provider: "aliyun", Currency: "CNY"}
	var err error
	if in.ID, err = r.required("InstanceId"); err != nil {
		return in, err
	}
	if in.RawState, err = r.required("Status"); err != nil {
		return in, err
	}
	switch in.RawState {
	case "Running":
		in.State = StateRunning
	case "Stopped":
		in.State = StateStopped
	default:
		in.State = StateOther
	}
	in.Name, _ = r.scalar("InstanceName")
	in.Type, _ = r.scalar("InstanceType")
	in.Region, _ = r.scalar("RegionId")
	charge, _ := r.scalar("InstanceChargeType")
	in.OnDemand = charge == "PostPaid"
	s, _ := r.scalar("StartTime")
	in.StartedAt = apiTime(s)
	s, _ = r.scalar("CreationTime")
	in.CreatedAt = apiTime(s)
	in.GPUModel, _ = r.scalar("GPUSpec")
	if n, _ := r.scalar("GPUAmount"); n != "" {
		if in.GPUCount, err = decimal.NewFromString(n); err != nil {
			return in, shapeError(ecsAPI.api, r.name("GPUAmount"), "is not a number")
		}
	}
	return in, nil
}

package fetch

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// 火山引擎 ECS DescribeInstances (service ecs, version 2020-04-01, as the
// vendor's Go SDK declares it): a GET to open.volcengineapi.com with
// Action, Version, MaxResults (≤ 100) and NextToken in the query, signed
// with the 火山引擎 HMAC-SHA256 signature for the region and service ecs.
// Result.Instances have Status (RUNNING, STOPPED, …), InstanceChargeType
// (PostPaid, PrePaid), CreatedAt and InstanceTypeId, but neither a start
// time nor a GPU model: no price is known, the alert says so.
var volcECSAPI = &instanceAPI{
	vendor: &vendor{
		provider: "volcengine",
		api:      "DescribeInstances",
		endpoint: "https://open.volcengineapi.com",
		permZH:   "IAM 权限 ecs:DescribeInstances（只读）",
		permEN:   "the IAM action ecs:DescribeInstances (read-only)",
	},
	delayZH:       "实时（实例状态即刻更新；API 不给出开机时间，以首次看到运行的时间为准）",
	delayEN:       "live (states change at once; the API gives no start time, so the first poll that saw it running counts)",
	defaultRegion: "cn-beijing",
}

func init() {
	volcECSAPI.list = volcECSList
	instanceAPIs["volcengine"] = volcECSAPI
}

const (
	volcECSVersion = "2020-04-01"
	volcECSService = "ecs"
	volcECSMax     = 100
)

func volcECSList(ctx context.Context, o *Options, acct Account, region string) ([]Instance, error) {
	u, err := baseURL(volcECSAPI.endpoint, o.Endpoint, "/")
	if err != nil {
		return nil, err
	}
	var out []Instance
	token := ""
	for {
		q := url.Values{"Action": {volcECSAPI.api}, "Version": {volcECSVersion}, "MaxResults": {strconv.Itoa(volcECSMax)}}
		if token != "" {
			q.Set("NextToken", token)
		}
		var result record
		err := o.do(ctx, attempt{
			build: func(ctx context.Context) (*http.Request, error) {
				ru := *u
				ru.RawQuery = volcQuery(q)
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, ru.String(), nil)
				if err != nil {
					return nil, err
				}
				xDate := o.Now().UTC().Format("20060102T150405Z")
				req.Host = u.Host
				req.Header.Set("Content-Type", volcContentType)
				req.Header.Set("X-Date", xDate)
				req.Header.Set("X-Content-Sha256", sha256Hex(nil))
				req.Header.Set("Authorization", VolcV4(acct.KeyID, acct.Secret(), region, volcECSService, http.MethodGet,
					u.Host, "/", q, volcContentType, nil, xDate))
				return req, nil
			},
			check: func(status int, b []byte) error {
				r, err := volcCheckAPI(volcECSAPI.api, status, b)
				result = r
				return err
			},
		}, func(e *apiError, tries int) error { return volcECSAPI.failure(acct, e, tries) })
		if err != nil {
			return nil, err
		}
		list, err := result.objects("Instances")
		if err != nil {
			return nil, err
		}
		for _, r := range list {
			in := Instance{Provider: "volcengine", Account: acct.Name, Region: region, Currency: "CNY"}
			if in.ID, err = r.required("InstanceId"); err != nil {
				return nil, err
			}
			if in.RawState, err = r.required("Status"); err != nil {
				return nil, err
			}
			switch in.RawState {
			case "RUNNING":
				in.State = StateRunning
			case "STOPPED":
				in.State = StateStopped
			default:
				in.State = StateOther
			}
			in.Name, _ = r.scalar("InstanceName")
			in.Type, _ = r.scalar("InstanceTypeId")
			charge, _ := r.scalar("InstanceChargeType")
			in.OnDemand = charge == "PostPaid"
			created, _ := r.scalar("CreatedAt")
			in.CreatedAt = apiTime(created)
			out = append(out, in)
		}
		next, err := result.scalar("NextToken")
		if err != nil {
			return nil, err
		}
		if next == "" || len(list) == 0 {
			break
		}
		if next == token {
			return nil, shapeError(volcECSAPI.api, "Result.NextToken", "repeats the token of the page it came with")
		}
		token = next
	}
	return out, nil
}

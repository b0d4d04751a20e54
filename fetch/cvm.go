package fetch

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/shopspring/decimal"
)

// 腾讯云 CVM DescribeInstances (service cvm, version 2017-03-12,
// cloud.tencent.com/document/api/213/15728): the instances of a region
// (X-TC-Region), paged by Offset / Limit (≤ 100) with TotalCount. An
// instance has InstanceState (RUNNING, STOPPED, …), InstanceChargeType,
// CreatedTime and GPUInfo, but no time of its last start.
var cvmAPI = &instanceAPI{
	vendor: &vendor{
		provider: "tencentcloud",
		api:      "DescribeInstances",
		endpoint: "https://cvm.tencentcloudapi.com",
		permZH:   "CAM 接口权限 cvm:DescribeInstances（只读；预设策略 QcloudCVMReadOnlyAccess 包含它）",
		permEN:   "the CAM action cvm:DescribeInstances (read-only; the preset policy QcloudCVMReadOnlyAccess grants it)",
	},
	delayZH:       "实时（实例状态即刻更新；API 不给出最近一次开机时间，以首次看到运行的时间为准）",
	delayEN:       "live (states change at once; the API gives no last start time, so the first poll that saw it running counts)",
	defaultRegion: "ap-guangzhou",
}

func init() {
	cvmAPI.list = cvmList
	instanceAPIs["tencentcloud"] = cvmAPI
}

const (
	cvmService = "cvm"
	cvmVersion = "2017-03-12"
	cvmLimit   = 100
)

func cvmList(ctx context.Context, o *Options, acct Account, region string) ([]Instance, error) {
	u, err := baseURL(cvmAPI.endpoint, o.Endpoint, "/")
	if err != nil {
		return nil, err
	}
	var out []Instance
	for offset := int64(0); ; {
		body := []byte(fmt.Sprintf(`{"Offset":%d,"Limit":%d}`, offset, cvmLimit))
		var resp record
		err := o.do(ctx, attempt{
			build: func(ctx context.Context) (*http.Request, error) {
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
				if err != nil {
					return nil, err
				}
				ts := o.Now().Unix()
				req.Host = u.Host
				req.Header.Set("Content-Type", tencentContentType)
				req.Header.Set("X-TC-Action", cvmAPI.api)
				req.Header.Set("X-TC-Version", cvmVersion)
				req.Header.Set("X-TC-Region", region)
				req.Header.Set("X-TC-Timestamp", strconv.FormatInt(ts, 10))
				req.Header.Set("Authorization", TC3(acct.KeyID, acct.Secret(), cvmService, u.Host, tencentContentType, body, ts))
				return req, nil
			},
			check: func(status int, b []byte) error {
				r, err := tencentCheckAPI(cvmAPI.api, status, b)
				resp = r
				return err
			},
		}, func(e *apiError, tries int) error { return cvmAPI.failure(acct, e, tries) })
		if err != nil {
			return nil, err
		}
		total, err := resp.integer("TotalCount")
		if err != nil {
			return nil, err
		}
		set, err := resp.objects("InstanceSet")
		if err != nil {
			return nil, err
		}
		for _, r := range set {
			in, err := cvmInstance(r)
			if err != nil {
				return nil, err
			}
			in.Account, in.Region = acct.Name, region
			out = append(out, in)
		}
		offset += int64(len(set))
		if offset >= total {
			break
		}
		if len(set) == 0 {
			return nil, shapeError(cvmAPI.api, "Response.InstanceSet",
				fmt.Sprintf("is empty at Offset %d while Response.TotalCount is %d", offset, total))
		}
	}
	return out, nil
}

func cvmInstance(r record) (Instance, error) {
	in := Instance{Provider: "tencentcloud", Currency: "CNY"}
	var err error
	if in.ID, err = r.required("InstanceId"); err != nil {
		return in, err
	}
	if in.RawState, err = r.required("InstanceState"); err != nil {
		return in, err
	}
	switch in.RawState {
	case "RUNNING":
		in.State = StateRunning
	case "STOPPED", "SHUTDOWN":
		in.State = StateStopped
	default:
		in.State = StateOther
	}
	in.Name, _ = r.scalar("InstanceName")
	in.Type, _ = r.scalar("InstanceType")
	charge, _ := r.scalar("InstanceChargeType")
	in.OnDemand = charge == "POSTPAID_BY_HOUR" || charge == "SPOTPAID"
	created, _ := r.scalar("CreatedTime")
	in.CreatedAt = apiTime(created)
	if r.has("GPUInfo") {
		g, err := r.object("GPUInfo")
		if err != nil {
			return in, err
		}
		in.GPUModel, _ = g.scalar("GPUType")
		if n, _ := g.scalar("GPUCount"); n != "" {
			if in.GPUCount, err = decimal.NewFromString(n); err != nil {
				return in, shapeError(cvmAPI.api, g.name("GPUCount"), "is not a number")
			}
		}
	}
	return in, nil
}

package fetch

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"github.com/shopspring/decimal"
)

// 华为云 ECS ListServersDetails (查询云服务器详情列表,
// support.huaweicloud.com/api-ecs/ecs_02_0104.html): GET
// /v1/{project_id}/cloudservers/detail on ecs.{region}.myhuaweicloud.com,
// paged by offset (the page number, from 1) and limit (≤ 1000) with count.
// A server has status (ACTIVE, SHUTOFF, BUILD …), created,
// metadata.charging_mode ("0" 按需, "1" 包年/包月, "2" 竞价) and flavor.gpus
// (name, count). Its OS-SRV-USG:launched_at is the launch, which a stop and
// start does not move: not taken as the last start. Signed with
// SDK-HMAC-SHA256; the project ID is the account's (HUAWEICLOUD_SDK_PROJECT_ID
// or project_id), one per region.
var huaweiECSAPI = &instanceAPI{
	vendor: &vendor{
		provider: "huaweicloud",
		api:      "ListServersDetails",
		permZH:   "IAM 权限 ecs:cloudServers:list（只读；系统策略 ECS ReadOnlyAccess 包含它）",
		permEN:   "the IAM action ecs:cloudServers:list (read-only; the system policy ECS ReadOnlyAccess grants it)",
	},
	delayZH:       "实时（状态即刻更新；API 只给出首次启动时间，以首次看到运行的时间为准）",
	delayEN:       "live (states change at once; the API gives the launch time only, so the first poll that saw it running counts)",
	defaultRegion: "cn-north-4",
}

func init() {
	huaweiECSAPI.list = huaweiECSList
	instanceAPIs["huaweicloud"] = huaweiECSAPI
}

const huaweiECSLimit = 1000

func huaweiECSList(ctx context.Context, o *Options, acct Account, region string) ([]Instance, error) {
	if acct.ProjectID == "" {
		return nil, &Error{Kind: KindUsage,
			ZH: fmt.Sprintf("华为云账号 %s 没有项目 ID：请设置 %s（区域 %s 的项目 ID，见“我的凭证”），或在 [[account]] 中写 project_id", acct.Name, huaweiProjectEnv, region),
			EN: fmt.Sprintf("华为云 account %s has no project ID: set %s (the project ID of region %s, under My Credentials), or project_id in its [[account]]", acct.Name, huaweiProjectEnv, region)}
	}
	u, err := baseURL("https://ecs."+region+".myhuaweicloud.com", o.Endpoint, "/")
	if err != nil {
		return nil, err
	}
	path := "/v1/" + url.PathEscape(acct.ProjectID) + "/cloudservers/detail"
	var out []Instance
	for page := 1; ; page++ {
		q := url.Values{"offset": {strconv.Itoa(page)}, "limit": {strconv.Itoa(huaweiECSLimit)}}
		var resp record
		err := o.do(ctx, attempt{
			build: huaweiRequest(o, acct, u, path, q, nil),
			check: func(status int, b []byte) error {
				r, err := huaweiCheck(huaweiECSAPI.api, status, b)
				resp = r
				return err
			},
		}, func(e *apiError, tries int) error { return huaweiECSAPI.failure(acct, e, tries) })
		if err != nil {
			return nil, err
		}
		count, err := resp.integer("count")
		if err != nil {
			return nil, err
		}
		servers, err := resp.objects("servers")
		if err != nil {
			return nil, err
		}
		for _, r := range servers {
			in, err := huaweiServerOf(r)
			if err != nil {
				return nil, err
			}
			in.Account, in.Region = acct.Name, region
			out = append(out, in)
		}
		if int64(len(out)) >= count {
			break
		}
		if len(servers) == 0 {
			return nil, shapeError(huaweiECSAPI.api, "servers", fmt.Sprintf("is empty on page %d while count is %d", page, count))
		}
	}
	return out, nil
}

func huaweiServerOf(r record) (Instance, error) {
	in := Instance{Provider: "huaweicloud", Currency: "CNY", OnDemand: true}
	var err error
	if in.ID, err = r.required("id"); err != nil {
		return in, err
	}
	if in.RawState, err = r.required("status"); err != nil {
		return in, err
	}
	switch in.RawState {
	case "ACTIVE":
		in.State = StateRunning
	case "SHUTOFF":
		in.State = StateStopped
	default:
		in.State = StateOther
	}
	in.Name, _ = r.scalar("name")
	created, _ := r.scalar("created")
	in.CreatedAt = apiTime(created)
	if r.has("metadata") {
		md, err := r.object("metadata")
		if err != nil {
			return in, err
		}
		mode, _ := md.scalar("charging_mode")
		in.OnDemand = mode != "1"
	}
	if r.has("flavor") {
		fl, err := r.object("flavor")
		if err != nil {
			return in, err
		}
		in.Type, _ = fl.scalar("id")
		if fl.has("gpus") {
			gpus, err := fl.objects("gpus")
			if err != nil {
				return in, err
			}
			for _, g := range gpus {
				if in.GPUModel == "" {
					in.GPUModel, _ = g.scalar("name")
				}
				if n, _ := g.scalar("count"); n != "" {
					d, err := decimal.NewFromString(n)
					if err != nil {
						return in, shapeError(huaweiECSAPI.api, g.name("count"), "is not a number")
					}
					in.GPUCount = in.GPUCount.Add(d)
				}
			}
		}
	}
	return in, nil
}

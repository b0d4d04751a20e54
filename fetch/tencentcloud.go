package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gpubill/gpubill/ledger"
)

// 腾讯云 DescribeBillDetail (service billing, version 2018-07-09): the L3
// 明细账单 by API, one BillDetail per deduction with a ComponentSet, one
// line per component as the exported file has it. Paged by Offset / Limit
// (Limit ≤ 100) with NeedRecordNum=1 for Total; the month by Month and
// PeriodType byPayTime (扣费时间), the month the CSV mapper gives a line
// without 账单月份.
var tencentAPI = &vendor{
	provider: "tencentcloud",
	api:      "DescribeBillDetail",
	endpoint: "https://billing.tencentcloudapi.com",
	permZH:   "CAM 接口权限 finance:DescribeBillDetail（CAM 产品“财务”，简称 finance；只读的账单明细查询）",
	permEN:   "the CAM action finance:DescribeBillDetail (CAM product 财务 \"finance\"; read-only bill detail)",
}

const (
	tencentService     = "billing"
	tencentVersion     = "2018-07-09"
	tencentContentType = "application/json; charset=utf-8"
	tencentLimit       = 100
)

// tencentDetailFields and tencentComponentFields are the API fields a line
// carries, by their API names (ingest's Tencent format knows them as
// aliases of the export's columns).
var (
	tencentDetailFields = []string{"PayerUin", "OwnerUin", "OperateUin", "BusinessCodeName", "ProductCodeName",
		"PayModeName", "ProjectName", "RegionName", "ZoneName", "ResourceId", "ResourceName", "ActionTypeName",
		"OrderId", "BillId", "PayTime", "FeeBeginTime", "FeeEndTime"}
	tencentComponentFields = []string{"ComponentCodeName", "ItemCodeName", "SinglePrice", "ContractPrice", "PriceUnit",
		"UsedAmount", "UsedAmountUnit", "TimeSpan", "TimeUnitName", "Cost", "Discount", "RealCost",
		"VoucherPayAmount", "IncentivePayAmount", "TransferPayAmount", "CashPayAmount", "InstanceType"}
)

// tencentRequired are the fields without which a line means nothing.
var tencentRequired = map[string]bool{"BillId": true, "ResourceId": true, "PayTime": true,
	"ItemCodeName": true, "RealCost": true, "CashPayAmount": true}

func tencentPull(ctx context.Context, o *Options, acct Account, month string) ([]string, [][]string, error) {
	u, err := baseURL(tencentAPI.endpoint, o.Endpoint, "/")
	if err != nil {
		return nil, nil, err
	}
	var lines []map[string]string
	pages := 0
	for offset := int64(0); ; {
		body, _ := json.Marshal(map[string]any{"Offset": offset, "Limit": tencentLimit, "Month": month,
			"PeriodType": "byPayTime", "NeedRecordNum": 1})
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
				req.Header.Set("X-TC-Action", tencentAPI.api)
				req.Header.Set("X-TC-Version", tencentVersion)
				req.Header.Set("X-TC-Timestamp", strconv.FormatInt(ts, 10))
				req.Header.Set("Authorization", TC3(acct.KeyID, acct.Secret(), tencentService, u.Host, tencentContentType, body, ts))
				return req, nil
			},
			check: func(status int, b []byte) error {
				r, err := tencentCheck(status, b)
				resp = r
				return err
			},
		}, func(e *apiError, tries int) error { return tencentAPI.failure(acct, e, tries) })
		if err != nil {
			return nil, nil, err
		}
		total, err := resp.integer("Total")
		if err != nil {
			return nil, nil, err
		}
		details, err := resp.objects("DetailSet")
		if err != nil {
			return nil, nil, err
		}
		for _, d := range details {
			ls, err := tencentLines(d)
			if err != nil {
				return nil, nil, err
			}
			lines = append(lines, ls...)
		}
		pages++
		if o.OnPage != nil {
			o.OnPage(pages, len(lines))
		}
		offset += int64(len(details))
		if offset >= total {
			break
		}
		if len(details) == 0 {
			return nil, nil, shapeError(tencentAPI.api, "Response.DetailSet",
				fmt.Sprintf("is empty at Offset %d while Response.Total is %d", offset, total))
		}
	}
	header, rows := table(append(append([]string(nil), tencentDetailFields...), tencentComponentFields...), lines)
	return header, rows, nil
}

// tencentCheck reads one response: its Response object, or the API error
// it carries.
func tencentCheck(status int, b []byte) (record, error) {
	return tencentCheckAPI(tencentAPI.api, status, b)
}

// tencentCheckAPI is tencentCheck for any API 3.0 action (named in errors).
func tencentCheckAPI(api string, status int, b []byte) (record, error) {
	_, resp, ae, err := envelope(api, status, b, "Response")
	if err != nil {
		return record{}, err
	}
	if ae == nil {
		return resp, nil
	}
	switch code := ae.code; {
	case strings.HasPrefix(code, "RequestLimitExceeded"), code == "InternalError", status == http.StatusTooManyRequests:
		ae.retry = true
	case strings.HasPrefix(code, "AuthFailure"), strings.HasPrefix(code, "UnauthorizedOperation"),
		strings.HasPrefix(code, "OperationDenied"):
		ae.auth = true
	}
	return record{}, ae
}

// tencentLines turns one BillDetail into one line per component.
func tencentLines(d record) ([]map[string]string, error) {
	base := map[string]string{}
	for _, f := range tencentDetailFields {
		get := d.scalar
		if tencentRequired[f] {
			get = d.required
		}
		v, err := get(f)
		if err != nil {
			return nil, err
		}
		base[f] = v
	}
	if d.has("Tags") {
		tags, err := d.objects("Tags")
		if err != nil {
			return nil, err
		}
		for _, t := range tags {
			k, err := t.required("TagKey")
			if err != nil {
				return nil, err
			}
			v, err := t.scalar("TagValue")
			if err != nil {
				return nil, err
			}
			if k != "" {
				base["标签键:"+k] = v
			}
		}
	}
	comps, err := d.objects("ComponentSet")
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for _, c := range comps {
		line := make(map[string]string, len(base)+len(tencentComponentFields))
		for k, v := range base {
			line[k] = v
		}
		for _, f := range tencentComponentFields {
			get := c.scalar
			if tencentRequired[f] {
				get = c.required
			}
			v, err := get(f)
			if err != nil {
				return nil, err
			}
			line[f] = v
		}
		line[ledger.LineIDColumn] = line["BillId"] + "/" + line["ComponentCodeName"]
		out = append(out, line)
	}
	return out, nil
}

package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gpubill/gpubill/ledger"
)

// 华为云 BSS ListCustomerselfResourceRecords (查询资源消费记录,
// support.huaweicloud.com/api-oce/mbc_00004.html): GET
// /v2/bills/customer-bills/res-fee-records on the global endpoint
// bss.myhuaweicloud.com, the 流水与明细账单 → 明细账单 lines of a cycle. With
// statistic_type=3 (按明细) each record is one line of the 使用量类型明细账单
// export: usage type, usage, unit price, the amounts by payment, and a
// unique id. Paged by offset / limit (≤ 1000) with total_count. Signed
// with SDK-HMAC-SHA256; X-Domain-Id (the account ID) goes with it when
// known, as the docs ask of global services.
//
// The records give the usage unit as usage_measure_id: the client reads
// the names of those ids once per fetch from ListMeasureUnits (GET
// /v2/bases/measurements, no permission needed), so the line carries the
// unit the export writes (小时, GB).
var huaweiAPI = &vendor{
	provider: "huaweicloud",
	api:      "ListCustomerselfResourceRecords",
	endpoint: "https://bss.myhuaweicloud.com",
	permZH:   "IAM 权限 billing:billDetail:view（只读的账单明细查看；旧的角色策略为 bss:bill:view）",
	permEN:   "the IAM action billing:billDetail:view (read-only bill detail; bss:bill:view in the older role-based policies)",
}

const (
	huaweiBillPath    = "/v2/bills/customer-bills/res-fee-records"
	huaweiMeasurePath = "/v2/bases/measurements"
	huaweiLimit       = 1000
	huaweiContentType = "application/json"
)

// huaweiFields are the record fields a line carries, by their API names,
// which ingest's 华为云 format knows as aliases of the export's columns.
// Three columns are the client's: cycle (the month asked for), region_code
// (the record's region: "region" alone would read as the region's name)
// and usage_measure (the name of usage_measure_id); currency comes from the
// response.
var huaweiFields = []string{"cycle", "bill_date", "bill_type", "customer_id", "account_name", "region_code",
	"region_name", "cloud_service_type", "cloud_service_type_name", "resource_type", "resource_type_name",
	"effective_time", "expire_time", "consume_time", "resource_id", "resource_name", "resource_tag", "product_id",
	"product_name", "product_spec_desc", "sku_code", "trade_id", "id", "trade_time", "enterprise_project_id",
	"enterprise_project_name", "charge_mode", "order_id", "period_type", "usage_type", "usage", "usage_measure",
	"free_resource_usage", "ri_usage", "unit_price", "unit", "official_amount", "discount_amount", "amount",
	"cash_amount", "credit_amount", "coupon_amount", "flexipurchase_coupon_amount", "stored_card_amount",
	"bonus_amount", "debt_amount", "adjustment_amount", "currency"}

// huaweiRequired are the fields without which a line means nothing.
var huaweiRequired = map[string]bool{"id": true, "amount": true, "charge_mode": true, "bill_type": true}

// huaweiRequest signs and sends one GET of path with query q.
func huaweiRequest(o *Options, acct Account, u *url.URL, path string, q url.Values, extra map[string]string) func(ctx context.Context) (*http.Request, error) {
	return func(ctx context.Context) (*http.Request, error) {
		ru := *u
		ru.Path = path
		ru.RawQuery = volcQuery(q)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, ru.String(), nil)
		if err != nil {
			return nil, err
		}
		date := o.Now().UTC().Format("20060102T150405Z")
		h := map[string]string{"content-type": huaweiContentType, "host": u.Host, "x-sdk-date": date}
		for k, v := range extra {
			h[strings.ToLower(k)] = v
		}
		req.Host = u.Host
		req.Header.Set("Content-Type", huaweiContentType)
		req.Header.Set("X-Sdk-Date", date)
		for k, v := range extra {
			req.Header.Set(k, v)
		}
		req.Header.Set("Authorization", HuaweiSDKSignature(acct.KeyID, acct.Secret(), http.MethodGet, path, q, h, nil))
		return req, nil
	}
}

func huaweiPull(ctx context.Context, o *Options, acct Account, month string) ([]string, [][]string, error) {
	u, err := baseURL(huaweiAPI.endpoint, o.Endpoint, "/")
	if err != nil {
		return nil, nil, err
	}
	extra := map[string]string{}
	if acct.DomainID != "" {
		extra["X-Domain-Id"] = acct.DomainID
	}
	fail := func(e *apiError, tries int) error { return huaweiAPI.failure(acct, e, tries) }
	var lines []map[string]string
	measures := map[string]bool{}
	pages := 0
	for offset := int64(0); ; {
		q := url.Values{"cycle": {month}, "statistic_type": {"3"}, "include_zero_record": {"true"},
			"offset": {strconv.FormatInt(offset, 10)}, "limit": {strconv.Itoa(huaweiLimit)}}
		var resp record
		err := o.do(ctx, attempt{
			build: huaweiRequest(o, acct, u, huaweiBillPath, q, extra),
			check: func(status int, b []byte) error {
				r, err := huaweiCheck(huaweiAPI.api, status, b)
				resp = r
				return err
			},
		}, fail)
		if err != nil {
			return nil, nil, err
		}
		total, err := resp.integer("total_count")
		if err != nil {
			return nil, nil, err
		}
		currency, err := resp.scalar("currency")
		if err != nil {
			return nil, nil, err
		}
		recs, err := resp.objects("fee_records")
		if err != nil {
			return nil, nil, err
		}
		for _, r := range recs {
			line := map[string]string{"cycle": month, "currency": currency}
			for _, f := range huaweiFields {
				var api string
				switch f {
				case "cycle", "currency":
					continue
				case "region_code":
					api = "region"
				case "usage_measure":
					api = "usage_measure_id"
				default:
					api = f
				}
				get := r.scalar
				if huaweiRequired[f] {
					get = r.required
				}
				if line[f], err = get(api); err != nil {
					return nil, nil, err
				}
			}
			line[ledger.LineIDColumn] = line["id"]
			if m := line["usage_measure"]; m != "" {
				measures[m] = true
			}
			lines = append(lines, line)
		}
		pages++
		if o.OnPage != nil {
			o.OnPage(pages, len(lines))
		}
		offset += int64(len(recs))
		if offset >= total {
			break
		}
		if len(recs) == 0 {
			return nil, nil, shapeError(huaweiAPI.api, "fee_records",
				fmt.Sprintf("is empty at offset %d while total_count is %d", offset, total))
		}
	}
	if len(measures) > 0 {
		names, err := huaweiMeasureNames(ctx, o, acct, u, extra)
		if err != nil {
			return nil, nil, err
		}
		for _, l := range lines {
			if id := l["usage_measure"]; id != "" {
				n, ok := names[id]
				if !ok {
					return nil, nil, shapeError("ListMeasureUnits", "measure_units",
						fmt.Sprintf("lacks usage_measure_id %s of a fee record", id))
				}
				l["usage_measure"] = n
			}
		}
	}
	header, rows := table(huaweiFields, lines)
	return header, rows, nil
}

// huaweiMeasureNames reads ListMeasureUnits: measure_id → measure_name.
func huaweiMeasureNames(ctx context.Context, o *Options, acct Account, u *url.URL, extra map[string]string) (map[string]string, error) {
	var resp record
	err := o.do(ctx, attempt{
		build: huaweiRequest(o, acct, u, huaweiMeasurePath, url.Values{}, extra),
		check: func(status int, b []byte) error {
			r, err := huaweiCheck("ListMeasureUnits", status, b)
			resp = r
			return err
		},
	}, func(e *apiError, tries int) error { return huaweiAPI.failure(acct, e, tries) })
	if err != nil {
		return nil, err
	}
	units, err := resp.objects("measure_units")
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(units))
	for _, m := range units {
		id, err := m.required("measure_id")
		if err != nil {
			return nil, err
		}
		name, err := m.required("measure_name")
		if err != nil {
			return nil, err
		}
		out[id] = name
	}
	return out, nil
}

// huaweiCheck reads one response of a 华为云 API: the body object, or the
// error it carries ({"error_code", "error_msg"}, from the service or from
// its API gateway).
func huaweiCheck(api string, status int, b []byte) (record, error) {
	top, err := decodeObject(api, b)
	if err != nil {
		if status == http.StatusTooManyRequests || status >= 500 {
			return record{}, &apiError{status: status, code: strconv.Itoa(status), message: http.StatusText(status), retry: true}
		}
		return record{}, err
	}
	code, _ := top.scalar("error_code")
	msg, _ := top.scalar("error_msg")
	if e, ok := top.m["error"].(map[string]any); ok && code == "" {
		// The services' own errors (ECS): {"error": {"code", "message"}}.
		er := record{api: api, m: e}
		code, _ = er.scalar("code")
		msg, _ = er.scalar("message")
	}
	if status/100 == 2 && code == "" {
		return top, nil
	}
	if code == "" {
		code = strconv.Itoa(status)
	}
	ae := &apiError{status: status, code: code, message: msg}
	gw := strings.TrimPrefix(strings.TrimPrefix(code, "APIGW."), "APIG.")
	switch {
	// Throttled: the gateway's 0308, BSS's 消息流量控制 and IP 限流; a
	// server-side failure is worth another try too.
	case gw == "0308", code == "CBC.0250", code == "CBC.99007197", status == http.StatusTooManyRequests, status >= 500:
		ae.retry = true
	// Refused: a wrong key or signature (0301), an expired timestamp
	// (0303), 访问拒绝 (CBC.0151), a bad token (CBC.0154).
	case gw == "0301", gw == "0303", code == "CBC.0151", code == "CBC.0154",
		status == http.StatusUnauthorized, status == http.StatusForbidden:
		ae.auth = true
	}
	return record{}, ae
}

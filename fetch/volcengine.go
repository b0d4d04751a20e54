package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gpubill/gpubill/ledger"
)

// 火山引擎 billing ListBillDetail (version 2022-01-01): the 账单详情 lines of
// a BillPeriod at the finest grain (GroupPeriod 2 明细, GroupTerm 0 计费项).
// Paged by Offset / Limit (≤ 300) with NeedRecordNum=1 for Total. A POST of
// a JSON body to open.volcengineapi.com with Action and Version in the
// query, signed with the 火山引擎 HMAC-SHA256 signature (service billing,
// region cn-north-1).
var volcAPI = &vendor{
	provider: "volcengine",
	api:      "ListBillDetail",
	endpoint: "https://open.volcengineapi.com",
	permZH:   "IAM 权限 billing:ListBillDetail（只读的账单明细查询）",
	permEN:   "the IAM action billing:ListBillDetail (read-only bill detail)",
}

const (
	volcVersion     = "2022-01-01"
	volcService     = "billing"
	volcRegion      = "cn-north-1"
	volcContentType = "application/json"
	volcLimit       = 300
)

// volcFields are the List fields a line carries, by their API names (the
// names ingest's 火山引擎 format reads).
var volcFields = []string{"BillPeriod", "ExpenseDate", "ExpenseBeginTime", "ExpenseEndTime", "TradeTime", "PayerID",
	"OwnerID", "Product", "ProductZh", "BillingMode", "BillCategory", "InstanceNo", "InstanceName", "ConfigName",
	"Element", "ElementCode", "Factor", "Region", "Zone", "Price", "PriceUnit", "Count", "Unit", "UseDuration",
	"UseDurationUnit", "OriginalBillAmount", "PreferentialBillAmount", "RoundAmount", "DiscountBillAmount",
	"CouponAmount", "PayableAmount", "PaidAmount", "UnpaidAmount", "CreditCarriedAmount", "Currency",
	"SettlementType", "Project", "Tag", "BillID", "BillDetailId"}

var volcRequired = map[string]bool{"OriginalBillAmount": true, "DiscountBillAmount": true, "PayableAmount": true}

func volcPull(ctx context.Context, o *Options, acct Account, month string) ([]string, [][]string, error) {
	u, err := baseURL(volcAPI.endpoint, o.Endpoint, "/")
	if err != nil {
		return nil, nil, err
	}
	q := url.Values{"Action": {volcAPI.api}, "Version": {volcVersion}}
	var lines []map[string]string
	pages := 0
	for offset := int64(0); ; {
		body, _ := json.Marshal(map[string]any{"BillPeriod": month, "Limit": volcLimit, "Offset": offset,
			"NeedRecordNum": 1, "GroupPeriod": 2, "GroupTerm": 0, "IgnoreZero": 0})
		var result record
		err := o.do(ctx, attempt{
			build: func(ctx context.Context) (*http.Request, error) {
				ru := *u
				ru.RawQuery = volcQuery(q)
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, ru.String(), bytes.NewReader(body))
				if err != nil {
					return nil, err
				}
				xDate := o.Now().UTC().Format("20060102T150405Z")
				req.Host = u.Host
				req.Header.Set("Content-Type", volcContentType)
				req.Header.Set("X-Date", xDate)
				req.Header.Set("X-Content-Sha256", sha256Hex(body))
				req.Header.Set("Authorization", VolcV4(acct.KeyID, acct.Secret(), volcRegion, volcService, http.MethodPost,
					u.Host, "/", q, volcContentType, body, xDate))
				return req, nil
			},
			check: func(status int, b []byte) error {
				r, err := volcCheck(status, b)
				result = r
				return err
			},
		}, func(e *apiError, tries int) error { return volcAPI.failure(acct, e, tries) })
		if err != nil {
			return nil, nil, err
		}
		total, err := result.integer("Total")
		if err != nil {
			return nil, nil, err
		}
		if total < 0 {
			return nil, nil, shapeError(volcAPI.api, "Result.Total", fmt.Sprintf("is %d although NeedRecordNum=1 asked for it", total))
		}
		items, err := result.objects("List")
		if err != nil {
			return nil, nil, err
		}
		for _, it := range items {
			line := map[string]string{}
			for _, f := range volcFields {
				get := it.scalar
				if volcRequired[f] {
					get = it.required
				}
				if line[f], err = get(f); err != nil {
					return nil, nil, err
				}
			}
			line[ledger.LineIDColumn] = line["BillDetailId"]
			if line[ledger.LineIDColumn] == "" {
				line[ledger.LineIDColumn] = line["BillID"]
			}
			lines = append(lines, line)
		}
		pages++
		if o.OnPage != nil {
			o.OnPage(pages, len(lines))
		}
		offset += int64(len(items))
		if offset >= total {
			break
		}
		if len(items) == 0 {
			return nil, nil, shapeError(volcAPI.api, "Result.List", fmt.Sprintf("is empty at Offset %d while Result.Total is %d", offset, total))
		}
	}
	header, rows := table(volcFields, lines)
	return header, rows, nil
}

// volcCheck reads one response: its Result, or the error in its
// ResponseMetadata.
func volcCheck(status int, b []byte) (record, error) { return volcCheckAPI(volcAPI.api, status, b) }

// volcCheckAPI is volcCheck for any 火山引擎 OpenAPI action (named in errors).
func volcCheckAPI(api string, status int, b []byte) (record, error) {
	top, _, ae, err := envelope(api, status, b, "ResponseMetadata")
	if err != nil {
		return record{}, err
	}
	if ae == nil {
		return top.object("Result")
	}
	switch code := ae.code; {
	case code == "FlowLimitExceeded", strings.HasPrefix(code, "RequestLimitExceeded"), code == "InternalError",
		code == "ServiceUnavailable", status == http.StatusTooManyRequests:
		ae.retry = true
	case strings.HasPrefix(code, "InvalidAccessKey"), code == "SignatureDoesNotMatch", strings.HasPrefix(code, "AccessDenied"),
		code == "InvalidCredential", code == "InvalidTimestamp", status == http.StatusUnauthorized, status == http.StatusForbidden:
		ae.auth = true
	}
	return record{}, ae
}

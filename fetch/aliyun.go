package fetch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"

	"github.com/gpubill/gpubill/ledger"
)

// 阿里云 BssOpenApi DescribeInstanceBill (version 2017-12-14) with
// IsBillingItem=true: the 计费项明细 lines of a BillingCycle, the same lines
// as the exported 明细账单 (monthly granularity). Paged by NextToken /
// MaxResults (≤ 300). Signed with the RPC signature v1.0 (HMAC-SHA1) as a
// GET query.
var aliyunAPI = &vendor{
	provider: "aliyun",
	api:      "DescribeInstanceBill",
	endpoint: "https://business.aliyuncs.com",
	permZH:   "RAM 权限 bss:DescribeInstanceBill（只读；系统策略 AliyunBSSReadOnlyAccess 包含它）",
	permEN:   "the RAM action bss:DescribeInstanceBill (read-only; the system policy AliyunBSSReadOnlyAccess grants it)",
}

const (
	aliyunVersion    = "2017-12-14"
	aliyunMaxResults = 300
)

// aliyunFields are the item fields a line carries, by their API names
// (ingest's Alibaba Cloud format knows them as aliases of the export's
// columns). BillingCycle comes from Data.
var aliyunFields = []string{"BillingCycle", "BillingDate", "BillAccountID", "BillAccountName", "OwnerID", "CostUnit",
	"ProductCode", "ProductName", "ProductType", "ProductDetail", "SubscriptionType", "Item", "BillingType",
	"InstanceID", "NickName", "Tag", "InstanceConfig", "InstanceSpec", "InternetIP", "IntranetIP", "ResourceGroup",
	"Region", "Zone", "BillingItem", "BillingItemCode", "ListPrice", "ListPriceUnit", "Usage", "UsageUnit",
	"DeductedByResourcePackage", "PretaxGrossAmount", "InvoiceDiscount", "DeductedByCoupons", "PretaxAmount",
	"DeductedByCashCoupons", "DeductedByPrepaidCard", "PaymentAmount", "OutstandingAmount", "Currency",
	"ServicePeriod", "ServicePeriodUnit", "BizType"}

var aliyunRequired = map[string]bool{"PretaxAmount": true, "PretaxGrossAmount": true, "PaymentAmount": true}

func aliyunPull(ctx context.Context, o *Options, acct Account, month string) ([]string, [][]string, error) {
	u, err := baseURL(aliyunAPI.endpoint, o.Endpoint, "/")
	if err != nil {
		return nil, nil, err
	}
	var lines []map[string]string
	pages := 0
	token := ""
	for {
		var data record
		err := o.do(ctx, attempt{
			build: func(ctx context.Context) (*http.Request, error) {
				q := acsRPCParams(aliyunAPI.api, aliyunVersion, acct.KeyID, o.Now())
				q.Set("BillingCycle", month)
				q.Set("IsBillingItem", "true")
				q.Set("MaxResults", strconv.Itoa(aliyunMaxResults))
				if token != "" {
					q.Set("NextToken", token)
				}
				q.Set("Signature", ACSRPCSignature(http.MethodGet, q, acct.Secret()))
				ru := *u
				ru.RawQuery = q.Encode()
				return http.NewRequestWithContext(ctx, http.MethodGet, ru.String(), nil)
			},
			check: func(status int, b []byte) error {
				r, err := aliyunCheck(status, b)
				data = r
				return err
			},
		}, func(e *apiError, tries int) error { return aliyunAPI.failure(acct, e, tries) })
		if err != nil {
			return nil, nil, err
		}
		items, err := data.objects("Items")
		if err != nil {
			return nil, nil, err
		}
		cycle, err := data.scalar("BillingCycle")
		if err != nil {
			return nil, nil, err
		}
		if cycle == "" {
			cycle = month
		}
		account, err := data.scalar("AccountID")
		if err != nil {
			return nil, nil, err
		}
		for _, it := range items {
			line := map[string]string{}
			for _, f := range aliyunFields {
				get := it.scalar
				if aliyunRequired[f] {
					get = it.required
				}
				if line[f], err = get(f); err != nil {
					return nil, nil, err
				}
			}
			if line["BillingCycle"] == "" {
				line["BillingCycle"] = cycle
			}
			if line["BillAccountID"] == "" {
				line["BillAccountID"] = account
			}
			// DescribeInstanceBill has no line id: the instance, its billing
			// item and (daily lines) the day name the line.
			line[ledger.LineIDColumn] = strings.Trim(line["InstanceID"]+"/"+line["BillingItemCode"]+"/"+line["BillingDate"], "/")
			lines = append(lines, line)
		}
		pages++
		if o.OnPage != nil {
			o.OnPage(pages, len(lines))
		}
		next, err := data.scalar("NextToken")
		if err != nil {
			return nil, nil, err
		}
		if next == "" {
			break
		}
		if next == token {
			return nil, nil, shapeError(aliyunAPI.api, "Data.NextToken", "repeats the token of the page it came with")
		}
		token = next
	}
	header, rows := table(aliyunFields, lines)
	return header, rows, nil
}

// aliyunCheck reads one response: its Data object, or the API error.
func aliyunCheck(status int, b []byte) (record, error) {
	top, err := decodeObject(aliyunAPI.api, b)
	if err != nil {
		if status == http.StatusTooManyRequests || status >= 500 {
			return record{}, &apiError{status: status, code: strconv.Itoa(status), message: http.StatusText(status), retry: true}
		}
		return record{}, err
	}
	code, _ := top.scalar("Code")
	success, _ := top.scalar("Success")
	if status != http.StatusOK || (success != "true" && code != "Success" && code != "200") {
		return record{}, aliyunError(status, top)
	}
	return top.object("Data")
}

// aliyunError is the API error a response carries, classified.
func aliyunError(status int, top record) *apiError {
	code, _ := top.scalar("Code")
	msg, _ := top.scalar("Message")
	ae := &apiError{status: status, code: code, message: msg}
	switch {
	case strings.HasPrefix(code, "Throttling"), code == "ServiceUnavailable", code == "InternalError",
		status == http.StatusTooManyRequests, status == http.StatusServiceUnavailable:
		ae.retry = true
	case strings.HasPrefix(code, "InvalidAccessKeyId"), strings.HasPrefix(code, "SignatureDoesNotMatch"),
		strings.HasPrefix(code, "Forbidden"), strings.HasPrefix(code, "NoPermission"), code == "NotAuthorized",
		strings.HasPrefix(code, "InvalidAccessKeySecret"), status == http.StatusForbidden:
		ae.auth = true
	}
	return ae
}

// nonce is a fresh SignatureNonce: 阿里云 refuses one used before.
func nonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

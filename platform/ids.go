package platform

import "strings"

// idHeaders are the bill columns that hold a platform's own identifier of
// a charge, normalised as IDHeader reads a header: support finds a charge
// by its order, transaction or bill id, not by a row number in the user's
// file.
var idHeaders = map[string]bool{
	"交易id": true, "交易号": true, "交易流水号": true, "流水号": true,
	"订单id": true, "订单号": true, "子订单号": true, "订单号/交易号": true,
	"账单id": true, "账单明细id": true, "明细id": true,
	"billid": true, "billdetailid": true, "orderid": true, "transactionid": true, "invoiceid": true,
	"实例uuid": true, "uuid": true, "instanceuuid": true,
	// an instance or resource id: a ticket quotes it where it is not the claim's own
	"实例id": true, "资源id": true, "instanceid": true, "resourceid": true,
}

// IDHeader reports whether a bill's column header names such an
// identifier (case, spaces and a unit in brackets aside).
func IDHeader(h string) bool {
	h = strings.ToLower(strings.Join(strings.Fields(h), ""))
	if i := strings.IndexAny(h, "(（"); i > 0 {
		h = h[:i]
	}
	return idHeaders[h]
}

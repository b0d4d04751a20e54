package fetch

import (
	"encoding/hex"
	"net/url"
	"sort"
	"strings"
)

// VolcV4 signs a 火山引擎 OpenAPI request with its HMAC-SHA256 ("V4")
// signature (volcengine.com/docs/6369/67270 "签名方法"): the canonical
// request over the method, path, sorted query, the signed headers
// content-type, host, x-content-sha256 and x-date, and the body's hash; the
// key derived from the secret by the short date, region, service and
// "request". It returns the Authorization header value.
func VolcV4(accessKey, secretKey, region, service, method, host, path string, query url.Values, contentType string,
	body []byte, xDate string) string {
	short := xDate[:8]
	scope := short + "/" + region + "/" + service + "/request"
	return "HMAC-SHA256 Credential=" + accessKey + "/" + scope + ", SignedHeaders=" + volcSignedHeaders +
		", Signature=" + VolcV4Signature(secretKey, region, service, method, host, path, query, contentType, body, xDate)
}

const volcSignedHeaders = "content-type;host;x-content-sha256;x-date"

// VolcV4StringToSign is the string VolcV4 signs.
func VolcV4StringToSign(region, service, method, host, path string, query url.Values, contentType string, body []byte, xDate string) string {
	bodyHash := sha256Hex(body)
	canonical := method + "\n" + path + "\n" + volcQuery(query) + "\n" +
		"content-type:" + strings.TrimSpace(contentType) + "\n" + "host:" + host + "\n" +
		"x-content-sha256:" + bodyHash + "\n" + "x-date:" + xDate + "\n\n" +
		volcSignedHeaders + "\n" + bodyHash
	return "HMAC-SHA256\n" + xDate + "\n" + xDate[:8] + "/" + region + "/" + service + "/request\n" + sha256Hex([]byte(canonical))
}

// VolcV4Signature is the hex signature of VolcV4.
func VolcV4Signature(secretKey, region, service, method, host, path string, query url.Values, contentType string, body []byte, xDate string) string {
	k := hmacSHA256([]byte(secretKey), xDate[:8])
	k = hmacSHA256(k, region)
	k = hmacSHA256(k, service)
	k = hmacSHA256(k, "request")
	return hex.EncodeToString(hmacSHA256(k, VolcV4StringToSign(region, service, method, host, path, query, contentType, body, xDate)))
}

// volcQuery is the canonical query: names sorted, names and values
// RFC 3986-encoded, joined by & (a name's values keep their order).
func volcQuery(q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		for _, v := range q[k] {
			parts = append(parts, percentEncode(k)+"="+percentEncode(v))
		}
	}
	return strings.Join(parts, "&")
}

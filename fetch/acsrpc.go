package fetch

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"net/url"
	"sort"
	"strings"
	"time"
)

// ACSRPCSignature signs an Alibaba Cloud RPC-style request with signature
// version 1.0, HMAC-SHA1 (help.aliyun.com/document_detail/25492.html, the
// "Request signatures" page of the ECS API): the parameters but Signature,
// sorted and percent-encoded, form the canonical query; the string to sign
// is METHOD&%2F&percentEncode(canonical); the key is the secret plus "&".
func ACSRPCSignature(method string, params url.Values, secret string) string {
	m := hmac.New(sha1.New, []byte(secret+"&"))
	m.Write([]byte(ACSRPCStringToSign(method, params)))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// acsRPCParams are the common parameters of an RPC-style request to
// action of API version, unsigned, with a fresh nonce.
func acsRPCParams(action, version, keyID string, now time.Time) url.Values {
	q := url.Values{}
	q.Set("Action", action)
	q.Set("Version", version)
	q.Set("Format", "JSON")
	q.Set("AccessKeyId", keyID)
	q.Set("SignatureMethod", "HMAC-SHA1")
	q.Set("SignatureVersion", "1.0")
	q.Set("SignatureNonce", nonce())
	q.Set("Timestamp", now.UTC().Format("2006-01-02T15:04:05Z"))
	return q
}

// ACSRPCStringToSign is the string that ACSRPCSignature signs.
func ACSRPCStringToSign(method string, params url.Values) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		if k != "Signature" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(percentEncode(k))
		b.WriteByte('=')
		b.WriteString(percentEncode(params.Get(k)))
	}
	return method + "&" + percentEncode("/") + "&" + percentEncode(b.String())
}

// percentEncode is RFC 3986 encoding as Alibaba Cloud specifies it: only
// A–Z a–z 0–9 - _ . ~ stay; a space is %20, * is %2A.
func percentEncode(s string) string {
	e := url.QueryEscape(s)
	e = strings.ReplaceAll(e, "+", "%20")
	e = strings.ReplaceAll(e, "*", "%2A")
	return strings.ReplaceAll(e, "%7E", "~")
}

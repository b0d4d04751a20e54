package fetch

import (
	"encoding/hex"
	"net/url"
	"sort"
	"strings"
)

// HuaweiSDKSignature signs a 华为云 API request with SDK-HMAC-SHA256
// (support.huaweicloud.com/devg-apisign/api-sign-algorithm-002.html to
// -004.html): the canonical request over the method, the path with a
// trailing slash, the sorted query, the signed headers (lower-cased names,
// trimmed values, sorted) and the body's hash; the string to sign is
// "SDK-HMAC-SHA256\n" + X-Sdk-Date + "\n" + its hash; the signature is the
// hex HMAC-SHA256 of it under the secret key. headers maps lower-cased
// names to values and must hold host and x-sdk-date. It returns the
// Authorization header value.
//
// The BSS bill client (huaweicloud.go) and the ECS server list
// (huaweiecs.go) sign with it; TestHuaweiSDKWorkedExample checks it against
// the doc's example.
func HuaweiSDKSignature(ak, sk, method, path string, query url.Values, headers map[string]string, body []byte) string {
	names := make([]string, 0, len(headers))
	for k := range headers {
		names = append(names, k)
	}
	sort.Strings(names)
	signed := strings.Join(names, ";")
	return "SDK-HMAC-SHA256 Access=" + ak + ", SignedHeaders=" + signed + ", Signature=" +
		hex.EncodeToString(hmacSHA256([]byte(sk), HuaweiStringToSign(method, path, query, headers, body)))
}

// HuaweiStringToSign is the string HuaweiSDKSignature signs.
func HuaweiStringToSign(method, path string, query url.Values, headers map[string]string, body []byte) string {
	if !strings.HasSuffix(path, "/") {
		path += "/"
	}
	names := make([]string, 0, len(headers))
	for k := range headers {
		names = append(names, k)
	}
	sort.Strings(names)
	var ch strings.Builder
	for _, k := range names {
		ch.WriteString(k + ":" + strings.TrimSpace(headers[k]) + "\n")
	}
	canonical := method + "\n" + path + "\n" + volcQuery(query) + "\n" + ch.String() + "\n" + strings.Join(names, ";") + "\n" + sha256Hex(body)
	return "SDK-HMAC-SHA256\n" + headers["x-sdk-date"] + "\n" + sha256Hex([]byte(canonical))
}

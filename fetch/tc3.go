package fetch

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// TC3 signs a Tencent Cloud API 3.0 request with TC3-HMAC-SHA256 (腾讯云
// "签名方法 v3", cloud.tencent.com/document/api/213/30654): a POST to "/"
// with a JSON body, signing the content-type and host headers. It returns
// the Authorization header value.
func TC3(secretID, secretKey, service, host, contentType string, payload []byte, timestamp int64) string {
	date := time.Unix(timestamp, 0).UTC().Format("2006-01-02")
	scope := date + "/" + service + "/tc3_request"
	return "TC3-HMAC-SHA256 Credential=" + secretID + "/" + scope +
		", SignedHeaders=content-type;host, Signature=" + TC3Signature(secretKey, service, host, contentType, payload, timestamp)
}

// TC3Signature is the hex signature of TC3.
func TC3Signature(secretKey, service, host, contentType string, payload []byte, timestamp int64) string {
	date := time.Unix(timestamp, 0).UTC().Format("2006-01-02")
	// Header values are lower-cased and trimmed in the canonical request.
	canonical := "POST\n/\n\ncontent-type:" + strings.ToLower(strings.TrimSpace(contentType)) + "\nhost:" +
		strings.ToLower(host) + "\n\ncontent-type;host\n" + sha256Hex(payload)
	toSign := "TC3-HMAC-SHA256\n" + strconv.FormatInt(timestamp, 10) + "\n" + date + "/" + service + "/tc3_request\n" +
		sha256Hex([]byte(canonical))
	k := hmacSHA256([]byte("TC3"+secretKey), date)
	k = hmacSHA256(k, service)
	k = hmacSHA256(k, "tc3_request")
	return hex.EncodeToString(hmacSHA256(k, toSign))
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func hmacSHA256(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

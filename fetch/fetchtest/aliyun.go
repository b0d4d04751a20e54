package fetchtest

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Aliyun is a fake 阿里云 BssOpenApi serving DescribeInstanceBill for one
// billing cycle, signed with the RPC signature v1.0 (HMAC-SHA1) as
// help.aliyun.com/document_detail/25492.html documents it; a signature
// nonce may be used once.
type Aliyun struct {
	AccessKeyID, AccessKeySecret string
	BillingCycle, AccountID      string
	Items                        []map[string]any // amounts as json.Number, as the API sends numbers
	PageSize                     int              // at most this many per page (0: MaxResults)
	Deny                         bool             // the RAM user lacks bss:DescribeInstanceBill
	Now                          func() time.Time

	faults
	mu       sync.Mutex
	nonces   map[string]bool
	Requests int
}

// FaultAt queues faults for the page that starts at item index start (0 =
// the first page, requested without NextToken).
func (f *Aliyun) FaultAt(start int, fs ...Fault) { f.add(strconv.Itoa(start), fs...) }

func (f *Aliyun) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.Requests++
	reqID := fmt.Sprintf("FAKE-ALI-%04d", f.Requests)
	f.mu.Unlock()
	send := func(status int, v map[string]any) {
		v["RequestId"] = reqID
		w.Header().Set("Content-Type", "application/json;charset=utf-8")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	fail := func(status int, code, msg string) {
		send(status, map[string]any{"HostId": r.Host, "Code": code, "Message": msg,
			"Recommend": "https://api.aliyun.com/troubleshoot?q=" + code})
	}
	q := r.URL.Query()
	if r.Method != http.MethodGet || r.URL.Path != "/" {
		fail(400, "InvalidParameter", "GET / only")
		return
	}
	if status, code, msg := f.verify(q); code != "" {
		fail(status, code, msg)
		return
	}
	if q.Get("Action") != "DescribeInstanceBill" || q.Get("Version") != "2017-12-14" {
		fail(404, "InvalidAction.NotFound", "Specified api is not found, please check your url and method.")
		return
	}
	if f.Deny {
		fail(403, "Forbidden.RAM", "User not authorized to operate on the specified resource, or this API doesn't support RAM.")
		return
	}
	max, err := strconv.Atoi(q.Get("MaxResults"))
	if err != nil || max < 1 || max > 300 {
		fail(400, "InvalidParameter.MaxResults", "MaxResults must be between 1 and 300.")
		return
	}
	if q.Get("BillingCycle") != f.BillingCycle || q.Get("IsBillingItem") != "true" {
		fail(400, "InvalidParameter", "BillingCycle or IsBillingItem not as this fake serves")
		return
	}
	start := 0
	if t := q.Get("NextToken"); t != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(t, "tok-"))
		if err != nil || !strings.HasPrefix(t, "tok-") || n <= 0 || n > len(f.Items) {
			fail(400, "InvalidParameter.NextToken", "The NextToken is invalid.")
			return
		}
		start = n
	}
	if f.serve(w, r, strconv.Itoa(start), "application/json;charset=utf-8", func() { fail(400, "Throttling.User", "Request was denied due to user flow control.") }) {
		return
	}
	size := max
	if f.PageSize > 0 && f.PageSize < size {
		size = f.PageSize
	}
	end := min(start+size, len(f.Items))
	next := ""
	if end < len(f.Items) {
		next = "tok-" + strconv.Itoa(end)
	}
	send(200, map[string]any{"Code": "Success", "Message": "Successful!", "Success": true, "Data": map[string]any{
		"BillingCycle": f.BillingCycle, "AccountID": f.AccountID, "AccountName": "fake", "TotalCount": len(f.Items),
		"MaxResults": max, "NextToken": next, "Items": f.Items[start:end]}})
}

// verify checks the common parameters and the signature of a request.
func (f *Aliyun) verify(q url.Values) (int, string, string) {
	for _, k := range []string{"Format", "Version", "AccessKeyId", "SignatureMethod", "SignatureVersion", "SignatureNonce", "Timestamp", "Signature"} {
		if q.Get(k) == "" {
			return 400, "MissingParameter", "The input parameter \"" + k + "\" that is mandatory for processing this request is not supplied."
		}
	}
	if q.Get("AccessKeyId") != f.AccessKeyID {
		return 404, "InvalidAccessKeyId.NotFound", "Specified access key is not found."
	}
	if q.Get("SignatureMethod") != "HMAC-SHA1" || q.Get("SignatureVersion") != "1.0" {
		return 400, "InvalidParameter", "SignatureMethod or SignatureVersion not supported by this fake"
	}
	ts, err := time.Parse("2006-01-02T15:04:05Z", q.Get("Timestamp"))
	if err != nil {
		return 400, "InvalidTimeStamp.Format", "Specified time stamp or date value is not well formatted."
	}
	now := time.Now()
	if f.Now != nil {
		now = f.Now()
	}
	if d := now.Sub(ts); d > 15*time.Minute || d < -15*time.Minute {
		return 400, "InvalidTimeStamp.Expired", "Specified time stamp or date value is expired."
	}
	// StringToSign = GET&%2F&percentEncode(sorted canonical query).
	enc := func(s string) string {
		return strings.NewReplacer("+", "%20", "*", "%2A", "%7E", "~").Replace(url.QueryEscape(s))
	}
	var keys []string
	for k := range q {
		if k != "Signature" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var pairs []string
	for _, k := range keys {
		pairs = append(pairs, enc(k)+"="+enc(q.Get(k)))
	}
	m := hmac.New(sha1.New, []byte(f.AccessKeySecret+"&"))
	m.Write([]byte("GET&%2F&" + enc(strings.Join(pairs, "&"))))
	if want := base64.StdEncoding.EncodeToString(m.Sum(nil)); !hmac.Equal([]byte(want), []byte(q.Get("Signature"))) {
		return 400, "SignatureDoesNotMatch", "Specified signature is not matched with our calculation."
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.nonces == nil {
		f.nonces = map[string]bool{}
	}
	if f.nonces[q.Get("SignatureNonce")] {
		return 400, "SignatureNonceUsed", "Specified signature nonce was used already."
	}
	f.nonces[q.Get("SignatureNonce")] = true
	return 0, "", ""
}

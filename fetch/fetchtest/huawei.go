package fetchtest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Huawei is a fake 华为云 BSS serving ListCustomerselfResourceRecords (GET
// /v2/bills/customer-bills/res-fee-records) for one cycle and
// ListMeasureUnits (GET /v2/bases/measurements), each request signed with
// SDK-HMAC-SHA256 as support.huaweicloud.com/devg-apisign documents it and
// refused with the API gateway's error JSON otherwise.
type Huawei struct {
	AK, SK   string
	Cycle    string
	DomainID string // when set, X-Domain-Id must be this
	Records  []map[string]any
	Measures map[int]string // measure_id → measure_name
	PageSize int            // at most this many per page (0: limit)
	Deny     bool           // the user lacks billing:billDetail:view
	Now      func() time.Time

	faults
	mu       sync.Mutex
	Requests int
}

// FaultAt queues faults for the page at offset.
func (f *Huawei) FaultAt(offset int, fs ...Fault) { f.add(strconv.Itoa(offset), fs...) }

func (f *Huawei) count() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Requests++
	return fmt.Sprintf("fakehw%08d", f.Requests)
}

func (f *Huawei) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reqID := f.count()
	body, _ := io.ReadAll(r.Body)
	if status, code, msg := verifySDKHMAC(r, body, f.AK, f.SK, f.Now); code != "" {
		huaweiFail(w, status, code, msg, reqID)
		return
	}
	if f.DomainID != "" && r.Header.Get("X-Domain-Id") != f.DomainID {
		huaweiFail(w, http.StatusForbidden, "CBC.0151", "访问拒绝。", reqID)
		return
	}
	if r.Method != http.MethodGet {
		huaweiFail(w, http.StatusNotFound, "APIGW.0101", "The API does not exist or has not been published in the environment", reqID)
		return
	}
	switch r.URL.Path {
	case "/v2/bases/measurements":
		var units []map[string]any
		ids := make([]int, 0, len(f.Measures))
		for id := range f.Measures {
			ids = append(ids, id)
		}
		sort.Ints(ids)
		for _, id := range ids {
			units = append(units, map[string]any{"measure_id": id, "measure_name": f.Measures[id], "abbreviation": f.Measures[id], "measure_type": 2})
		}
		huaweiSend(w, http.StatusOK, map[string]any{"measure_units": units})
		return
	case "/v2/bills/customer-bills/res-fee-records":
	default:
		huaweiFail(w, http.StatusNotFound, "APIGW.0101", "The API does not exist or has not been published in the environment", reqID)
		return
	}
	if f.Deny {
		huaweiFail(w, http.StatusForbidden, "CBC.0151", "访问拒绝。", reqID)
		return
	}
	q := r.URL.Query()
	offset, err1 := strconv.Atoi(q.Get("offset"))
	limit, err2 := strconv.Atoi(q.Get("limit"))
	if err1 != nil || err2 != nil || offset < 0 || limit < 1 || limit > 1000 || q.Get("cycle") != f.Cycle || q.Get("statistic_type") != "3" {
		huaweiFail(w, http.StatusBadRequest, "CBC.0100", "参数错误。", reqID)
		return
	}
	if f.serve(w, r, strconv.Itoa(offset), "application/json;charset=UTF-8", func() {
		huaweiFail(w, http.StatusTooManyRequests, "APIGW.0308", "The throttling threshold has been reached: policy user over ratelimit,limit:30,time:1 second", reqID)
	}) {
		return
	}
	size := limit
	if f.PageSize > 0 && f.PageSize < size {
		size = f.PageSize
	}
	recs := []map[string]any{}
	if offset < len(f.Records) {
		recs = f.Records[offset:min(offset+size, len(f.Records))]
	}
	huaweiSend(w, http.StatusOK, map[string]any{"fee_records": recs, "total_count": len(f.Records), "currency": "CNY"})
}

func huaweiSend(w http.ResponseWriter, status int, v map[string]any) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func huaweiFail(w http.ResponseWriter, status int, code, msg, reqID string) {
	huaweiSend(w, status, map[string]any{"error_code": code, "error_msg": msg, "request_id": reqID})
}

// verifySDKHMAC checks an SDK-HMAC-SHA256 signature the way the API
// gateway does: the key, X-Sdk-Date within 15 minutes, host and x-sdk-date
// among the signed headers, and the signature over the canonical request
// (the path with a trailing slash, the sorted query, the signed headers,
// the body's hash).
func verifySDKHMAC(r *http.Request, body []byte, ak, sk string, clock func() time.Time) (int, string, string) {
	const prefix = "SDK-HMAC-SHA256 "
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, prefix) {
		return 401, "APIGW.0301", "Incorrect IAM authentication information: Authorization header is missing or not SDK-HMAC-SHA256"
	}
	parts := map[string]string{}
	for _, kv := range strings.Split(strings.TrimPrefix(auth, prefix), ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		parts[k] = v
	}
	if parts["Access"] != ak {
		return 401, "APIGW.0301", "Incorrect IAM authentication information: ak " + parts["Access"] + " not found"
	}
	date := r.Header.Get("X-Sdk-Date")
	t, err := time.Parse("20060102T150405Z", date)
	if err != nil {
		return 401, "APIGW.0301", "Incorrect IAM authentication information: x-sdk-date is malformed"
	}
	now := time.Now()
	if clock != nil {
		now = clock()
	}
	if d := now.Sub(t); d > 15*time.Minute || d < -15*time.Minute {
		return 401, "APIGW.0303", "Incorrect IAM authentication information: request expired, time:" + date
	}
	signed := strings.Split(parts["SignedHeaders"], ";")
	has := map[string]bool{}
	for _, h := range signed {
		has[h] = true
	}
	if !has["host"] || !has["x-sdk-date"] || !sort.StringsAreSorted(signed) {
		return 401, "APIGW.0301", "Incorrect IAM authentication information: host and x-sdk-date must be signed, names sorted"
	}
	path := r.URL.EscapedPath()
	if !strings.HasSuffix(path, "/") {
		path += "/"
	}
	enc := func(s string) string {
		return strings.NewReplacer("+", "%20", "*", "%2A", "%7E", "~").Replace(url.QueryEscape(s))
	}
	q := r.URL.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var qs []string
	for _, k := range keys {
		vs := append([]string(nil), q[k]...)
		sort.Strings(vs)
		for _, v := range vs {
			qs = append(qs, enc(k)+"="+enc(v))
		}
	}
	var ch strings.Builder
	for _, h := range signed {
		v := r.Header.Get(h)
		if h == "host" {
			v = r.Host
		}
		ch.WriteString(h + ":" + strings.TrimSpace(v) + "\n")
	}
	sum := sha256.Sum256(body)
	canonical := strings.Join([]string{r.Method, path, strings.Join(qs, "&"), ch.String(), parts["SignedHeaders"], hex.EncodeToString(sum[:])}, "\n")
	csum := sha256.Sum256([]byte(canonical))
	mac := hmac.New(sha256.New, []byte(sk))
	mac.Write([]byte("SDK-HMAC-SHA256\n" + date + "\n" + hex.EncodeToString(csum[:])))
	if !hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(parts["Signature"])) {
		return 401, "APIGW.0301", "Incorrect IAM authentication information: verify aksk signature fail"
	}
	return 0, "", ""
}

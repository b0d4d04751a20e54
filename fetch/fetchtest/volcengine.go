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

// Volcengine is a fake 火山引擎 billing OpenAPI serving ListBillDetail
// (version 2022-01-01) for one BillPeriod, signed with the HMAC-SHA256
// signature as volcengine.com/docs/6369/67270 documents it.
type Volcengine struct {
	AccessKey, SecretKey string
	BillPeriod           string
	Items                []map[string]any
	PageSize             int  // at most this many per page (0: Limit)
	Deny                 bool // the user lacks billing:ListBillDetail
	Now                  func() time.Time

	faults
	mu       sync.Mutex
	Requests int
}

// FaultAt queues faults for the page at offset.
func (f *Volcengine) FaultAt(offset int, fs ...Fault) { f.add(strconv.Itoa(offset), fs...) }

func (f *Volcengine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.Requests++
	reqID := fmt.Sprintf("2026FAKEVOLC%04d", f.Requests)
	f.mu.Unlock()
	meta := map[string]any{"RequestId": reqID, "Action": r.URL.Query().Get("Action"), "Version": r.URL.Query().Get("Version"),
		"Service": "billing", "Region": "cn-north-1"}
	send := func(status int, v map[string]any) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	fail := func(status int, code, msg string) {
		meta["Error"] = map[string]any{"CodeN": 100000 + status, "Code": code, "Message": msg}
		send(status, map[string]any{"ResponseMetadata": meta})
	}
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/" {
		fail(400, "InvalidActionOrVersion", "POST / only")
		return
	}
	if status, code, msg := f.verify(r, body); code != "" {
		fail(status, code, msg)
		return
	}
	if q := r.URL.Query(); q.Get("Action") != "ListBillDetail" || q.Get("Version") != "2022-01-01" {
		fail(404, "InvalidActionOrVersion", "Could not find operation "+q.Get("Action")+" for version "+q.Get("Version"))
		return
	}
	if f.Deny {
		fail(403, "AccessDenied", "User is not authorized to perform: billing:ListBillDetail")
		return
	}
	var p struct {
		BillPeriod                   string
		Limit, Offset, NeedRecordNum int
	}
	if err := json.Unmarshal(body, &p); err != nil || p.Limit < 1 || p.Limit > 300 || p.Offset < 0 || p.BillPeriod != f.BillPeriod {
		fail(400, "RequestInvalid", "Request Invalid")
		return
	}
	if f.serve(w, r, strconv.Itoa(p.Offset), "application/json; charset=utf-8", func() {
		fail(429, "FlowLimitExceeded", "Your request is denied due to flow limit. Please try again later.")
	}) {
		return
	}
	size := p.Limit
	if f.PageSize > 0 && f.PageSize < size {
		size = f.PageSize
	}
	list := []map[string]any{}
	if p.Offset < len(f.Items) {
		list = f.Items[p.Offset:min(p.Offset+size, len(f.Items))]
	}
	total := -1
	if p.NeedRecordNum == 1 {
		total = len(f.Items)
	}
	send(200, map[string]any{"ResponseMetadata": meta, "Result": map[string]any{"List": list, "Total": total, "Limit": p.Limit, "Offset": p.Offset}})
}

// verify checks the signature: the credential, X-Date within 15 minutes,
// the body hash, and the signature over the canonical request.
func (f *Volcengine) verify(r *http.Request, body []byte) (int, string, string) {
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "HMAC-SHA256 ") {
		return 401, "MissingAuthenticationToken", "Request is missing Authentication Token"
	}
	parts := map[string]string{}
	for _, kv := range strings.Split(strings.TrimPrefix(auth, "HMAC-SHA256 "), ", ") {
		k, v, _ := strings.Cut(kv, "=")
		parts[k] = v
	}
	cred := strings.Split(parts["Credential"], "/")
	if len(cred) != 5 || cred[4] != "request" {
		return 401, "InvalidCredential", "The credential is malformed"
	}
	if cred[0] != f.AccessKey {
		return 401, "InvalidAccessKey", "The request signature we calculated does not match the signature you provided. Check your Secret Access Key and signing method. Consult the service documentation for details."
	}
	xDate := r.Header.Get("X-Date")
	t, err := time.Parse("20060102T150405Z", xDate)
	if err != nil {
		return 400, "InvalidTimestamp", "The X-Date is malformed"
	}
	now := time.Now()
	if f.Now != nil {
		now = f.Now()
	}
	if d := now.Sub(t); d > 15*time.Minute || d < -15*time.Minute {
		return 401, "InvalidTimestamp", "The request timestamp is out of range"
	}
	sum := sha256.Sum256(body)
	bodyHash := hex.EncodeToString(sum[:])
	if r.Header.Get("X-Content-Sha256") != bodyHash {
		return 400, "InvalidRequestBody", "X-Content-Sha256 does not match the body"
	}
	if cred[1] != xDate[:8] {
		return 401, "SignatureDoesNotMatch", "The credential date does not match X-Date"
	}
	enc := func(s string) string {
		return strings.NewReplacer("+", "%20", "*", "%2A", "%7E", "~").Replace(url.QueryEscape(s))
	}
	q := r.URL.Query()
	var keys []string
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var qs []string
	for _, k := range keys {
		for _, v := range q[k] {
			qs = append(qs, enc(k)+"="+enc(v))
		}
	}
	var ch strings.Builder
	for _, h := range strings.Split(parts["SignedHeaders"], ";") {
		v := r.Header.Get(h)
		if h == "host" {
			v = r.Host
		}
		ch.WriteString(h + ":" + strings.TrimSpace(v) + "\n")
	}
	canonical := strings.Join([]string{r.Method, "/", strings.Join(qs, "&"), ch.String(), parts["SignedHeaders"], bodyHash}, "\n")
	csum := sha256.Sum256([]byte(canonical))
	toSign := "HMAC-SHA256\n" + xDate + "\n" + strings.Join(cred[1:], "/") + "\n" + hex.EncodeToString(csum[:])
	mac := func(k []byte, s string) []byte { m := hmac.New(sha256.New, k); m.Write([]byte(s)); return m.Sum(nil) }
	k := mac(mac(mac(mac([]byte(f.SecretKey), cred[1]), cred[2]), cred[3]), "request")
	if !hmac.Equal([]byte(hex.EncodeToString(mac(k, toSign))), []byte(parts["Signature"])) {
		return 401, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided."
	}
	return 0, "", ""
}

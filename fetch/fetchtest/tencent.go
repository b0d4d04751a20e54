package fetchtest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Tencent is a fake 腾讯云 billing API serving DescribeBillDetail for one
// month (cloud.tencent.com/document/api/555/19182 for the shapes,
// /document/api/213/30654 for the signature).
type Tencent struct {
	SecretID, SecretKey string
	Month               string
	Details             []map[string]any // the month's BillDetail objects
	PageSize            int              // at most this many per page (0: as asked, ≤ 100)
	Deny                bool             // the key lacks the permission: UnauthorizedOperation
	Now                 func() time.Time

	faults
	mu       sync.Mutex
	Requests int // requests received (all, refused ones too)
}

// FaultAt queues faults for the page at offset.
func (f *Tencent) FaultAt(offset int, fs ...Fault) { f.add(strconv.Itoa(offset), fs...) }

func (f *Tencent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.Requests++
	n := f.Requests
	f.mu.Unlock()
	reqID := fmt.Sprintf("fake-tc-%d", n)
	fail := func(code, msg string) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"Response": map[string]any{
			"Error": map[string]any{"Code": code, "Message": msg}, "RequestId": reqID}})
	}
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/" {
		fail("InvalidParameter", "POST / only")
		return
	}
	if code, msg := f.verify(r, body); code != "" {
		fail(code, msg)
		return
	}
	if r.Header.Get("X-TC-Action") != "DescribeBillDetail" || r.Header.Get("X-TC-Version") != "2018-07-09" {
		fail("InvalidAction", "The requested action is not supported by this fake: "+r.Header.Get("X-TC-Action"))
		return
	}
	if f.Deny {
		fail("UnauthorizedOperation", "you are not authorized to perform operation (finance:DescribeBillDetail)")
		return
	}
	var p struct {
		Offset, Limit, NeedRecordNum int
		Month, PeriodType            string
	}
	if err := json.Unmarshal(body, &p); err != nil {
		fail("InvalidParameter", "body is not JSON")
		return
	}
	if p.Limit < 1 || p.Limit > 100 {
		fail("InvalidParameterValue.Limit", "Limit must be between 1 and 100")
		return
	}
	if p.Offset < 0 || p.Month != f.Month {
		fail("InvalidParameterValue", "Offset or Month out of range")
		return
	}
	if f.serve(w, r, strconv.Itoa(p.Offset), "application/json", func() {
		fail("RequestLimitExceeded", "Your current request times equals to `21` in a second, which exceeds the frequency limit `20` for a second. Please reduce the frequency of calls.")
	}) {
		return
	}
	size := p.Limit
	if f.PageSize > 0 && f.PageSize < size {
		size = f.PageSize
	}
	end := min(p.Offset+size, len(f.Details))
	page := []map[string]any{}
	if p.Offset < len(f.Details) {
		page = f.Details[p.Offset:end]
	}
	resp := map[string]any{"DetailSet": page, "RequestId": reqID}
	if p.NeedRecordNum == 1 {
		resp["Total"] = len(f.Details)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"Response": resp})
}

// verify checks the TC3-HMAC-SHA256 signature as Tencent documents it: the
// credential scope, the timestamp within 5 minutes, and the signature of
// the canonical request over the signed headers and the body.
func (f *Tencent) verify(r *http.Request, body []byte) (code, msg string) {
	return verifyTC3(r, body, f.SecretID, f.SecretKey, "billing", f.Now)
}

// verifyTC3 checks a TC3-HMAC-SHA256 request of service.
func verifyTC3(r *http.Request, body []byte, secretID, secretKey, service string, nowFn func() time.Time) (code, msg string) {
	auth := r.Header.Get("Authorization")
	const alg = "TC3-HMAC-SHA256 "
	if !strings.HasPrefix(auth, alg) {
		return "AuthFailure.InvalidAuthorization", "Authorization is not TC3-HMAC-SHA256"
	}
	parts := map[string]string{}
	for _, kv := range strings.Split(auth[len(alg):], ", ") {
		k, v, _ := strings.Cut(kv, "=")
		parts[k] = v
	}
	cred := strings.Split(parts["Credential"], "/")
	if len(cred) != 4 || cred[3] != "tc3_request" {
		return "AuthFailure.InvalidAuthorization", "Credential is malformed"
	}
	if cred[0] != secretID {
		return "AuthFailure.SecretIdNotFound", "The SecretId is not found, please ensure that your SecretId is correct."
	}
	ts, err := strconv.ParseInt(r.Header.Get("X-TC-Timestamp"), 10, 64)
	if err != nil {
		return "MissingParameter", "X-TC-Timestamp"
	}
	now := time.Now()
	if nowFn != nil {
		now = nowFn()
	}
	if d := now.Unix() - ts; d > 300 || d < -300 {
		return "AuthFailure.SignatureExpire", "The signature expired."
	}
	date := time.Unix(ts, 0).UTC().Format("2006-01-02")
	if cred[1] != date || cred[2] != service {
		return "AuthFailure.SignatureFailure", "The credential scope does not match the request date or service."
	}
	signed := strings.Split(parts["SignedHeaders"], ";")
	var ch strings.Builder
	for _, h := range signed {
		v := r.Header.Get(h)
		if h == "host" {
			v = r.Host
		}
		ch.WriteString(h + ":" + strings.ToLower(strings.TrimSpace(v)) + "\n")
	}
	sum := sha256.Sum256(body)
	canonical := strings.Join([]string{r.Method, "/", "", ch.String(), parts["SignedHeaders"], hex.EncodeToString(sum[:])}, "\n")
	csum := sha256.Sum256([]byte(canonical))
	toSign := "TC3-HMAC-SHA256\n" + strconv.FormatInt(ts, 10) + "\n" + date + "/" + service + "/tc3_request\n" + hex.EncodeToString(csum[:])
	mac := func(k []byte, s string) []byte { m := hmac.New(sha256.New, k); m.Write([]byte(s)); return m.Sum(nil) }
	k := mac(mac(mac([]byte("TC3"+secretKey), date), service), "tc3_request")
	if !hmac.Equal([]byte(hex.EncodeToString(mac(k, toSign))), []byte(parts["Signature"])) {
		return "AuthFailure.SignatureFailure", "The provided credentials could not be validated. Please check your signature is correct."
	}
	return "", ""
}

package fetchtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Instance is one scripted instance of the instance-API fakes: its states
// over time, read at the fake's clock.
type Instance struct {
	ID, Name, Type string
	GPUModel       string
	GPUCount       int
	Prepaid        bool
	Created        time.Time
	// Phases, in order: from At on, the instance is in State (running,
	// stopped, starting, stopping, or gone: no longer listed). Before the
	// first phase it does not exist.
	Phases []Phase
}

// Phase is a state from a time on.
type Phase struct {
	At    time.Time
	State string
}

// at is the instance's state at now and since when it has been running
// (the start of the current run of "running" phases); ok false when it
// does not exist then.
func (in Instance) at(now time.Time) (state string, started time.Time, ok bool) {
	for _, p := range in.Phases {
		if p.At.After(now) {
			break
		}
		if p.State == "running" && state != "running" {
			started = p.At
		}
		state = p.State
	}
	return state, started, state != "" && state != "gone"
}

// instances is what both fakes share: the script, the clock, paging.
type instances struct {
	Instances []Instance
	PageSize  int // at most this many per page (0: as asked)
	Deny      bool
	Now       func() time.Time

	mu       sync.Mutex
	Requests int
}

func (f *instances) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

func (f *instances) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Requests++
	return f.Requests
}

// listed are the instances that exist at the fake's now, with their state.
func (f *instances) listed() (out []Instance, states []string, starts []time.Time) {
	now := f.now()
	for _, in := range f.Instances {
		if s, st, ok := in.at(now); ok {
			out, states, starts = append(out, in), append(states, s), append(starts, st)
		}
	}
	return out, states, starts
}

// CVM is a fake 腾讯云 CVM DescribeInstances (version 2017-03-12), signed
// with TC3-HMAC-SHA256 for service cvm; it wants X-TC-Region = Region.
type CVM struct {
	SecretID, SecretKey, Region string
	instances
}

// NewCVM is a CVM fake with a script and a clock.
func NewCVM(id, key, region string, now func() time.Time, ins ...Instance) *CVM {
	return &CVM{SecretID: id, SecretKey: key, Region: region, instances: instances{Instances: ins, Now: now}}
}

func (f *CVM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reqID := fmt.Sprintf("fake-cvm-%d", f.count())
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
	if code, msg := verifyTC3(r, body, f.SecretID, f.SecretKey, "cvm", f.Now); code != "" {
		fail(code, msg)
		return
	}
	if r.Header.Get("X-TC-Action") != "DescribeInstances" || r.Header.Get("X-TC-Version") != "2017-03-12" {
		fail("InvalidAction", "The requested action is not supported by this fake: "+r.Header.Get("X-TC-Action"))
		return
	}
	if r.Header.Get("X-TC-Region") != f.Region {
		fail("InvalidParameterValue.Region", "The region `"+r.Header.Get("X-TC-Region")+"` is not served by this fake")
		return
	}
	if f.Deny {
		fail("UnauthorizedOperation", "you are not authorized to perform operation (cvm:DescribeInstances)")
		return
	}
	var p struct{ Offset, Limit int }
	if err := json.Unmarshal(body, &p); err != nil {
		fail("InvalidParameter", "body is not JSON")
		return
	}
	if p.Limit < 1 || p.Limit > 100 || p.Offset < 0 {
		fail("InvalidParameterValue.Limit", "Limit must be between 1 and 100")
		return
	}
	ins, states, _ := f.listed()
	size := p.Limit
	if f.PageSize > 0 && f.PageSize < size {
		size = f.PageSize
	}
	set := []map[string]any{}
	for i := p.Offset; i < min(p.Offset+size, len(ins)); i++ {
		in := ins[i]
		charge := "POSTPAID_BY_HOUR"
		if in.Prepaid {
			charge = "PREPAID"
		}
		m := map[string]any{"InstanceId": in.ID, "InstanceName": in.Name, "InstanceType": in.Type,
			"InstanceState": cvmState[states[i]], "InstanceChargeType": charge,
			"CreatedTime": in.Created.UTC().Format(time.RFC3339), "Placement": map[string]any{"Zone": f.Region + "-3"}}
		if in.GPUCount > 0 {
			m["GPUInfo"] = map[string]any{"GPUCount": in.GPUCount, "GPUType": in.GPUModel, "GPUId": []string{}}
		}
		set = append(set, m)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"Response": map[string]any{
		"TotalCount": len(ins), "InstanceSet": set, "RequestId": reqID}})
}

var cvmState = map[string]string{"running": "RUNNING", "stopped": "STOPPED", "starting": "STARTING", "stopping": "STOPPING"}

// ECS is a fake 阿里云 ECS DescribeInstances (version 2014-05-26) for one
// RegionId, signed with the RPC signature v1.0 (HMAC-SHA1).
type ECS struct {
	AccessKeyID, AccessKeySecret, Region string
	instances
	sig Aliyun // the signature and nonce checks of the bill fake
}

// NewECS is an ECS fake with a script and a clock.
func NewECS(id, secret, region string, now func() time.Time, ins ...Instance) *ECS {
	return &ECS{AccessKeyID: id, AccessKeySecret: secret, Region: region, instances: instances{Instances: ins, Now: now},
		sig: Aliyun{AccessKeyID: id, AccessKeySecret: secret, Now: now}}
}

func (f *ECS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reqID := fmt.Sprintf("FAKE-ECS-%04d", f.count())
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
	if status, code, msg := f.sig.verify(q); code != "" {
		fail(status, code, msg)
		return
	}
	if q.Get("Action") != "DescribeInstances" || q.Get("Version") != "2014-05-26" {
		fail(404, "InvalidAction.NotFound", "Specified api is not found, please check your url and method.")
		return
	}
	if q.Get("RegionId") != f.Region {
		fail(400, "InvalidRegionId.NotFound", "The specified RegionId does not exist.")
		return
	}
	// As documented: without the permission the list is empty; DryRun
	// tells.
	if q.Get("DryRun") == "true" {
		if f.Deny {
			fail(403, "Forbidden.RAM", "User not authorized to operate on the specified resource, or this API doesn't support RAM.")
		} else {
			fail(400, "DryRunOperation", "Request validation has been passed with DryRun flag set.")
		}
		return
	}
	page, err1 := strconv.Atoi(q.Get("PageNumber"))
	size, err2 := strconv.Atoi(q.Get("PageSize"))
	if err1 != nil || err2 != nil || page < 1 || size < 1 || size > 100 {
		fail(400, "InvalidParameter", "PageNumber or PageSize is invalid.")
		return
	}
	if f.PageSize > 0 && f.PageSize < size {
		size = f.PageSize // the fake pages smaller than asked; TotalCount still tells
	}
	ins, states, starts := f.listed()
	if f.Deny {
		ins = nil
	}
	list := []map[string]any{}
	for i := (page - 1) * size; i < min(page*size, len(ins)); i++ {
		in := ins[i]
		charge := "PostPaid"
		if in.Prepaid {
			charge = "PrePaid"
		}
		m := map[string]any{"InstanceId": in.ID, "InstanceName": in.Name, "InstanceType": in.Type,
			"Status": ecsState[states[i]], "InstanceChargeType": charge, "RegionId": f.Region,
			"CreationTime": in.Created.UTC().Format("2006-01-02T15:04Z"), "GPUSpec": in.GPUModel, "GPUAmount": in.GPUCount,
			"StoppedMode": "Not-applicable"}
		if !starts[i].IsZero() {
			m["StartTime"] = starts[i].UTC().Format("2006-01-02T15:04Z")
		}
		list = append(list, m)
	}
	send(200, map[string]any{"TotalCount": len(ins), "PageNumber": page, "PageSize": size,
		"Instances": map[string]any{"Instance": list}})
}

var ecsState = map[string]string{"running": "Running", "stopped": "Stopped", "starting": "Starting", "stopping": "Stopping"}

// VolcECS is a fake 火山引擎 ECS DescribeInstances (version 2020-04-01), a
// GET signed with the 火山引擎 HMAC-SHA256 signature whose credential scope
// must name Region and service ecs; paged by MaxResults / NextToken.
type VolcECS struct {
	AccessKey, SecretKey, Region string
	instances
	sig Volcengine // the signature checks of the bill fake
}

// NewVolcECS is a VolcECS fake with a script and a clock.
func NewVolcECS(ak, sk, region string, now func() time.Time, ins ...Instance) *VolcECS {
	return &VolcECS{AccessKey: ak, SecretKey: sk, Region: region, instances: instances{Instances: ins, Now: now},
		sig: Volcengine{AccessKey: ak, SecretKey: sk, Now: now}}
}

func (f *VolcECS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	meta := map[string]any{"RequestId": fmt.Sprintf("2026FAKEVECS%04d", f.count()), "Action": r.URL.Query().Get("Action"),
		"Version": r.URL.Query().Get("Version"), "Service": "ecs", "Region": f.Region}
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
	if r.Method != http.MethodGet || r.URL.Path != "/" {
		fail(400, "InvalidActionOrVersion", "GET / only")
		return
	}
	if status, code, msg := f.sig.verify(r, body); code != "" {
		fail(status, code, msg)
		return
	}
	cred := strings.Split(strings.SplitN(strings.SplitN(r.Header.Get("Authorization"), "Credential=", 2)[1], ",", 2)[0], "/")
	if cred[3] != "ecs" {
		fail(401, "SignatureDoesNotMatch", "The credential scope names service "+cred[3])
		return
	}
	if cred[2] != f.Region { // this fake's own answer: it serves one region
		fail(400, "InvalidParameter.Region", "The region "+cred[2]+" is not served here")
		return
	}
	q := r.URL.Query()
	if q.Get("Action") != "DescribeInstances" || q.Get("Version") != "2020-04-01" {
		fail(404, "InvalidActionOrVersion", "Could not find operation "+q.Get("Action"))
		return
	}
	if f.Deny {
		fail(403, "AccessDenied", "User is not authorized to perform: ecs:DescribeInstances")
		return
	}
	max, err := strconv.Atoi(q.Get("MaxResults"))
	if err != nil || max < 1 || max > 100 {
		fail(400, "InvalidParameter", "MaxResults must be between 1 and 100")
		return
	}
	if f.PageSize > 0 && f.PageSize < max {
		max = f.PageSize
	}
	start := 0
	if t := q.Get("NextToken"); t != "" {
		if start, err = strconv.Atoi(strings.TrimPrefix(t, "vt-")); err != nil || !strings.HasPrefix(t, "vt-") {
			fail(400, "InvalidNextToken", "The NextToken is invalid")
			return
		}
	}
	ins, states, _ := f.listed()
	list := []map[string]any{}
	end := min(start+max, len(ins))
	for i := start; i < end; i++ {
		in := ins[i]
		charge := "PostPaid"
		if in.Prepaid {
			charge = "PrePaid"
		}
		list = append(list, map[string]any{"InstanceId": in.ID, "InstanceName": in.Name, "InstanceTypeId": in.Type,
			"Status": cvmState[states[i]], "InstanceChargeType": charge, "CreatedAt": in.Created.Format(time.RFC3339),
			"ZoneId": f.Region + "-a", "StoppedMode": ""})
	}
	next := ""
	if end < len(ins) {
		next = "vt-" + strconv.Itoa(end)
	}
	send(200, map[string]any{"ResponseMetadata": meta, "Result": map[string]any{"Instances": list, "NextToken": next,
		"TotalCount": len(ins)}})
}

// HuaweiECS is a fake 华为云 ECS ListServersDetails (GET
// /v1/{project_id}/cloudservers/detail) for one project, signed with
// SDK-HMAC-SHA256; paged by offset (page number from 1) / limit.
type HuaweiECS struct {
	AK, SK, ProjectID string
	instances
}

// NewHuaweiECS is a HuaweiECS fake with a script and a clock.
func NewHuaweiECS(ak, sk, project string, now func() time.Time, ins ...Instance) *HuaweiECS {
	return &HuaweiECS{AK: ak, SK: sk, ProjectID: project, instances: instances{Instances: ins, Now: now}}
}

func (f *HuaweiECS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reqID := fmt.Sprintf("fakehwecs%06d", f.count())
	body, _ := io.ReadAll(r.Body)
	if status, code, msg := verifySDKHMAC(r, body, f.AK, f.SK, f.Now); code != "" {
		huaweiFail(w, status, code, msg, reqID)
		return
	}
	ecsFail := func(status int, code, msg string) {
		huaweiSend(w, status, map[string]any{"error": map[string]any{"code": code, "message": msg}})
	}
	if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/cloudservers/detail") {
		huaweiFail(w, http.StatusNotFound, "APIGW.0101", "The API does not exist or has not been published in the environment", reqID)
		return
	}
	if r.URL.Path != "/v1/"+f.ProjectID+"/cloudservers/detail" {
		ecsFail(http.StatusBadRequest, "Ecs.0005", "Request parameter error: project_id does not match the token's project")
		return
	}
	if f.Deny { // the code is this fake's own: the client judges the 403
		ecsFail(http.StatusForbidden, "Ecs.0319", "Policy doesn't allow ecs:cloudServers:list to be performed.")
		return
	}
	q := r.URL.Query()
	page, err1 := strconv.Atoi(q.Get("offset"))
	limit, err2 := strconv.Atoi(q.Get("limit"))
	if err1 != nil || err2 != nil || page < 0 || limit < 1 || limit > 1000 {
		ecsFail(http.StatusBadRequest, "Ecs.0005", "Request parameter error: offset or limit")
		return
	}
	if page == 0 {
		page = 1
	}
	if f.PageSize > 0 && f.PageSize < limit {
		limit = f.PageSize
	}
	ins, states, _ := f.listed()
	servers := []map[string]any{}
	for i := (page - 1) * limit; i < min(page*limit, len(ins)); i++ {
		in := ins[i]
		mode := "0"
		if in.Prepaid {
			mode = "1"
		}
		flavor := map[string]any{"id": in.Type, "name": in.Type, "vcpus": "8", "ram": "32768", "disk": "0"}
		if in.GPUCount > 0 {
			flavor["gpus"] = []map[string]any{{"name": in.GPUModel, "count": in.GPUCount, "memory_mb": 16384}}
		}
		servers = append(servers, map[string]any{"id": in.ID, "name": in.Name, "status": huaweiState[states[i]],
			"created": in.Created.UTC().Format(time.RFC3339), "flavor": flavor,
			"metadata":               map[string]any{"charging_mode": mode, "metering.resourcespeccode": in.Type},
			"OS-SRV-USG:launched_at": in.Created.UTC().Format("2006-01-02T15:04:05.000000"),
			"tenant_id":              f.ProjectID})
	}
	huaweiSend(w, http.StatusOK, map[string]any{"count": len(ins), "servers": servers})
}

var huaweiState = map[string]string{"running": "ACTIVE", "stopped": "SHUTOFF", "starting": "BUILD", "stopping": "ACTIVE"}

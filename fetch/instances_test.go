package fetch

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/fetch/fetchtest"
)

// script is three instances at 10:00 UTC: one running since 08:00, one
// stopped, one not yet created; one more already gone.
func script(day time.Time) []fetchtest.Instance {
	at := func(h int) time.Time { return day.Add(time.Duration(h) * time.Hour) }
	return []fetchtest.Instance{
		{ID: "i-run", Name: "train", Type: "gn7", GPUModel: "NVIDIA T4", GPUCount: 1, Created: at(1),
			Phases: []fetchtest.Phase{{At: at(1), State: "running"}, {At: at(2), State: "stopped"}, {At: at(8), State: "running"}}},
		{ID: "i-stop", GPUModel: "NVIDIA T4", GPUCount: 2, Prepaid: true, Created: at(1),
			Phases: []fetchtest.Phase{{At: at(1), State: "running"}, {At: at(3), State: "stopped"}}},
		{ID: "i-later", Phases: []fetchtest.Phase{{At: at(11), State: "running"}}},
		{ID: "i-gone", Phases: []fetchtest.Phase{{At: at(1), State: "running"}, {At: at(4), State: "gone"}}},
		{ID: "i-boot", Phases: []fetchtest.Phase{{At: at(9), State: "starting"}}},
	}
}

func TestListInstancesBothClouds(t *testing.T) {
	day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	now := day.Add(10 * time.Hour)
	clock := func() time.Time { return now }
	cvm := fetchtest.NewCVM("AKIDtest", testSecret, "ap-beijing", clock, script(day)...)
	cvm.PageSize = 1
	ecs := fetchtest.NewECS("LTAItest", testSecret, "cn-beijing", clock, script(day)...)
	ecs.PageSize = 2
	volc := fetchtest.NewVolcECS("AKLTtest", testSecret, "cn-shanghai", clock, script(day)...)
	volc.PageSize = 2
	for _, c := range []struct {
		provider, id, region string
		srv                  *httptest.Server
		requests             *int
		started              bool // the API states the last start
		gpu                  bool // and the GPUs
	}{
		{"tencentcloud", "AKIDtest", "ap-beijing", httptest.NewServer(cvm), &cvm.Requests, false, true},
		{"aliyun", "LTAItest", "cn-beijing", httptest.NewServer(ecs), &ecs.Requests, true, true},
		{"volcengine", "AKLTtest", "cn-shanghai", httptest.NewServer(volc), &volc.Requests, false, false},
	} {
		t.Run(c.provider, func(t *testing.T) {
			defer c.srv.Close()
			acct := Account{Name: "main", Provider: c.provider, KeyID: c.id, secret: testSecret, Region: c.region}
			got, err := ListInstances(context.Background(), acct, "", Options{Endpoint: c.srv.URL, Now: clock})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 3 || *c.requests < 2 {
				t.Fatalf("got %d instances in %d requests, want 3 over pages: %+v", len(got), *c.requests, got)
			}
			run, stop, boot := got[0], got[1], got[2]
			if run.ID != "i-run" || run.State != StateRunning || !run.OnDemand || c.gpu != (run.GPUModel == "NVIDIA T4" && run.GPUCount.String() == "1") {
				t.Errorf("running: %+v", run)
			}
			if !run.CreatedAt.Equal(day.Add(time.Hour)) {
				t.Errorf("created %v", run.CreatedAt)
			}
			if want := day.Add(8 * time.Hour); c.started != run.StartedAt.Equal(want) {
				t.Errorf("StartedAt %v (API states it: %v)", run.StartedAt, c.started)
			}
			if stop.State != StateStopped || stop.OnDemand || c.gpu != (stop.GPUCount.String() == "2") || boot.State != StateOther {
				t.Errorf("stopped %+v, starting %+v", stop, boot)
			}
			if run.Region != c.region || run.Account != "main" {
				t.Errorf("region %q account %q", run.Region, run.Account)
			}
			// A wrong secret: one auth error naming the permission, no secret.
			acct.secret = "wrong"
			_, err = ListInstances(context.Background(), acct, "", Options{Endpoint: c.srv.URL, Now: clock, MaxAttempts: 3})
			var fe *Error
			if !errors.As(err, &fe) || fe.Kind != KindAuth || !strings.Contains(fe.EN, ":DescribeInstances") ||
				strings.Contains(fe.EN+fe.ZH, "wrong") {
				t.Errorf("wrong secret: %v", err)
			}
			// A wrong region is the API's error, not an auth one.
			acct.secret = testSecret
			_, err = ListInstances(context.Background(), acct, "xx-nowhere", Options{Endpoint: c.srv.URL, Now: clock})
			if !errors.As(err, &fe) || fe.Kind != KindAPI {
				t.Errorf("wrong region: %v", err)
			}
		})
	}
}

// A RAM user without ecs:DescribeInstances gets an empty list from 阿里云;
// the DryRun check makes it the auth error it is, while a region that is
// really empty stays empty.
func TestECSEmptyListWithoutPermissionIsAnAuthError(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	ecs := fetchtest.NewECS("LTAItest", testSecret, "cn-beijing", clock, script(now.Add(-10*time.Hour))...)
	srv := httptest.NewServer(ecs)
	defer srv.Close()
	acct := Account{Name: "main", Provider: "aliyun", KeyID: "LTAItest", secret: testSecret, Region: "cn-beijing"}
	ecs.Deny = true
	_, err := ListInstances(context.Background(), acct, "", Options{Endpoint: srv.URL, Now: clock})
	var fe *Error
	if !errors.As(err, &fe) || fe.Kind != KindAuth || !strings.Contains(fe.EN, "ecs:DescribeInstances") {
		t.Errorf("denied: %v", err)
	}
	ecs.Deny = false
	ecs.Instances = nil
	got, err := ListInstances(context.Background(), acct, "", Options{Endpoint: srv.URL, Now: clock})
	if err != nil || len(got) != 0 {
		t.Errorf("empty region: %v %v", got, err)
	}
}

// TestListHuaweiServers: 华为云 ECS pages by page number; the states,
// charging mode and GPUs map as the other clouds'; no start time.
func TestListHuaweiServers(t *testing.T) {
	day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	now := day.Add(10 * time.Hour)
	clock := func() time.Time { return now }
	hw := fetchtest.NewHuaweiECS("HWAKTEST0001", testSecret, "0b1c2d3e4f5a", clock, script(day)...)
	hw.PageSize = 2
	srv := httptest.NewServer(hw)
	defer srv.Close()
	acct := Account{Name: "main", Provider: "huaweicloud", KeyID: "HWAKTEST0001", secret: testSecret, ProjectID: "0b1c2d3e4f5a",
		SourceEN: "the environment variables HUAWEICLOUD_SDK_AK / HUAWEICLOUD_SDK_SK"}
	got, err := ListInstances(context.Background(), acct, "", Options{Endpoint: srv.URL, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || hw.Requests != 2 {
		t.Fatalf("got %d instances in %d requests, want 3 over 2 pages: %+v", len(got), hw.Requests, got)
	}
	run, stop, boot := got[0], got[1], got[2]
	if run.ID != "i-run" || run.State != StateRunning || run.RawState != "ACTIVE" || !run.OnDemand ||
		run.GPUModel != "NVIDIA T4" || run.GPUCount.String() != "1" || !run.StartedAt.IsZero() || !run.CreatedAt.Equal(day.Add(time.Hour)) {
		t.Errorf("running: %+v", run)
	}
	if stop.State != StateStopped || stop.OnDemand || stop.GPUCount.String() != "2" || boot.State != StateOther {
		t.Errorf("stopped %+v, starting %+v", stop, boot)
	}
	if run.Region != "cn-north-4" || run.Account != "main" {
		t.Errorf("region %q account %q", run.Region, run.Account)
	}
	var fe *Error
	for _, c := range []struct {
		name   string
		change func(a *Account)
		kind   Kind
		want   string
	}{
		{"wrong secret", func(a *Account) { a.secret = "wrong" }, KindAuth, "ecs:cloudServers:list"},
		{"denied", func(*Account) { hw.Deny = true }, KindAuth, "Ecs.0319"},
		{"other project", func(a *Account) { a.ProjectID = "ffff" }, KindAPI, "Ecs.0005"},
		{"no project", func(a *Account) { a.ProjectID = "" }, KindUsage, "HUAWEICLOUD_SDK_PROJECT_ID"},
	} {
		a := acct
		c.change(&a)
		hw.Requests = 0
		_, err := ListInstances(context.Background(), a, "", Options{Endpoint: srv.URL, Now: clock, MaxAttempts: 3})
		if !errors.As(err, &fe) || fe.Kind != c.kind || !strings.Contains(fe.EN, c.want) || strings.Contains(fe.EN+fe.ZH, "wrong") {
			t.Errorf("%s: %v", c.name, err)
		}
		if c.kind == KindAuth && hw.Requests != 1 {
			t.Errorf("%s: retried, %d requests", c.name, hw.Requests)
		}
		hw.Deny = false
	}
}

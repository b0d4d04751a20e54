package watch

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpubill/gpubill/fetch"
	"github.com/gpubill/gpubill/fetch/fetchtest"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/rules"
	"github.com/gpubill/gpubill/watch/watchtest"
)

var shanghai = ledger.DefaultTZ()

// fakeClock is a fake clock shared by the fakes and the watcher.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

type rig struct {
	t     *testing.T
	clk   *fakeClock
	db    *ledger.DB
	cvm   *fetchtest.CVM
	ecs   *fetchtest.ECS
	cvmS  *httptest.Server
	ecsS  *httptest.Server
	sink  *watchtest.Sink
	sinkS *httptest.Server
	cfg   rules.Config
	keys  map[string]string
}

func newRig(t *testing.T, start time.Time, cvm, ecs []fetchtest.Instance) *rig {
	r := &rig{t: t, clk: &fakeClock{t: start}, cfg: rules.DefaultConfig()}
	var err error
	r.db, err = ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.db.Close() })
	r.cvm = fetchtest.NewCVM("AKIDwatch", "cvm-Secret-never-shown", "ap-guangzhou", r.clk.now, cvm...)
	r.ecs = fetchtest.NewECS("LTAIwatch", "ecs-Secret-never-shown", "cn-hangzhou", r.clk.now, ecs...)
	r.cvmS, r.ecsS = httptest.NewServer(r.cvm), httptest.NewServer(r.ecs)
	r.sink = &watchtest.Sink{WecomKey: "wk", FeishuToken: "ft", FeishuSecret: "fs-secret", DingToken: "dt", DingSecret: "SECding", Now: r.clk.now}
	r.sinkS = httptest.NewServer(r.sink)
	t.Cleanup(func() { r.cvmS.Close(); r.ecsS.Close(); r.sinkS.Close() })
	r.keys = map[string]string{"TENCENTCLOUD_SECRET_ID": "AKIDwatch", "TENCENTCLOUD_SECRET_KEY": "cvm-Secret-never-shown",
		"ALIBABA_CLOUD_ACCESS_KEY_ID": "LTAIwatch", "ALIBABA_CLOUD_ACCESS_KEY_SECRET": "ecs-Secret-never-shown"}
	return r
}

func (r *rig) accounts() []fetch.Account {
	var out []fetch.Account
	for _, c := range []struct{ p, url string }{{"tencentcloud", r.cvmS.URL}, {"aliyun", r.ecsS.URL}} {
		a, ok := fetch.FromEnv(c.p, func(k string) string { return r.keys[k] })
		if !ok {
			r.t.Fatal("no keys")
		}
		a.Endpoint = c.url
		out = append(out, a)
	}
	return out
}

func (r *rig) request() Request {
	fp, err := r.cfg.Forgotten()
	if err != nil {
		r.t.Fatal(err)
	}
	return Request{Accounts: r.accounts(), Now: r.clk.now, Judge: Judge{Forgotten: fp, Config: r.cfg, Lang: "en"},
		Options: fetch.Options{MaxAttempts: 2, Backoff: time.Millisecond, Timeout: 5 * time.Second},
		Notifiers: []Notifier{
			&Robot{Kind: "wecom", Label: "w", URL: r.sinkS.URL + "/cgi-bin/webhook/send?key=wk", Now: r.clk.now},
			&Robot{Kind: "feishu", Label: "f", URL: r.sinkS.URL + "/open-apis/bot/v2/hook/ft", Secret: "fs-secret", Now: r.clk.now},
			&Robot{Kind: "dingtalk", Label: "d", URL: r.sinkS.URL + "/robot/send?access_token=dt", Secret: "SECding", Now: r.clk.now},
		}}
}

func (r *rig) poll(at time.Time) Outcome {
	r.t.Helper()
	r.clk.set(at)
	out, err := Run(context.Background(), r.db, r.request())
	if err != nil {
		r.t.Fatal(err)
	}
	for _, s := range out.Sources {
		if s.Err != nil {
			r.t.Fatalf("%s: %v", s.Provider, s.Err)
		}
	}
	if len(out.SendErrors) > 0 {
		r.t.Fatalf("send: %v", out.SendErrors)
	}
	return out
}

func at(day, hh, mm int) time.Time { return time.Date(2026, 11, day, hh, mm, 0, 0, shanghai) }

// An on-demand RTX 4090 (腾讯云, catalog ¥5/h) starts at 20:00: one alert at
// 04:00 (8 h), the night's money steps held, one escalation at 07:00, and
// nothing on re-runs.
func TestStartedAt20AlertsAt4AndAtNightsEnd(t *testing.T) {
	gpu := fetchtest.Instance{ID: "ins-4090", Name: "train", Type: "GN10X.2XLARGE40", GPUModel: "RTX 4090", GPUCount: 1,
		Created: at(20, 18, 0), Phases: []fetchtest.Phase{{At: at(20, 18, 0), State: "stopped"}, {At: at(20, 20, 0), State: "running"}}}
	r := newRig(t, at(20, 19, 0), []fetchtest.Instance{gpu}, nil)
	var sent []Alert
	held := 0
	for tm := at(20, 19, 0); tm.Before(at(21, 7, 30)); tm = tm.Add(5 * time.Minute) {
		out := r.poll(tm)
		sent = append(sent, out.Sent...)
		held += len(out.Held)
		if again := r.poll(tm); len(again.Sent) != 0 { // a re-run at the same time sends nothing
			t.Fatalf("re-run at %v sent %v", tm, again.Sent)
		}
	}
	if len(sent) != 2 {
		t.Fatalf("sent %d alerts, want 2: %+v", len(sent), sent)
	}
	first, esc := sent[0], sent[1]
	if !first.Now.Equal(at(21, 4, 0)) || first.Event != EventNew || first.Severity != "low" || first.AmountSoFar != "0.00" ||
		first.PriceSource != "catalog" || first.PricePerHour != "5" || first.Projection24h != "120.00" || !first.SinceKnown {
		t.Errorf("first alert: %+v", first)
	}
	if !esc.Now.Equal(at(21, 7, 0)) || esc.Event != EventEscalated || esc.Severity != "medium" || esc.AmountSoFar != "15.00" {
		t.Errorf("escalation: %+v", esc)
	}
	if held == 0 {
		t.Error("no escalation was held during the night")
	}
	if !strings.Contains(esc.MessageEN, "ran through the night (00:00–07:00)") || !strings.Contains(esc.MessageEN, "reference catalog") {
		t.Errorf("message: %s", esc.MessageEN)
	}
	// Every alert reached each robot, in its documented shape and signed.
	msgs := r.sink.Messages()
	if len(msgs) != 6 || r.sink.Refused != 0 {
		t.Fatalf("sink got %d messages, refused %d", len(msgs), r.sink.Refused)
	}
	for _, m := range msgs {
		if !strings.Contains(m.Text, "ins-4090") || strings.Contains(m.Text, "Secret") {
			t.Errorf("%s: %q", m.Robot, m.Text)
		}
	}
	// Stopped: the alert clears; a new run later is a new alert.
	r.cvm.Instances[0].Phases = append(r.cvm.Instances[0].Phases, fetchtest.Phase{At: at(21, 7, 40), State: "stopped"})
	if out := r.poll(at(21, 7, 45)); len(out.Cleared) != 1 || len(out.Sent) != 0 {
		t.Errorf("after stopping: cleared %v sent %v", out.Cleared, out.Sent)
	}
}

// Stopped 13 days ago on a platform that releases after 15: one "released
// in 2 days" alert with the date, nothing on re-runs, one escalation on
// the last day.
func TestStoppedThirteenDaysAlertsRelease(t *testing.T) {
	gpu := fetchtest.Instance{ID: "ins-keep", GPUModel: "RTX 4090", GPUCount: 1, Created: at(1, 9, 0),
		Phases: []fetchtest.Phase{{At: at(1, 9, 0), State: "running"}, {At: at(1, 10, 0), State: "stopped"}}}
	r := newRig(t, at(1, 9, 30), []fetchtest.Instance{gpu}, nil)
	p, _ := r.cfg.PolicyFor("tencentcloud")
	p.ReleaseDays = 15
	r.cfg.Policies["tencentcloud"] = p
	r.poll(at(1, 9, 30))
	r.poll(at(1, 10, 0)) // seen stopping: since 10:00
	if out := r.poll(at(10, 10, 0)); len(out.Sent) != 0 {
		t.Fatalf("9 days stopped: %v", out.Sent)
	}
	out := r.poll(at(14, 10, 0))
	if len(out.Sent) != 1 {
		t.Fatalf("13 days stopped: sent %+v", out.Sent)
	}
	a := out.Sent[0]
	if a.Kind != KindRelease || a.Severity != "medium" || a.ReleaseAt == nil || !a.ReleaseAt.Equal(at(16, 10, 0)) ||
		!strings.Contains(a.MessageEN, "released in about 2 days (2026-11-16 10:00)") || !strings.Contains(a.MessageEN, "stopped for 13 days") {
		t.Errorf("release alert: %+v", a)
	}
	if out := r.poll(at(14, 16, 0)); len(out.Sent) != 0 || len(out.Open) != 1 {
		t.Errorf("re-run: sent %v open %d", out.Sent, len(out.Open))
	}
	if out := r.poll(at(15, 11, 0)); len(out.Sent) != 1 || out.Sent[0].Severity != "high" || out.Sent[0].Event != EventEscalated {
		t.Errorf("last day: %+v", out.Sent)
	}
}

// A key the cloud refuses: one actionable error per account (naming the
// permission, not the secret), no alert, and the open alerts stay open.
func TestAuthFailureIsOneErrorAndNoSpam(t *testing.T) {
	ecs := fetchtest.Instance{ID: "i-bp1gpu", GPUModel: "V100", GPUCount: 1, Created: at(1, 0, 0),
		Phases: []fetchtest.Phase{{At: at(2, 8, 0), State: "running"}}}
	r := newRig(t, at(2, 17, 0), nil, []fetchtest.Instance{ecs})
	out := r.poll(at(2, 17, 0)) // StartTime from the API: 9 h at the first poll
	if len(out.Sent) != 1 || out.Sent[0].AmountSoFar != "8.00" || out.Sent[0].Provider != "aliyun" {
		t.Fatalf("first poll: %+v", out.Sent)
	}
	r.keys["ALIBABA_CLOUD_ACCESS_KEY_SECRET"] = "wrong-secret"
	r.ecs.Requests = 0
	for i := 0; i < 3; i++ {
		r.clk.set(at(2, 17, 10+5*i))
		out, err := Run(context.Background(), r.db, r.request())
		if err != nil {
			t.Fatal(err)
		}
		var fe *fetch.Error
		bad := out.Sources[1]
		if !errors.As(bad.Err, &fe) || fe.Kind != fetch.KindAuth || !strings.Contains(fe.EN, "ecs:DescribeInstances") ||
			strings.Contains(fe.EN+fe.ZH, "wrong-secret") {
			t.Errorf("auth error: %v", bad.Err)
		}
		if len(out.Sent) != 0 || len(out.Cleared) != 0 || out.Sources[0].Err != nil {
			t.Errorf("with a refused key: sent %v cleared %v", out.Sent, out.Cleared)
		}
	}
	if r.ecs.Requests != 3 {
		t.Errorf("%d requests for 3 polls: an auth failure is not retried", r.ecs.Requests)
	}
	r.keys["ALIBABA_CLOUD_ACCESS_KEY_SECRET"] = "ecs-Secret-never-shown"
	if out := r.poll(at(2, 17, 30)); len(out.Sent) != 0 || len(out.Open) != 1 {
		t.Errorf("key fixed: sent %v, open %d", out.Sent, len(out.Open))
	}
	if n := len(r.sink.Messages()); n != 3 {
		t.Errorf("sink got %d messages, want 3 (one alert, three robots)", n)
	}
}

// Two watchers at the same moment on the same ledger send each alert once.
func TestTwoWatchersNeverDoubleSend(t *testing.T) {
	ecs := fetchtest.Instance{ID: "i-bp1gpu", GPUModel: "V100", GPUCount: 1, Created: at(1, 0, 0),
		Phases: []fetchtest.Phase{{At: at(2, 8, 0), State: "running"}}}
	r := newRig(t, at(2, 17, 0), nil, []fetchtest.Instance{ecs})
	other, err := ledger.Open(context.Background(), r.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var wg sync.WaitGroup
	total := make([]int, 2)
	for i, db := range []*ledger.DB{r.db, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := Run(context.Background(), db, r.request())
			if err != nil {
				t.Error(err)
			}
			total[i] = len(out.Sent)
		}()
	}
	wg.Wait()
	if total[0]+total[1] != 1 || len(r.sink.Messages()) != 3 {
		t.Errorf("sent %v, sink %d messages: want one alert, once", total, len(r.sink.Messages()))
	}
}

// A dry run reports what would be sent and records nothing.
func TestDryRunSendsAndRecordsNothing(t *testing.T) {
	ecs := fetchtest.Instance{ID: "i-bp1gpu", GPUModel: "V100", GPUCount: 1, Created: at(1, 0, 0),
		Phases: []fetchtest.Phase{{At: at(2, 8, 0), State: "running"}}}
	r := newRig(t, at(2, 17, 0), nil, []fetchtest.Instance{ecs})
	req := r.request()
	req.DryRun = true
	for i := 0; i < 2; i++ {
		out, err := Run(context.Background(), r.db, req)
		if err != nil || len(out.Sent) != 1 {
			t.Fatalf("dry run %d: %v %v", i, out.Sent, err)
		}
	}
	if len(r.sink.Messages()) != 0 {
		t.Error("a dry run sent")
	}
	if out := r.poll(at(2, 17, 0)); len(out.Sent) != 1 {
		t.Errorf("after dry runs: %v", out.Sent)
	}
}

// A robot that refuses (a wrong secret) does not make the others repeat
// the alert every poll; with every notifier failing, the next poll tries
// again.
func TestBrokenNotifierIsNoSpam(t *testing.T) {
	ecs := fetchtest.Instance{ID: "i-bp1gpu", GPUModel: "V100", GPUCount: 1, Created: at(1, 0, 0),
		Phases: []fetchtest.Phase{{At: at(2, 8, 0), State: "running"}}}
	r := newRig(t, at(2, 17, 0), nil, []fetchtest.Instance{ecs})
	req := r.request()
	req.Notifiers[2].(*Robot).Secret = "SECwrong"
	for i := 0; i < 3; i++ {
		out, err := Run(context.Background(), r.db, req)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 1, false: 0}[i == 0]; len(out.SendErrors) != want || len(out.Sent) != want {
			t.Errorf("poll %d: sent %d, errors %v", i, len(out.Sent), out.SendErrors)
		}
	}
	if n := len(r.sink.Messages()); n != 2 {
		t.Errorf("sink got %d messages, want 2 (wecom and feishu once)", n)
	}
	// All failing: not recorded, so tried again.
	r2 := newRig(t, at(2, 17, 0), nil, []fetchtest.Instance{ecs})
	req = r2.request()
	for _, n := range req.Notifiers {
		n.(*Robot).URL += "x"
	}
	for i := 0; i < 2; i++ {
		out, _ := Run(context.Background(), r2.db, req)
		if len(out.Sent) != 0 || len(out.SendErrors) != 3 {
			t.Errorf("all failing, poll %d: sent %d errors %d", i, len(out.Sent), len(out.SendErrors))
		}
	}
}

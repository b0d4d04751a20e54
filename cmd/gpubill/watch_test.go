package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gpubill/gpubill/fetch/fetchtest"
	"github.com/gpubill/gpubill/watch/watchtest"
)

// scriptClock is the clock of a script's instance fakes (scripts run in
// parallel: one per work dir): the script runs gpubill watch with --now
// $NOW, and the fakes check signatures against the same time.
var scriptClocks sync.Map // $WORK → *atomic.Value of time.Time

func scriptClock(ts *testscript.TestScript) *atomic.Value {
	v, _ := scriptClocks.LoadOrStore(ts.Getenv("WORK"), new(atomic.Value))
	return v.(*atomic.Value)
}

// cmdFakeInstances is `fakeinstances tencentcloud|aliyun|huaweicloud FILE.json NOW`:
// it serves the instances of FILE (fetchtest.Instance objects) from a fake
// CVM (ap-guangzhou), ECS (cn-hangzhou) or 华为云 ECS (the project of
// HUAWEICLOUD_SDK_PROJECT_ID) API at FAKE_URL, with the keys of
// the vendor's variables, and sets the fakes' clock and $NOW to NOW. Run
// again with only NOW (`fakeinstances now TIME`) to move the clock.
func cmdFakeInstances(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: fakeinstances tencentcloud|aliyun|huaweicloud FILE.json NOW | fakeinstances now NOW")
	}
	now, err := time.Parse(time.RFC3339, args[len(args)-1])
	if err != nil {
		ts.Fatalf("NOW: %v", err)
	}
	clk := scriptClock(ts)
	clk.Store(now)
	fakeNow := func() time.Time { return clk.Load().(time.Time) }
	ts.Setenv("NOW", args[len(args)-1])
	if args[0] == "now" {
		return
	}
	var ins []fetchtest.Instance
	if err := json.Unmarshal([]byte(ts.ReadFile(args[1])), &ins); err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	var srv *httptest.Server
	switch args[0] {
	case "tencentcloud":
		srv = httptest.NewServer(fetchtest.NewCVM(ts.Getenv("TENCENTCLOUD_SECRET_ID"), ts.Getenv("TENCENTCLOUD_SECRET_KEY"), "ap-guangzhou", fakeNow, ins...))
	case "aliyun":
		srv = httptest.NewServer(fetchtest.NewECS(ts.Getenv("ALIBABA_CLOUD_ACCESS_KEY_ID"), ts.Getenv("ALIBABA_CLOUD_ACCESS_KEY_SECRET"), "cn-hangzhou", fakeNow, ins...))
	case "huaweicloud":
		srv = httptest.NewServer(fetchtest.NewHuaweiECS(ts.Getenv("HUAWEICLOUD_SDK_AK"), ts.Getenv("HUAWEICLOUD_SDK_SK"), ts.Getenv("HUAWEICLOUD_SDK_PROJECT_ID"), fakeNow, ins...))
	default:
		ts.Fatalf("fakeinstances: unknown provider %s", args[0])
	}
	ts.Defer(srv.Close)
	ts.Setenv("FAKE_URL", srv.URL)
}

// cmdFakeSink is `fakesink CONFIG` (start a webhook sink of the three
// robots and append its [[notify]] tables to CONFIG, mode 0600) or
// `fakesink count N` (the sink accepted N messages and refused none).
func cmdFakeSink(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 2 && args[0] == "count" {
		v, _ := sinks.Load(ts.Getenv("WORK"))
		s, _ := v.(*watchtest.Sink)
		if s == nil {
			ts.Fatalf("no fakesink")
		}
		n, _ := strconv.Atoi(args[1])
		got := len(s.Messages())
		if (got == n && s.Refused == 0) == neg {
			ts.Fatalf("sink: %d messages, %d refused; want %d", got, s.Refused, n)
		}
		return
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fakesink CONFIG | fakesink count N")
	}
	s := &watchtest.Sink{WecomKey: "wk-script", FeishuToken: "ft-script", FeishuSecret: "fs-Secret-script",
		DingToken: "dt-script", DingSecret: "SECding-script"} // signatures carry the real time, not --now
	sinks.Store(ts.Getenv("WORK"), s)
	srv := httptest.NewServer(s)
	ts.Defer(srv.Close)
	text := fmt.Sprintf(`[[notify]]
name = "ops"
kind = "wecom"
url = "%[1]s/cgi-bin/webhook/send?key=wk-script"

[[notify]]
name = "ops"
kind = "feishu"
url = "%[1]s/open-apis/bot/v2/hook/ft-script"
secret = "fs-Secret-script"

[[notify]]
name = "ops"
kind = "dingtalk"
url = "%[1]s/robot/send?access_token=dt-script"
secret = "SECding-script"
`, srv.URL)
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if _, err := f.WriteString(text); err != nil {
		ts.Fatalf("%v", err)
	}
	f.Close()
}

var sinks sync.Map // $WORK → *watchtest.Sink

// --interval polls at once, then every interval, and ends cleanly when
// its context ends (SIGINT in the CLI).
func TestWatchIntervalEndsWithItsContext(t *testing.T) {
	now := time.Date(2026, 11, 2, 17, 0, 0, 0, time.FixedZone("CST", 8*3600))
	ecs := fetchtest.NewECS("LTAIloop", "loop-secret", "cn-hangzhou", func() time.Time { return now },
		fetchtest.Instance{ID: "i-loop", GPUModel: "V100", GPUCount: 1, Created: now.Add(-24 * time.Hour),
			Phases: []fetchtest.Phase{{At: now.Add(-9 * time.Hour), State: "running"}}})
	srv := httptest.NewServer(ecs)
	defer srv.Close()
	t.Setenv("ALIBABA_CLOUD_ACCESS_KEY_ID", "LTAIloop")
	t.Setenv("ALIBABA_CLOUD_ACCESS_KEY_SECRET", "loop-secret")
	t.Setenv("TENCENTCLOUD_SECRET_ID", "")
	t.Setenv("VOLCENGINE_ACCESS_KEY", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var out, errb strings.Builder
	code := run(ctx, []string{"--db", filepath.Join(t.TempDir(), "l.db"), "watch", "--interval", "10s", "--endpoint", srv.URL,
		"--now", now.Format(time.RFC3339)}, strings.NewReader(""), &out, &errb)
	if code != exitOK || strings.Count(out.String(), "sent\tnew\t") != 1 || ecs.Requests != 1 {
		t.Errorf("exit %d, %d requests, stdout %q, stderr %q", code, ecs.Requests, out.String(), errb.String())
	}
}

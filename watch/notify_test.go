package watch

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/watch/watchtest"
)

var sample = Alert{Key: "k", Kind: KindRunning, Severity: "low", Provider: "aliyun", InstanceID: "i-bp1gpu",
	MessageZH: "【low】实例 i-bp1gpu 已连续运行 9 小时", MessageEN: "[low] instance i-bp1gpu has run for 9 h"}

// Each robot gets its documented shape, signed as it documents, and a
// wrong secret is the robot's refusal, reported without URL or secret.
func TestRobotsSendTheDocumentedShapes(t *testing.T) {
	now := time.Now()
	sink := &watchtest.Sink{WecomKey: "wk", FeishuToken: "ft", FeishuSecret: "fs", DingToken: "dt", DingSecret: "SECd"}
	srv := httptest.NewServer(sink)
	defer srv.Close()
	robots := []*Robot{
		{Kind: "wecom", Label: "a", URL: srv.URL + "/cgi-bin/webhook/send?key=wk"},
		{Kind: "feishu", Label: "b", URL: srv.URL + "/open-apis/bot/v2/hook/ft", Secret: "fs", Now: func() time.Time { return now }},
		{Kind: "dingtalk", Label: "c", URL: srv.URL + "/robot/send?access_token=dt", Secret: "SECd"},
	}
	for _, r := range robots {
		if err := r.Send(context.Background(), sample, "zh"); err != nil {
			t.Errorf("%s: %v", r.Name(), err)
		}
	}
	msgs := sink.Messages()
	if len(msgs) != 3 {
		t.Fatalf("%d messages", len(msgs))
	}
	if md := msgs[0].Body["markdown"].(map[string]any); !strings.Contains(md["content"].(string), "实例 i-bp1gpu") {
		t.Errorf("wecom: %v", msgs[0].Body)
	}
	if msgs[1].Body["msg_type"] != "text" || msgs[1].Body["timestamp"] == nil || msgs[1].Text != sample.MessageZH {
		t.Errorf("feishu: %v", msgs[1].Body)
	}
	if md := msgs[2].Body["markdown"].(map[string]any); md["title"] != "gpubill 提醒：i-bp1gpu" {
		t.Errorf("dingtalk: %v", msgs[2].Body)
	}
	// An hour and a half late, 飞书 refuses the timestamp.
	robots[1].Now = func() time.Time { return now.Add(-90 * time.Minute) }
	robots[2].Secret = "SECwrong"
	robots[0].URL = srv.URL + "/cgi-bin/webhook/send?key=wrong-key"
	for i, want := range []string{"errcode 93000", "code 19021", "errcode 310000 sign not match"} {
		err := robots[i].Send(context.Background(), sample, "en")
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "wrong") || strings.Contains(err.Error(), srv.URL) {
			t.Errorf("%s: %v, want %s without URL or secret", robots[i].Name(), err, want)
		}
	}
	if len(sink.Messages()) != 3 || sink.Refused != 3 {
		t.Errorf("sink: %d accepted, %d refused", len(sink.Messages()), sink.Refused)
	}
}

func TestExecGetsTheAlertAsJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "alert.json")
	if err := (Exec{Command: "cat > '" + out + "'"}).Send(context.Background(), sample, "en"); err != nil {
		t.Fatal(err)
	}
	var got Alert
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &got); err != nil || got.InstanceID != "i-bp1gpu" || got.Kind != KindRunning || got.MessageZH == "" {
		t.Errorf("%s: %v", b, err)
	}
	t.Setenv("TENCENTCLOUD_SECRET_KEY", "hook-must-not-see")
	if err := (Exec{Command: "test -z \"$TENCENTCLOUD_SECRET_KEY\" && test \"$GPUBILL_ALERT_KIND\" = running_too_long"}).Send(context.Background(), sample, "en"); err != nil {
		t.Errorf("the hook's environment: %v", err)
	}
	if err := (Exec{Command: "echo no >&2; exit 4"}).Send(context.Background(), sample, "en"); err == nil || !strings.Contains(err.Error(), "no") {
		t.Errorf("failing command: %v", err)
	}
}

// [[notify]] tables: checked, and refused in a file others can read,
// never quoting a URL or a secret.
func TestLoadRobots(t *testing.T) {
	dir := t.TempDir()
	write := func(text string, mode os.FileMode) string {
		p := filepath.Join(dir, "c.toml")
		os.WriteFile(p, []byte(text), mode)
		os.Chmod(p, mode)
		return p
	}
	good := "[[notify]]\nkind = \"dingtalk\"\nurl = \"https://oapi.dingtalk.com/robot/send?access_token=tok-123\"\nsecret = \"SECabc\"\n"
	rs, err := LoadRobots(write(good, 0o600))
	if err != nil || len(rs) != 1 || rs[0].Secret != "SECabc" || rs[0].Name() != "dingtalk 1" {
		t.Fatalf("%v %v", rs, err)
	}
	ns, err := LoadNotifiers(write(good+"[[notify]]\nkind = \"smtp\"\nurl = \"smtps://u@mail:465\"\nsecret = \"pw\"\nfrom = \"g@x\"\nto = \"a@x, b@x\"\n", 0o600))
	if m, ok := ns[len(ns)-1].(*Mail); err != nil || len(ns) != 2 || !ok || len(m.To) != 2 || m.Secret != "pw" {
		t.Errorf("smtp: %v %v", ns, err)
	}
	for _, c := range []struct {
		text string
		mode os.FileMode
		want string
	}{
		{good, 0o644, "chmod 600"},
		{"[[notify]]\nkind = \"slack\"\nurl = \"https://x/tok-123\"\n", 0o600, "kind \"slack\""},
		{"[[notify]]\nkind = \"wecom\"\nurl = \"https://x/?key=tok-123\"\nsecret = \"SECabc\"\n", 0o600, "take no secret"},
		{"[[notify]]\nkind = \"feishu\"\nurl = \"tok-123\"\n", 0o600, "url is missing"},
		{"[[notify]]\nkind = \"feishu\"\nhook = \"tok-123\"\n", 0o600, "unknown key hook"},
		{"[[notify]]\nkind = \"smtp\"\nurl = \"smtp://u@mail:587\"\nsecret = \"tok-123\"\nfrom = \"a@x\"\n", 0o600, "needs from and to"},
		{"[[notify]]\nkind = \"feishu\"\nurl = \"https://x/tok-123\"\nto = \"a@x\"\n", 0o600, "are for kind"},
	} {
		_, err := LoadRobots(write(c.text, c.mode))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "tok-123") || strings.Contains(err.Error(), "SECabc") {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}

// E-mail through SMTP: authenticated, a UTF-8 subject and body; a wrong
// password is the server's refusal, without the password.
func TestMailThroughSMTP(t *testing.T) {
	srv, err := watchtest.StartSMTP("ops@example.com", "pw-Secret")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	m := &Mail{Label: "ops", URL: "smtp://ops%40example.com@" + srv.Addr, Secret: "pw-Secret", From: "gpubill@example.com",
		To: []string{"a@example.com", "b@example.com"}}
	if err := m.Send(context.Background(), sample, "zh"); err != nil {
		t.Fatal(err)
	}
	mails := srv.Mails()
	if len(mails) != 1 || mails[0].From != "gpubill@example.com" || len(mails[0].To) != 2 {
		t.Fatalf("%+v", mails)
	}
	data := mails[0].Data
	body := data[strings.Index(data, "\r\n\r\n")+4:]
	text, _ := base64.StdEncoding.DecodeString(strings.ReplaceAll(strings.TrimSpace(body), "\r\n", ""))
	if !strings.Contains(data, "Subject: =?UTF-8?b?") || !strings.Contains(string(text), "实例 i-bp1gpu") {
		t.Errorf("mail: %s / %s", data, text)
	}
	m.Secret = "wrong-pw"
	if err := m.Send(context.Background(), sample, "en"); err == nil || !strings.Contains(err.Error(), "535") || strings.Contains(err.Error(), "wrong-pw") {
		t.Errorf("wrong password: %v", err)
	}
}

// Names in an alert come from bills and APIs: in the robots' markdown they
// stay text, never a link, bold or a font tag.
func TestRobotMarkdownEscapesNames(t *testing.T) {
	a := sample
	a.InstanceID = "[续费](http://phish.example)"
	a.MessageZH = "【low】实例 **" + a.InstanceID + "** <font color=\"info\">x</font> 已运行 9 小时"
	for _, kind := range []string{"wecom", "dingtalk"} {
		r := &Robot{Kind: kind, URL: "http://127.0.0.1/x"}
		_, b, err := r.Payload(a, "zh")
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Markdown map[string]string `json:"markdown"`
		}
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatal(err)
		}
		md := body.Markdown["content"] + body.Markdown["text"]
		for _, bad := range []string{"[续费](", "实例 **[", "<font"} {
			if strings.Contains(md, bad) {
				t.Errorf("%s: %q holds the markup %q", kind, md, bad)
			}
		}
		if !strings.Contains(md, `\[续费\](http://phish.example)`) || !strings.Contains(md, "&lt;font") {
			t.Errorf("%s: %q, the name is not kept as escaped text", kind, md)
		}
	}
}

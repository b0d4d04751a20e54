package watch

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/gpubill/gpubill/fetch"
	"github.com/gpubill/gpubill/internal/mdtext"
)

// Notifier sends one alert.
type Notifier interface {
	Name() string
	Send(ctx context.Context, a Alert, lang string) error
}

// send hands a to every notifier: delivered counts those that took it.
func send(ctx context.Context, ns []Notifier, a Alert, lang string) (delivered int, errs []error) {
	for _, n := range ns {
		if err := n.Send(ctx, a, lang); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %w", n.Name(), a.Subject(), err))
			continue
		}
		delivered++
	}
	return delivered, errs
}

// Exec runs a command with the alert as JSON on its stdin (--exec): through
// sh -c, so that the user's pipes and quotes work.
type Exec struct{ Command string }

func (e Exec) Name() string { return "--exec" }

func (e Exec) Send(ctx context.Context, a Alert, lang string) error {
	b, err := json.Marshal(a)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := ShellCommand(ctx, e.Command)
	cmd.Stdin = bytes.NewReader(append(b, '\n'))
	cmd.Env = append(hookEnv(), "GPUBILL_ALERT_KIND="+a.Kind, "GPUBILL_ALERT_SEVERITY="+a.Severity, "GPUBILL_LANG="+lang)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return fmt.Errorf("%v %s", err, msg)
	}
	return nil
}

// hookEnv is the environment without the clouds' keys: the hook gets the
// alert, not the credentials that listed the instances.
func hookEnv() []string {
	drop := map[string]bool{}
	for _, p := range fetch.Providers() {
		id, secret := fetch.EnvNames(p)
		drop[id], drop[secret] = true, true
	}
	var out []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !drop[k] {
			out = append(out, kv)
		}
	}
	return out
}

// Robot is a group robot webhook: 企业微信 (wecom), 飞书 (feishu) or 钉钉
// (dingtalk). URL and Secret are secrets: they are never printed, and an
// error names the robot, not its URL.
type Robot struct {
	Kind, Label string
	URL, Secret string
	HTTP        *http.Client
	Now         func() time.Time
}

// Robot kinds.
var RobotKinds = []string{"wecom", "feishu", "dingtalk"}

func (r *Robot) Name() string { return r.Kind + " " + r.Label }

// title is the alert's first line, for the robots' markdown titles.
func title(a Alert, lang string) string {
	if lang == "zh" {
		return "gpubill 提醒：" + a.Subject()
	}
	return "gpubill alert: " + a.Subject()
}

// Subject is what the alert is about: the instance, else the budget, else
// the provider account.
func (a Alert) Subject() string {
	switch {
	case a.InstanceID != "":
		return a.InstanceID
	case a.Budget != "":
		return a.Budget
	case a.Account != "":
		return a.Provider + " " + a.Account
	}
	return a.Provider
}

// Payload is the request the robot documents, and the URL to post it to.
func (r *Robot) Payload(a Alert, lang string) (string, []byte, error) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	text := a.Message(lang)
	var body any
	target := r.URL
	switch r.Kind {
	case "wecom":
		// 企业微信群机器人: {"msgtype":"markdown","markdown":{"content":…}},
		// content at most 4096 bytes; no signature (the key is in the URL).
		body = map[string]any{"msgtype": "markdown", "markdown": map[string]any{
			"content": clip("**"+mdtext.Inline(title(a, lang))+"**\n"+mdtext.Inline(text), 4096)}}
	case "feishu":
		// 飞书自定义机器人: timestamp in seconds; sign = base64(HmacSHA256
		// keyed by timestamp+"\n"+secret, of an empty message).
		m := map[string]any{"msg_type": "text", "content": map[string]any{"text": text}}
		if r.Secret != "" {
			ts := strconv.FormatInt(now().Unix(), 10)
			mac := hmac.New(sha256.New, []byte(ts+"\n"+r.Secret))
			m["timestamp"], m["sign"] = ts, base64.StdEncoding.EncodeToString(mac.Sum(nil))
		}
		body = m
	case "dingtalk":
		// 钉钉自定义机器人: markdown {title, text}; 加签 adds timestamp (ms)
		// and sign = urlencode(base64(HmacSHA256 keyed by secret, of
		// timestamp+"\n"+secret)) to the URL.
		body = map[string]any{"msgtype": "markdown", "markdown": map[string]any{"title": title(a, lang),
			"text": "#### " + mdtext.Inline(title(a, lang)) + "\n" + mdtext.Inline(text)}}
		if r.Secret != "" {
			u, err := url.Parse(r.URL)
			if err != nil {
				return "", nil, errors.New("the webhook URL does not parse")
			}
			ts := strconv.FormatInt(now().UnixMilli(), 10)
			mac := hmac.New(sha256.New, []byte(r.Secret))
			mac.Write([]byte(ts + "\n" + r.Secret))
			q := u.Query()
			q.Set("timestamp", ts)
			q.Set("sign", base64.StdEncoding.EncodeToString(mac.Sum(nil)))
			u.RawQuery = q.Encode()
			target = u.String()
		}
	default:
		return "", nil, fmt.Errorf("unknown robot kind %q", r.Kind)
	}
	b, err := json.Marshal(body)
	return target, b, err
}

func (r *Robot) Send(ctx context.Context, a Alert, lang string) error {
	target, b, err := r.Payload(a, lang)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(b))
	if err != nil {
		return errors.New("the webhook URL is not valid")
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	hc := r.HTTP
	if hc == nil {
		hc = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return errors.New("redirect refused") }}
	}
	resp, err := hc.Do(req)
	if err != nil {
		// net/http quotes the URL, which holds the robot's key.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("not delivered: %v", err)
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	// 企业微信 and 钉钉 answer {"errcode":0,"errmsg":"ok"}; 飞书 {"code":0,"msg":"success"}.
	var ans struct {
		ErrCode *int   `json:"errcode"`
		ErrMsg  string `json:"errmsg"`
		Code    *int   `json:"code"`
		Msg     string `json:"msg"`
	}
	if err := json.Unmarshal(rb, &ans); err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d, not the robot's answer", resp.StatusCode)
	}
	switch {
	case ans.ErrCode != nil && *ans.ErrCode != 0:
		return fmt.Errorf("refused: errcode %d %s", *ans.ErrCode, scrubText(ans.ErrMsg, r))
	case ans.Code != nil && *ans.Code != 0:
		return fmt.Errorf("refused: code %d %s", *ans.Code, scrubText(ans.Msg, r))
	case ans.ErrCode == nil && ans.Code == nil:
		return errors.New("the answer has neither errcode nor code")
	}
	return nil
}

func scrubText(s string, r *Robot) string {
	for _, secret := range []string{r.URL, r.Secret} {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "***")
		}
	}
	return s
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// notifyKeys are the fields of a [[notify]] table.
var notifyKeys = []string{"name", "kind", "url", "secret", "from", "to"}

// LoadRobots reads the [[notify]] tables of the config file at path:
//
//	[[notify]]
//	name = "ops"
//	kind = "feishu"          # wecom | feishu | dingtalk
//	url = "https://open.feishu.cn/open-apis/bot/v2/hook/…"
//	secret = "…"             # 飞书 / 钉钉 signature secret, if the robot has one
//
// The URL holds the robot's key, so a file with a [[notify]] table must be
// mode 0600, as for fetch's secrets; errors never quote a URL or a secret.
func LoadRobots(path string) ([]*Robot, error) {
	ns, err := LoadNotifiers(path)
	var out []*Robot
	for _, n := range ns {
		if r, ok := n.(*Robot); ok {
			out = append(out, r)
		}
	}
	return out, err
}

// LoadNotifiers reads the [[notify]] tables: robots, and e-mail
// (kind = "smtp", url = "smtp://user@host:587" or "smtps://…:465",
// secret = the password, from, to = "a@x, b@y").
func LoadNotifiers(path string) ([]Notifier, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	var doc struct {
		Notify []map[string]any `toml:"notify"`
	}
	if _, err := toml.Decode(string(b), &doc); err != nil {
		return nil, fmt.Errorf("config %s: not valid TOML", path)
	}
	var out []Notifier
	for i, e := range doc.Notify {
		where := fmt.Sprintf("config %s: [[notify]] %d", path, i+1)
		get := func(k string) (string, error) {
			v, ok := e[k]
			if !ok {
				return "", nil
			}
			s, ok := v.(string)
			if !ok {
				return "", fmt.Errorf("%s: %s must be a string", where, k)
			}
			return strings.TrimSpace(s), nil
		}
		for k := range e {
			if !containsStr(notifyKeys, k) {
				return nil, fmt.Errorf("%s: unknown key %s (known: %s)", where, k, strings.Join(notifyKeys, ", "))
			}
		}
		r := &Robot{}
		var from, to string
		for k, dst := range map[string]*string{"name": &r.Label, "kind": &r.Kind, "url": &r.URL, "secret": &r.Secret, "from": &from, "to": &to} {
			if *dst, err = get(k); err != nil {
				return nil, err
			}
		}
		if r.Label == "" {
			r.Label = strconv.Itoa(i + 1)
		}
		if r.Kind == "smtp" {
			m := &Mail{Label: r.Label, URL: r.URL, Secret: r.Secret, From: from}
			for _, t := range strings.Split(to, ",") {
				if t = strings.TrimSpace(t); t != "" {
					m.To = append(m.To, t)
				}
			}
			if u, err := url.Parse(m.URL); err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Host == "" {
				return nil, fmt.Errorf("%s: url is missing or not smtp://host:port or smtps://host:port", where)
			}
			if m.From == "" || len(m.To) == 0 {
				return nil, fmt.Errorf("%s: an smtp notifier needs from and to", where)
			}
			out = append(out, m)
			continue
		}
		if from != "" || to != "" {
			return nil, fmt.Errorf("%s: from and to are for kind = \"smtp\"", where)
		}
		if !containsStr(RobotKinds, r.Kind) {
			return nil, fmt.Errorf("%s: kind %q: want one of %s, smtp", where, r.Kind, strings.Join(RobotKinds, ", "))
		}
		if u, err := url.Parse(r.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("%s: url is missing or not an http(s) URL", where)
		}
		if r.Kind == "wecom" && r.Secret != "" {
			return nil, fmt.Errorf("%s: 企业微信 robots take no secret (the key is in the URL)", where)
		}
		out = append(out, r)
	}
	if len(out) > 0 {
		fi, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", path, err)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
			return nil, fmt.Errorf("config %s holds [[notify]] URLs and secrets (robots' keys, mail passwords) and is readable by others (mode %04o): run chmod 600 %s",
				path, fi.Mode().Perm(), path)
		}
	}
	return out, nil
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ShellCommand runs command through the system's shell: sh -c, or cmd /C on
// Windows.
func ShellCommand(ctx context.Context, command string) *exec.Cmd {
	if runtime.GOOS == "windows" {
		return exec.CommandContext(ctx, "cmd", "/C", command)
	}
	return exec.CommandContext(ctx, "sh", "-c", command)
}

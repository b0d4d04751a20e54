// Package watchtest holds a webhook sink for tests: one server that plays
// the 企业微信, 飞书 and 钉钉 group robots, checks each request the way the
// robot documents (shape, key, signed timestamp) with an implementation of
// its own, answers as the robot does, and records what it accepted.
package watchtest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Sink is the robots' fake. URLs: /cgi-bin/webhook/send?key=WecomKey
// (企业微信), /open-apis/bot/v2/hook/FeishuToken (飞书),
// /robot/send?access_token=DingToken (钉钉).
type Sink struct {
	WecomKey                  string
	FeishuToken, FeishuSecret string // FeishuSecret "" = no signature check
	DingToken, DingSecret     string
	Now                       func() time.Time

	mu       sync.Mutex
	Received []Message
	Refused  int
}

// Message is one accepted request.
type Message struct {
	Robot string         // wecom | feishu | dingtalk
	Body  map[string]any // the JSON body
	Text  string         // the text shown in the group
}

// Messages are the accepted requests so far.
func (s *Sink) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.Received...)
}

func (s *Sink) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	answer := func(v map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	refuse := func(v map[string]any) {
		s.mu.Lock()
		s.Refused++
		s.mu.Unlock()
		answer(v)
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if r.Method != http.MethodPost || json.Unmarshal(raw, &body) != nil {
		refuse(map[string]any{"errcode": 40035, "errmsg": "invalid json"})
		return
	}
	obj := func(k string) map[string]any { m, _ := body[k].(map[string]any); return m }
	str := func(m map[string]any, k string) string { v, _ := m[k].(string); return v }
	accept := func(robot, text string, ok map[string]any) {
		s.mu.Lock()
		s.Received = append(s.Received, Message{Robot: robot, Body: body, Text: text})
		s.mu.Unlock()
		answer(ok)
	}
	q := r.URL.Query()
	switch {
	case r.URL.Path == "/cgi-bin/webhook/send":
		// 企业微信: the key names the robot; markdown.content ≤ 4096 bytes.
		if q.Get("key") != s.WecomKey {
			refuse(map[string]any{"errcode": 93000, "errmsg": "invalid webhook url"})
			return
		}
		md := obj("markdown")
		text := str(md, "content")
		if str(body, "msgtype") != "markdown" || text == "" || len(text) > 4096 {
			refuse(map[string]any{"errcode": 40008, "errmsg": "invalid message type or content"})
			return
		}
		accept("wecom", text, map[string]any{"errcode": 0, "errmsg": "ok"})
	case r.URL.Path == "/open-apis/bot/v2/hook/"+s.FeishuToken:
		// 飞书: with 签名校验, timestamp (s) within an hour and
		// sign = base64(HMAC-SHA256 keyed timestamp+"\n"+secret, over "").
		if s.FeishuSecret != "" {
			ts := str(body, "timestamp")
			n, err := strconv.ParseInt(ts, 10, 64)
			mac := hmac.New(sha256.New, []byte(ts+"\n"+s.FeishuSecret))
			want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
			if d := s.now().Unix() - n; err != nil || d > 3600 || d < -3600 || !hmac.Equal([]byte(want), []byte(str(body, "sign"))) {
				refuse(map[string]any{"code": 19021, "msg": "sign match fail or timestamp is not within one hour from current time", "data": map[string]any{}})
				return
			}
		}
		text := str(obj("content"), "text")
		if str(body, "msg_type") != "text" || text == "" {
			refuse(map[string]any{"code": 9499, "msg": "Bad Request", "data": map[string]any{}})
			return
		}
		accept("feishu", text, map[string]any{"code": 0, "msg": "success", "data": map[string]any{}})
	case r.URL.Path == "/robot/send":
		// 钉钉: access_token; with 加签, timestamp (ms) within an hour and
		// sign = base64(HMAC-SHA256 keyed secret, over timestamp+"\n"+secret).
		if q.Get("access_token") != s.DingToken {
			refuse(map[string]any{"errcode": 300001, "errmsg": "token is not exist"})
			return
		}
		if s.DingSecret != "" {
			ts := q.Get("timestamp")
			n, err := strconv.ParseInt(ts, 10, 64)
			mac := hmac.New(sha256.New, []byte(s.DingSecret))
			mac.Write([]byte(ts + "\n" + s.DingSecret))
			want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
			if d := s.now().UnixMilli() - n; err != nil || d > 3600_000 || d < -3600_000 {
				refuse(map[string]any{"errcode": 310000, "errmsg": "keywords not in content, timestamp is invalid"})
				return
			}
			if !hmac.Equal([]byte(want), []byte(q.Get("sign"))) {
				refuse(map[string]any{"errcode": 310000, "errmsg": "sign not match"})
				return
			}
		}
		md := obj("markdown")
		if str(body, "msgtype") != "markdown" || str(md, "title") == "" || str(md, "text") == "" {
			refuse(map[string]any{"errcode": 40035, "errmsg": "缺少参数 json"})
			return
		}
		accept("dingtalk", str(md, "text"), map[string]any{"errcode": 0, "errmsg": "ok"})
	default:
		http.NotFound(w, r)
	}
}

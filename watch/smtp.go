package watch

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/smtp"
	"net/url"
	"strings"
	"time"
)

// Mail sends an alert by e-mail through SMTP: url smtp://user@host:587
// (STARTTLS when the server offers it, as net/smtp does) or
// smtps://user@host:465 (TLS from the start); Secret is the password. Like
// a robot's URL, the password is never printed.
type Mail struct {
	Label     string
	URL       string
	Secret    string
	From      string
	To        []string
	TLSConfig *tls.Config // tests
}

func (m *Mail) Name() string { return "smtp " + m.Label }

// message is the mail: UTF-8 subject (RFC 2047) and a base64 text body.
func (m *Mail) message(a Alert, lang string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMIME-Version: 1.0\r\n", m.From, strings.Join(m.To, ", "),
		mime.BEncoding.Encode("UTF-8", "["+a.Severity+"] "+title(a, lang)), time.Now().Format(time.RFC1123Z))
	b.WriteString("Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	enc := base64.StdEncoding.EncodeToString([]byte(a.Message(lang) + "\n"))
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\r\n")
	return b.Bytes()
}

func (m *Mail) Send(ctx context.Context, a Alert, lang string) error {
	u, err := url.Parse(m.URL)
	if err != nil || u.Host == "" {
		return errors.New("the SMTP URL is not valid")
	}
	host := u.Hostname()
	d := net.Dialer{Timeout: 15 * time.Second}
	var conn net.Conn
	switch u.Scheme {
	case "smtps":
		cfg := m.TLSConfig
		if cfg == nil {
			cfg = &tls.Config{ServerName: host}
		}
		conn, err = tls.DialWithDialer(&d, "tcp", u.Host, cfg)
	case "smtp":
		conn, err = d.DialContext(ctx, "tcp", u.Host)
	default:
		return fmt.Errorf("scheme %q: want smtp or smtps", u.Scheme)
	}
	if err != nil {
		return fmt.Errorf("not delivered: %v", scrubMail(err.Error(), m))
	}
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("not delivered: %v", scrubMail(err.Error(), m))
	}
	defer c.Close()
	step := func(err error) error {
		if err != nil {
			return fmt.Errorf("not delivered: %v", scrubMail(err.Error(), m))
		}
		return nil
	}
	if ok, _ := c.Extension("STARTTLS"); ok && u.Scheme == "smtp" {
		cfg := m.TLSConfig
		if cfg == nil {
			cfg = &tls.Config{ServerName: host}
		}
		if err := step(c.StartTLS(cfg)); err != nil {
			return err
		}
	}
	if user := u.User.Username(); user != "" {
		if err := step(c.Auth(smtp.PlainAuth("", user, m.Secret, host))); err != nil {
			return err
		}
	}
	if err := step(c.Mail(m.From)); err != nil {
		return err
	}
	for _, to := range m.To {
		if err := step(c.Rcpt(to)); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err := step(err); err != nil {
		return err
	}
	if _, err := w.Write(m.message(a, lang)); err != nil {
		return step(err)
	}
	if err := step(w.Close()); err != nil {
		return err
	}
	return step(c.Quit())
}

func scrubMail(s string, m *Mail) string {
	if m.Secret != "" {
		s = strings.ReplaceAll(s, m.Secret, "***")
	}
	return s
}

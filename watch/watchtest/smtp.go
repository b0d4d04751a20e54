package watchtest

import (
	"bufio"
	"encoding/base64"
	"net"
	"strings"
	"sync"
)

// SMTP is a fake mail server on 127.0.0.1: EHLO, AUTH PLAIN (required
// when User is set), MAIL, RCPT, DATA, QUIT; it records each mail.
type SMTP struct {
	User, Password string
	Addr           string

	ln    net.Listener
	mu    sync.Mutex
	mails []Mail
}

// Mail is one accepted mail.
type Mail struct {
	From string
	To   []string
	Data string
}

// StartSMTP listens on a free local port.
func StartSMTP(user, password string) (*SMTP, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &SMTP{User: user, Password: password, Addr: ln.Addr().String(), ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s, nil
}

// Close stops listening.
func (s *SMTP) Close() { s.ln.Close() }

// Mails are the mails accepted so far.
func (s *SMTP) Mails() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Mail(nil), s.mails...)
}

func (s *SMTP) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	say := func(line string) { c.Write([]byte(line + "\r\n")) }
	say("220 fake ESMTP")
	authed := s.User == ""
	var m Mail
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(strings.SplitN(line, " ", 2)[0])
		switch {
		case verb == "EHLO" || verb == "HELO":
			say("250-fake")
			say("250 AUTH PLAIN")
		case verb == "AUTH":
			f := strings.Fields(line)
			b, _ := base64.StdEncoding.DecodeString(f[len(f)-1])
			parts := strings.Split(string(b), "\x00")
			if len(f) == 3 && strings.EqualFold(f[1], "PLAIN") && len(parts) == 3 && parts[1] == s.User && parts[2] == s.Password {
				authed = true
				say("235 2.7.0 Authentication successful")
			} else {
				say("535 5.7.8 Authentication credentials invalid")
			}
		case verb == "MAIL":
			if !authed {
				say("530 5.7.0 Authentication required")
				continue
			}
			m = Mail{From: strings.Trim(strings.TrimPrefix(line[5:], "FROM:"), "<> ")}
			say("250 OK")
		case verb == "RCPT":
			m.To = append(m.To, strings.Trim(strings.TrimPrefix(line[5:], "TO:"), "<> "))
			say("250 OK")
		case verb == "DATA":
			say("354 End data with <CR><LF>.<CR><LF>")
			var data strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				data.WriteString(l)
			}
			m.Data = data.String()
			s.mu.Lock()
			s.mails = append(s.mails, m)
			s.mu.Unlock()
			say("250 OK: queued")
		case verb == "QUIT":
			say("221 Bye")
			return
		default:
			say("250 OK")
		}
	}
}

package rules

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// GuardStop is a shutdown that gpubill guard ran on a rented machine, read
// from its JSON-lines marker file (package guard writes one line per event;
// this reads only what the audit needs, so that rules does not import guard).
// forgotten_instance cites it: billing that went on after the guard stopped
// the machine is money to claim back from the platform.
type GuardStop struct {
	File      string
	Line      int       // 1-based line of the shutdown event in File
	At        time.Time // when the shutdown command ran
	Reason    string    // idle | max
	IdleSince time.Time // zero: unknown (a --max stop)
	Host      string
	Instance  string // the platform's instance ID, where guard was given --instance
	Provider  string
	Command   string
}

// guardTolerance is how long after a guard's stop billing may still run
// before the audit calls it billed after the stop (a platform settles a
// stop within minutes; an hourly-billed one to the step, see guardStopFor).
const guardTolerance = 15 * time.Minute

// markerLine is the part of a guard event line the audit reads.
type markerLine struct {
	Time      time.Time  `json:"time"`
	Event     string     `json:"event"`
	Reason    string     `json:"reason"`
	Host      string     `json:"host"`
	Instance  string     `json:"instance"`
	Provider  string     `json:"provider"`
	Started   time.Time  `json:"started"`
	IdleSince *time.Time `json:"idle_since"`
	Command   string     `json:"command"`
}

// ReadGuardMarker reads the shutdowns of a guard marker file: each
// "shutdown" event not followed by a "failed" one of the same guard run
// (same host and start). A line that is not a guard event is an error
// naming the file and line.
func ReadGuardMarker(path string) ([]GuardStop, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type run struct{ host, started string }
	var out []GuardStop
	idle := map[run]time.Time{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var m markerLine
		if err := json.Unmarshal(b, &m); err != nil || m.Event == "" || m.Time.IsZero() {
			if err == nil {
				err = errors.New(`no "event" and "time"`)
			}
			return nil, fmt.Errorf("%s: line %d: not a gpubill guard marker line: %v", path, n, err)
		}
		if m.Provider != "" && platform.Rank(m.Provider) >= len(platform.All) {
			return nil, fmt.Errorf("%s: line %d: provider %q is not a known platform", path, n, m.Provider)
		}
		r := run{m.Host, m.Started.UTC().Format(time.RFC3339Nano)}
		switch m.Event {
		case "warn":
			if m.IdleSince != nil {
				idle[r] = *m.IdleSince
			}
		case "cancel":
			delete(idle, r)
		case "shutdown":
			out = append(out, GuardStop{File: path, Line: n, At: m.Time, Reason: m.Reason, IdleSince: idle[r],
				Host: m.Host, Instance: m.Instance, Provider: m.Provider, Command: m.Command})
		case "failed":
			for i := len(out) - 1; i >= 0; i-- {
				if out[i].Host == m.Host && out[i].File == path && !out[i].At.After(m.Time) {
					out = append(out[:i], out[i+1:]...)
					break
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %v", path, n+1, err)
	}
	return out, nil
}

// guardStopFor is the guard stop that session s was billed past: one of
// the session's provider (where the marker names it) that ran inside the
// session more than the tolerance (or the platform's billing step, if
// longer) before the session's billing ended. A stop naming an instance or
// host matches that resource only; one naming neither matches when it is
// the only session of the provider running then.
func (in *Input) guardStopFor(s *billing.Session, sessions []billing.Session) *GuardStop {
	tol := guardTolerance
	if p, ok := in.Policy(s.Provider()); ok && p.BillingStep > tol {
		tol = p.BillingStep
	}
	for i := range in.cfg.GuardStops {
		g := &in.cfg.GuardStops[i]
		if g.Provider != "" && g.Provider != s.Provider() || g.At.Before(s.Start) || !s.End.After(g.At.Add(tol)) {
			continue
		}
		if g.Instance != "" || g.Host != "" {
			if named(g, s) {
				return g
			}
			if g.Instance != "" || g.Provider == "" || namesAnySession(g, sessions) {
				continue
			}
		}
		alone := true // the host is no resource of the bill: match by time alone
		for j := range sessions {
			o := &sessions[j]
			if o != s && o.Provider() == s.Provider() && !g.At.Before(o.Start) && g.At.Before(o.End) {
				alone = false
				break
			}
		}
		if alone {
			return g
		}
	}
	return nil
}

func named(g *GuardStop, s *billing.Session) bool {
	for _, id := range []string{g.Instance, g.Host} {
		if id == "" {
			continue
		}
		if id == s.ResourceID() || len(s.Items) > 0 && id == s.Items[0].ResourceName {
			return true
		}
	}
	return false
}

func namesAnySession(g *GuardStop, sessions []billing.Session) bool {
	for i := range sessions {
		if named(g, &sessions[i]) {
			return true
		}
	}
	return false
}

// guardFinding fills f for a session billed past a guard stop: money at
// risk = the session's cost after the stop, pro rata by time. Its claim
// (ClaimGuardStop) puts it on the refund checklist, though forgotten_instance
// is no refund rule. reports/refunds_ticket.go parseGuardBasis reads the
// stop back from f.Basis: keep its wording.
func guardFinding(f *ledger.Finding, s *billing.Session, g *GuardStop, loc *time.Location, th thresholds) {
	f.Claim = ledger.ClaimGuardStop
	amount, beyond := costBeyond(s.Items, g.At)
	f.AmountAtRisk = valid(amount)
	f.Severity = raise(th.severity(amount))
	money := FormatMoney(amount, s.Currency())
	after := s.End.Sub(g.At)
	stopText := formatTime(g.At, loc)
	f.Basis = fmt.Sprintf("cost of the session after gpubill guard ran its shutdown command at %s (%s line %d): %d of %d line items, pro rata by time = %s",
		stopText, g.File, g.Line, beyond, len(s.Items), money)
	idleZH, idleEN := "", ""
	if !g.IdleSince.IsZero() {
		idleZH = fmt.Sprintf("GPU 自 %s 起空闲，", formatTime(g.IdleSince, loc))
		idleEN = fmt.Sprintf("the GPUs were idle from %s, ", formatTime(g.IdleSince, loc))
	}
	cmdZH, cmdEN := "", ""
	if g.Command != "" {
		cmdZH, cmdEN = fmt.Sprintf("（%s）", g.Command), fmt.Sprintf(" (%s)", g.Command)
	}
	f.ReasonZH = fmt.Sprintf("实例 %s：据 gpubill guard 标记文件 %s 第 %d 行，%sguard 于 %s 执行了关机命令%s，但账单计费持续到 %s；关机后的 %s 计费约 %s，可向平台申请退还。",
		s.ResourceID(), g.File, g.Line, idleZH, stopText, cmdZH, formatTime(s.End, loc), formatDurationZH(after), money)
	f.ReasonEN = fmt.Sprintf("Instance %s: by the gpubill guard marker %s line %d, %sguard ran the shutdown command at %s%s, but billing went on until %s; the %s billed after the stop cost about %s, to claim back from the platform.",
		s.ResourceID(), g.File, g.Line, idleEN, stopText, cmdEN, formatTime(s.End, loc), formatDuration(after), money)
	f.AdviceZH = "把 guard 标记文件的这一行和证据行发给平台客服，申请退还关机后的费用；并确认该关机命令在此平台上确实会停止计费（参见平台的关机说明）。"
	f.AdviceEN = "Send this marker line and the evidence rows to the platform's support and ask for the charges after the stop back; and check that the command really stops billing on this platform (see its shutdown guidance)."
}

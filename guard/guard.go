package guard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
	"github.com/gpubill/gpubill/watch"
)

// Options are what one guard watches and does.
type Options struct {
	Idle     time.Duration // GPUs idle this long is a trigger; 0 = idleness is none
	Max      time.Duration // running this long since the guard started is a trigger; 0 = no maximum
	Interval time.Duration // between two samples (default 30s)
	Grace    time.Duration // between the warning and Then
	// Then is the shutdown command (sh -c), run once the grace period is
	// over and the condition still holds; "" = only warn.
	Then string
	// PID or Process (a command name, as /proc/PID/comm gives it): while
	// it runs, the machine is not idle, whatever the GPUs show.
	PID     int
	Process string
	// IdleBelow: a GPU at or below this utilisation (%) counts as idle.
	IdleBelow int
	// NvidiaSMI is the nvidia-smi command (default: "nvidia-smi" on PATH).
	NvidiaSMI string
	Notifiers []watch.Notifier
	// Marker is the JSON-lines file each event is appended to ("" = none).
	Marker   string
	Log      io.Writer // what the guard did, one line per event, in Lang
	Lang     string
	Host     string // the machine's name in messages (default: os.Hostname)
	Provider string // the platform's slug, when the user names it (for messages)
	Instance string // the platform's instance ID, as the bill names it (for audit --guard)
	Now      func() time.Time
	Sleep    func(ctx context.Context, d time.Duration) error
}

// Events of the marker file and of Result.
const (
	EventStart    = "start"
	EventWarn     = "warn"
	EventCancel   = "cancel"   // the GPUs worked again during the grace period
	EventShutdown = "shutdown" // Then is about to run (written first: it may end the guard)
	EventDone     = "done"     // Then returned
	EventFailed   = "failed"   // Then failed
	EventStop     = "stop"     // past the maximum without Then: nothing left to do
)

// Reasons of a warning.
const (
	ReasonIdle = "idle"
	ReasonMax  = "max"
)

// Event is one line of the marker file.
type Event struct {
	Time      time.Time  `json:"time"`
	Event     string     `json:"event"`
	Reason    string     `json:"reason,omitempty"`
	Host      string     `json:"host"`
	Provider  string     `json:"provider,omitempty"`
	Instance  string     `json:"instance,omitempty"`
	Started   time.Time  `json:"started"`
	IdleSince *time.Time `json:"idle_since,omitempty"`
	GPUUtil   []int      `json:"gpu_util,omitempty"`
	Command   string     `json:"command,omitempty"`
	Error     string     `json:"error,omitempty"`
	MessageZH string     `json:"message_zh,omitempty"`
	MessageEN string     `json:"message_en,omitempty"`
}

// Error is a guard error in both languages.
type Error struct{ ZH, EN string }

func (e *Error) Error() string { return e.EN }

// Text is the error in lang.
func (e *Error) Text(lang string) string {
	if lang == "zh" {
		return e.ZH
	}
	return e.EN
}

// Result is what a guard did before it ended.
type Result struct {
	Events []Event
	// Ran is true when Then ran (Reason says why).
	Ran        bool
	Reason     string
	SendErrors []error
}

type guard struct {
	o       Options
	started time.Time
	res     Result
}

// Run guards until ctx ends, Then has run, or the maximum is past without
// Then. An error is returned for nvidia-smi missing at the start, for a
// marker that cannot be written and for a Then that failed.
func Run(ctx context.Context, o Options) (Result, error) {
	if o.Interval <= 0 {
		o.Interval = 30 * time.Second
	}
	if o.NvidiaSMI == "" {
		o.NvidiaSMI = "nvidia-smi"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Host == "" {
		o.Host, _ = os.Hostname()
	}
	if o.Idle <= 0 && o.Max <= 0 {
		return Result{}, &Error{"请至少给出 --idle 或 --max 之一", "give --idle or --max (or both)"}
	}
	if _, err := exec.LookPath(o.NvidiaSMI); err != nil {
		return Result{}, &Error{
			ZH: fmt.Sprintf("找不到 %s：gpubill guard 需要 NVIDIA 驱动自带的 nvidia-smi（在 PATH 中）", o.NvidiaSMI),
			EN: fmt.Sprintf("%s not found: gpubill guard needs the nvidia-smi of the NVIDIA driver on PATH", o.NvidiaSMI)}
	}
	g := &guard{o: o, started: o.Now()}
	err := g.run(ctx)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		err = nil
	}
	return g.res, err
}

// pending is a warning sent whose grace period runs.
type pending struct {
	reason   string
	deadline time.Time
}

func (g *guard) run(ctx context.Context) error {
	o := g.o
	if err := g.record(ctx, Event{Event: EventStart}, false); err != nil {
		return err
	}
	var idleSince time.Time
	var wait *pending
	warned := false  // an idle warning was sent in this idle stretch
	failing := false // the last sample failed (logged once per stretch)
	for {
		t := o.Now()
		util, err := g.sample(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && !failing {
			g.logf(t, "无法读取 GPU 利用率（视为繁忙）：%v", "cannot read the GPU utilisation (taken as busy): %v", err)
		}
		failing = err != nil
		idle := err == nil && allIdle(util, o.IdleBelow) && !g.processRuns()
		switch {
		case !idle:
			idleSince, warned = time.Time{}, false
		case idleSince.IsZero():
			idleSince = t
		}
		if wait != nil && wait.reason == ReasonIdle && !idle {
			g.logf(t, "GPU 重新开始工作，取消关机", "the GPUs work again: the shutdown is called off")
			if err := g.record(ctx, Event{Event: EventCancel, Reason: ReasonIdle, GPUUtil: util}, false); err != nil {
				return err
			}
			wait = nil
		}
		if wait != nil && !t.Before(wait.deadline) {
			return g.then(ctx, wait.reason, util)
		}
		if wait == nil {
			reason := ""
			switch {
			case o.Max > 0 && t.Sub(g.started) >= o.Max:
				reason = ReasonMax
			case o.Idle > 0 && idle && !warned && t.Sub(idleSince) >= o.Idle:
				reason = ReasonIdle
			}
			if reason != "" {
				ev := g.warning(t, reason, idleSince, util)
				if err := g.record(ctx, ev, true); err != nil {
					return err
				}
				warned = reason == ReasonIdle
				switch {
				case o.Then == "" && reason == ReasonMax:
					g.logf(t, "未设置 --then：仅提醒，guard 结束", "no --then: warned only; the guard ends")
					return g.record(ctx, Event{Event: EventStop, Reason: reason}, false)
				case o.Then != "" && o.Grace <= 0:
					return g.then(ctx, reason, util)
				case o.Then != "":
					wait = &pending{reason: reason, deadline: t.Add(o.Grace)}
				}
			}
		}
		if err := o.Sleep(ctx, o.Interval); err != nil {
			return err
		}
	}
}

// warning is the event and message of a warning at t.
func (g *guard) warning(t time.Time, reason string, idleSince time.Time, util []int) Event {
	o := g.o
	ev := Event{Event: EventWarn, Reason: reason, GPUUtil: util}
	loc := ledger.DefaultTZ()
	host := o.Host
	if o.Provider != "" {
		host = platform.Name(o.Provider, "en") + " " + host
	}
	hostZH := o.Host
	if o.Provider != "" {
		hostZH = platform.Name(o.Provider, "zh") + " " + o.Host
	}
	switch reason {
	case ReasonIdle:
		since := idleSince
		ev.IdleSince = &since
		d := t.Sub(idleSince)
		ev.MessageZH = fmt.Sprintf("%s 的 GPU 自 %s 起已空闲 %s（利用率均 ≤ %d%%，最新 %s）", hostZH, since.In(loc).Format("01-02 15:04"), durZH(d), o.IdleBelow, utilText(util))
		ev.MessageEN = fmt.Sprintf("the GPUs of %s have been idle for %s since %s (every one at or below %d%%, now %s)", host, durEN(d), since.In(loc).Format("01-02 15:04"), o.IdleBelow, utilText(util))
	case ReasonMax:
		d := t.Sub(g.started)
		ev.MessageZH = fmt.Sprintf("%s 自 %s 起已运行 %s，达到 --max %s", hostZH, g.started.In(loc).Format("01-02 15:04"), durZH(d), durZH(o.Max))
		ev.MessageEN = fmt.Sprintf("%s has run for %s since %s, the --max of %s", host, durEN(d), g.started.In(loc).Format("01-02 15:04"), durEN(o.Max))
	}
	switch {
	case o.Then == "":
		ev.MessageZH += "；未设置 --then，仅提醒：如不再需要，请关机。"
		ev.MessageEN += "; no --then is set, so this is only a warning: shut it down if it is no longer needed."
	case o.Grace <= 0:
		ev.MessageZH += fmt.Sprintf("；现在执行关机命令：%s", o.Then)
		ev.MessageEN += fmt.Sprintf("; running the shutdown command now: %s", o.Then)
	default:
		at := t.Add(o.Grace).In(loc).Format("15:04:05")
		ev.MessageZH += fmt.Sprintf("；%s 后（%s）执行关机命令：%s", durZH(o.Grace), at, o.Then)
		ev.MessageEN += fmt.Sprintf("; the shutdown command runs in %s (%s): %s", durEN(o.Grace), at, o.Then)
		if reason == ReasonIdle {
			ev.MessageZH += "。GPU 在此之前重新工作则取消。"
			ev.MessageEN += ". It is called off if the GPUs work again before then."
		}
	}
	return ev
}

// then runs the shutdown command, recording the event first: the command
// may end the guard with the machine.
func (g *guard) then(ctx context.Context, reason string, util []int) error {
	o := g.o
	t := o.Now()
	g.res.Ran, g.res.Reason = true, reason
	if err := g.record(ctx, Event{Event: EventShutdown, Reason: reason, Command: o.Then, GPUUtil: util}, false); err != nil {
		return err
	}
	g.logf(t, "执行关机命令：%s", "running the shutdown command: %s", o.Then)
	cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := watch.ShellCommand(cctx, o.Then)
	cmd.Env = append(os.Environ(), "GPUBILL_GUARD_REASON="+reason)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	msg := strings.TrimSpace(out.String())
	if len(msg) > 500 {
		msg = msg[:500]
	}
	if err != nil {
		g.logf(o.Now(), "关机命令失败：%v %s", "the shutdown command failed: %v %s", err, msg)
		if rerr := g.record(ctx, Event{Event: EventFailed, Reason: reason, Command: o.Then, Error: strings.TrimSpace(err.Error() + " " + msg)}, false); rerr != nil {
			return rerr
		}
		return &Error{ZH: fmt.Sprintf("关机命令 %q 失败：%v", o.Then, err), EN: fmt.Sprintf("the shutdown command %q failed: %v", o.Then, err)}
	}
	if msg != "" {
		g.logf(o.Now(), "关机命令输出：%s", "the shutdown command said: %s", msg)
	}
	return g.record(ctx, Event{Event: EventDone, Reason: reason, Command: o.Then}, false)
}

// record appends ev to the result and the marker, logs a warning and, with
// notify, sends it through the notifiers.
func (g *guard) record(ctx context.Context, ev Event, notify bool) error {
	o := g.o
	if ev.Time.IsZero() {
		ev.Time = o.Now()
	}
	ev.Host, ev.Provider, ev.Instance, ev.Started = o.Host, o.Provider, o.Instance, g.started
	g.res.Events = append(g.res.Events, ev)
	if ev.Event == EventStart {
		what, whatEN := []string{}, []string{}
		if o.Idle > 0 {
			what = append(what, fmt.Sprintf("GPU 空闲 %s（利用率 ≤ %d%%）", durZH(o.Idle), o.IdleBelow))
			whatEN = append(whatEN, fmt.Sprintf("GPUs idle for %s (at or below %d%%)", durEN(o.Idle), o.IdleBelow))
		}
		if o.Max > 0 {
			what = append(what, "运行满 "+durZH(o.Max))
			whatEN = append(whatEN, "running for "+durEN(o.Max))
		}
		act, actEN := "仅提醒", "warn only"
		if o.Then != "" {
			act, actEN = fmt.Sprintf("提醒，%s 后执行 %s", durZH(o.Grace), o.Then), fmt.Sprintf("warn, then run %s after %s", o.Then, durEN(o.Grace))
		}
		if o.Lang == "zh" {
			g.logf(ev.Time, "开始守护（每 %s 采样一次）：%s 时%s", "", durZH(o.Interval), strings.Join(what, "或"), act)
		} else {
			g.logf(ev.Time, "", "guarding (a sample every %s): on %s, %s", durEN(o.Interval), strings.Join(whatEN, " or "), actEN)
		}
	}
	if ev.Event == EventWarn {
		g.logf(ev.Time, "提醒：%s", "warning: %s", pick(o.Lang, ev.MessageZH, ev.MessageEN))
	}
	if o.Marker != "" {
		if err := appendMarker(o.Marker, ev); err != nil {
			return &Error{ZH: fmt.Sprintf("无法写入标记文件 %s：%v", o.Marker, err), EN: fmt.Sprintf("cannot write the marker file %s: %v", o.Marker, err)}
		}
	}
	if notify {
		a := g.alert(ev)
		for _, n := range o.Notifiers {
			if err := n.Send(ctx, a, pick(o.Lang, "zh", "en")); err != nil {
				err = fmt.Errorf("%s: %w", n.Name(), err)
				g.res.SendErrors = append(g.res.SendErrors, err)
				g.logf(ev.Time, "通知失败：%v", "notifying failed: %v", err)
			}
		}
	}
	return nil
}

// Alert kinds of the guard, as notifiers get them.
const (
	KindIdle = "guard_idle"
	KindMax  = "guard_max"
)

// alert is a warning as package watch's notifiers take it.
func (g *guard) alert(ev Event) watch.Alert {
	kind := KindIdle
	since := g.started
	if ev.Reason == ReasonMax {
		kind = KindMax
	} else if ev.IdleSince != nil {
		since = *ev.IdleSince
	}
	sev := ledger.SeverityMedium
	if g.o.Then != "" {
		sev = ledger.SeverityHigh
	}
	return watch.Alert{Key: strings.Join([]string{kind, g.o.Host, since.UTC().Format(time.RFC3339)}, "|"), Kind: kind,
		Event: watch.EventNew, Severity: sev, Provider: g.o.Provider, InstanceID: g.o.Host, State: "running",
		Since: since, SinceKnown: true, SinceSource: "guard", Now: ev.Time, PriceSource: "unknown", Source: "nvidia-smi",
		SourceDelay: "live (sampled every " + durEN(g.o.Interval) + ")", MessageZH: "【" + sev + "】" + ev.MessageZH,
		MessageEN: "[" + sev + "] " + ev.MessageEN}
}

func (g *guard) logf(t time.Time, zh, en string, args ...any) {
	f := en
	if g.o.Lang == "zh" {
		f = zh
	}
	fmt.Fprintf(g.o.Log, "%s gpubill guard: %s\n", t.In(ledger.DefaultTZ()).Format("2006-01-02 15:04:05"), fmt.Sprintf(f, args...))
}

// sample runs nvidia-smi --query-gpu=utilization.gpu
// --format=csv,noheader,nounits: one line per GPU, a percentage.
func (g *guard) sample(ctx context.Context) ([]int, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.o.NvidiaSMI, "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v %s", g.o.NvidiaSMI, err, strings.TrimSpace(stderr.String()))
	}
	return ParseUtilisation(out)
}

// ParseUtilisation reads nvidia-smi's csv,noheader,nounits output of
// utilization.gpu. A GPU that reports none ([N/A], [Not Supported]) is an
// error: idleness cannot be judged.
func ParseUtilisation(out []byte) ([]int, error) {
	var util []int
	for i, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), "%"))
		if line == "" {
			continue
		}
		n, err := strconv.Atoi(line)
		if err != nil || n < 0 || n > 100 {
			return nil, fmt.Errorf("nvidia-smi line %d: %q is not a utilisation in percent", i+1, line)
		}
		util = append(util, n)
	}
	if len(util) == 0 {
		return nil, errors.New("nvidia-smi listed no GPU")
	}
	return util, nil
}

func allIdle(util []int, below int) bool {
	for _, u := range util {
		if u > below {
			return false
		}
	}
	return len(util) > 0
}

// processRuns reports whether the watched process still runs.
func (g *guard) processRuns() bool {
	if g.o.PID > 0 {
		if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(g.o.PID))); err == nil {
			return !zombie(g.o.PID)
		}
		return false
	}
	if g.o.Process == "" {
		return false
	}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", d.Name(), "comm"))
		if err == nil && strings.TrimSpace(string(comm)) == g.o.Process && !zombie(pid) {
			return true
		}
	}
	return false
}

// zombie reports a process that has ended but was not reaped yet.
func zombie(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z' || s[i+2] == 'X'
}

func appendMarker(path string, ev Event) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(ev)
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func pick(lang, zh, en string) string {
	if lang == "zh" {
		return zh
	}
	return en
}

func utilText(util []int) string {
	s := make([]string, len(util))
	for i, u := range util {
		s[i] = strconv.Itoa(u) + "%"
	}
	return strings.Join(s, ", ")
}

// durEN and durZH print a duration in whole units: 8 h, 30 min, 45 s.
func durEN(d time.Duration) string {
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	var parts []string
	if h > 0 {
		parts = append(parts, fmt.Sprintf("%d h", h))
	}
	if m > 0 {
		parts = append(parts, fmt.Sprintf("%d min", m))
	}
	if s > 0 || len(parts) == 0 {
		if d < time.Second && d > 0 {
			return d.Round(time.Millisecond).String()
		}
		parts = append(parts, fmt.Sprintf("%d s", s))
	}
	return strings.Join(parts, " ")
}

func durZH(d time.Duration) string {
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	var out string
	if h > 0 {
		out += fmt.Sprintf("%d 小时", h)
	}
	if m > 0 {
		out += fmt.Sprintf("%d 分钟", m)
	}
	if s > 0 || out == "" {
		if d < time.Second && d > 0 {
			return d.Round(time.Millisecond).String()
		}
		out += fmt.Sprintf("%d 秒", s)
	}
	return out
}

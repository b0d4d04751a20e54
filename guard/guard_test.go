package guard

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/watch"
)

// fakeNvidiaSMI is a script printing, at its n-th run, the n-th line of
// schedule (GPUs separated by commas) in the documented
// --format=csv,noheader,nounits shape, one GPU per line; after the last
// line, the last line again. It checks the query flags it is given.
const fakeNvidiaSMI = `#!/bin/sh
[ "$1" = "--query-gpu=utilization.gpu" ] && [ "$2" = "--format=csv,noheader,nounits" ] || { echo "unexpected arguments: $*" >&2; exit 9; }
d=$(dirname "$0")
n=$(cat "$d/count" 2>/dev/null || echo 0)
n=$((n+1))
echo $n > "$d/count"
line=$(sed -n "${n}p" "$d/schedule")
[ -n "$line" ] || line=$(tail -n 1 "$d/schedule")
echo "$line" | tr ',' '\n'
`

// fakeShutdown records that it ran, with its arguments.
const fakeShutdown = `#!/bin/sh
echo "shutdown $* reason=$GPUBILL_GUARD_REASON" >> "$(dirname "$0")/shutdown.log"
`

type rig struct {
	t      *testing.T
	bin    string
	now    time.Time
	end    time.Time // the fake sleep ends the guard here
	sent   []watch.Alert
	marker string
}

// newRig puts the fake nvidia-smi (playing schedule, one line per sample)
// and a fake shutdown on PATH.
func newRig(t *testing.T, schedule ...string) *rig {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fakes are shell scripts")
	}
	bin := t.TempDir()
	for name, text := range map[string]string{"nvidia-smi": fakeNvidiaSMI, "shutdown": fakeShutdown} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "schedule"), []byte(strings.Join(schedule, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	start := time.Date(2026, 11, 20, 20, 0, 0, 0, time.FixedZone("CST", 8*3600))
	return &rig{t: t, bin: bin, now: start, end: start.Add(24 * time.Hour), marker: filepath.Join(t.TempDir(), "guard.jsonl")}
}

type recorder struct{ r *rig }

func (n recorder) Name() string { return "recorder" }
func (n recorder) Send(_ context.Context, a watch.Alert, _ string) error {
	n.r.sent = append(n.r.sent, a)
	return nil
}

func (r *rig) options() Options {
	return Options{Idle: 30 * time.Minute, Interval: 5 * time.Minute, Grace: 10 * time.Minute, IdleBelow: 5,
		Host: "autodl-container", Provider: "autodl", Marker: r.marker, Lang: "en", Notifiers: []watch.Notifier{recorder{r}},
		Now: func() time.Time { return r.now },
		Sleep: func(ctx context.Context, d time.Duration) error {
			r.now = r.now.Add(d)
			if !r.now.Before(r.end) {
				return context.Canceled
			}
			return nil
		}}
}

func (r *rig) run(o Options) Result {
	r.t.Helper()
	res, err := Run(context.Background(), o)
	if err != nil {
		r.t.Fatal(err)
	}
	return res
}

func (r *rig) samples() int {
	b, _ := os.ReadFile(filepath.Join(r.bin, "count"))
	n := 0
	for _, c := range strings.TrimSpace(string(b)) {
		n = n*10 + int(c-'0')
	}
	return n
}

func (r *rig) shutdowns() []string {
	b, err := os.ReadFile(filepath.Join(r.bin, "shutdown.log"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func (r *rig) markerEvents() []Event {
	f, err := os.Open(r.marker)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			r.t.Fatalf("marker line %q: %v", sc.Text(), err)
		}
		out = append(out, ev)
	}
	return out
}

func events(evs []Event) string {
	s := make([]string, len(evs))
	for i, e := range evs {
		s[i] = e.Event
		if e.Reason != "" {
			s[i] += ":" + e.Reason
		}
	}
	return strings.Join(s, " ")
}

// Two GPUs busy until 21:00 (samples every 5 min from 20:00), then idle:
// one warning at 21:30 (idle 30 min), the shutdown command at 21:40 (the
// grace period), and the guard ends; the marker has every step.
func TestGuardIdleGPUsWarnThenShutDownAfterGrace(t *testing.T) {
	sched := []string{}
	for i := 0; i < 12; i++ { // 20:00 … 20:55
		sched = append(sched, "97,88")
	}
	sched = append(sched, "0,3") // from 21:00
	r := newRig(t, sched...)
	o := r.options()
	o.Then = "shutdown -h now"
	res := r.run(o)
	if got := events(res.Events); got != "start warn:idle shutdown:idle done:idle" {
		t.Fatalf("events: %s", got)
	}
	warn, shut := res.Events[1], res.Events[2]
	if !warn.Time.Equal(at(21, 30)) || warn.IdleSince == nil || !warn.IdleSince.Equal(at(21, 0)) {
		t.Errorf("warning at %v, idle since %v; want 21:30, since 21:00", warn.Time, warn.IdleSince)
	}
	if !shut.Time.Equal(at(21, 40)) || !res.Ran || res.Reason != ReasonIdle {
		t.Errorf("shutdown at %v (ran %v %s); want 21:40", shut.Time, res.Ran, res.Reason)
	}
	if got := r.shutdowns(); len(got) != 1 || got[0] != "shutdown -h now reason=idle" {
		t.Errorf("fake shutdown ran %q", got)
	}
	if len(r.sent) != 1 || r.sent[0].Kind != KindIdle || r.sent[0].Severity != "high" || r.sent[0].InstanceID != "autodl-container" ||
		!strings.Contains(r.sent[0].MessageEN, "the GPUs of AutoDL autodl-container have been idle for 30 min since 11-20 21:00 (every one at or below 5%, now 0%, 3%); the shutdown command runs in 10 min (21:40:00): shutdown -h now") {
		t.Errorf("alerts sent: %+v", r.sent)
	}
	if got := events(r.markerEvents()); got != events(res.Events) {
		t.Errorf("marker: %s", got)
	}
	if n := r.samples(); n != 21 { // 20:00 … 21:40 every 5 min
		t.Errorf("%d samples, want 21", n)
	}
}

// Busy GPUs: nothing but the start, however long it runs, and no shutdown.
func TestGuardBusyGPUsDoNothing(t *testing.T) {
	r := newRig(t, "100", "64", "12", "99")
	o := r.options()
	o.Then = "shutdown -h now"
	o.Interval = 30 * time.Minute
	res := r.run(o)
	if got := events(res.Events); got != "start" || res.Ran || len(r.sent) != 0 || r.shutdowns() != nil {
		t.Errorf("events %s, ran %v, sent %d, shutdowns %q", got, res.Ran, len(r.sent), r.shutdowns())
	}
	if n := r.samples(); n != 48 { // 24 h every 30 min
		t.Errorf("%d samples, want 48", n)
	}
}

// Idle long enough to warn, busy again within the grace period: the
// shutdown is called off; idle again later: a second warning, and this
// time the shutdown.
func TestGuardBusyAgainCallsOffTheShutdown(t *testing.T) {
	sched := []string{}
	for i := 0; i < 8; i++ { // 20:00 … 20:35 idle: warned at 20:30
		sched = append(sched, "0")
	}
	sched = append(sched, "90", "90") // 20:40, 20:45 busy
	sched = append(sched, "1")        // from 20:50 idle again: warned at 21:20, shut down at 21:30
	r := newRig(t, sched...)
	o := r.options()
	o.Then = "shutdown -h now"
	res := r.run(o)
	if got := events(res.Events); got != "start warn:idle cancel:idle warn:idle shutdown:idle done:idle" {
		t.Fatalf("events: %s", got)
	}
	if !res.Events[2].Time.Equal(at(20, 40)) || !res.Events[3].Time.Equal(at(21, 20)) || !res.Events[4].Time.Equal(at(21, 30)) {
		t.Errorf("times: cancel %v, warn %v, shutdown %v", res.Events[2].Time, res.Events[3].Time, res.Events[4].Time)
	}
	if len(r.shutdowns()) != 1 || len(r.sent) != 2 {
		t.Errorf("shutdowns %q, alerts %d", r.shutdowns(), len(r.sent))
	}
}

// Without --then the guard only warns: once per idle stretch; past --max
// it warns once more and ends.
func TestGuardWithoutThenOnlyWarns(t *testing.T) {
	r := newRig(t, "0")
	o := r.options()
	o.Max = 8 * time.Hour
	o.Interval = 15 * time.Minute
	res := r.run(o)
	if got := events(res.Events); got != "start warn:idle warn:max stop:max" {
		t.Fatalf("events: %s", got)
	}
	if !res.Events[2].Time.Equal(at(28, 0)) || res.Ran || r.shutdowns() != nil {
		t.Errorf("max warning at %v, ran %v", res.Events[2].Time, res.Ran)
	}
	if len(r.sent) != 2 || r.sent[1].Kind != KindMax || r.sent[1].Severity != "medium" ||
		!strings.Contains(r.sent[1].MessageEN, "has run for 8 h since 11-20 20:00, the --max of 8 h; no --then is set") {
		t.Errorf("alerts: %+v", r.sent)
	}
}

// While the watched process runs, idle GPUs are no trigger (a job between
// two GPU phases); once it has ended, they are.
func TestGuardWatchedProcessKeepsTheMachineBusy(t *testing.T) {
	if _, err := os.Stat("/proc/self/comm"); err != nil {
		t.Skip("no /proc")
	}
	r := newRig(t, "0")
	job := exec.Command("sleep", "60")
	if err := job.Start(); err != nil {
		t.Skip(err)
	}
	defer job.Process.Kill()
	o := r.options()
	o.PID = job.Process.Pid
	o.Then = "shutdown"
	sleep := o.Sleep
	o.Sleep = func(ctx context.Context, d time.Duration) error {
		if r.now.Equal(at(21, 0)) { // the job ends at 21:00
			job.Process.Kill()
			job.Wait()
		}
		return sleep(ctx, d)
	}
	res := r.run(o)
	if got := events(res.Events); got != "start warn:idle shutdown:idle done:idle" || !res.Events[1].Time.Equal(at(21, 35)) {
		t.Errorf("events %s, warned at %v (want 21:35: idle from 21:05)", events(res.Events), res.Events[1].Time)
	}
	// By name: "sleep" runs, so no trigger within the day.
	r2 := newRig(t, "0")
	job2 := exec.Command("sleep", "60")
	if err := job2.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { job2.Process.Kill(); job2.Wait() }()
	o = r2.options()
	o.Process = "sleep"
	o.Interval = 30 * time.Minute
	r2.end = r2.now.Add(2 * time.Hour)
	if res := r2.run(o); events(res.Events) != "start" {
		t.Errorf("with sleep running: %s", events(res.Events))
	}
}

// A failing shutdown command is an error, recorded in the marker.
func TestGuardFailingShutdownIsAnError(t *testing.T) {
	r := newRig(t, "0")
	o := r.options()
	o.Then = "echo no permission >&2; exit 4"
	o.Grace = 0
	res, err := Run(context.Background(), o)
	var ge *Error
	if !errors.As(err, &ge) || !strings.Contains(ge.EN, "exit status 4") || !strings.Contains(ge.ZH, "关机命令") {
		t.Fatalf("error %v", err)
	}
	if got := events(res.Events); got != "start warn:idle shutdown:idle failed:idle" || !strings.Contains(res.Events[3].Error, "no permission") {
		t.Errorf("events %s: %+v", got, res.Events)
	}
}

// No nvidia-smi on PATH: one clear error, before anything is done.
func TestGuardWithoutNvidiaSMI(t *testing.T) {
	r := newRig(t, "0")
	o := r.options()
	o.NvidiaSMI = "nvidia-smi-missing"
	_, err := Run(context.Background(), o)
	var ge *Error
	if !errors.As(err, &ge) || !strings.Contains(ge.EN, "nvidia-smi-missing not found") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(r.marker); err == nil {
		t.Error("a marker was written")
	}
}

// An unreadable sample counts as busy: a broken probe never shuts down.
func TestGuardBrokenSampleIsBusy(t *testing.T) {
	r := newRig(t, "[N/A]")
	o := r.options()
	o.Then = "shutdown"
	o.Interval = 30 * time.Minute
	r.end = r.now.Add(2 * time.Hour)
	var log strings.Builder
	o.Log = &log
	res := r.run(o)
	if events(res.Events) != "start" || r.shutdowns() != nil || strings.Count(log.String(), "cannot read the GPU utilisation") != 1 {
		t.Errorf("events %s, log %s", events(res.Events), log.String())
	}
}

func TestParseUtilisation(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []int
		err      bool
	}{
		{"one GPU", "0\n", []int{0}, false},
		{"eight GPUs", "100\n 97\n0\n3\n4\n5\n6\n7\n", []int{100, 97, 0, 3, 4, 5, 6, 7}, false},
		{"with units", "12 %\n", []int{12}, false},
		{"not supported", "[N/A]\n", nil, true},
		{"empty", "\n", nil, true},
		{"out of range", "101\n", nil, true},
	} {
		got, err := ParseUtilisation([]byte(c.in))
		if (err != nil) != c.err || !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v %v, want %v (error %v)", c.name, got, err, c.want, c.err)
		}
	}
}

// at is hh:mm counted from midnight of 2026-11-20 (28:00 is the 21st, 04:00).
func at(hh, mm int) time.Time {
	return time.Date(2026, 11, 20, 0, 0, 0, 0, time.FixedZone("CST", 8*3600)).Add(time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute)
}

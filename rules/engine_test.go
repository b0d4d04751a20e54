package rules

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// scenario is a small month touching every rule.
func scenario(t *testing.T) []ledger.LineItem {
	return concat(
		hourly(t, "autodl", "inst-1", "2026-10-03 20:00", 10, "1.90", account("lab")),
		[]ledger.LineItem{
			item(t, "autodl", storage, "disk-1", "2026-10-03 00:00", "2026-10-04 00:00", "0.066", parent("inst-1"), account("lab")),
			item(t, "autodl", storage, "disk-1", "2026-10-05 00:00", "2026-10-06 00:00", "0.066", parent("inst-1"), account("lab")),
			item(t, "autodl", storage, "disk-1", "2026-10-06 00:00", "2026-10-07 00:00", "0.066", parent("inst-1"), account("lab")),
			item(t, "luchen", compute, "job-1", "2026-10-08 14:00", "2026-10-08 15:00", "3.00",
				usage("2026-10-08 14:00", "2026-10-08 14:12"), qty("1", "hour"), price("3.00")),
			item(t, "aliyun", storage, "d-2", "2026-10-01 00:00", "2026-11-01 00:00", "12.40", parent("i-2")),
			item(t, "aliyun", storage, "d-3", "2026-10-01 00:00", "2026-11-01 00:00", "3.10", parent("i-2"), currency("USD")),
		},
		hourly(t, "aliyun", "i-2", "2026-10-31 20:00", 4, "8.00"),
	)
}

func TestAuditScenario(t *testing.T) {
	db := newLedger(t, scenario(t))
	got, err := Run(context.Background(), db, "2026-10", DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	checkFindings(t, got, []want{
		{rule: "stopped_storage", resource: "d-2", amount: "12", severity: "medium", evidence: 1},
		{rule: "forgotten_instance", resource: "inst-1", amount: "3.8", severity: "medium", evidence: 10},
		{rule: "stopped_storage", resource: "d-3", amount: "3", currency: "USD", severity: "low", evidence: 1},
		{rule: "min_duration_rounding", resource: "job-1", amount: "2.4", severity: "low", evidence: 1},
		{rule: "stopped_storage", resource: "disk-1", amount: "0.132", severity: "info", evidence: 2},
		{rule: "forgotten_instance", resource: "i-2", amount: "0", severity: "info", evidence: 4},
	})
	golden(t, renderFindings(t, got))
}

func fingerprints(fs []ledger.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Fingerprint)
	}
	return out
}

func TestRerunIsStable(t *testing.T) {
	ctx := context.Background()
	db := newLedger(t, scenario(t))
	cfg := DefaultConfig()
	first, err := Run(ctx, db, "2026-10", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) == 0 {
		t.Fatal("scenario gave no findings")
	}
	second, err := Run(ctx, db, "2026-10", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := strings.Join(fingerprints(first), ","), strings.Join(fingerprints(second), ","); a != b {
		t.Errorf("fingerprints differ between runs:\ngot  %s\nwant %s", b, a)
	}
	for i := 0; i < 2; i++ {
		fs, err := Run(ctx, db, "2026-10", cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.SaveAudit(ctx, "2026-10", cfg.TZ.String(), cfg.ParamsJSON(), fs); err != nil {
			t.Fatalf("save audit %d: %v", i+1, err)
		}
		stored, err := db.Findings(ctx, "2026-10")
		if err != nil {
			t.Fatal(err)
		}
		if len(stored) != len(first) {
			t.Errorf("after save %d: got %d stored findings, want %d", i+1, len(stored), len(first))
		}
		for _, f := range stored {
			if len(f.Evidence) == 0 {
				t.Errorf("after save %d: finding %s stored without evidence", i+1, f.Fingerprint)
			}
		}
	}
}

func TestFingerprintIgnoresDatabaseIDs(t *testing.T) {
	start := time.Date(2026, 10, 3, 0, 0, 0, 0, time.UTC)
	f := func(ids ...int64) *ledger.Finding {
		x := &ledger.Finding{RuleID: "stopped_storage", Provider: "autodl", ResourceID: "disk-1",
			PeriodStart: start, PeriodEnd: start.Add(24 * time.Hour)}
		for _, id := range ids {
			x.Evidence = append(x.Evidence, ledger.Evidence{LineItemID: id})
		}
		return x
	}
	a := Fingerprint(f(1, 2), map[int64]string{1: "k-a", 2: "k-b"})
	b := Fingerprint(f(20, 10), map[int64]string{10: "k-a", 20: "k-b"})
	c := Fingerprint(f(1, 2), map[int64]string{1: "k-a", 2: "k-c"})
	if a != b {
		t.Errorf("same row keys under other ids: got %s, want %s", b, a)
	}
	if a == c {
		t.Errorf("other row keys: got the same fingerprint %s", c)
	}
	if len(a) != 16 {
		t.Errorf("got fingerprint %q, want 16 hex digits", a)
	}
	// Evidence that carries its row key needs no map, and gets the same
	// fingerprint; the key it carries wins over the map's.
	own := f(7, 8)
	own.Evidence[0].RowKey, own.Evidence[1].RowKey = "k-b", "k-a"
	if d := Fingerprint(own, nil); d != a {
		t.Errorf("row keys carried by the evidence: got %s, want %s", d, a)
	}
	if d := Fingerprint(own, map[int64]string{7: "k-x", 8: "k-y"}); d != a {
		t.Errorf("row keys carried by the evidence and a map: got %s, want %s", d, a)
	}
}

func TestRunErrors(t *testing.T) {
	db := newLedger(t, scenario(t))
	for _, tc := range []struct {
		name   string
		month  string
		params map[string]string
		want   string
	}{
		{name: "bad_month", month: "2026-13", want: `month "2026-13": want YYYY-MM`},
		{name: "month_with_day", month: "2026-10-01", want: "want YYYY-MM"},
		{name: "unknown_rule", month: "2026-10", params: map[string]string{"nosuch.limit": "1"}, want: `unknown rule parameter "nosuch.limit"`},
		{name: "unknown_param", month: "2026-10", params: map[string]string{"forgotten_instance.nosuch": "1"}, want: "unknown rule parameter"},
		{name: "bad_duration", month: "2026-10", params: map[string]string{"forgotten_instance.limit": "8 hours"}, want: `forgotten_instance.limit: "8 hours" is not a positive duration`},
		{name: "negative_amount", month: "2026-10", params: map[string]string{"stopped_storage.min_amount": "-1"}, want: "is not a non-negative amount"},
		{name: "bad_clock", month: "2026-10", params: map[string]string{"forgotten_instance.night_end": "25:00"}, want: "is not a time of day"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			for k, v := range tc.params {
				cfg.Params[k] = v
			}
			_, err := Run(context.Background(), db, tc.month, cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestConfigSet(t *testing.T) {
	for _, tc := range []struct {
		name, in, wantKey, wantVal, wantErr string
	}{
		{name: "duration", in: "forgotten_instance.limit=6h", wantKey: "forgotten_instance.limit", wantVal: "6h"},
		{name: "spaces", in: " stopped_storage.min_amount = 0.5 ", wantKey: "stopped_storage.min_amount", wantVal: "0.5"},
		{name: "disable", in: "min_duration_rounding.enabled=false", wantKey: "min_duration_rounding.enabled", wantVal: "false"},
		{name: "no_equals", in: "forgotten_instance.limit", wantErr: "want rule_id.param=value"},
		{name: "no_dot", in: "limit=6h", wantErr: "unknown rule parameter"},
		{name: "bad_bool", in: "stopped_storage.enabled=maybe", wantErr: "is not true or false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			err := cfg.Set(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Params[tc.wantKey]; got != tc.wantVal {
				t.Errorf("got %s=%q, want %q", tc.wantKey, got, tc.wantVal)
			}
		})
	}
}

func TestDisabledRuleDoesNotRun(t *testing.T) {
	db := newLedger(t, scenario(t))
	cfg := DefaultConfig()
	if err := cfg.Set("stopped_storage.enabled=false"); err != nil {
		t.Fatal(err)
	}
	fs, err := Run(context.Background(), db, "2026-10", cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.RuleID == "stopped_storage" {
			t.Errorf("got a stopped_storage finding with the rule disabled: %s", f.ReasonEN)
		}
	}
	if len(fs) != 3 {
		t.Errorf("got %d findings, want 3 (the scenario's findings of the other rules)", len(fs))
	}
}

func TestDescribeAndParamsJSON(t *testing.T) {
	cfg := DefaultConfig()
	if err := cfg.Set("forgotten_instance.limit=6h"); err != nil {
		t.Fatal(err)
	}
	infos := Describe(cfg)
	if len(infos) != len(registry) {
		t.Fatalf("got %d rules, want %d", len(infos), len(registry))
	}
	var ids []string
	for i, info := range infos {
		ids = append(ids, info.ID)
		if info.ID != registry[i].ID() {
			t.Errorf("rule %d: Info().ID %q differs from ID() %q", i, info.ID, registry[i].ID())
		}
		if info.TitleZH == "" || info.TitleEN == "" || info.DescriptionZH == "" || info.DescriptionEN == "" {
			t.Errorf("rule %s: missing title or description", info.ID)
		}
		for _, p := range info.Params {
			if p.HelpZH == "" || p.HelpEN == "" || p.Type == "" {
				t.Errorf("rule %s param %s: missing help or type", info.ID, p.Name)
			}
			if err := checkParam(info.ID+"."+p.Name, p.Type, p.Default); err != nil {
				t.Errorf("rule %s: default does not parse: %v", info.ID, err)
			}
			want := p.Default
			if info.ID == "forgotten_instance" && p.Name == "limit" {
				want = "6h"
			}
			if p.Value != want {
				t.Errorf("rule %s param %s: got value %q, want %q", info.ID, p.Name, p.Value, want)
			}
		}
	}
	// every rule of the vocabulary is built in, in its order
	if got, want := strings.Join(ids, ","), strings.Join(ledger.RuleIDs, ","); got != want {
		t.Errorf("got rules %s, want %s", got, want)
	}
	var params map[string]string
	if err := json.Unmarshal([]byte(cfg.ParamsJSON()), &params); err != nil {
		t.Fatalf("ParamsJSON is not JSON: %v", err)
	}
	for k, want := range map[string]string{"forgotten_instance.limit": "6h", "forgotten_instance.night_end": "07:00",
		"stopped_storage.enabled": "true", "min_duration_rounding.min_amount": "0.01"} {
		if params[k] != want {
			t.Errorf("ParamsJSON %s: got %q, want %q", k, params[k], want)
		}
	}
	if a, b := cfg.ParamsJSON(), cfg.ParamsJSON(); a != b {
		t.Errorf("ParamsJSON not deterministic:\n%s\n%s", a, b)
	}
}

func TestPolicyOverride(t *testing.T) {
	// autodl has no minimum billed duration; with an override of 1h a lone
	// hour without actual times is judged like lanrui's.
	db := newLedger(t, []ledger.LineItem{
		item(t, "autodl", compute, "inst-1", "2026-10-03 14:00", "2026-10-03 15:00", "1.90", qty("1", "hour")),
	})
	cfg := only(t, "min_duration_rounding")
	fs, err := Run(context.Background(), db, "2026-10", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 0 {
		t.Fatalf("without override: got %d findings, want 0", len(fs))
	}
	p, _ := billing.DefaultPolicy("autodl")
	p.MinimumBilled = time.Hour
	cfg.Policies = map[string]billing.Policy{"autodl": p}
	fs, err = Run(context.Background(), db, "2026-10", cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkFindings(t, fs, []want{{rule: "min_duration_rounding", resource: "inst-1", amount: "null", severity: "info", evidence: 1}})
	if !strings.Contains(cfg.ParamsJSON(), `"policy.autodl.minimum_billed":"1h0m0s"`) {
		t.Errorf("ParamsJSON does not record the override: %s", cfg.ParamsJSON())
	}
}

// stubRule is a rule of a test: run is its Run.
type stubRule struct {
	id  string
	run func(ctx context.Context, in *Input) ([]ledger.Finding, error)
}

func (s stubRule) ID() string { return s.id }
func (s stubRule) Info() Info { return Info{ID: s.id} }
func (s stubRule) Run(ctx context.Context, in *Input) ([]ledger.Finding, error) {
	return s.run(ctx, in)
}

// withRules adds rules to the registry (after the built-in ones, by id)
// for the rest of the test.
func withRules(t *testing.T, rules ...Rule) {
	saved := registry
	t.Cleanup(func() { registry = saved })
	registry = slices.Clone(registry)
	for _, r := range rules {
		register(r)
	}
}

// waitRule runs until its context is done, and says whether it was.
func waitRule(id string, cancelled *atomic.Bool) stubRule {
	return stubRule{id: id, run: func(ctx context.Context, _ *Input) ([]ledger.Finding, error) {
		select {
		case <-ctx.Done():
			cancelled.Store(true)
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			return nil, errors.New("never cancelled")
		}
	}}
}

// TestRuleErrorStopsTheRun: a rule's error ends the audit with an error that
// names the rule and wraps its error; the rule running beside it is
// cancelled, a rule after it never runs, and AuditAndSave stores nothing.
func TestRuleErrorStopsTheRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // two rules at once
	boom := errors.New("boom")
	var cancelled, ran atomic.Bool
	// The failing rule fails once the waiting one runs: failing earlier
	// would cancel the waiting rule before its turn (runRule), and the
	// test would not see it cancelled while it ran.
	wait, running := waitRule("zz_1_wait", &cancelled), make(chan struct{})
	withRules(t,
		stubRule{id: wait.id, run: func(ctx context.Context, in *Input) ([]ledger.Finding, error) {
			close(running)
			return wait.run(ctx, in)
		}},
		stubRule{id: "zz_2_fail", run: func(context.Context, *Input) ([]ledger.Finding, error) {
			select {
			case <-running:
			case <-time.After(10 * time.Second):
			}
			return nil, boom
		}},
		stubRule{id: "zz_3_after", run: func(context.Context, *Input) ([]ledger.Finding, error) { ran.Store(true); return nil, nil }},
	)
	db := newLedger(t, scenario(t))
	ctx := context.Background()
	_, err := AuditAndSave(ctx, db, "2026-10", "Asia/Shanghai", DefaultConfig())
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "zz_2_fail") {
		t.Fatalf("got error %v, want %v naming zz_2_fail", err, boom)
	}
	if !cancelled.Load() {
		t.Error("the rule running beside the failing one was not cancelled")
	}
	if ran.Load() {
		t.Error("a rule after the failing one ran")
	}
	if fs, err := db.Findings(ctx, "2026-10"); err != nil || len(fs) != 0 {
		t.Errorf("stored %d findings (%v), want none", len(fs), err)
	}
}

// TestCancelStopsTheRun: cancelling the audit's context stops the running
// rules, and the audit returns the cancellation, naming the rule.
func TestCancelStopsTheRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelled atomic.Bool
	wait := waitRule("zz_wait", &cancelled)
	withRules(t, stubRule{id: wait.id, run: func(rctx context.Context, in *Input) ([]ledger.Finding, error) {
		cancel() // the user interrupts while this rule runs
		return wait.run(rctx, in)
	}})
	db := newLedger(t, scenario(t))
	_, err := AuditAndSave(ctx, db, "2026-10", "Asia/Shanghai", only(t, "zz_wait"))
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "zz_wait") {
		t.Fatalf("got error %v, want the cancellation naming zz_wait", err)
	}
	if !cancelled.Load() {
		t.Error("the running rule was not cancelled")
	}
	if fs, err := db.Findings(context.Background(), "2026-10"); err != nil || len(fs) != 0 {
		t.Errorf("stored %d findings (%v), want none", len(fs), err)
	}
}

// TestFindingsInRegistryOrder: whichever rule finishes first, the findings
// are handed over (and stored) rule by rule in registry order: a slow rule
// holds back the fast ones after it.
func TestFindingsInRegistryOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	slowDone := make(chan struct{})
	finding := func(res string) ledger.Finding {
		return ledger.Finding{Severity: ledger.SeverityInfo, Provider: "autodl", ResourceID: res}
	}
	withRules(t,
		stubRule{id: "zz_1_slow", run: func(context.Context, *Input) ([]ledger.Finding, error) {
			time.Sleep(50 * time.Millisecond)
			close(slowDone)
			return []ledger.Finding{finding("slow")}, nil
		}},
		stubRule{id: "zz_2_fast", run: func(context.Context, *Input) ([]ledger.Finding, error) {
			return []ledger.Finding{finding("fast")}, nil
		}},
	)
	in := &Input{Month: "2026-10", TZ: bj, cfg: DefaultConfig()}
	for _, r := range registry[:len(registry)-2] { // the built-in rules off
		in.cfg.Params[r.ID()+".enabled"] = "false"
	}
	var order []string
	err := runBuiltins(context.Background(), in, func(ruleID string, fs []ledger.Finding) error {
		if ruleID == "zz_2_fast" {
			select {
			case <-slowDone:
			default:
				t.Error("zz_2_fast's findings handed over before zz_1_slow was done")
			}
		}
		for _, f := range fs {
			order = append(order, f.RuleID+"/"+f.ResourceID)
		}
		return nil
	})
	if err != nil || strings.Join(order, " ") != "zz_1_slow/slow zz_2_fast/fast" {
		t.Errorf("got %v (%v), want zz_1_slow's finding, then zz_2_fast's", order, err)
	}
}

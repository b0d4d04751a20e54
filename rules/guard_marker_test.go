package rules

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

// How forgotten_instance matches guard stops to sessions. (A marker written
// by guard's own code is read in cmd/gpubill's TestAuditGuardMarker.)
func TestGuardStops(t *testing.T) {
	stop := func(at, host, instance string) GuardStop {
		return GuardStop{File: "g.jsonl", Line: 3, At: mustAt(t, at), Reason: "idle", Host: host, Instance: instance, Provider: "autodl"}
	}
	run := func(items []ledger.LineItem, stops ...GuardStop) []ledger.Finding {
		t.Helper()
		cfg := only(t, "forgotten_instance")
		cfg.GuardStops = stops
		got, err := Run(context.Background(), newLedger(t, items), "2026-10", cfg)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// 5 h session, within the 8 h limit: nothing without a guard stop; a
	// stop at 22:00 named by instance claims the 3 h after it.
	short := append(hourly(t, "autodl", "inst-1", "2026-10-03 20:00", 5, "2.00"), endMarker(t, "autodl"))
	if got := run(short); len(got) != 0 {
		t.Fatalf("no guard: %d findings", len(got))
	}
	guarded := run(short, stop("2026-10-03 22:00", "box", "inst-1"))
	checkFindings(t, guarded,
		[]want{{rule: "forgotten_instance", resource: "inst-1", amount: "6", severity: "medium", evidence: 5}})
	// It carries the guard-stop claim (the refund checklist lists it); a
	// plain forgotten_instance finding carries none.
	if guarded[0].Claim != ledger.ClaimGuardStop {
		t.Errorf("guard finding: claim %q, want %q", guarded[0].Claim, ledger.ClaimGuardStop)
	}
	long := append(hourly(t, "autodl", "inst-1", "2026-10-03 10:00", 10, "2.00"), endMarker(t, "autodl"))
	if got := run(long); len(got) != 1 || got[0].Claim != "" {
		t.Errorf("plain forgotten_instance: %+v, want one finding without a claim", got)
	}
	// The host is no resource of the bill and the platform ran one session
	// then: matched by time alone.
	checkFindings(t, run(short, stop("2026-10-03 22:00", "autodl-container-x", "")),
		[]want{{rule: "forgotten_instance", resource: "inst-1", amount: "6", severity: "medium", evidence: 5}})
	// Two sessions at the time and no name that fits either: no claim.
	two := concat(short, hourly(t, "autodl", "inst-2", "2026-10-03 21:00", 3, "2.00"))
	if got := run(two, stop("2026-10-03 22:00", "autodl-container-x", "")); len(got) != 0 {
		t.Fatalf("ambiguous stop claimed: %+v", got)
	}
	// An instance the bill does not hold: no claim; another platform: none.
	if got := run(short, stop("2026-10-03 22:00", "", "inst-9")); len(got) != 0 {
		t.Fatalf("unknown instance claimed: %+v", got)
	}
	other := stop("2026-10-03 22:00", "", "inst-1")
	other.Provider = "gpushare"
	if got := run(short, other); len(got) != 0 {
		t.Fatalf("another platform's stop claimed: %+v", got)
	}
	// Billing that ends within the tolerance of the stop is no claim.
	if got := run(short, stop("2026-10-04 00:50", "", "inst-1")); len(got) != 0 {
		t.Fatalf("a stop 10 min before the end claimed: %+v", got)
	}
}

func mustAt(t *testing.T, s string) time.Time { return at(t, s) }

func TestReadGuardMarker(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "g.jsonl")
	text := `{"time":"2026-10-03T13:00:00Z","event":"start","host":"h","started":"2026-10-03T13:00:00Z"}
{"time":"2026-10-03T14:00:00Z","event":"warn","reason":"idle","host":"h","started":"2026-10-03T13:00:00Z","idle_since":"2026-10-03T13:30:00Z"}
{"time":"2026-10-03T14:10:00Z","event":"shutdown","reason":"idle","host":"h","started":"2026-10-03T13:00:00Z","command":"false"}
{"time":"2026-10-03T14:10:01Z","event":"failed","reason":"idle","host":"h","started":"2026-10-03T13:00:00Z"}

{"time":"2026-10-03T15:00:00Z","event":"shutdown","reason":"max","host":"h","provider":"autodl","instance":"i-1","started":"2026-10-03T13:00:00Z"}
`
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadGuardMarker(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Line != 6 || got[0].Instance != "i-1" || got[0].Reason != "max" {
		t.Fatalf("stops: %+v (the failed one dropped, the later one kept)", got)
	}
	if err := os.WriteFile(p, []byte(`{"time":"2026-10-03T15:00:00Z","event":"shutdown","provider":"nowhere"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadGuardMarker(p); err == nil {
		t.Fatal("an unknown provider was accepted")
	}
}

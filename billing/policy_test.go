package billing

import (
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

func TestPolicies(t *testing.T) {
	for _, p := range platform.All {
		pol, ok := defaultPolicies[p.Slug]
		if !ok {
			t.Errorf("provider %s: no policy entry", p.Slug)
			continue
		}
		if pol.Source == "" || pol.Seen == "" {
			t.Errorf("provider %s: got source %q seen %q, want both set", p.Slug, pol.Source, pol.Seen)
		}
		if pol.BillingStep <= 0 {
			t.Errorf("provider %s: got billing step %v, want > 0", p.Slug, pol.BillingStep)
		}
		for _, k := range pol.ChargedWhileStopped {
			if !contains(ledger.Kinds, k) {
				t.Errorf("provider %s: charged_while_stopped %q is not a charge kind", p.Slug, k)
			}
		}
		for _, g := range pol.Guesses {
			if !contains([]string{"billing_step", "minimum_billed", "minimum_charge", "charged_while_stopped", "release_days", "refund", "invoice"}, g) {
				t.Errorf("provider %s: guesses names unknown field %q", p.Slug, g)
			}
		}
	}
	for slug := range defaultPolicies {
		if _, ok := platform.Parse(slug); !ok {
			t.Errorf("policy for %q, which is no provider slug", slug)
		}
	}
	for _, tc := range []struct {
		provider string
		step     time.Duration
		release  int
	}{
		{"autodl", time.Second, 15},
		{"gpushare", time.Second, 10},
		{"matpool", time.Minute, 0},
		{"lanrui", time.Hour, 0},
		{"luchen", time.Minute, 0},
	} {
		p := defaultPolicies[tc.provider]
		if p.BillingStep != tc.step || p.ReleaseDays != tc.release {
			t.Errorf("%s: got step %v release %d, want %v and %d (FORMATS.md)", tc.provider, p.BillingStep, p.ReleaseDays, tc.step, tc.release)
		}
	}
	if got := DefaultPolicies(); len(got) != len(defaultPolicies) || got[0].Provider != "autodl" {
		t.Errorf("DefaultPolicies: got %d entries starting with %q, want %d starting with autodl", len(got), got[0].Provider, len(defaultPolicies))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestParsePoliciesErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"not_json", `{`, "billing: policies:"},
		{"no_provider", `{"policies":[{"billing_step":"1s"}]}`, "entry 1 (): no provider"},
		{"bad_step", `{"policies":[{"provider":"x","billing_step":"1 hour"}]}`, `billing_step: "1 hour" is not a duration`},
		{"bad_minimum", `{"policies":[{"provider":"x","minimum_billed":"-1h"}]}`, "minimum_billed"},
		{"bad_charge", `{"policies":[{"provider":"x","minimum_charge":"1分"}]}`, "minimum_charge"},
		{"bad_seen", `{"policies":[{"provider":"x","seen":"Nov 2026"}]}`, `seen: "Nov 2026" is not a date`},
		{"negative_release", `{"policies":[{"provider":"x","release_days":-1}]}`, "release_days"},
		{"duplicate", `{"policies":[{"provider":"x"},{"provider":"x"}]}`, `provider "x" listed twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePolicies([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// Every platform either names its documented stop command with a source
// and date, or says in a note that none was found.
func TestPolicyStopCommands(t *testing.T) {
	for _, p := range DefaultPolicies() {
		switch {
		case p.Stop != nil && (p.Stop.Source == "" || p.Stop.Seen == "" || p.Stop.Command == ""):
			t.Errorf("%s: stop_command without command, source or date: %+v", p.Provider, p.Stop)
		case p.Stop == nil && p.StopNote == "":
			t.Errorf("%s: no stop_command and no stop_command_note saying why", p.Provider)
		}
	}
	if _, err := ParsePolicies([]byte(`{"policies":[{"provider":"x","stop_command":{"command":"stop"}}]}`)); err == nil {
		t.Error("a stop_command without a source was accepted")
	}
}

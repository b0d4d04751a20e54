package rules

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// writeConfig writes text as config.toml in a temp dir and returns its path.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string // substrings of the error, besides the file name
	}{
		{name: "syntax", text: "[params]\n\"a.b\" = = 3\n", want: []string{"line 2"}},
		// the parser quotes what it stopped at: never a secret's text
		{name: "syntax_secret", text: "[[account]]\nname = \"main\"\nsecret = TopSecretValue123\n", want: []string{"line 3, column 10", "found … instead"}},
		{name: "unknown_top_key", text: "rule_dir = \"x\"\n", want: []string{"unknown key rule_dir"}},
		{name: "unknown_param", text: "[params]\n\"forgotten_instance.limt\" = \"6h\"\n", want: []string{`params."forgotten_instance.limt"`, "unknown rule parameter"}},
		{name: "bad_duration", text: "[params]\n\"forgotten_instance.limit\" = \"six hours\"\n", want: []string{`params."forgotten_instance.limit"`, "not a positive duration"}},
		{name: "float_amount", text: "[params]\n\"egress.min_amount\" = 0.5\n", want: []string{`params."egress.min_amount"`, "is a TOML float", `"0.5"`}},
		{name: "array_param", text: "[params]\n\"egress.min_amount\" = [1]\n", want: []string{"is a TOML array"}},
		{name: "rules_dir_type", text: "rules_dir = 3\n", want: []string{"rules_dir", "want a string"}},
		{name: "bad_timeout", text: "user_rule_timeout = \"-1s\"\n", want: []string{"user_rule_timeout", "not a positive duration"}},
		{name: "policy_no_provider", text: "[[policy]]\nrelease_days = 3\n", want: []string{"policy[1]", "provider: missing"}},
		{name: "policy_unknown_key", text: "[[policy]]\nprovider = \"autodl\"\nreleasedays = 3\n", want: []string{"policy[1]", "unknown key releasedays"}},
		{name: "policy_bad_step", text: "[[policy]]\nprovider = \"autodl\"\nbilling_step = \"often\"\n", want: []string{"policy[1]", "billing_step"}},
		{name: "policy_days_type", text: "[[policy]]\nprovider = \"autodl\"\nrelease_days = \"ten\"\n", want: []string{"policy[1]", "release_days", "want an integer"}},
		{name: "policy_bad_kind", text: "[[policy]]\nprovider = \"autodl\"\ncharged_while_stopped = [\"disk\"]\n", want: []string{"charged_while_stopped", `"disk" is not a charge kind`}},
		{name: "policy_twice", text: "[[policy]]\nprovider = \"autodl\"\n[[policy]]\nprovider = \"AutoDL\"\n", want: []string{"policy[2]", "listed twice"}},
		{name: "price_missing", text: "[[price]]\nprovider = \"autodl\"\ngpu_model = \"RTX 4090\"\n", want: []string{"price[1]", "price_per_hour: missing"}},
		{name: "price_float", text: "[[price]]\nprovider = \"autodl\"\ngpu_model = \"RTX 4090\"\nprice_per_hour = 1.9\n", want: []string{"price[1]", "price_per_hour", "is a TOML float"}},
		{name: "price_bad_model", text: "[[price]]\nprovider = \"autodl\"\ngpu_model = \"无\"\nprice_per_hour = \"1.9\"\n", want: []string{"price[1]", "gpu_model"}},
		{name: "price_twice", text: "[[price]]\nprovider = \"autodl\"\ngpu_model = \"RTX 4090\"\nprice_per_hour = \"1.9\"\n" +
			"[[price]]\nprovider = \"AutoDL\"\ngpu_model = \"4090\"\nprice_per_hour = \"2\"\n", want: []string{"[[price]]", "repeats entry 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeConfig(t, tc.text)
			_, err := LoadConfig(p)
			if err == nil {
				t.Fatalf("got no error, want one containing %q", tc.want)
			}
			for _, w := range append([]string{"config " + p}, tc.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got error %q, want it to contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "TopSecret") {
				t.Errorf("error %q quotes the secret", err)
			}
		})
	}
	t.Run("missing_file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "nope.toml")
		if _, err := LoadConfig(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("got error %v, want one naming %s", err, p)
		}
	})
}

const sampleConfig = `# a user's config
rules_dir = "my-rules"
user_rule_timeout = "3s"

[params]
"forgotten_instance.limit" = "6h"
"egress.min_amount" = 20
"stopped_storage.enabled" = false

[[policy]]
provider = "AutoDL"
minimum_billed = "1h"

[[policy]]
provider = "newcloud"
billing_step = "1m"
release_days = 5

[[price]]
provider = "autodl"
gpu_model = "GeForce RTX 4090"
price_per_hour = "1.5"
source = "my invoice"
seen = "2026-10"
`

func TestLoadConfig(t *testing.T) {
	p := writeConfig(t, sampleConfig)
	cfg, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source != p {
		t.Errorf("got Source %q, want %q", cfg.Source, p)
	}
	if want := filepath.Join(filepath.Dir(p), "my-rules"); cfg.RulesDir != want {
		t.Errorf("got RulesDir %q, want %q (relative to the config file)", cfg.RulesDir, want)
	}
	if cfg.UserRuleTimeout != 3*time.Second {
		t.Errorf("got UserRuleTimeout %v, want 3s", cfg.UserRuleTimeout)
	}
	// parameters: visible in Describe
	values := map[string]string{}
	for _, info := range Describe(cfg) {
		for _, p := range info.Params {
			values[info.ID+"."+p.Name] = p.Value
		}
	}
	for k, want := range map[string]string{"forgotten_instance.limit": "6h", "egress.min_amount": "20",
		"stopped_storage.enabled": "false", "forgotten_instance.night_end": "07:00"} {
		if values[k] != want {
			t.Errorf("Describe %s: got %q, want %q", k, values[k], want)
		}
	}
	// a policy entry overrides only the fields it gives
	autodl, _ := billing.DefaultPolicy("autodl")
	a := cfg.Policies["autodl"]
	if a.MinimumBilled != time.Hour || a.ReleaseDays != autodl.ReleaseDays || a.BillingStep != time.Second {
		t.Errorf("autodl policy: got minimum %v, release %d, step %v; want 1h, the embedded %d, 1s",
			a.MinimumBilled, a.ReleaseDays, a.BillingStep, autodl.ReleaseDays)
	}
	if n := cfg.Policies["newcloud"]; n.BillingStep != time.Minute || n.ReleaseDays != 5 {
		t.Errorf("newcloud policy: got step %v release %d, want 1m and 5", n.BillingStep, n.ReleaseDays)
	}
	if got, ok := (&Input{cfg: cfg}).Policy("newcloud"); !ok || got.ReleaseDays != 5 {
		t.Errorf("Input.Policy(newcloud): got %+v %v, want the config's entry", got, ok)
	}
	// prices overlay the catalog
	cat := (&Input{cfg: cfg}).referencePrices()
	if p, ok := cat.Lookup("autodl", "RTX 4090", ledger.PricingOnDemand, "CNY"); !ok || p.PerHour.String() != "1.5" || p.Source != "my invoice" {
		t.Errorf("autodl 4090: got %+v %v, want the config's 1.5", p, ok)
	}
	if p, ok := cat.Lookup("autodl", "A100 80G", ledger.PricingOnDemand, "CNY"); !ok || p.PerHour.String() != "8" {
		t.Errorf("autodl A100: got %+v %v, want the embedded 8", p, ok)
	}
	if cat.Len() != billing.DefaultPrices().Len() {
		t.Errorf("overlay: got %d prices, want %d (one replaced)", cat.Len(), billing.DefaultPrices().Len())
	}
	// the audit record keeps every value from the config
	var params map[string]string
	if err := json.Unmarshal([]byte(cfg.ParamsJSON()), &params); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"forgotten_instance.limit": "6h", "egress.min_amount": "20",
		"policy.autodl.minimum_billed": "1h0m0s", "policy.newcloud.release_days": "5",
		"price.autodl.RTX4090.on_demand.CNY": "1.5", "config.file": p, "user_rules.timeout": "3s",
		"user_rules.dir": cfg.RulesDir} {
		if params[k] != want {
			t.Errorf("ParamsJSON %s: got %q, want %q", k, params[k], want)
		}
	}
	// --set still goes on top
	if err := cfg.Set("forgotten_instance.limit=4h"); err != nil || cfg.Params["forgotten_instance.limit"] != "4h" {
		t.Errorf("Set after LoadConfig: got %q (%v), want 4h", cfg.Params["forgotten_instance.limit"], err)
	}
}

func gpu(model string) opt { return func(_ *testing.T, li *ledger.LineItem) { li.GPUModel = model } }

// TestConfigEffective checks that values from a config file change what the
// rules find: a price override makes price_deviation fire, a policy
// override makes min_duration_rounding judge, a parameter silences a rule.
func TestConfigEffective(t *testing.T) {
	db := newLedger(t, []ledger.LineItem{
		item(t, "autodl", compute, "inst-1", "2026-10-03 14:00", "2026-10-03 15:00", "1.90", qty("1", "hour"), price("1.90"), gpu("RTX 4090")),
	})
	run := func(cfg Config) map[string]int {
		fs, err := Run(context.Background(), db, "2026-10", cfg)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int{}
		for _, f := range fs {
			m[f.RuleID]++
		}
		return m
	}
	base := run(DefaultConfig())
	if base["price_deviation"] != 0 || base["min_duration_rounding"] != 0 {
		t.Fatalf("defaults: got findings %v, want no price_deviation nor min_duration_rounding", base)
	}
	cfg, err := LoadConfig(writeConfig(t, `
[[price]]
provider = "autodl"
gpu_model = "RTX 4090"
price_per_hour = "1.5"

[[policy]]
provider = "autodl"
minimum_billed = "1h"
`))
	if err != nil {
		t.Fatal(err)
	}
	got := run(cfg)
	if got["price_deviation"] != 1 || got["min_duration_rounding"] != 1 {
		t.Errorf("with overrides: got findings %v, want one price_deviation and one min_duration_rounding", got)
	}
	cfg, err = LoadConfig(writeConfig(t, `
[params]
"forgotten_instance.enabled" = false
"release_risk.enabled" = false
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := run(cfg); got["forgotten_instance"] != 0 {
		t.Errorf("with forgotten_instance disabled: got findings %v", got)
	}
}

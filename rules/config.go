package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// The config file (TOML) changes what an audit runs with (DESIGN.md
// "Reference data", docs/user-rules.md):
//
//	rules_dir = "rules"            # folder of user SQL rules; relative to this file
//	user_rule_timeout = "10s"      # time limit of one user rule
//
//	[params]                       # rule parameters, as `gpubill rules` lists them
//	"forgotten_instance.limit" = "6h"
//	"egress.min_amount" = 20
//
//	[[policy]]                     # override (part of) a platform policy
//	provider = "autodl"
//	release_days = 10
//
//	[[price]]                      # add or replace a reference price
//	provider = "autodl"
//	gpu_model = "RTX 4090"
//	price_per_hour = "1.68"
//
//	[[exempt]]                     # an expected long run (exempt.go)
//	resource = "i-train"           # or project = "…", or tag = "key" / "key=value"
//	until = "2026-12-31"
//
// Amounts are written as strings or integers, never as TOML floats: a float
// would not keep the exact decimal.

// DefaultUserRuleTimeout is the time limit of one user SQL rule.
const DefaultUserRuleTimeout = 10 * time.Second

// configFile is the TOML document; values are read loosely (any) so that
// each wrong one is reported with its key and what it should be.
type configFile struct {
	RulesDir        any              `toml:"rules_dir"`
	UserRuleTimeout any              `toml:"user_rule_timeout"`
	Params          map[string]any   `toml:"params"`
	Policy          []map[string]any `toml:"policy"`
	Price           []map[string]any `toml:"price"`
	Exempt          []map[string]any `toml:"exempt"`
	// Account holds the [[account]] tables of gpubill fetch (API
	// credentials), read by package fetch and ignored here.
	Account []map[string]any `toml:"account"`
	// Notify holds the [[notify]] tables of gpubill watch (group robot
	// webhooks), read by package watch and ignored here.
	Notify []map[string]any `toml:"notify"`
	// Budget holds the [[budget]] tables of gpubill watch, read by
	// package watch and ignored here.
	Budget []map[string]any `toml:"budget"`
}

// policyKeys are the fields of a [[policy]] entry: those of policies.json.
var policyKeys = []string{"provider", "billing_step", "minimum_billed", "minimum_charge", "charged_while_stopped",
	"release_days", "notes_zh", "notes_en", "refund_zh", "refund_en", "invoice_zh", "invoice_en", "guesses", "source", "seen"}

// priceKeys are the fields of a [[price]] entry: those of prices.json.
var priceKeys = []string{"provider", "gpu_model", "pricing_model", "price_per_hour", "currency", "note_zh", "note_en",
	"source", "seen"}

// LoadConfig reads the config file at path on top of DefaultConfig. Every
// error names the file and the key (or line) at fault. A relative rules_dir
// is taken relative to the file's folder; "~/" is the home directory.
func LoadConfig(path string) (Config, error) {
	cfg := DefaultConfig()
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	if err := cfg.parseConfig(path, b); err != nil {
		return DefaultConfig(), err
	}
	cfg.Source = path
	return cfg, nil
}

func (cfg *Config) parseConfig(path string, b []byte) error {
	fail := func(key string, err error) error {
		return fmt.Errorf("config %s: %s: %w", path, key, err)
	}
	var doc configFile
	md, err := toml.Decode(string(b), &doc)
	if err != nil {
		// The parser's message may quote the text it stopped at, which can
		// be a secret ([[account]], [[notify]]): the quotes are left out,
		// the line and column say where to look.
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return fmt.Errorf("config %s: line %d, column %d: %s", path, pe.Position.Line, pe.Position.Col, unquoted(pe.Message))
		}
		return fmt.Errorf("config %s: %s", path, unquoted(err.Error()))
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return fmt.Errorf("config %s: unknown key %s (known: rules_dir, user_rule_timeout, [params], [[policy]], [[price]], [[exempt]])",
			path, strings.Join(keys, ", "))
	}
	if doc.RulesDir != nil {
		s, err := tomlString(doc.RulesDir)
		if err != nil {
			return fail("rules_dir", err)
		}
		if s = strings.TrimSpace(s); s != "" {
			if rest, ok := strings.CutPrefix(s, "~/"); ok {
				home, err := os.UserHomeDir()
				if err != nil {
					return fail("rules_dir", err)
				}
				s = filepath.Join(home, rest)
			} else if !filepath.IsAbs(s) {
				s = filepath.Join(filepath.Dir(path), s)
			}
		}
		cfg.RulesDir = s
	}
	if doc.UserRuleTimeout != nil {
		s, err := tomlString(doc.UserRuleTimeout)
		if err == nil {
			cfg.UserRuleTimeout, err = parseDurationParam(s)
		}
		if err != nil {
			return fail("user_rule_timeout", err)
		}
	}
	keys := make([]string, 0, len(doc.Params))
	for k := range doc.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		key := "params." + strconv.Quote(k)
		v, err := tomlScalar(doc.Params[k])
		if err != nil {
			return fail(key, err)
		}
		p, err := lookupParam(k)
		if err != nil {
			return fail(key, err)
		}
		if err := checkParam(k, p.Type, v); err != nil {
			return fail(key, err)
		}
		cfg.Params[k] = v
	}
	for i, entry := range doc.Policy {
		key := fmt.Sprintf("policy[%d]", i+1)
		p, err := policyFromTOML(entry)
		if err != nil {
			return fail(key, err)
		}
		if _, dup := cfg.Policies[p.Provider]; dup {
			return fail(key, fmt.Errorf("provider %q is listed twice", p.Provider))
		}
		cfg.Policies[p.Provider] = p
	}
	for i, entry := range doc.Exempt {
		e, err := exemptionFromTOML(entry)
		if err != nil {
			return fail(fmt.Sprintf("exempt[%d]", i+1), err)
		}
		cfg.Exemptions = append(cfg.Exemptions, e)
	}
	if len(doc.Price) > 0 {
		entries := make([]billing.PriceEntry, 0, len(doc.Price))
		for i, entry := range doc.Price {
			pj, err := priceFromTOML(entry)
			if err == nil {
				_, err = pj.Price()
			}
			if err != nil {
				return fail(fmt.Sprintf("price[%d]", i+1), err)
			}
			entries = append(entries, pj)
		}
		raw, err := json.Marshal(map[string]any{"prices": entries})
		if err != nil {
			return fmt.Errorf("config %s: %w", path, err)
		}
		cat, err := billing.ParsePrices(raw) // every entry is valid: only a repeated key is left to find
		if err != nil {
			return fmt.Errorf("config %s: [[price]]: %s", path, strings.TrimPrefix(err.Error(), "billing: prices: "))
		}
		cfg.Prices = cat
	}
	return nil
}

// tomlString accepts a TOML string.
func tomlString(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%v is a TOML %s, want a string", v, tomlType(v))
	}
	return s, nil
}

// tomlScalar renders a parameter value: a string, an integer or a boolean.
// Floats are refused: 0.1 in TOML is a binary float, not the decimal 0.1.
func tomlScalar(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		return "", fmt.Errorf("%v is a TOML float; write the amount as a string, e.g. \"%v\", so that it stays exact", x, x)
	}
	return "", fmt.Errorf("%v is a TOML %s, want a string, integer or boolean", v, tomlType(v))
}

func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "table"
	}
	return fmt.Sprintf("%T", v)
}

func tomlStrings(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%v is a TOML %s, want an array of strings", v, tomlType(v))
	}
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("%v is a TOML %s, want a string", x, tomlType(x))
		}
		out = append(out, strings.TrimSpace(s))
	}
	return out, nil
}

func unknownKeys(entry map[string]any, known []string) error {
	var bad []string
	for k := range entry {
		if !slices.Contains(known, k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return fmt.Errorf("unknown key %s (known: %s)", strings.Join(bad, ", "), strings.Join(known, ", "))
}

// providerSlug reads a provider given as a slug or a platform's name.
func providerSlug(v any) (string, error) {
	s, err := tomlString(v)
	if err != nil {
		return "", err
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("empty provider")
	}
	if slug, ok := platform.Parse(s); ok {
		return slug, nil
	}
	return strings.ToLower(s), nil
}

// policyFromTOML reads a [[policy]] entry. The keys it gives replace those
// of the embedded policy of the provider; the others keep their values.
func policyFromTOML(entry map[string]any) (billing.Policy, error) {
	if err := unknownKeys(entry, policyKeys); err != nil {
		return billing.Policy{}, err
	}
	pv, ok := entry["provider"]
	if !ok {
		return billing.Policy{}, errors.New("provider: missing")
	}
	slug, err := providerSlug(pv)
	if err != nil {
		return billing.Policy{}, fmt.Errorf("provider: %w", err)
	}
	pj := billing.PolicyEntry{Provider: slug}
	if base, ok := billing.DefaultPolicy(slug); ok {
		pj = base.Entry()
	}
	for _, k := range policyKeys[1:] {
		v, ok := entry[k]
		if !ok {
			continue
		}
		var err error
		set := func(dst *string) {
			var s string
			if s, err = tomlString(v); err == nil {
				*dst = s
			}
		}
		switch k {
		case "billing_step":
			set(&pj.BillingStep)
		case "minimum_billed":
			set(&pj.MinimumBilled)
		case "minimum_charge":
			var s string
			if s, err = tomlScalar(v); err == nil {
				pj.MinimumCharge = s
			}
		case "charged_while_stopped":
			if pj.ChargedWhileStopped, err = tomlStrings(v); err == nil {
				for _, kind := range pj.ChargedWhileStopped {
					if !slices.Contains(ledger.Kinds, kind) {
						err = fmt.Errorf("%q is not a charge kind (%s)", kind, strings.Join(ledger.Kinds, ", "))
						break
					}
				}
			}
		case "release_days":
			n, isInt := v.(int64)
			if !isInt {
				err = fmt.Errorf("%v is a TOML %s, want an integer", v, tomlType(v))
			}
			pj.ReleaseDays = int(n)
		case "notes_zh":
			set(&pj.NotesZH)
		case "notes_en":
			set(&pj.NotesEN)
		case "refund_zh":
			set(&pj.RefundZH)
		case "refund_en":
			set(&pj.RefundEN)
		case "invoice_zh":
			set(&pj.InvoiceZH)
		case "invoice_en":
			set(&pj.InvoiceEN)
		case "guesses":
			pj.Guesses, err = tomlStrings(v)
		case "source":
			set(&pj.Source)
		case "seen":
			set(&pj.Seen)
		}
		if err != nil {
			return billing.Policy{}, fmt.Errorf("%s: %w", k, err)
		}
	}
	return pj.Policy()
}

// priceFromTOML reads a [[price]] entry into the prices.json shape, for
// ParsePrices to check.
func priceFromTOML(entry map[string]any) (billing.PriceEntry, error) {
	var pj billing.PriceEntry
	if err := unknownKeys(entry, priceKeys); err != nil {
		return pj, err
	}
	for _, k := range priceKeys {
		v, ok := entry[k]
		if !ok {
			continue
		}
		var s string
		var err error
		if k == "price_per_hour" {
			s, err = tomlScalar(v)
		} else {
			s, err = tomlString(v)
		}
		if err != nil {
			return pj, fmt.Errorf("%s: %w", k, err)
		}
		switch k {
		case "provider":
			pj.Provider = s
		case "gpu_model":
			pj.GPUModel = s
		case "pricing_model":
			pj.PricingModel = s
		case "price_per_hour":
			pj.PricePerHour = json.RawMessage(strconv.Quote(s))
		case "currency":
			pj.Currency = s
		case "note_zh":
			pj.NoteZH = s
		case "note_en":
			pj.NoteEN = s
		case "source":
			pj.Source = s
		case "seen":
			pj.Seen = s
		}
	}
	return pj, nil
}

// quotedText is what a TOML parse message quotes: "…" or '…'.
var quotedText = regexp.MustCompile(`"[^"]*"|'[^']*'`)

// unquoted is msg with every quoted fragment replaced by "…".
func unquoted(msg string) string { return quotedText.ReplaceAllString(msg, "…") }

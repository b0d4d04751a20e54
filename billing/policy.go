package billing

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpubill/gpubill/platform"
	"github.com/shopspring/decimal"
)

// Policy is what gpubill knows about how one platform bills (DESIGN.md
// "Reference data"). Zero durations and amounts mean none or unknown.
type Policy struct {
	Provider string
	// BillingStep is the granularity of on-demand time billing (1s, 1m, 1h).
	BillingStep time.Duration
	// MinimumBilled is the shortest duration a charge is billed for.
	MinimumBilled time.Duration
	// MinimumCharge is the smallest amount of one charge (AutoDL: ¥0.01).
	MinimumCharge decimal.NullDecimal
	// ChargedWhileStopped lists the charge kinds that keep billing while an
	// instance is shut down.
	ChargedWhileStopped []string
	// ReleaseDays is after how many days a stopped instance is released and
	// its data deleted; 0 = no such rule known.
	ReleaseDays        int
	NotesZH, NotesEN   string
	RefundZH, RefundEN string
	InvoiceZH          string
	InvoiceEN          string
	// Guesses names the fields that are inferred, not confirmed by the vendor
	// (billing_step, minimum_billed, …).
	Guesses []string
	Source  string
	Seen    string // YYYY-MM-DD
	// Stop is the platform's own stop command or API, where its docs name
	// one (gpubill guard --then); nil where none was found.
	Stop *StopCommand
	// StopNote says what is known when Stop is nil, or what to mind.
	StopNote string
}

// StopCommand is a platform's documented way to stop an instance, with
// the page that names it and the date that page was seen.
type StopCommand struct {
	Command string `json:"command"`
	Note    string `json:"note"`
	Source  string `json:"source"`
	Seen    string `json:"seen"`
}

// IsGuess reports whether field (a policies.json name) is a guess.
func (p Policy) IsGuess(field string) bool { return slices.Contains(p.Guesses, field) }

// PolicyEntry is one entry of policies.json, as written (a [[policy]]
// entry of the config file is read into one too).
type PolicyEntry struct {
	Provider            string       `json:"provider"`
	BillingStep         string       `json:"billing_step"`
	MinimumBilled       string       `json:"minimum_billed"`
	MinimumCharge       string       `json:"minimum_charge"`
	ChargedWhileStopped []string     `json:"charged_while_stopped"`
	ReleaseDays         int          `json:"release_days"`
	NotesZH             string       `json:"notes_zh"`
	NotesEN             string       `json:"notes_en"`
	RefundZH            string       `json:"refund_zh"`
	RefundEN            string       `json:"refund_en"`
	InvoiceZH           string       `json:"invoice_zh"`
	InvoiceEN           string       `json:"invoice_en"`
	Guesses             []string     `json:"guesses"`
	Source              string       `json:"source"`
	Seen                string       `json:"seen"`
	StopCommand         *StopCommand `json:"stop_command"`
	StopCommandNote     string       `json:"stop_command_note"`
}

//go:embed policies.json
var policiesData []byte

// defaultPolicies is the embedded policy table, keyed by provider slug.
var defaultPolicies = mustParsePolicies(policiesData)

func mustParsePolicies(b []byte) map[string]Policy {
	m, err := ParsePolicies(b)
	if err != nil {
		// The file is embedded at build time; TestPolicies keeps it valid.
		panic(err)
	}
	return m
}

// ParsePolicies reads a policy table in the format of the embedded
// policies.json ({"policies": [...]}), keyed by provider slug.
func ParsePolicies(b []byte) (map[string]Policy, error) {
	var doc struct {
		Policies []PolicyEntry `json:"policies"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("billing: policies: %w", err)
	}
	out := make(map[string]Policy, len(doc.Policies))
	for i, pj := range doc.Policies {
		p, err := pj.Policy()
		if err != nil {
			return nil, fmt.Errorf("billing: policies: entry %d (%s): %w", i+1, pj.Provider, err)
		}
		if _, dup := out[p.Provider]; dup {
			return nil, fmt.Errorf("billing: policies: provider %q listed twice", p.Provider)
		}
		out[p.Provider] = p
	}
	return out, nil
}

// Policy checks the entry and reads it into a Policy.
func (pj PolicyEntry) Policy() (Policy, error) {
	p := Policy{Provider: strings.TrimSpace(pj.Provider), ChargedWhileStopped: pj.ChargedWhileStopped,
		ReleaseDays: pj.ReleaseDays, NotesZH: pj.NotesZH, NotesEN: pj.NotesEN, RefundZH: pj.RefundZH, RefundEN: pj.RefundEN,
		InvoiceZH: pj.InvoiceZH, InvoiceEN: pj.InvoiceEN, Guesses: pj.Guesses, Source: pj.Source, Seen: pj.Seen,
		Stop: pj.StopCommand, StopNote: pj.StopCommandNote}
	if p.Provider == "" {
		return p, fmt.Errorf("no provider")
	}
	var err error
	if p.BillingStep, err = parseOptDuration(pj.BillingStep); err != nil {
		return p, fmt.Errorf("billing_step: %w", err)
	}
	if p.MinimumBilled, err = parseOptDuration(pj.MinimumBilled); err != nil {
		return p, fmt.Errorf("minimum_billed: %w", err)
	}
	if s := strings.TrimSpace(pj.MinimumCharge); s != "" {
		d, err := decimal.NewFromString(s)
		if err != nil {
			return p, fmt.Errorf("minimum_charge: %q is not an amount", s)
		}
		p.MinimumCharge = decimal.NullDecimal{Decimal: d, Valid: true}
	}
	if p.ReleaseDays < 0 {
		return p, fmt.Errorf("release_days: %d is negative", p.ReleaseDays)
	}
	if p.Seen != "" {
		if _, err := time.Parse("2006-01-02", p.Seen); err != nil {
			return p, fmt.Errorf("seen: %q is not a date (YYYY-MM-DD)", p.Seen)
		}
	}
	if c := p.Stop; c != nil {
		if c.Command == "" || c.Source == "" {
			return p, fmt.Errorf("stop_command: a command and its source, or null")
		}
		if _, err := time.Parse("2006-01-02", c.Seen); err != nil {
			return p, fmt.Errorf("stop_command.seen: %q is not a date (YYYY-MM-DD)", c.Seen)
		}
	}
	return p, nil
}

func parseOptDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration such as 1s, 1m or 1h", s)
	}
	return d, nil
}

// DefaultPolicies returns a copy of the embedded policy table, sorted by
// provider in the order of platform.All, then by slug.
func DefaultPolicies() []Policy {
	out := make([]Policy, 0, len(defaultPolicies))
	for _, p := range defaultPolicies {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		ri, rj := platform.Rank(out[i].Provider), platform.Rank(out[j].Provider)
		if ri != rj {
			return ri < rj
		}
		return out[i].Provider < out[j].Provider
	})
	return out
}

// DefaultPolicy returns the embedded policy of provider; ok is false for
// a provider with no policy (FOCUS providers such as aws).
func DefaultPolicy(provider string) (Policy, bool) {
	p, ok := defaultPolicies[provider]
	return p, ok
}

// PolicyLookup returns the policy in effect for a provider (the rules'
// Config.PolicyFor: the user's override, else the embedded entry); ok is
// false for a provider with no policy. A nil PolicyLookup is DefaultPolicy.
type PolicyLookup func(provider string) (Policy, bool)

// For returns the policy of provider through l (DefaultPolicy when l is nil).
func (l PolicyLookup) For(provider string) (Policy, bool) {
	if l == nil {
		return DefaultPolicy(provider)
	}
	return l(provider)
}

// Entry is the policies.json entry of p: the inverse of PolicyEntry.Policy.
func (p Policy) Entry() PolicyEntry {
	dur := func(d time.Duration) string {
		if d == 0 {
			return ""
		}
		return d.String()
	}
	pj := PolicyEntry{Provider: p.Provider, BillingStep: dur(p.BillingStep), MinimumBilled: dur(p.MinimumBilled),
		ChargedWhileStopped: p.ChargedWhileStopped, ReleaseDays: p.ReleaseDays, NotesZH: p.NotesZH, NotesEN: p.NotesEN,
		RefundZH: p.RefundZH, RefundEN: p.RefundEN, InvoiceZH: p.InvoiceZH, InvoiceEN: p.InvoiceEN, Guesses: p.Guesses,
		Source: p.Source, Seen: p.Seen}
	if p.MinimumCharge.Valid {
		pj.MinimumCharge = p.MinimumCharge.Decimal.String()
	}
	return pj
}

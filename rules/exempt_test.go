package rules

import (
	"context"
	"slices"
	"testing"

	"github.com/gpubill/gpubill/ledger"
)

// TestForgottenInstanceExemptions: an [[exempt]] entry by resource, project
// or tag silences forgotten_instance for sessions that start by its until
// date; another resource, another provider or a later session is still
// reported.
func TestForgottenInstanceExemptions(t *testing.T) {
	tag := func(tags string) opt { return func(_ *testing.T, li *ledger.LineItem) { li.Tags = tags } }
	project := func(p string) opt { return func(_ *testing.T, li *ledger.LineItem) { li.SubAccount = p } }
	var items []ledger.LineItem
	items = append(items, hourly(t, "autodl", "i-res", "2026-10-03 08:00", 36, "2")...)
	items = append(items, hourly(t, "autodl", "i-proj", "2026-10-06 08:00", 36, "2", project("lab-a"))...)
	items = append(items, hourly(t, "autodl", "i-tag", "2026-10-09 08:00", 36, "2", tag(`{"purpose":"training"}`))...)
	items = append(items, hourly(t, "autodl", "i-other", "2026-10-12 08:00", 36, "2", tag(`{"purpose":"eval"}`))...)
	items = append(items, hourly(t, "autodl", "i-late", "2026-10-20 08:00", 36, "2", project("lab-a"))...)
	items = append(items, hourly(t, "matpool", "i-res", "2026-10-15 08:00", 36, "2")...)
	items = append(items, item(t, "autodl", ledger.KindStorage, "d-1", "2026-10-30 00:00", "2026-10-31 00:00", "0.1"))
	items = append(items, item(t, "matpool", ledger.KindStorage, "d-2", "2026-10-30 00:00", "2026-10-31 00:00", "0.1"))
	db := newLedger(t, items)
	reported := func(cfg Config) []string {
		t.Helper()
		fs, err := Run(context.Background(), db, "2026-10", cfg)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range fs {
			out = append(out, f.Provider+"/"+f.ResourceID)
		}
		slices.Sort(out)
		return out
	}
	all := []string{"autodl/i-late", "autodl/i-other", "autodl/i-proj", "autodl/i-res", "autodl/i-tag", "matpool/i-res"}
	if got := reported(only(t, "forgotten_instance")); !slices.Equal(got, all) {
		t.Fatalf("without exemptions: got %v, want %v", got, all)
	}
	cfg := only(t, "forgotten_instance")
	cfg.Exemptions = []Exemption{
		{RuleID: "forgotten_instance", Provider: "autodl", Resource: "i-res", Until: "2026-12-31"},
		{RuleID: "forgotten_instance", Project: "lab-a", Until: "2026-10-15"},
		{RuleID: "forgotten_instance", Tag: "purpose=training", Until: "2026-10-31"},
	}
	want := []string{"autodl/i-late", "autodl/i-other", "matpool/i-res"}
	if got := reported(cfg); !slices.Equal(got, want) {
		t.Errorf("with exemptions: got %v, want %v", got, want)
	}
	cfg.Exemptions = append(cfg.Exemptions, Exemption{RuleID: "forgotten_instance", Tag: "purpose", Until: "2026-10-31"})
	if got := reported(cfg); !slices.Equal(got, []string{"autodl/i-late", "matpool/i-res"}) {
		t.Errorf("with a tag key: got %v", got)
	}
	cfg.Exemptions = []Exemption{{RuleID: "egress", Resource: "i-res", Until: "2026-12-31"}}
	if err := cfg.Validate(); err == nil {
		t.Errorf("an exemption of egress: no error")
	}
}

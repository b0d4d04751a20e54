package rules

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var bj = mustLoc("Asia/Shanghai")

func mustLoc(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// at parses "2006-01-02 15:04" as Beijing time.
func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.ParseInLocation("2006-01-02 15:04", s, bj)
	if err != nil {
		t.Fatalf("bad test time %q: %v", s, err)
	}
	return v
}

func dec(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatalf("bad test amount %q: %v", s, err)
	}
	return d
}

func ndec(t *testing.T, s string) decimal.NullDecimal {
	t.Helper()
	return decimal.NullDecimal{Decimal: dec(t, s), Valid: true}
}

// opt changes a test line item.
type opt func(t *testing.T, li *ledger.LineItem)

func parent(id string) opt {
	return func(_ *testing.T, li *ledger.LineItem) { li.ParentResourceID = id }
}
func account(a string) opt {
	return func(_ *testing.T, li *ledger.LineItem) { li.BillingAccountID = a }
}
func currency(c string) opt { return func(_ *testing.T, li *ledger.LineItem) { li.Currency = c } }
func pricing(m string) opt  { return func(_ *testing.T, li *ledger.LineItem) { li.PricingModel = m } }
func period(m string) opt   { return func(_ *testing.T, li *ledger.LineItem) { li.BillingPeriod = m } }

func usage(start, end string) opt {
	return func(t *testing.T, li *ledger.LineItem) {
		li.UsageStart, li.UsageEnd = at(t, start), at(t, end)
	}
}

func qty(q, unit string) opt {
	return func(t *testing.T, li *ledger.LineItem) {
		li.PricingQuantity, li.PricingUnit = ndec(t, q), unit
	}
}

func consumed(q, unit string) opt {
	return func(t *testing.T, li *ledger.LineItem) {
		li.ConsumedQuantity, li.ConsumedUnit = ndec(t, q), unit
	}
}

func price(p string) opt {
	return func(t *testing.T, li *ledger.LineItem) { li.ListUnitPrice = ndec(t, p) }
}

// item makes a line item of kind for provider/resource over [start, end)
// (Beijing time) billed cost CNY, in the billing period of its start.
func item(t *testing.T, provider, kind, resource, start, end, cost string, opts ...opt) ledger.LineItem {
	t.Helper()
	li := ledger.LineItem{Provider: provider, Kind: kind,
		ResourceID: resource, ChargePeriodStart: at(t, start), ChargePeriodEnd: at(t, end),
		BilledCost: dec(t, cost), Currency: "CNY", ChargeCategory: ledger.CategoryUsage,
		PricingModel: ledger.PricingOnDemand}
	li.BillingPeriod = li.ChargePeriodStart.In(bj).Format("2006-01")
	for _, o := range opts {
		o(t, &li)
	}
	return li
}

// hourly makes n consecutive one-hour compute items from start, each cost.
func hourly(t *testing.T, provider, resource, start string, n int, cost string, opts ...opt) []ledger.LineItem {
	t.Helper()
	s := at(t, start)
	var out []ledger.LineItem
	for i := 0; i < n; i++ {
		a, b := s.Add(time.Duration(i)*time.Hour), s.Add(time.Duration(i+1)*time.Hour)
		out = append(out, item(t, provider, ledger.KindCompute, resource, a.Format("2006-01-02 15:04"), b.Format("2006-01-02 15:04"), cost, opts...))
	}
	return out
}

// newLedger writes items into a fresh ledger under t.TempDir(), as one
// imported file "bills/test.csv" with rows 1…n and row keys row-001….
func newLedger(t *testing.T, items []ledger.LineItem) *ledger.DB {
	t.Helper()
	db := testkit.OpenLedger(t)
	rows := make([]ledger.LineItem, len(items))
	copy(rows, items)
	for i := range rows {
		if rows[i].RowKey == "" {
			rows[i].RowKey = fmt.Sprintf("row-%03d", i+1)
		}
	}
	testkit.ImportItems(t, db, "bills/test.csv", rows)
	return db
}

// only returns a config that runs just the rule ruleID, with extra
// "rule.param=value" settings.
func only(t *testing.T, ruleID string, sets ...string) Config {
	t.Helper()
	cfg := DefaultConfig()
	for _, r := range registry {
		if r.ID() != ruleID {
			if err := cfg.Set(r.ID() + ".enabled=false"); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, s := range sets {
		if err := cfg.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

// goldenFinding is how findings are written to golden files.
type goldenFinding struct {
	Fingerprint  string           `json:"fingerprint"`
	RuleID       string           `json:"rule_id"`
	Severity     string           `json:"severity"`
	Provider     string           `json:"provider"`
	ResourceID   string           `json:"resource_id"`
	PeriodStart  string           `json:"period_start"`
	PeriodEnd    string           `json:"period_end"`
	AmountAtRisk *string          `json:"amount_at_risk"`
	Currency     string           `json:"currency"`
	Basis        string           `json:"basis"`
	ReasonZH     string           `json:"reason_zh"`
	ReasonEN     string           `json:"reason_en"`
	AdviceZH     string           `json:"advice_zh"`
	AdviceEN     string           `json:"advice_en"`
	Evidence     []goldenEvidence `json:"evidence"`
}

type goldenEvidence struct {
	File       string `json:"file"`
	Row        int    `json:"row"`
	LineItemID int64  `json:"line_item_id"`
}

func renderFindings(t *testing.T, fs []ledger.Finding) []byte {
	t.Helper()
	out := make([]goldenFinding, 0, len(fs))
	for _, f := range fs {
		g := goldenFinding{Fingerprint: f.Fingerprint, RuleID: f.RuleID, Severity: f.Severity, Provider: f.Provider,
			ResourceID: f.ResourceID, PeriodStart: f.PeriodStart.In(bj).Format(time.RFC3339),
			PeriodEnd: f.PeriodEnd.In(bj).Format(time.RFC3339), Currency: f.Currency, Basis: f.Basis,
			ReasonZH: f.ReasonZH, ReasonEN: f.ReasonEN, AdviceZH: f.AdviceZH, AdviceEN: f.AdviceEN, Evidence: []goldenEvidence{}}
		for _, e := range f.Evidence {
			g.Evidence = append(g.Evidence, goldenEvidence{e.File, e.Row, e.LineItemID})
		}
		if f.AmountAtRisk.Valid {
			s := f.AmountAtRisk.Decimal.String()
			g.AmountAtRisk = &s
		}
		out = append(out, g)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// golden compares got with testdata/<test name>/findings.golden, rewriting
// it with -update.
func golden(t *testing.T, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", filepath.FromSlash(t.Name()), "findings.golden"), got, *update)
}

// want is the essence of one expected finding.
type want struct {
	rule     string
	resource string
	amount   string // "null" = unknown
	currency string
	severity string
	evidence int // number of evidence rows
}

func amountText(d decimal.NullDecimal) string {
	if !d.Valid {
		return "null"
	}
	return d.Decimal.String()
}

// checkFindings compares findings with wants, in order.
func checkFindings(t *testing.T, got []ledger.Finding, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		var lines []string
		for _, f := range got {
			lines = append(lines, fmt.Sprintf("%s %s %s %s %s", f.RuleID, f.Severity, f.ResourceID, amountText(f.AmountAtRisk), f.ReasonEN))
		}
		t.Fatalf("got %d findings, want %d:\n%s", len(got), len(wants), strings.Join(lines, "\n"))
	}
	for i, w := range wants {
		f := got[i]
		cur := w.currency
		if cur == "" {
			cur = "CNY"
		}
		if f.RuleID != w.rule || f.ResourceID != w.resource || amountText(f.AmountAtRisk) != w.amount ||
			f.Currency != cur || f.Severity != w.severity || len(f.Evidence) != w.evidence {
			t.Errorf("finding %d: got %s %s amount %s %s severity %s evidence %d; want %s %s amount %s %s severity %s evidence %d",
				i, f.RuleID, f.ResourceID, amountText(f.AmountAtRisk), f.Currency, f.Severity, len(f.Evidence),
				w.rule, w.resource, w.amount, cur, w.severity, w.evidence)
		}
		if len(f.Fingerprint) != 16 {
			t.Errorf("finding %d: fingerprint %q is not 16 hex digits", i, f.Fingerprint)
		}
	}
}

// ruleCase is one row of a rule's table test.
type ruleCase struct {
	name  string
	month string // default 2026-10
	items func(t *testing.T) []ledger.LineItem
	sets  []string
	want  []want
}

func runRuleCases(t *testing.T, ruleID string, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := newLedger(t, tc.items(t))
			month := tc.month
			if month == "" {
				month = "2026-10"
			}
			got, err := Run(context.Background(), db, month, only(t, ruleID, tc.sets...))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			checkFindings(t, got, tc.want)
			golden(t, renderFindings(t, got))
		})
	}
}

func concat(parts ...[]ledger.LineItem) []ledger.LineItem {
	var out []ledger.LineItem
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

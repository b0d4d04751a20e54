package rules_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reports"
	"github.com/gpubill/gpubill/rules"
)

// scenarioDir holds the labelled October 2026 scenario (testdata/scenario/README.md).
const scenarioDir = "../testdata/scenario/2026-10"

// scenarioExpect is expected.json: what the scenario plants and what it
// must leave alone.
type scenarioExpect struct {
	Month   string `json:"month"`
	Planted []struct {
		RuleID     string  `json:"rule_id"`
		Provider   string  `json:"provider"`
		ResourceID string  `json:"resource_id"`
		Amount     *string `json:"amount_at_risk"` // nil = unknown (null)
		Note       string  `json:"note"`
	} `json:"planted"`
	Clean []struct {
		Provider   string   `json:"provider"`
		ResourceID string   `json:"resource_id"`
		Rules      []string `json:"rules"`
		Note       string   `json:"note"`
	} `json:"clean"`
}

// TestScenario imports a month of bills from seven platforms in their own
// formats into a real ledger, audits it with the default config and checks
// every planted finding (rule, provider, resource, money at risk to the fen),
// that no clean look-alike is flagged by the rules it imitates, and that no
// rule fires more often than planted.
func TestScenario(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(scenarioDir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want scenarioExpect
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&struct {
		Comment string `json:"comment"`
		*scenarioExpect
	}{scenarioExpect: &want}); err != nil {
		t.Fatalf("expected.json: %v", err)
	}

	ctx := context.Background()
	db, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "scenario.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bills, err := filepath.Glob(filepath.Join(scenarioDir, "*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(bills) < 6 {
		t.Fatalf("got %d bill files in %s, want at least 6", len(bills), scenarioDir)
	}
	results, err := ingest.ImportPaths(ctx, db, bills, ingest.Options{})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	formats := map[string]bool{}
	providers := map[string]bool{}
	for _, r := range results {
		if r.Status != "ok" || r.Err != nil || r.New != r.Read || r.Read == 0 {
			t.Errorf("import %s: got status %q, read %d, new %d, err %v; want ok with every row new",
				filepath.Base(r.Path), r.Status, r.Read, r.New, r.Err)
		}
		formats[r.Format] = true
		for _, p := range strings.Split(r.Provider, ",") {
			providers[p] = true
		}
	}
	if len(formats) < 6 || len(providers) < 5 {
		t.Errorf("got formats %v and providers %v; want at least 6 formats and 5 platforms", keys(formats), keys(providers))
	}

	findings, err := rules.Run(ctx, db, want.Month, rules.DefaultConfig())
	if err != nil {
		t.Fatalf("audit: %v", err)
	}

	// Every planted finding is found, once, with its money at risk.
	used := make([]bool, len(findings))
	plantedPerRule := map[string]int{}
	for _, p := range want.Planted {
		plantedPerRule[p.RuleID]++
		name := p.RuleID + " " + p.Provider + "/" + p.ResourceID
		i := slices.IndexFunc(findings, func(f ledger.Finding) bool {
			return f.RuleID == p.RuleID && f.Provider == p.Provider && f.ResourceID == p.ResourceID
		})
		if i < 0 {
			t.Errorf("%s: not found (%s)", name, p.Note)
			continue
		}
		if used[i] {
			t.Errorf("%s: listed twice in expected.json", name)
		}
		used[i] = true
		f := findings[i]
		switch {
		case p.Amount == nil:
			if f.AmountAtRisk.Valid {
				t.Errorf("%s: got amount at risk %s, want null (%s)", name, f.AmountAtRisk.Decimal, p.Note)
			}
		case !f.AmountAtRisk.Valid:
			t.Errorf("%s: got amount at risk null, want %s (%s)", name, *p.Amount, p.Note)
		default:
			wantAmt, err := decimal.NewFromString(*p.Amount)
			if err != nil {
				t.Fatalf("%s: expected.json amount %q: %v", name, *p.Amount, err)
			}
			// shopspring's Round rounds half away from zero
			if got := f.AmountAtRisk.Decimal.Round(2); !got.Equal(wantAmt) {
				t.Errorf("%s: got amount at risk %s (exact %s), want %s (%s)", name, got.StringFixed(2),
					f.AmountAtRisk.Decimal, *p.Amount, p.Note)
			}
		}
	}

	// Nothing fires that was not planted.
	gotPerRule := map[string]int{}
	for i, f := range findings {
		gotPerRule[f.RuleID]++
		if !used[i] {
			t.Errorf("unplanted finding %s %s/%s, amount %v: %s", f.RuleID, f.Provider, f.ResourceID,
				amountText(f.AmountAtRisk), f.ReasonEN)
		}
	}
	for _, id := range ledger.RuleIDs {
		if plantedPerRule[id] < 2 {
			t.Errorf("rule %s: %d planted in expected.json, want at least 2", id, plantedPerRule[id])
		}
		if gotPerRule[id] != plantedPerRule[id] {
			t.Errorf("rule %s: got %d findings, want %d (planted)", id, gotPerRule[id], plantedPerRule[id])
		}
	}

	checkMonthlyBillEnds(t, ctx, db, want.Month, results, findings)

	// The default month is the bulk month: 腾讯云's image row deducted at
	// 11-01 00:01 puts one line item in November, which is no month to
	// report without --month.
	if ms, _ := db.Months(ctx); !slices.Contains(ms, "2026-11") {
		t.Errorf("months %v: want November's spill-over row present", ms)
	}
	if got, err := db.DefaultMonth(ctx, time.Date(2026, 12, 15, 0, 0, 0, 0, ledger.DefaultTZ())); err != nil || got != want.Month {
		t.Errorf("default month: got %q (%v), want %s, the month that holds the bulk of the data", got, err, want.Month)
	}

	// No clean look-alike is touched: neither as the finding's resource nor
	// through an evidence row of that resource (or naming it as parent).
	evidenceRes := map[int64][2]string{}
	rows, err := db.SQL().QueryContext(ctx, `SELECT id, resource_id, parent_resource_id FROM line_items`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var res, parent string
		if err := rows.Scan(&id, &res, &parent); err != nil {
			t.Fatal(err)
		}
		evidenceRes[id] = [2]string{res, parent}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range want.Clean {
		if len(c.Rules) == 0 {
			t.Errorf("clean %s/%s: lists no rules", c.Provider, c.ResourceID)
		}
		for _, r := range c.Rules {
			if !slices.Contains(ledger.RuleIDs, r) {
				t.Errorf("clean %s/%s: unknown rule %q", c.Provider, c.ResourceID, r)
			}
		}
		for _, f := range findings {
			if f.Provider != c.Provider || !slices.Contains(c.Rules, f.RuleID) {
				continue
			}
			touched := f.ResourceID == c.ResourceID
			for _, e := range f.Evidence {
				rp := evidenceRes[e.LineItemID]
				touched = touched || rp[0] == c.ResourceID || rp[1] == c.ResourceID
			}
			if touched {
				t.Errorf("clean %s/%s flagged by %s (finding on %s, amount %v): %s; want no finding (%s)",
					c.Provider, c.ResourceID, f.RuleID, f.ResourceID, amountText(f.AmountAtRisk), f.ReasonEN, c.Note)
			}
		}
	}
}

// checkMonthlyBillEnds is the scenario's by-hand check of the end of the
// data (issue 27, 2): a monthly bill (a file with a billing period) covers
// its month to the end, so neither forgotten_instance nor the instances
// report calls an instance of it still running unless its last charge
// reaches the end of that month.
func checkMonthlyBillEnds(t *testing.T, ctx context.Context, db *ledger.DB, month string, results []ingest.Result, findings []ledger.Finding) {
	t.Helper()
	loc := ledger.DefaultTZ()
	monthly := map[string]time.Time{} // provider → end of its monthly bill's month
	for _, r := range results {
		if !billing.MonthlyBillFormat(r.Format) {
			continue
		}
		zone := loc
		if r.Format == "focus" {
			zone = time.UTC
		}
		_, end, _ := ledger.MonthRange(month, zone)
		for _, p := range strings.Split(r.Provider, ",") {
			monthly[p] = end
		}
	}
	if len(monthly) < 4 {
		t.Errorf("got monthly bills of %d platforms, want at least 4", len(monthly))
	}
	for _, f := range findings {
		end, ok := monthly[f.Provider]
		if ok && f.RuleID == "forgotten_instance" && strings.Contains(f.ReasonEN, "still running") && f.PeriodEnd.Before(end) {
			t.Errorf("%s/%s: forgotten_instance says still running, but it ends %s, before its bill's month ends %s: %s",
				f.Provider, f.ResourceID, f.PeriodEnd.In(loc), end.In(loc), f.ReasonEN)
		}
	}
	rep, err := reports.Instances(ctx, db, reports.InstancesOptions{Month: month, TZ: loc, Policy: rules.DefaultConfig().PolicyFor})
	if err != nil {
		t.Fatalf("instances report: %v", err)
	}
	running := 0
	for _, row := range rep.Instances {
		end, ok := monthly[row.Provider]
		if !ok || row.State != reports.StateRunning {
			continue
		}
		running++
		if row.LastCompute.Before(end) {
			t.Errorf("report instances: %s/%s running, but its last compute ends %s, before its bill's month ends %s",
				row.Provider, row.ResourceID, row.LastCompute.In(loc), end.In(loc))
		}
	}
	if running < 2 { // the 阿里云 and 华为云 packages run to 11-01
		t.Errorf("report instances: %d instances of monthly bills running, want the 2 packages reaching the month's end", running)
	}
}

func amountText(d decimal.NullDecimal) string {
	if !d.Valid {
		return "null"
	}
	return d.Decimal.String()
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

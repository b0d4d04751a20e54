package ledger

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// findingText renders every field of fs that Findings reads, amounts with
// their exponent and times with their zone, so that two lists compare
// whole.
func findingText(fs []Finding) string {
	var b strings.Builder
	dec := func(d decimal.NullDecimal) string {
		if !d.Valid {
			return "null"
		}
		return fmt.Sprintf("%s(e%d)", d.Decimal.String(), d.Decimal.Exponent())
	}
	tm := func(t time.Time) string { return t.String() + "@" + t.Location().String() }
	for _, f := range fs {
		fmt.Fprintf(&b, "%d %s run=%d %s %s %s %s %s [%s, %s) %s %s %q %q %q %q %q %s\n", f.ID, f.Fingerprint, f.RunID,
			f.Month, f.RuleID, f.Severity, f.Provider, f.ResourceID, tm(f.PeriodStart), tm(f.PeriodEnd),
			dec(f.AmountAtRisk), f.Currency, f.Basis, f.ReasonZH, f.ReasonEN, f.AdviceZH, f.AdviceEN, f.State)
		for _, e := range f.Evidence {
			fmt.Fprintf(&b, "  %d %s:%d key=%q cost=%s\n", e.LineItemID, e.File, e.Row, e.RowKey, dec(e.BilledCost))
		}
	}
	return b.String()
}

// RunFindings gives what Findings reads back after the run is stored: the
// run's findings with stored times (zone and fraction dropped) and amounts
// (no trailing zeros), evidence sorted, each line item once, without row
// keys, costs carried or looked up; the acknowledged and resolved findings
// of earlier runs that the run did not produce, with their evidence; none
// of another month; all in Findings' order (severity, rule, provider,
// resource, start, id).
func TestRunFindingsIsFindings(t *testing.T) {
	ctx := context.Background()
	db, all := byIDLedger(t, 40)
	shanghai := time.FixedZone("CST", 8*3600)
	t0 := time.Date(2026, 10, 3, 9, 30, 15, 500_000_000, shanghai) // a fraction the ledger does not keep
	ev := func(costs bool, idx ...int) []Evidence {
		var out []Evidence
		for _, i := range idx {
			if i < 0 { // a line item the ledger does not hold
				out = append(out, Evidence{LineItemID: all[len(all)-1].ID + 100, File: "gone.csv", Row: 9})
				continue
			}
			e := Evidence{LineItemID: all[i].ID, File: all[i].File, Row: all[i].SourceRow, RowKey: all[i].RowKey}
			if costs { // the producer had the line item
				e.BilledCost = decimal.NewNullDecimal(all[i].BilledCost)
			}
			out = append(out, e)
		}
		return out
	}
	mk := func(fp, rule, sev, provider, resource string, start time.Time, amount string, evidence []Evidence) Finding {
		f := Finding{Fingerprint: fp, RuleID: rule, Severity: sev, Provider: provider, ResourceID: resource,
			PeriodStart: start, PeriodEnd: start.Add(90 * time.Minute), Currency: "CNY", Basis: "basis " + fp,
			ReasonZH: "原因 " + fp, ReasonEN: "reason " + fp, AdviceZH: "建议", AdviceEN: "advice", Evidence: evidence}
		if amount != "" {
			f.AmountAtRisk = decimal.NewNullDecimal(decimal.RequireFromString(amount))
		}
		return f
	}
	first := []Finding{
		mk("kept-acked", "seat_fee", SeverityLow, "autodl", "i-1", t0, "1.500", ev(false, 3, 1)),
		mk("kept-resolved", "seat_fee", SeverityLow, "autodl", "i-2", t0, "2", ev(false, 4, 5, -1)),
		mk("pruned", "egress", SeverityHigh, "autodl", "i-3", t0, "3", ev(false, 6)),
		mk("again", "egress", SeverityMedium, "autodl", "i-4", t0, "4.10", ev(false, 7)),
	}
	if _, err := db.SaveAudit(ctx, "2026-10", "Asia/Shanghai", "{}", first); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveAudit(ctx, "2026-11", "Asia/Shanghai", "{}", []Finding{
		mk("other-month", "seat_fee", SeverityHigh, "autodl", "i-1", t0.AddDate(0, 1, 0), "5", ev(true, 2))}); err != nil {
		t.Fatal(err)
	}
	for fp, state := range map[string]string{"kept-acked": "acknowledged", "kept-resolved": "resolved", "again": "acknowledged"} {
		if err := db.SetFindingState(ctx, fp, state); err != nil {
			t.Fatal(err)
		}
	}

	shared := ev(true, 12, 10, 11, 10) // two findings, one slice: unsorted, a line item twice
	run := []Finding{
		mk("again", "egress", SeverityMedium, "autodl", "i-4", t0, "0.94000000", ev(true, 9, 8)),
		mk("kept-acked", "seat_fee", SeverityLow, "autodl", "i-1", t0.Add(time.Hour), "", ev(false, 3)),
		mk("tie-b", "seat_fee", SeverityLow, "autodl", "i-9", t0, "7.00", shared),
		mk("tie-a", "seat_fee", SeverityLow, "autodl", "i-9", t0, "7", shared),
		mk("info", "price_deviation", SeverityInfo, "matpool", "", time.Time{}, "0.010", nil),
		mk("high", "forgotten_instance", SeverityHigh, "gpugeek", "i-5", t0.Add(-48*time.Hour), "100",
			append(ev(true, 20, 14, 13, 13), ev(false, 15, -1)...)),
	}
	w, err := db.BeginAudit(ctx, "2026-10", "Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Rollback()
	if err := w.Add(ctx, run[:2]); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(ctx, run[2:]); err != nil {
		t.Fatal(err)
	}
	runID, err := w.Commit(ctx, "{}")
	if err != nil {
		t.Fatal(err)
	}
	want, err := db.Findings(ctx, "2026-10")
	if err != nil {
		t.Fatal(err)
	}
	if cap(want) != len(want) { // counted first, the other month's left out
		t.Errorf("Findings made room for %d findings, read %d", cap(want), len(want))
	}
	got, err := db.RunFindings(ctx, "2026-10", runID, run)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := findingText(got), findingText(want); g != w {
		t.Errorf("RunFindings:\n%s\nFindings reads:\n%s", g, w)
	}
	// The fixture covers what it means to: 7 findings, one kept of an
	// earlier run, one gone line item, a repeat dropped.
	text := findingText(want)
	for _, s := range []string{"kept-resolved", "gone.csv", "(e-2)", "acknowledged"} {
		if !strings.Contains(text, s) {
			t.Errorf("the findings read back hold no %q:\n%s", s, text)
		}
	}
	if len(want) != 7 || strings.Contains(text, "pruned") || strings.Contains(text, "other-month") {
		t.Errorf("the fixture stored %d findings, want 7 without pruned and other-month:\n%s", len(want), text)
	}

	if _, err := db.RunFindings(ctx, "2026-10", runID+1, run); err == nil {
		t.Error("RunFindings took findings of another run")
	}
}

// Findings are in the order SQL's ORDER BY gave them before they were
// sorted in Go: severity (high, medium, low, the rest), rule, provider,
// resource, period start (stored text), id; many ties, unknown
// severities and zero times among them.
func TestFindingsOrderIsTheSQLOrder(t *testing.T) {
	ctx := context.Background()
	db, all := byIDLedger(t, 20)
	rng := rand.New(rand.NewPCG(5, 6))
	starts := []time.Time{{}, time.Date(2026, 10, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 10, 1, 23, 0, 0, 0, time.FixedZone("CST", 8*3600)),
		time.Date(2026, 9, 30, 1, 0, 0, 0, time.UTC)}
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	var fs []Finding
	for i := range 300 {
		fs = append(fs, Finding{Fingerprint: fmt.Sprintf("fp%03d", i), RuleID: pick("seat_fee", "egress", "my_rule"),
			Severity: pick(SeverityHigh, SeverityMedium, SeverityLow, SeverityInfo, "weird"), Provider: pick("autodl", "matpool"),
			ResourceID: pick("", "i-1", "i-2"), PeriodStart: starts[rng.IntN(len(starts))], Currency: "CNY",
			Evidence: []Evidence{{LineItemID: all[i%len(all)].ID, File: "x.csv", Row: i}}})
	}
	if _, err := db.SaveAudit(ctx, "2026-10", "UTC", "{}", fs); err != nil {
		t.Fatal(err)
	}
	got, err := db.Findings(ctx, "2026-10")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.SQL().Query(`SELECT id FROM findings WHERE month = '2026-10' ORDER BY CASE severity WHEN 'high' THEN 0
		WHEN 'medium' THEN 1 WHEN 'low' THEN 2 ELSE 3 END, rule_id, provider, resource_id, period_start, id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var want []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	if len(got) != len(want) || len(want) != 300 {
		t.Fatalf("%d findings read, %d by SQL, want 300", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i] {
			t.Fatalf("finding %d: id %d, SQL's order has %d", i, got[i].ID, want[i])
		}
	}
}

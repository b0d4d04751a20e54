package ledger

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

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

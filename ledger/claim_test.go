package ledger

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestFindingClaimStored: a finding's claim is stored on insert (beside one
// without), updated in place by a re-audit (cleared, then set again: the
// same finding, same id) and read back (migration 0016).
func TestFindingClaimStored(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	mk := func(fp, claim string) Finding {
		return Finding{Fingerprint: fp, RuleID: "forgotten_instance", Severity: SeverityMedium, Provider: "autodl",
			ResourceID: "i-1", PeriodStart: time.Unix(0, 0), PeriodEnd: time.Unix(3600, 0), Currency: "CNY",
			AmountAtRisk: decimal.NewNullDecimal(decimal.New(5, 0)), ReasonZH: "原因", ReasonEN: "reason", Claim: claim}
	}
	read := func() map[string]Finding {
		t.Helper()
		fs, err := db.Findings(ctx, "2026-10")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]Finding{}
		for _, f := range fs {
			out[f.Fingerprint] = f
		}
		return out
	}
	var id int64
	for i, step := range []struct{ a, b string }{
		{ClaimGuardStop, ""}, // inserted
		{"", ClaimGuardStop}, // updated: cleared, and set
		{ClaimGuardStop, ClaimGuardStop},
	} {
		if _, err := db.SaveAudit(ctx, "2026-10", "Asia/Shanghai", "{}", []Finding{mk("a", step.a), mk("b", step.b)}); err != nil {
			t.Fatal(err)
		}
		got := read()
		if len(got) != 2 || got["a"].Claim != step.a || got["b"].Claim != step.b {
			t.Fatalf("run %d: claims a=%q b=%q (%d findings), want a=%q b=%q", i+1, got["a"].Claim, got["b"].Claim, len(got), step.a, step.b)
		}
		if i == 0 {
			id = got["a"].ID
		} else if got["a"].ID != id {
			t.Errorf("run %d: finding a has id %d, want %d (updated in place)", i+1, got["a"].ID, id)
		}
	}
}

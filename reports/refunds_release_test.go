package reports

import (
	"context"
	"testing"
	"time"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// TestRefundsAfterRelease: a release rule of one day for every platform
// gives claims of charges after release, and the checklist reads the same
// in JSON and as a table from one run to the next.
func TestRefundsAfterRelease(t *testing.T) {
	db := instEdgeLedger(t, 3000)
	saveEdgeFindings(t, db)
	ctx := context.Background()
	oneDay := func(provider string) (billing.Policy, bool) {
		return billing.Policy{Provider: provider, BillingStep: time.Minute, ReleaseDays: 1}, true
	}
	for i, policy := range []billing.PolicyLookup{oneDay} {
		opts := RefundsOptions{Month: "2026-10", TZ: ledger.DefaultTZ(), Policy: policy}
		want, err := Refunds(ctx, db, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Refunds(ctx, db, opts)
		if err != nil {
			t.Fatal(err)
		}
		after := 0
		for _, p := range want.Platforms {
			for _, c := range p.Claims {
				if c.RuleID == RuleChargedAfterRelease {
					after++
				}
			}
		}
		if after < 3 {
			t.Fatalf("policy %d: the fixture gave %d claims of charges after release: want more", i, after)
		}
		for _, f := range []string{FormatJSON, FormatTable} {
			g, w := string(render(t, got, WriteOptions{Format: f})), string(render(t, want, WriteOptions{Format: f}))
			if g != w {
				t.Errorf("policy %d, %s: the checklist differs:\n got %.3000s\nwant %.3000s", i, f, g, w)
			}
		}
	}
}

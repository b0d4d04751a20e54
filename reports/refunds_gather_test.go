package reports

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// releaseText is what refunds reads of the instances of s: each one's last
// compute and release date, the data ends and which line items each owns.
func releaseText(s *instanceSet) string {
	var b strings.Builder
	for _, in := range s.order {
		fmt.Fprintf(&b, "%s/%s ran=%v last=%s release=%s days=%d data=%s\n", in.key.provider, in.key.id, in.ran,
			in.lastEnd, in.releaseAt, in.releaseDays, in.dataEnd)
	}
	for _, o := range s.owner {
		fmt.Fprintf(&b, "%d→%s/%s ", o.id, o.in.key.provider, o.in.key.id)
	}
	fmt.Fprintf(&b, "\ndata ends %v\n", s.dataEnd)
	return b.String()
}

// TestRefundsGatherRelease: the instances gathered for refunds alone
// (gatherRelease) have the last compute, release dates and line items of
// those gathered whole, and the checklist is the same, with the embedded
// policies and with a release rule of one day for every platform (more
// instances charged after their release).
func TestRefundsGatherRelease(t *testing.T) {
	db := instEdgeLedger(t, 3000)
	saveEdgeFindings(t, db)
	ctx := context.Background()
	oneDay := func(provider string) (billing.Policy, bool) {
		return billing.Policy{Provider: provider, BillingStep: time.Minute, ReleaseDays: 1}, true
	}
	for i, policy := range []billing.PolicyLookup{nil, oneDay} {
		var sets [2]*instanceSet
		for k, what := range []instGather{gatherAll, gatherRelease} {
			s, err := loadInstances(ctx, db, "2026-10", ledger.DefaultTZ(), policy, what, nil)
			if err != nil {
				t.Fatal(err)
			}
			sets[k] = s
		}
		if got, want := releaseText(sets[1]), releaseText(sets[0]); got != want {
			t.Errorf("policy %d: gatherRelease differs from gatherAll:\n got %s\nwant %s", i, got, want)
		}
		opts := RefundsOptions{Month: "2026-10", TZ: ledger.DefaultTZ(), Policy: policy}
		want, err := refunds(ctx, db, opts, gatherAll)
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

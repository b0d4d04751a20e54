package reports

import (
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/rules"
)

// TestTicketGuessCitesSource: a platform rule that the policy table marks as
// a guess is written as one in the ticket, with the table's source and the
// date it was seen; a confirmed rule is stated plainly.
func TestTicketGuessCitesSource(t *testing.T) {
	loc := ledger.DefaultTZ()
	at := time.Date(2026, 10, 8, 13, 0, 0, 0, loc)
	item := &ledger.Item{Kind: ledger.KindSeat, ChargePeriodStart: at.AddDate(0, 0, 11), ChargePeriodEnd: at.AddDate(0, 0, 12)}
	c := &RefundClaim{RuleID: RuleChargedAfterRelease, ResourceID: "i-1", Currency: "CNY", items: []*ledger.Item{item},
		lastCompute: at, releaseAt: at.AddDate(0, 0, 10), releaseDays: 10}
	pol := rules.Policy{Guesses: []string{"release_days"}, Source: "the platform's help page on releases", Seen: "2026-11-02"}
	for _, tc := range []struct {
		lang, guess string
		pol         rules.Policy
		want        []string
	}{
		{"en", "guess", pol, []string{"I assume, without your confirmation (source: the platform's help page on releases, seen 2026-11-02), that your platform releases"}},
		{"zh", "guess", pol, []string{"我推测（未经贵平台确认）（依据：the platform's help page on releases，2026-11-02 查阅）贵平台会释放"}},
		{"en", "confirmed", rules.Policy{Source: "s", Seen: "2026-11-02"}, []string{"Your platform releases"}},
	} {
		p := &RefundPlatform{Provider: "lanrui", HasPolicy: true, Policy: tc.pol}
		got := p.claimSentence(tc.lang, c, loc)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %s: got %q, want it to contain %q", tc.lang, tc.guess, got, w)
			}
		}
		if tc.guess == "confirmed" && strings.Contains(got, "assume") {
			t.Errorf("confirmed rule written as a guess: %q", got)
		}
	}
}

package reports

import (
	"testing"

	"github.com/gpubill/gpubill/billing"
)

// An entry without a source is a guess wherever it is used; a vendor page
// is vendor; anything else (a user's report) is a user report.
func TestConfidenceOf(t *testing.T) {
	for _, c := range []struct {
		source string
		guess  bool
		want   string
	}{
		{"", false, billing.ConfidenceGuess},
		{"  ", false, billing.ConfidenceGuess},
		{"https://www.autodl.com/docs/price/", false, billing.ConfidenceVendor},
		{"https://www.autodl.com/docs/price/", true, billing.ConfidenceGuess},
		{"user report, 2026-11-29", false, billing.ConfidenceUser},
	} {
		if got := confidenceOf(c.source, c.guess); got != c.want {
			t.Errorf("confidenceOf(%q, %v) = %q, want %q", c.source, c.guess, got, c.want)
		}
	}
}

package billing

import (
	"strings"
	"testing"
)

// TestRatesEmbedded: the embedded catalog parses, and every entry says
// where it comes from, when it was seen and how sure it is (ParseRates
// refuses an entry without).
func TestRatesEmbedded(t *testing.T) {
	c, err := Rates()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rates) == 0 || len(c.Terms) == 0 || len(c.Equivalents) == 0 {
		t.Fatalf("embedded catalog is empty: %+v", c)
	}
	for _, r := range c.Rates {
		if r.Currency != "CNY" {
			t.Errorf("%s %s: currency %q", r.Provider, r.What, r.Currency)
		}
	}
	if r, ok := c.Rate("autodl", RateTraffic); !ok || !r.Price.IsZero() {
		t.Errorf("autodl traffic: %+v %v, want ¥0 (no traffic fees)", r, ok)
	}
	if tm, ok := c.Term("gpugeek", "spot"); !ok || tm.Factor.String() != "0.6" || tm.Confidence != ConfidenceGuess {
		t.Errorf("gpugeek spot: %+v %v", tm, ok)
	}
}

func TestParseRatesErrors(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"unknown field", `{"rates": [], "bogus": 1}`, "unknown field"},
		{"no source", `{"rates": [{"provider": "autodl", "what": "traffic_gb", "price": "0", "seen": "2026-11-29", "confidence": "guess"}]}`, "no source"},
		{"bad date", `{"rates": [{"provider": "autodl", "what": "traffic_gb", "price": "0", "source": "x", "seen": "2026-11", "confidence": "guess"}]}`, "not a date"},
		{"bad confidence", `{"rates": [{"provider": "autodl", "what": "traffic_gb", "price": "0", "source": "x", "seen": "2026-11-29", "confidence": "sure"}]}`, "confidence"},
		{"bad what", `{"rates": [{"provider": "autodl", "what": "gpu", "price": "0", "source": "x", "seen": "2026-11-29", "confidence": "guess"}]}`, "what"},
		{"package without period", `{"terms": [{"provider": "matpool", "pricing_model": "package", "factor": "0.7", "source": "x", "seen": "2026-11-29", "confidence": "guess"}]}`, "period"},
		{"zero factor", `{"terms": [{"provider": "matpool", "pricing_model": "spot", "factor": "0", "source": "x", "seen": "2026-11-29", "confidence": "guess"}]}`, "factor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseRates([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseRates: %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

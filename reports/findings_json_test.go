package reports

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

// findingJSON is a finding's JSON as the encoder sees it (findingJSONOf):
// the reference findingJSONWriter is held to.
type findingJSON struct {
	Fingerprint  string         `json:"fingerprint"`
	RuleID       string         `json:"rule_id"`
	Severity     string         `json:"severity"`
	Provider     string         `json:"provider"`
	ResourceID   string         `json:"resource_id"`
	PeriodStart  string         `json:"period_start"`
	PeriodEnd    string         `json:"period_end"`
	AmountAtRisk *string        `json:"amount_at_risk"`
	Currency     string         `json:"currency"`
	ReasonZH     string         `json:"reason_zh"`
	ReasonEN     string         `json:"reason_en"`
	AdviceZH     string         `json:"advice_zh"`
	AdviceEN     string         `json:"advice_en"`
	Evidence     []evidenceJSON `json:"evidence"`
	State        string         `json:"state"`
}

func findingJSONOf(e *FindingEntry, opts WriteOptions) findingJSON {
	j := findingJSON{Fingerprint: e.Fingerprint, RuleID: e.RuleID, Severity: e.Severity, Provider: e.Provider,
		ResourceID: e.ResourceID, PeriodStart: formatRFC3339(e.PeriodStart, opts.TZ),
		PeriodEnd: formatRFC3339(e.PeriodEnd, opts.TZ), AmountAtRisk: jsonMoney(e.AmountAtRisk),
		Currency: e.Currency, ReasonZH: e.ReasonZH, ReasonEN: e.ReasonEN, AdviceZH: e.AdviceZH,
		AdviceEN: e.AdviceEN, Evidence: make([]evidenceJSON, 0, len(e.Evidence)), State: e.State}
	for _, ev := range e.Evidence {
		j.Evidence = append(j.Evidence, evidenceJSON{File: ev.File, Row: ev.Row, LineItemID: ev.LineItemID})
	}
	return j
}

// TestFindingJSONWriterIsTheEncoder: a finding appended by hand is byte for
// byte what jsonObject.array wrote of findingJSONOf through the encoder,
// for text the encoder escapes (quotes, backslashes, control characters,
// invalid UTF-8, U+2028/U+2029) and text it leaves (HTML, Chinese, emoji),
// no amount, no evidence, evidence in several files, and in two zones.
func TestFindingJSONWriterIsTheEncoder(t *testing.T) {
	texts := []string{"", "plain", "实例 <a&b> 运行", "q\"uote", `back\slash`, "tab\tnew\nline\r", "\x00\x01\x1f\x7f",
		"bad \xff utf8 \xe5\xae", "sep \u2028 only", "sep \u2029 only", "emoji 🚀", "/path/to/账单 2026-10.csv", "\u00e9\u0301"}
	rng := rand.New(rand.NewPCG(7, 8))
	pick := func() string { return texts[rng.IntN(len(texts))] }
	var entries []FindingEntry
	for i := range 300 {
		f := ledger.Finding{Fingerprint: fmt.Sprintf("%016x", rng.Uint64()), RuleID: pick(), Severity: pick(),
			Provider: pick(), ResourceID: pick(), Currency: pick(), ReasonZH: pick(), ReasonEN: pick(),
			AdviceZH: pick(), AdviceEN: pick(), State: pick()}
		if i%4 != 0 {
			f.PeriodStart = time.Unix(rng.Int64N(4e9), 0)
			f.PeriodEnd = f.PeriodStart.Add(time.Duration(rng.IntN(1e6)) * time.Second)
		}
		if i%5 != 0 {
			f.AmountAtRisk = decimal.NewNullDecimal(decimal.New(rng.Int64N(2e9)-1e9, -int32(rng.IntN(9))))
		}
		for j := range rng.IntN(4) * rng.IntN(30) {
			file := "bill.csv"
			if j%7 > 4 {
				file = pick()
			}
			f.Evidence = append(f.Evidence, ledger.Evidence{LineItemID: rng.Int64N(1 << 40), File: file, Row: rng.IntN(1 << 20)})
		}
		entries = append(entries, FindingEntry{Finding: f})
	}
	for _, tz := range []*time.Location{time.UTC, time.FixedZone("CST", 8*3600)} {
		opts := WriteOptions{TZ: tz}
		var want, got bytes.Buffer
		ow, og := newJSONObject(&want), newJSONObject(&got)
		ow.array("findings", len(entries), func(i int) any { return findingJSONOf(&entries[i], opts) })
		fw := newFindingJSONWriter(opts)
		og.arrayText("findings", len(entries), func(b []byte, i int) []byte { return fw.appendFinding(b, &entries[i]) })
		if err := ow.end(); err != nil {
			t.Fatal(err)
		}
		if err := og.end(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
			for i := 0; i < len(g) && i < len(w); i++ {
				if g[i] != w[i] {
					t.Fatalf("%s: line %d:\n got %q\nwant %q", tz, i+1, g[i], w[i])
				}
			}
			t.Fatalf("%s: %d lines, want %d", tz, len(g), len(w))
		}
		for _, s := range []string{`\u2028`, `\ufffd`, `\"`, `\\`, `\u0000`, `\t`, "<a&b>", `"amount_at_risk": null`, `"evidence": []`} {
			if !strings.Contains(want.String(), s) {
				t.Errorf("the fixture's JSON holds no %s", s)
			}
		}
	}
}

package ledger

import (
	"context"
	"testing"
	"time"
)

// TestCarryAck: ack --carry acknowledges the finding, the same rule and
// resource's findings of later months (stored before or after), not those
// of another resource or an earlier month; reopen stops the carry.
func TestCarryAck(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	finding := func(fp, month, resource string) Finding {
		start, _ := time.Parse("2006-01", month)
		return Finding{Fingerprint: fp, RuleID: "forgotten_instance", Severity: SeverityHigh, Provider: "autodl",
			ResourceID: resource, PeriodStart: start, PeriodEnd: start.Add(36 * time.Hour), Currency: "CNY"}
	}
	save := func(month string, fs ...Finding) map[string]string {
		t.Helper()
		if _, err := db.SaveAudit(ctx, month, "Asia/Shanghai", "{}", fs); err != nil {
			t.Fatal(err)
		}
		stored, err := db.Findings(ctx, month)
		if err != nil {
			t.Fatal(err)
		}
		states := map[string]string{}
		for _, f := range stored {
			states[f.Fingerprint] = f.State
		}
		for _, f := range fs { // what the writer returned matches what it stored
			if f.State != states[f.Fingerprint] {
				t.Errorf("%s: returned state %q, stored %q", f.Fingerprint, f.State, states[f.Fingerprint])
			}
		}
		return states
	}
	save("2026-09", finding("sep", "2026-09", "i-train"))
	save("2026-10", finding("oct", "2026-10", "i-train"))
	save("2026-11", finding("nov", "2026-11", "i-train"), finding("nov-other", "2026-11", "i-other"))
	if err := db.CarryAck(ctx, "oct"); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range []string{"2026-09", "2026-10", "2026-11"} {
		fs, _ := db.Findings(ctx, m)
		for _, f := range fs {
			got[f.Fingerprint] = f.State
		}
	}
	want := map[string]string{"sep": "open", "oct": "acknowledged", "nov": "acknowledged", "nov-other": "open"}
	for fp, w := range want {
		if got[fp] != w {
			t.Errorf("after ack --carry: %s is %q, want %q", fp, got[fp], w)
		}
	}
	dec := save("2026-12", finding("dec", "2026-12", "i-train"), finding("dec-other", "2026-12", "i-other"))
	if dec["dec"] != "acknowledged" || dec["dec-other"] != "open" {
		t.Errorf("December audited after the carry: %v, want dec acknowledged, dec-other open", dec)
	}
	if err := db.SetFindingState(ctx, "oct", "open"); err != nil {
		t.Fatal(err)
	}
	if jan := save("2027-01", finding("jan", "2027-01", "i-train")); jan["jan"] != "open" {
		t.Errorf("after reopen: January's finding is %q, want open", jan["jan"])
	}
	if err := db.CarryAck(ctx, "missing"); err == nil {
		t.Errorf("carry of an unknown fingerprint: no error")
	}
}

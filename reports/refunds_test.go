package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// addTransactions stores the money flow of the refunds tests.
func addTransactions(t *testing.T, db *ledger.DB) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginImport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	imp := &ledger.Import{Path: "bills/flow.csv", SHA256: "sha-flow", Size: 1, Format: "gpubill-flow"}
	if err := tx.AddImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	x := func(n int, provider, account, at, typ, amount, balance string) ledger.Transaction {
		return ledger.Transaction{Provider: provider, Account: account, Time: bj(at), Type: typ, Amount: dec(t, amount),
			Currency: "CNY", Balance: nd(t, balance), ImportID: imp.ID, SourceRow: n, RowKey: fmt.Sprintf("flow#%d", n)}
	}
	txs := []ledger.Transaction{
		x(1, "autodl", "acct-autodl", "2026-10-01 09:00", ledger.TxTopup, "100", "100.00"),
		x(2, "autodl", "acct-autodl", "2026-10-10 12:00", ledger.TxCharge, "5", "95.12345678"),
		x(3, "autodl", "acct-autodl", "2026-10-20 12:00", ledger.TxTopup, "50", ""),
		x(4, "autodl", "acct-autodl", "2026-11-02 12:00", ledger.TxCharge, "1", "144.00"), // after the month
		x(5, "gpushare", "acct-gpushare", "2026-10-05 12:00", ledger.TxCharge, "10", "0"),
		x(6, "lanrui", "acct-lanrui", "2026-10-05 12:00", ledger.TxCharge, "10", "0"),
		x(7, "matpool", "acct-matpool", "2026-10-06 12:00", ledger.TxTopup, "12.5", "12.5"),
	}
	if _, err := tx.InsertTransactions(ctx, txs); err != nil {
		t.Fatal(err)
	}
	if err := tx.FinishImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func refundsSample(t *testing.T) *RefundsReport {
	t.Helper()
	s := newInstSample(t)
	saveInstFindings(t, s)
	addTransactions(t, s.db)
	rep, err := Refunds(context.Background(), s.db, RefundsOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestRefundsGolden(t *testing.T) {
	rep := refundsSample(t)
	for _, fc := range formatCases {
		t.Run(fc.name, func(t *testing.T) {
			got := render(t, rep, fc.opts)
			checkGolden(t, fc.name, got)
			if fc.opts.Format == FormatTSV || fc.opts.Format == FormatCSV || fc.opts.Format == FormatJSON {
				zh := fc.opts
				zh.Lang = "zh"
				if other := render(t, rep, zh); !bytes.Equal(other, got) {
					t.Errorf("%s output depends on the language", fc.opts.Format)
				}
			}
		})
	}
}

// TestRefundsClaims checks which charges are claimed, for how much, and the
// totals, independently of the golden files.
func TestRefundsClaims(t *testing.T) {
	rep := refundsSample(t)
	type claim struct{ rule, resource, amount string }
	want := map[string]struct {
		claims  []claim
		total   string
		balance string // "" = none listed
	}{
		"autodl": {[]claim{{"duplicate_charge", "a1", "1.88"}, {"min_duration_rounding", "a1", "1.25333333"},
			{RuleChargedAfterRelease, "a1", "0.99"}}, "4.12333333", "95.12345678"},
		// 10-11 09:00 release: 15/24 of that day's seat fee, then 20 whole days
		"gpushare": {[]claim{{"price_deviation", "g2", "0.30"}, {RuleChargedAfterRelease, "g2", "10.3125"}}, "10.6125", "0"},
		"matpool":  {nil, "", "12.5"},
	}
	var got []string
	for _, p := range rep.Platforms {
		got = append(got, p.Provider)
	}
	if strings.Join(got, ",") != "autodl,gpushare,matpool" {
		t.Fatalf("platforms: got %v want autodl, gpushare, matpool (lanrui: rounding within its rule, zero balance)", got)
	}
	for _, p := range rep.Platforms {
		t.Run(p.Provider, func(t *testing.T) {
			w := want[p.Provider]
			if len(p.Claims) != len(w.claims) {
				t.Fatalf("claims: got %d want %d", len(p.Claims), len(w.claims))
			}
			sum := decimal.Zero
			for i, c := range p.Claims {
				if c.RuleID != w.claims[i].rule || c.ResourceID != w.claims[i].resource || !c.Amount.Equal(dec(t, w.claims[i].amount)) {
					t.Errorf("claim %d: got %s %s %s want %s %s %s", i, c.RuleID, c.ResourceID, c.Amount,
						w.claims[i].rule, w.claims[i].resource, w.claims[i].amount)
				}
				if c.Fingerprint == "fp-overlap" {
					t.Errorf("a resolved finding was claimed")
				}
				for _, ev := range c.Evidence {
					if c.Fingerprint != "" && !ev.BilledCost.Valid {
						t.Errorf("claim %s: evidence line item %d has no billed cost", c.Fingerprint, ev.LineItemID)
					}
				}
				sum = sum.Add(c.Counted)
			}
			if w.total != "" {
				if len(p.Totals) != 1 || !p.Totals[0].Amount.Equal(dec(t, w.total)) || !p.Totals[0].Amount.Equal(sum) {
					t.Errorf("totals: got %v want %s (= the sum of the claims %s)", p.Totals, w.total, sum)
				}
			}
			if len(p.Balances) != 1 || !p.Balances[0].Balance.Equal(dec(t, w.balance)) {
				t.Errorf("balances: got %v want %s", p.Balances, w.balance)
			}
			if len(p.Claims) > 0 && (len(p.Tickets) != 1 || !strings.Contains(p.Tickets[0].TextZH, "acct-"+p.Provider)) {
				t.Errorf("tickets: got %+v, want one naming the account", p.Tickets)
			}
		})
	}
	if b := rep.Platforms[0].Balances[0]; b.Later != 1 {
		t.Errorf("autodl later movements: got %d want 1 (the top-up without a balance; November's row is after the month)", b.Later)
	}
}

// TestRefundsCountOnce: a line item cited by two claims counts once in the
// platform's total, under the more severe claim.
func TestRefundsCountOnce(t *testing.T) {
	s := newInstSample(t)
	ctx := context.Background()
	ev := s.ev(t, "a1", 1, 2)
	fs := []ledger.Finding{
		{Fingerprint: "dup", RuleID: "duplicate_charge", Severity: ledger.SeverityMedium, Provider: "autodl", ResourceID: "a1",
			AmountAtRisk: nd(t, "1.88"), Currency: "CNY", ReasonZH: "x", ReasonEN: "x", Evidence: ev},
		{Fingerprint: "price", RuleID: "price_deviation", Severity: ledger.SeverityLow, Provider: "autodl", ResourceID: "a1",
			AmountAtRisk: nd(t, "0.40"), Currency: "CNY", ReasonZH: "x", ReasonEN: "x", Evidence: ev},
	}
	if _, err := s.db.SaveAudit(ctx, "2026-10", "Asia/Shanghai", "{}", fs); err != nil {
		t.Fatal(err)
	}
	rep, err := Refunds(ctx, s.db, RefundsOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Platforms[0]
	// duplicate 1.88 + after release 0.99; the price claim's items are already counted
	if p.Provider != "autodl" || len(p.Totals) != 1 || !p.Totals[0].Amount.Equal(dec(t, "2.87")) {
		t.Errorf("autodl totals: got %v want 2.87", p.Totals)
	}
}

// TestRefundsPolicyOverride: a user policy changes the release date, and
// with it the charges after release.
func TestRefundsPolicyOverride(t *testing.T) {
	s := newInstSample(t)
	p, _ := billing.DefaultPolicy("gpushare")
	p.ReleaseDays = 40
	policy := func(provider string) (billing.Policy, bool) {
		if provider == "gpushare" {
			return p, true
		}
		return billing.DefaultPolicy(provider)
	}
	rep, err := Refunds(context.Background(), s.db, RefundsOptions{Month: "2026-10", Policy: policy})
	if err != nil {
		t.Fatal(err)
	}
	for _, pl := range rep.Platforms {
		if pl.Provider == "gpushare" {
			t.Errorf("gpushare: got %d claims want none (release after 40 days lies beyond the data)", len(pl.Claims))
		}
	}
}

func TestRefundsJSONContract(t *testing.T) {
	rep := refundsSample(t)
	var doc struct {
		Month     string `json:"month"`
		Platforms []struct {
			Provider string `json:"provider"`
			Claims   []struct {
				RuleID      string  `json:"rule_id"`
				Fingerprint *string `json:"fingerprint"`
				Amount      string  `json:"amount"`
				PeriodStart *string `json:"period_start"`
				Evidence    []struct {
					File string `json:"file"`
					Row  int    `json:"row"`
				} `json:"evidence"`
			} `json:"claims"`
			Tickets []struct {
				TextZH string `json:"text_zh"`
				TextEN string `json:"text_en"`
			} `json:"tickets"`
		} `json:"platforms"`
	}
	if err := json.Unmarshal(render(t, rep, WriteOptions{Format: FormatJSON}), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Month != "2026-10" || len(doc.Platforms) != 3 {
		t.Fatalf("got month %q and %d platforms want 2026-10 and 3", doc.Month, len(doc.Platforms))
	}
	for _, p := range doc.Platforms {
		for _, c := range p.Claims {
			if (c.Fingerprint == nil) != (c.RuleID == RuleChargedAfterRelease) {
				t.Errorf("%s %s: fingerprint %v: want null exactly for computed claims", p.Provider, c.RuleID, c.Fingerprint)
			}
			if len(c.Evidence) == 0 || c.Evidence[0].File == "" || c.Evidence[0].Row == 0 {
				t.Errorf("%s %s: evidence %v want file and row", p.Provider, c.RuleID, c.Evidence)
			}
			if c.PeriodStart == nil || !strings.HasSuffix(*c.PeriodStart, "+08:00") {
				t.Errorf("%s %s: period_start %v want RFC 3339 with +08:00", p.Provider, c.RuleID, c.PeriodStart)
			}
		}
		for _, tk := range p.Tickets {
			if !strings.Contains(tk.TextZH, "退回") || !strings.Contains(tk.TextEN, "refund") {
				t.Errorf("%s ticket does not ask for a refund:\n%s\n%s", p.Provider, tk.TextZH, tk.TextEN)
			}
		}
	}
}

// TestRefundsClaimsOnly checks that ClaimsOnly leaves the claims, their
// amounts, evidence and totals as the full report has them, and only the
// ticket citations out.
func TestRefundsClaimsOnly(t *testing.T) {
	s := newInstSample(t)
	saveInstFindings(t, s)
	addTransactions(t, s.db)
	ctx := context.Background()
	full, err := Refunds(ctx, s.db, RefundsOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	only, err := Refunds(ctx, s.db, RefundsOptions{Month: "2026-10", ClaimsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	// The tickets are the text: what they are made of is compared.
	cites := map[*RefundsReport]int{}
	for _, r := range []*RefundsReport{full, only} {
		for i := range r.Platforms {
			p := &r.Platforms[i]
			p.Tickets, p.StepsZH, p.StepsEN = nil, nil, nil
			for j := range p.Claims {
				c := &p.Claims[j]
				cites[r] += len(c.cites)
				c.cites, c.platformIDs, c.earlier, c.earlierRow, c.template = nil, nil, nil, rowCite{}, false
			}
		}
	}
	if cites[full] == 0 || cites[only] != 0 {
		t.Fatalf("rows cited: full report %d, claims only %d; want some and none", cites[full], cites[only])
	}
	if !reflect.DeepEqual(full, only) {
		t.Errorf("ClaimsOnly changed more than the citations:\nfull %+v\nonly %+v", full.Platforms, only.Platforms)
	}
}

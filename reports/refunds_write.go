package reports

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/internal/mdtext"
	"github.com/gpubill/gpubill/money"
)

// The refund checklist written out: the block layout of table and
// markdown, the document of csv, tsv, xlsx and html, and the JSON contract.

// Write encodes the checklist (see WriteOptions): JSON is the "platforms"
// contract; table and markdown show one block per platform (claims,
// balance, rules, steps, ticket text); CSV and TSV hold one line per claim.
func (r *RefundsReport) Write(w io.Writer, opts WriteOptions) error {
	opts, err := opts.normalize()
	if err != nil {
		return err
	}
	switch opts.Format {
	case FormatJSON:
		return writeJSON(w, r.json(opts))
	case FormatTable, FormatMarkdown:
		return r.writeBlocks(w, opts)
	}
	return writeDocument(w, opts, r.document(opts))
}

// balanceText renders a platform's balances for humans.
func (p *RefundPlatform) balanceText(lang string, loc *time.Location) string {
	if len(p.Balances) == 0 {
		return tr(lang, "refund.no_balance")
	}
	var parts []string
	for _, b := range p.Balances {
		s := fmt.Sprintf(tr(lang, "refund.balance_at"), moneyWithCurrency(known(b.Balance), b.Currency), instHumanTime(b.Time, loc))
		if b.Account != "" {
			s = b.Account + " " + s
		}
		if b.Later > 0 {
			s += fmt.Sprintf(tr(lang, "refund.balance_later"), b.Later)
			if b.Later == 1 && lang != "zh" {
				s = strings.Replace(s, "movements show", "movement shows", 1)
			}
			if !b.FlowIncomplete {
				s += fmt.Sprintf(tr(lang, "refund.balance_carried"), moneyWithCurrency(known(b.Carried), b.Currency))
				if b.CarriedVouchers.IsPositive() {
					s += fmt.Sprintf(tr(lang, "refund.balance_carried_vouchers"), moneyWithCurrency(known(b.CarriedVouchers), b.Currency))
				}
			}
		}
		if b.FlowIncomplete {
			key := map[bool]string{true: "refund.balance_incomplete", false: "refund.balance_lower"}[b.Later > 0]
			s += fmt.Sprintf(tr(lang, key), moneyWithCurrency(known(b.BillCharges), b.Currency))
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, pick(lang, "；", "; "))
}

// ruleText renders the refund or invoice rule (field "refund" or "invoice").
func (p *RefundPlatform) ruleText(lang, field string) string {
	if !p.HasPolicy {
		return tr(lang, "refund.no_policy")
	}
	var s string
	if field == "refund" {
		s = pick(lang, p.Policy.RefundZH, p.Policy.RefundEN)
	} else {
		s = pick(lang, p.Policy.InvoiceZH, p.Policy.InvoiceEN)
	}
	if s == "" {
		return unknownDisplay
	}
	if p.Policy.IsGuess(field) && !strings.Contains(s, "推定") && !strings.Contains(s, "assumed") {
		s += tr(lang, "refund.guess")
	}
	return s
}

// balanceTotals renders the positive balances: "¥12.50".
func (p *RefundPlatform) balanceTotals(lang string) string {
	var parts []string
	for _, b := range p.Balances {
		if b.Balance.IsPositive() {
			parts = append(parts, moneyWithCurrency(known(b.Balance), b.Currency))
		}
	}
	return orDash(strings.Join(parts, pick(lang, "；", "; ")))
}

// totalsText renders a platform's totals: "¥12.34；5.00 USD".
func (p *RefundPlatform) totalsText(lang string) string {
	var parts []string
	for _, t := range p.Totals {
		parts = append(parts, moneyWithCurrency(known(t.Amount), t.Currency))
	}
	if len(parts) == 0 {
		return moneyWithCurrency(known(decimal.Zero), "CNY")
	}
	return strings.Join(parts, pick(lang, "；", "; "))
}

// writeBlocks writes the table or markdown checklist.
//
// Table layout (en):
//
//	AutoDL — to claim ¥2.82
//	  1. Duplicate charge  autodl-4090-a  2026-10-08 09:00 ~ 10:00  ¥1.88  fingerprint 5e74df87a5973f1d
//	       Evidence: autodl-2026-10.csv rows 5–6 (2 rows)
//	  Balance: …
//	  Refund rule: …
//	  Steps:
//	    1. …
//	  Support ticket (account lab-zhang, CNY):
//	    | Hello,
func (r *RefundsReport) writeBlocks(w io.Writer, opts WriteOptions) error {
	lang, md, loc := opts.Lang, opts.Format == FormatMarkdown, opts.TZ
	var b strings.Builder
	title := tr(lang, "refund.title") + " " + r.Month
	if md {
		b.WriteString("# " + mdHeading(title) + "\n")
	} else {
		b.WriteString(mdtext.OneLine(title) + "\n")
	}
	if len(r.Platforms) == 0 {
		b.WriteString("\n" + tr(lang, "refund.none") + "\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	label := func(key string) string { return tr(lang, key) + pick(lang, "：", ": ") }
	for i := range r.Platforms {
		p := &r.Platforms[i]
		head := providerName(p.Provider, lang) + " — " + tr(lang, "refund.to_claim") + " " + p.totalsText(lang)
		if len(p.Claims) == 0 {
			head = providerName(p.Provider, lang) + " — " + tr(lang, "refund.balance") + " " + p.balanceTotals(lang)
		}
		if md {
			b.WriteString("\n## " + mdHeading(head) + "\n\n")
		} else {
			b.WriteString("\n" + mdtext.OneLine(head) + "\n")
		}
		if len(p.Claims) == 0 {
			if md {
				b.WriteString(tr(lang, "refund.no_claims") + "\n\n")
			} else {
				b.WriteString(blockIndent + tr(lang, "refund.no_claims") + "\n")
			}
		}
		for j := range p.Claims {
			c := &p.Claims[j]
			parts := []string{claimTitleOf(lang, c), orDash(mdtext.OneLine(c.ResourceID)),
				blockPeriod(c.PeriodStart, c.PeriodEnd, loc), moneyWithCurrency(known(c.Amount), c.Currency)}
			fp := tr(lang, "refund.computed")
			if c.Fingerprint != "" {
				fp = tr(lang, "refund.fingerprint") + " " + c.Fingerprint
			}
			if c.State != "" && c.State != "open" {
				fp += " · " + trOr(lang, "state.", c.State)
			}
			if md {
				fmt.Fprintf(&b, "%d. **%s** · %s · %s · %s · %s\n   - %s%s\n", j+1, mdtext.Inline(parts[0]), mdCodeOrDash(c.ResourceID),
					parts[2], parts[3], mdtext.Inline(fp), tr(lang, "refund.evidence"), mdtext.Inline(ticketRows(c, lang)))
			} else {
				fmt.Fprintf(&b, "%s%d. %s  %s\n%s%s%s\n", blockIndent, j+1, strings.Join(parts, "  "), fp,
					detailIndent, tr(lang, "refund.evidence"), mdtext.OneLine(ticketRows(c, lang)))
			}
		}
		facts := [][2]string{
			{label("refund.balance"), p.balanceText(lang, loc)},
			{label("refund.refund_rule"), p.ruleText(lang, "refund")},
			{label("refund.invoice_rule"), p.ruleText(lang, "invoice")},
		}
		if md {
			b.WriteString("\n")
		}
		for _, f := range facts {
			if md {
				b.WriteString("- **" + mdtext.Inline(strings.TrimSpace(f[0])) + "** " + mdtext.Inline(f[1]) + "\n")
			} else {
				b.WriteString(blockIndent + mdtext.OneLine(f[0]+f[1]) + "\n")
			}
		}
		steps := refundPickList(lang, p.StepsZH, p.StepsEN)
		if len(steps) > 0 {
			if md {
				b.WriteString("\n### " + mdHeading(tr(lang, "refund.steps")) + "\n\n")
			} else {
				b.WriteString(blockIndent + strings.TrimSpace(label("refund.steps")) + "\n")
			}
			for k, s := range steps {
				if md {
					fmt.Fprintf(&b, "%d. %s\n", k+1, mdtext.Inline(s))
				} else {
					fmt.Fprintf(&b, "%s%d. %s\n", detailIndent, k+1, mdtext.OneLine(s))
				}
			}
		}
		for _, t := range p.Tickets {
			head := fmt.Sprintf(tr(lang, "refund.ticket_for"), orDash(t.Account), t.Currency)
			text := pick(lang, t.TextZH, t.TextEN)
			if md {
				b.WriteString("\n### " + mdHeading(head) + "\n\n")
				fence := refundFence(text)
				b.WriteString(fence + "text\n" + text + fence + "\n")
			} else {
				b.WriteString(blockIndent + mdtext.OneLine(head) + pick(lang, "：", ":") + "\n")
				for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
					b.WriteString(strings.TrimRight(detailIndent+"| "+mdtext.OneLine(line), " ") + "\n")
				}
			}
		}
	}

	// totals per platform and currency
	if err := writeTitledGrid(&b, md, tr(lang, "refund.totals"), r.totalsGrid(opts), tr(lang, "refund.note.count")); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func refundPickList(lang string, zh, en []string) []string {
	if lang == "zh" {
		return zh
	}
	return en
}

// codeFence is a markdown fence longer than any run of backticks in text.
func refundFence(text string) string {
	run, longest := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// totalsGrid is one line per platform and currency: what to claim, and
// the balance in that currency.
func (r *RefundsReport) totalsGrid(opts WriteOptions) *grid {
	lang, exact := opts.Lang, opts.exact()
	g := &grid{cols: []column{
		textCol("provider", tr(lang, "refund.col.platform")),
		textCol("currency", tr(lang, "col.currency")),
		countCol("claims", tr(lang, "refund.col.claims")),
		moneyCol("amount", tr(lang, "refund.to_claim")),
		moneyCol("balance", tr(lang, "refund.balance")),
		timeCol("balance_time", tr(lang, "refund.col.balance_time")),
	}}
	for i := range r.Platforms {
		p := &r.Platforms[i]
		curs := map[string]bool{}
		for _, t := range p.Totals {
			curs[t.Currency] = true
		}
		for _, b := range p.Balances {
			curs[b.Currency] = true
		}
		var list []string
		for c := range curs {
			list = append(list, c)
		}
		slices.Sort(list)
		name := p.Provider
		if !opts.codes() {
			name = providerName(p.Provider, lang)
		}
		for _, cur := range list {
			amount, n := decimal.Zero, 0
			for _, t := range p.Totals {
				if t.Currency == cur {
					amount, n = t.Amount, t.Claims
				}
			}
			var bal decimal.NullDecimal
			var at time.Time
			for _, b := range p.Balances {
				if b.Currency == cur {
					bal = known(bal.Decimal.Add(b.Balance))
					if b.Time.After(at) {
						at = b.Time
					}
				}
			}
			g.add(name, cur, strconv.Itoa(n), FormatMoney(amount, cur, exact), FormatNullMoney(bal, cur, exact), instTimeCell(at, opts))
		}
	}
	return g
}

// document lays the checklist out for the one-table and spreadsheet
// formats: the claims first (one line each), then the per-platform totals,
// the steps and the ticket texts.
func (r *RefundsReport) document(opts WriteOptions) *document {
	lang, exact := opts.Lang, opts.exact()
	claims := &grid{cols: []column{
		textCol("provider", tr(lang, "refund.col.platform")),
		textCol("account", tr(lang, "refund.col.account")),
		textCol("rule_id", tr(lang, "refund.col.claim")),
		textCol("resource_id", tr(lang, "refund.col.resource")),
		timeCol("period_start", tr(lang, "refund.col.period")),
		timeCol("period_end", tr(lang, "refund.col.period")),
		textCol("currency", tr(lang, "col.currency")),
		moneyCol("amount", tr(lang, "refund.col.amount")),
		moneyCol("counted", tr(lang, "refund.col.counted")),
		textCol("fingerprint", tr(lang, "find.fingerprint")),
		textCol("state", tr(lang, "col.state")),
		textCol("evidence", tr(lang, "col.evidence")),
	}}
	steps := &grid{cols: []column{
		textCol("provider", tr(lang, "refund.col.platform")),
		countCol("step", tr(lang, "refund.col.step")),
		textCol("text", tr(lang, "refund.col.text")),
	}}
	tickets := &grid{cols: []column{
		textCol("provider", tr(lang, "refund.col.platform")),
		textCol("account", tr(lang, "refund.col.account")),
		textCol("currency", tr(lang, "col.currency")),
		moneyCol("amount", tr(lang, "refund.to_claim")),
		textCol("text_zh", tr(lang, "refund.ticket")+" (zh)"),
		textCol("text_en", tr(lang, "refund.ticket")+" (en)"),
	}}
	for i := range r.Platforms {
		p := &r.Platforms[i]
		name := p.Provider
		if !opts.codes() {
			name = providerName(p.Provider, lang)
		}
		for j := range p.Claims {
			c := &p.Claims[j]
			rule, state := c.RuleID, c.State
			if !opts.codes() {
				rule, state = claimTitleOf(lang, c), trOr(lang, "state.", c.State)
			}
			claims.add(name, c.Account, rule, c.ResourceID, instTimeCell(c.PeriodStart, opts), instTimeCell(c.PeriodEnd, opts),
				c.Currency, FormatMoney(c.Amount, c.Currency, exact), FormatMoney(c.Counted, c.Currency, exact),
				c.Fingerprint, state, c.evidenceText())
		}
		for k, s := range refundPickList(lang, p.StepsZH, p.StepsEN) {
			steps.add(name, strconv.Itoa(k+1), s)
		}
		for _, t := range p.Tickets {
			tickets.add(name, t.Account, t.Currency, FormatMoney(t.Amount, t.Currency, exact), t.TextZH, t.TextEN)
		}
	}
	return &document{
		key:   "refunds",
		title: tr(lang, "refund.title") + " " + r.Month,
		sections: []section{
			{key: "claims", title: tr(lang, "refund.claims"), grid: claims, empty: tr(lang, "refund.no_claims"), totals: true},
			{key: "platforms", title: tr(lang, "refund.totals"), grid: r.totalsGrid(opts)},
			{key: "steps", title: tr(lang, "refund.steps"), grid: steps},
			{key: "tickets", title: tr(lang, "refund.ticket"), grid: tickets},
		},
		notes: []string{tr(lang, "refund.note.count")},
	}
}

// JSON shapes: the "platforms" contract. Both languages' texts are
// included, so the output does not depend on --lang.
type refundsJSON struct {
	Month     string               `json:"month"`
	Platforms []refundPlatformJSON `json:"platforms"`
}

type refundPlatformJSON struct {
	Provider         string              `json:"provider"`
	Claims           []refundClaimJSON   `json:"claims"`
	Totals           []refundTotalJSON   `json:"totals"`
	Balances         []refundBalanceJSON `json:"balances"`
	RefundRuleZH     string              `json:"refund_rule_zh"`
	RefundRuleEN     string              `json:"refund_rule_en"`
	RefundRuleGuess  bool                `json:"refund_rule_is_guess"`
	InvoiceRuleZH    string              `json:"invoice_rule_zh"`
	InvoiceRuleEN    string              `json:"invoice_rule_en"`
	InvoiceRuleGuess bool                `json:"invoice_rule_is_guess"`
	PolicySource     string              `json:"policy_source"`
	PolicySeen       string              `json:"policy_seen"`
	StepsZH          []string            `json:"steps_zh"`
	StepsEN          []string            `json:"steps_en"`
	Tickets          []refundTicketJSON  `json:"tickets"`
}

type refundClaimJSON struct {
	RuleID      string         `json:"rule_id"`
	Claim       string         `json:"claim,omitempty"`
	Fingerprint *string        `json:"fingerprint"`
	State       *string        `json:"state"`
	Account     string         `json:"account"`
	ResourceID  string         `json:"resource_id"`
	PeriodStart *string        `json:"period_start"`
	PeriodEnd   *string        `json:"period_end"`
	Currency    string         `json:"currency"`
	Amount      string         `json:"amount"`
	Counted     string         `json:"counted"`
	Evidence    []evidenceJSON `json:"evidence"`
}

type refundTotalJSON struct {
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
	Claims   int    `json:"claims"`
}

type refundBalanceJSON struct {
	Account        string `json:"account"`
	Currency       string `json:"currency"`
	Balance        string `json:"balance"`
	Time           string `json:"time"`
	LaterMovements int    `json:"later_movements"`
	// Carried is the balance carried forward (推算) over the later
	// movements, as reconcile's closing; CarriedVouchers the vouchers in it.
	Carried         string `json:"balance_carried"`
	CarriedVouchers string `json:"balance_carried_vouchers"`
	// FlowIncomplete: the month's bill charges BillCharges while the money
	// flow records no charge of the month, so Carried leaves them out.
	FlowIncomplete bool   `json:"flow_incomplete"`
	BillCharges    string `json:"bill_charges,omitempty"`
}

type refundTicketJSON struct {
	Account  string `json:"account"`
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
	TextZH   string `json:"text_zh"`
	TextEN   string `json:"text_en"`
}

func refundOptString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (r *RefundsReport) json(opts WriteOptions) refundsJSON {
	out := refundsJSON{Month: r.Month, Platforms: []refundPlatformJSON{}}
	for i := range r.Platforms {
		p := &r.Platforms[i]
		j := refundPlatformJSON{Provider: p.Provider, Claims: []refundClaimJSON{}, Totals: []refundTotalJSON{},
			Balances: []refundBalanceJSON{}, StepsZH: p.StepsZH, StepsEN: p.StepsEN, Tickets: []refundTicketJSON{}}
		if p.HasPolicy {
			j.RefundRuleZH, j.RefundRuleEN, j.RefundRuleGuess = p.Policy.RefundZH, p.Policy.RefundEN, p.Policy.IsGuess("refund")
			j.InvoiceRuleZH, j.InvoiceRuleEN, j.InvoiceRuleGuess = p.Policy.InvoiceZH, p.Policy.InvoiceEN, p.Policy.IsGuess("invoice")
			j.PolicySource, j.PolicySeen = p.Policy.Source, p.Policy.Seen
		}
		if j.StepsZH == nil {
			j.StepsZH, j.StepsEN = []string{}, []string{}
		}
		for k := range p.Claims {
			c := &p.Claims[k]
			cj := refundClaimJSON{RuleID: c.RuleID, Claim: c.Claim, Fingerprint: refundOptString(c.Fingerprint), State: refundOptString(c.State),
				Account: c.Account, ResourceID: c.ResourceID, PeriodStart: instJSONTime(c.PeriodStart, opts.TZ),
				PeriodEnd: instJSONTime(c.PeriodEnd, opts.TZ), Currency: c.Currency, Amount: money.String(c.Amount),
				Counted: money.String(c.Counted), Evidence: []evidenceJSON{}}
			for _, ev := range c.Evidence {
				cj.Evidence = append(cj.Evidence, evidenceJSON{File: ev.File, Row: ev.Row, LineItemID: ev.LineItemID, LineID: c.lineID(len(cj.Evidence))})
			}
			j.Claims = append(j.Claims, cj)
		}
		for _, t := range p.Totals {
			j.Totals = append(j.Totals, refundTotalJSON{Currency: t.Currency, Amount: money.String(t.Amount), Claims: t.Claims})
		}
		for _, b := range p.Balances {
			j.Balances = append(j.Balances, refundBalanceJSON{Account: b.Account, Currency: b.Currency,
				Balance: money.String(b.Balance), Time: formatRFC3339(b.Time, opts.TZ), LaterMovements: b.Later,
				Carried: money.String(b.Carried), CarriedVouchers: money.String(b.CarriedVouchers),
				FlowIncomplete: b.FlowIncomplete, BillCharges: billCharges(b)})
		}
		for _, t := range p.Tickets {
			j.Tickets = append(j.Tickets, refundTicketJSON{Account: t.Account, Currency: t.Currency,
				Amount: money.String(t.Amount), TextZH: t.TextZH, TextEN: t.TextEN})
		}
		out.Platforms = append(out.Platforms, j)
	}
	return out
}

// lineID is the vendor's line id of the claim's evidence i when it is a
// fetched line (citeRows), else "".
func (c *RefundClaim) lineID(i int) string {
	if i < len(c.cites) && len(c.cites) == len(c.Evidence) {
		return c.cites[i].line
	}
	return ""
}

// evidenceText is the claim's evidence as the findings report writes it:
// file:row, and for a fetched line the API and its line id (api:…#ID).
func (c *RefundClaim) evidenceText() string {
	refs := make([]string, len(c.Evidence))
	for i, e := range c.Evidence {
		if id := c.lineID(i); id != "" {
			refs[i] = e.File + "#" + id
			continue
		}
		refs[i] = e.File + ":" + strconv.Itoa(e.Row)
	}
	return strings.Join(refs, ";")
}

// billCharges is b's bill charges for the JSON, "" unless its flow is
// incomplete.
func billCharges(b RefundBalance) string {
	if !b.FlowIncomplete {
		return ""
	}
	return money.String(b.BillCharges)
}

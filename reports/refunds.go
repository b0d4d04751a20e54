package reports

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/export"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// The refund checklist: per platform, the charges a user can dispute, with
// evidence, a ready-to-send support ticket, the unused balance and the
// platform's refund and invoice rules.
//
// Disputable charges (claims):
//   - stored findings of the month of the rules duplicate_charge,
//     overlapping_charge and price_deviation with a positive money at risk;
//   - min_duration_rounding findings, only for the part beyond the
//     platform's own stated rule: each evidence line item's actual use is
//     rounded up to the policy's billing step (and at least its minimum
//     billed duration); what was billed above that is claimed
//     (billing.RoundingBeyondPolicy). Rounding the platform announces (揽睿星舟
//     bills whole hours) is no claim; a platform whose policy states no
//     billing step gives none;
//   - charged_after_release, computed here: line items of an instance (see
//     instances.go) whose charge period ends after the policy's release date
//     (last compute + release days): whole when they start after it, pro rata
//     by time (8 decimals) when they straddle it;
//   - findings of any rule whose Claim is set (ledger.ClaimGuardStop: a
//     forgotten_instance billed after gpubill guard ran its shutdown), for
//     their money at risk: the cost after the stop, pro rata.
//
// Finding states: resolved findings are left out (the user settled them);
// acknowledged ones stay in (acknowledging says "I have seen it", not "it is
// right": a charge can be both known and refundable).
//
// Money: each claim shows its own amount; the per-platform totals count each
// line item's money once, by the rule of the findings report (higher
// severity first, then the rule listed first; a charged_after_release claim
// ranks as high, after the built-in rules).
//
// Balance: the last balance stated in the platform's money flow
// (transactions) up to the end of the month, per account and currency, with
// the number of later movements that state none (the balance may have
// changed since). A platform is listed when it has a claim or a positive
// balance.

// RuleChargedAfterRelease is the claim computed by the refunds report for
// charges after a platform's release date (no stored finding).
const RuleChargedAfterRelease = "charged_after_release"

// refundRules are the rules whose findings are disputable, in display order.
var refundRules = []string{"duplicate_charge", "overlapping_charge", "min_duration_rounding", "price_deviation", RuleChargedAfterRelease}

// claimable reports whether a refund can be claimed on f: a disputable rule
// or a claim of its own (Finding.Claim), not resolved.
func claimable(f *ledger.Finding) bool {
	return f.State != "resolved" && (slices.Contains(refundRules, f.RuleID) || f.Claim != "")
}

// claimRank orders claims: the refund rules as listed, then those claimed
// by a finding's Claim (of a rule that is no refund rule).
func claimRank(rule string) int {
	if i := slices.Index(refundRules, rule); i >= 0 {
		return i
	}
	return len(refundRules)
}

// RefundsOptions selects the month and the reference data of the refund
// checklist.
type RefundsOptions struct {
	Month  string         // billing period YYYY-MM (required)
	TZ     *time.Location // zone of days and dates; nil = Asia/Shanghai
	Policy billing.PolicyLookup
	// ClaimsOnly leaves out what only the tickets cite (the evidence rows'
	// cells, the platform's ids, the lower billed line of a price claim):
	// for a caller that takes the claims and their amounts, not the text.
	ClaimsOnly bool
}

// RefundClaim is one disputable charge.
type RefundClaim struct {
	RuleID      string // one of refundRules, or the rule of a finding with a Claim
	Claim       string // the finding's Claim ("" = as its rule says)
	Fingerprint string // of the finding; "" for charged_after_release
	State       string // of the finding (open, acknowledged); "" for charged_after_release
	Severity    string
	Provider    string
	Account     string // billing account of its line items ("" = not stated)
	ResourceID  string
	PeriodStart time.Time
	PeriodEnd   time.Time
	Currency    string
	Amount      decimal.Decimal // money at stake
	Counted     decimal.Decimal // the part that counts in the totals (each line item once)
	Evidence    []ledger.Evidence

	// what the ticket text says about it
	items       []*ledger.LineItem
	cites       []rowCite        // Evidence as rows a person sees (citeRows)
	platformIDs []platformID     // the platform's own ids in the evidence rows (order, transaction, bill ids)
	earlier     *ledger.LineItem // price_deviation: the same resource billed at a lower unit price (billedLower)
	earlierRow  rowCite
	template    bool // every evidence row is from the gpubill template, not a platform export
	lastCompute time.Time
	releaseAt   time.Time
	releaseDays int
	guard       guardStopText // ClaimGuardStop: the stop, as the finding's basis states it
}

// RefundBalance is the last balance a platform's money flow states.
type RefundBalance struct {
	Account  string
	Currency string
	Balance  decimal.Decimal
	Time     time.Time
	Later    int // later movements (up to the end of the month) that state no balance
	// Carried is Balance carried forward (推算) over the Later movements,
	// as reconcile's closing (top-ups, vouchers and refunds add, charges and
	// withdrawals take away, freezes leave the total alone); equal to
	// Balance when Later is 0. CarriedVouchers is the part of it granted as
	// vouchers in those movements: never refundable as money.
	Carried         decimal.Decimal
	CarriedVouchers decimal.Decimal
	// FlowIncomplete: the month's bill lines charge BillCharges (more than
	// 0) of the provider and currency, and the account's money flow records
	// no charge in the month, so Carried leaves those charges out; it is no
	// balance (reconcile's incomplete_flow).
	FlowIncomplete bool
	BillCharges    decimal.Decimal
}

// RefundTotal is what a platform owes back in one currency.
type RefundTotal struct {
	Currency string
	Amount   decimal.Decimal
	Claims   int
}

// RefundTicket is a support ticket ready to send: one per account and
// currency of a platform.
type RefundTicket struct {
	Account  string
	Currency string
	Amount   decimal.Decimal
	TextZH   string
	TextEN   string
}

// RefundPlatform is the checklist of one platform.
type RefundPlatform struct {
	Provider  string
	Claims    []RefundClaim
	Totals    []RefundTotal // by currency
	Balances  []RefundBalance
	HasPolicy bool
	Policy    billing.Policy
	Tickets   []RefundTicket
	StepsZH   []string
	StepsEN   []string
}

// RefundsReport is the refund checklist of a month.
type RefundsReport struct {
	Month     string
	Platforms []RefundPlatform // in the order of platform.All, then by slug
}

// Refunds builds the refund checklist of opts.Month from the stored
// findings (run the audit first), the line items and the money flow.
func Refunds(ctx context.Context, db *ledger.DB, opts RefundsOptions) (*RefundsReport, error) {
	loc := opts.TZ
	if loc == nil {
		loc = ledger.DefaultTZ()
	}
	if err := checkInstancesMonth(opts.Month); err != nil {
		return nil, err
	}
	// The findings do not depend on the instances: they are read while the
	// month is.
	var fs []ledger.Finding
	var fsErr error
	read := make(chan struct{})
	go func() {
		defer close(read)
		fs, fsErr = claimableFindings(ctx, db, opts.Month)
	}()
	s, err := loadInstances(ctx, db, opts.Month, loc, opts.Policy, nil)
	<-read
	if err != nil {
		return nil, err
	}
	if fsErr != nil {
		return nil, fmt.Errorf("reports: refunds: %w", fsErr)
	}
	// The line items the claims need: the evidence of the findings that can
	// be claimed, and every item of the instances charged past their release
	// date (afterRelease). Only those: the evidence of all findings
	// (forgotten instances cite every item of a session) is most of a month.
	evidence := map[int64]bool{}
	for i := range fs {
		for _, ev := range fs[i].Evidence {
			evidence[ev.LineItemID] = true
		}
	}
	if err := s.collect(ctx, db, evidence, func(in *instance) bool {
		return !in.releaseAt.IsZero() && in.releaseAt.Before(in.dataEnd)
	}); err != nil {
		return nil, err
	}
	var claims []RefundClaim
	for i := range fs {
		f := &fs[i]
		c := RefundClaim{RuleID: f.RuleID, Claim: f.Claim, Fingerprint: f.Fingerprint, State: f.State, Severity: f.Severity,
			Provider: f.Provider, ResourceID: f.ResourceID, PeriodStart: f.PeriodStart, PeriodEnd: f.PeriodEnd,
			Currency: f.Currency, Evidence: f.Evidence}
		for _, ev := range f.Evidence {
			if li := s.items[ev.LineItemID]; li != nil {
				c.items = append(c.items, li)
			}
		}
		if f.RuleID == "min_duration_rounding" {
			p, ok := opts.Policy.For(f.Provider)
			if !ok {
				continue
			}
			c.Amount, c.Evidence, c.items = decimal.Zero, nil, nil
			for _, ev := range f.Evidence {
				li := s.items[ev.LineItemID]
				if li == nil {
					continue
				}
				if m, ok := billing.RoundingBeyondPolicy(li, p); ok && m.IsPositive() {
					c.Amount = c.Amount.Add(m)
					c.Evidence = append(c.Evidence, ev)
					c.items = append(c.items, li)
				}
			}
			if len(c.items) > 0 {
				c.PeriodStart, c.PeriodEnd = refundItemsPeriod(c.items)
			}
		} else if f.AmountAtRisk.Valid {
			c.Amount = f.AmountAtRisk.Decimal
		}
		if f.Claim == ledger.ClaimGuardStop {
			c.guard = parseGuardBasis(f.Basis)
			c.keepAfterStop(s.items)
		}
		if !c.Amount.IsPositive() {
			continue
		}
		claims = append(claims, c)
	}
	claims = append(claims, s.afterRelease()...)
	imps, err := db.Imports(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("reports: refunds: %w", err)
	}
	byImport := make(map[int64]*ledger.Import, len(imps))
	for i := range imps {
		byImport[imps[i].ID] = &imps[i]
	}
	var evIDs []int64
	for i := range claims {
		claims[i].Account = refundAccount(claims[i].items)
		for _, e := range claims[i].Evidence {
			evIDs = append(evIDs, e.LineItemID)
		}
	}
	if !opts.ClaimsOnly {
		if err := citeClaims(ctx, db, opts.Month, claims, s.items, byImport, evIDs); err != nil {
			return nil, err
		}
	}
	countClaims(claims, s.items)

	// money flow: the last stated balance per provider, account, currency
	monthStart, err := time.ParseInLocation("2006-01", opts.Month, loc)
	if err != nil {
		return nil, fmt.Errorf("reports: refunds: month %q: %w", opts.Month, err)
	}
	txs, err := db.Transactions(ctx, "", time.Unix(0, 0), monthStart.AddDate(0, 1, 0))
	if err != nil {
		return nil, fmt.Errorf("reports: refunds: %w", err)
	}
	balances := lastBalances(txs, monthStart)
	if len(balances) > 0 {
		billed, err := MonthCharges(ctx, db, opts.Month)
		if err != nil {
			return nil, err
		}
		for i := range balances {
			b := &balances[i]
			if d := billed[ChargeKey{b.provider, b.Currency}]; d.IsPositive() && b.monthCharges == 0 {
				b.FlowIncomplete, b.BillCharges = true, d
			}
		}
	}

	byProvider := map[string]*RefundPlatform{}
	platformOf := func(provider string) *RefundPlatform {
		p := byProvider[provider]
		if p == nil {
			p = &RefundPlatform{Provider: provider}
			p.Policy, p.HasPolicy = opts.Policy.For(provider)
			byProvider[provider] = p
		}
		return p
	}
	for _, c := range claims {
		p := platformOf(c.Provider)
		p.Claims = append(p.Claims, c)
	}
	for _, b := range balances {
		if _, ok := byProvider[b.provider]; !ok && !b.Balance.IsPositive() {
			continue
		}
		p := platformOf(b.provider)
		p.Balances = append(p.Balances, b.RefundBalance)
	}
	rep := &RefundsReport{Month: opts.Month}
	for _, p := range byProvider {
		p.finish(opts.Month, loc)
		rep.Platforms = append(rep.Platforms, *p)
	}
	slices.SortFunc(rep.Platforms, func(a, b RefundPlatform) int {
		return cmp.Or(cmp.Compare(platform.Rank(a.Provider), platform.Rank(b.Provider)), strings.Compare(a.Provider, b.Provider))
	})
	return rep, nil
}

// claimableFindings is the stored findings of month that can be claimed,
// most severe first, with the billed costs of their evidence (Evidence is
// part of a claim). Only theirs are looked up: the other findings of a
// 297,600-item month cited 57k line items.
func claimableFindings(ctx context.Context, db *ledger.DB, month string) ([]ledger.Finding, error) {
	fs, err := db.FindingsWithoutCosts(ctx, month)
	if err != nil {
		return nil, err
	}
	fs = slices.DeleteFunc(fs, func(f ledger.Finding) bool { return !claimable(&f) })
	if err := db.AddEvidenceCosts(ctx, fs, nil); err != nil {
		return nil, err
	}
	return fs, nil
}

// itemsPeriod is the span of the items' charge periods.
func refundItemsPeriod(items []*ledger.LineItem) (start, end time.Time) {
	for _, li := range items {
		if start.IsZero() || li.ChargePeriodStart.Before(start) {
			start = li.ChargePeriodStart
		}
		if li.ChargePeriodEnd.After(end) {
			end = li.ChargePeriodEnd
		}
	}
	return start, end
}

// accountOf is the billing account of the items (the first stated).
func refundAccount(items []*ledger.LineItem) string {
	for _, li := range items {
		if li.BillingAccountID != "" {
			return li.BillingAccountID
		}
	}
	return ""
}

// afterRelease finds, per instance with a release date before the end of
// its data, the charges after that date.
func (s *instanceSet) afterRelease() []RefundClaim {
	var out []RefundClaim
	for _, in := range s.order {
		if in.releaseAt.IsZero() || !in.releaseAt.Before(in.dataEnd) {
			continue
		}
		byCur := map[string]*RefundClaim{}
		var curs []string
		for _, li := range in.items {
			if !instPositiveUsage(li) || !li.ChargePeriodEnd.After(in.releaseAt) {
				continue
			}
			amount := li.BilledCost
			if li.ChargePeriodStart.Before(in.releaseAt) {
				whole := int64(li.ChargePeriodEnd.Sub(li.ChargePeriodStart) / time.Second)
				part := int64(li.ChargePeriodEnd.Sub(in.releaseAt) / time.Second)
				if whole > 0 && part < whole {
					amount = li.BilledCost.Mul(decimal.NewFromInt(part)).DivRound(decimal.NewFromInt(whole), 8)
				}
			}
			c := byCur[li.Currency]
			if c == nil {
				c = &RefundClaim{RuleID: RuleChargedAfterRelease, Severity: ledger.SeverityHigh, Provider: in.key.provider,
					ResourceID: in.key.id, Currency: li.Currency, lastCompute: in.lastEnd, releaseAt: in.releaseAt,
					releaseDays: in.releaseDays}
				byCur[li.Currency] = c
				curs = append(curs, li.Currency)
			}
			c.Amount = c.Amount.Add(amount)
			c.items = append(c.items, li)
			c.Evidence = append(c.Evidence, ledger.Evidence{LineItemID: li.ID, File: li.File, Row: li.SourceRow})
		}
		for _, cur := range curs {
			c := byCur[cur]
			if !c.Amount.IsPositive() {
				continue
			}
			_, c.PeriodEnd = refundItemsPeriod(c.items)
			c.PeriodStart = in.releaseAt
			out = append(out, *c)
		}
	}
	return out
}

// countClaims sets each claim's Counted: its money once per line item,
// under the claim of higher severity, then the rule listed first (the
// attribution of the findings report).
func countClaims(claims []RefundClaim, items map[int64]*ledger.LineItem) {
	fs := make([]ledger.Finding, len(claims))
	billed := map[int64]decimal.Decimal{}
	for i, c := range claims {
		fs[i] = ledger.Finding{Fingerprint: strconv.Itoa(i), RuleID: c.RuleID, Severity: c.Severity, Provider: c.Provider,
			ResourceID: c.ResourceID, PeriodStart: c.PeriodStart, PeriodEnd: c.PeriodEnd, Currency: c.Currency,
			AmountAtRisk: known(c.Amount), Evidence: c.Evidence}
		for _, ev := range c.Evidence {
			if li := items[ev.LineItemID]; li != nil {
				billed[li.ID] = li.BilledCost
			}
		}
	}
	for _, e := range NewFindingsReport("", fs, billed).Findings {
		i, _ := strconv.Atoi(e.Fingerprint)
		claims[i].Counted = e.Counted.Decimal
	}
}

type providerBalance struct {
	provider     string
	monthCharges int // charge rows of the month (from monthStart on)
	RefundBalance
}

// lastBalances keeps, per provider, account and currency, the last
// movement that states a balance and counts the movements after it, and
// the charge rows from monthStart on.
func lastBalances(txs []ledger.Transaction, monthStart time.Time) []providerBalance {
	type key struct{ provider, account, currency string }
	idx := map[key]int{}
	charges := map[key]int{}
	var out []providerBalance
	for _, x := range txs { // oldest first
		k := key{x.Provider, x.Account, x.Currency}
		if x.Type == ledger.TxCharge && !x.Time.Before(monthStart) {
			charges[k]++
		}
		i, ok := idx[k]
		if x.Balance.Valid {
			b := providerBalance{x.Provider, 0, RefundBalance{Account: x.Account, Currency: x.Currency,
				Balance: x.Balance.Decimal, Time: x.Time, Carried: x.Balance.Decimal}}
			if ok {
				out[i] = b
			} else {
				idx[k] = len(out)
				out = append(out, b)
			}
		} else if ok {
			b := &out[i]
			b.Later++
			switch x.Type {
			case ledger.TxTopup, ledger.TxRefund:
				b.Carried = b.Carried.Add(x.Amount)
			case ledger.TxVoucher:
				b.Carried = b.Carried.Add(x.Amount)
				b.CarriedVouchers = b.CarriedVouchers.Add(x.Amount)
			case ledger.TxCharge, ledger.TxWithdrawal:
				b.Carried = b.Carried.Sub(x.Amount)
			}
		}
	}
	for k, i := range idx {
		out[i].monthCharges = charges[k]
	}
	return out
}

// finish sorts the claims, sums the totals and writes the tickets and steps.
func (p *RefundPlatform) finish(month string, loc *time.Location) {
	sort.SliceStable(p.Claims, func(i, j int) bool {
		a, b := &p.Claims[i], &p.Claims[j]
		if x, y := claimRank(a.RuleID), claimRank(b.RuleID); x != y {
			return x < y
		}
		if !a.PeriodStart.Equal(b.PeriodStart) {
			return a.PeriodStart.Before(b.PeriodStart)
		}
		if a.ResourceID != b.ResourceID {
			return a.ResourceID < b.ResourceID
		}
		return a.Fingerprint < b.Fingerprint
	})
	slices.SortFunc(p.Balances, func(a, b RefundBalance) int {
		return cmp.Or(strings.Compare(a.Account, b.Account), strings.Compare(a.Currency, b.Currency))
	})
	tidx := map[string]int{}
	type tkey struct{ account, currency string }
	groups := map[tkey][]*RefundClaim{}
	var order []tkey
	for i := range p.Claims {
		c := &p.Claims[i]
		j, ok := tidx[c.Currency]
		if !ok {
			j = len(p.Totals)
			tidx[c.Currency] = j
			p.Totals = append(p.Totals, RefundTotal{Currency: c.Currency})
		}
		p.Totals[j].Amount = p.Totals[j].Amount.Add(c.Counted)
		p.Totals[j].Claims++
		k := tkey{c.Account, c.Currency}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c)
	}
	sort.Slice(p.Totals, func(i, j int) bool { return p.Totals[i].Currency < p.Totals[j].Currency })
	for _, k := range order {
		cs := groups[k]
		amount := decimal.Zero
		for _, c := range cs {
			amount = amount.Add(c.Counted)
		}
		p.Tickets = append(p.Tickets, RefundTicket{Account: k.account, Currency: k.currency, Amount: amount,
			TextZH: p.ticket("zh", month, k.account, k.currency, amount, cs, loc),
			TextEN: p.ticket("en", month, k.account, k.currency, amount, cs, loc)})
	}
	p.StepsZH, p.StepsEN = p.steps("zh", month), p.steps("en", month)
}

// citeClaims works out what the tickets cite of claims: the rows of their
// evidence (evIDs, repeated across claims), with the cells the platform
// wrote, the platform's own ids in them, and a price claim's lower billed
// line.
func citeClaims(ctx context.Context, db *ledger.DB, month string, claims []RefundClaim, items map[int64]*ledger.LineItem,
	byImport map[int64]*ledger.Import, evIDs []int64) error {
	slices.Sort(evIDs)
	raw, err := ticketRaw(ctx, db, slices.Compact(evIDs), items, byImport)
	if err != nil {
		return fmt.Errorf("reports: refunds: %w", err)
	}
	for i := range claims {
		claims[i].citeRows(items, byImport, raw)
	}
	for i := range claims {
		claims[i].findPlatformIDs(items, byImport, raw)
	}
	return billedLower(ctx, db, month, claims, byImport)
}

// ticketRaw reads the source cells the tickets read of the line items ids
// (ticketCells), each at its column index, the others empty.
func ticketRaw(ctx context.Context, db *ledger.DB, ids []int64, items map[int64]*ledger.LineItem,
	imports map[int64]*ledger.Import) (map[int64][]string, error) {
	cells := ticketCells(imports)
	raw, err := db.RawCells(ctx, ids, cells)
	for id, got := range raw {
		li := items[id]
		if li == nil || len(cells[li.ImportID]) != len(got) {
			delete(raw, id)
			continue
		}
		at := cells[li.ImportID]
		row := make([]string, slices.Max(at)+1)
		for k, c := range at {
			row[c] = got[k]
		}
		raw[id] = row
	}
	return raw, err
}

// ticketCells lists, per import, the source cells the tickets read: a
// fetched line's id (ledger.LineIDColumn), and the vendor's source and ids
// (export.CitedColumns). An import with none has no cells read.
func ticketCells(imports map[int64]*ledger.Import) map[int64][]int {
	out := map[int64][]int{}
	for id, im := range imports {
		cols := export.CitedColumns(im.Header)
		if i := slices.Index(im.Header, ledger.LineIDColumn); i >= 0 {
			cols = append(cols, i)
		}
		if len(cols) > 0 {
			out[id] = cols
		}
	}
	return out
}

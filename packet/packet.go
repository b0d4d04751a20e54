package packet

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reconcile"
	"github.com/gpubill/gpubill/reports"
)

// Options select what a packet holds and who claims it.
type Options struct {
	Month         string // billing period YYYY-MM (required)
	Project       string // only line items of this project (sub_account); "" = all
	ClaimDisputed bool   // claim disputed charges too (listed as claimed but disputed)
	// InvoicedOnly claims only what is invoiced (以票报销): per platform and
	// currency, the claim stops at the invoices counted for the month; the
	// rest is shown as 未开票 (not invoiced) and not claimed.
	InvoicedOnly bool
	Name         string // claimant (报销人)
	Dept         string // department (部门)
	// Date is the date the packet is generated on, printed on the cover; the
	// zero time means today (in TZ). Tests fix it.
	Date   time.Time
	TZ     *time.Location       // zone of dates; nil = Asia/Shanghai
	Policy billing.PolicyLookup // platform policies, for the rounding claims; nil = embedded
}

// Line statuses: how a line item counts in the claim.
const (
	StatusClaimed         = "claimed"          // claimed in full
	StatusCredit          = "credit"           // a credit line: claims nothing, or takes off what the charged lines do not state
	StatusNothingPaid     = "nothing_paid"     // no cash part (paid by vouchers): claims nothing
	StatusDisputed        = "disputed"         // its disputed part is excluded from the claim
	StatusClaimedDisputed = "claimed_disputed" // disputed, claimed anyway (ClaimDisputed)
	StatusNotInvoiced     = "not_invoiced"     // (part) beyond the invoices, not claimed (InvoicedOnly)
)

// Shown are a line's amounts as the packet prints them: each at the
// currency's minor unit, rounded half up once (reports.RoundMoney), and the
// derived ones worked out from the printed figures, so that every row foots:
// NotInvoiceable = Billed − Invoiceable, Claimed = Invoiceable − Disputed −
// NotInvoiced (Disputed left in with ClaimDisputed).
type Shown struct {
	Billed         decimal.Decimal
	NotInvoiceable decimal.Decimal
	Invoiceable    decimal.Decimal
	Disputed       decimal.Decimal // the sum of the line's printed exceptions
	NotInvoiced    decimal.Decimal // InvoicedOnly: the claimable part no invoice covers
	Claimed        decimal.Decimal
}

// Line is one line item of the packet with what it claims.
type Line struct {
	Item *ledger.LineItem // the ledger's row, shared, not copied (a month holds hundreds of thousands)
	// Billed is what the line bills in the packet: billed_cost, except that a
	// credit line recording a voucher used (ledger.SettlePaid) bills
	// billed_cost + voucher_paid, since the voucher paid charges billed in
	// full. So every line foots, billed = not invoiceable + invoiceable, and
	// the vouchers used show as not invoiceable.
	Billed decimal.Decimal
	// Invoiceable is the line's invoiceable part: cash_paid, else billed −
	// voucher (Estimated); a credit line's cash part (negative).
	Invoiceable decimal.Decimal
	Estimated   bool
	// NotInvoiceable is billed − invoiceable: vouchers, gifts, bonus
	// balances; for a credit line, the voucher it used (positive).
	NotInvoiceable decimal.Decimal
	Disputed       decimal.Decimal // the disputed part, ≤ Invoiceable
	Claimed        decimal.Decimal // Invoiceable, less Disputed unless claimed anyway
	Status         string
	Invoices       []string // numbers of the invoices that cover its platform and month
	Shown          Shown    // the printed amounts, at the minor unit
	Row            RowRef   // where a person finds the line in its file
}

// RowRef is a line item's row as a person opening its file in Excel or
// LibreOffice sees it: Row on Sheet (a workbook's), or, for an import made
// before the row mapping was recorded, Record, the record number after the
// header.
type RowRef struct {
	Sheet  string
	Row    int
	Record int
}

// String is "12", "账单!12", or "记录 9 record" for a record number.
func (r RowRef) String() string {
	switch {
	case r.Row > 0 && r.Sheet != "":
		return fmt.Sprintf("%s!%d", r.Sheet, r.Row)
	case r.Row > 0:
		return fmt.Sprint(r.Row)
	}
	return fmt.Sprintf("表头后第 %d 条记录 / record %d after the header", r.Record, r.Record)
}

// Total is one platform and currency on the cover. Its amounts are the sums
// of the lines' printed (Shown) amounts, so that the cover foots with 明细.
type Total struct {
	Provider       string
	Currency       string
	Lines          int
	Billed         decimal.Decimal // billed cost of every line, credit lines included
	NotInvoiceable decimal.Decimal // vouchers and gifts used (credit lines' included), other non-cash parts
	Invoiceable    decimal.Decimal // cash paid
	Disputed       decimal.Decimal // disputed part of the invoiceable amount
	NotInvoiced    decimal.Decimal // InvoicedOnly: claimable but not invoiced
	Claimed        decimal.Decimal
	Invoiced       decimal.Decimal // invoices counted for the month (reconcile.InvoiceCoverage)
	ToRequest      decimal.Decimal // invoices still to request
	OverInvoiced   decimal.Decimal
	Estimated      int // lines whose cash part was estimated
}

// CurrencyTotal is the claim in one currency. Claimed and Disputed are the
// sums of the printed lines; Exact is the claim at source precision, and
// Rounding (尾差) is Exact at the minor unit − Claimed: what rounding each
// line once cost or added.
type CurrencyTotal struct {
	Currency string
	Claimed  decimal.Decimal
	Disputed decimal.Decimal // disputed (excluded, or claimed anyway)
	Capital  string          // CapitalCNY of Claimed, for CNY only; "" otherwise
	Exact    decimal.Decimal
	Rounding decimal.Decimal
}

// Invoice is one row of the invoice list: an invoice counted for the month,
// or (Missing) what is still to request from a platform.
type Invoice struct {
	Provider  string
	Currency  string
	Missing   bool            // a row for the amount still to request
	Amount    decimal.Decimal // the invoice's whole amount; for Missing, the amount to request
	Allocated decimal.Decimal // the part that counts for the month
	Invoice   ledger.Invoice  // zero for Missing
	// Spanning is set for an invoice that covers several months.
	Spanning bool
}

// Exception is a disputed charge: one claim's money on one line item.
type Exception struct {
	RuleID      string
	State       string // finding state (open, acknowledged); "" for charged_after_release
	Fingerprint string
	Provider    string
	ResourceID  string
	Currency    string
	Amount      decimal.Decimal // disputed money on this line item, at the minor unit
	Exact       decimal.Decimal // the same at source precision
	LineItemID  int64
	File        string
	Row         int
	ReasonZH    string
	ReasonEN    string
	Claimed     bool // claimed anyway (ClaimDisputed)
	Cited       RowRef
}

// Packet is the computed reimbursement packet of a month.
type Packet struct {
	Options
	Generated time.Time // Options.Date, or today
	Lines     []Line
	Totals    []Total         // per platform and currency, in ledger.Providers order
	Claims    []CurrencyTotal // per currency
	Invoices  []Invoice
	// Exceptions are the disputed charges, by rule order, provider, line.
	Exceptions []Exception
	// Audited is false when no audit of the month is stored: disputed
	// charges are then unknown (run gpubill audit first).
	Audited bool
	// LeftOut are the platforms that have invoiceable money in the month
	// (money flow) but no bill lines in the packet.
	LeftOut []string
	// DuplicateInvoices are invoice numbers recorded twice (see reconcile).
	DuplicateInvoices []string
}

// Build computes the packet of opts.Month from the ledger: its line items,
// the stored findings (via reports.Refunds) and the invoices.
func Build(ctx context.Context, db *ledger.DB, opts Options) (*Packet, error) {
	if _, err := time.Parse("2006-01", opts.Month); err != nil {
		return nil, fmt.Errorf("packet: month %q: want YYYY-MM", opts.Month)
	}
	if opts.TZ == nil {
		opts.TZ = ledger.DefaultTZ()
	}
	p := &Packet{Options: opts, Generated: opts.Date}
	if p.Generated.IsZero() {
		p.Generated = time.Now()
	}
	p.Generated = p.Generated.In(opts.TZ)

	imps, err := db.Imports(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("packet: %w", err)
	}
	byImport := map[int64]*ledger.Import{}
	for i := range imps {
		byImport[imps[i].ID] = &imps[i]
	}
	byID := map[int64]int{}
	// Each item is kept by its line, not copied, nor first gathered in a
	// slice of its own (a month holds hundreds of thousands).
	err = db.EachLineItem(ctx, ledger.Filter{Month: opts.Month, NoRaw: true}, func(li *ledger.LineItem) error {
		if opts.Project != "" && li.SubAccount != opts.Project {
			return nil
		}
		byID[li.ID] = len(p.Lines)
		l := newLine(li)
		l.Row = RowRef{Record: li.SourceRow}
		if im := byImport[li.ImportID]; im != nil {
			if row, ok := im.RowOf(li.SourceRow); ok {
				l.Row = RowRef{Sheet: im.Sheet, Row: row}
			}
		}
		p.Lines = append(p.Lines, l)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("packet: %w", err)
	}

	if p.Audited, err = audited(ctx, db, opts.Month); err != nil {
		return nil, err
	}
	if err := p.dispute(ctx, db, byID); err != nil {
		return nil, err
	}
	for i := range p.Lines {
		l := &p.Lines[i]
		l.Claimed = l.Invoiceable
		if l.Disputed.IsPositive() {
			if opts.ClaimDisputed {
				l.Status = StatusClaimedDisputed
			} else {
				l.Status = StatusDisputed
				l.Claimed = l.Invoiceable.Sub(l.Disputed)
			}
		}
	}
	for i := range p.Exceptions {
		p.Exceptions[i].Claimed = opts.ClaimDisputed
	}
	p.print(byID)

	cov, err := reconcile.InvoiceCoverage(ctx, db, opts.Month, reconcile.InvoiceableOptions{TZ: opts.TZ, Project: opts.Project})
	if err != nil {
		return nil, fmt.Errorf("packet: %w", err)
	}
	p.totals(cov)
	return p, nil
}

func newLine(li *ledger.LineItem) Line {
	l := Line{Item: li, Billed: li.BilledCost, Status: StatusClaimed}
	if li.Kind == ledger.KindCredit {
		// A voucher paying for charges billed in full (ledger.SettlePaid):
		// the voucher used is not invoiceable, and its cash part (negative)
		// takes it off the cash those charges claim.
		l.Status = StatusCredit
		l.Invoiceable, l.NotInvoiceable = li.BilledCost, decimal.Zero
		if li.CashPaid.Valid {
			l.Invoiceable = li.CashPaid.Decimal
		}
		if li.VoucherPaid.Valid {
			l.NotInvoiceable = li.VoucherPaid.Decimal
			l.Billed = li.BilledCost.Add(li.VoucherPaid.Decimal)
		}
		return l
	}
	switch {
	case li.CashPaid.Valid:
		l.Invoiceable = li.CashPaid.Decimal
	case li.VoucherPaid.Valid:
		l.Invoiceable, l.Estimated = li.BilledCost.Sub(li.VoucherPaid.Decimal), true
	default:
		l.Invoiceable, l.Estimated = li.BilledCost, true
	}
	l.NotInvoiceable = li.BilledCost.Sub(l.Invoiceable)
	if l.Invoiceable.IsZero() && !li.BilledCost.IsZero() {
		l.Status = StatusNothingPaid
	}
	return l
}

// audited reports whether an audit of month is stored.
func audited(ctx context.Context, db *ledger.DB, month string) (bool, error) {
	var n int
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM audit_runs WHERE month = ?`, month).Scan(&n); err != nil {
		return false, fmt.Errorf("packet: audit runs: %w", err)
	}
	return n > 0, nil
}

// dispute spreads the refund claims of the month over the packet's line
// items (see doc.go) and records the exceptions.
func (p *Packet) dispute(ctx context.Context, db *ledger.DB, byID map[int64]int) error {
	rep, err := reports.Refunds(ctx, db, reports.RefundsOptions{Month: p.Month, TZ: p.TZ, Policy: p.Policy})
	if err != nil {
		return fmt.Errorf("packet: %w", err)
	}
	fs, err := db.Findings(ctx, p.Month)
	if err != nil {
		return fmt.Errorf("packet: %w", err)
	}
	reasons := map[string]*ledger.Finding{}
	for i := range fs {
		reasons[fs[i].Fingerprint] = &fs[i]
	}
	for _, plat := range rep.Platforms {
		for _, c := range plat.Claims {
			ev := slices.Clone(c.Evidence)
			sort.Slice(ev, func(i, j int) bool { return ev[i].LineItemID < ev[j].LineItemID })
			if c.RuleID == "duplicate_charge" && len(ev) > 1 {
				ev = ev[1:] // the first is the real charge
			}
			slices.Reverse(ev) // lay the money on the last lines first
			left := c.Amount
			for _, e := range ev {
				if !left.IsPositive() {
					break
				}
				i, ok := byID[e.LineItemID]
				if !ok {
					continue // another month or project
				}
				l := &p.Lines[i]
				room := l.Invoiceable.Sub(l.Disputed)
				if l.Status == StatusCredit || !room.IsPositive() {
					continue
				}
				part := decimal.Min(left, room, l.Billed)
				if !part.IsPositive() {
					continue
				}
				l.Disputed = l.Disputed.Add(part)
				left = left.Sub(part)
				x := Exception{RuleID: c.RuleID, State: c.State, Fingerprint: c.Fingerprint, Provider: c.Provider,
					ResourceID: c.ResourceID, Currency: l.Item.Currency, Exact: part, LineItemID: l.Item.ID,
					File: l.Item.File, Row: l.Item.SourceRow, Cited: l.Row}
				if f := reasons[c.Fingerprint]; f != nil {
					x.ReasonZH, x.ReasonEN = f.ReasonZH, f.ReasonEN
				} else {
					x.ReasonZH, x.ReasonEN = RuleNameZH(c.RuleID), RuleNameEN(c.RuleID)
				}
				p.Exceptions = append(p.Exceptions, x)
			}
		}
	}
	sort.SliceStable(p.Exceptions, func(i, j int) bool {
		a, b := p.Exceptions[i], p.Exceptions[j]
		if ra, rb := ruleRank(a.RuleID), ruleRank(b.RuleID); ra != rb {
			return ra < rb
		}
		if a.Provider != b.Provider {
			return ledger.ProviderRank(a.Provider) < ledger.ProviderRank(b.Provider)
		}
		return a.LineItemID < b.LineItemID
	})
	return nil
}

// print rounds what the packet prints: each exception once, each line's
// billed and invoiceable amounts once, its disputed part as the sum of its
// printed exceptions, and the rest derived from those (see Shown).
func (p *Packet) print(byID map[int64]int) {
	disputed := make([]decimal.Decimal, len(p.Lines))
	for i := range p.Exceptions {
		e := &p.Exceptions[i]
		e.Amount = reports.RoundMoney(e.Exact, e.Currency)
		if j, ok := byID[e.LineItemID]; ok {
			disputed[j] = disputed[j].Add(e.Amount)
		}
	}
	for i := range p.Lines {
		l := &p.Lines[i]
		cur := l.Item.Currency
		sh := &l.Shown
		sh.Billed = reports.RoundMoney(l.Billed, cur)
		sh.Invoiceable = reports.RoundMoney(l.Invoiceable, cur)
		sh.NotInvoiceable = sh.Billed.Sub(sh.Invoiceable)
		sh.Disputed = disputed[i]
		if sh.Invoiceable.IsPositive() && sh.Disputed.GreaterThan(sh.Invoiceable) {
			sh.Disputed = sh.Invoiceable // two parts rounded up past the line
		}
		sh.Claimed = sh.Invoiceable
		if l.Status == StatusDisputed {
			sh.Claimed = sh.Invoiceable.Sub(sh.Disputed)
		}
	}
}

// exactClaimed is the line's claim at source precision: Claimed, or, for a
// line that InvoicedOnly cut at the invoices (cut at the minor unit), its
// printed claim.
func (l *Line) exactClaimed() decimal.Decimal {
	if l.Shown.NotInvoiced.IsPositive() {
		return l.Shown.Claimed
	}
	return l.Claimed
}

// invoicedOnly caps the claim of each platform and currency at the invoices
// counted for the month (以票报销): lines claim in their order until the
// invoiced amount is used up; the rest of each line is NotInvoiced. Negative
// lines (refunds, credits taken off) lower the claim first, so they are
// applied before the positive ones.
func (p *Packet) invoicedOnly(invoiced func(provider, currency string) decimal.Decimal) {
	type pc struct{ provider, currency string }
	left := map[pc]decimal.Decimal{}
	seen := map[pc]bool{}
	for i := range p.Lines {
		l := &p.Lines[i]
		k := pc{l.Item.Provider, l.Item.Currency}
		if !seen[k] {
			seen[k] = true
			left[k] = reports.RoundMoney(invoiced(k.provider, k.currency), k.currency)
		}
		if l.Shown.Claimed.IsNegative() {
			left[k] = left[k].Sub(l.Shown.Claimed)
		}
	}
	for i := range p.Lines {
		l := &p.Lines[i]
		k := pc{l.Item.Provider, l.Item.Currency}
		c := l.Shown.Claimed
		if !c.IsPositive() {
			continue
		}
		take := decimal.Max(decimal.Zero, decimal.Min(c, left[k]))
		left[k] = left[k].Sub(take)
		if take.LessThan(c) {
			l.Shown.NotInvoiced = c.Sub(take)
			l.Shown.Claimed = take
			if l.Status == StatusClaimed {
				l.Status = StatusNotInvoiced
			}
		}
	}
}

// totals fills the cover totals, the claims per currency, the invoice list
// and the invoice numbers of the lines. Every total is a sum of printed
// (Shown) line amounts.
func (p *Packet) totals(cov *reconcile.CoverageReport) {
	type pc struct{ provider, currency string }
	rows := map[pc]*reconcile.Coverage{}
	for i := range cov.Rows {
		rows[pc{cov.Rows[i].Provider, cov.Rows[i].Currency}] = &cov.Rows[i]
	}
	if p.InvoicedOnly {
		p.invoicedOnly(func(provider, currency string) decimal.Decimal {
			if c := rows[pc{provider, currency}]; c != nil {
				return c.Invoiced
			}
			return decimal.Zero
		})
	}
	idx := map[pc]int{}
	exact := map[string]decimal.Decimal{}
	for i := range p.Lines {
		l := &p.Lines[i]
		k := pc{l.Item.Provider, l.Item.Currency}
		j, ok := idx[k]
		if !ok {
			j = len(p.Totals)
			idx[k] = j
			p.Totals = append(p.Totals, Total{Provider: k.provider, Currency: k.currency})
		}
		t := &p.Totals[j]
		t.Lines++
		t.Billed = t.Billed.Add(l.Shown.Billed)
		t.NotInvoiceable = t.NotInvoiceable.Add(l.Shown.NotInvoiceable)
		t.Invoiceable = t.Invoiceable.Add(l.Shown.Invoiceable)
		t.Disputed = t.Disputed.Add(l.Shown.Disputed)
		t.NotInvoiced = t.NotInvoiced.Add(l.Shown.NotInvoiced)
		t.Claimed = t.Claimed.Add(l.Shown.Claimed)
		exact[k.currency] = exact[k.currency].Add(l.exactClaimed())
		if l.Estimated {
			t.Estimated++
		}
	}
	numbers := map[pc][]string{}
	left := map[string]bool{}
	for _, c := range cov.Rows {
		k := pc{c.Provider, c.Currency}
		j, ok := idx[k]
		if !ok {
			if c.Invoiceable.IsPositive() || len(c.Invoices) > 0 {
				left[c.Provider] = true
			}
			continue
		}
		t := &p.Totals[j]
		// What is still to request, or over-invoiced, on the printed
		// figures: the printed invoiceable total against the printed
		// invoiced one.
		t.Invoiced = reports.RoundMoney(c.Invoiced, c.Currency)
		diff := t.Invoiceable.Sub(t.Invoiced)
		t.ToRequest, t.OverInvoiced = decimal.Max(decimal.Zero, diff), decimal.Max(decimal.Zero, diff.Neg())
		for _, inv := range c.Invoices {
			numbers[k] = append(numbers[k], inv.Number)
			p.Invoices = append(p.Invoices, Invoice{Provider: c.Provider, Currency: c.Currency,
				Amount: reports.RoundMoney(inv.Amount, c.Currency), Allocated: reports.RoundMoney(inv.Allocated, c.Currency),
				Invoice: inv.Invoice, Spanning: len(inv.Months()) > 1})
		}
		if t.ToRequest.IsPositive() {
			p.Invoices = append(p.Invoices, Invoice{Provider: c.Provider, Currency: c.Currency, Missing: true,
				Amount: t.ToRequest, Allocated: t.ToRequest})
		}
	}
	for _, d := range cov.Duplicates {
		if _, ok := idx[pc{d.Counted.Provider, d.Counted.Currency}]; ok {
			p.DuplicateInvoices = append(p.DuplicateInvoices, d.Number)
		}
	}
	// Platforms with invoices but no coverage row for a line's currency
	// simply have none; every line gets its platform's numbers.
	for i := range p.Lines {
		l := &p.Lines[i]
		l.Invoices = numbers[pc{l.Item.Provider, l.Item.Currency}]
	}
	for prov := range left {
		p.LeftOut = append(p.LeftOut, prov)
	}
	sort.Slice(p.LeftOut, func(i, j int) bool { return ledger.ProviderRank(p.LeftOut[i]) < ledger.ProviderRank(p.LeftOut[j]) })
	sort.SliceStable(p.Totals, func(i, j int) bool {
		a, b := p.Totals[i], p.Totals[j]
		if a.Provider != b.Provider {
			if ra, rb := ledger.ProviderRank(a.Provider), ledger.ProviderRank(b.Provider); ra != rb {
				return ra < rb
			}
			return a.Provider < b.Provider
		}
		return a.Currency < b.Currency
	})
	cur := map[string]int{}
	for _, t := range p.Totals {
		j, ok := cur[t.Currency]
		if !ok {
			j = len(p.Claims)
			cur[t.Currency] = j
			p.Claims = append(p.Claims, CurrencyTotal{Currency: t.Currency})
		}
		p.Claims[j].Claimed = p.Claims[j].Claimed.Add(t.Claimed)
		p.Claims[j].Disputed = p.Claims[j].Disputed.Add(t.Disputed)
	}
	sort.SliceStable(p.Claims, func(i, j int) bool { return currencyLess(p.Claims[i].Currency, p.Claims[j].Currency) })
	for i := range p.Claims {
		c := &p.Claims[i]
		c.Exact = exact[c.Currency]
		c.Rounding = reports.RoundMoney(c.Exact, c.Currency).Sub(c.Claimed)
		if strings.EqualFold(c.Currency, "CNY") {
			// An error (≥ 1e12) leaves the capital empty; the cover then shows the figure only.
			c.Capital, _ = CapitalCNY(c.Claimed)
		}
	}
}

// currencyLess puts CNY first, then the others alphabetically.
func currencyLess(a, b string) bool {
	if (a == "CNY") != (b == "CNY") {
		return a == "CNY"
	}
	return a < b
}

func ruleRank(id string) int {
	if id == reports.RuleChargedAfterRelease {
		return len(ledger.RuleIDs)
	}
	return ledger.RuleRank(id)
}

var ruleNames = map[string][2]string{
	"duplicate_charge":              {"重复扣费", "Duplicate charge"},
	"overlapping_charge":            {"重叠扣费", "Overlapping charge"},
	"min_duration_rounding":         {"计费取整超出平台规则", "Rounding beyond the platform's rule"},
	"price_deviation":               {"单价高于参考价", "Price above reference"},
	reports.RuleChargedAfterRelease: {"释放期限后仍收费", "Charged after the release date"},
}

// RuleNameZH is the Chinese name of a disputable rule.
func RuleNameZH(id string) string {
	if n, ok := ruleNames[id]; ok {
		return n[0]
	}
	return id
}

// RuleNameEN is the English name of a disputable rule.
func RuleNameEN(id string) string {
	if n, ok := ruleNames[id]; ok {
		return n[1]
	}
	return id
}

var kindNames = map[string][2]string{
	ledger.KindCompute:    {"计算", "Compute"},
	ledger.KindStorage:    {"存储", "Storage"},
	ledger.KindImage:      {"镜像", "Image"},
	ledger.KindSnapshot:   {"快照", "Snapshot"},
	ledger.KindNetwork:    {"网络/流量", "Network"},
	ledger.KindSeat:       {"关机占用费", "Seat fee"},
	ledger.KindService:    {"增值服务", "Service"},
	ledger.KindTax:        {"税费", "Tax"},
	ledger.KindCredit:     {"代金券/抵扣", "Credit"},
	ledger.KindAdjustment: {"调账", "Adjustment"},
	ledger.KindOther:      {"其他", "Other"},
}

// KindNameZH is the Chinese name of a charge kind.
func KindNameZH(kind string) string {
	if n, ok := kindNames[kind]; ok {
		return n[0]
	}
	return kind
}

var statusNames = map[string]string{
	StatusClaimed:         "报销",
	StatusCredit:          "抵扣行，不报销（账单各行未体现的代金券从报销额中扣除）",
	StatusNothingPaid:     "代金券支付，不报销",
	StatusDisputed:        "有争议，争议部分不报销",
	StatusClaimedDisputed: "有争议，仍报销",
	StatusNotInvoiced:     "超出已开发票部分不报销（以票报销）",
}

// StatusNameZH is the Chinese text of a line status.
func StatusNameZH(s string) string { return statusNames[s] }

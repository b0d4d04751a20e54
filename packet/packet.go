package packet

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/sync/errgroup"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
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
	Item *ledger.LineItem // the ledger's row, with the columns the packet reads
	// Billed is what the line bills in the packet: billed_cost, except that a
	// credit line recording a voucher used (ingest.SettlePaid) bills
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
	Provider string
	Currency string
	Lines    int
	// Shown are the sums: billed (credit lines included), not invoiceable
	// (vouchers and gifts used, other non-cash parts), invoiceable (cash
	// paid), disputed, not invoiced (InvoicedOnly) and claimed.
	Shown
	Invoiced     decimal.Decimal // invoices counted for the month (reconcile.InvoiceCoverage)
	ToRequest    decimal.Decimal // invoices still to request
	OverInvoiced decimal.Decimal
	Estimated    int // lines whose cash part was estimated
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

// Packet is the computed reimbursement packet of a month. Its line items
// are not held in memory: Build keeps them in a temporary file, in 明细's
// order, and EachLine hands them out again; Close removes the file.
type Packet struct {
	Options
	Generated time.Time       // Options.Date, or today
	LineCount int             // line items in the packet, the rows of 明细
	Totals    []Total         // per platform and currency, in platform.All order
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
	// NegativeInvoiced are the platforms whose invoices of the month net
	// negative (red-letter invoices beyond the others): InvoicedOnly counts
	// them as 0, so that they claim nothing rather than less than nothing.
	NegativeInvoiced []string

	items    *itemFile                // the line items, for EachLine
	imports  map[int64]*ledger.Import // by id: a line's file and row
	disputed map[int64]*disputedPart  // by line item id
	numbers  map[pc][]string          // invoice numbers per platform and currency
	left     map[pc]decimal.Decimal   // InvoicedOnly: what the invoices leave for the positive claims
	exact    map[string]*Shown        // per currency, 明细's money columns at source precision
	totalAt  map[pc]int               // index in Totals
	// lineWidths are the display widths of 明细's columns over its line
	// rows, measured as Build works the lines out, so that WriteXLSX
	// streams 明细 in one pass over the month (see xw).
	lineWidths []int
}

// pc is a platform and currency.
type pc struct{ provider, currency string }

// disputedPart is what the exceptions of a line item dispute: exactly, and
// as the sum of their printed amounts.
type disputedPart struct{ exact, shown decimal.Decimal }

// lineColumns are the columns of line_items the packet reads.
var lineColumns = []string{"id", "provider", "billing_account_id", "sub_account", "resource_id", "resource_name",
	"kind", "charge_period_start", "charge_period_end", "currency", "billed_cost", "voucher_paid", "cash_paid",
	"import_id", "source_row"}

// Build computes the packet of opts.Month from the ledger: the stored
// findings (via reports.Refunds), the invoices, and its line items, read
// once, in 明细's order (ledger.CompareItems): each line is worked out,
// added to the totals and written to a temporary file for EachLine, so
// that the memory a packet takes does not grow with the month. The caller
// must Close the packet.
func Build(ctx context.Context, db *ledger.DB, opts Options) (*Packet, error) {
	if _, err := time.Parse("2006-01", opts.Month); err != nil {
		return nil, fmt.Errorf("packet: month %q: want YYYY-MM", opts.Month)
	}
	if opts.TZ == nil {
		opts.TZ = ledger.DefaultTZ()
	}
	p := &Packet{Options: opts, Generated: opts.Date, imports: map[int64]*ledger.Import{},
		disputed: map[int64]*disputedPart{}, numbers: map[pc][]string{}, left: map[pc]decimal.Decimal{},
		exact: map[string]*Shown{}, totalAt: map[pc]int{}}
	if p.Generated.IsZero() {
		p.Generated = time.Now()
	}
	p.Generated = p.Generated.In(opts.TZ)
	if err := p.build(ctx, db); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *Packet) build(ctx context.Context, db *ledger.DB) error {
	imps, err := db.Imports(ctx, 0)
	if err != nil {
		return fmt.Errorf("packet: %w", err)
	}
	for i := range imps {
		p.imports[imps[i].ID] = &imps[i]
	}
	if p.Audited, err = audited(ctx, db, p.Month); err != nil {
		return err
	}
	// The dispute (the refunds report: a read of the month of its own)
	// runs beside the read of the items below, which keeps the items it
	// reads before the dispute is done and works them out after (catchUp).
	var disputeErr error
	disputed := make(chan struct{})
	go func() {
		defer close(disputed)
		disputeErr = p.dispute(ctx, db)
	}()
	defer func() { <-disputed }()
	// The invoice coverage reads the month's items too: it runs beside the
	// read below, and the lines get their invoice numbers (p.numbers) when
	// both are done.
	var cov *reconcile.CoverageReport
	var coverage errgroup.Group
	coverage.Go(func() error {
		var err error
		cov, err = reconcile.InvoiceCoverage(ctx, db, p.Month, reconcile.InvoiceableOptions{TZ: p.TZ, Project: p.Project})
		return err
	})
	defer coverage.Wait()
	p.items = newItemFile()
	// The one read of the month's line items. Under InvoicedOnly a line's
	// claim depends on the negative claims of its platform, known at the
	// end only: the totals then add the lines read back.
	negative := map[pc]decimal.Decimal{}
	m := &xw{p: p, measure: true, widths: map[string][]int{}}
	q := "SELECT li." + strings.Join(lineColumns, ", li.") + " FROM line_items li WHERE li.billing_period = ?"
	args := []any{p.Month}
	if p.Project != "" {
		q += " AND li.sub_account = ?"
		args = append(args, p.Project)
	}
	q += " ORDER BY li.provider, li.resource_id, li.charge_period_start, li.id" // ledger.CompareItems
	work := func(li *ledger.LineItem) error {
		p.LineCount++
		l := p.line(li)
		if !p.InvoicedOnly {
			p.add(&l)
			return m.line(0, &l)
		}
		k, neg := pc{li.Provider, li.Currency}, decimal.Zero
		if l.Shown.Claimed.IsNegative() {
			neg = l.Shown.Claimed
		}
		negative[k] = negative[k].Add(neg)
		return nil
	}
	// ready is when the dispute is done; the items from worked on, in
	// p.items' memory, wait for it.
	ready, worked := false, 0
	catchUp := func() error {
		<-disputed
		if disputeErr != nil {
			return disputeErr
		}
		ready = true
		var li ledger.LineItem // one copy for them all: work keeps no item
		for ; worked < p.items.n; worked++ {
			li = p.items.at(worked)
			if err := work(&li); err != nil {
				return err
			}
		}
		return nil
	}
	read, err := ledger.ItemsOf(lineColumns, func(li *ledger.LineItem) error {
		if !ready && p.items.n >= memItems {
			// The next item goes to the file: work out those in memory.
			if err := catchUp(); err != nil {
				return err
			}
		}
		if err := p.items.add(li); err != nil {
			return err
		}
		if ready {
			return work(li)
		}
		select {
		case <-disputed:
			return catchUp()
		default:
			return nil
		}
	})
	if err != nil {
		return fmt.Errorf("packet: %w", err)
	}
	err = db.Scan(ctx, q, args, read)
	if err == nil && !ready {
		err = catchUp()
	}
	if <-disputed; disputeErr != nil {
		return disputeErr
	}
	if err != nil {
		return fmt.Errorf("packet: %w", err)
	}
	if err := p.items.done(); err != nil {
		return fmt.Errorf("packet: %w", err)
	}
	if err := coverage.Wait(); err != nil {
		return fmt.Errorf("packet: %w", err)
	}
	for _, c := range cov.Rows {
		for _, inv := range c.Invoices {
			k := pc{c.Provider, c.Currency}
			p.numbers[k] = append(p.numbers[k], inv.Number)
		}
	}
	if !p.InvoicedOnly {
		// The lines were measured without their invoice numbers, which
		// are the same for every line of a platform and currency.
		for k := range p.totalAt {
			if err := m.text(SheetLines, p.colClaimed()+2, 0, strings.Join(p.numbers[k], ", "), cellOpts{}); err != nil {
				return err
			}
		}
	}
	if p.InvoicedOnly {
		invoiced := map[pc]decimal.Decimal{}
		for _, c := range cov.Rows {
			invoiced[pc{c.Provider, c.Currency}] = c.Invoiced
		}
		// Negative lines (refunds, credits taken off) lower the claim
		// first; the positive ones claim, in their order, what is left.
		// A red-letter invoice cancels an earlier claim, which is settled
		// with finance, not taken off this month's.
		for k, neg := range negative {
			inv := reports.RoundMoney(invoiced[k], k.currency)
			if inv.IsNegative() {
				p.NegativeInvoiced = append(p.NegativeInvoiced, k.provider)
				inv = decimal.Zero
			}
			p.left[k] = inv.Sub(neg)
		}
		slices.SortFunc(p.NegativeInvoiced, func(a, b string) int {
			return cmp.Or(cmp.Compare(platform.Rank(a), platform.Rank(b)), strings.Compare(a, b))
		})
		p.NegativeInvoiced = slices.Compact(p.NegativeInvoiced)
		if err := p.EachLine(func(l *Line) error { p.add(l); return m.line(0, l) }); err != nil {
			return err
		}
	}
	p.lineWidths = m.widths[SheetLines]
	p.totals(cov)
	return nil
}

// Close removes the packet's temporary file.
func (p *Packet) Close() error {
	if p.items == nil {
		return nil
	}
	err := p.items.close()
	p.items = nil
	return err
}

// EachLine hands fn the packet's lines in 明细's order. A line and its
// item are valid only inside fn.
func (p *Packet) EachLine(fn func(*Line) error) error {
	if p.items == nil {
		return fmt.Errorf("packet: the packet is closed")
	}
	left := maps.Clone(p.left)
	return p.items.each(func(li *ledger.LineItem) error {
		l := p.line(li)
		if p.InvoicedOnly {
			invoicedOnly(&l, left)
		}
		return fn(&l)
	})
}

// line works out the line of item li: what it claims, its disputed part,
// its printed amounts, its invoices and where it is in its file. li.File
// is set from its import.
func (p *Packet) line(li *ledger.LineItem) Line {
	l := newLine(li)
	l.Row = p.rowRef(li)
	l.Claimed = l.Invoiceable
	var shownDisputed decimal.Decimal
	if d := p.disputed[li.ID]; d != nil && d.exact.IsPositive() {
		l.Disputed, shownDisputed = d.exact, d.shown
		if p.ClaimDisputed {
			l.Status = StatusClaimedDisputed
		} else {
			l.Status = StatusDisputed
			l.Claimed = l.Invoiceable.Sub(l.Disputed)
		}
	}
	// The printed amounts: billed and invoiceable rounded once, the
	// disputed part as the sum of the line's printed exceptions, the rest
	// derived from those (see Shown).
	cur := li.Currency
	sh := &l.Shown
	sh.Billed = reports.RoundMoney(l.Billed, cur)
	sh.Invoiceable = reports.RoundMoney(l.Invoiceable, cur)
	sh.NotInvoiceable = sh.Billed.Sub(sh.Invoiceable)
	sh.Disputed = shownDisputed
	if sh.Invoiceable.IsPositive() && sh.Disputed.GreaterThan(sh.Invoiceable) {
		sh.Disputed = sh.Invoiceable // two parts rounded up past the line
	}
	sh.Claimed = sh.Invoiceable
	if l.Status == StatusDisputed {
		sh.Claimed = sh.Invoiceable.Sub(sh.Disputed)
	}
	l.Invoices = p.numbers[pc{li.Provider, cur}]
	return l
}

// rowRef is where a person finds item li in its file; it sets li.File.
func (p *Packet) rowRef(li *ledger.LineItem) RowRef {
	im := p.imports[li.ImportID]
	if im == nil {
		return RowRef{Record: li.SourceRow}
	}
	li.File = im.Path
	if row, ok := im.RowOf(li.SourceRow); ok {
		return RowRef{Sheet: im.Sheet, Row: row}
	}
	return RowRef{Record: li.SourceRow}
}

func newLine(li *ledger.LineItem) Line {
	l := Line{Item: li, Billed: li.BilledCost, Status: StatusClaimed}
	if li.Kind == ledger.KindCredit {
		// A voucher paying for charges billed in full (ingest.SettlePaid):
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

// dispute spreads the refund claims of the month over their evidence line
// items of the packet (see doc.go), records the exceptions and each line's
// disputed part.
func (p *Packet) dispute(ctx context.Context, db *ledger.DB) error {
	rep, err := reports.Refunds(ctx, db, reports.RefundsOptions{Month: p.Month, TZ: p.TZ, Policy: p.Policy, ClaimsOnly: true})
	if err != nil {
		return fmt.Errorf("packet: %w", err)
	}
	// Only the reasons are wanted: not the evidence's costs, a read of
	// every evidence line.
	fs, err := db.FindingsWithoutCosts(ctx, p.Month)
	if err != nil {
		return fmt.Errorf("packet: %w", err)
	}
	reasons := map[string]*ledger.Finding{}
	for i := range fs {
		reasons[fs[i].Fingerprint] = &fs[i]
	}
	var ids []int64
	for _, plat := range rep.Platforms {
		for _, c := range plat.Claims {
			for _, e := range c.Evidence {
				ids = append(ids, e.LineItemID)
			}
		}
	}
	slices.Sort(ids)
	items, err := db.LineItemsByID(ctx, p.Month, slices.Compact(ids))
	if err != nil {
		return fmt.Errorf("packet: %w", err)
	}
	lines := map[int64]*Line{} // the evidence lines of this month and project
	for _, li := range items {
		if p.Project == "" || li.SubAccount == p.Project {
			l := newLine(li)
			l.Row = p.rowRef(li)
			lines[li.ID] = &l
		}
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
				l, ok := lines[e.LineItemID]
				if !ok {
					continue // another month or project
				}
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
					File: l.Item.File, Row: l.Item.SourceRow, Cited: l.Row, Claimed: p.ClaimDisputed,
					Amount: reports.RoundMoney(part, l.Item.Currency)}
				if f := reasons[c.Fingerprint]; f != nil {
					x.ReasonZH, x.ReasonEN = f.ReasonZH, f.ReasonEN
				} else {
					x.ReasonZH, x.ReasonEN = RuleNameZH(c.RuleID), RuleNameEN(c.RuleID)
				}
				p.Exceptions = append(p.Exceptions, x)
				d := p.disputed[x.LineItemID]
				if d == nil {
					d = &disputedPart{}
					p.disputed[x.LineItemID] = d
				}
				d.exact, d.shown = d.exact.Add(x.Exact), d.shown.Add(x.Amount)
			}
		}
	}
	sort.SliceStable(p.Exceptions, func(i, j int) bool {
		a, b := p.Exceptions[i], p.Exceptions[j]
		if ra, rb := ruleRank(a.RuleID), ruleRank(b.RuleID); ra != rb {
			return ra < rb
		}
		if a.Provider != b.Provider {
			return platform.Rank(a.Provider) < platform.Rank(b.Provider)
		}
		return a.LineItemID < b.LineItemID
	})
	return nil
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

// invoicedOnly caps the claim of a line at what the invoices of its
// platform and currency leave (以票报销): lines claim in their order until
// the invoiced amount is used up; the rest of each line is NotInvoiced.
func invoicedOnly(l *Line, left map[pc]decimal.Decimal) {
	c := l.Shown.Claimed
	if !c.IsPositive() {
		return
	}
	k := pc{l.Item.Provider, l.Item.Currency}
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

// add adds a line to the totals of its platform and currency and to the
// exact sums of its currency. Every total is a sum of printed (Shown) line
// amounts.
func (p *Packet) add(l *Line) {
	k := pc{l.Item.Provider, l.Item.Currency}
	j, ok := p.totalAt[k]
	if !ok {
		j = len(p.Totals)
		p.totalAt[k] = j
		p.Totals = append(p.Totals, Total{Provider: k.provider, Currency: k.currency})
	}
	t := &p.Totals[j]
	t.Lines++
	t.Shown.add(&l.Shown)
	if l.Estimated {
		t.Estimated++
	}
	e := p.exact[k.currency]
	if e == nil {
		e = &Shown{}
		p.exact[k.currency] = e
	}
	e.add(&Shown{Billed: l.Billed, NotInvoiceable: l.NotInvoiceable, Invoiceable: l.Invoiceable, Disputed: l.Disputed,
		NotInvoiced: l.Shown.NotInvoiced /* cut at the minor unit */, Claimed: l.exactClaimed()})
}

// add adds the amounts of o to s.
func (s *Shown) add(o *Shown) {
	s.Billed = s.Billed.Add(o.Billed)
	s.NotInvoiceable = s.NotInvoiceable.Add(o.NotInvoiceable)
	s.Invoiceable = s.Invoiceable.Add(o.Invoiceable)
	s.Disputed = s.Disputed.Add(o.Disputed)
	s.NotInvoiced = s.NotInvoiced.Add(o.NotInvoiced)
	s.Claimed = s.Claimed.Add(o.Claimed)
}

// totals completes the cover totals (invoiced, to request), the claims per
// currency, the invoice list and the platforms left out.
func (p *Packet) totals(cov *reconcile.CoverageReport) {
	left := map[string]bool{}
	for _, c := range cov.Rows {
		k := pc{c.Provider, c.Currency}
		j, ok := p.totalAt[k]
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
		if _, ok := p.totalAt[pc{d.Counted.Provider, d.Counted.Currency}]; ok {
			p.DuplicateInvoices = append(p.DuplicateInvoices, d.Number)
		}
	}
	for prov := range left {
		p.LeftOut = append(p.LeftOut, prov)
	}
	sort.Slice(p.LeftOut, func(i, j int) bool { return platform.Rank(p.LeftOut[i]) < platform.Rank(p.LeftOut[j]) })
	sort.SliceStable(p.Totals, func(i, j int) bool {
		a, b := p.Totals[i], p.Totals[j]
		if a.Provider != b.Provider {
			if ra, rb := platform.Rank(a.Provider), platform.Rank(b.Provider); ra != rb {
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
		c.Exact = p.exact[c.Currency].Claimed
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

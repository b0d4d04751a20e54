package reconcile

import (
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

// Window is where a payment may lie around the platform row it pays for:
// from Before before the row's time to After after it.
type Window struct {
	Before time.Duration
	After  time.Duration
}

// DefaultWindow pairs a top-up with a payment made from 10 minutes before
// to 30 minutes after the platform recorded it (a platform often records the
// order when it is created, and the user pays within its timeout).
var DefaultWindow = Window{Before: 10 * time.Minute, After: 30 * time.Minute}

// DefaultRefundWindow pairs a platform refund (or withdrawal) with the money
// arriving back from an hour before to 7 days after it: refunds to Alipay and
// WeChat Pay take days.
var DefaultRefundWindow = Window{Before: time.Hour, After: 7 * 24 * time.Hour}

func (w Window) contains(rowTime, payTime time.Time) bool {
	return !payTime.Before(rowTime.Add(-w.Before)) && !payTime.After(rowTime.Add(w.After))
}

// Match kinds.
const (
	KindTopup  = "topup"  // a top-up paid by a payment
	KindRefund = "refund" // a refund payment paired with a platform refund or withdrawal
)

// Match bases: why two rows were paired.
const (
	BasisOrderNumber = "order_number" // the payment's (merchant) order number is the row's reference
	BasisAmountTime  = "amount_time"  // equal amount, payment inside the window
)

// PaymentRow is one Alipay / WeChat Pay record as reconciliation shows it.
type PaymentRow struct {
	ID              int64
	Source          string
	Time            time.Time
	Direction       string
	Counterparty    string
	Item            string
	Amount          decimal.Decimal
	Currency        string
	Status          string
	OrderNo         string
	MerchantOrderNo string
	Provider        string // the platform its payee names; "" = not a known platform
	Refund          bool
	File            string
	Row             int   // 1-based record number in File (ledger.Payment.SourceRow)
	ImportID        int64 // the import File came from, for the row a person sees (Report.rowAt)
}

// Pair is one platform row matched with one payment.
type Pair struct {
	Kind       string // KindTopup or KindRefund
	Basis      string // BasisOrderNumber or BasisAmountTime
	PayeeKnown bool   // the payment's payee names the row's platform
	Flow       FlowRow
	Payment    PaymentRow
	Offset     time.Duration // payment time − row time
}

// Matching is the outcome of Match.
type Matching struct {
	Pairs             []Pair
	UnmatchedPayments []PaymentRow // payments (and refunds) to a known platform with no partner
	UnmatchedTopups   []FlowRow    // top-ups with no payment
}

// MatchOptions tune Match; zero windows take the defaults.
type MatchOptions struct {
	Window       Window
	RefundWindow Window
}

// isClosed reports a payment that did not happen or was undone in full:
// 交易关闭, failed, or cancelled.
func isClosed(status string) bool {
	return strings.Contains(status, "关闭") || strings.Contains(status, "失败") || strings.Contains(status, "撤销") ||
		strings.Contains(strings.ToLower(status), "closed")
}

// isRefund reports a payment that brings money back: a 退款 status or item,
// not going out.
func isRefund(p *ledger.Payment) bool {
	if p.Direction == "out" {
		return false
	}
	return strings.Contains(p.Status, "退款") || strings.HasPrefix(strings.TrimSpace(p.Item), "退款")
}

// PaymentRowOf describes a payment for reconciliation (payee, refund flag).
func PaymentRowOf(p *ledger.Payment, file string) PaymentRow {
	r := PaymentRow{ID: p.ID, Source: p.Source, Time: p.Time, Direction: p.Direction, Counterparty: p.Counterparty,
		Item: p.Item, Amount: p.Amount, Currency: p.Currency, Status: p.Status, OrderNo: p.OrderNo,
		MerchantOrderNo: p.MerchantOrderNo, Refund: isRefund(p), File: file, Row: p.SourceRow,
		ImportID: p.ImportID}
	r.Provider, _ = PayeeProvider(p.Counterparty, p.Item)
	return r
}

type candidate struct {
	flow, pay int
	order     bool // order number equal
	payee     int  // 0 = payee names the platform, 1 = unknown payee
	dist      time.Duration
}

// Match pairs platform rows with payments one to one, deterministically:
//
//   - top-ups (flow rows of type topup) with outgoing payments; refunds
//     (payments with a 退款 status or item that bring money back) with
//     platform refund and withdrawal rows;
//   - a candidate pair has exactly equal amounts and currencies, and the
//     payment inside the window around the row (opts.Window for top-ups,
//     opts.RefundWindow for refunds), or the payment's order or merchant order
//     number equal to the row's reference (then the window does not apply);
//   - a payment whose payee names another platform is never a candidate; an
//     unknown payee is, after the payees that name the row's platform;
//   - pairs are taken best first: order number equal, then a known payee,
//     then the smaller time distance, then the row order, then the payment
//     order; a row or payment already taken is skipped, so no payment pays two
//     top-ups.
//
// Closed payments (交易关闭 …) take no part, and neither do refunds of them
// (Alipay numbers a refund 原交易号_退款号): the money went and came back.
// Unmatched payments are listed only when their payee or item names a known
// platform (a user's coffee is not a missing top-up); unmatched top-ups
// always. flows and pays should be in time order; their order breaks ties.
func Match(flows []FlowRow, pays []PaymentRow, opts MatchOptions) Matching {
	if opts.Window == (Window{}) {
		opts.Window = DefaultWindow
	}
	if opts.RefundWindow == (Window{}) {
		opts.RefundWindow = DefaultRefundWindow
	}
	closed := map[string]bool{}
	for i := range pays {
		if isClosed(pays[i].Status) && pays[i].OrderNo != "" {
			closed[pays[i].OrderNo] = true
		}
	}
	usable := make([]bool, len(pays))
	for i := range pays {
		p := &pays[i]
		if isClosed(p.Status) {
			continue
		}
		if p.Refund {
			if orig, _, ok := strings.Cut(p.OrderNo, "_"); ok && closed[orig] {
				continue
			}
		} else if p.Direction != "out" {
			continue
		}
		usable[i] = true
	}
	var cands []candidate
	for fi := range flows {
		f := &flows[fi]
		var refund bool
		switch f.Type {
		case ledger.TxTopup:
		case ledger.TxRefund, ledger.TxWithdrawal:
			refund = true
		default:
			continue
		}
		w := opts.Window
		if refund {
			w = opts.RefundWindow
		}
		for pi := range pays {
			p := &pays[pi]
			if !usable[pi] || p.Refund != refund || !p.Amount.Equal(f.Amount) || p.Currency != f.Currency {
				continue
			}
			if p.Provider != "" && p.Provider != f.Provider {
				continue
			}
			order := f.Reference != "" && (f.Reference == p.MerchantOrderNo || f.Reference == p.OrderNo)
			if !order && !w.contains(f.Time, p.Time) {
				continue
			}
			c := candidate{flow: fi, pay: pi, order: order, dist: p.Time.Sub(f.Time)}
			if c.dist < 0 {
				c.dist = -c.dist
			}
			if p.Provider == "" {
				c.payee = 1
			}
			cands = append(cands, c)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.order != b.order {
			return a.order
		}
		if a.payee != b.payee {
			return a.payee < b.payee
		}
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		if a.flow != b.flow {
			return a.flow < b.flow
		}
		return a.pay < b.pay
	})
	flowTaken := make([]bool, len(flows))
	payTaken := make([]bool, len(pays))
	var m Matching
	for _, c := range cands {
		if flowTaken[c.flow] || payTaken[c.pay] {
			continue
		}
		flowTaken[c.flow], payTaken[c.pay] = true, true
		f, p := flows[c.flow], pays[c.pay]
		pr := Pair{Kind: KindTopup, Basis: BasisAmountTime, PayeeKnown: c.payee == 0, Flow: f, Payment: p, Offset: p.Time.Sub(f.Time)}
		if p.Refund {
			pr.Kind = KindRefund
		}
		if c.order {
			pr.Basis = BasisOrderNumber
		}
		m.Pairs = append(m.Pairs, pr)
	}
	sort.SliceStable(m.Pairs, func(i, j int) bool {
		a, b := m.Pairs[i], m.Pairs[j]
		if !a.Flow.Time.Equal(b.Flow.Time) {
			return a.Flow.Time.Before(b.Flow.Time)
		}
		return a.Flow.ID < b.Flow.ID
	})
	for fi := range flows {
		if !flowTaken[fi] && flows[fi].Type == ledger.TxTopup {
			m.UnmatchedTopups = append(m.UnmatchedTopups, flows[fi])
		}
	}
	for pi := range pays {
		if !payTaken[pi] && usable[pi] && pays[pi].Provider != "" {
			m.UnmatchedPayments = append(m.UnmatchedPayments, pays[pi])
		}
	}
	return m
}

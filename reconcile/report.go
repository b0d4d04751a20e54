package reconcile

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
	"github.com/gpubill/gpubill/platform"
	"github.com/gpubill/gpubill/reports"
)

// Write encodes the report: json (the documented contract, DESIGN.md
// "Command line"), or table, md, csv and tsv, section by section, through
// the reports package's table encoders. Human formats round money for
// display (reports.FormatMoney); json, csv and tsv carry exact decimals.
// In csv and tsv every section is its own block, separated by an empty line,
// whose first column "section" names it.
func (r *Report) Write(w io.Writer, opts reports.WriteOptions) error {
	if opts.TZ == nil {
		opts.TZ = r.TZ
	}
	if opts.TZ == nil {
		opts.TZ = ledger.DefaultTZ()
	}
	if opts.Lang == "" {
		opts.Lang = "zh"
	}
	switch opts.Format {
	case reports.FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(r.JSON(opts.TZ))
	case reports.FormatTable, "", reports.FormatMarkdown, reports.FormatCSV, reports.FormatTSV:
		return r.writeSections(w, opts)
	}
	return fmt.Errorf("reconcile: unknown format %q (want table, tsv, md, csv or json)", opts.Format)
}

// ---- JSON -----------------------------------------------------------------

// ReportJSON is the JSON contract of gpubill reconcile --format json.
type ReportJSON struct {
	Month             string          `json:"month"`
	TZ                string          `json:"tz"`
	Window            WindowJSON      `json:"window"`
	Differences       bool            `json:"differences"`
	Balances          []BalanceJSON   `json:"balances"`
	DailyCharges      []DailyJSON     `json:"daily_charges"`
	Matches           []MatchJSON     `json:"matches"`
	UnmatchedPayments []PaymentJSON   `json:"unmatched_payments"`
	UnmatchedTopups   []FlowJSON      `json:"unmatched_topups"`
	Invoices          []CoverageJSON  `json:"invoices"`
	DuplicateInvoices []DuplicateJSON `json:"duplicate_invoices"`
}

// WindowJSON is the matching window in seconds around the top-up time.
type WindowJSON struct {
	BeforeSeconds int64 `json:"before_seconds"`
	AfterSeconds  int64 `json:"after_seconds"`
}

// BalanceJSON is one element of "balances".
type BalanceJSON struct {
	Provider        string    `json:"provider"`
	Account         string    `json:"account"`
	Currency        string    `json:"currency"`
	Basis           string    `json:"basis"`
	Opening         *string   `json:"opening"`
	Topups          string    `json:"topups"`
	Vouchers        string    `json:"vouchers"`
	Charges         string    `json:"charges"`
	Refunds         string    `json:"refunds"`
	Withdrawals     string    `json:"withdrawals"`
	Freezes         string    `json:"freezes"`
	Unfreezes       string    `json:"unfreezes"`
	ExpectedClosing *string   `json:"expected_closing"`
	Closing         *string   `json:"closing"`
	Difference      *string   `json:"difference"`
	Rows            int       `json:"rows"`
	Gaps            []GapJSON `json:"gaps"`
	// Added: the last balance the export shows, where, and the rows after
	// it over which closing is carried forward (closing_carried true).
	ClosingShown     *string `json:"closing_shown"`
	ClosingShownTime *string `json:"closing_shown_time"`
	ClosingCarried   bool    `json:"closing_carried"`
	CarriedRows      int     `json:"carried_rows"`
	IncompleteFlow   bool    `json:"incomplete_flow"`
	BillCharges      *string `json:"bill_charges"`
}

// GapJSON is one break of an export's balance column.
type GapJSON struct {
	Before     *FlowJSON `json:"before"` // null when the break is at the first row
	After      FlowJSON  `json:"after"`
	Expected   string    `json:"expected"`
	Shown      string    `json:"shown"`
	Difference string    `json:"difference"`
}

// FlowJSON is a money-flow row.
type FlowJSON struct {
	Provider    string  `json:"provider"`
	Account     string  `json:"account"`
	Time        string  `json:"time"`
	Type        string  `json:"type"`
	Amount      string  `json:"amount"`
	Currency    string  `json:"currency"`
	Balance     *string `json:"balance"`
	Reference   string  `json:"reference"`
	Description string  `json:"description"`
	File        string  `json:"file"`
	Row         int     `json:"row"`
}

// DailyJSON is one element of "daily_charges".
type DailyJSON struct {
	Provider    string `json:"provider"`
	Currency    string `json:"currency"`
	Day         string `json:"day"`
	FlowCharges string `json:"flow_charges"`
	BillCharges string `json:"bill_charges"`
	Difference  string `json:"difference"`
	FlowRows    int    `json:"flow_rows"`
	BillLines   int    `json:"bill_lines"`
}

// MatchJSON is one element of "matches": the platform row's provider, time,
// amount, currency and reference, and the payment's source, time and numbers.
type MatchJSON struct {
	Kind             string       `json:"kind"`
	Basis            string       `json:"basis"`
	PayeeKnown       bool         `json:"payee_known"`
	Provider         string       `json:"provider"`
	Account          string       `json:"account"`
	Type             string       `json:"type"`
	Time             string       `json:"time"`
	Amount           string       `json:"amount"`
	Currency         string       `json:"currency"`
	Reference        string       `json:"reference"`
	Source           string       `json:"source"`
	PaymentTime      string       `json:"payment_time"`
	PaymentReference string       `json:"payment_reference"`
	MerchantOrderNo  string       `json:"merchant_order_no"`
	Counterparty     string       `json:"counterparty"`
	OffsetSeconds    int64        `json:"offset_seconds"`
	FlowEvidence     EvidenceJSON `json:"flow_evidence"`
	PaymentEvidence  EvidenceJSON `json:"payment_evidence"`
}

// EvidenceJSON points at a source row: file as imported, 1-based record.
type EvidenceJSON struct {
	File string `json:"file"`
	Row  int    `json:"row"`
}

// PaymentJSON is one element of "unmatched_payments".
type PaymentJSON struct {
	Source          string `json:"source"`
	Provider        string `json:"provider"` // the platform its payee names
	Time            string `json:"time"`
	Amount          string `json:"amount"`
	Currency        string `json:"currency"`
	Reference       string `json:"reference"`
	MerchantOrderNo string `json:"merchant_order_no"`
	Counterparty    string `json:"counterparty"`
	Item            string `json:"item"`
	Direction       string `json:"direction"`
	Status          string `json:"status"`
	Refund          bool   `json:"refund"`
	File            string `json:"file"`
	Row             int    `json:"row"`
}

// CoverageJSON is one element of "invoices".
type CoverageJSON struct {
	Provider       string        `json:"provider"`
	Currency       string        `json:"currency"`
	Basis          string        `json:"basis"`
	Invoiceable    string        `json:"invoiceable"`
	Invoiced       string        `json:"invoiced"`
	ToRequest      string        `json:"to_request"`
	OverInvoiced   string        `json:"over_invoiced"`
	EstimatedLines int           `json:"estimated_lines"`
	Invoices       []InvoiceJSON `json:"invoices"`
}

// InvoiceJSON is an invoice, with the part of it that counts for the month.
type InvoiceJSON struct {
	Provider       string  `json:"provider"`
	Number         string  `json:"number"`
	Date           string  `json:"date"`
	Amount         string  `json:"amount"`
	Currency       string  `json:"currency"`
	Allocated      *string `json:"allocated,omitempty"`
	PeriodStart    string  `json:"period_start"`
	PeriodEnd      string  `json:"period_end"`
	PeriodFromDate bool    `json:"period_from_date,omitempty"`
	Title          string  `json:"title"`
	File           string  `json:"file"`
	Row            int     `json:"row"`
}

// DuplicateJSON is one element of "duplicate_invoices".
type DuplicateJSON struct {
	Number  string        `json:"number"`
	Counted InvoiceJSON   `json:"counted"`
	Others  []InvoiceJSON `json:"others"`
}

func dec(d decimal.Decimal) string { return money.String(d) }

func ndec(d decimal.NullDecimal) *string {
	if !d.Valid {
		return nil
	}
	s := money.String(d.Decimal)
	return &s
}

func rfc(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format(time.RFC3339)
}

func flowJSON(f FlowRow, loc *time.Location) FlowJSON {
	return FlowJSON{Provider: f.Provider, Account: f.Account, Time: rfc(f.Time, loc), Type: f.Type, Amount: dec(f.Amount),
		Currency: f.Currency, Balance: ndec(f.Balance), Reference: f.Reference, Description: f.Description, File: f.File, Row: f.Row}
}

func invoiceJSON(inv ledger.Invoice) InvoiceJSON {
	return InvoiceJSON{Provider: inv.Provider, Number: inv.Number, Date: inv.Date, Amount: dec(inv.Amount), Currency: inv.Currency,
		PeriodStart: inv.PeriodStart, PeriodEnd: inv.PeriodEnd, Title: inv.Title, File: inv.File, Row: inv.SourceRow}
}

// JSON builds the JSON form of the report (lists are [] when empty, never
// null; unknown amounts are null).
func (r *Report) JSON(loc *time.Location) ReportJSON {
	out := ReportJSON{Month: r.Month, TZ: loc.String(), Differences: r.Differences(),
		Window:   WindowJSON{int64(r.Window.Before / time.Second), int64(r.Window.After / time.Second)},
		Balances: []BalanceJSON{}, DailyCharges: []DailyJSON{}, Matches: []MatchJSON{},
		UnmatchedPayments: []PaymentJSON{}, UnmatchedTopups: []FlowJSON{}, Invoices: []CoverageJSON{},
		DuplicateInvoices: []DuplicateJSON{}}
	for _, b := range r.Balances {
		bj := BalanceJSON{Provider: b.Provider, Account: b.Account, Currency: b.Currency, Basis: b.Basis,
			Opening: ndec(b.Opening), Topups: dec(b.Topups), Vouchers: dec(b.Vouchers), Charges: dec(b.Charges),
			Refunds: dec(b.Refunds), Withdrawals: dec(b.Withdrawals), Freezes: dec(b.Freezes), Unfreezes: dec(b.Unfreezes),
			ExpectedClosing: ndec(b.Expected), Closing: ndec(b.Closing), Difference: ndec(b.Difference), Rows: b.Rows,
			Gaps: []GapJSON{}, ClosingShown: ndec(b.Shown), ClosingCarried: b.Closing.Valid && b.CarriedRows > 0,
			CarriedRows: b.CarriedRows, IncompleteFlow: b.IncompleteFlow, BillCharges: ndec(b.BillCharges)}
		if !b.ShownTime.IsZero() {
			t := b.ShownTime.In(loc).Format(time.RFC3339)
			bj.ClosingShownTime = &t
		}
		for _, g := range b.Gaps {
			gj := GapJSON{After: flowJSON(g.After, loc), Expected: dec(g.Expected), Shown: dec(g.Shown), Difference: dec(g.Difference)}
			if g.Before.ID != 0 {
				f := flowJSON(g.Before, loc)
				gj.Before = &f
			}
			bj.Gaps = append(bj.Gaps, gj)
		}
		out.Balances = append(out.Balances, bj)
	}
	for _, d := range r.Daily {
		out.DailyCharges = append(out.DailyCharges, DailyJSON{Provider: d.Provider, Currency: d.Currency, Day: d.Day,
			FlowCharges: dec(d.FlowCharges), BillCharges: dec(d.BillCharges), Difference: dec(d.Difference),
			FlowRows: d.FlowRows, BillLines: d.BillLines})
	}
	for _, p := range r.Matching.Pairs {
		out.Matches = append(out.Matches, MatchJSON{Kind: p.Kind, Basis: p.Basis, PayeeKnown: p.PayeeKnown,
			Provider: p.Flow.Provider, Account: p.Flow.Account, Type: p.Flow.Type, Time: rfc(p.Flow.Time, loc),
			Amount: dec(p.Flow.Amount), Currency: p.Flow.Currency, Reference: p.Flow.Reference, Source: p.Payment.Source,
			PaymentTime: rfc(p.Payment.Time, loc), PaymentReference: p.Payment.OrderNo, MerchantOrderNo: p.Payment.MerchantOrderNo,
			Counterparty: p.Payment.Counterparty, OffsetSeconds: int64(p.Offset / time.Second),
			FlowEvidence:    EvidenceJSON{p.Flow.File, p.Flow.Row},
			PaymentEvidence: EvidenceJSON{p.Payment.File, p.Payment.Row}})
	}
	for _, p := range r.Matching.UnmatchedPayments {
		out.UnmatchedPayments = append(out.UnmatchedPayments, PaymentJSON{Source: p.Source, Provider: p.Provider,
			Time: rfc(p.Time, loc), Amount: dec(p.Amount), Currency: p.Currency, Reference: p.OrderNo,
			MerchantOrderNo: p.MerchantOrderNo, Counterparty: p.Counterparty, Item: p.Item, Direction: p.Direction,
			Status: p.Status, Refund: p.Refund, File: p.File, Row: p.Row})
	}
	for _, f := range r.Matching.UnmatchedTopups {
		out.UnmatchedTopups = append(out.UnmatchedTopups, flowJSON(f, loc))
	}
	if r.Invoices != nil {
		for _, c := range r.Invoices.Rows {
			cj := CoverageJSON{Provider: c.Provider, Currency: c.Currency, Basis: c.Basis, Invoiceable: dec(c.Invoiceable),
				Invoiced: dec(c.Invoiced), ToRequest: dec(c.ToRequest), OverInvoiced: dec(c.OverInvoiced),
				EstimatedLines: c.Estimated, Invoices: []InvoiceJSON{}}
			for _, inv := range c.Invoices {
				ij := invoiceJSON(inv.Invoice)
				a := dec(inv.Allocated)
				ij.Allocated, ij.PeriodFromDate = &a, inv.PeriodFromDate
				cj.Invoices = append(cj.Invoices, ij)
			}
			out.Invoices = append(out.Invoices, cj)
		}
		for _, d := range r.Invoices.Duplicates {
			dj := DuplicateJSON{Number: d.Number, Counted: invoiceJSON(d.Counted), Others: []InvoiceJSON{}}
			for _, o := range d.Others {
				dj.Others = append(dj.Others, invoiceJSON(o))
			}
			out.DuplicateInvoices = append(out.DuplicateInvoices, dj)
		}
	}
	return out
}

// ---- human formats and csv --------------------------------------------------

type section struct {
	key       string
	zh, en    string
	table     *reports.Table
	rows      int
	emptyZH   string
	emptyEN   string
	noteZH    string
	noteEN    string
	skipEmpty bool // leave the section out when it has no rows
}

func pick(lang, zh, en string) string {
	if lang == "zh" {
		return zh
	}
	return en
}

type colSpec struct {
	key, zh, en string
	numeric     bool
}

func newSection(opts reports.WriteOptions, key, zh, en string, cols []colSpec) *section {
	exact := opts.Format == reports.FormatCSV || opts.Format == reports.FormatTSV
	var cs []reports.Column
	if exact {
		cs = append(cs, reports.Column{Key: "section", Title: "section"})
	}
	for _, c := range cols {
		cs = append(cs, reports.Column{Key: c.key, Title: pick(opts.Lang, c.zh, c.en), Numeric: c.numeric})
	}
	return &section{key: key, zh: zh, en: en, table: reports.NewTable(cs...)}
}

func (s *section) add(opts reports.WriteOptions, cells ...string) {
	if opts.Format == reports.FormatCSV || opts.Format == reports.FormatTSV {
		cells = append([]string{s.key}, cells...)
	}
	s.table.Add(cells...)
	s.rows++
}

func (r *Report) writeSections(w io.Writer, opts reports.WriteOptions) error {
	exact := opts.Format == reports.FormatCSV || opts.Format == reports.FormatTSV
	lang, loc := opts.Lang, opts.TZ
	money := func(d decimal.Decimal, cur string) string { return reports.FormatMoney(d, cur, exact) }
	nmoney := func(d decimal.NullDecimal, cur string) string { return reports.FormatNullMoney(d, cur, exact) }
	tm := func(t time.Time) string {
		if exact {
			return rfc(t, loc)
		}
		return t.In(loc).Format("2006-01-02 15:04:05")
	}
	prov := func(slug string) string {
		if exact {
			return slug
		}
		return platform.Name(slug, lang)
	}
	// source names a payment channel for people: 支付宝 / Alipay.
	source := func(slug string) string {
		if exact {
			return slug
		}
		switch slug {
		case ledger.SourceAlipay:
			return pick(lang, "支付宝", "Alipay")
		case ledger.SourceWeChatPay:
			return pick(lang, "微信支付", "WeChat Pay")
		}
		return slug
	}
	where := func(id int64, file string, record int) string { return r.rowAt(id, file, record, exact) }
	txType := func(typ string) string {
		if exact || lang != "zh" {
			return typ
		}
		if zh, ok := txTypeZH[typ]; ok {
			return zh
		}
		return typ
	}
	var secs []*section

	bal := newSection(opts, "balances", "余额核对", "Balances", []colSpec{
		{"provider", "平台", "Provider", false}, {"account", "账号", "Account", false}, {"currency", "币种", "Currency", false},
		{"opening", "期初", "Opening", true}, {"topups", "充值", "Top-ups", true}, {"vouchers", "代金券", "Vouchers", true},
		{"charges", "消费", "Charges", true}, {"refunds", "退款", "Refunds", true}, {"withdrawals", "提现", "Withdrawals", true},
		{"expected_closing", "应有期末", "Expected closing", true}, {"closing", "期末余额", "Closing", true},
		{"difference", "差额", "Difference", true}, {"basis", "余额口径", "Basis", false},
		// Added after the first columns, so that CSV readers keep theirs.
		{"closing_shown", "导出余额", "Balance shown", true}, {"shown_time", "余额时间", "Shown at", false},
		{"flow", "收支明细", "Money flow", false}})
	bal.emptyZH, bal.emptyEN = "本月没有收支明细。", "No money flow this month."
	bal.noteZH = "期初 + 充值 + 代金券 − 消费 + 退款 − 提现 = 应有期末；冻结/解冻只改变可用余额，不计入（余额口径为“可用”时计入）。"
	bal.noteEN = "Opening + top-ups + vouchers − charges + refunds − withdrawals = expected closing; freezes move the available balance only and count only where the export's balance is the available one (basis available)."
	bal.noteZH += "导出余额 = 导出文件最后显示的余额；期末余额标“推算”的，是其后未显示余额的收支按金额推算所得，差额只对比导出显示过的余额。"
	bal.noteEN += " Balance shown = the last balance the export shows; a closing marked carried forward adds the later rows that show none, and the difference compares shown balances only."
	for _, b := range r.Balances {
		basis := b.Basis
		if !exact {
			basis = pick(lang, map[string]string{BasisTotal: "总额", BasisAvailable: "可用"}[b.Basis], b.Basis)
		}
		closing := nmoney(b.Closing, b.Currency)
		if b.Closing.Valid && b.CarriedRows > 0 && !exact {
			closing += pick(lang, "（推算）", " (carried forward)")
		}
		shownAt := "-"
		if !b.ShownTime.IsZero() {
			shownAt = b.ShownTime.In(opts.TZ).Format("2006-01-02 15:04")
			if exact {
				shownAt = b.ShownTime.In(opts.TZ).Format(time.RFC3339)
			}
		}
		flow := pick(lang, "完整", "complete")
		if b.IncompleteFlow {
			flow = pick(lang, "不完整：账单有消费，收支明细无消费记录", "incomplete: the bill has charges, the flow none")
		}
		if exact {
			flow = map[bool]string{false: "complete", true: "incomplete"}[b.IncompleteFlow]
		}
		if !b.BillCharges.Valid {
			flow = "-" // no bill lines to hold it against
		}
		bal.add(opts, prov(b.Provider), b.Account, b.Currency, nmoney(b.Opening, b.Currency), money(b.Topups, b.Currency),
			money(b.Vouchers, b.Currency), money(b.Charges, b.Currency), money(b.Refunds, b.Currency),
			money(b.Withdrawals, b.Currency), nmoney(b.Expected, b.Currency), closing,
			nmoney(b.Difference, b.Currency), basis, nmoney(b.Shown, b.Currency), shownAt, flow)
	}
	secs = append(secs, bal)

	gaps := newSection(opts, "balance_gaps", "余额断点（前后两行）", "Balance gaps (the rows on both sides)", []colSpec{
		{"provider", "平台", "Provider", false}, {"currency", "币种", "Currency", false},
		{"before_time", "前一行时间", "Row before", false}, {"before_row", "前一行位置", "Before at", false},
		{"before_balance", "前一行余额", "Balance before", true},
		{"after_time", "后一行时间", "Row after", false}, {"after_type", "类型", "Type", false}, {"after_amount", "金额", "Amount", true},
		{"after_row", "后一行位置", "After at", false},
		{"expected", "应有余额", "Expected", true}, {"shown", "账单余额", "Shown", true}, {"difference", "差额", "Difference", true}})
	gaps.skipEmpty = true
	for _, b := range r.Balances {
		for _, g := range b.Gaps {
			bt, br, bb := "", "", ""
			if g.Before.ID != 0 {
				bt, br, bb = tm(g.Before.Time), where(g.Before.ImportID, g.Before.File, g.Before.Row), nmoney(g.Before.Balance, b.Currency)
			}
			gaps.add(opts, prov(b.Provider), b.Currency, bt, br, bb, tm(g.After.Time), txType(g.After.Type),
				money(g.After.Amount, b.Currency), where(g.After.ImportID, g.After.File, g.After.Row), money(g.Expected, b.Currency),
				money(g.Shown, b.Currency), money(g.Difference, b.Currency))
		}
	}
	secs = append(secs, gaps)

	daily := newSection(opts, "daily_charges", "按日消费不一致（收支明细 vs 账单明细）", "Daily charges that differ (money flow vs bill lines)", []colSpec{
		{"provider", "平台", "Provider", false}, {"currency", "币种", "Currency", false}, {"day", "日期", "Day", false},
		{"flow_charges", "收支消费", "Flow charges", true}, {"bill_charges", "账单金额", "Bill lines", true},
		{"difference", "差额", "Difference", true}})
	daily.emptyZH, daily.emptyEN = "两者一致（或没有可比的账单明细）。", "They agree (or there are no bill lines to compare)."
	for _, d := range r.Daily {
		daily.add(opts, prov(d.Provider), d.Currency, d.Day, money(d.FlowCharges, d.Currency), money(d.BillCharges, d.Currency),
			money(d.Difference, d.Currency))
	}
	secs = append(secs, daily)

	kindText := func(k string) string {
		if exact {
			return k
		}
		return pick(lang, map[string]string{KindTopup: "充值", KindRefund: "退款"}[k], k)
	}
	matches := newSection(opts, "matches", "充值 ↔ 付款", "Top-ups ↔ payments", []colSpec{
		{"kind", "类别", "Kind", false}, {"provider", "平台", "Provider", false}, {"time", "平台时间", "Platform time", false},
		{"amount", "金额", "Amount", true}, {"currency", "币种", "Currency", false}, {"reference", "平台单号", "Reference", false},
		{"source", "支付渠道", "Paid with", false}, {"payment_time", "付款时间", "Payment time", false},
		{"payment_reference", "交易单号", "Payment reference", false}, {"basis", "依据", "Basis", false},
		{"payee", "收款方", "Payee", false}})
	matches.emptyZH, matches.emptyEN = "没有配对。", "No pairs."
	for _, p := range r.Matching.Pairs {
		basis, payee := p.Basis, p.Payment.Counterparty
		if !exact {
			basis = pick(lang, map[string]string{BasisOrderNumber: "单号一致", BasisAmountTime: "金额+时间"}[p.Basis], strings.ReplaceAll(p.Basis, "_", " "))
			if !p.PayeeKnown {
				payee += pick(lang, "（未识别的收款方）", " (payee not recognised)")
			}
		}
		matches.add(opts, kindText(p.Kind), prov(p.Flow.Provider), tm(p.Flow.Time), money(p.Flow.Amount, p.Flow.Currency),
			p.Flow.Currency, p.Flow.Reference, source(p.Payment.Source), tm(p.Payment.Time), p.Payment.OrderNo, basis, payee)
	}
	secs = append(secs, matches)

	up := newSection(opts, "unmatched_payments", "付款了但平台没有到账（未配对的付款）", "Payments with no top-up (or refunds with no platform refund)", []colSpec{
		{"source", "支付渠道", "Paid with", false}, {"provider", "平台", "Provider", false}, {"time", "时间", "Time", false},
		{"amount", "金额", "Amount", true}, {"currency", "币种", "Currency", false}, {"reference", "交易单号", "Reference", false},
		{"counterparty", "交易对方", "Counterparty", false}, {"item", "商品", "Item", false}, {"refund", "退款", "Refund", false},
		{"row", "位置", "At", false}})
	up.emptyZH, up.emptyEN = "无。", "None."
	for _, p := range r.Matching.UnmatchedPayments {
		refund := strconv.FormatBool(p.Refund)
		if !exact {
			refund = map[bool]string{true: pick(lang, "是", "yes"), false: ""}[p.Refund]
		}
		up.add(opts, source(p.Source), prov(p.Provider), tm(p.Time), money(p.Amount, p.Currency), p.Currency, p.OrderNo,
			p.Counterparty, p.Item, refund, where(p.ImportID, p.File, p.Row))
	}
	secs = append(secs, up)

	ut := newSection(opts, "unmatched_topups", "平台有充值但找不到付款", "Top-ups with no payment", []colSpec{
		{"provider", "平台", "Provider", false}, {"account", "账号", "Account", false}, {"time", "时间", "Time", false},
		{"amount", "金额", "Amount", true}, {"currency", "币种", "Currency", false}, {"reference", "单号", "Reference", false},
		{"description", "说明", "Description", false}, {"row", "位置", "At", false}})
	ut.emptyZH, ut.emptyEN = "无。", "None."
	for _, f := range r.Matching.UnmatchedTopups {
		ut.add(opts, prov(f.Provider), f.Account, tm(f.Time), money(f.Amount, f.Currency), f.Currency, f.Reference,
			f.Description, where(f.ImportID, f.File, f.Row))
	}
	secs = append(secs, ut)

	if r.Invoices != nil {
		inv := newSection(opts, "invoices", "发票", "Invoices", []colSpec{
			{"provider", "平台", "Provider", false}, {"currency", "币种", "Currency", false},
			{"invoiceable", "可开票", "Invoiceable", true}, {"invoiced", "已开票", "Invoiced", true},
			{"to_request", "待索取", "To request", true}, {"over_invoiced", "超开/重复", "Over-invoiced", true},
			{"basis", "口径", "Basis", false}, {"numbers", "发票号码", "Invoice numbers", false}})
		inv.emptyZH, inv.emptyEN = "本月没有可开票金额，也没有发票。", "Nothing invoiceable and no invoices this month."
		inv.noteZH = "可开票 = 现金支付部分（账单明细的现金支付，缺省为应付 − 代金券；只有收支明细时为充值 − 提现）；代金券、赠送不可开票。跨月发票按各月可开票金额依次分摊。"
		inv.noteEN = "Invoiceable = the cash paid (bill lines' cash_paid, else billed − voucher; top-ups − withdrawals where only money flow exists); vouchers and gifts never. An invoice spanning months fills them in order up to each month's invoiceable amount."
		for _, c := range r.Invoices.Rows {
			var nums []string
			for _, x := range c.Invoices {
				n := x.Number
				if !x.Allocated.Equal(x.Amount) {
					n += "(" + money(x.Allocated, c.Currency) + "/" + money(x.Amount, c.Currency) + ")"
				}
				nums = append(nums, n)
			}
			basis := c.Basis
			if !exact {
				basis = pick(lang, map[string]string{InvoiceableLineItems: "账单明细", InvoiceableTopups: "充值", InvoiceableNone: "无数据"}[c.Basis], strings.ReplaceAll(c.Basis, "_", " "))
			}
			inv.add(opts, prov(c.Provider), c.Currency, money(c.Invoiceable, c.Currency), money(c.Invoiced, c.Currency),
				money(c.ToRequest, c.Currency), money(c.OverInvoiced, c.Currency), basis, strings.Join(nums, " "))
		}
		secs = append(secs, inv)

		dup := newSection(opts, "duplicate_invoices", "重复的发票号码", "Invoice numbers recorded twice", []colSpec{
			{"number", "发票号码", "Number", false}, {"provider", "平台", "Provider", false}, {"amount", "金额", "Amount", true},
			{"counted_at", "计入的记录", "Counted", false}, {"others_at", "重复的记录", "Also recorded", false}})
		dup.skipEmpty = true
		for _, d := range r.Invoices.Duplicates {
			var others []string
			for _, o := range d.Others {
				others = append(others, r.invoiceWhere(o, lang, exact)+" "+money(o.Amount, o.Currency))
			}
			dup.add(opts, d.Number, prov(d.Counted.Provider), money(d.Counted.Amount, d.Counted.Currency),
				r.invoiceWhere(d.Counted, lang, exact), strings.Join(others, "; "))
		}
		secs = append(secs, dup)
	}
	return writeAll(w, opts, r, secs)
}

// txTypeZH names the money-flow types in Chinese, as the template does.
var txTypeZH = map[string]string{
	ledger.TxTopup: "充值", ledger.TxCharge: "消费", ledger.TxRefund: "退款", ledger.TxWithdrawal: "提现",
	ledger.TxVoucher: "代金券", ledger.TxFreeze: "冻结", ledger.TxUnfreeze: "解冻",
}

// rowAt is where a row of the report is found: its file and record
// number (the JSON contract, kept by CSV and TSV), and in the other formats
// the row a person sees opening the file, file:row or "file Sheet!row",
// where its import mapped its records (ledger.Import.RowOf).
func (r *Report) rowAt(importID int64, file string, record int, exact bool) string {
	switch {
	case file == "":
		return ""
	case exact:
		return file + ":" + strconv.Itoa(record)
	}
	return reports.FileRow(file, r.imports[importID], record)
}

func (r *Report) invoiceWhere(inv ledger.Invoice, lang string, exact bool) string {
	if inv.File != "" {
		return r.rowAt(inv.ImportID, inv.File, inv.SourceRow, exact)
	}
	if exact {
		return "invoice add"
	}
	return pick(lang, "手工录入", "added by hand")
}

func writeAll(w io.Writer, opts reports.WriteOptions, r *Report, secs []*section) error {
	var b strings.Builder
	exact := opts.Format == reports.FormatCSV || opts.Format == reports.FormatTSV
	md := opts.Format == reports.FormatMarkdown
	if !exact {
		title := pick(opts.Lang, "对账 "+r.Month, "Reconciliation "+r.Month)
		if md {
			b.WriteString("# " + title + "\n")
		} else {
			b.WriteString(title + "\n")
		}
		verdict := pick(opts.Lang, "结论：全部对平。", "Result: everything reconciles.")
		if r.Differences() {
			verdict = pick(opts.Lang, "结论：有差异，见下。", "Result: there are differences, listed below.")
		}
		b.WriteString("\n" + verdict + "\n")
	}
	first := true
	for _, s := range secs {
		if s.rows == 0 && (s.skipEmpty || exact) {
			continue
		}
		if exact {
			if !first {
				b.WriteString("\n")
			}
			first = false
			if err := s.table.Write(&b, opts.Format); err != nil {
				return err
			}
			continue
		}
		title := pick(opts.Lang, s.zh, s.en)
		if md {
			b.WriteString("\n## " + title + "\n\n")
		} else {
			b.WriteString("\n" + title + "\n")
		}
		if s.rows == 0 {
			empty := pick(opts.Lang, s.emptyZH, s.emptyEN)
			if empty == "" {
				empty = pick(opts.Lang, "无。", "None.")
			}
			b.WriteString(empty + "\n")
		} else if err := s.table.Write(&b, opts.Format); err != nil {
			return err
		}
		if note := pick(opts.Lang, s.noteZH, s.noteEN); note != "" && s.rows > 0 {
			if md {
				b.WriteString("\n")
			}
			b.WriteString(note + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

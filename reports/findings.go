package reports

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// RuleOrder lists the built-in rules in DESIGN.md order: it orders the
// report's groups and breaks ties between findings of equal severity that
// cover the same line item. Rules not listed (user rules) come after, by id.
var RuleOrder = []string{"stopped_storage", "egress", "snapshot_image", "min_duration_rounding", "seat_fee",
	"forgotten_instance", "duplicate_charge", "overlapping_charge", "price_deviation", "unclassified_charge",
	"release_risk"}

func ruleRank(id string) int {
	for i, r := range RuleOrder {
		if r == id {
			return i
		}
	}
	return len(RuleOrder)
}

// FindingEntry is one finding of the report, with what it adds to the
// totals once overlaps with other findings are taken out.
type FindingEntry struct {
	ledger.Finding
	// Counted is the part of AmountAtRisk that counts in Totals: all of it,
	// a part of it, or zero when more severe findings already count its
	// line items. Unknown when AmountAtRisk is unknown.
	Counted decimal.NullDecimal
}

// FindingTotal is the money at risk in one currency.
type FindingTotal struct {
	Currency     string
	AmountAtRisk decimal.NullDecimal // unknown when no finding of this currency has a known amount
	Count        int                 // findings in this currency (all states, known amount or not)
}

// FindingsReport is the stored findings of a month with per-currency totals.
type FindingsReport struct {
	Month    string
	Findings []FindingEntry // by rule (RuleOrder), provider, severity (most severe first), period, resource
	Totals   []FindingTotal // by currency code
}

// Findings reads the stored findings of month ("" = every month) and the
// billed cost of the line items they cite, and builds the report. (The brief
// named it FindingsReport, which Go does not allow next to the type.)
func Findings(ctx context.Context, db *ledger.DB, month string) (*FindingsReport, error) {
	if err := checkMonth(month); err != nil {
		return nil, err
	}
	fs, err := db.Findings(ctx, month)
	if err != nil {
		return nil, fmt.Errorf("reports: findings: %w", err)
	}
	billed, err := evidenceCosts(ctx, db, month)
	if err != nil {
		return nil, err
	}
	return NewFindingsReport(month, fs, billed), nil
}

// evidenceCosts returns the billed cost of every line item cited by a
// finding of month.
func evidenceCosts(ctx context.Context, db *ledger.DB, month string) (map[int64]decimal.Decimal, error) {
	q := `SELECT li.id, li.billed_cost FROM line_items li WHERE li.id IN (
		SELECT fe.line_item_id FROM finding_evidence fe JOIN findings f ON f.id = fe.finding_id`
	var args []any
	if month != "" {
		q += ` WHERE f.month = ?`
		args = append(args, month)
	}
	q += `)`
	rows, err := db.SQL().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reports: findings evidence: %w", err)
	}
	defer rows.Close()
	out := map[int64]decimal.Decimal{}
	for rows.Next() {
		var id int64
		var s string
		if err := rows.Scan(&id, &s); err != nil {
			return nil, fmt.Errorf("reports: findings evidence: %w", err)
		}
		d, err := decimal.NewFromString(s)
		if err != nil {
			return nil, fmt.Errorf("reports: line item %d: stored amount %q: %w", id, s, err)
		}
		out[id] = d
	}
	return out, rows.Err()
}

// NewFindingsReport builds the report from findings and the billed cost of
// the line items they cite (missing ids are allowed: an undone import).
//
// Totals count each line item's money once (DESIGN.md), under the finding
// of higher severity, then the rule listed first, then the earlier period,
// then the fingerprint. Findings are taken in that order and each claims
// the line items whose money it counts:
//   - a finding none of whose line items is claimed yet counts its whole
//     amount at risk and claims its line items;
//   - otherwise, if its amount at risk is exactly the billed cost of its
//     line items (stopped storage, seat fees, snapshots, unclassified
//     charges …), it counts the billed cost of its unclaimed line items;
//   - otherwise (an amount that is only a part of its line items' cost, such
//     as rounding or a price deviation) it counts nothing. This is the
//     approximation: such a finding is not split between items, so its money
//     can be undercounted when it only partly overlaps a more severe one.
//
// A finding with an unknown amount counts nothing and claims nothing.
func NewFindingsReport(month string, findings []ledger.Finding, billed map[int64]decimal.Decimal) *FindingsReport {
	rep := &FindingsReport{Month: month}
	for _, f := range findings {
		rep.Findings = append(rep.Findings, FindingEntry{Finding: f})
	}

	// Attribution, in priority order.
	prio := make([]int, len(rep.Findings))
	for i := range prio {
		prio[i] = i
	}
	sort.SliceStable(prio, func(i, j int) bool {
		a, b := &rep.Findings[prio[i]], &rep.Findings[prio[j]]
		if x, y := ledger.SeverityRank(a.Severity), ledger.SeverityRank(b.Severity); x != y {
			return x > y
		}
		return lessByRule(&a.Finding, &b.Finding)
	})
	claimed := map[int64]bool{}
	for _, i := range prio {
		e := &rep.Findings[i]
		if !e.AmountAtRisk.Valid {
			continue
		}
		overlap := false
		for _, ev := range e.Evidence {
			if claimed[ev.LineItemID] {
				overlap = true
				break
			}
		}
		switch {
		case !overlap:
			e.Counted = e.AmountAtRisk
			if !e.AmountAtRisk.Decimal.IsZero() {
				claim(claimed, e.Evidence)
			}
		case itemised(&e.Finding, billed):
			sum := decimal.Zero
			for _, id := range uniqueItems(e.Evidence) {
				if !claimed[id] {
					sum = sum.Add(billed[id])
					claimed[id] = true
				}
			}
			e.Counted = known(sum)
		default:
			e.Counted = known(decimal.Zero)
		}
	}

	// Display order: grouped by rule and provider.
	sort.SliceStable(rep.Findings, func(i, j int) bool {
		a, b := &rep.Findings[i].Finding, &rep.Findings[j].Finding
		if x, y := ruleRank(a.RuleID), ruleRank(b.RuleID); x != y {
			return x < y
		}
		if a.RuleID != b.RuleID {
			return a.RuleID < b.RuleID
		}
		if a.Provider != b.Provider {
			return a.Provider < b.Provider
		}
		if x, y := ledger.SeverityRank(a.Severity), ledger.SeverityRank(b.Severity); x != y {
			return x > y
		}
		return lessByRule(a, b)
	})

	// Totals per currency.
	idx := map[string]int{}
	for _, e := range rep.Findings {
		i, ok := idx[e.Currency]
		if !ok {
			i = len(rep.Totals)
			idx[e.Currency] = i
			rep.Totals = append(rep.Totals, FindingTotal{Currency: e.Currency})
		}
		t := &rep.Totals[i]
		t.Count++
		if e.Counted.Valid {
			t.AmountAtRisk = known(t.AmountAtRisk.Decimal.Add(e.Counted.Decimal))
		}
	}
	sort.Slice(rep.Totals, func(i, j int) bool { return rep.Totals[i].Currency < rep.Totals[j].Currency })
	return rep
}

// lessByRule orders findings of equal severity: rule order, then period,
// resource and fingerprint (unique), so every order is deterministic.
func lessByRule(a, b *ledger.Finding) bool {
	if x, y := ruleRank(a.RuleID), ruleRank(b.RuleID); x != y {
		return x < y
	}
	if a.RuleID != b.RuleID {
		return a.RuleID < b.RuleID
	}
	if !a.PeriodStart.Equal(b.PeriodStart) {
		return a.PeriodStart.Before(b.PeriodStart)
	}
	if a.ResourceID != b.ResourceID {
		return a.ResourceID < b.ResourceID
	}
	return a.Fingerprint < b.Fingerprint
}

func claim(claimed map[int64]bool, ev []ledger.Evidence) {
	for _, e := range ev {
		claimed[e.LineItemID] = true
	}
}

func uniqueItems(ev []ledger.Evidence) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, e := range ev {
		if !seen[e.LineItemID] {
			seen[e.LineItemID] = true
			out = append(out, e.LineItemID)
		}
	}
	return out
}

// itemised tells whether f's amount at risk is exactly the billed cost of
// its line items, so that it can be split between them.
func itemised(f *ledger.Finding, billed map[int64]decimal.Decimal) bool {
	ids := uniqueItems(f.Evidence)
	if len(ids) == 0 || !f.AmountAtRisk.Valid {
		return false
	}
	sum := decimal.Zero
	for _, id := range ids {
		d, ok := billed[id]
		if !ok {
			return false
		}
		sum = sum.Add(d)
	}
	return sum.Equal(f.AmountAtRisk.Decimal)
}

// maxEvidenceShown is how many file:row references a human format lists
// before it shortens the list.
const maxEvidenceShown = 5

// evidenceText renders the evidence as file:row references; human formats
// show the first few and the count.
func evidenceText(ev []ledger.Evidence, lang string, exact bool) string {
	refs := make([]string, len(ev))
	for i, e := range ev {
		refs[i] = e.File + ":" + strconv.Itoa(e.Row)
	}
	if exact {
		return strings.Join(refs, ";")
	}
	if len(refs) <= maxEvidenceShown {
		return strings.Join(refs, ", ")
	}
	return strings.Join(refs[:maxEvidenceShown], ", ") + " " + fmt.Sprintf(tr(lang, "rows_more"), len(refs))
}

func pick(lang, zh, en string) string {
	if lang == "zh" {
		if zh != "" {
			return zh
		}
		return en
	}
	if en != "" {
		return en
	}
	return zh
}

// Write encodes the report (see WriteOptions). CSV and TSV hold one line per
// finding (both languages' reason and advice, the full evidence list as
// file:row;file:row); JSON holds findings and totals; table and markdown
// group the findings by rule and provider and end with the totals.
func (r *FindingsReport) Write(w io.Writer, opts WriteOptions) error {
	opts, err := opts.normalize()
	if err != nil {
		return err
	}
	switch opts.Format {
	case FormatJSON:
		return writeJSON(w, r.json(opts))
	case FormatCSV:
		return r.flatGrid(opts).writeCSV(w)
	case FormatTSV:
		return r.flatGrid(opts).writeTSV(w)
	}
	lang := opts.Lang
	month := r.Month
	if month == "" {
		month = tr(lang, "all_months")
	}
	title := tr(lang, "title.findings") + " " + month
	var secs []section
	var cur *section
	var curKey string
	for i := range r.Findings {
		e := &r.Findings[i]
		key := e.RuleID + "\x00" + e.Provider
		if cur == nil || key != curKey {
			secs = append(secs, section{
				title: tr(lang, "rule."+e.RuleID) + " (" + e.RuleID + ") — " + providerName(e.Provider, lang),
				grid:  &grid{cols: findingCols(lang)},
			})
			cur, curKey = &secs[len(secs)-1], key
		}
		cur.grid.add(trOr(lang, "severity.", e.Severity), orDash(e.ResourceID),
			formatPeriod(e.PeriodStart, e.PeriodEnd, opts.TZ), e.Currency,
			FormatNullMoney(e.AmountAtRisk, e.Currency, false), trOr(lang, "state.", e.State),
			pick(lang, e.ReasonZH, e.ReasonEN), pick(lang, e.AdviceZH, e.AdviceEN),
			evidenceText(e.Evidence, lang, false))
	}
	if len(secs) == 0 {
		secs = append(secs, section{grid: &grid{}, empty: tr(lang, "no_findings")})
	}
	totals := &grid{cols: []column{
		{key: "currency", title: tr(lang, "col.currency")},
		{key: "count", title: tr(lang, "col.count"), numeric: true},
		{key: "amount_at_risk", title: tr(lang, "col.amount"), numeric: true},
	}}
	for _, t := range r.Totals {
		totals.add(t.Currency, strconv.Itoa(t.Count), FormatNullMoney(t.AmountAtRisk, t.Currency, false))
	}
	var notes []string
	if len(r.Totals) > 0 {
		secs = append(secs, section{title: tr(lang, "title.find_totals"), grid: totals})
		notes = append(notes, tr(lang, "note.find_totals"))
	}
	return writeSections(w, opts, title, secs, notes)
}

func orDash(s string) string {
	if s == "" {
		return unknownDisplay
	}
	return s
}

// findingCols are the columns of a findings table (human formats). The
// evidence comes last: it may hold characters whose width differs between
// terminals ("…"), which can then only shift the end of the line.
func findingCols(lang string) []column {
	return []column{
		{key: "severity", title: tr(lang, "col.severity")},
		{key: "resource_id", title: tr(lang, "col.resource")},
		{key: "period", title: tr(lang, "col.period")},
		{key: "currency", title: tr(lang, "col.currency")},
		{key: "amount_at_risk", title: tr(lang, "col.amount"), numeric: true},
		{key: "state", title: tr(lang, "col.state")},
		{key: "reason", title: tr(lang, "col.reason")},
		{key: "advice", title: tr(lang, "col.advice")},
		{key: "evidence", title: tr(lang, "col.evidence")},
	}
}

// flatGrid is the one-line-per-finding table of CSV and TSV: stable keys,
// exact amounts, RFC 3339 times in the report's zone.
func (r *FindingsReport) flatGrid(opts WriteOptions) *grid {
	keys := []string{"fingerprint", "rule_id", "severity", "provider", "resource_id", "period_start", "period_end",
		"currency", "amount_at_risk", "state", "reason_zh", "reason_en", "advice_zh", "advice_en", "evidence"}
	g := &grid{}
	for _, k := range keys {
		g.cols = append(g.cols, column{key: k, title: k, numeric: k == "amount_at_risk"})
	}
	for i := range r.Findings {
		e := &r.Findings[i]
		g.add(e.Fingerprint, e.RuleID, e.Severity, e.Provider, e.ResourceID,
			formatRFC3339(e.PeriodStart, opts.TZ), formatRFC3339(e.PeriodEnd, opts.TZ), e.Currency,
			FormatNullMoney(e.AmountAtRisk, e.Currency, true), e.State, e.ReasonZH, e.ReasonEN, e.AdviceZH, e.AdviceEN,
			evidenceText(e.Evidence, opts.Lang, true))
	}
	return g
}

// JSON shapes (DESIGN.md "Command line").
type findingsJSON struct {
	Month    string              `json:"month"`
	Findings []findingJSON       `json:"findings"`
	Totals   []findingsTotalJSON `json:"totals"`
}

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

type evidenceJSON struct {
	File       string `json:"file"`
	Row        int    `json:"row"`
	LineItemID int64  `json:"line_item_id"`
}

type findingsTotalJSON struct {
	Currency     string  `json:"currency"`
	AmountAtRisk *string `json:"amount_at_risk"`
	Count        int     `json:"count"`
}

func (r *FindingsReport) json(opts WriteOptions) findingsJSON {
	out := findingsJSON{Month: r.Month, Findings: []findingJSON{}, Totals: []findingsTotalJSON{}}
	for i := range r.Findings {
		e := &r.Findings[i]
		j := findingJSON{Fingerprint: e.Fingerprint, RuleID: e.RuleID, Severity: e.Severity, Provider: e.Provider,
			ResourceID: e.ResourceID, PeriodStart: formatRFC3339(e.PeriodStart, opts.TZ),
			PeriodEnd: formatRFC3339(e.PeriodEnd, opts.TZ), AmountAtRisk: jsonMoney(e.AmountAtRisk),
			Currency: e.Currency, ReasonZH: e.ReasonZH, ReasonEN: e.ReasonEN, AdviceZH: e.AdviceZH,
			AdviceEN: e.AdviceEN, Evidence: []evidenceJSON{}, State: e.State}
		for _, ev := range e.Evidence {
			j.Evidence = append(j.Evidence, evidenceJSON{File: ev.File, Row: ev.Row, LineItemID: ev.LineItemID})
		}
		out.Findings = append(out.Findings, j)
	}
	for _, t := range r.Totals {
		out.Totals = append(out.Totals, findingsTotalJSON{Currency: t.Currency, AmountAtRisk: jsonMoney(t.AmountAtRisk), Count: t.Count})
	}
	return out
}

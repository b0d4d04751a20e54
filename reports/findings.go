package reports

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpubill/gpubill/internal/mdtext"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// ruleRank orders the report's groups and breaks ties between findings of
// equal severity that cover the same line item (ledger.RuleIDs order).
func ruleRank(id string) int { return ledger.RuleRank(id) }

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
	Findings []FindingEntry // by rule (ledger.RuleIDs order), provider, severity (most severe first), period, resource
	Totals   []FindingTotal // by currency code
	// noBills: the ledger holds no line item of Month, so "no findings"
	// would read as a clean month; the report says there are no bills.
	noBills bool
	// rows cites evidence as spreadsheet rows in the formats people read
	// (table, md, html); nil cites record numbers, as JSON and CSV do.
	rows *rowCiter
}

// markNoBills sets r.noBills when r has no findings and the ledger holds
// no line item of r.Month.
func (r *FindingsReport) markNoBills(ctx context.Context, db *ledger.DB) error {
	if r.Month == "" || len(r.Findings) > 0 {
		return nil
	}
	ms, err := db.Months(ctx)
	if err != nil {
		return fmt.Errorf("reports: findings: %w", err)
	}
	r.noBills = !slices.Contains(ms, r.Month)
	return nil
}

// emptyText is what the report says when it lists no finding.
func (r *FindingsReport) emptyText(lang string) string {
	if r.noBills {
		return fmt.Sprintf(tr(lang, "no_bills"), r.Month)
	}
	return tr(lang, "no_findings")
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
	r := NewFindingsReport(month, fs, nil)
	if r.rows, err = newRowCiter(ctx, db, fs); err != nil {
		return nil, err
	}
	return r, r.markNoBills(ctx, db)
}

// NewFindingsReport builds the report from findings and the billed cost of
// the line items they cite (missing ids are allowed: an undone import):
// billed, or where billed is nil, the cost each evidence entry carries
// (Evidence.BilledCost, as ledger.DB.Findings fills it; not Valid = missing).
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
	rep := &FindingsReport{Month: month, Findings: make([]FindingEntry, len(findings))}
	for i, f := range findings {
		rep.Findings[i].Finding = f
	}
	cost := func(e ledger.Evidence) (decimal.Decimal, bool) {
		if billed == nil {
			return e.BilledCost.Decimal, e.BilledCost.Valid
		}
		d, ok := billed[e.LineItemID]
		return d, ok
	}

	// Attribution, in priority order. Sorted as indexes: an entry is a
	// few hundred bytes.
	prio := make([]int, len(rep.Findings))
	for i := range prio {
		prio[i] = i
	}
	slices.SortStableFunc(prio, func(i, j int) int {
		a, b := &rep.Findings[i], &rep.Findings[j]
		if x, y := ledger.SeverityRank(a.Severity), ledger.SeverityRank(b.Severity); x != y {
			return cmp.Compare(y, x)
		}
		return ruleCompare(&a.Finding, &b.Finding)
	})
	claimed := map[int64]bool{} // the line items whose money a finding counted already
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
				for _, ev := range e.Evidence {
					claimed[ev.LineItemID] = true
				}
			}
		case itemised(&e.Finding, cost):
			sum := decimal.Zero
			for _, ev := range uniqueItems(e.Evidence) {
				if !claimed[ev.LineItemID] {
					d, _ := cost(ev)
					sum = sum.Add(d)
					claimed[ev.LineItemID] = true
				}
			}
			e.Counted = known(sum)
		default:
			e.Counted = known(decimal.Zero)
		}
	}

	// Display order: grouped by rule and provider.
	for i := range prio {
		prio[i] = i
	}
	slices.SortStableFunc(prio, func(i, j int) int {
		a, b := &rep.Findings[i].Finding, &rep.Findings[j].Finding
		return cmp.Or(cmp.Compare(ruleRank(a.RuleID), ruleRank(b.RuleID)), strings.Compare(a.RuleID, b.RuleID),
			strings.Compare(a.Provider, b.Provider), cmp.Compare(ledger.SeverityRank(b.Severity), ledger.SeverityRank(a.Severity)),
			ruleCompare(a, b))
	})
	ordered := make([]FindingEntry, len(prio))
	for k, i := range prio {
		ordered[k] = rep.Findings[i]
	}
	rep.Findings = ordered

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

// ruleCompare orders findings of equal severity: rule order, then period,
// resource and fingerprint (unique), so every order is deterministic.
func ruleCompare(a, b *ledger.Finding) int {
	return cmp.Or(cmp.Compare(ruleRank(a.RuleID), ruleRank(b.RuleID)), strings.Compare(a.RuleID, b.RuleID),
		a.PeriodStart.Compare(b.PeriodStart), strings.Compare(a.ResourceID, b.ResourceID),
		strings.Compare(a.Fingerprint, b.Fingerprint))
}

// uniqueItems is ev without the entries of a line item cited before; ev
// itself when no line item is cited twice (evidence as stored).
func uniqueItems(ev []ledger.Evidence) []ledger.Evidence {
	ascending := true // strictly: each line item once
	for i := 1; i < len(ev) && ascending; i++ {
		ascending = ev[i-1].LineItemID < ev[i].LineItemID
	}
	if ascending {
		return ev
	}
	seen := map[int64]bool{}
	var out []ledger.Evidence
	for _, e := range ev {
		if !seen[e.LineItemID] {
			seen[e.LineItemID] = true
			out = append(out, e)
		}
	}
	return out
}

// itemised tells whether f's amount at risk is exactly the billed cost of
// its line items (cost: false when unknown), so that it can be split
// between them.
func itemised(f *ledger.Finding, cost func(ledger.Evidence) (decimal.Decimal, bool)) bool {
	ev := uniqueItems(f.Evidence)
	if len(ev) == 0 || !f.AmountAtRisk.Valid {
		return false
	}
	sum := decimal.Zero
	for _, e := range ev {
		d, ok := cost(e)
		if !ok {
			return false
		}
		sum = sum.Add(d)
	}
	return sum.Equal(f.AmountAtRisk.Decimal)
}

// evidenceText renders the evidence as file:row references separated by
// semicolons, all of them (CSV and TSV); a fetched line is cited as
// import#line-id (api:tencentcloud/DescribeBillDetail?…#2026…/GPU) when
// cite knows its line id.
func evidenceText(ev []ledger.Evidence, cite *rowCiter) string {
	refs := make([]string, len(ev))
	for i, e := range ev {
		if id := cite.lineID(e.LineItemID); id != "" {
			refs[i] = e.File + "#" + id
			continue
		}
		refs[i] = e.File + ":" + strconv.Itoa(e.Row)
	}
	return strings.Join(refs, ";")
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
// show one block per finding, grouped by rule, and end with the totals.
func (r *FindingsReport) Write(w io.Writer, opts WriteOptions) error {
	opts, err := opts.normalize()
	if err != nil {
		return err
	}
	opts.rows = r.rows
	switch opts.Format {
	case FormatJSON:
		return r.writeJSON(w, opts)
	case FormatCSV:
		return r.flatGrid(opts).writeCSV(w)
	case FormatTSV:
		return r.flatGrid(opts).writeTSV(w)
	case FormatXLSX, FormatHTML:
		return writeDocument(w, opts, r.document(opts))
	}
	return r.writeBlocks(w, opts)
}

// writeBlocks writes the table or markdown report: a title, then per rule a
// heading and one block per finding (a summary line, then the reason, the
// advice and the evidence on lines of their own), then the totals table and
// its note. A finding's text is not wrapped: each detail is one line.
//
// Table layout (zh):
//
//	遗忘的实例 (forgotten_instance)
//	  [高] AutoDL  autodl-4090-a  2026-10-12 20:00 ~ 10-14 09:00  涉及金额 ¥54.52  指纹 3f9c0e1a2b4d5e6f
//	      实例 autodl-4090-a 连续运行 …
//	      建议：…
//	      证据：bills/autodl-2026-10.csv 第 8–44 行（共 37 行）
//
// Markdown: a "###" heading per rule, one list item per finding with the
// details as a nested list; text from bills is escaped.
func (r *FindingsReport) writeBlocks(w io.Writer, opts WriteOptions) error {
	lang, md := opts.Lang, opts.Format == FormatMarkdown
	month := r.Month
	if month == "" {
		month = tr(lang, "all_months")
	}
	title := tr(lang, "title.findings") + " " + month
	var b strings.Builder
	if md {
		b.WriteString("# " + mdHeading(title) + "\n")
	} else {
		b.WriteString(mdtext.OneLine(title) + "\n")
	}
	if len(r.Findings) == 0 {
		b.WriteString("\n" + r.emptyText(lang) + "\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	for i := range r.Findings {
		e := &r.Findings[i]
		if i == 0 || e.RuleID != r.Findings[i-1].RuleID {
			if md {
				b.WriteString("\n### " + mdHeading(ruleHeading(lang, e.RuleID)) + "\n\n")
			} else {
				b.WriteString("\n" + mdtext.OneLine(ruleHeading(lang, e.RuleID)) + "\n")
			}
		}
		if md {
			writeFindingMarkdown(&b, e, opts)
		} else {
			writeFindingText(&b, e, opts)
		}
		// Out as it is made: the builder holding the whole table would be
		// copied at each growth.
		if b.Len() >= blockFlush {
			if _, err := io.WriteString(w, b.String()); err != nil {
				return err
			}
			b.Reset()
			b.Grow(2 * blockFlush)
		}
	}

	// Totals, as a table.
	totals := &grid{cols: []column{
		textCol("currency", tr(lang, "col.currency")),
		countCol("count", tr(lang, "col.count")),
		moneyCol("amount_at_risk", tr(lang, "col.amount")),
	}}
	for _, t := range r.Totals {
		totals.add(t.Currency, strconv.Itoa(t.Count), FormatNullMoney(t.AmountAtRisk, t.Currency, false))
	}
	if err := writeTitledGrid(&b, md, tr(lang, "title.find_totals"), totals, tr(lang, "note.find_totals")); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// blockFlush is how much text writeBlocks gathers before it writes (a
// variable for the test that writes in one piece).
var blockFlush = 64 << 10

// ruleHeading is a rule's title in lang and its id; a rule without a
// translated title (a user rule) shows its id alone.
func ruleHeading(lang, id string) string {
	if _, ok := messages["rule."+id]; !ok {
		return id
	}
	return tr(lang, "rule."+id) + " (" + id + ")"
}

// findingSummary holds the parts of a finding's summary line, already in
// the report's language but not yet escaped for the target format.
type findingSummary struct {
	severity, provider, resource, period, amount, fingerprint, state string
}

func summarize(e *FindingEntry, opts WriteOptions) findingSummary {
	s := findingSummary{
		severity:    trOr(opts.Lang, "severity.", e.Severity),
		provider:    providerName(e.Provider, opts.Lang),
		resource:    e.ResourceID,
		period:      blockPeriod(e.PeriodStart, e.PeriodEnd, opts.TZ),
		amount:      moneyWithCurrency(e.AmountAtRisk, e.Currency),
		fingerprint: e.Fingerprint,
	}
	if e.State != "" && e.State != "open" {
		s.state = trOr(opts.Lang, "state.", e.State)
	}
	return s
}

// blockIndent and detailIndent indent a finding's summary line and its
// detail lines in the table format.
const (
	blockIndent  = "  "
	detailIndent = "      "
)

// writeFindingText writes one finding as a block of plain text lines.
func writeFindingText(b *strings.Builder, e *FindingEntry, opts WriteOptions) {
	lang := opts.Lang
	s := summarize(e, opts)
	parts := []string{"[" + s.severity + "] " + mdtext.OneLine(s.provider), orDash(mdtext.OneLine(s.resource)), s.period,
		tr(lang, "find.at_risk") + " " + s.amount, tr(lang, "find.fingerprint") + " " + orDash(mdtext.OneLine(s.fingerprint))}
	if s.state != "" {
		parts = append(parts, tr(lang, "find.state")+" "+s.state)
	}
	b.WriteString(blockIndent + strings.Join(parts, "  ") + "\n")
	if reason := pick(lang, e.ReasonZH, e.ReasonEN); reason != "" {
		b.WriteString(detailIndent + mdtext.OneLine(reason) + "\n")
	}
	if advice := pick(lang, e.AdviceZH, e.AdviceEN); advice != "" {
		b.WriteString(detailIndent + tr(lang, "find.advice") + mdtext.OneLine(advice) + "\n")
	}
	if len(e.Evidence) > 0 {
		b.WriteString(detailIndent + tr(lang, "find.evidence") + evidenceSummary(e.Evidence, lang, oneLineOrDash, opts.rows) + "\n")
	}
}

// writeFindingMarkdown writes one finding as a markdown list item whose
// details form a nested list.
func writeFindingMarkdown(b *strings.Builder, e *FindingEntry, opts WriteOptions) {
	lang := opts.Lang
	s := summarize(e, opts)
	parts := []string{"**" + mdtext.Inline(s.severity) + "**", mdtext.Inline(s.provider), mdCodeOrDash(s.resource),
		s.period, tr(lang, "find.at_risk") + " " + s.amount,
		tr(lang, "find.fingerprint") + " " + mdCodeOrDash(s.fingerprint)}
	if s.state != "" {
		parts = append(parts, tr(lang, "find.state")+" "+mdtext.Inline(s.state))
	}
	b.WriteString("- " + strings.Join(parts, " · ") + "\n")
	if reason := pick(lang, e.ReasonZH, e.ReasonEN); reason != "" {
		b.WriteString("  - " + mdtext.Inline(reason) + "\n")
	}
	if advice := pick(lang, e.AdviceZH, e.AdviceEN); advice != "" {
		b.WriteString("  - " + tr(lang, "find.advice") + mdtext.Inline(advice) + "\n")
	}
	if len(e.Evidence) > 0 {
		b.WriteString("  - " + tr(lang, "find.evidence") + evidenceSummary(e.Evidence, lang, mdCodeOrDash, opts.rows) + "\n")
	}
}

// maxRangesShown is how many row ranges per file the human formats list
// before they shorten the list with "…".
const maxRangesShown = 8

// evidenceSummary renders the evidence for humans: per file (in the order
// the files are first cited), the path as stored, rendered by path, then
// its rows compressed into ranges and, for more than one row, their count.
func evidenceSummary(ev []ledger.Evidence, lang string, path func(string) string, cite *rowCiter) string {
	return strings.Join(evidenceParts(ev, lang, path, cite), tr(lang, "find.file_sep"))
}

// evidenceParts is evidenceSummary's list before it is joined: one entry
// per file. A line imported from gpubill's FOCUS export counts under the
// vendor's file and row the export carried (rowCiter.source), not the
// export's.
func evidenceParts(ev []ledger.Evidence, lang string, path func(string) string, cite *rowCiter) []string {
	type group struct {
		file, sheet string // the vendor's sheet, of an exported line
		exported    bool   // file and rows are the vendor's, from the export
	}
	part := func(g group, rows []int, ids []int64) string {
		sheet := g.sheet
		if !g.exported {
			if text, ok := cite.apiCite(g.file, ids, lang); ok {
				return text
			}
			sheet, _ = cite.rows(g.file, rows)
		}
		text, n := compressSortedRows(rows, maxRangesShown)
		if sheet != "" {
			return path(g.file) + " " + sheet + "!" + text
		}
		if n == 1 {
			return path(g.file) + " " + fmt.Sprintf(tr(lang, "find.row"), text)
		}
		return path(g.file) + " " + fmt.Sprintf(tr(lang, "find.rows"), text, n)
	}
	var parts []string
	var groups []group
	rows := map[group][]int{}
	ids := map[group][]int64{}
	for _, e := range ev {
		g, row := group{file: e.File}, e.Row
		if s, ok := cite.source(e.LineItemID); ok {
			g, row = group{s.File, s.Sheet, true}, s.Row
		}
		if _, ok := rows[g]; !ok {
			groups = append(groups, g)
		}
		rows[g] = append(rows[g], row)
		ids[g] = append(ids[g], e.LineItemID)
	}
	for _, g := range groups {
		slices.Sort(rows[g])
		parts = append(parts, part(g, rows[g], ids[g]))
	}
	return parts
}

// compressRows sorts and de-duplicates rows and writes them as ranges of
// consecutive numbers: "8–44, 47, 50–52". With limit > 0, ranges after the
// first limit are replaced by "…". It also returns the number of distinct
// rows.
func compressRows(rows []int, limit int) (string, int) {
	s := slices.Clone(rows)
	slices.Sort(s)
	return compressSortedRows(s, limit)
}

// compressSortedRows is compressRows of rows sorted already; it compacts
// them in place.
func compressSortedRows(rows []int, limit int) (string, int) {
	s := slices.Compact(rows)
	var parts []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if limit > 0 && len(parts) == limit {
			parts = append(parts, "…")
			break
		}
		if i == j {
			parts = append(parts, strconv.Itoa(s[i]))
		} else {
			parts = append(parts, strconv.Itoa(s[i])+"–"+strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", "), len(s)
}

// moneyWithCurrency renders an amount for a finding's summary line, as the
// rules write amounts in their text: "¥1,234.57" for CNY, "28.17 USD" for
// any other currency; "-" when unknown.
func moneyWithCurrency(d decimal.NullDecimal, currency string) string {
	s := FormatNullMoney(d, currency, false)
	if !d.Valid {
		return s
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	switch cur := strings.ToUpper(currency); cur {
	case "CNY", "RMB", "":
		s = "¥" + s
	default:
		s = s + " " + mdtext.OneLine(cur)
	}
	if neg {
		s = "-" + s
	}
	return s
}

// blockPeriod renders a half-open period for a finding's summary line,
// minutes precision, leaving out what the end shares with the start:
// "2026-10-05 08:00 ~ 16:00", "2026-10-12 20:00 ~ 10-14 09:00",
// "2026-12-31 20:00 ~ 2027-01-01 08:00".
func blockPeriod(start, end time.Time, loc *time.Location) string {
	const full = "2006-01-02 15:04"
	switch {
	case start.IsZero() && end.IsZero():
		return unknownDisplay
	case end.IsZero():
		return start.In(loc).Format(full) + " ~"
	case start.IsZero():
		return "~ " + end.In(loc).Format(full)
	}
	s, e := start.In(loc), end.In(loc)
	switch {
	case s.Format("2006-01-02") == e.Format("2006-01-02"):
		return s.Format(full) + " ~ " + e.Format("15:04")
	case s.Year() == e.Year():
		return s.Format(full) + " ~ " + e.Format("01-02 15:04")
	}
	return s.Format(full) + " ~ " + e.Format(full)
}

func orDash(s string) string {
	if s == "" {
		return unknownDisplay
	}
	return s
}

func oneLineOrDash(s string) string { return orDash(mdtext.OneLine(s)) }

// mdCodeOrDash shows s (a path, an id) as a markdown code span, fenced by
// more backticks than s holds in a row; "-" when s is empty.
func mdCodeOrDash(s string) string {
	s = mdtext.OneLine(s)
	if s == "" {
		return unknownDisplay
	}
	run, longest := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		(strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// flatGrid is the one-line-per-finding table of CSV and TSV: stable keys,
// exact amounts, RFC 3339 times in the report's zone.
func (r *FindingsReport) flatGrid(opts WriteOptions) *grid {
	keys := []string{"fingerprint", "rule_id", "severity", "provider", "resource_id", "period_start", "period_end",
		"currency", "amount_at_risk", "state", "reason_zh", "reason_en", "advice_zh", "advice_en", "evidence"}
	g := &grid{}
	for _, k := range keys {
		switch k {
		case "amount_at_risk":
			g.cols = append(g.cols, moneyCol(k, k))
		case "period_start", "period_end":
			g.cols = append(g.cols, timeCol(k, k))
		default:
			g.cols = append(g.cols, textCol(k, k))
		}
	}
	for i := range r.Findings {
		e := &r.Findings[i]
		g.add(e.Fingerprint, e.RuleID, e.Severity, e.Provider, e.ResourceID,
			formatRFC3339(e.PeriodStart, opts.TZ), formatRFC3339(e.PeriodEnd, opts.TZ), e.Currency,
			FormatNullMoney(e.AmountAtRisk, e.Currency, true), e.State, e.ReasonZH, e.ReasonEN, e.AdviceZH, e.AdviceEN,
			evidenceText(e.Evidence, opts.rows))
	}
	return g
}

// JSON shapes (DESIGN.md "Command line"): {"month", "findings":
// [finding…], "totals": [findingsTotalJSON…]}, a finding being {"fingerprint",
// "rule_id", "severity", "provider", "resource_id", "period_start",
// "period_end", "amount_at_risk", "currency", "reason_zh", "reason_en",
// "advice_zh", "advice_en", "evidence": [evidenceJSON…], "state", "claim"
// (only when set)} (findingJSON).
type evidenceJSON struct {
	File       string `json:"file"`
	Row        int    `json:"row"`
	LineItemID int64  `json:"line_item_id"`
	// LineID is the cloud's own id of a fetched line (an api: import);
	// absent for a file's row.
	LineID string `json:"line_id,omitempty"`
}

// findingJSON is a finding's JSON.
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
	Claim        string         `json:"claim,omitempty"` // ledger.Finding.Claim; absent when ""
}

func findingJSONOf(e *FindingEntry, opts WriteOptions) findingJSON {
	j := findingJSON{Fingerprint: e.Fingerprint, RuleID: e.RuleID, Severity: e.Severity, Provider: e.Provider,
		ResourceID: e.ResourceID, PeriodStart: formatRFC3339(e.PeriodStart, opts.TZ),
		PeriodEnd: formatRFC3339(e.PeriodEnd, opts.TZ), AmountAtRisk: jsonMoney(e.AmountAtRisk),
		Currency: e.Currency, ReasonZH: e.ReasonZH, ReasonEN: e.ReasonEN, AdviceZH: e.AdviceZH,
		AdviceEN: e.AdviceEN, Evidence: make([]evidenceJSON, 0, len(e.Evidence)), State: e.State, Claim: e.Claim}
	for _, ev := range e.Evidence {
		j.Evidence = append(j.Evidence, evidenceJSON{File: ev.File, Row: ev.Row, LineItemID: ev.LineItemID,
			LineID: opts.rows.lineID(ev.LineItemID)})
	}
	return j
}

type findingsTotalJSON struct {
	Currency     string  `json:"currency"`
	AmountAtRisk *string `json:"amount_at_risk"`
	Count        int     `json:"count"`
}

// writeJSON writes the report as JSON, a finding at a time (jsonObject).
func (r *FindingsReport) writeJSON(w io.Writer, opts WriteOptions) error {
	o := newJSONObject(w)
	o.member("month", r.Month)
	o.array("findings", len(r.Findings), func(i int) any { return findingJSONOf(&r.Findings[i], opts) })
	o.array("totals", len(r.Totals), func(i int) any {
		t := &r.Totals[i]
		return findingsTotalJSON{Currency: t.Currency, AmountAtRisk: jsonMoney(t.AmountAtRisk), Count: t.Count}
	})
	return o.end()
}

func init() {
	addMessages(map[string][2]string{
		"find.col.rule":        {"规则", "Rule"},
		"find.col.rule_id":     {"规则ID", "Rule ID"},
		"find.col.start":       {"开始", "Start"},
		"find.col.end":         {"结束", "End"},
		"find.col.counted":     {"计入合计", "Counted in totals"},
		"find.col.fingerprint": {"指纹", "Fingerprint"},
		"find.evidence_title":  {"证据", "Evidence"},
	})
}

// document lays the report out for xlsx and html.
//
// html: per rule a section of readable blocks, one per finding (severity,
// provider, resource, period, money at risk, fingerprint; the reason, the
// advice; the evidence, one line per file), then the totals table and its
// note.
//
// xlsx: a findings sheet, one row per finding with typed cells (exact
// amounts; the part counted in the totals beside the amount at risk, so
// that the totals sheet can be checked by summing that column), then the
// totals sheet. The findings sheet gets no formula totals: summing the
// amounts at risk would count a line item flagged twice twice.
func (r *FindingsReport) document(opts WriteOptions) *document {
	lang, exact := opts.Lang, opts.exact()
	month := r.Month
	if month == "" {
		month = tr(lang, "all_months")
	}
	doc := &document{key: "findings", title: tr(lang, "title.findings") + " " + month}
	if len(r.Findings) > 0 {
		doc.notes = []string{tr(lang, "note.find_totals")}
	}
	if opts.Format == FormatHTML {
		if len(r.Findings) == 0 {
			doc.sections = append(doc.sections, section{key: "findings", grid: &grid{}, empty: r.emptyText(lang)})
		}
		for i := range r.Findings {
			e := &r.Findings[i]
			if i == 0 || e.RuleID != r.Findings[i-1].RuleID {
				doc.sections = append(doc.sections, section{key: "rule-" + e.RuleID, title: ruleHeading(lang, e.RuleID)})
			}
			sec := &doc.sections[len(doc.sections)-1]
			sec.blocks = append(sec.blocks, findingBlock(e, opts))
		}
	} else {
		g := &grid{cols: []column{
			textCol("rule", tr(lang, "find.col.rule")),
			textCol("rule_id", tr(lang, "find.col.rule_id")),
			textCol("severity", tr(lang, "col.severity")),
			textCol("provider", tr(lang, "col.provider")),
			textCol("resource_id", tr(lang, "col.resource_id")),
			timeCol("period_start", tr(lang, "find.col.start")),
			timeCol("period_end", tr(lang, "find.col.end")),
			textCol("currency", tr(lang, "col.currency")),
			moneyCol("amount_at_risk", tr(lang, "col.amount")),
			moneyCol("counted", tr(lang, "find.col.counted")),
			textCol("state", tr(lang, "col.state")),
			textCol("reason", tr(lang, "col.reason")),
			textCol("advice", tr(lang, "col.advice")),
			textCol("evidence", tr(lang, "col.evidence")),
			textCol("fingerprint", tr(lang, "find.col.fingerprint")),
		}}
		for i := range r.Findings {
			e := &r.Findings[i]
			title := e.RuleID
			if _, ok := messages["rule."+e.RuleID]; ok {
				title = tr(lang, "rule."+e.RuleID)
			}
			g.add(title, e.RuleID, trOr(lang, "severity.", e.Severity), providerName(e.Provider, lang), e.ResourceID,
				formatRFC3339(e.PeriodStart, opts.TZ), formatRFC3339(e.PeriodEnd, opts.TZ), e.Currency,
				FormatNullMoney(e.AmountAtRisk, e.Currency, exact), FormatNullMoney(e.Counted, e.Currency, exact),
				trOr(lang, "state.", e.State), pick(lang, e.ReasonZH, e.ReasonEN), pick(lang, e.AdviceZH, e.AdviceEN),
				evidenceText(e.Evidence, opts.rows), e.Fingerprint)
		}
		doc.sections = append(doc.sections, section{key: "findings", title: tr(lang, "title.findings"), grid: g,
			empty: r.emptyText(lang)})
	}
	totals := &grid{cols: []column{
		textCol("currency", tr(lang, "col.currency")),
		countCol("count", tr(lang, "col.count")),
		moneyCol("amount_at_risk", tr(lang, "col.amount")),
	}}
	for _, t := range r.Totals {
		totals.add(t.Currency, strconv.Itoa(t.Count), FormatNullMoney(t.AmountAtRisk, t.Currency, exact))
	}
	doc.sections = append(doc.sections, section{key: "totals", title: tr(lang, "title.find_totals"), grid: totals})
	return doc
}

// findingBlock is one finding as an html block.
func findingBlock(e *FindingEntry, opts WriteOptions) block {
	lang := opts.Lang
	s := summarize(e, opts)
	b := block{
		id:      "finding-" + e.Fingerprint,
		class:   e.Severity,
		badge:   s.severity,
		summary: []string{s.provider, orDash(s.resource), s.period},
		amount:  tr(lang, "find.at_risk") + " " + s.amount,
	}
	if s.state != "" {
		b.summary = append(b.summary, tr(lang, "find.state")+" "+s.state)
	}
	if s.fingerprint != "" {
		b.summary = append(b.summary, tr(lang, "find.fingerprint")+" "+s.fingerprint)
	}
	if reason := pick(lang, e.ReasonZH, e.ReasonEN); reason != "" {
		b.lines = append(b.lines, reason)
	}
	if advice := pick(lang, e.AdviceZH, e.AdviceEN); advice != "" {
		b.lines = append(b.lines, tr(lang, "find.advice")+advice)
	}
	if len(e.Evidence) > 0 {
		b.listTitle = tr(lang, "find.evidence_title")
		b.list = evidenceParts(e.Evidence, lang, orDash, opts.rows)
	}
	return b
}

package ledger

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// RunFindings returns what Findings(month) returns once the audit run runID
// of month has stored run (AuditWriter.Add: their ID, RunID and State set)
// and committed, without reading run back: the run's findings as they
// are stored (times to the second in UTC, amounts without trailing zeros,
// evidence ordered by file, row and line item, each line item once, no
// RowKey), the findings of the month that other runs left (acknowledged or
// resolved ones this run did not produce), read from the ledger, in
// Findings' order, and the billed cost of every line item cited. Evidence
// whose BilledCost is Valid keeps it (the producer had the line item);
// the rest is looked up.
//
// Reading a run back cost the audit of a million-item month 1.0 s of CPU
// (41k findings, 1M evidence pairs and their billed costs), which it had
// in memory. The evidence of run is sorted and compacted in place: run's
// findings keep their other fields, not their evidence.
func (db *DB) RunFindings(ctx context.Context, month string, runID int64, run []Finding) ([]Finding, error) {
	out := make([]Finding, 0, len(run))
	for i := range run {
		f := run[i]
		if f.ID == 0 || f.RunID != runID || f.Month != month {
			return nil, fmt.Errorf("ledger: finding %s is not stored by run %d of %s", f.Fingerprint, runID, month)
		}
		var err error
		if f.PeriodStart, err = ParseTime(FormatTime(f.PeriodStart)); err != nil {
			return nil, fmt.Errorf("ledger: finding %s: %w", f.Fingerprint, err)
		}
		if f.PeriodEnd, err = ParseTime(FormatTime(f.PeriodEnd)); err != nil {
			return nil, fmt.Errorf("ledger: finding %s: %w", f.Fingerprint, err)
		}
		if f.AmountAtRisk.Valid {
			if f.AmountAtRisk.Decimal, err = ParseStoredAmount(AppendCanonicalDecimal(nil, f.AmountAtRisk.Decimal)); err != nil {
				return nil, fmt.Errorf("ledger: finding %s: %w", f.Fingerprint, err)
			}
		}
		f.Evidence = storedEvidence(f.Evidence)
		out = append(out, f)
	}
	// What Commit left of other runs: findings not open.
	others, err := db.findingsWhere(ctx, "month = ? AND (run_id < ? OR run_id > ?)", []any{month, runID, runID})
	if err != nil {
		return nil, err
	}
	out = append(out, others...)
	if err := db.AddEvidenceCosts(ctx, out, nil); err != nil {
		return nil, err
	}
	slices.SortFunc(out, compareFindings)
	return out, nil
}

// storedEvidence is ev as insertEvidence stores it and attachEvidence reads
// it back: sorted by CompareEvidence, a line item cited twice in one file
// listed once, without RowKey; nil when empty. It sorts ev in place (a
// slice two findings share is then sorted for both) and copies it only to
// drop a repeat.
func storedEvidence(ev []Evidence) []Evidence {
	if len(ev) == 0 {
		return nil
	}
	if !slices.IsSortedFunc(ev, CompareEvidence) {
		slices.SortFunc(ev, CompareEvidence)
	}
	same := func(a, b Evidence) bool { return a.LineItemID == b.LineItemID && a.File == b.File }
	for i := 1; i < len(ev); i++ {
		if same(ev[i-1], ev[i]) {
			ev = slices.CompactFunc(slices.Clone(ev), same)
			break
		}
	}
	for i := range ev {
		ev[i].RowKey = ""
	}
	return ev
}

// compareFindings is the order of Findings: severity (high, medium, low,
// then the rest), rule, provider, resource, period start, id.
func compareFindings(a, b Finding) int {
	// SeverityRank, with info and unknown severities tied last (the ORDER
	// BY it replaced ranked every other severity alike).
	if c := cmp.Compare(max(SeverityRank(b.Severity), 0), max(SeverityRank(a.Severity), 0)); c != 0 {
		return c
	}
	for _, p := range [...][2]string{{a.RuleID, b.RuleID}, {a.Provider, b.Provider}, {a.ResourceID, b.ResourceID}} {
		if c := strings.Compare(p[0], p[1]); c != 0 {
			return c
		}
	}
	if c := a.PeriodStart.Compare(b.PeriodStart); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

package ledger

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpubill/gpubill/money"
	"github.com/shopspring/decimal"
)

// SaveAudit records an audit run of month and stores its findings in one
// transaction. A finding whose fingerprint is already stored is updated in
// place (its state and first run are kept), so rerunning an audit never
// duplicates findings; open findings of the month that the run no longer
// produces are removed. The findings get their ID and RunID set.
func (db *DB) SaveAudit(ctx context.Context, month, tz, params string, findings []Finding) (runID int64, err error) {
	w, err := db.BeginAudit(ctx, month, tz)
	if err != nil {
		return 0, err
	}
	defer w.Rollback()
	if err := w.Add(ctx, findings); err != nil {
		return 0, err
	}
	return w.Commit(ctx, params)
}

// AuditWriter is SaveAudit in steps, for an audit that stores the findings
// of its first rules while the others still run: BeginAudit, Add as they
// come, Commit (it removes the month's open findings the run did not
// produce), or Rollback. A run's fingerprints are distinct; ids follow the
// order of Add.
type AuditWriter struct {
	tx    *sql.Tx
	month string
	runID int64
	args  []any
}

// BeginAudit starts the transaction of an audit run of month, waiting for
// another writer as the ledger's other write transactions do.
func (db *DB) BeginAudit(ctx context.Context, month, tz string) (*AuditWriter, error) {
	tx, err := db.BeginTx(ctx)
	if err != nil {
		return nil, fmt.Errorf("ledger: save audit: %w", err)
	}
	w := &AuditWriter{tx: tx, month: month}
	res, err := tx.ExecContext(ctx, `INSERT INTO audit_runs(started_at, month, tz) VALUES (?, ?, ?)`, FormatTime(time.Now()), month, tz)
	if err == nil {
		w.runID, err = res.LastInsertId()
	}
	if err != nil {
		w.Rollback()
		return nil, fmt.Errorf("ledger: save audit: %w", err)
	}
	return w, nil
}

// Add stores findings (and their evidence) in the run, and sets their ID,
// RunID, Month and State (kept from the stored finding of the same
// fingerprint).
func (w *AuditWriter) Add(ctx context.Context, findings []Finding) error {
	all := findings
	for len(findings) > 0 {
		n := min(len(findings), findingBatch)
		if err := w.upsert(ctx, findings[:n]); err != nil {
			return err
		}
		findings = findings[n:]
	}
	return insertEvidence(ctx, w.tx, all)
}

// stored is a finding an earlier run stored: its id and state.
type stored struct {
	id    int64
	state string
}

// findingBatch is how many findings one INSERT writes (18 values each).
const findingBatch = 64

// upsert stores one batch of findings: the new fingerprints in one
// multi-row INSERT, in order; the others updated in place (state and first
// run kept), their evidence deleted for Add to write anew. Not INSERT … ON
// CONFLICT DO UPDATE: SQLite runs that with a statement journal, hundreds of
// megabytes of temporary file for a big month.
func (w *AuditWriter) upsert(ctx context.Context, findings []Finding) error {
	const insert = `INSERT OR FAIL INTO findings(fingerprint, run_id, first_run_id, month, rule_id, severity, provider,
			resource_id, period_start, period_end, amount_at_risk, currency, basis, reason_zh, reason_en, advice_zh, advice_en, claim)
			VALUES `
	const update = `UPDATE findings SET run_id = ?, month = ?, severity = ?, period_start = ?, period_end = ?, amount_at_risk = ?,
			currency = ?, basis = ?, reason_zh = ?, reason_en = ?, advice_zh = ?, advice_en = ?, claim = ? WHERE id = ?`
	if len(findings) == 0 {
		return nil
	}
	old := map[string]stored{}
	w.args = w.args[:0]
	for i := range findings {
		w.args = append(w.args, findings[i].Fingerprint)
	}
	if err := eachRow(ctx, w.tx, "", `SELECT fingerprint, id, state, run_id FROM findings WHERE fingerprint IN (`+placeholders(len(findings))+`)`,
		w.args, func(scan func(...any) error) error {
			var fp string
			var s stored
			var run int64
			if err := scan(&fp, &s.id, &s.state, &run); err != nil {
				return err
			}
			if run == w.runID {
				return fmt.Errorf("two findings with fingerprint %s", fp)
			}
			old[fp] = s
			return nil
		}); err != nil {
		return fmt.Errorf("ledger: save findings: %w", err)
	}
	w.args = w.args[:0]
	fresh := make(map[string]*Finding, len(findings))
	var replaced []any // ids of findings of an earlier run: their evidence is written anew
	for i := range findings {
		f := &findings[i]
		f.RunID, f.Month = w.runID, w.month
		start, end, amount := FormatTime(f.PeriodStart), FormatTime(f.PeriodEnd), canonicalNullDec(f.AmountAtRisk)
		if s, ok := old[f.Fingerprint]; ok {
			f.ID, f.State = s.id, s.state
			if _, err := w.tx.ExecContext(ctx, update, w.runID, w.month, f.Severity, start, end, amount, f.Currency, f.Basis,
				f.ReasonZH, f.ReasonEN, f.AdviceZH, f.AdviceEN, f.Claim, f.ID); err != nil {
				return fmt.Errorf("ledger: save findings: %w", err)
			}
			replaced = append(replaced, f.ID)
			continue
		}
		if fresh[f.Fingerprint] != nil {
			return fmt.Errorf("ledger: save findings: two findings with fingerprint %s", f.Fingerprint)
		}
		fresh[f.Fingerprint] = f
		w.args = append(w.args, f.Fingerprint, w.runID, w.runID, w.month, f.RuleID, f.Severity, f.Provider, f.ResourceID,
			start, end, amount, f.Currency, f.Basis, f.ReasonZH, f.ReasonEN, f.AdviceZH, f.AdviceEN, f.Claim)
	}
	if n := len(fresh); n > 0 {
		q := insert + "(" + placeholders(18) + ")" + strings.Repeat(",("+placeholders(18)+")", n-1) + " RETURNING fingerprint, id, state"
		if err := eachRow(ctx, w.tx, "", q, w.args, func(scan func(...any) error) error {
			var fp, state string
			var id int64
			if err := scan(&fp, &id, &state); err != nil {
				return err
			}
			f := fresh[fp]
			if f == nil {
				return fmt.Errorf("stored a finding %q that was not given, or twice", fp)
			}
			delete(fresh, fp)
			f.ID, f.State = id, state
			return nil
		}); err != nil {
			return fmt.Errorf("ledger: save findings: %w", err)
		}
		if len(fresh) > 0 {
			return fmt.Errorf("ledger: save findings: %d of %d not stored", len(fresh), n)
		}
		if err := w.carryAcks(ctx, findings, old); err != nil {
			return err
		}
	}
	if len(replaced) > 0 {
		if _, err := w.tx.ExecContext(ctx, `DELETE FROM finding_evidence WHERE finding_id IN (`+placeholders(len(replaced))+`)`, replaced...); err != nil {
			return fmt.Errorf("ledger: save evidence: %w", err)
		}
	}
	return nil
}

// carryAcks acknowledges the findings of findings that were stored anew
// (not in old) and that an acknowledgement carried from an earlier month
// covers (carried_acks: same rule, provider and resource).
func (w *AuditWriter) carryAcks(ctx context.Context, findings []Finding, old map[string]stored) error {
	byID := map[int64]*Finding{}
	var ids []any
	for i := range findings {
		if _, ok := old[findings[i].Fingerprint]; !ok && findings[i].State == "open" {
			byID[findings[i].ID] = &findings[i]
			ids = append(ids, findings[i].ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	q := `UPDATE findings SET state = 'acknowledged' WHERE id IN (` + placeholders(len(ids)) + `) AND EXISTS (
		SELECT 1 FROM carried_acks c WHERE c.rule_id = findings.rule_id AND c.provider = findings.provider
		AND c.resource_id = findings.resource_id AND c.from_month < findings.month) RETURNING id`
	if err := eachRow(ctx, w.tx, "", q, ids, func(scan func(...any) error) error {
		var id int64
		if err := scan(&id); err != nil {
			return err
		}
		if f := byID[id]; f != nil {
			f.State = "acknowledged"
		}
		return nil
	}); err != nil {
		return fmt.Errorf("ledger: carried acknowledgements: %w", err)
	}
	return nil
}

// CarryAck acknowledges the finding of fingerprint and carries the
// acknowledgement to the findings of the same rule, provider and resource
// in later months (migration 0010).
func (db *DB) CarryAck(ctx context.Context, fingerprint string) error {
	var resource string
	if err := db.sql.QueryRowContext(ctx, `SELECT resource_id FROM findings WHERE fingerprint = ?`, fingerprint).Scan(&resource); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("no finding with fingerprint %q: %w", fingerprint, sql.ErrNoRows)
		}
		return fmt.Errorf("ledger: %w", err)
	}
	if resource == "" {
		return fmt.Errorf("finding %s names no resource: an acknowledgement is carried for one resource only", fingerprint)
	}
	if err := db.SetFindingState(ctx, fingerprint, "acknowledged"); err != nil {
		return err
	}
	if _, err := db.sql.ExecContext(ctx, `INSERT OR REPLACE INTO carried_acks(rule_id, provider, resource_id, from_month, fingerprint)
		SELECT rule_id, provider, resource_id, month, fingerprint FROM findings WHERE fingerprint = ?`, fingerprint); err != nil {
		return fmt.Errorf("ledger: carry acknowledgement: %w", err)
	}
	// Later months audited already: their open findings of it too.
	if _, err := db.sql.ExecContext(ctx, `UPDATE findings SET state = 'acknowledged' WHERE state = 'open' AND EXISTS (
		SELECT 1 FROM carried_acks c WHERE c.fingerprint = ? AND c.rule_id = findings.rule_id AND c.provider = findings.provider
		AND c.resource_id = findings.resource_id AND c.from_month < findings.month)`, fingerprint); err != nil {
		return fmt.Errorf("ledger: carry acknowledgement: %w", err)
	}
	return nil
}

// Commit records params as the run's parameters (JSON), removes the open
// findings of the month that the run did not produce (their evidence goes
// with them: ON DELETE CASCADE), and commits.
func (w *AuditWriter) Commit(ctx context.Context, params string) (runID int64, err error) {
	defer w.Rollback()
	if _, err := w.tx.ExecContext(ctx, `UPDATE audit_runs SET params = ? WHERE id = ?`, params, w.runID); err != nil {
		return 0, fmt.Errorf("ledger: save audit: %w", err)
	}
	// "run_id <> ?" written as two ranges: SQLite then reads them on the
	// index findings_month (month, run_id), skipping the findings just
	// written instead of reading each.
	if _, err := w.tx.ExecContext(ctx, `DELETE FROM findings WHERE month = ?1 AND (run_id < ?2 OR run_id > ?2) AND state = 'open'`,
		w.month, w.runID); err != nil {
		return 0, fmt.Errorf("ledger: prune findings: %w", err)
	}
	if err := w.tx.Commit(); err != nil {
		return 0, fmt.Errorf("ledger: save audit: %w", err)
	}
	return w.runID, nil
}

// Rollback discards the run unless it was committed.
func (w *AuditWriter) Rollback() { _ = w.tx.Rollback() }

// evidenceBatch is how many evidence lists one INSERT writes (3 values
// each, well below SQLite's limit on bound values).
const evidenceBatch = 200

// insertEvidence writes the evidence of findings (their IDs set): one row
// per finding and file, listing its line items as JSON [[id, row], …]
// ordered by row, then id (migration 0008). A line item cited twice by one
// finding is listed once.
func insertEvidence(ctx context.Context, tx *sql.Tx, findings []Finding) error {
	args := make([]any, 0, evidenceBatch*3)
	flush := func() error {
		n := len(args) / 3
		if n == 0 {
			return nil
		}
		q := `INSERT OR FAIL INTO finding_evidence(finding_id, file, items) VALUES (?,?,?)` + strings.Repeat(`,(?,?,?)`, n-1)
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("ledger: save evidence: %w", err)
		}
		args = args[:0]
		return nil
	}
	var list []byte
	var sorted []Evidence
	for i := range findings {
		ev := findings[i].Evidence
		if !slices.IsSortedFunc(ev, CompareEvidence) {
			sorted = append(sorted[:0], ev...)
			slices.SortFunc(sorted, CompareEvidence)
			ev = sorted
		}
		for len(ev) > 0 {
			file := ev[0].File
			list = append(list[:0], '[')
			var last int64
			n := 0
			for ; n < len(ev) && ev[n].File == file; n++ {
				e := &ev[n]
				if n > 0 && e.LineItemID == last {
					continue // the same line item again (same file and row)
				}
				if n > 0 {
					list = append(list, ',')
				}
				list = append(list, '[')
				list = strconv.AppendInt(list, e.LineItemID, 10)
				list = append(list, ',')
				list = strconv.AppendInt(list, int64(e.Row), 10)
				list = append(list, ']')
				last = e.LineItemID
			}
			list = append(list, ']')
			args = append(args, findings[i].ID, file, string(list))
			ev = ev[n:]
			if len(args) == evidenceBatch*3 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// CompareEvidence orders evidence by file, row and line item (the order
// findings keep it in).
func CompareEvidence(a, b Evidence) int {
	if c := strings.Compare(a.File, b.File); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Row, b.Row); c != 0 {
		return c
	}
	return cmp.Compare(a.LineItemID, b.LineItemID)
}

// canonicalNullDec stores a computed amount (money at risk) without the
// trailing zeros its arithmetic left ("0.94000000" → "0.94"); source amounts
// keep their precision instead (nullDec).
func canonicalNullDec(d decimal.NullDecimal) any {
	if !d.Valid {
		return nil
	}
	return money.Canonical(d.Decimal)
}

// Findings returns the stored findings of month (all months when ""), with
// their evidence (and its line items' billed cost), most severe first.
func (db *DB) Findings(ctx context.Context, month string) ([]Finding, error) {
	fs, err := db.FindingsWithoutCosts(ctx, month)
	if err != nil {
		return nil, err
	}
	if err := db.AddEvidenceCosts(ctx, fs, nil); err != nil {
		return nil, err
	}
	return fs, nil
}

// FindingsWithoutCosts is Findings without the billed costs of the evidence
// (Evidence.BilledCost is not Valid): for a report that reads them on its
// way through the month, then calls AddEvidenceCosts.
func (db *DB) FindingsWithoutCosts(ctx context.Context, month string) ([]Finding, error) {
	where, args := "", []any(nil)
	if month != "" {
		where, args = "month = ?", []any{month}
	}
	q := `SELECT id, fingerprint, run_id, month, rule_id, severity, provider, resource_id, period_start, period_end,
		amount_at_risk, currency, basis, reason_zh, reason_en, advice_zh, advice_en, claim, state FROM findings`
	if where != "" {
		q += ` WHERE ` + where
	}
	var out []Finding
	err := eachRow(ctx, db.sql, "findings", q+` ORDER BY CASE severity WHEN 'high' THEN 0 WHEN 'medium' THEN 1 WHEN 'low' THEN 2 ELSE 3 END,
		rule_id, provider, resource_id, period_start, id`, args, func(scan func(...any) error) error {
		var f Finding
		var start, end string
		var amount *string
		err := scan(&f.ID, &f.Fingerprint, &f.RunID, &f.Month, &f.RuleID, &f.Severity, &f.Provider, &f.ResourceID,
			&start, &end, &amount, &f.Currency, &f.Basis, &f.ReasonZH, &f.ReasonEN, &f.AdviceZH, &f.AdviceEN, &f.Claim, &f.State)
		if err != nil {
			return err
		}
		if f.PeriodStart, err = ParseTime(start); err == nil {
			f.PeriodEnd, err = ParseTime(end)
		}
		if err == nil {
			f.AmountAtRisk, err = scanDec(amount)
		}
		if err != nil {
			return fmt.Errorf("ledger: finding %d: %w", f.ID, err)
		}
		out = append(out, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := db.attachEvidence(ctx, where, args, out); err != nil {
		return nil, err
	}
	return out, nil
}

// SetFindingState marks a finding acknowledged, resolved or open again.
func (db *DB) SetFindingState(ctx context.Context, fingerprint, state string) error {
	switch state {
	case "open", "acknowledged", "resolved":
	default:
		return fmt.Errorf("ledger: unknown finding state %q", state)
	}
	res, err := db.sql.ExecContext(ctx, `UPDATE findings SET state = ? WHERE fingerprint = ?`, state, fingerprint)
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("no finding with fingerprint %q: %w", fingerprint, sql.ErrNoRows)
	}
	if state == "open" { // reopened: its acknowledgement no longer carries
		if _, err := db.sql.ExecContext(ctx, `DELETE FROM carried_acks WHERE (rule_id, provider, resource_id) IN
			(SELECT rule_id, provider, resource_id FROM findings WHERE fingerprint = ?)`, fingerprint); err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
	}
	return nil
}

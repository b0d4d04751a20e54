package watch

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

// seen is what the last poll recorded of an instance (watch_instances).
type seen struct {
	state      string
	since      time.Time
	sinceKnown bool
	lastSeen   time.Time
}

// sent is an open alert of watch_alerts.
type sent struct {
	key, provider, account, instance string
	step                             int
	severity                         string
}

type acctKey struct{ provider, account string }

func loadSeen(ctx context.Context, tx *sql.Tx, k acctKey) (map[string]seen, time.Time, error) {
	rows, err := tx.QueryContext(ctx, `SELECT instance_id, state, since, since_known, last_seen FROM watch_instances
		WHERE provider = ? AND account = ?`, k.provider, k.account)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer rows.Close()
	out := map[string]seen{}
	var last time.Time
	for rows.Next() {
		var id, state, since, lastSeen string
		var known int
		if err := rows.Scan(&id, &state, &since, &known, &lastSeen); err != nil {
			return nil, time.Time{}, err
		}
		s := seen{state: state, sinceKnown: known == 1}
		s.since, _ = time.Parse(time.RFC3339, since)
		s.lastSeen, _ = time.Parse(time.RFC3339, lastSeen)
		if s.lastSeen.After(last) {
			last = s.lastSeen
		}
		out[id] = s
	}
	return out, last, rows.Err()
}

// loadOpen reads the open alerts of one account, of the given kinds.
func loadOpen(ctx context.Context, tx *sql.Tx, k acctKey, kinds []string) (map[string]sent, error) {
	return queryOpen(ctx, tx, `provider = ? AND account = ? AND `+kindIn(kinds), append([]any{k.provider, k.account}, anys(kinds)...)...)
}

// loadOpenKinds reads the open alerts of the given kinds, of every account.
func loadOpenKinds(ctx context.Context, tx *sql.Tx, kinds []string) (map[string]sent, error) {
	return queryOpen(ctx, tx, kindIn(kinds), anys(kinds)...)
}

func queryOpen(ctx context.Context, tx *sql.Tx, where string, args ...any) (map[string]sent, error) {
	rows, err := tx.QueryContext(ctx, `SELECT alert_key, provider, account, instance_id, step, severity FROM watch_alerts
		WHERE cleared_at IS NULL AND `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]sent{}
	for rows.Next() {
		var s sent
		if err := rows.Scan(&s.key, &s.provider, &s.account, &s.instance, &s.step, &s.severity); err != nil {
			return nil, err
		}
		out[s.key] = s
	}
	return out, rows.Err()
}

// kindIn is "kind IN (?, …)" for n kinds: placeholders only, the kinds
// go as arguments.
func kindIn(kinds []string) string {
	return "kind IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(kinds)), ", ") + ")"
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// saveSeen replaces the account's instances with this poll's.
func saveSeen(ctx context.Context, tx *sql.Tx, k acctKey, obs []Observed, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM watch_instances WHERE provider = ? AND account = ?`, k.provider, k.account); err != nil {
		return err
	}
	for _, o := range obs {
		known := 0
		if o.SinceKnown {
			known = 1
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO watch_instances(provider, account, instance_id, state, since, since_known, last_seen)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, k.provider, k.account, o.ID, o.State, ts(o.Since), known, ts(now)); err != nil {
			return err
		}
	}
	return nil
}

func saveSent(ctx context.Context, tx *sql.Tx, a Alert) error {
	var amount any
	if a.amount.Valid {
		amount = a.amount.Decimal.String()
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO watch_alerts(alert_key, kind, provider, account, instance_id, severity, step, amount,
			first_sent, last_sent, sends) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
		ON CONFLICT(alert_key) DO UPDATE SET severity = excluded.severity, step = excluded.step, amount = excluded.amount,
			last_sent = excluded.last_sent, sends = sends + 1, cleared_at = NULL`,
		a.Key, a.Kind, a.Provider, a.Account, a.InstanceID, a.Severity, a.step, amount, ts(a.Now), ts(a.Now))
	return err
}

func clear(ctx context.Context, tx *sql.Tx, key string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE watch_alerts SET cleared_at = ? WHERE alert_key = ?`, ts(now), key)
	return err
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// begin opens the write transaction a poll judges and sends under: the
// ledger's BEGIN IMMEDIATE, so a second watcher waits for the first and
// then sees what it sent.
func begin(ctx context.Context, db *ledger.DB) (*sql.Tx, error) { return db.BeginTx(ctx) }

// lastCharge is the end of the last compute charge of the instance in the
// ledger's bills (usage_end where the bill gives it).
func lastCharge(ctx context.Context, tx *sql.Tx, provider, id string) (time.Time, bool, error) {
	var end sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT max(coalesce(usage_end, charge_period_end)) FROM line_items
		WHERE provider = ? AND resource_id = ? AND kind = 'compute'`, provider, id).Scan(&end)
	if err != nil || !end.Valid {
		return time.Time{}, false, err
	}
	t, err := ledger.ParseTime(end.String)
	if err != nil {
		return time.Time{}, false, nil
	}
	return t, true, nil
}

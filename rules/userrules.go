package rules

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// User SQL rules (docs/user-rules.md). Every *.sql file of Config.RulesDir is
// a rule with the id "user.<file name without .sql>". Its one SELECT runs on
// a read-only connection (ledger.OpenReadOnly) with a time limit, against the
// views of migration 0002 (v_line_items …), with the named parameters :month,
// :month_start and :month_end. It returns one row per finding:
//
//	resource_id     TEXT  the resource ('' for an account-level finding)
//	status          TEXT  alarm | info | ok (ok rows are dropped)
//	reason          TEXT  why (both languages, unless reason_zh / reason_en)
//	amount_at_risk  TEXT  decimal, NULL = not quantifiable
//	line_item_ids   TEXT  evidence: line item ids, comma-separated
//
// and may add severity (of an alarm: info | low | medium | high, default
// medium), provider, currency, period_start, period_end, reason_zh,
// reason_en, advice, advice_zh, advice_en. The engine adds the rest: rule id,
// fingerprint, evidence file and row, provider, currency and period from the
// evidence where the rule gives none. A rule that fails, writes, runs past
// its time limit or returns a bad row yields no finding and a Warning naming
// its file; the other rules go on.

// UserRulePrefix starts the id of every user rule.
const UserRulePrefix = "user."

// userRuleColumns are the columns a user rule may return; the first five
// are required.
var userRuleColumns = []string{"resource_id", "status", "reason", "amount_at_risk", "line_item_ids",
	"severity", "provider", "currency", "period_start", "period_end", "reason_zh", "reason_en",
	"advice", "advice_zh", "advice_en"}

const userRuleRequired = 5

// UserRule is one SQL file of the rules folder.
type UserRule struct {
	ID     string // "user." + file name without .sql
	File   string // path of the file
	SQL    string
	SHA256 string // of the file, recorded with the audit run
	// Title and Description come from the "--" comment lines at the top of
	// the file (the first line is the title).
	Title       string
	Description string
}

// Info describes the rule for `gpubill rules`.
func (u UserRule) Info() Info {
	title := u.Title
	if title == "" {
		title = filepath.Base(u.File)
	}
	desc := u.Description
	if desc != "" {
		desc += " "
	}
	return Info{ID: u.ID, TitleZH: title, TitleEN: title,
		DescriptionZH: desc + "（用户 SQL 规则：" + u.File + "）",
		DescriptionEN: desc + "(user SQL rule: " + u.File + ")"}
}

// Warning reports a user rule that produced no findings because it failed.
type Warning struct {
	RuleID string // "" when no single rule is at fault
	File   string
	Err    error
}

func (w Warning) Error() string {
	if w.RuleID == "" {
		return fmt.Sprintf("user rules %s: %v", w.File, w.Err)
	}
	return fmt.Sprintf("user rule %s (%s): %v", filepath.Base(w.File), w.RuleID, w.Err)
}

// LoadUserRules reads the *.sql files of dir, sorted by name. A file that
// cannot be read or is empty is returned as a warning; a missing or
// unreadable dir is an error.
func LoadUserRules(dir string) ([]UserRule, []Warning, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("rules folder %s: %w", dir, err)
	}
	var out []UserRule
	var warns []Warning
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".sql") {
			continue
		}
		u := UserRule{ID: UserRulePrefix + strings.TrimSuffix(name, ".sql"), File: filepath.Join(dir, name)}
		b, err := os.ReadFile(u.File)
		if err != nil {
			warns = append(warns, Warning{RuleID: u.ID, File: u.File, Err: err})
			continue
		}
		sum := sha256.Sum256(b)
		u.SHA256 = hex.EncodeToString(sum[:])
		u.SQL = string(b)
		u.Title, u.Description = sqlHeader(u.SQL)
		if !hasSQL(u.SQL) {
			warns = append(warns, Warning{RuleID: u.ID, File: u.File, Err: errors.New("the file holds no SQL")})
			continue
		}
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, warns, nil
}

// sqlHeader reads the "--" comment lines at the top of a rule file.
func sqlHeader(s string) (title, desc string) {
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		text, ok := strings.CutPrefix(line, "--")
		if !ok {
			if line == "" && len(lines) == 0 {
				continue
			}
			break
		}
		if text = strings.TrimSpace(text); text != "" {
			lines = append(lines, text)
		}
	}
	if len(lines) == 0 {
		return "", ""
	}
	return lines[0], strings.Join(lines[1:], " ")
}

// hasSQL reports whether s holds anything but comments and blanks.
func hasSQL(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "--") {
			return true
		}
	}
	return false
}

// userRuleRun is the shared state of the user rules of one audit.
type userRuleRun struct {
	in    *Input
	ro    *ledger.DB
	items map[int64]*ledger.LineItem // the month's items and context, by id
}

// runUserRule runs one user rule and turns its rows into findings (not yet
// fingerprinted). Its errors are the rule's fault, except a cancelled ctx.
func (r *userRuleRun) run(ctx context.Context, u UserRule) ([]ledger.Finding, error) {
	timeout := r.in.cfg.userRuleTimeout()
	qctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fs, err := r.query(qctx, u)
	if err != nil && qctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		return nil, fmt.Errorf("stopped after the time limit of %s (user_rule_timeout)", timeout)
	}
	return fs, err
}

func (r *userRuleRun) query(ctx context.Context, u UserRule) ([]ledger.Finding, error) {
	rows, err := r.ro.SQL().QueryContext(ctx, u.SQL,
		sql.Named("month", r.in.Month),
		sql.Named("month_start", ledger.FormatTime(r.in.MonthStart)),
		sql.Named("month_end", ledger.FormatTime(r.in.MonthEnd)))
	if err != nil {
		return nil, sqlError(err)
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	for i, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if !slices.Contains(userRuleColumns, n) {
			return nil, fmt.Errorf("unknown column %q (a rule returns %s; may add %s)", names[i],
				strings.Join(userRuleColumns[:userRuleRequired], ", "), strings.Join(userRuleColumns[userRuleRequired:], ", "))
		}
		if _, dup := col[n]; dup {
			return nil, fmt.Errorf("column %q returned twice", n)
		}
		col[n] = i
	}
	var missing []string
	for _, n := range userRuleColumns[:userRuleRequired] {
		if _, ok := col[n]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing column %s (a rule returns %s)", strings.Join(missing, ", "),
			strings.Join(userRuleColumns[:userRuleRequired], ", "))
	}
	vals := make([]any, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []ledger.Finding
	var pending []*pendingEvidence
	var size int64
	for n := 1; rows.Next(); n++ {
		if n > userRuleMaxRows {
			return nil, fmt.Errorf("returned more than %d rows (the limit of a user rule): narrow its WHERE, or group its rows", userRuleMaxRows)
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for _, v := range vals {
			switch x := v.(type) {
			case string:
				size += int64(len(x))
			case []byte:
				size += int64(len(x))
			default:
				size += 8
			}
		}
		if size > userRuleMaxBytes {
			return nil, fmt.Errorf("returned more than %d MB by row %d (the limit of a user rule): return less text per row, or fewer rows", userRuleMaxBytes>>20, n)
		}
		get := func(name string) any {
			if i, ok := col[name]; ok {
				return vals[i]
			}
			return nil
		}
		f, ids, keep, err := r.finding(u, get)
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", n, err)
		}
		if keep {
			out = append(out, f)
			pending = append(pending, &pendingEvidence{row: n, ids: ids})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, sqlError(err)
	}
	rows.Close()
	if err := r.attachEvidence(ctx, out, pending); err != nil {
		return nil, err
	}
	return out, nil
}

// What a user rule may return: its time limit (user_rule_timeout) bounds
// only the time, and a rule returning 3,000,000 rows peaked at 1.8 GB.
// A rule past either limit fails (a warning of the audit), with no
// finding kept. Variables for the tests.
var (
	userRuleMaxRows  = 100_000         // rows (findings)
	userRuleMaxBytes = int64(64 << 20) // bytes of its values
)

// sqlError makes SQLite's refusal of a write readable.
func sqlError(err error) error {
	if strings.Contains(err.Error(), "not authorized") || strings.Contains(err.Error(), "readonly") ||
		strings.Contains(err.Error(), "read-only") {
		return fmt.Errorf("refused: user rules may only read (SELECT) the ledger: %w", err)
	}
	return err
}

type pendingEvidence struct {
	row int
	ids []int64
}

// text renders a column value as text; ok is false for NULL.
func text(v any) (string, bool, error) {
	switch x := v.(type) {
	case nil:
		return "", false, nil
	case string:
		return x, true, nil
	case []byte:
		return string(x), true, nil
	case int64:
		return strconv.FormatInt(x, 10), true, nil
	case float64:
		return "", false, fmt.Errorf("%v is a floating-point number; return money as TEXT (dsum(), or a TEXT column)", x)
	case time.Time:
		return ledger.FormatTime(x), true, nil
	}
	return "", false, fmt.Errorf("unsupported value %v (%T)", v, v)
}

func (r *userRuleRun) finding(u UserRule, get func(string) any) (f ledger.Finding, ids []int64, keep bool, err error) {
	str := func(name string) (string, error) {
		s, _, err := text(get(name))
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		return strings.TrimSpace(s), nil
	}
	status, err := str("status")
	if err != nil {
		return f, nil, false, err
	}
	switch strings.ToLower(status) {
	case "ok":
		return f, nil, false, nil
	case "info":
		f.Severity = ledger.SeverityInfo
	case "alarm":
		f.Severity = ledger.SeverityMedium
		sev, err := str("severity")
		if err != nil {
			return f, nil, false, err
		}
		if sev != "" {
			sev = strings.ToLower(sev)
			if ledger.SeverityRank(sev) < 0 {
				return f, nil, false, fmt.Errorf("severity %q is not info, low, medium or high", sev)
			}
			f.Severity = sev
		}
	default:
		return f, nil, false, fmt.Errorf("status %q is not alarm, info or ok", status)
	}
	f.RuleID = u.ID
	if f.ResourceID, err = str("resource_id"); err != nil {
		return f, nil, false, err
	}
	reason, err := str("reason")
	if err != nil {
		return f, nil, false, err
	}
	f.ReasonZH, f.ReasonEN = reason, reason
	for _, c := range []struct {
		name string
		dst  *string
	}{{"reason_zh", &f.ReasonZH}, {"reason_en", &f.ReasonEN}, {"advice", &f.AdviceZH}, {"advice_zh", &f.AdviceZH},
		{"advice_en", &f.AdviceEN}, {"provider", &f.Provider}, {"currency", &f.Currency}} {
		s, err := str(c.name)
		if err != nil {
			return f, nil, false, err
		}
		if s != "" {
			*c.dst = s
		}
		if c.name == "advice" && s != "" {
			f.AdviceEN = s
		}
	}
	if f.ReasonZH == "" && f.ReasonEN == "" {
		return f, nil, false, errors.New("reason: empty")
	}
	if f.ReasonZH == "" {
		f.ReasonZH = f.ReasonEN
	}
	if f.ReasonEN == "" {
		f.ReasonEN = f.ReasonZH
	}
	if f.Currency != "" {
		f.Currency = billing.NormalizeCurrency(f.Currency)
	}
	amt, ok, err := text(get("amount_at_risk"))
	if err != nil {
		return f, nil, false, fmt.Errorf("amount_at_risk: %w", err)
	}
	if ok && strings.TrimSpace(amt) != "" {
		d, err := decimal.NewFromString(strings.TrimSpace(amt))
		if err != nil {
			return f, nil, false, fmt.Errorf("amount_at_risk: %q is not a decimal amount", amt)
		}
		f.AmountAtRisk = valid(d)
	}
	for _, c := range []struct {
		name string
		dst  *time.Time
	}{{"period_start", &f.PeriodStart}, {"period_end", &f.PeriodEnd}} {
		s, err := str(c.name)
		if err != nil {
			return f, nil, false, err
		}
		if s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t, err = time.ParseInLocation("2006-01-02 15:04:05", s, r.in.TZ)
		}
		if err != nil {
			return f, nil, false, fmt.Errorf("%s: %q is not a time (RFC 3339, or YYYY-MM-DD HH:MM:SS in --tz)", c.name, s)
		}
		*c.dst = t.UTC()
	}
	idText, err := str("line_item_ids")
	if err != nil {
		return f, nil, false, err
	}
	for _, part := range strings.Split(idText, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, err := strconv.ParseInt(part, 10, 64)
		if err != nil || id <= 0 {
			return f, nil, false, fmt.Errorf("line_item_ids: %q is not a line item id", part)
		}
		ids = append(ids, id)
	}
	f.Basis = "user rule " + filepath.Base(u.File)
	return f, ids, true, nil
}

// attachEvidence resolves the line item ids of each finding into evidence
// and fills provider, currency and period from it where the rule gave none.
func (r *userRuleRun) attachEvidence(ctx context.Context, fs []ledger.Finding, pending []*pendingEvidence) error {
	var missing []int64
	for _, p := range pending {
		for _, id := range p.ids {
			if _, ok := r.items[id]; !ok {
				missing = append(missing, id)
			}
		}
	}
	if err := r.lookup(ctx, missing); err != nil {
		return err
	}
	for i := range fs {
		f, p := &fs[i], pending[i]
		seen := map[int64]bool{}
		var providers, currencies []string
		var start, end time.Time
		for _, id := range p.ids {
			li, ok := r.items[id]
			if !ok {
				return fmt.Errorf("row %d: line_item_ids: %d is not a line item of the ledger", p.row, id)
			}
			if seen[id] {
				continue
			}
			seen[id] = true
			f.Evidence = append(f.Evidence, ledger.Evidence{LineItemID: li.ID, File: li.File, Row: li.SourceRow, RowKey: li.RowKey})
			if !slices.Contains(providers, li.Provider) {
				providers = append(providers, li.Provider)
			}
			if !slices.Contains(currencies, li.Currency) {
				currencies = append(currencies, li.Currency)
			}
			if start.IsZero() || li.ChargePeriodStart.Before(start) {
				start = li.ChargePeriodStart
			}
			if li.ChargePeriodEnd.After(end) {
				end = li.ChargePeriodEnd
			}
		}
		if f.Provider == "" && len(providers) == 1 {
			f.Provider = providers[0]
		}
		if f.Currency == "" {
			switch len(currencies) {
			case 0:
				f.Currency = "CNY"
			case 1:
				f.Currency = currencies[0]
			default:
				if f.AmountAtRisk.Valid {
					return fmt.Errorf("row %d: the evidence is in %s: return a currency column", p.row, strings.Join(currencies, " and "))
				}
				f.Currency = currencies[0]
			}
		}
		if f.PeriodStart.IsZero() {
			f.PeriodStart = start
			if start.IsZero() {
				f.PeriodStart = r.in.MonthStart
			}
		}
		if f.PeriodEnd.IsZero() {
			f.PeriodEnd = end
			if end.IsZero() || end.Before(f.PeriodStart) {
				f.PeriodEnd = r.in.MonthEnd
			}
		}
		if f.PeriodEnd.Before(f.PeriodStart) {
			return fmt.Errorf("row %d: period_end is before period_start", p.row)
		}
	}
	return nil
}

// lookup loads line items outside the month (and its context) that user
// rules cite, with just what evidence and fingerprints need.
func (r *userRuleRun) lookup(ctx context.Context, ids []int64) error {
	for len(ids) > 0 {
		n := min(len(ids), 500)
		chunk := ids[:n]
		ids = ids[n:]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := r.ro.SQL().QueryContext(ctx, `SELECT id, provider, currency, charge_period_start, charge_period_end,
			source_row, row_key, file FROM v_line_items WHERE id IN (`+placeholderList(len(chunk))+`)`, args...)
		if err != nil {
			return fmt.Errorf("look up evidence: %w", err)
		}
		for rows.Next() {
			var li ledger.LineItem
			var s, e string
			if err := rows.Scan(&li.ID, &li.Provider, &li.Currency, &s, &e, &li.SourceRow, &li.RowKey, &li.File); err != nil {
				rows.Close()
				return fmt.Errorf("look up evidence: %w", err)
			}
			li.ChargePeriodStart, _ = ledger.ParseTime(s)
			li.ChargePeriodEnd, _ = ledger.ParseTime(e)
			r.items[li.ID] = &li
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("look up evidence: %w", err)
		}
	}
	return nil
}

func placeholderList(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// runUserRules runs the rules of cfg.RulesDir; finish fingerprints the
// findings of one rule and returns an error (the rule's fault) when they
// clash. Problems become warnings; only a cancelled ctx is an error.
func runUserRules(ctx context.Context, db *ledger.DB, in *Input, finish func(rule string, fs []ledger.Finding, keys map[int64]string) error) (
	[]UserRule, []Warning, error) {
	dir := in.cfg.RulesDir
	urs, warns, err := LoadUserRules(dir)
	if err != nil {
		return nil, nil, err
	}
	if len(urs) == 0 {
		return urs, warns, nil
	}
	ro, err := ledger.OpenReadOnly(ctx, db.Path())
	if err != nil {
		return urs, append(warns, Warning{File: dir, Err: err}), nil
	}
	defer ro.Close()
	run := &userRuleRun{in: in, ro: ro, items: make(map[int64]*ledger.LineItem, len(in.Items)+len(in.Context))}
	for _, li := range in.itemsAndContext() {
		run.items[li.ID] = li
	}
	for _, u := range urs {
		fs, err := run.run(ctx, u)
		if err == nil {
			keys := map[int64]string{}
			for _, f := range fs {
				for _, e := range f.Evidence {
					keys[e.LineItemID] = run.items[e.LineItemID].RowKey
				}
			}
			err = finish(u.ID, fs, keys)
		}
		if cerr := ctx.Err(); cerr != nil {
			return urs, warns, cerr
		}
		if err != nil {
			warns = append(warns, Warning{RuleID: u.ID, File: u.File, Err: err})
		}
	}
	return urs, warns, nil
}

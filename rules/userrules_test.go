package rules

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

// writeRules writes each name → SQL text into a fresh folder.
func writeRules(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// userLedger is a month with one big charge, a small one and a disk.
func userLedger(t *testing.T) *ledger.DB {
	return newLedger(t, []ledger.LineItem{
		item(t, "autodl", compute, "inst-1", "2026-10-03 14:00", "2026-10-03 15:00", "1.90"),
		item(t, "autodl", compute, "inst-1", "2026-10-04 09:00", "2026-10-04 10:00", "120.50"),
		item(t, "gpushare", ledger.KindStorage, "disk-1", "2026-10-05 00:00", "2026-10-06 00:00", "0.66"),
		item(t, "gpushare", compute, "inst-2", "2026-09-30 10:00", "2026-09-30 11:00", "150.00", period("2026-09")),
	})
}

// userOnly runs no built-in rule, only the user rules of dir.
func userOnly(t *testing.T, dir string) Config {
	t.Helper()
	cfg := DefaultConfig()
	for _, r := range registry {
		if err := cfg.Set(r.ID() + ".enabled=false"); err != nil {
			t.Fatal(err)
		}
	}
	cfg.RulesDir = dir
	return cfg
}

const bigChargeSQL = `-- Any single charge above ¥100
-- One finding per line item billed more than ¥100 in the month.
SELECT resource_id, 'alarm' AS status,
       'charge of ' || billed_cost || ' ' || currency AS reason,
       billed_cost AS amount_at_risk, CAST(id AS TEXT) AS line_item_ids
FROM v_line_items
WHERE billing_period = :month AND CAST(billed_cost AS REAL) > 100
`

func TestUserRuleHappyPath(t *testing.T) {
	db := userLedger(t)
	dir := writeRules(t, map[string]string{
		"big_charge.sql": bigChargeSQL,
		"disk_info.sql": `SELECT resource_id, 'info' AS status, 'a disk' AS reason, NULL AS amount_at_risk,
			group_concat(id) AS line_item_ids FROM v_line_items WHERE kind = 'storage' AND billing_period = :month GROUP BY resource_id`,
		"severity.sql": `SELECT 'acct' AS resource_id, 'alarm' AS status, 'month total' AS reason_en, '总额' AS reason_zh, '' AS reason,
			dsum(billed_cost) AS amount_at_risk, group_concat(id) AS line_item_ids, 'high' AS severity, 'check it' AS advice,
			'autodl' AS provider
			FROM v_line_items WHERE provider = 'autodl' AND billing_period = :month`,
		"all_ok.sql": `SELECT resource_id, 'ok' AS status, 'fine' AS reason, NULL AS amount_at_risk, '' AS line_item_ids FROM v_line_items`,
		"notes.txt":  "not a rule",
	})
	res, err := Audit(context.Background(), db, "2026-10", userOnly(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Fatalf("got warnings %v, want none", res.Warnings)
	}
	if got := len(res.UserRules); got != 4 {
		t.Errorf("got %d user rules, want 4 (notes.txt is no rule)", got)
	}
	checkFindings(t, res.Findings, []want{
		{rule: "user.severity", resource: "acct", amount: "122.4", severity: "high", evidence: 2},
		{rule: "user.big_charge", resource: "inst-1", amount: "120.5", severity: "medium", evidence: 1},
		{rule: "user.disk_info", resource: "disk-1", amount: "null", severity: "info", evidence: 1},
	})
	big := res.Findings[1]
	if big.Provider != "autodl" || big.Evidence[0].File != "bills/test.csv" || big.Evidence[0].Row != 2 {
		t.Errorf("big_charge: got provider %q evidence %+v, want autodl, bills/test.csv row 2", big.Provider, big.Evidence)
	}
	if !big.PeriodStart.Equal(at(t, "2026-10-04 09:00")) || !big.PeriodEnd.Equal(at(t, "2026-10-04 10:00")) {
		t.Errorf("big_charge: got period %v – %v, want the line item's", big.PeriodStart, big.PeriodEnd)
	}
	if big.ReasonEN != "charge of 120.50 CNY" || big.ReasonZH != big.ReasonEN || !strings.Contains(big.Basis, "big_charge.sql") {
		t.Errorf("big_charge: got reason %q / %q basis %q", big.ReasonZH, big.ReasonEN, big.Basis)
	}
	sev := res.Findings[0]
	if sev.ReasonZH != "总额" || sev.ReasonEN != "month total" || sev.AdviceEN != "check it" || sev.AdviceZH != "check it" {
		t.Errorf("severity: got reason %q / %q advice %q / %q", sev.ReasonZH, sev.ReasonEN, sev.AdviceZH, sev.AdviceEN)
	}
	if !strings.Contains(res.Params, `"user.big_charge.sha256"`) {
		t.Errorf("Params do not record the user rule files: %s", res.Params)
	}
	// stable across reruns, like the built-in rules
	again, err := Audit(context.Background(), db, "2026-10", userOnly(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := strings.Join(fingerprints(res.Findings), ","), strings.Join(fingerprints(again.Findings), ","); a != b {
		t.Errorf("fingerprints changed between runs: %s vs %s", a, b)
	}
}

func TestUserRuleEvidenceOutsideMonth(t *testing.T) {
	db := userLedger(t)
	dir := writeRules(t, map[string]string{"any_big.sql": `SELECT resource_id, 'alarm' AS status, 'big' AS reason,
		billed_cost AS amount_at_risk, id AS line_item_ids FROM v_line_items WHERE provider = 'gpushare' AND kind = 'compute'`})
	res, err := Audit(context.Background(), db, "2026-11", userOnly(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	checkFindings(t, res.Findings, []want{{rule: "user.any_big", resource: "inst-2", amount: "150", severity: "medium", evidence: 1}})
	if f := res.Findings[0]; f.Provider != "gpushare" || f.Evidence[0].Row != 4 {
		t.Errorf("got provider %q evidence %+v, want gpushare row 4", f.Provider, f.Evidence)
	}
}

// TestUserRuleFailures: each broken rule is reported by its file name and
// the others (user and built-in) still run.
func TestUserRuleFailures(t *testing.T) {
	db := userLedger(t)
	broken := map[string]struct{ sql, want string }{
		"syntax.sql":      {"SELEC 1", "syntax error"},
		"no_table.sql":    {"SELECT * FROM nowhere", "no such table"},
		"missing_col.sql": {"SELECT 'x' AS resource_id, 'alarm' AS status, 'r' AS reason", "missing column amount_at_risk, line_item_ids"},
		"extra_col.sql": {"SELECT 'x' AS resource_id, 'alarm' AS status, 'r' AS reason, NULL AS amount_at_risk, '' AS line_item_ids, 1 AS severty",
			`unknown column "severty"`},
		"bad_status.sql": {"SELECT 'x' AS resource_id, 'alert' AS status, 'r' AS reason, NULL AS amount_at_risk, '' AS line_item_ids",
			`row 1: status "alert" is not alarm, info or ok`},
		"float.sql": {"SELECT 'x' AS resource_id, 'alarm' AS status, 'r' AS reason, 1.5 AS amount_at_risk, '' AS line_item_ids",
			"amount_at_risk: 1.5 is a floating-point number"},
		"bad_amount.sql": {"SELECT 'x' AS resource_id, 'alarm' AS status, 'r' AS reason, 'lots' AS amount_at_risk, '' AS line_item_ids",
			`"lots" is not a decimal amount`},
		"bad_ids.sql": {"SELECT 'x' AS resource_id, 'alarm' AS status, 'r' AS reason, '1' AS amount_at_risk, '1;2' AS line_item_ids",
			`line_item_ids: "1;2" is not a line item id`},
		"unknown_id.sql": {"SELECT 'x' AS resource_id, 'alarm' AS status, 'r' AS reason, '1' AS amount_at_risk, '99999' AS line_item_ids",
			"99999 is not a line item"},
		"bad_severity.sql": {"SELECT 'x' AS resource_id, 'alarm' AS status, 'r' AS reason, '1' AS amount_at_risk, '' AS line_item_ids, 'urgent' AS severity",
			`severity "urgent"`},
		"twice.sql": {"SELECT 'x' AS resource_id, 'alarm' AS status, 'r' AS reason, '1' AS amount_at_risk, '1' AS line_item_ids FROM (SELECT 1 UNION ALL SELECT 2)",
			"two findings with fingerprint"},
		"empty.sql": {"-- nothing yet\n", "holds no SQL"},
	}
	files := map[string]string{"big_charge.sql": bigChargeSQL}
	for name, b := range broken {
		files[name] = b.sql
	}
	dir := writeRules(t, files)
	cfg := DefaultConfig()
	cfg.RulesDir = dir
	res, err := Audit(context.Background(), db, "2026-10", cfg)
	if err != nil {
		t.Fatalf("got error %v, want the audit to go on", err)
	}
	got := map[string]string{}
	for _, w := range res.Warnings {
		got[filepath.Base(w.File)] = w.Error()
	}
	for name, b := range broken {
		msg, ok := got[name]
		if !ok {
			t.Errorf("%s: got no warning, want one containing %q", name, b.want)
			continue
		}
		if !strings.Contains(msg, b.want) || !strings.Contains(msg, name) {
			t.Errorf("%s: got warning %q, want one naming the file and containing %q", name, msg, b.want)
		}
	}
	if len(res.Warnings) != len(broken) {
		t.Errorf("got %d warnings, want %d: %v", len(res.Warnings), len(broken), res.Warnings)
	}
	var user, builtin int
	for _, f := range res.Findings {
		if strings.HasPrefix(f.RuleID, UserRulePrefix) {
			user++
			if f.RuleID != "user.big_charge" {
				t.Errorf("got a finding of the broken rule %s", f.RuleID)
			}
		} else {
			builtin++
		}
	}
	if user != 1 || builtin == 0 {
		t.Errorf("got %d user and %d built-in findings, want 1 user (big_charge) and some built-in", user, builtin)
	}
}

func TestUserRuleTimeLimit(t *testing.T) {
	db := userLedger(t)
	dir := writeRules(t, map[string]string{
		"forever.sql": `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
			SELECT 'x' AS resource_id, 'alarm' AS status, 'r' AS reason, NULL AS amount_at_risk, '' AS line_item_ids
			FROM c WHERE x < 0`,
		"big_charge.sql": bigChargeSQL,
	})
	cfg := userOnly(t, dir)
	cfg.UserRuleTimeout = 300 * time.Millisecond
	start := time.Now()
	res, err := Audit(context.Background(), db, "2026-10", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("audit took %v, want the looping rule stopped after about 300ms", d)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Error(), "forever.sql") ||
		!strings.Contains(res.Warnings[0].Error(), "time limit of 300ms") {
		t.Errorf("got warnings %v, want one naming forever.sql and the 300ms limit", res.Warnings)
	}
	checkFindings(t, res.Findings, []want{{rule: "user.big_charge", resource: "inst-1", amount: "120.5", severity: "medium", evidence: 1}})
}

// ledgerState summarises what a user rule must not change.
func ledgerState(t *testing.T, db *ledger.DB) string {
	t.Helper()
	var n int
	var sum, master string
	if err := db.SQL().QueryRow(`SELECT count(*), coalesce(dsum(billed_cost), '') FROM line_items`).Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	if err := db.SQL().QueryRow(`SELECT group_concat(name) FROM (SELECT name FROM sqlite_master ORDER BY name)`).Scan(&master); err != nil {
		t.Fatal(err)
	}
	var findings int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM findings`).Scan(&findings); err != nil {
		t.Fatal(err)
	}
	return strings.Join([]string{strconv.Itoa(n), sum, strconv.Itoa(findings), master}, "|")
}

// TestUserRuleReadOnly: a user rule that writes is refused, is reported by
// its file name, and leaves the ledger as it was.
func TestUserRuleReadOnly(t *testing.T) {
	db := userLedger(t)
	outside := filepath.Join(t.TempDir(), "evil.db")
	writers := map[string]string{
		"delete.sql":      "DELETE FROM line_items",
		"delete_then.sql": "DELETE FROM line_items; SELECT 'x' AS resource_id, 'ok' AS status, 'r' AS reason, NULL AS amount_at_risk, '' AS line_item_ids",
		"pragma.sql":      "PRAGMA query_only = OFF; DELETE FROM line_items",
		"update.sql":      "UPDATE line_items SET billed_cost = '0' RETURNING 'x' AS resource_id, 'ok' AS status, 'r' AS reason, NULL AS amount_at_risk, '' AS line_item_ids",
		"drop.sql":        "DROP VIEW v_line_items",
		"create.sql":      "CREATE TABLE mine(x)",
		"attach.sql":      "ATTACH DATABASE '" + outside + "' AS evil",
		"insert.sql":      "INSERT INTO findings(fingerprint) VALUES ('x')",
	}
	dir := writeRules(t, writers)
	before := ledgerState(t, db)
	res, err := Audit(context.Background(), db, "2026-10", userOnly(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, w := range res.Warnings {
		got[filepath.Base(w.File)] = w.Error()
	}
	for name := range writers {
		if msg := got[name]; !strings.Contains(msg, "refused: user rules may only read") {
			t.Errorf("%s: got warning %q, want it refused as a write", name, msg)
		}
	}
	if len(res.Findings) != 0 {
		t.Errorf("got %d findings, want none", len(res.Findings))
	}
	if after := ledgerState(t, db); after != before {
		t.Errorf("the ledger changed:\nbefore %s\nafter  %s", before, after)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("ATTACH created %s", outside)
	}
	// the read-only handle itself: a write fails even without the authorizer's help
	ro, err := ledger.OpenReadOnly(context.Background(), db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.SQL().Exec(`DELETE FROM line_items`); err == nil {
		t.Errorf("DELETE on the read-only handle: got no error")
	}
}

func TestLoadUserRules(t *testing.T) {
	dir := writeRules(t, map[string]string{
		"b.sql":       "-- Storage over 30 days\n-- Disks kept a long time.\n\nSELECT 1",
		"a.sql":       "SELECT 2",
		".hidden.sql": "SELECT 3",
		"c.sql.off":   "SELECT 4",
		"d.sql":       "   \n-- only a comment\n",
	})
	if err := os.Mkdir(filepath.Join(dir, "sub.sql"), 0o755); err != nil {
		t.Fatal(err)
	}
	rs, warns, err := LoadUserRules(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); got != "user.a,user.b" {
		t.Errorf("got rules %s, want user.a,user.b", got)
	}
	if len(rs) == 2 && (rs[1].Title != "Storage over 30 days" || rs[1].Description != "Disks kept a long time." || len(rs[1].SHA256) != 64) {
		t.Errorf("b.sql: got title %q description %q sha %q", rs[1].Title, rs[1].Description, rs[1].SHA256)
	}
	if len(warns) != 1 || !strings.Contains(warns[0].Error(), "d.sql") {
		t.Errorf("got warnings %v, want one for d.sql", warns)
	}
	if _, _, err := LoadUserRules(filepath.Join(dir, "nope")); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing folder: got error %v, want one naming it", err)
	}
}

// TestDocExamples runs the two example rules of docs/user-rules.md, so that
// the documentation stays true.
func TestDocExamples(t *testing.T) {
	b, err := os.ReadFile("../docs/user-rules.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, part := range strings.Split(string(b), "```sql\n")[1:] {
		blocks = append(blocks, part[:strings.Index(part, "```")])
	}
	if len(blocks) != 2 {
		t.Fatalf("got %d SQL examples in docs/user-rules.md, want 2", len(blocks))
	}
	items := []ledger.LineItem{
		item(t, "autodl", compute, "inst-1", "2026-10-04 09:00", "2026-10-04 10:00", "120.50"),
		item(t, "autodl", compute, "inst-1", "2026-10-04 10:00", "2026-10-04 11:00", "99.99"),
	}
	// a disk billed daily from 2026-09-06 to 2026-10-05: 30 days; another for 29
	for d := 0; d < 30; d++ {
		day := at(t, "2026-09-06 00:00").AddDate(0, 0, d)
		items = append(items, item(t, "gpushare", ledger.KindStorage, "disk-old", day.Format("2006-01-02 15:04"),
			day.AddDate(0, 0, 1).Format("2006-01-02 15:04"), "0.50"))
		if d > 0 {
			items = append(items, item(t, "gpushare", ledger.KindStorage, "disk-new", day.Format("2006-01-02 15:04"),
				day.AddDate(0, 0, 1).Format("2006-01-02 15:04"), "0.40"))
		}
	}
	db := newLedger(t, items)
	dir := writeRules(t, map[string]string{"big_charge.sql": blocks[0], "old_storage.sql": blocks[1]})
	res, err := Audit(context.Background(), db, "2026-10", userOnly(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) > 0 {
		t.Fatalf("got warnings %v", res.Warnings)
	}
	checkFindings(t, res.Findings, []want{
		{rule: "user.big_charge", resource: "inst-1", amount: "120.5", severity: "medium", evidence: 1},
		{rule: "user.old_storage", resource: "disk-old", amount: "2.5", severity: "info", evidence: 5},
	})
	if len(res.Findings) == 2 && !strings.Contains(res.Findings[1].ReasonEN, "30 days") {
		t.Errorf("old_storage: got reason %q, want the 30 days", res.Findings[1].ReasonEN)
	}
}

// TestUserRuleBounds: a user rule returning more rows, or more bytes, than
// a rule may fails with a warning naming it and the limit, and keeps no
// finding; the other rules' findings stand.
func TestUserRuleBounds(t *testing.T) {
	db := userLedger(t)
	rows, bytes := userRuleMaxRows, userRuleMaxBytes
	t.Cleanup(func() { userRuleMaxRows, userRuleMaxBytes = rows, bytes })
	userRuleMaxRows, userRuleMaxBytes = 1000, 1<<20
	dir := writeRules(t, map[string]string{
		"many.sql": `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000)
			SELECT 'r' || x AS resource_id, 'alarm' AS status, 'r' AS reason, NULL AS amount_at_risk, '' AS line_item_ids FROM c`,
		"wide.sql": `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100)
			SELECT 'w' || x AS resource_id, 'alarm' AS status, printf('%.*c', 100000, 'x') AS reason, NULL AS amount_at_risk, '' AS line_item_ids FROM c`,
		"big_charge.sql": bigChargeSQL,
	})
	res, err := Audit(context.Background(), db, "2026-10", userOnly(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range res.Warnings {
		got = append(got, w.Error())
	}
	all := strings.Join(got, "\n")
	if len(got) != 2 || !strings.Contains(all, "many.sql") || !strings.Contains(all, "more than 1000 rows") ||
		!strings.Contains(all, "wide.sql") || !strings.Contains(all, "more than 1 MB") {
		t.Errorf("got warnings:\n%s\nwant many.sql over 1000 rows and wide.sql over 1 MB", all)
	}
	checkFindings(t, res.Findings, []want{{rule: "user.big_charge", resource: "inst-1", amount: "120.5", severity: "medium", evidence: 1}})
}

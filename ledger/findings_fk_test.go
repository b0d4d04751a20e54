package ledger

import (
	"context"
	"strings"
	"testing"
)

// An audit's writes check foreign keys: evidence of a finding the run did
// not store is refused, and the run leaves foreign_key_check clean.
func TestAuditWritesCheckForeignKeys(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	w, err := db.BeginAudit(ctx, "2026-10", "Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	err = insertEvidence(ctx, w.tx, []Finding{{ID: 999, Evidence: []Evidence{{LineItemID: 1, File: "a.csv", Row: 2}}}})
	if err == nil || !strings.Contains(err.Error(), "FOREIGN KEY") {
		t.Errorf("evidence of a finding not stored: err %v, want a foreign key error", err)
	}
	w.Rollback()

	fs := []Finding{{Fingerprint: "f1", RuleID: "egress", Severity: SeverityLow, Provider: "aliyun", Currency: "CNY",
		ReasonZH: "z", ReasonEN: "e", Evidence: []Evidence{{LineItemID: 1, File: "a.csv", Row: 2}}}}
	for range 2 { // stored, then replaced by a second run
		if _, err := db.SaveAudit(ctx, "2026-10", "Asia/Shanghai", "{}", fs); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SaveAudit(ctx, "2026-10", "Asia/Shanghai", "{}", nil); err != nil { // prunes it
		t.Fatal(err)
	}
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM pragma_foreign_key_check) + (SELECT count(*) FROM finding_evidence)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("after pruning: %d foreign key violations and evidence rows, want 0", n)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gpubillRun runs the command line in this process and returns its
// standard output, failing the test on an exit code other than 0.
func gpubillRun(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("gpubill %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// The audit prints its findings from memory (reports.RunFindings), not as
// report findings reads them back: every format, in both languages and
// another zone, must print the same bytes as report findings right after.
// On the demo's bills, then with a finding acknowledged and another
// resolved whose line items an undone import took away (kept from the
// earlier run, their evidence without costs), then with a setting that
// drops findings (pruned).
func TestAuditPrintsWhatReportFindingsReads(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ledger.db")
	gpubillRun(t, "--db", db, "import", demoDir)
	type variant struct{ format, lang, tz string }
	variants := []variant{{"json", "en", ""}, {"json", "zh", "UTC"}, {"table", "en", ""}, {"table", "zh", ""},
		{"md", "zh", ""}, {"csv", "en", "UTC"}, {"tsv", "zh", ""}, {"html", "en", ""}}
	same := func(step string, extra ...string) string {
		t.Helper()
		var auditJSON string
		for _, v := range variants {
			common := []string{"--db", db, "--month", "2026-10", "--format", v.format, "--lang", v.lang}
			if v.tz != "" {
				common = append(common, "--tz", v.tz)
			}
			audit := gpubillRun(t, append(append([]string{"audit"}, common...), extra...)...)
			report := gpubillRun(t, append([]string{"report", "findings"}, common...)...)
			if audit != report {
				a, r := strings.Split(audit, "\n"), strings.Split(report, "\n")
				for i := 0; i < len(a) && i < len(r); i++ {
					if a[i] != r[i] {
						t.Fatalf("%s, %+v: audit and report findings differ at line %d:\n audit  %s\n report %s", step, v, i+1, a[i], r[i])
					}
				}
				t.Fatalf("%s, %+v: audit prints %d lines, report findings %d", step, v, len(a), len(r))
			}
			if len(audit) < 200 {
				t.Fatalf("%s, %+v: too little to compare:\n%s", step, v, audit)
			}
			if v.format == "json" && v.tz == "" {
				auditJSON = audit
			}
		}
		return auditJSON
	}

	type findingsJSON struct {
		Findings []struct {
			Fingerprint string `json:"fingerprint"`
			State       string `json:"state"`
			Evidence    []struct {
				File string `json:"file"`
			} `json:"evidence"`
		} `json:"findings"`
	}
	var first findingsJSON
	if err := json.Unmarshal([]byte(same("first audit")), &first); err != nil {
		t.Fatal(err)
	}
	// Acknowledge and resolve two findings of one file, then take that
	// file's line items away: the rerun no longer produces them.
	file := first.Findings[0].Evidence[0].File
	var ofFile []string
	for _, f := range first.Findings {
		if len(f.Evidence) > 0 && f.Evidence[0].File == file {
			ofFile = append(ofFile, f.Fingerprint)
		}
	}
	if len(ofFile) < 2 {
		t.Fatalf("the demo has %d findings citing %s first, want 2", len(ofFile), file)
	}
	gpubillRun(t, "--db", db, "audit", "ack", ofFile[0])
	gpubillRun(t, "--db", db, "audit", "resolve", ofFile[1])
	var imports struct {
		Imports []struct {
			ID   int64  `json:"id"`
			Path string `json:"path"`
		} `json:"imports"`
	}
	if err := json.Unmarshal([]byte(gpubillRun(t, "--db", db, "imports", "--format", "json")), &imports); err != nil {
		t.Fatal(err)
	}
	undone := false
	for _, im := range imports.Imports {
		if im.Path == file {
			gpubillRun(t, "--db", db, "imports", "undo", strconv.FormatInt(im.ID, 10))
			undone = true
		}
	}
	if !undone {
		t.Fatalf("no import of %s", file)
	}
	var second findingsJSON
	if err := json.Unmarshal([]byte(same("after an undone import")), &second); err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, f := range second.Findings {
		states[f.Fingerprint] = f.State
	}
	if states[ofFile[0]] != "acknowledged" || states[ofFile[1]] != "resolved" {
		t.Fatalf("after the undo, the acknowledged and resolved findings are %q and %q", states[ofFile[0]], states[ofFile[1]])
	}
	if len(second.Findings) >= len(first.Findings) {
		t.Fatalf("the undo took no finding away: %d findings, %d before", len(second.Findings), len(first.Findings))
	}
	same("with a setting that drops findings", "--set", "forgotten_instance.limit=48h")

	// A user rule's evidence carries no billed cost: it is looked up.
	rules := filepath.Join(t.TempDir(), "rules")
	if err := os.MkdirAll(rules, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rules, "big_charge.sql"), []byte(`-- Any charge above ¥1
SELECT resource_id, 'alarm' AS status, 'big charge' AS reason, billed_cost AS amount_at_risk,
       CAST(id AS TEXT) AS line_item_ids
FROM v_line_items WHERE billing_period = :month AND CAST(billed_cost AS REAL) > 1
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := same("with a user rule", "--rules-dir", rules); !strings.Contains(out, `"rule_id": "user.big_charge"`) {
		t.Fatal("the user rule found nothing")
	}
}

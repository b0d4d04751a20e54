package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// ledgerAtVersion creates a ledger at path with the migrations up to
// version only, as an older gpubill left it, and returns it opened without
// Open (which would migrate it).
func ledgerAtVersion(t *testing.T, path string, version int) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.version > version {
			break
		}
		if _, err := raw.Exec(m.sql); err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec(`INSERT INTO schema_migrations VALUES (?, ?, 'x')`, m.version, m.name); err != nil {
			t.Fatal(err)
		}
	}
	return raw
}

// evidenceRows reads v_finding_evidence as "fingerprint id file:row" lines,
// sorted.
func evidenceRows(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT fingerprint, line_item_id, file, row, typeof(line_item_id), typeof(row)
		FROM v_finding_evidence ORDER BY fingerprint, file, row, line_item_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var fp, file, tid, trow string
		var id, row int64
		if err := rows.Scan(&fp, &id, &file, &row, &tid, &trow); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d %s:%d %s/%s", fp, id, file, row, tid, trow))
	}
	return out
}

// Migration 0008 turns the evidence rows of a ledger into lists per
// finding and file; the views and DB.Findings read them back as they were.
func TestMigrationListsEvidence(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	raw := ledgerAtVersion(t, path, 7)
	for _, s := range []string{
		`INSERT INTO imports(id, path, sha256, size, format, started_at, status) VALUES
			(1, 'a.csv', 'aa', 1, 'gpubill-bill', 'x', 'ok'), (2, 'b.csv', 'bb', 1, 'gpubill-bill', 'x', 'ok')`,
		`INSERT INTO line_items(id, provider, billing_period, charge_period_start, charge_period_end, charge_category, kind,
			billed_cost, currency, import_id, source_row, row_key) VALUES
			(1, 'autodl', '2026-10', '2026-10-01T00:00:00Z', '2026-10-01T01:00:00Z', 'Usage', 'compute', '1.10', 'CNY', 1, 5, 'k1'),
			(2, 'autodl', '2026-10', '2026-10-01T01:00:00Z', '2026-10-01T02:00:00Z', 'Usage', 'compute', '2.20', 'CNY', 1, 3, 'k2'),
			(3, 'autodl', '2026-10', '2026-10-01T02:00:00Z', '2026-10-01T03:00:00Z', 'Usage', 'storage', '0.0066', 'CNY', 2, 1, 'k3')`,
		`INSERT INTO audit_runs(id, started_at, month, tz) VALUES (1, 'x', '2026-10', 'Asia/Shanghai')`,
		`INSERT INTO findings(id, fingerprint, run_id, first_run_id, month, rule_id, severity, provider, period_start, period_end,
			currency, reason_zh, reason_en) VALUES
			(1, 'fp1', 1, 1, '2026-10', 'forgotten_instance', 'high', 'autodl', '2026-10-01T00:00:00Z', '2026-10-02T00:00:00Z', 'CNY', '忘关', 'forgotten'),
			(2, 'fp2', 1, 1, '2026-10', 'stopped_storage', 'low', 'autodl', '2026-10-01T00:00:00Z', '2026-10-02T00:00:00Z', 'CNY', '关机存储', 'stopped'),
			(3, 'fp3', 1, 1, '2026-10', 'seat_fee', 'low', 'autodl', '2026-10-01T00:00:00Z', '2026-10-02T00:00:00Z', 'CNY', '无证据', 'no evidence')`,
		// Item 9 is gone (an undone import): its evidence stays.
		`INSERT INTO finding_evidence(finding_id, line_item_id, file, row) VALUES
			(1, 1, 'a.csv', 5), (1, 2, 'a.csv', 3), (1, 3, 'b.csv', 1), (1, 9, 'a.csv', 4), (2, 3, 'b.csv', 1)`,
	} {
		if _, err := raw.Exec(s); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
	before := evidenceRows(t, raw)
	if len(before) != 5 {
		t.Fatalf("fixture: %d evidence rows, want 5", len(before))
	}
	raw.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if after := evidenceRows(t, db.SQL()); !reflect.DeepEqual(after, before) {
		t.Errorf("v_finding_evidence after the migration:\n%s\nbefore:\n%s", strings.Join(after, "\n"), strings.Join(before, "\n"))
	}
	var lists []string
	rows, err := db.SQL().Query(`SELECT finding_id || ' ' || file || ' ' || items FROM finding_evidence ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		lists = append(lists, s)
	}
	rows.Close()
	if want := []string{"1 a.csv [[2,3],[9,4],[1,5]]", "1 b.csv [[3,1]]", "2 b.csv [[3,1]]"}; !reflect.DeepEqual(lists, want) {
		t.Errorf("stored lists %q, want %q", lists, want)
	}
	counts := map[string]int{}
	rows, err = db.SQL().Query(`SELECT fingerprint, evidence_count FROM v_findings`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var fp string
		var n int
		rows.Scan(&fp, &n)
		counts[fp] = n
	}
	rows.Close()
	if want := map[string]int{"fp1": 4, "fp2": 1, "fp3": 0}; !reflect.DeepEqual(counts, want) {
		t.Errorf("evidence_count %v, want %v", counts, want)
	}
	fs, err := db.Findings(ctx, "2026-10")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range fs {
		got[f.Fingerprint] = evidenceText(f.Evidence)
	}
	want := map[string]string{
		"fp1": "a.csv:3#2=2.2 a.csv:4#9=? a.csv:5#1=1.1 b.csv:1#3=0.0066",
		"fp2": "b.csv:1#3=0.0066",
		"fp3": "",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DB.Findings evidence %q, want %q", got, want)
	}
}

// evidenceText renders evidence as "file:row#id=cost" (cost "?" when the
// line item is gone).
func evidenceText(ev []Evidence) string {
	var parts []string
	for _, e := range ev {
		cost := "?"
		if e.BilledCost.Valid {
			cost = e.BilledCost.Decimal.String()
		}
		parts = append(parts, fmt.Sprintf("%s:%d#%d=%s", e.File, e.Row, e.LineItemID, cost))
	}
	return strings.Join(parts, " ")
}

// SaveAudit stores evidence given in any order, a line item cited twice
// once, and DB.Findings reads it back ordered, with the billed costs, also
// for more line items than one look-up statement binds.
func TestEvidenceRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	var items []LineItem
	n := 2*byIDChunk + 7
	for i := range n {
		items = append(items, item(fmt.Sprintf("k%d", i), fmt.Sprintf("%d.5", i)))
		items[i].SourceRow = i + 1
	}
	if got := importItems(t, db, items); got != n {
		t.Fatalf("imported %d, want %d", got, n)
	}
	big := Finding{Fingerprint: "big", RuleID: "forgotten_instance", Severity: "high", Provider: "autodl", Currency: "CNY",
		PeriodStart: time.Unix(0, 0), PeriodEnd: time.Unix(3600, 0), ReasonZH: "z", ReasonEN: "e"}
	for i := n - 1; i >= 0; i-- { // backwards, in two files
		file := "x.csv"
		if i%3 == 0 {
			file = "y.csv"
		}
		big.Evidence = append(big.Evidence, Evidence{LineItemID: int64(i + 1), File: file, Row: i + 1})
	}
	small := big
	small.Fingerprint = "small"
	small.Evidence = []Evidence{{LineItemID: 2, File: "x.csv", Row: 2}, {LineItemID: 99999, File: "x.csv", Row: 1},
		{LineItemID: 2, File: "x.csv", Row: 2}}
	if _, err := db.SaveAudit(ctx, "2026-10", "UTC", "{}", []Finding{big, small}); err != nil {
		t.Fatal(err)
	}
	fs, err := db.Findings(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 {
		t.Fatalf("got %d findings, want 2", len(fs))
	}
	for _, f := range fs {
		var want []string
		switch f.Fingerprint {
		case "big":
			for _, file := range []string{"x.csv", "y.csv"} {
				for i := range n {
					if (i%3 == 0) == (file == "y.csv") {
						want = append(want, fmt.Sprintf("%s:%d#%d=%d.5", file, i+1, i+1, i))
					}
				}
			}
		case "small":
			want = []string{"x.csv:1#99999=?", "x.csv:2#2=1.5"}
		}
		if got := evidenceText(f.Evidence); got != strings.Join(want, " ") {
			t.Errorf("%s: evidence\n%.300s\nwant\n%.300s", f.Fingerprint, got, strings.Join(want, " "))
		}
	}
}

func TestParseEvidenceList(t *testing.T) {
	for _, tt := range []struct {
		in, want string // want: "file:row#id …" or "error"
	}{
		{"[]", ""},
		{" [ [1,2] , [3 ,4]] ", "f:2#1 f:4#3"},
		{"[[12345678901,7]]", "f:7#12345678901"},
		{"[[-1,0]]", "f:0#-1"},
		{"", "error"},
		{"[", "error"},
		{"[[1,2]", "error"},
		{"[[1,2],]", "error"},
		{"[[1]]", "error"},
		{"[[1,2,3]]", "error"},
		{"[[1,2]] x", "error"},
		{`[["1",2]]`, "error"},
		{"[[99999999999999999999,1]]", "error"},
		{"[[1.5,2]]", "error"},
	} {
		ev, err := parseEvidenceList([]byte(tt.in), "f", nil)
		got := "error"
		if err == nil {
			var parts []string
			for _, e := range ev {
				parts = append(parts, fmt.Sprintf("%s:%d#%d", e.File, e.Row, e.LineItemID))
			}
			got = strings.Join(parts, " ")
		} else if !strings.HasPrefix(err.Error(), "stored evidence list: ") {
			t.Errorf("%q: error %q does not say what it read", tt.in, err)
		}
		if got != tt.want {
			t.Errorf("parseEvidenceList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzParseEvidenceList: a stored list (a ledger may be edited by hand)
// never panics the reader, and what it accepts it reads back the same once
// written as insertEvidence writes it.
func FuzzParseEvidenceList(f *testing.F) {
	for _, s := range []string{"[]", "[[1,2],[3,4]]", " [ [1 , 2 ] ] ", "[[1,2],", "[[-9223372036854775808,1]]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := parseEvidenceList(b, "f", nil)
		if err != nil {
			return
		}
		var sb strings.Builder
		sb.WriteByte('[')
		for i, e := range ev {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "[%d,%d]", e.LineItemID, e.Row)
		}
		sb.WriteByte(']')
		again, err := parseEvidenceList([]byte(sb.String()), "f", nil)
		if err != nil || !reflect.DeepEqual(again, ev) {
			t.Fatalf("%q read as %v, written as %s, read back as %v (%v)", b, ev, sb.String(), again, err)
		}
	})
}

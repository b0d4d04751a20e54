package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportRoundTrip exports the demo and testdata/scenario as FOCUS CSV
// and Parquet, imports the export into a fresh ledger, audits it, and
// compares every report with the original ledger's (docs/export.md, "Round
// trip"): byte for byte, except the evidence, which names the export's
// file, row and line item ids, and the instances report of a ledger whose
// monthly bills covered the month beyond its last charges (scenario).
func TestExportRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("imports the demo and the scenario four times")
	}
	scenario, _ := filepath.Glob("../../testdata/scenario/2026-10/*.csv") // not its expected.json
	for _, src := range []struct {
		name      string
		files     []string
		instances bool // the instances report is identical too
	}{{"demo", []string{demoDir}, true}, {"scenario", scenario, false}} {
		for _, format := range []string{"focus-csv", "focus-parquet"} {
			t.Run(src.name+"/"+format, func(t *testing.T) {
				dir := t.TempDir()
				a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
				out := filepath.Join(dir, "lake")
				cli(t, append([]string{"--db", a, "import"}, src.files...)...)
				cli(t, "--db", a, "audit", "--month", "2026-10")
				cli(t, "--db", a, "export", "--format", format, "--month", "2026-10", "-o", out)
				cli(t, "--db", b, "import", out)
				cli(t, "--db", b, "audit", "--month", "2026-10")
				same := [][]string{
					{"report", "spend", "--format", "json"},
					{"report", "spend", "--by", "provider,kind,resource"},
					{"report", "whatif"},
					{"report", "gpuhour"},
				}
				if src.instances {
					same = append(same, []string{"report", "instances"})
				}
				for _, args := range same {
					args = append([]string{"--month", "2026-10"}, args...)
					if got, want := cli(t, append([]string{"--db", b}, args...)...), cli(t, append([]string{"--db", a}, args...)...); got != want {
						t.Errorf("%s: the round trip changed the output:\ngot\n%s\nwant\n%s", strings.Join(args, " "), got, want)
					}
				}
				for _, args := range [][]string{{"audit", "--format", "json"}, {"report", "findings", "--format", "json"}} {
					args = append([]string{"--month", "2026-10"}, args...)
					got := withoutEvidence(t, cli(t, append([]string{"--db", b}, args...)...))
					want := withoutEvidence(t, cli(t, append([]string{"--db", a}, args...)...))
					if got != want {
						t.Errorf("%s: the round trip changed the findings:\ngot\n%s\nwant\n%s", strings.Join(args, " "), got, want)
					}
					if !strings.Contains(want, "fingerprint") {
						t.Fatalf("%s: no findings to compare", strings.Join(args, " "))
					}
				}
			})
		}
	}
}

// cli runs gpubill in-process and returns its stdout; it fails the test
// on a non-zero exit.
func cli(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append([]string{"--lang", "en", "--tz", "Asia/Shanghai"}, args...), os.Stdin, &stdout, &stderr); code != 0 {
		t.Fatalf("gpubill %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

// withoutEvidence is findings JSON with each finding's evidence replaced by
// its number of rows (the rows themselves name the imported file).
func withoutEvidence(t *testing.T, s string) string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
	fs, _ := doc["findings"].([]any)
	for _, f := range fs {
		m := f.(map[string]any)
		ev, _ := m["evidence"].([]any)
		m["evidence"] = len(ev)
	}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

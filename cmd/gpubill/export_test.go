package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/ledger"
)

// TestExportRoundTrip exports the demo and testdata/scenario as FOCUS CSV
// and Parquet, imports the export into a fresh ledger, audits it, and
// compares every report and the audit with the original ledger's
// (docs/export.md, "Round trip").
//   - The text outputs that name no line (spend, whatif, gpuhour,
//     instances) are byte-identical.
//   - Every report's JSON and the audit's are identical once the lines are
//     named the same way: each line item id of the fresh ledger is mapped
//     to the original's through their shared dedupe key (x_RowKey), and the
//     evidence's file and row, which name the export's file, are dropped.
//   - Money flow (top-ups, the balance) is no line item and is not
//     exported: the fresh ledger imports the same money-flow files, and
//     reconcile is then byte-identical too.
//   - Refunds' ticket texts (compared apart, refundTickets) and the
//     findings report's rows cite the vendor's file, sheet, rows and ids
//     (交易ID, 订单号/交易号 …), and say which rows are the gpubill bill
//     template, from the export's x_Source columns.
func TestExportRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("imports the demo and the scenario four times")
	}
	scenario, _ := filepath.Glob("../../testdata/scenario/2026-10/*.csv") // not its expected.json
	for _, src := range []struct {
		name         string
		files, flows []string // flows: money-flow files, imported into both
	}{{"demo", []string{demoDir}, []string{filepath.Join(demoDir, "autodl-收支明细-2026-10.csv")}}, {"scenario", scenario, nil}} {
		for _, format := range []string{"focus-csv", "focus-parquet"} {
			t.Run(src.name+"/"+format, func(t *testing.T) {
				dir := t.TempDir()
				a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
				out := filepath.Join(dir, "lake")
				cli(t, append([]string{"--db", a, "import"}, src.files...)...)
				cli(t, "--db", a, "audit", "--month", "2026-10")
				cli(t, "--db", a, "export", "--format", format, "--month", "2026-10", "-o", out)
				cli(t, append([]string{"--db", b, "import", out}, src.flows...)...)
				cli(t, "--db", b, "audit", "--month", "2026-10")
				for _, args := range [][]string{
					{"report", "spend", "--format", "json"},
					{"report", "spend", "--by", "provider,kind,resource"},
					{"report", "whatif"},
					{"report", "gpuhour"},
					{"report", "instances"},
					{"report", "instances", "--format", "csv"},
					{"reconcile"},
				} {
					args = append([]string{"--month", "2026-10"}, args...)
					if got, want := cli(t, append([]string{"--db", b}, args...)...), cli(t, append([]string{"--db", a}, args...)...); got != want {
						t.Errorf("%s: the round trip changed the output:\ngot\n%s\nwant\n%s", strings.Join(args, " "), got, want)
					}
				}
				ids := originalIDs(t, a, b)
				for _, args := range [][]string{
					{"audit", "--format", "json"},
					{"report", "spend", "--format", "json"},
					{"report", "findings", "--format", "json"},
					{"report", "gpuhour", "--format", "json"},
					{"report", "instances", "--format", "json"},
					{"report", "refunds", "--format", "json"},
					{"report", "whatif", "--format", "json"},
					{"report", "replay", "--format", "json"},
				} {
					args = append([]string{"--month", "2026-10"}, args...)
					got := sameLines(t, cli(t, append([]string{"--db", b}, args...)...), ids)
					want := sameLines(t, cli(t, append([]string{"--db", a}, args...)...), nil)
					if got != want {
						t.Errorf("%s: the round trip changed the output:\ngot\n%s\nwant\n%s", strings.Join(args, " "), got, want)
					}
					if args[2] == "audit" && !strings.Contains(want, "fingerprint") {
						t.Fatalf("%s: no findings to compare", strings.Join(args, " "))
					}
				}
				refunds := []string{"--month", "2026-10", "report", "refunds", "--format", "json"}
				got := refundTickets(t, cli(t, append([]string{"--db", b}, refunds...)...))
				want := refundTickets(t, cli(t, append([]string{"--db", a}, refunds...)...))
				if len(want) == 0 {
					t.Fatal("report refunds: no tickets to compare")
				}
				if src.name == "scenario" && !slices.ContainsFunc(want, platformIDs.MatchString) {
					t.Fatal("report refunds: no ticket quotes a platform id")
				}
				if !slices.Equal(got, want) {
					t.Errorf("report refunds: the round trip changed the tickets:\ngot\n%s\nwant\n%s",
						strings.Join(got, "\n---\n"), strings.Join(want, "\n---\n"))
				}
				findings := []string{"--month", "2026-10", "--lang", "en", "report", "findings", "--format", "md"}
				gotMD := cli(t, append([]string{"--db", b}, findings...)...)
				wantMD := cli(t, append([]string{"--db", a}, findings...)...)
				if gotMD != wantMD {
					t.Errorf("report findings: the round trip changed the rows cited:\ngot\n%s\nwant\n%s", gotMD, wantMD)
				}
			})
		}
	}
}

// platformIDs is the platform ids a ticket quotes after its rows
// (reports.idsText) under the scenario's headers: "; 交易ID 1, 2".
var platformIDs = regexp.MustCompile(`(; |；)(交易ID|订单号/交易号) `)

// refundTickets is the ticket texts (zh, then en, per ticket) of a
// refunds report in JSON.
func refundTickets(t *testing.T, s string) []string {
	t.Helper()
	var doc struct {
		Platforms []struct {
			Tickets []struct {
				TextZH string `json:"text_zh"`
				TextEN string `json:"text_en"`
			} `json:"tickets"`
		} `json:"platforms"`
	}
	if err := json.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
	var out []string
	for _, p := range doc.Platforms {
		for _, tk := range p.Tickets {
			out = append(out, tk.TextZH, tk.TextEN)
		}
	}
	return out
}

// originalIDs maps the line item ids of ledger b, imported from an export
// of ledger a, to a's ids, through the dedupe key both keep.
func originalIDs(t *testing.T, a, b string) map[int64]int64 {
	t.Helper()
	keys := func(path string) map[string]int64 {
		db, err := ledger.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		out := map[string]int64{}
		if err := db.EachLineItem(context.Background(), ledger.Filter{}, ledger.Read{NoRaw: true}, func(li *ledger.LineItem) error {
			out[li.RowKey] = li.ID
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	ka, kb := keys(a), keys(b)
	ids := make(map[int64]int64, len(kb))
	for k, id := range kb {
		orig, ok := ka[k]
		if !ok {
			t.Fatalf("line item %d of the round trip has a dedupe key the original ledger lacks", id)
		}
		ids[id] = orig
	}
	return ids
}

// sameLines is a JSON output in a form that names lines as the original
// ledger does: line item ids mapped through ids (nil: kept), the
// evidence's file and row dropped, and refunds' ticket texts left out
// (see TestExportRoundTrip).
func sameLines(t *testing.T, s string, ids map[int64]int64) string {
	t.Helper()
	var doc any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
	mapID := func(v any) any {
		n, ok := v.(json.Number)
		if !ok || ids == nil {
			return v
		}
		id, err := n.Int64()
		if err != nil {
			t.Fatalf("line item id %v", v)
		}
		orig, ok := ids[id]
		if !ok {
			t.Fatalf("line item id %d is not in the round trip's ledger", id)
		}
		return orig
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range []string{"file", "row", "text_zh", "text_en"} {
				delete(x, k)
			}
			for k, e := range x {
				switch k {
				case "line_item_id":
					x[k] = mapID(e)
				case "line_item_ids":
					l, _ := e.([]any)
					for i := range l {
						l[i] = mapID(l[i])
					}
				default:
					x[k] = walk(e)
				}
			}
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		}
		return v
	}
	b, err := json.MarshalIndent(walk(doc), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
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

package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Bill cells that would be markup in a Markdown viewer: HTML that runs
// script, a javascript: link, emphasis.
const (
	mdIDPayload   = "<img src=x onerror=alert(1)>``"
	mdNamePayload = "<script>alert(2)</script>*n*_```"
	mdDescPayload = ` <img src=y onerror=alert(3)> [x](javascript:alert(4)) <b>b</b> ![t](http://t.invalid/p.png)`
)

// TestMarkdownEscapesBillText (issue 33): the scenario with HTML, links
// and emphasis in every id, name, account and description cell, and a user
// rule whose error quotes a bill cell. Every --format md output (reports,
// refund tickets, audit with its warnings, reconcile, import, imports)
// must carry that text only escaped, or literal inside a code span or
// fence: no tag, link or image in the prose.
func TestMarkdownEscapesBillText(t *testing.T) {
	if testing.Short() {
		t.Skip("imports the scenario and writes every markdown output")
	}
	dir := t.TempDir()
	files := hostileScenario(t, dir)
	rulesDir := filepath.Join(dir, "rules")
	if err := os.Mkdir(rulesDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The status column takes a bill cell, so the rule's warning quotes it.
	rule := "SELECT resource_id, resource_name AS status, 'x' AS reason, '1' AS amount_at_risk,\n" +
		"CAST(id AS TEXT) AS line_item_ids FROM line_items WHERE resource_name LIKE '<script>%' LIMIT 1\n"
	if err := os.WriteFile(filepath.Join(rulesDir, "cell_status.sql"), []byte(rule), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "ledger.db")
	cli := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(t.Context(), append([]string{"--db", db}, args...), nil, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	outputs := map[string]string{"import": cli(append([]string{"import", "--format", "md"}, files...)...)}
	for _, lang := range []string{"en", "zh"} {
		outputs["audit "+lang] = cli("audit", "--month", "2026-10", "--rules-dir", rulesDir, "--format", "md", "--lang", lang)
		for _, r := range []string{"spend", "findings", "gpuhour", "instances", "refunds", "whatif", "replay"} {
			outputs[r+" "+lang] = cli("report", r, "--month", "2026-10", "--format", "md", "--lang", lang)
		}
		outputs["reconcile "+lang] = cli("reconcile", "--month", "2026-10", "--format", "md", "--lang", lang)
	}
	outputs["imports"] = cli("imports", "--format", "md")
	for _, want := range []string{"audit en", "findings zh", "refunds en", "instances en"} {
		if !strings.Contains(outputs[want], "onerror") {
			t.Fatalf("%s: the hostile cells are not in the output, so it tests nothing:\n%s", want, outputs[want])
		}
	}
	if !strings.Contains(outputs["audit en"], "cell_status.sql") {
		t.Fatalf("audit: the user rule's warning is missing:\n%s", outputs["audit en"])
	}
	for name, md := range outputs {
		for _, bad := range markupInProse(md) {
			t.Errorf("%s: markup in the prose: %s", name, bad)
		}
	}
}

// hostileScenario writes testdata/scenario's bills to dir with the
// payloads above added to their id, name, account and description cells,
// and returns the paths.
func hostileScenario(t *testing.T, dir string) []string {
	t.Helper()
	ids := map[string]bool{"实例ID": true, "资源ID": true, "ResourceId": true, "所属实例": true}
	names := map[string]bool{"实例名称": true, "实例昵称": true, "资源名称": true, "项目名称": true, "账号": true}
	descs := map[string]bool{"说明": true, "ChargeDescription": true, "产品明细": true, "配置": true, "规格": true, "组件名称": true}
	src, _ := filepath.Glob("../../testdata/scenario/2026-10/*.csv")
	if len(src) == 0 {
		t.Fatal("no scenario bills")
	}
	var out []string
	for _, f := range src {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bom := bytes.HasPrefix(b, []byte("\ufeff"))
		text := strings.TrimPrefix(string(b), "\ufeff")
		var title string
		// The template files start with a title line before the header.
		if first, rest, ok := strings.Cut(text, "\n"); ok && strings.Count(first, ",") < 3 {
			title, text = first+"\n", rest
		}
		rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, r := range rows[1:] {
			for i, h := range rows[0] {
				if i >= len(r) || r[i] == "" || r[i] == "-" || r[i] == "--" {
					continue
				}
				switch {
				case ids[h]:
					r[i] += mdIDPayload
				case names[h]:
					r[i] = mdNamePayload + r[i]
				case descs[h]:
					r[i] += mdDescPayload
				}
			}
		}
		var buf bytes.Buffer
		if bom {
			buf.WriteString("\ufeff")
		}
		buf.WriteString(title)
		w := csv.NewWriter(&buf)
		if err := w.WriteAll(rows); err != nil {
			t.Fatal(err)
		}
		// The payload in the file name too: import and imports print it.
		path := filepath.Join(dir, strings.TrimSuffix(filepath.Base(f), ".csv")+"<img src=z onerror=alert(5)>.csv")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, path)
	}
	return out
}

var (
	fenceLine = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	// An HTML tag, comment or declaration; a link or image "](".
	markup = regexp.MustCompile(`<[/!?]?[A-Za-z]|\]\(`)
)

// markupInProse returns the lines of md holding raw markup outside fenced
// blocks and code spans, after backslash escapes.
func markupInProse(md string) []string {
	var bad []string
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		if fence != "" {
			if strings.TrimSpace(line) == fence {
				fence = ""
			}
			continue
		}
		if m := fenceLine.FindStringSubmatch(line); m != nil {
			fence = m[1]
			continue
		}
		if markup.MatchString(withoutCode(line)) {
			bad = append(bad, line)
		}
	}
	return bad
}

// withoutCode blanks a line's backslash escapes and code spans (a run of
// backticks up to the next run of the same length), as CommonMark reads
// them.
func withoutCode(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == '\\' && i+1 < len(line):
			b.WriteString("  ")
			i += 2
		case c == '`':
			j := i
			for j < len(line) && line[j] == '`' {
				j++
			}
			run := j - i
			end := -1
			for k := j; k < len(line); {
				if line[k] != '`' {
					k++
					continue
				}
				l := k
				for l < len(line) && line[l] == '`' {
					l++
				}
				if l-k == run {
					end = l
					break
				}
				k = l
			}
			if end < 0 { // no closing run: the backticks are literal
				b.WriteString(line[i:j])
				i = j
				continue
			}
			b.WriteString(" ")
			i = end
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

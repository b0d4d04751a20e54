package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// sampleFindings stores an audit of 2026-10 over the sample ledger and
// returns the findings as saved.
func sampleFindings(t *testing.T, s *sample) []ledger.Finding {
	t.Helper()
	ev := func(li ledger.LineItem) ledger.Evidence {
		return ledger.Evidence{LineItemID: li.ID, File: li.File, Row: li.SourceRow}
	}
	compute := s.item(t, "c7b24f3a9e", ledger.KindCompute)
	storage := s.item(t, "c7b24f3a9e", ledger.KindStorage)
	disk := s.item(t, "disk-2", ledger.KindStorage)
	egress := s.item(t, "i-bp1xyz", ledger.KindNetwork)
	var many []ledger.Evidence
	for i := range 7 {
		many = append(many, ledger.Evidence{LineItemID: int64(9001 + i), File: "bills/focus.csv", Row: 10 + i})
	}
	fs := []ledger.Finding{
		{Fingerprint: "fp-stopped", RuleID: "stopped_storage", Severity: ledger.SeverityHigh, Provider: "autodl",
			ResourceID: "c7b24f3a9e", PeriodStart: storage.ChargePeriodStart, PeriodEnd: storage.ChargePeriodEnd,
			AmountAtRisk: nd(t, "0.12345678"), Currency: "CNY",
			ReasonZH: "实例关机期间仍收取系统盘费用", ReasonEN: "system disk billed while the instance was stopped",
			AdviceZH: "释放不用的数据盘", AdviceEN: "release disks you no longer need", Evidence: []ledger.Evidence{ev(storage)}},
		{Fingerprint: "fp-unclassified", RuleID: "unclassified_charge", Severity: ledger.SeverityLow, Provider: "autodl",
			ResourceID: "c7b24f3a9e", PeriodStart: storage.ChargePeriodStart, PeriodEnd: disk.ChargePeriodEnd,
			AmountAtRisk: nd(t, "1.62345678"), Currency: "CNY",
			ReasonZH: "费用类型不明", ReasonEN: "charge of unknown kind", Evidence: []ledger.Evidence{ev(storage), ev(disk)}},
		{Fingerprint: "fp-forgotten", RuleID: "forgotten_instance", Severity: ledger.SeverityMedium, Provider: "autodl",
			ResourceID: "c7b24f3a9e", PeriodStart: compute.ChargePeriodStart, PeriodEnd: compute.ChargePeriodEnd,
			AmountAtRisk: nd(t, "3.76"), Currency: "CNY",
			ReasonZH: "实例连续运行 10 小时，跨越夜间", ReasonEN: "instance ran 10 hours, overnight",
			AdviceZH: "设置自动关机", AdviceEN: "set an automatic shutdown", Evidence: []ledger.Evidence{ev(compute)}},
		{Fingerprint: "fp-rounding", RuleID: "min_duration_rounding", Severity: ledger.SeverityLow, Provider: "autodl",
			ResourceID: "c7b24f3a9e", PeriodStart: compute.ChargePeriodStart, PeriodEnd: compute.ChargePeriodEnd,
			AmountAtRisk: nd(t, "0.5"), Currency: "CNY",
			ReasonZH: "按整小时计费", ReasonEN: "billed by the full hour", Evidence: []ledger.Evidence{ev(compute)}},
		{Fingerprint: "fp-release", RuleID: "release_risk", Severity: ledger.SeverityInfo, Provider: "aliyun",
			ResourceID: "i-bp1xyz", PeriodStart: bj("2026-10-31 00:00"), PeriodEnd: bj("2026-11-01 00:00"), Currency: "CNY",
			ReasonZH: "实例将于 2026-11-02 被释放", ReasonEN: "instance will be released on 2026-11-02"},
		{Fingerprint: "fp-egress", RuleID: "egress", Severity: ledger.SeverityMedium, Provider: "aliyun",
			ResourceID: "i-bp1xyz", PeriodStart: egress.ChargePeriodStart, PeriodEnd: egress.ChargePeriodEnd,
			AmountAtRisk: nd(t, "12.5"), Currency: "CNY",
			ReasonZH: "公网流量费 ¥12.50 超过 ¥10", ReasonEN: "egress of ¥12.50 is above ¥10",
			AdviceZH: "改用内网传输", AdviceEN: "move data over the internal network", Evidence: []ledger.Evidence{ev(egress)}},
		{Fingerprint: "fp-aws", RuleID: "forgotten_instance", Severity: ledger.SeverityHigh, Provider: "aws",
			ResourceID: "i-0abc", PeriodStart: bj("2026-10-05 08:00"), PeriodEnd: bj("2026-10-05 16:00"),
			AmountAtRisk: nd(t, "1"), Currency: "USD",
			ReasonZH: "=HYPERLINK(\"x\") 实例运行超过 8 小时", ReasonEN: "-instance ran more than 8 hours", Evidence: many},
	}
	if _, err := s.db.SaveAudit(context.Background(), "2026-10", "Asia/Shanghai", "{}", fs); err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestFindingsGolden(t *testing.T) {
	s := newSample(t)
	sampleFindings(t, s)
	rep, err := Findings(context.Background(), s.db, "2026-10")
	if err != nil {
		t.Fatal(err)
	}
	cases := append(formatCases[:len(formatCases):len(formatCases)],
		struct {
			name string
			opts WriteOptions
		}{"json_utc", WriteOptions{Format: FormatJSON, TZ: time.UTC}})
	for _, fc := range cases {
		t.Run(fc.name, func(t *testing.T) {
			checkGolden(t, fc.name, render(t, rep, fc.opts))
		})
	}

	// totals independent of the golden files: CNY = stopped 0.12345678 +
	// unclassified's unclaimed disk 1.5 + forgotten 3.76 + rounding 0 (its
	// line item is counted by the more severe forgotten_instance) + egress 12.5
	var doc struct {
		Findings []struct {
			PeriodStart string `json:"period_start"`
		} `json:"findings"`
		Totals []struct {
			Currency     string  `json:"currency"`
			AmountAtRisk *string `json:"amount_at_risk"`
			Count        int     `json:"count"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(render(t, rep, WriteOptions{Format: FormatJSON}), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		amount string
		count  int
	}{"CNY": {"17.88345678", 6}, "USD": {"1", 1}}
	if len(doc.Totals) != len(want) {
		t.Fatalf("totals: got %d want %d", len(doc.Totals), len(want))
	}
	for _, tot := range doc.Totals {
		w := want[tot.Currency]
		if tot.AmountAtRisk == nil || *tot.AmountAtRisk != w.amount || tot.Count != w.count {
			t.Errorf("%s total: got %v × %d want %s × %d", tot.Currency, tot.AmountAtRisk, tot.Count, w.amount, w.count)
		}
	}
	for _, f := range doc.Findings {
		if !strings.HasSuffix(f.PeriodStart, "+08:00") {
			t.Errorf("period_start %q: want RFC 3339 with the +08:00 offset of Asia/Shanghai", f.PeriodStart)
		}
	}
}

// TestFindingsTotals: each line item's money counts once, under the most
// severe finding (then the rule listed first); the costs given as a map or
// carried by the evidence (a nil map: as Findings reads them) count alike.
func TestFindingsTotals(t *testing.T) {
	billed := map[int64]decimal.Decimal{
		1:       decimal.RequireFromString("10"),
		2:       decimal.RequireFromString("2.5"),
		3:       decimal.RequireFromString("0.00000001"),
		1 << 40: decimal.RequireFromString("5"), // far from the others: claims kept in a map
	}
	f := func(fp, rule, sev, amount, cur string, items ...int64) ledger.Finding {
		var ev []ledger.Evidence
		for _, id := range items {
			e := ledger.Evidence{LineItemID: id, File: "a.csv", Row: int(id)}
			if c, ok := billed[id]; ok {
				e.BilledCost = decimal.NewNullDecimal(c)
			}
			ev = append(ev, e)
		}
		return ledger.Finding{Fingerprint: fp, RuleID: rule, Severity: sev, Provider: "autodl", Currency: cur,
			AmountAtRisk: nd(t, amount), Evidence: ev}
	}
	for _, tc := range []struct {
		name        string
		findings    []ledger.Finding
		want        map[string]string // currency → total ("null" = unknown)
		wantCounted map[string]string // fingerprint → counted
	}{
		{"disjoint findings add up",
			[]ledger.Finding{f("a", "seat_fee", "low", "10", "CNY", 1), f("b", "egress", "low", "2.5", "CNY", 2)},
			map[string]string{"CNY": "12.5"}, map[string]string{"a": "10", "b": "2.5"}},
		{"itemised lower finding counts only unclaimed items",
			[]ledger.Finding{f("low", "unclassified_charge", "low", "12.5", "CNY", 1, 2), f("high", "stopped_storage", "high", "10", "CNY", 1)},
			map[string]string{"CNY": "12.5"}, map[string]string{"high": "10", "low": "2.5"}},
		{"partial-amount lower finding counts nothing when overlapping",
			[]ledger.Finding{f("round", "min_duration_rounding", "low", "0.4", "CNY", 1), f("forgot", "forgotten_instance", "medium", "3", "CNY", 1)},
			map[string]string{"CNY": "3"}, map[string]string{"forgot": "3", "round": "0"}},
		{"equal severity: the rule listed first wins",
			[]ledger.Finding{f("u", "unclassified_charge", "medium", "10", "CNY", 1), f("s", "stopped_storage", "medium", "10", "CNY", 1)},
			map[string]string{"CNY": "10"}, map[string]string{"s": "10", "u": "0"}},
		{"unknown amount claims nothing",
			[]ledger.Finding{f("r", "release_risk", "high", "", "CNY", 1), f("s", "seat_fee", "low", "10", "CNY", 1)},
			map[string]string{"CNY": "10"}, map[string]string{"r": "null", "s": "10"}},
		{"zero amount claims nothing",
			[]ledger.Finding{f("z", "forgotten_instance", "high", "0", "CNY", 1), f("s", "seat_fee", "low", "10", "CNY", 1)},
			map[string]string{"CNY": "10"}, map[string]string{"z": "0", "s": "10"}},
		{"currencies never mix; all unknown is null",
			[]ledger.Finding{f("c", "seat_fee", "low", "0.00000001", "CNY", 3), f("u", "release_risk", "info", "", "USD")},
			map[string]string{"CNY": "0.00000001", "USD": "null"}, map[string]string{"c": "0.00000001", "u": "null"}},
		{"a line item cited twice, out of order, counts once",
			[]ledger.Finding{f("low", "unclassified_charge", "low", "12.5", "CNY", 2, 1, 2), f("high", "stopped_storage", "high", "10", "CNY", 1)},
			map[string]string{"CNY": "12.5"}, map[string]string{"high": "10", "low": "2.5"}},
		{"line items far apart",
			[]ledger.Finding{f("a", "seat_fee", "high", "10", "CNY", 1), f("b", "unclassified_charge", "low", "15", "CNY", 1, 1<<40)},
			map[string]string{"CNY": "15"}, map[string]string{"a": "10", "b": "5"}},
		{"an unknown line item's cost is not taken for zero",
			[]ledger.Finding{f("a", "seat_fee", "high", "10", "CNY", 1), f("b", "unclassified_charge", "low", "12.5", "CNY", 1, 2, 99)},
			map[string]string{"CNY": "10"}, map[string]string{"a": "10", "b": "0"}},
		{"finding citing an unknown line item is not split",
			[]ledger.Finding{f("a", "seat_fee", "high", "10", "CNY", 1), f("b", "unclassified_charge", "low", "10", "CNY", 1, 99)},
			map[string]string{"CNY": "10"}, map[string]string{"a": "10", "b": "0"}},
	} {
		for _, costs := range []map[int64]decimal.Decimal{billed, nil} {
			t.Run(fmt.Sprintf("%s/map %v", tc.name, costs != nil), func(t *testing.T) {
				rep := NewFindingsReport("2026-10", tc.findings, costs)
				got := map[string]string{}
				for _, tot := range rep.Totals {
					got[tot.Currency] = "null"
					if tot.AmountAtRisk.Valid {
						got[tot.Currency] = tot.AmountAtRisk.Decimal.String()
					}
				}
				for cur, w := range tc.want {
					if got[cur] != w {
						t.Errorf("%s total: got %s want %s", cur, got[cur], w)
					}
				}
				if len(got) != len(tc.want) {
					t.Errorf("totals: got %v want %v", got, tc.want)
				}
				for _, e := range rep.Findings {
					c := "null"
					if e.Counted.Valid {
						c = e.Counted.Decimal.String()
					}
					if w := tc.wantCounted[e.Fingerprint]; c != w {
						t.Errorf("finding %s counted: got %s want %s", e.Fingerprint, c, w)
					}
				}
			})
		}
	}
}

func TestEvidenceText(t *testing.T) {
	var ev []ledger.Evidence
	for i := range 7 {
		ev = append(ev, ledger.Evidence{LineItemID: int64(i), File: "a.csv", Row: i + 1})
	}
	for _, tc := range []struct {
		name string
		ev   []ledger.Evidence
		want string
	}{
		{"one", ev[:1], "a.csv:1"},
		{"all kept", ev, "a.csv:1;a.csv:2;a.csv:3;a.csv:4;a.csv:5;a.csv:6;a.csv:7"},
		{"none", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := evidenceText(tc.ev, nil); got != tc.want {
				t.Errorf("got %q want %q", got, tc.want)
			}
		})
	}
}

func TestCompressRows(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rows  []int
		limit int
		want  string
		n     int
	}{
		{"empty", nil, 8, "", 0},
		{"single", []int{7}, 8, "7", 1},
		{"consecutive", []int{8, 9, 10, 11}, 8, "8–11", 4},
		{"pair is a range", []int{3, 4}, 8, "3–4", 2},
		{"gaps", []int{8, 9, 10, 47, 50, 51, 52}, 8, "8–10, 47, 50–52", 7},
		{"unsorted", []int{52, 8, 47, 10, 51, 9, 50}, 8, "8–10, 47, 50–52", 7},
		{"duplicates", []int{5, 5, 6, 6, 6, 9, 9}, 8, "5–6, 9", 3},
		{"limit reached exactly", []int{1, 3, 5}, 3, "1, 3, 5", 3},
		{"over the limit", []int{1, 3, 5, 7, 8, 9}, 2, "1, 3, …", 6},
		{"no limit", []int{1, 3, 5, 7}, 0, "1, 3, 5, 7", 4},
		{"zero and negative rows", []int{0, -1, 2}, 8, "-1–0, 2", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.rows)
			got, n := compressRows(tc.rows, tc.limit)
			if got != tc.want || n != tc.n {
				t.Errorf("got %q, %d want %q, %d", got, n, tc.want, tc.n)
			}
			if !slices.Equal(tc.rows, in) {
				t.Errorf("input changed: got %v want %v", tc.rows, in)
			}
		})
	}
}

func TestEvidenceSummary(t *testing.T) {
	ev := func(file string, rows ...int) []ledger.Evidence {
		var out []ledger.Evidence
		for _, r := range rows {
			out = append(out, ledger.Evidence{File: file, Row: r})
		}
		return out
	}
	var many []int
	for i := range 10 {
		many = append(many, 2*i+1)
	}
	for _, tc := range []struct {
		name string
		ev   []ledger.Evidence
		lang string
		want string
	}{
		{"one row zh", ev("b/a.csv", 2), "zh", "b/a.csv 第 2 行"},
		{"one row en", ev("b/a.csv", 2), "en", "b/a.csv row 2"},
		{"ranges zh", ev("b/a.csv", 8, 9, 10, 47), "zh", "b/a.csv 第 8–10, 47 行（共 4 行）"},
		{"ranges en", ev("b/a.csv", 8, 9, 10, 47), "en", "b/a.csv rows 8–10, 47 (4 rows)"},
		{"files in order of first citation", slices.Concat(ev("z.csv", 3), ev("a.csv", 1), ev("z.csv", 4)), "en",
			"z.csv rows 3–4 (2 rows); a.csv row 1"},
		{"files zh", slices.Concat(ev("z.csv", 3), ev("a.csv", 1)), "zh", "z.csv 第 3 行；a.csv 第 1 行"},
		{"long list shortened, count complete", ev("a.csv", many...), "en", "a.csv rows 1, 3, 5, 7, 9, 11, 13, 15, … (10 rows)"},
		{"unknown file", ev("", 4), "en", "- row 4"},
		{"as stored: files sorted, a row twice", slices.Concat(ev("a.csv", 1, 2, 2, 3), ev("b.csv", 5)), "en",
			"a.csv rows 1–3 (3 rows); b.csv row 5"},
		{"rows out of order", ev("a.csv", 9, 8, 10, 8), "en", "a.csv rows 8–10 (3 rows)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := evidenceSummary(tc.ev, tc.lang, oneLineOrDash, nil); got != tc.want {
				t.Errorf("got %q want %q", got, tc.want)
			}
		})
	}
}

// TestFindingsBlocks checks what the golden sample does not hold: a state
// other than open, a user rule without a title, a negative amount, unknown
// fields, and markdown escaping of hostile bill text.
func TestFindingsBlocks(t *testing.T) {
	fs := []ledger.Finding{
		{Fingerprint: "fp1", RuleID: "seat_fee", Severity: ledger.SeverityHigh, Provider: "autodl", ResourceID: "inst-1",
			PeriodStart: bj("2026-12-31 20:00"), PeriodEnd: bj("2027-01-01 08:00"), AmountAtRisk: nd(t, "-1234.5"),
			Currency: "CNY", ReasonZH: "占用费", ReasonEN: "seat fee", State: "acknowledged",
			Evidence: []ledger.Evidence{{LineItemID: 1, File: "a.csv", Row: 3}}},
		{Fingerprint: "fp2", RuleID: "my_rule", Severity: "weird", Provider: "acme", Currency: "EUR",
			AmountAtRisk: nd(t, "2"), ReasonEN: "1. *bold* | <b> & [x](y) ~~s~~ `c`", AdviceEN: "- do _this_\tnow",
			State: "open", Evidence: []ledger.Evidence{{LineItemID: 2, File: "dir/we`ird_1.csv", Row: 6}, {LineItemID: 3, File: "dir/we`ird_1.csv", Row: 5}}},
	}
	rep := NewFindingsReport("2026-12", fs, nil)
	for _, tc := range []struct {
		name string
		opts WriteOptions
		want string
	}{
		{"table zh", WriteOptions{Format: FormatTable, Lang: "zh"}, "审计发现 2026-12\n\n" +
			"关机占用费 (seat_fee)\n" +
			"  [高] AutoDL  inst-1  2026-12-31 20:00 ~ 2027-01-01 08:00  涉及金额 -¥1,234.50  指纹 fp1  状态 已确认\n" +
			"      占用费\n" +
			"      证据：a.csv 第 3 行\n" +
			"\nmy_rule\n" +
			"  [weird] Acme  -  -  涉及金额 2.00 EUR  指纹 fp2\n" +
			"      1. *bold* | <b> & [x](y) ~~s~~ `c`\n" +
			"      建议：- do _this_ now\n" +
			"      证据：dir/we`ird_1.csv 第 5–6 行（共 2 行）\n"},
		{"md en", WriteOptions{Format: FormatMarkdown, Lang: "en"}, "# Findings 2026-12\n\n" +
			"### Seat fee while stopped (seat\\_fee)\n\n" +
			"- **high** · AutoDL · `inst-1` · 2026-12-31 20:00 ~ 2027-01-01 08:00 · at risk -¥1,234.50 · fingerprint `fp1` · state acknowledged\n" +
			"  - seat fee\n" +
			"  - Evidence: `a.csv` row 3\n" +
			"\n### my\\_rule\n\n" +
			"- **weird** · Acme · - · - · at risk 2.00 EUR · fingerprint `fp2`\n" +
			"  - 1\\. \\*bold\\* \\| &lt;b&gt; &amp; \\[x\\](y) \\~\\~s\\~\\~ \\`c\\`\n" +
			"  - Advice: \\- do \\_this\\_ now\n" +
			"  - Evidence: ``dir/we`ird_1.csv`` rows 5–6 (2 rows)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(render(t, rep, tc.opts))
			// the totals section is checked by the golden files
			for _, totals := range []string{"\n风险金额合计\n", "\n## "} {
				if i := strings.Index(got, totals); i >= 0 {
					got = got[:i]
				}
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestFindingsEmpty(t *testing.T) {
	db := testkit.OpenLedger(t)
	rep, err := Findings(context.Background(), db, "2026-10")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts WriteOptions
		want string
	}{
		{"json", WriteOptions{Format: FormatJSON}, "{\n  \"month\": \"2026-10\",\n  \"findings\": [],\n  \"totals\": []\n}\n"},
		// an empty ledger: no bills of the month, which is not a clean month
		{"table zh", WriteOptions{Format: FormatTable, Lang: "zh"}, "审计发现 2026-10\n\n2026-10 没有账单：账本里没有这个月的费用明细，所以无可审计（不是没有问题）。用 gpubill import 导入这个月的账单后再审计。\n"},
		{"md en", WriteOptions{Format: FormatMarkdown, Lang: "en"}, "# Findings 2026-10\n\nNo bills for 2026-10: the ledger holds no line items of that month, so there is nothing to audit (not a clean month). Import the month's bills with gpubill import, then audit.\n"},
		{"csv header only", WriteOptions{Format: FormatCSV}, "fingerprint,rule_id,severity,provider,resource_id,period_start,period_end,currency,amount_at_risk,state,reason_zh,reason_en,advice_zh,advice_en,evidence\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(render(t, rep, tc.opts)); got != tc.want {
				t.Errorf("got %q want %q", got, tc.want)
			}
		})
	}
}

// countingWriter keeps what it is written and counts the writes.
type countingWriter struct {
	buf    bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.buf.Write(p)
}

// TestFindingsBlocksStream: the table and markdown of many findings go out
// in pieces as they are made, and the pieces are the text written whole.
func TestFindingsBlocksStream(t *testing.T) {
	var fs []ledger.Finding
	for i := range 3000 {
		fs = append(fs, ledger.Finding{Fingerprint: fmt.Sprintf("fp%05d", i), RuleID: []string{"seat_fee", "egress", "my_rule"}[i%3],
			Severity: "low", Provider: "autodl", ResourceID: fmt.Sprintf("inst-%d", i), Currency: "CNY",
			AmountAtRisk: nd(t, fmt.Sprintf("%d.5", i)), ReasonZH: "占用费 " + strings.Repeat("长", i%40), ReasonEN: "seat fee",
			Evidence: []ledger.Evidence{{LineItemID: int64(i), File: "a.csv", Row: i + 2}}})
	}
	rep := NewFindingsReport("2026-10", fs, nil)
	for _, format := range []string{FormatTable, FormatMarkdown} {
		opts := WriteOptions{Format: format, Lang: "zh"}
		var streamed countingWriter
		if err := rep.Write(&streamed, opts); err != nil {
			t.Fatal(err)
		}
		flush := blockFlush
		blockFlush = 1 << 40
		whole := render(t, rep, opts)
		blockFlush = flush
		if !bytes.Equal(streamed.buf.Bytes(), whole) {
			t.Errorf("%s: written in %d pieces, the text differs from the text written whole", format, streamed.writes)
		}
		if min := len(whole) / blockFlush; streamed.writes < min || min < 3 {
			t.Errorf("%s: %d bytes in %d writes, want at least %d", format, len(whole), streamed.writes, min)
		}
	}
}

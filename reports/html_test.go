package reports

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

// externalRef matches an attribute that would load something from the
// network: src/href/xlink:href/url() with a scheme or a protocol-relative //.
var externalRef = regexp.MustCompile(`(?i)(\b(src|href|action|poster)\s*=\s*["']?\s*(https?:|//))|url\(\s*["']?\s*(https?:|//)|@import`)

// checkSelfContained fails when the page could load anything from elsewhere.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	if m := externalRef.FindString(page); m != "" {
		t.Errorf("the page refers to an external resource: %q", m)
	}
	for _, tag := range []string{"<script", "<link", "<iframe", "<img"} {
		if strings.Contains(strings.ToLower(page), tag) {
			t.Errorf("the page holds %s", tag)
		}
	}
	if !strings.Contains(page, `<meta charset="utf-8">`) {
		t.Error("no <meta charset=\"utf-8\">")
	}
}

// testCharts is a document with three charts (a stacked bar with a
// legend, a line over days, a bar with a negative value) and one with no
// data, which the page must leave out.
func testCharts(t *testing.T) *document {
	var days []string
	var daily []decimal.Decimal
	for d := 1; d <= 31; d++ {
		days = append(days, fmt.Sprintf("2026-10-%02d", d))
		daily = append(daily, dec(t, fmt.Sprintf("%d.%02d", 10+d%7, d)))
	}
	g := &grid{cols: []column{textCol("name", "名称"), moneyCol("amount", "金额")}}
	g.add("a", "1,234.57")
	return &document{key: "test", title: "图表 Charts", sections: []section{{key: "main", grid: g}}, notes: []string{"注：<b>不是标签</b>"},
		charts: []chart{
			{key: "spend_by_provider_kind", title: "按平台和类型", kind: "bar", currency: "CNY",
				labels: []string{"AutoDL", "阿里云", "一个非常非常非常长的平台名称用来测试截断"},
				series: []chartSeries{
					{name: "计算", values: []decimal.Decimal{dec(t, "420.5"), dec(t, "1000.12345678901"), dec(t, "3")}},
					{name: "存储", values: []decimal.Decimal{dec(t, "12.3"), dec(t, "0"), dec(t, "1.005")}},
					{name: "<script>alert(1)</script>", values: []decimal.Decimal{dec(t, "0.5"), dec(t, "12.5"), dec(t, "0")}},
				}},
			{key: "daily_spend", title: "每日支出", kind: "line", currency: "CNY", labels: days,
				series: []chartSeries{{values: daily}}},
			{key: "top_resources", title: "Top", kind: "bar", currency: "USD", labels: []string{"i-0abc", "credit"},
				series: []chartSeries{{values: []decimal.Decimal{dec(t, "3.14159265358"), dec(t, "-1.5")}}}},
			{key: "nothing", title: "空", kind: "bar", currency: "CNY", labels: []string{"x"},
				series: []chartSeries{{values: []decimal.Decimal{decimal.Zero}}}},
		}}
}

func TestHTMLCharts(t *testing.T) {
	doc := testCharts(t)
	var b bytes.Buffer
	if err := writeDocument(&b, WriteOptions{Format: FormatHTML, Lang: "zh", TZ: time.UTC}, doc); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkGolden(t, "charts_zh", b.Bytes())
	checkSelfContained(t, page)
	for _, tc := range []struct {
		name, want string
	}{
		{"lang", `<html lang="zh-CN">`},
		{"stacked bar", `id="chart-spend_by_provider_kind" data-kind="bar" data-currency="CNY" data-total="1449.92845678901" data-points="3"`},
		{"line", `id="chart-daily_spend" data-kind="line" data-currency="CNY"`},
		{"negative bar", `id="chart-top_resources" data-kind="bar" data-currency="USD" data-total="1.64159265358"`},
		{"bar value label rounded", `>1,012.62<`},
		{"stacked bar total label", `>433.30<`},
		{"negative label", `>-1.50<`},
		{"legend", `class="legend"`},
		{"legend text escaped", `&lt;script&gt;alert(1)&lt;/script&gt;`},
		{"long label cut", `一个非常非常非常长的平…<title>一个非常非常非常长的平台名称用来测试截断</title>`},
		{"line of days", `<polyline class="line"`},
		{"day label without year", `>10-01<`},
		{"note escaped", `注：&lt;b&gt;不是标签&lt;/b&gt;`},
		{"table", `<table class="report" id="table-main">`},
		{"money right-aligned", `<td class="num col-amount">1,234.57</td>`},
	} {
		if !strings.Contains(page, tc.want) {
			t.Errorf("%s: the page has no %s", tc.name, tc.want)
		}
	}
	if strings.Contains(page, "chart-nothing") {
		t.Error("a chart with no data is on the page")
	}
	if n := strings.Count(page, `<rect class="bar"`); n != 9 {
		t.Errorf("got %d bars, want 9 (7 non-zero stacked parts, plus 2)", n)
	}
	if n := strings.Count(page, `<circle class="dot"`); n != 31 {
		t.Errorf("got %d dots on the line, want 31", n)
	}
	if strings.Contains(page, "<script>") {
		t.Error("unescaped script tag")
	}
}

// TestHTMLSpend renders the real spend report: every section as a table,
// money right-aligned, the totals on the page, bill text escaped.
func TestHTMLSpend(t *testing.T) {
	s := newSample(t)
	rep, err := Spend(context.Background(), s.db, SpendOptions{Month: "2026-10", By: []string{ByProvider, ByResource}})
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh", "en"} {
		t.Run(lang, func(t *testing.T) {
			page := string(render(t, rep, WriteOptions{Format: FormatHTML, Lang: lang}))
			checkSelfContained(t, page)
			if want := map[string]string{"zh": `lang="zh-CN"`, "en": `lang="en"`}[lang]; !strings.Contains(page, want) {
				t.Errorf("no %s", want)
			}
			if want := "<title>" + tr(lang, "title.spend") + " 2026-10</title>"; !strings.Contains(page, want) {
				t.Errorf("no %s", want)
			}
			for _, id := range []string{`id="table-spend"`, `id="table-totals"`} {
				if !strings.Contains(page, id) {
					t.Errorf("no table %s", id)
				}
			}
			for _, tot := range rep.Totals {
				want := `<td class="num col-billed_cost">` + FormatMoney(tot.BilledCost, tot.Currency, false) + `</td>`
				if !strings.Contains(page, want) {
					t.Errorf("total %s: no %s", tot.Currency, want)
				}
			}
			if !strings.Contains(page, "=cmd|&#39; /C calc&#39;!A0") {
				t.Error("the formula-like resource name is not shown (escaped) as it is")
			}
		})
	}
}

func TestHTMLEscapesBillText(t *testing.T) {
	db := testkit.OpenLedger(t)
	names := []string{`<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`, `javascript:alert(1)`}
	var items []ledger.LineItem
	for i, n := range names {
		items = append(items, ledger.LineItem{Provider: "autodl",
			BillingPeriod: "2026-10", ChargePeriodStart: bj("2026-10-03 14:00"),
			ChargePeriodEnd: bj("2026-10-03 15:00"), Kind: ledger.KindCompute, ResourceID: n,
			BilledCost: decimal.NewFromInt(int64(i + 1)), ResourceName: n})
	}
	testkit.ImportItems(t, db, "bills/x.csv", items)
	rep, err := Spend(context.Background(), db, SpendOptions{Month: "2026-10", By: []string{ByResource}})
	if err != nil {
		t.Fatal(err)
	}
	page := string(render(t, rep, WriteOptions{Format: FormatHTML, Lang: "en"}))
	checkSelfContained(t, page)
	for _, bad := range []string{"<script>alert", `"><img`, "<img src=x"} {
		if strings.Contains(page, bad) {
			t.Errorf("unescaped bill text %q on the page", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("no escaped %q on the page", want)
		}
	}
}

// TestHTMLFindings: one block per finding, grouped by rule, with its
// evidence; the totals table; text from rules escaped.
func TestHTMLFindings(t *testing.T) {
	s := newSample(t)
	fs := sampleFindings(t, s)
	rep, err := Findings(context.Background(), s.db, "2026-10")
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh", "en"} {
		t.Run(lang, func(t *testing.T) {
			got := render(t, rep, WriteOptions{Format: FormatHTML, Lang: lang})
			checkGolden(t, "findings_"+lang, got)
			page := string(got)
			checkSelfContained(t, page)
			for _, f := range fs {
				if !strings.Contains(page, `id="finding-`+f.Fingerprint+`"`) {
					t.Errorf("no block of %s", f.Fingerprint)
				}
				if !strings.Contains(page, `id="section-rule-`+f.RuleID+`"`) {
					t.Errorf("no section of rule %s", f.RuleID)
				}
			}
			if n := strings.Count(page, `<section class="report-section section-rule-forgotten_instance"`); n != 1 {
				t.Errorf("forgotten_instance: %d sections, want one for its two findings", n)
			}
			if !strings.Contains(page, `bills/focus.csv `+fmt.Sprintf(tr(lang, "find.rows"), "10–16", 7)) {
				t.Error("no evidence rows of the AWS finding")
			}
			if !strings.Contains(page, `id="table-totals"`) {
				t.Error("no totals table")
			}
			for _, tot := range rep.Totals {
				if want := `<td class="num col-amount_at_risk">` + FormatNullMoney(tot.AmountAtRisk, tot.Currency, false) + `</td>`; !strings.Contains(page, want) {
					t.Errorf("total %s: no %s", tot.Currency, want)
				}
			}
		})
	}
	empty := &FindingsReport{Month: "2026-11"}
	page := string(render(t, empty, WriteOptions{Format: FormatHTML, Lang: "en"}))
	if !strings.Contains(page, tr("en", "no_findings")) {
		t.Error("an empty report does not say there are no findings")
	}
}

// TestXLSXFindings: the findings sheet (typed, exact, neutralised) and
// the totals sheet.
func TestXLSXFindings(t *testing.T) {
	s := newSample(t)
	sampleFindings(t, s)
	rep, err := Findings(context.Background(), s.db, "2026-10")
	if err != nil {
		t.Fatal(err)
	}
	f, _ := openXLSX(t, rep, WriteOptions{Lang: "en"})
	sheets := f.GetSheetList()
	if want := "Findings|Money at risk, totals|Notes"; strings.Join(sheets, "|") != want {
		t.Fatalf("sheets: got %q want %s", sheets, want)
	}
	h := headerIndex(t, f, "Findings")
	for i, e := range rep.Findings {
		r := i + 2
		if got := cell(t, f, "Findings", ref(h["Fingerprint"], r)); got != e.Fingerprint {
			t.Fatalf("row %d: fingerprint %q want %q", r, got, e.Fingerprint)
		}
		if got, want := cell(t, f, "Findings", ref(h["At risk"], r)), FormatNullMoney(e.AmountAtRisk, e.Currency, true); got != want {
			t.Errorf("row %d: at risk %q want %q", r, got, want)
		}
		if got, want := cell(t, f, "Findings", ref(h["Counted in totals"], r)), FormatNullMoney(e.Counted, e.Currency, true); got != want {
			t.Errorf("row %d: counted %q want %q", r, got, want)
		}
		reason := cell(t, f, "Findings", ref(h["Reason"], r))
		if strings.HasPrefix(e.ReasonEN, "-") && reason != "'"+e.ReasonEN {
			t.Errorf("row %d: reason %q not neutralised", r, reason)
		}
		if start := cell(t, f, "Findings", ref(h["Start"], r)); !e.PeriodStart.IsZero() {
			if _, err := decimal.NewFromString(start); err != nil {
				t.Errorf("row %d: start %q is not an Excel date-time", r, start)
			}
		}
	}
	for k, tot := range rep.Totals {
		if got, want := cell(t, f, sheets[1], ref(3, k+2)), FormatNullMoney(tot.AmountAtRisk, tot.Currency, true); got != want {
			t.Errorf("totals %s: got %q want %q", tot.Currency, got, want)
		}
	}
}

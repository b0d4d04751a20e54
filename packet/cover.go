package packet

import (
	"bytes"
	"fmt"
	"html/template"
	"io"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/platform"
	"github.com/gpubill/gpubill/reports"
)

// The HTML cover: one self-contained page (inline CSS, no scripts, no
// network) laid out for A4 portrait, with the claimant block, the totals per
// platform, the amount claimed in figures and in capital numerals, the
// notes and the signature block. html/template escapes every text.

var coverTemplate = template.Must(template.New("cover").Parse(`<!DOCTYPE html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<title>费用报销单 {{.Month}}</title>
<style>
@page { size: A4 portrait; margin: 15mm; }
* { box-sizing: border-box; }
body { font-family: "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif;
  font-size: 10.5pt; color: #000; margin: 0; }
.page { width: 180mm; margin: 0 auto; }
h1 { font-size: 18pt; text-align: center; margin: 0 0 2mm; letter-spacing: 0.2em; }
.sub { text-align: center; font-size: 9pt; margin-bottom: 6mm; }
table { border-collapse: collapse; width: 100%; margin-bottom: 5mm; page-break-inside: avoid; }
th, td { border: 0.3mm solid #000; padding: 1.5mm 2mm; vertical-align: top; }
th { background: #e8e8e8; font-weight: bold; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.missing td { background: #fff2cc; }
.info th { width: 32mm; }
.claim td.words { font-size: 12pt; font-weight: bold; }
.notes { font-size: 8.5pt; margin: 0 0 8mm; padding-left: 5mm; }
.sign { display: flex; justify-content: space-between; margin-top: 10mm; }
.sign div { width: 55mm; border-top: 0.3mm solid #000; padding-top: 1.5mm; }
.sign p { margin: 8mm 0 0; }
@media print { th, tr.missing td { -webkit-print-color-adjust: exact; print-color-adjust: exact; } }
</style>
</head>
<body>
<div class="page">
<h1>费用报销单</h1>
<div class="sub">GPU 算力与云服务 · Reimbursement packet · {{.Month}}</div>
<table class="info">
<tr><th>报销人 Claimant</th><td>{{.Name}}</td><th>部门 Department</th><td>{{.Dept}}</td></tr>
<tr><th>项目 Project</th><td>{{.Project}}</td><th>期间 Period</th><td>{{.Period}}</td></tr>
<tr><th>生成日期 Generated</th><td>{{.Generated}}</td><th>争议费用 Disputed</th><td>{{.Disputed}}</td></tr>
</table>
<table class="totals">
<tr><th>平台 Platform</th><th>币种</th><th>应付金额 Billed</th><th>不可报销 Vouchers</th><th>可开票 Invoiceable</th><th>争议 Disputed</th>{{if .InvoicedOnly}}<th>未开票 Not invoiced</th>{{end}}<th>报销金额 Claimed</th><th>已开票 Invoiced</th><th>待索取 To request</th></tr>
{{range .Rows}}<tr{{if .Missing}} class="missing"{{end}}><td>{{.Provider}}</td><td>{{.Currency}}</td>{{range .Amounts}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</table>
<table class="claim">
{{range .Claims}}<tr><th>报销金额（小写）</th><td class="num">{{.Currency}} {{.Figure}}</td><th>大写</th><td class="words">{{.Words}}</td></tr>
{{if .Rounding}}<tr><th>尾差 Rounding</th><td class="num">{{.Currency}} {{.Rounding}}</td><td colspan="2">{{.RoundingNote}}</td></tr>
{{end}}{{end}}</table>
<ul class="notes">
{{range .Notes}}<li>{{.}}</li>
{{end}}</ul>
<div class="sign">
<div>报销人 Claimant<p>日期 Date：</p></div>
<div>审核 Reviewed by<p>日期 Date：</p></div>
<div>批准 Approved by<p>日期 Date：</p></div>
</div>
</div>
</body>
</html>
`))

type coverRow struct {
	Provider, Currency string
	Amounts            []string
	Missing            bool
}

type coverClaim struct{ Currency, Figure, Words, Rounding, RoundingNote string }

// WriteCoverHTML writes the packet's cover as one HTML page for A4.
func (p *Packet) WriteCoverHTML(w io.Writer) error {
	start, end := monthBounds(p.Month)
	data := struct {
		Month, Name, Dept, Project, Period, Generated, Disputed string
		Rows                                                    []coverRow
		Claims                                                  []coverClaim
		Notes                                                   []string
		InvoicedOnly                                            bool
	}{
		InvoicedOnly: p.InvoicedOnly,
		Month:        p.Month, Name: p.Name, Dept: p.Dept, Project: p.Project,
		Period:    fmt.Sprintf("%s 至 %s", start, end),
		Generated: p.Generated.Format("2006-01-02"),
		Disputed:  "不报销 excluded",
		Notes:     p.Notes(),
	}
	if data.Project == "" {
		data.Project = "全部项目 / all projects"
	}
	if p.ClaimDisputed {
		data.Disputed = "仍报销 claimed"
	}
	for _, t := range p.Totals {
		r := coverRow{Provider: platform.Name(t.Provider, "zh"), Currency: t.Currency, Missing: t.ToRequest.IsPositive()}
		amounts := []decimal.Decimal{t.Billed, t.NotInvoiceable, t.Invoiceable, t.Disputed}
		if p.InvoicedOnly {
			amounts = append(amounts, t.NotInvoiced)
		}
		for _, d := range append(amounts, t.Claimed, t.Invoiced, t.ToRequest) {
			r.Amounts = append(r.Amounts, reports.FormatMoney(d, t.Currency, false))
		}
		data.Rows = append(data.Rows, r)
	}
	for _, c := range p.Claims {
		words := "—"
		if c.Capital != "" {
			words = "人民币" + c.Capital
		}
		cc := coverClaim{Currency: c.Currency, Figure: reports.FormatMoney(c.Claimed, c.Currency, false), Words: words}
		if !c.Rounding.IsZero() {
			cc.Rounding, cc.RoundingNote = reports.FormatMoney(c.Rounding, c.Currency, false), roundingNote(c)
		}
		data.Claims = append(data.Claims, cc)
	}
	var b bytes.Buffer
	if err := coverTemplate.Execute(&b, data); err != nil {
		return fmt.Errorf("packet: cover: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// monthBounds gives the first and last day of month (YYYY-MM).
func monthBounds(month string) (string, string) {
	var y, m int
	if _, err := fmt.Sscanf(month, "%d-%d", &y, &m); err != nil {
		return month, month
	}
	first := fmt.Sprintf("%04d-%02d-01", y, m)
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
	last := 0
	if m >= 1 && m <= 12 {
		last = days[m-1]
		if m == 2 && (y%4 == 0 && (y%100 != 0 || y%400 == 0)) {
			last = 29
		}
	}
	return first, fmt.Sprintf("%04d-%02d-%02d", y, m, last)
}

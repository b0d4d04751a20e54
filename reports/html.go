package reports

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/internal/mdtext"
	"github.com/gpubill/gpubill/money"
)

// The html encoder: one self-contained page (inline CSS, inline SVG charts,
// no script, no external resource), escaped by html/template. Layout: the
// title, the charts, every section (a table, or readable blocks such as
// findings), then the notes.
//
// Stable hooks for tests and users' own styling: every chart is a
// <figure id="chart-KEY" data-total="EXACT SUM" data-currency=…> (a key
// drawn again for another currency: id="chart-KEY-usd"), every
// section a <section id="section-KEY">, every table <table id="table-KEY">,
// every finding <article id="finding-FINGERPRINT">; cells carry the class
// "num" (right-aligned) or "text" and "col-KEY".

//go:embed html/report.html.tmpl
var htmlTemplateText string

var htmlTemplate = template.Must(template.New("report").Parse(htmlTemplateText))

// chartPalette is readable on screen and in print, and for colour-blind
// readers (Okabe–Ito, without its yellow, plus two greys).
var chartPalette = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#666666", "#332288", "#AAAAAA"}

// Page model handed to the template: everything already laid out and
// formatted; the template only escapes and places it.
type htmlPage struct {
	Lang, Title string
	Charts      []htmlChart
	Sections    []htmlSection
	Notes       []string
}

type htmlSection struct {
	Key, Title, Empty string
	Cols              []htmlCol
	Rows              [][]htmlCell
	Blocks            []htmlBlock
}

type htmlCol struct{ Title, Class string }

type htmlCell struct{ Text, Class string }

type htmlBlock struct {
	ID, Class, Badge, Amount, ListTitle string
	Summary, Lines, List                []string
}

type htmlChart struct {
	Key, Title, Kind, Currency string
	Total                      string // exact sum of every value (decimal string)
	Points                     int    // number of labels
	Width, Height              int
	Grid                       []svgLine
	Axis                       svgLine
	Ticks                      []svgText
	Bars                       []svgRect
	Lines                      []svgPolyline
	Dots                       []svgDot
	Values                     []svgText
	XLabels                    []svgText
	Legend                     []svgLegend
}

type svgLine struct{ X1, Y1, X2, Y2 string }

type svgText struct {
	X, Y, Text, Anchor, Tip string
	Rotate                  bool
}

type svgRect struct{ X, Y, W, H, Fill, Value, Tip string }

type svgPolyline struct{ Points, Stroke string }

type svgDot struct{ X, Y, Fill, Value, Tip string }

type svgLegend struct{ X, Y, TX, TY, Fill, Text string }

// writeHTML writes doc as one self-contained html page.
func writeHTML(w io.Writer, opts WriteOptions, doc *document) error {
	page := htmlPage{Lang: map[string]string{"zh": "zh-CN", "en": "en"}[opts.Lang], Title: mdtext.OneLine(doc.title), Notes: doc.notes}
	ids := map[string]bool{}
	for i := range doc.charts {
		if c, ok := layoutChart(&doc.charts[i], opts); ok {
			// A report draws one chart per currency under the same key:
			// the first keeps "chart-KEY", the others get the currency.
			if ids[c.Key] {
				c.Key += "-" + cssKey(strings.ToLower(c.Currency))
			}
			ids[c.Key] = true
			page.Charts = append(page.Charts, c)
		}
	}
	for i := range doc.sections {
		s := &doc.sections[i]
		key := s.key
		if key == "" {
			key = doc.key
		}
		hs := htmlSection{Key: cssKey(key), Title: s.title, Empty: s.empty}
		if hs.Empty == "" {
			hs.Empty = tr(opts.Lang, "none")
		}
		for _, b := range s.blocks {
			hs.Blocks = append(hs.Blocks, htmlBlock{ID: b.id, Class: cssKey(b.class), Badge: b.badge, Amount: b.amount,
				ListTitle: b.listTitle, Summary: b.summary, Lines: b.lines, List: b.list})
		}
		if s.grid != nil && len(s.blocks) == 0 {
			for _, c := range s.grid.cols {
				hs.Cols = append(hs.Cols, htmlCol{Title: c.title, Class: cellClass(c)})
			}
			for _, r := range s.grid.rows {
				row := make([]htmlCell, 0, len(r))
				for j, cell := range r {
					if j >= len(s.grid.cols) {
						break
					}
					row = append(row, htmlCell{Text: mdtext.OneLine(cell), Class: cellClass(s.grid.cols[j])})
				}
				hs.Rows = append(hs.Rows, row)
			}
		}
		page.Sections = append(page.Sections, hs)
	}
	if err := htmlTemplate.Execute(w, page); err != nil {
		return fmt.Errorf("reports: html: %w", err)
	}
	return nil
}

func cellClass(c column) string {
	cls := "text"
	if c.numeric {
		cls = "num"
	}
	return cls + " col-" + cssKey(c.key)
}

// cssKey keeps an identifier to [A-Za-z0-9_-], so that it is a plain id or
// class name whatever it came from.
func cssKey(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, s)
}

// Chart geometry (SVG user units).
const (
	chartW       = 760
	chartH       = 320
	chartLeft    = 76 // room for the y axis labels
	chartRight   = 16
	chartTop     = 24
	chartBottom  = 64 // room for the x labels
	legendRow    = 18
	maxLabelRune = 12
	rotateExtra  = 24 // more room below for slanted x labels
)

// px renders a coordinate with one decimal.
func px(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// layoutChart computes the SVG of a chart. Geometry is display only: the
// values shown and the data attributes come from the exact decimals. It
// reports false for a chart with no data (no labels, no series or only
// zeros), which the page leaves out.
func layoutChart(c *chart, opts WriteOptions) (htmlChart, bool) {
	total := decimal.Zero
	nonzero := false
	for _, s := range c.series {
		for _, v := range s.values {
			total = total.Add(v)
			nonzero = nonzero || !v.IsZero()
		}
	}
	if len(c.labels) == 0 || len(c.series) == 0 || !nonzero {
		return htmlChart{}, false
	}
	title := c.title
	if c.currency != "" && !strings.Contains(title, c.currency) {
		title += " (" + c.currency + ")"
	}
	hc := htmlChart{Key: cssKey(c.key), Title: title, Kind: c.kind, Currency: c.currency,
		Total: money.String(total), Points: len(c.labels), Width: chartW, Height: chartH}
	named := 0
	for _, s := range c.series {
		if s.name != "" {
			named++
		}
	}
	legend := len(c.series) > 1 || named > 0
	top := float64(chartTop)
	if legend {
		top += legendRow * float64(legendLines(c.series))
	}
	left, right := float64(chartLeft), float64(chartW-chartRight)
	n := len(c.labels)
	slot := (right - left) / float64(n)
	rotate := n > 8 || maxLabelWidth(c.labels) > int(slot/7)
	bottom := float64(chartH - chartBottom)
	if rotate {
		bottom -= rotateExtra
	}

	// Range of the y axis: bars stack (positives up, negatives down); lines
	// take each value alone.
	lo, hi := decimal.Zero, decimal.Zero
	value := func(s, i int) decimal.Decimal {
		if i < len(c.series[s].values) {
			return c.series[s].values[i]
		}
		return decimal.Zero
	}
	for i := range c.labels {
		pos, neg := decimal.Zero, decimal.Zero
		for s := range c.series {
			v := value(s, i)
			if c.kind == "line" {
				hi, lo = decimal.Max(hi, v), decimal.Min(lo, v)
				continue
			}
			if v.Sign() >= 0 {
				pos = pos.Add(v)
			} else {
				neg = neg.Add(v)
			}
		}
		hi, lo = decimal.Max(hi, pos), decimal.Min(lo, neg)
	}
	step := niceStep(hi.Sub(lo))
	hiT := ceilTo(hi, step)
	loT := ceilTo(lo.Neg(), step).Neg()
	span := hiT.Sub(loT).InexactFloat64()
	y := func(v decimal.Decimal) float64 {
		return bottom - (v.Sub(loT).InexactFloat64()/span)*(bottom-top)
	}
	for t := loT; t.LessThanOrEqual(hiT); t = t.Add(step) {
		yy := px(y(t))
		hc.Grid = append(hc.Grid, svgLine{X1: px(left), Y1: yy, X2: px(right), Y2: yy})
		hc.Ticks = append(hc.Ticks, svgText{X: px(left - 6), Y: yy, Text: FormatMoney(t, c.currency, false)})
	}
	zero := px(y(decimal.Zero))
	hc.Axis = svgLine{X1: px(left), Y1: zero, X2: px(right), Y2: zero}

	labelY := bottom + 16
	every := 1
	if c.kind == "line" && n > 16 {
		every = (n + 15) / 16
	}
	for i, l := range c.labels {
		x := left + slot*(float64(i)+0.5)
		if i%every != 0 && i != n-1 {
			continue
		}
		text, tip := shortLabel(l, c.kind)
		lab := svgText{X: px(x), Y: px(labelY), Text: text, Tip: tip, Anchor: "middle"}
		if rotate {
			lab.Anchor, lab.Rotate = "end", true
		}
		hc.XLabels = append(hc.XLabels, lab)
	}

	switch c.kind {
	case "line":
		var maxI, minI int
		for s := range c.series {
			color := chartPalette[s%len(chartPalette)]
			var pts []string
			for i := range c.labels {
				v := value(s, i)
				x := left + slot*(float64(i)+0.5)
				pts = append(pts, px(x)+","+px(y(v)))
				hc.Dots = append(hc.Dots, svgDot{X: px(x), Y: px(y(v)), Fill: color, Value: money.String(v),
					Tip: tipText(c.labels[i], c.series[s].name, v, c.currency)})
			}
			hc.Lines = append(hc.Lines, svgPolyline{Points: strings.Join(pts, " "), Stroke: color})
		}
		// Value labels on one series' highest, lowest and last points: a
		// label on every day would not be readable.
		if len(c.series) == 1 {
			for i := range c.labels {
				if value(0, i).GreaterThan(value(0, maxI)) {
					maxI = i
				}
				if value(0, i).LessThan(value(0, minI)) {
					minI = i
				}
			}
			seen := map[int]bool{}
			for _, i := range []int{maxI, minI, n - 1} {
				if seen[i] {
					continue
				}
				seen[i] = true
				v := value(0, i)
				hc.Values = append(hc.Values, svgText{X: px(left + slot*(float64(i)+0.5)), Y: px(y(v) - 8),
					Text: FormatMoney(v, c.currency, false)})
			}
		}
	default: // "bar"
		barW := slot * 0.7
		if barW > 56 {
			barW = 56
		}
		for i := range c.labels {
			x := left + slot*(float64(i)+0.5) - barW/2
			pos, neg := decimal.Zero, decimal.Zero
			for s := range c.series {
				v := value(s, i)
				if v.IsZero() {
					continue
				}
				var from, to decimal.Decimal
				if v.Sign() > 0 {
					from, to = pos, pos.Add(v)
					pos = to
				} else {
					from, to = neg, neg.Add(v)
					neg = to
				}
				y1, y2 := y(to), y(from)
				if y1 > y2 {
					y1, y2 = y2, y1
				}
				hc.Bars = append(hc.Bars, svgRect{X: px(x), Y: px(y1), W: px(barW), H: px(math.Max(y2-y1, 0.5)),
					Fill: chartPalette[s%len(chartPalette)], Value: money.String(v),
					Tip: tipText(c.labels[i], c.series[s].name, v, c.currency)})
			}
			sum := pos.Add(neg)
			ly := y(pos) - 5
			if pos.IsZero() && neg.Sign() < 0 {
				ly = y(neg) + 12
			}
			hc.Values = append(hc.Values, svgText{X: px(x + barW/2), Y: px(ly), Text: FormatMoney(sum, c.currency, false)})
		}
	}

	if legend {
		x, row := left, 0
		for s, ser := range c.series {
			name := ser.name
			if name == "" {
				name = "-"
			}
			w := 12 + 6 + float64(displayWidth(name))*7 + 18
			if x+w > right && x > left {
				x, row = left, row+1
			}
			yy := float64(chartTop) + float64(row)*legendRow
			hc.Legend = append(hc.Legend, svgLegend{X: px(x), Y: px(yy - 10), TX: px(x + 18), TY: px(yy - 4),
				Fill: chartPalette[s%len(chartPalette)], Text: name})
			x += w
		}
	}
	return hc, true
}

// legendLines estimates how many rows the legend takes.
func legendLines(series []chartSeries) int {
	x, rows := 0.0, 1
	width := float64(chartW - chartLeft - chartRight)
	for _, s := range series {
		w := 12 + 6 + float64(displayWidth(s.name))*7 + 18
		if x+w > width && x > 0 {
			x, rows = 0, rows+1
		}
		x += w
	}
	return rows
}

func maxLabelWidth(labels []string) int {
	m := 0
	for _, l := range labels {
		m = max(m, displayWidth(l))
	}
	return m
}

// shortLabel shortens an x label: days of a line chart lose their year
// ("10-03"), long names are cut with "…" (the whole name as a tooltip).
func shortLabel(l, kind string) (text, tip string) {
	l = mdtext.OneLine(l)
	if kind == "line" && len(l) == len("2006-01-02") && l[4] == '-' && l[7] == '-' {
		return l[5:], l
	}
	if utf8.RuneCountInString(l) > maxLabelRune {
		return string([]rune(l)[:maxLabelRune-1]) + "…", l
	}
	return l, ""
}

func tipText(label, series string, v decimal.Decimal, currency string) string {
	s := mdtext.OneLine(label)
	if series != "" {
		s += " · " + mdtext.OneLine(series)
	}
	return s + ": " + FormatMoney(v, currency, false) + " " + currency
}

// niceStep is a step of 1, 2 or 5 × 10^k that cuts span into at most 5
// intervals (1 for an empty span).
func niceStep(span decimal.Decimal) decimal.Decimal {
	if span.Sign() <= 0 {
		return decimal.NewFromInt(1)
	}
	raw := span.Div(decimal.NewFromInt(5))
	exp := int32(math.Floor(math.Log10(raw.InexactFloat64())))
	for {
		for _, m := range []int64{1, 2, 5} {
			s := decimal.New(m, exp)
			if s.GreaterThanOrEqual(raw) {
				return s
			}
		}
		exp++
	}
}

// ceilTo rounds v (≥ 0) up to a multiple of step.
func ceilTo(v, step decimal.Decimal) decimal.Decimal {
	if v.Sign() <= 0 {
		return decimal.Zero
	}
	return v.Div(step).Ceil().Mul(step)
}

package reports

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/gpubill/gpubill/internal/mdtext"
	"github.com/gpubill/gpubill/rules"
)

// everyReport computes each report of the package on one ledger (the
// instances sample: compute, disks, findings, money flow) for 2026-10.
func everyReport(t *testing.T) map[string]interface {
	Write(io.Writer, WriteOptions) error
	document(WriteOptions) *document
} {
	t.Helper()
	ctx := context.Background()
	s := newInstSample(t)
	saveInstFindings(t, s)
	addTransactions(t, s.db)
	spend, err := Spend(ctx, s.db, SpendOptions{Month: "2026-10", By: []string{ByProvider, ByResource}})
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := GPUHours(ctx, s.db, GPUHourOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	what, err := whatIfOn(s.db, WhatIfOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := Instances(ctx, s.db, InstancesOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	find, err := Findings(ctx, s.db, "2026-10")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Refunds(ctx, s.db, RefundsOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	replay, err := replayOn(s.db, rules.DefaultConfig(), ReplayOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]interface {
		Write(io.Writer, WriteOptions) error
		document(WriteOptions) *document
	}{"spend": spend, "gpuhour": gpu, "whatif": what, "instances": inst, "findings": find, "refunds": ref,
		"replay": replay}
}

// TestEveryReportXLSXRoundTrip writes every report as xlsx and reads it
// back: one sheet per section of its document, in order, then the notes
// sheet; the header row holds the column titles; every numeric cell holds
// exactly the decimal string of the document (no float on the way), and
// text cells hold the text (with a leading apostrophe where it could be
// read as a formula).
func TestEveryReportXLSXRoundTrip(t *testing.T) {
	for name, rep := range everyReport(t) {
		for _, lang := range []string{"zh", "en"} {
			t.Run(name+"_"+lang, func(t *testing.T) {
				opts := WriteOptions{Format: FormatXLSX, Lang: lang}
				f, _ := openXLSX(t, rep, opts)
				norm, err := opts.normalize()
				if err != nil {
					t.Fatal(err)
				}
				doc := rep.document(norm)
				sheets := f.GetSheetList()
				if got, want := len(sheets), len(doc.sections)+1; got != want {
					t.Fatalf("got %d sheets %v, want %d (one per section and the notes)", got, sheets, want)
				}
				checked := 0
				for si, sec := range doc.sections {
					sheet := sheets[si]
					if sec.grid == nil || len(sec.grid.cols) == 0 {
						continue
					}
					for ci, c := range sec.grid.cols {
						ref, _ := excelize.CoordinatesToCellName(ci+1, 1)
						if got := cell(t, f, sheet, ref); got != mdtext.OneLine(c.title) {
							t.Errorf("%s!%s header: got %q, want %q", sheet, ref, got, c.title)
						}
					}
					for ri, row := range sec.grid.rows {
						for ci, want := range row {
							c := sec.grid.cols[ci]
							ref, _ := excelize.CoordinatesToCellName(ci+1, ri+2)
							got := cell(t, f, sheet, ref)
							switch c.kind {
							case colTime:
								continue // an Excel serial date (tested in xlsx_test.go)
							case colText:
								if got != want && got != "'"+want {
									t.Errorf("%s!%s (%s): got %q, want %q", sheet, ref, c.key, got, want)
								}
								if strings.HasPrefix(want, "=") && got == want {
									t.Errorf("%s!%s (%s): %q is not neutralised", sheet, ref, c.key, got)
								}
							default:
								if want == "-" {
									want = "" // an unknown number is an empty cell
								}
								if got != want {
									t.Errorf("%s!%s (%s, a number): got %q, want exactly %q", sheet, ref, c.key, got, want)
								}
							}
							checked++
						}
					}
				}
				if checked == 0 {
					t.Fatal("no cell was checked: the sample gives this report no rows")
				}
			})
		}
	}
}

// TestEveryReportHTML renders every report as one self-contained page that
// holds its title and every section's title.
func TestEveryReportHTML(t *testing.T) {
	for name, rep := range everyReport(t) {
		t.Run(name, func(t *testing.T) {
			opts := WriteOptions{Format: FormatHTML, Lang: "zh"}
			page := string(render(t, rep, opts))
			checkSelfContained(t, page)
			norm, _ := opts.normalize()
			doc := rep.document(norm)
			if !strings.Contains(page, htmlText(doc.title)) {
				t.Errorf("the page has no title %q", doc.title)
			}
			for _, sec := range doc.sections {
				if sec.title != "" && !strings.Contains(page, htmlText(sec.title)) {
					t.Errorf("the page has no section %q", sec.title)
				}
			}
		})
	}
}

// htmlText escapes s as html/template does in text.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// TestEveryReportXLSXPrints reads back the print settings of every report
// workbook (the refunds workbook included): every sheet prints on A4,
// landscape, fitted to one page wide, and a sheet with a table repeats its
// header row on each page; a text column capped in width wraps, so no text
// runs past the table and widens the printed page.
func TestEveryReportXLSXPrints(t *testing.T) {
	for name, rep := range everyReport(t) {
		t.Run(name, func(t *testing.T) {
			opts := WriteOptions{Format: FormatXLSX, Lang: "zh"}
			f, _ := openXLSX(t, rep, opts)
			norm, err := opts.normalize()
			if err != nil {
				t.Fatal(err)
			}
			doc := rep.document(norm)
			titles := map[string]string{}
			for _, dn := range f.GetDefinedName() {
				if dn.Name == "_xlnm.Print_Titles" {
					titles[dn.Scope] = dn.RefersTo
				}
			}
			for si, sheet := range f.GetSheetList() {
				pl, err := f.GetPageLayout(sheet)
				if err != nil {
					t.Fatal(err)
				}
				if pl.Size == nil || *pl.Size != 9 || pl.Orientation == nil || *pl.Orientation != "landscape" ||
					pl.FitToWidth == nil || *pl.FitToWidth != 1 || pl.FitToHeight == nil || *pl.FitToHeight != 0 {
					t.Errorf("%s: page layout %s, want A4 (9) landscape, 1 page wide, any number tall", sheet, pageLayoutText(pl))
				}
				props, err := f.GetSheetProps(sheet)
				if err != nil {
					t.Fatal(err)
				}
				if props.FitToPage == nil || !*props.FitToPage {
					t.Errorf("%s: fit to page is off", sheet)
				}
				if si < len(doc.sections) && doc.sections[si].grid != nil && len(doc.sections[si].grid.cols) > 0 {
					if want := "'" + sheet + "'!$1:$1"; titles[sheet] != want && titles[sheet] != sheet+"!$1:$1" {
						t.Errorf("%s: print titles %q, want the header row %s", sheet, titles[sheet], want)
					}
				}
			}
		})
	}
}

func pageLayoutText(pl excelize.PageLayoutOptions) string {
	s := func(p *int) string {
		if p == nil {
			return "unset"
		}
		return strconv.Itoa(*p)
	}
	o := "unset"
	if pl.Orientation != nil {
		o = *pl.Orientation
	}
	return "size " + s(pl.Size) + ", " + o + ", wide " + s(pl.FitToWidth) + ", tall " + s(pl.FitToHeight)
}

package reports

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

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
	what, err := WhatIf(ctx, s.db, WhatIfOptions{Month: "2026-10", Config: rules.DefaultConfig()})
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
	return map[string]interface {
		Write(io.Writer, WriteOptions) error
		document(WriteOptions) *document
	}{"spend": spend, "gpuhour": gpu, "whatif": what, "instances": inst, "findings": find, "refunds": ref}
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
						if got := cell(t, f, sheet, ref); got != oneLine(c.title) {
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

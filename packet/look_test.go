package packet

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestPacketLook reads the workbook back and compares how it looks with a
// golden dump: every cell's value as shown, formula and style (number format, font,
// fill, alignment), the column widths, row heights, merged cells, frozen
// panes, print setup (A4, orientation, fit to width, margins, header and
// footer, repeated header rows) and defined names. How the workbook is
// written (in memory or streamed) is not part of the look; the look only
// changes when it is the point (go test ./packet -run TestPacketLook -update).
func TestPacketLook(t *testing.T) {
	db := openPacketLedger(t)
	for _, tt := range []struct {
		name string
		opts Options
	}{{"default", Options{}}, {"invoiced_only", Options{InvoicedOnly: true}}} {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := workbook(t, build(t, db, tt.opts))
			got := lookDump(t, f)
			path := filepath.Join("testdata", "TestPacketLook", tt.name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
				for i := 0; i < max(len(gl), len(wl)); i++ {
					var g, w string
					if i < len(gl) {
						g = gl[i]
					}
					if i < len(wl) {
						w = wl[i]
					}
					if g != w {
						t.Fatalf("%s: line %d:\ngot  %s\nwant %s", path, i+1, g, w)
					}
				}
			}
		})
	}
}

// lookDump describes every visible property of the workbook f, one per line.
func lookDump(t *testing.T, f *excelize.File) string {
	t.Helper()
	var b strings.Builder
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, dn := range f.GetDefinedName() {
		fmt.Fprintf(&b, "defined name %s scope %s: %s\n", dn.Name, dn.Scope, dn.RefersTo)
	}
	for _, s := range f.GetSheetList() {
		fmt.Fprintf(&b, "== %s\n", s)
		lo, err := f.GetPageLayout(s)
		check(err)
		fmt.Fprintf(&b, "page size %d orientation %s fit %dx%d\n", *lo.Size, *lo.Orientation, *lo.FitToWidth, *lo.FitToHeight)
		pr, err := f.GetSheetProps(s)
		check(err)
		fmt.Fprintf(&b, "fit to page %v\n", pr.FitToPage != nil && *pr.FitToPage)
		m, err := f.GetPageMargins(s)
		check(err)
		fmt.Fprintf(&b, "margins %v %v %v %v\n", *m.Left, *m.Right, *m.Top, *m.Bottom)
		hf, err := f.GetHeaderFooter(s)
		check(err)
		fmt.Fprintf(&b, "header %q footer %q\n", hf.OddHeader, hf.OddFooter)
		panes, err := f.GetPanes(s)
		check(err)
		fmt.Fprintf(&b, "panes freeze %v y %d top %s active %s selection %+v\n", panes.Freeze, panes.YSplit, panes.TopLeftCell, panes.ActivePane, panes.Selection)
		merged, err := f.GetMergeCells(s)
		check(err)
		for _, mc := range merged {
			fmt.Fprintf(&b, "merged %s:%s\n", mc.GetStartAxis(), mc.GetEndAxis())
		}
		rows, err := f.GetRows(s, excelize.Options{RawCellValue: true})
		check(err)
		cols := 0
		for _, r := range rows {
			cols = max(cols, len(r))
		}
		for c := 1; c <= cols+1; c++ {
			name, _ := excelize.ColumnNumberToName(c)
			w, err := f.GetColWidth(s, name)
			check(err)
			fmt.Fprintf(&b, "width %s %v\n", name, w)
		}
		for r := 1; r <= len(rows)+1; r++ {
			h, err := f.GetRowHeight(s, r)
			check(err)
			fmt.Fprintf(&b, "row %d height %v\n", r, h)
			for c := 1; c <= cols; c++ {
				ref, _ := excelize.CoordinatesToCellName(c, r)
				// As shown: a number through its number format.
				v, err := f.GetCellValue(s, ref, excelize.Options{RawCellValue: false})
				check(err)
				formula, err := f.GetCellFormula(s, ref)
				check(err)
				id, err := f.GetCellStyle(s, ref)
				check(err)
				if v == "" && formula == "" && id == 0 {
					continue
				}
				st, err := f.GetStyle(id)
				check(err)
				fmt.Fprintf(&b, "  %s %q", ref, v)
				if formula != "" {
					fmt.Fprintf(&b, " =%s", formula)
				}
				fmt.Fprintf(&b, " style")
				if st.CustomNumFmt != nil {
					fmt.Fprintf(&b, " fmt %s", *st.CustomNumFmt)
				}
				if st.NumFmt != 0 {
					fmt.Fprintf(&b, " numfmt %d", st.NumFmt)
				}
				if st.Font != nil {
					fmt.Fprintf(&b, " font bold %v size %v", st.Font.Bold, st.Font.Size)
				}
				if len(st.Fill.Color) > 0 {
					fmt.Fprintf(&b, " fill %s %d %v", st.Fill.Type, st.Fill.Pattern, st.Fill.Color)
				}
				if a := st.Alignment; a != nil {
					fmt.Fprintf(&b, " align %s/%s wrap %v", a.Horizontal, a.Vertical, a.WrapText)
				}
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

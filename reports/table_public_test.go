package reports

import (
	"strings"
	"testing"
)

func TestTableAlignsChinese(t *testing.T) {
	tb := NewTable(Column{Key: "file", Title: "文件"}, Column{Key: "new", Title: "新增", Numeric: true})
	tb.Add("autodl-收支明细-2026-10.csv", "3")
	tb.Add("a.csv", "110")
	var b strings.Builder
	if err := tb.Write(&b, FormatTable); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines:\n%s", len(lines), b.String())
	}
	for _, l := range lines[1:] {
		if got, want := displayWidth(l), displayWidth(lines[0]); got != want {
			t.Errorf("line %q is %d cells wide, header %d", l, got, want)
		}
	}
	b.Reset()
	if err := tb.Write(&b, FormatTSV); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "file\tnew\nautodl-收支明细-2026-10.csv\t3\na.csv\t110\n"; got != want {
		t.Errorf("tsv: got %q, want %q", got, want)
	}
	if err := tb.Write(&b, "xml"); err == nil {
		t.Error("unknown format accepted")
	}
}

// TestTSVNeutralisesFormulas: TSV, the default output into a pipe, is
// pasted into spreadsheets as CSV is: text that a spreadsheet would
// evaluate gets a leading apostrophe; numbers and the lone "-" of an
// unknown value stay as they are.
func TestTSVNeutralisesFormulas(t *testing.T) {
	tb := NewTable(Column{Key: "name", Title: "name"}, Column{Key: "amount", Title: "amount", Numeric: true})
	for _, r := range [][2]string{{`=HYPERLINK("http://x","y")`, "-3.00"}, {"+cmd|' /C calc'!A0", "1"}, {"@SUM(1)", "2"},
		{"-2+3", "4"}, {"-", "5"}, {"plain", "6"}} {
		tb.Add(r[0], r[1])
	}
	var b strings.Builder
	if err := tb.Write(&b, FormatTSV); err != nil {
		t.Fatal(err)
	}
	want := "name\tamount\n'=HYPERLINK(\"http://x\",\"y\")\t-3.00\n'+cmd|' /C calc'!A0\t1\n'@SUM(1)\t2\n'-2+3\t4\n-\t5\nplain\t6\n"
	if got := b.String(); got != want {
		t.Errorf("tsv:\ngot  %q\nwant %q", got, want)
	}
}

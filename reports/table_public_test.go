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

package xlsxcell

import (
	"archive/zip"
	"bytes"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

func TestSerial(t *testing.T) {
	tz := time.FixedZone("CST", 8*3600)
	for _, tc := range []struct {
		name string
		t    time.Time
		want string
	}{
		{"epoch", time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC), "0"},
		{"1900-03-01", time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC), "61"},
		{"noon", time.Date(2026, 10, 3, 12, 0, 0, 0, time.UTC), "46298.5"},
		{"wall clock of its zone, not the instant", time.Date(2026, 10, 3, 6, 0, 0, 0, tz), "46298.25"},
		{"one second", time.Date(2026, 10, 3, 0, 0, 1, 0, time.UTC), "46298.0000115741"},
	} {
		if got := Serial(tc.t); got != tc.want {
			t.Errorf("%s: got %s want %s", tc.name, got, tc.want)
		}
	}
}

func TestNeutralise(t *testing.T) {
	for in, want := range map[string]string{"": "", "=1+1": "'=1+1", "+86 138": "'+86 138", "-cmd": "'-cmd",
		"@SUM(1)": "'@SUM(1)", "\tx": "'\tx", "\rx": "'\rx", "训练机": "训练机", "a=b": "a=b"} {
		if got := Neutralise(in); got != want {
			t.Errorf("Neutralise(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNumericFormulaCaches: after the rewrite, a formula cell excelize wrote
// with a string cache is a number cell that keeps its formula and value, and
// the workbook still opens.
func TestNumericFormulaCaches(t *testing.T) {
	f := excelize.NewFile()
	f.SetCellDefault("Sheet1", "A1", "1.5")
	f.SetCellDefault("Sheet1", "A2", "2.25")
	// As the writers do: the exact cached value first, then the formula.
	if err := f.SetCellDefault("Sheet1", "A3", "3.75"); err != nil {
		t.Fatal(err)
	}
	if err := f.SetCellFormula("Sheet1", "A3", "SUM(A1:A2)"); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(sheet1(t, buf.Bytes()), []byte(`t="str"><f>`)) {
		t.Fatal("excelize wrote no string-typed formula cache: this test no longer tests the rewrite")
	}
	out, err := NumericFormulaCaches(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sheet1(t, out), []byte(`t="str"><f>`)) {
		t.Error("a formula cell still has a string cache")
	}
	g, err := excelize.OpenReader(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := g.GetCellFormula("Sheet1", "A3"); got != "SUM(A1:A2)" {
		t.Errorf("formula %q, want SUM(A1:A2)", got)
	}
	if typ, _ := g.GetCellType("Sheet1", "A3"); typ == excelize.CellTypeInlineString || typ == excelize.CellTypeSharedString {
		t.Errorf("A3 type %v, want a number", typ)
	}
	if _, err := NumericFormulaCaches([]byte("not a zip")); err == nil {
		t.Error("garbage: want an error")
	}
}

// sheet1 returns the XML of the first worksheet of an xlsx package.
func sheet1(t *testing.T, data []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, zf := range zr.File {
		if zf.Name == "xl/worksheets/sheet1.xml" {
			rc, err := zf.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatal("no xl/worksheets/sheet1.xml")
	return nil
}

// TestSerialNumber checks SerialNumber against the decimal Serial parsed,
// on every second of a day, halves of a 1e-10 day, and times across the
// centuries and past its integer range.
func TestSerialNumber(t *testing.T) {
	check := func(tm time.Time) {
		t.Helper()
		want, err := strconv.ParseFloat(Serial(tm), 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := SerialNumber(tm); got != want {
			t.Fatalf("SerialNumber(%v) = %v, want %v (Serial %s)", tm, got, want, Serial(tm))
		}
	}
	day := time.Date(2026, 10, 31, 0, 0, 0, 0, time.UTC)
	for s := 0; s < 86400; s++ {
		check(day.Add(time.Duration(s) * time.Second))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		check(excelEpoch.Add(time.Duration(rng.Int64N(200*365*86400)) * time.Second))
	}
	for _, tm := range []time.Time{excelEpoch, excelEpoch.Add(-time.Second), time.Date(4363, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(4364, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 10, 1, 8, 0, 0, 0, time.FixedZone("CST", 8*3600))} {
		check(tm)
	}
}

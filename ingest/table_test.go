package ingest

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TestWorkbookOpenedWhereItLies checks that a workbook given as a file is
// opened from the file (excelize.OpenFile, which names the workbook's
// Path) rather than read whole into memory (excelize.OpenReader), also
// under the progress counter, and that its rows are what the reader path
// reads. On Linux the file open is read even after its name was given to
// another file.
func TestWorkbookOpenedWhereItLies(t *testing.T) {
	orig := filepath.Join("testdata", "wechatpay", "wechatpay_serial.xlsx")
	firstRows := func(t *testing.T, src *source) [][]string {
		t.Helper()
		tb, err := src.openTable(0)
		if err != nil {
			t.Fatal(err)
		}
		defer closeTable(tb)
		var out [][]string
		for range 5 {
			rec, err := tb.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, slices.Clone(rec))
		}
		return out
	}
	b, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	want := func() [][]string { // through a plain reader: read whole
		src, err := openSource(orig, struct{ io.Reader }{mustOpen(t, orig)})
		if err != nil {
			t.Fatal(err)
		}
		defer src.close()
		if src.book.Path != "" {
			t.Fatalf("a workbook read through a reader has the path %q", src.book.Path)
		}
		return firstRows(t, src)
	}()
	if len(want) < 2 {
		t.Fatalf("the sample workbook reads %d rows", len(want))
	}
	for _, progress := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "bill.xlsx")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		f := mustOpen(t, path)
		var r io.Reader = f
		if progress {
			r = new(Progress).start(path, int64(len(b)), f)
		}
		if runtime.GOOS == "linux" { // the name now names another file
			if err := os.Rename(path, path+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte("平台,账号\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		src, err := openSource(path, r)
		if err != nil {
			t.Fatalf("progress %v: %v", progress, err)
		}
		if src.book == nil || src.book.Path == "" {
			t.Errorf("progress %v: the workbook was not opened from its file", progress)
		}
		if got := firstRows(t, src); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("progress %v: rows %q, want %q", progress, got, want)
		}
		src.close()
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

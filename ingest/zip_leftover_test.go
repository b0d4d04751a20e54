package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestZipMemberLeavesNoFile: while a ZIP member is read, its extracted
// copy has no name in the temporary folder (on Unix), so an import killed
// at that moment leaves nothing behind.
func TestZipMemberLeavesNoFile(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("a.csv")
	w.Write([]byte("平台,实例ID,费用类型,开始时间,结束时间,应付金额\nAutoDL,i-1,GPU计算,2026-10-01 08:00,2026-10-01 09:00,1.88\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	_, za := sniffZip(bytes.NewReader(data), int64(len(data)))
	seen := 0
	err := walkZip(context.Background(), "t.zip", za, int64(len(data)), ZipLimits{}, func(m zipMember) {
		if m.err != nil {
			t.Fatal(m.err)
		}
		seen++
		left, _ := filepath.Glob(filepath.Join(tmp, "gpubill-*"))
		if len(left) > 0 {
			t.Errorf("while %s is read, the temporary folder holds %v", m.path, left)
		}
		if _, err := m.file.Seek(0, 0); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil || seen != 1 {
		t.Fatalf("walk: %v, %d members", err, seen)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

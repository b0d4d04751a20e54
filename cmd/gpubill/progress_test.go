package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ingest"
)

func TestProgressLine(t *testing.T) {
	mid := ingest.ProgressSnapshot{File: "/data/bill.csv", Size: 100e6, Read: 25e6, Rows: 412000, Elapsed: 2 * time.Second}
	done := mid
	done.Read = done.Size
	book := ingest.ProgressSnapshot{File: "book.xlsx", Size: 5e6, Read: 5e6, Rows: 1234567, Elapsed: 65 * time.Second, Workbook: true}
	for _, tc := range []struct {
		s        ingest.ProgressSnapshot
		lang     string
		want     string
		describe string
	}{
		{mid, "en", "importing bill.csv: 412,000 rows · 12.5 MB/s · 25% · about 6s left", "a quarter read in 2 s"},
		{mid, "zh", "正在导入 bill.csv：412,000 行 · 12.5 MB/s · 25% · 约剩 6s", "the same in Chinese"},
		{done, "en", "importing bill.csv: all 412,000 rows read; building indexes and committing…", "all read"},
		{book, "en", "importing book.xlsx: 1,234,567 rows · 1m05s", "a workbook: no ETA from bytes"},
		{book, "zh", "正在导入 book.xlsx：1,234,567 行 · 1m05s", "a workbook in Chinese"},
	} {
		if got := progressLine(tc.s, tc.lang); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.describe, got, tc.want)
		}
	}
}

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234", 100000: "100,000"} {
		if got := groupDigits(n); got != want {
			t.Errorf("groupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}

// Progress is drawn only on a terminal: into a buffer (a pipe, a file)
// there is no Progress and nothing is written.
func TestNoProgressWhenPiped(t *testing.T) {
	var stderr bytes.Buffer
	a := &app{stderr: &stderr, lang: "en"}
	p, stop := a.showProgress()
	if p != nil {
		t.Error("a Progress for a stderr that is no terminal")
	}
	time.Sleep(progressDelay + progressEvery)
	stop()
	if stderr.Len() != 0 {
		t.Errorf("wrote %q to a piped stderr", stderr.String())
	}
}

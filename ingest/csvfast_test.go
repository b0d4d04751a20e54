package ingest

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// csvRecords reads every record of text with read, noting each record's
// cells with the line of each cell, and the error that ends the text.
func csvRecords(read func() ([]string, error), pos func(int) int) string {
	var b strings.Builder
	for n := 0; n < 10000; n++ {
		rec, err := read()
		if err != nil {
			fmt.Fprintf(&b, "end: %v\n", err)
			return b.String()
		}
		for i, cell := range rec {
			fmt.Fprintf(&b, "%q@%d ", cell, pos(i))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// The reference: encoding/csv with newCSVTable's settings.
func encodingCSVRecords(text string, comma rune) string {
	r := csv.NewReader(strings.NewReader(text))
	r.Comma, r.FieldsPerRecord, r.ReuseRecord = comma, -1, true
	return csvRecords(r.Read, func(i int) int { l, _ := r.FieldPos(i); return l })
}

func fastCSVRecords(src io.Reader, comma rune) string {
	r := newCSVReader(src, comma)
	return csvRecords(r.Read, func(i int) int { l, _ := r.FieldPos(i); return l })
}

func checkCSVReader(t *testing.T, text string, comma rune) {
	t.Helper()
	want := encodingCSVRecords(text, comma)
	if got := fastCSVRecords(strings.NewReader(text), comma); got != want {
		t.Fatalf("csvReader(%q, %q):\n%s\nencoding/csv:\n%s", text, comma, got, want)
	}
	// Read a byte at a time, so that lines end in the middle of reads.
	if got := fastCSVRecords(iotest.OneByteReader(strings.NewReader(text)), comma); got != want {
		t.Fatalf("csvReader(%q, %q) a byte at a time:\n%s\nencoding/csv:\n%s", text, comma, got, want)
	}
}

func TestCSVReaderIsEncodingCSV(t *testing.T) {
	long := strings.Repeat("x", csvBufferSize+10)
	for _, text := range []string{
		"", "\n", "\r\n", "\r", "a", "a\n", "a\r\n", "a\r", "a\r\r", "a\r\r\n", "\r\r\n",
		"a,b,c\n1,2,3\n", "a,b\n\n\n1,2\n", "a,b\r\n\r\n1,2\r\n", ",,\n,\n", "a,b\n1,2,3,4\n5\n",
		"平台,账号\nAutoDL,lab-1\n", " a , b \n",
		"a,b\n\"1,5\",2\nx,y\n", "a\n\"multi\nline\",2\nz,w\n", "a,b\n1,\"bad\"x\n3,4\n", "a,b\n1,x\"y\n",
		"a,b\n\"open\n", "h1,h2\n" + long + ",1\nnext,2\n", long + "\n\"q\",1\n",
		"a\tb\n1\t2\n", "a;b\n\"x;y\";2\n",
	} {
		for _, comma := range []rune{',', '\t', ';', '，'} {
			checkCSVReader(t, text, comma)
		}
	}
}

func FuzzCSVReader(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "a,\"b\nc\"\r\n\r\nx", "\"\"\"\n", "a\r\r\n,\n"} {
		f.Add(s, byte(0))
	}
	f.Fuzz(func(t *testing.T, text string, c byte) {
		comma := []rune{',', '\t', ';', '|'}[c%4]
		checkCSVReader(t, text, comma)
	})
}

// A line too long for the limit ends the text with lineLimitReader's error
// on either path.
func TestCSVReaderKeepsTheLineLimit(t *testing.T) {
	text := "a,b\n" + strings.Repeat("x", maxLineBytes+1) + "\n"
	r := newCSVReader(&lineLimitReader{r: bytes.NewReader([]byte(text)), line: 1}, ',')
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Read()
	if _, ok := err.(*lineTooLongError); !ok {
		t.Fatalf("err %v, want a lineTooLongError", err)
	}
}

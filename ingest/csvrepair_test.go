package ingest

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io"
	"strings"
	"testing"
)

func repairAll(t testing.TB, in string, delim rune, bufSize int) string {
	t.Helper()
	var r io.Reader = strings.NewReader(in)
	if bufSize > 0 {
		r = bufio.NewReaderSize(r, bufSize)
	}
	out, err := io.ReadAll(newQuoteRepair(r, delim))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestQuoteRepair(t *testing.T) {
	long := strings.Repeat("x", 10000)
	tests := []struct {
		name, in, want string
		delim          rune
	}{
		{"plain text unchanged", "a,b,c\n1,2,3\n", "a,b,c\n1,2,3\n", ','},
		{"valid quoting unchanged", "\"a,b\",\"say \"\"hi\"\"\",\"\"\n", "\"a,b\",\"say \"\"hi\"\"\",\"\"\n", ','},
		{"multi-line quoted cell unchanged", "\"line 1\nline \"\"2\"\"\",x\r\ny,z", "\"line 1\nline \"\"2\"\"\",x\r\ny,z", ','},
		{"tab after closing quote dropped", "\"3985734\"\t,\"129847129\"\t,\"/\"\n", "\"3985734\",\"129847129\",\"/\"\n", ','},
		{"spaces before the line end dropped", "\"a\"  \r\n\"b\" ", "\"a\"\r\n\"b\"", ','},
		{"bare quote quoted", "x,打开\"多多视频\",y\n", "x,\"打开\"\"多多视频\"\"\",y\n", ','},
		{"bare quote at line end", "x,a\"b\"\n", "x,\"a\"\"b\"\"\"\n", ','},
		{"tab-separated: tab after quote is the delimiter", "\"a\"\t\"b\"\n", "\"a\"\t\"b\"\n", '\t'},
		{"text after closing quote left alone", "\"a\"b,\"c\"\t,d\"e\n", "\"a\"b,\"c\"\t,d\"e\n", ','},
		{"unterminated quote left alone", "a,\"b,c\nd,e\n", "a,\"b,c\nd,e\n", ','},
		{"long line", long + ",\"" + long + "\"\t,x\"y\n", long + ",\"" + long + "\",\"x\"\"y\"\n", ','},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, size := range []int{0, 4096} {
				if got := repairAll(t, tc.in, tc.delim, size); got != tc.want {
					t.Errorf("buffer %d: got %q, want %q", size, got, tc.want)
				}
			}
		})
	}
}

// TestQuoteRepairReadsWeChat: the two slips of the WeChat Pay export read as
// the cells that were meant.
func TestQuoteRepairReadsWeChat(t *testing.T) {
	in := "2019-09-26 12:45:27,\"商户消费\",\"云膳\",\"总共消费:28.16\",\"支出\",¥28.16,\"中国银行(1234)\",\"支付成功\",\"3985734\"\t,\"129847129\"\t,\"/\"\n" +
		"2021-07-18 10:48:09,商户消费,打开拼多多，点击底部\"多多视频\",\"/\",收入,¥0.07,/,充值成功,1605 ,1010   ,\"/\"\n"
	r := csv.NewReader(newQuoteRepair(strings.NewReader(in), ','))
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || len(recs[0]) != 11 || len(recs[1]) != 11 {
		t.Fatalf("got %q, want 2 records of 11 cells", recs)
	}
	if recs[0][8] != "3985734" || recs[0][9] != "129847129" || recs[1][2] != "打开拼多多，点击底部\"多多视频\"" {
		t.Errorf("cells %q %q %q", recs[0][8], recs[0][9], recs[1][2])
	}
}

// FuzzQuoteRepair: text that encoding/csv reads passes through unchanged,
// and the repair never fails or loses line breaks.
func FuzzQuoteRepair(f *testing.F) {
	for _, s := range []string{"a,b\n", "\"a\"\t,b\n", "x\"y,z\n", "\"a\nb\",c\r\n", "\"a\"\"b\"", "\"", "a,\"b"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := io.ReadAll(newQuoteRepair(bytes.NewReader(data), ','))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(out, []byte("\n")) != bytes.Count(data, []byte("\n")) {
			t.Fatalf("line breaks changed: %q → %q", data, out)
		}
		r := csv.NewReader(bytes.NewReader(data))
		r.FieldsPerRecord = -1
		if _, err := r.ReadAll(); err == nil && !bytes.Equal(out, data) {
			t.Fatalf("valid CSV changed: %q → %q", data, out)
		}
	})
}

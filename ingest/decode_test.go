package ingest

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

func TestDecodeText(t *testing.T) {
	const text = "平台,金额\n恒源云,￥1.88\n"
	enc := func(e interface{ Bytes([]byte) ([]byte, error) }, s string) []byte {
		b, err := e.Bytes([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// A long ASCII prefix puts a multi-byte character across the 64 KiB
	// sniff window: it must still be read as UTF-8.
	long := strings.Repeat("a", sniffSize-1) + "恒\n"
	gb18030Only := "平台,说明\nAutoDL,€ 欧元符号与\u20ac\n" // € is in GB18030 but was not in GBK's first edition
	for _, tc := range []struct {
		name    string
		in      []byte
		want    string
		wantEnc string
	}{
		{"utf-8", []byte(text), text, EncUTF8},
		{"utf-8 bom", append([]byte("\xEF\xBB\xBF"), text...), text, EncUTF8BOM},
		{"gbk", enc(simplifiedchinese.GBK.NewEncoder(), text), text, EncGB18030},
		{"gb18030", enc(simplifiedchinese.GB18030.NewEncoder(), gb18030Only), gb18030Only, EncGB18030},
		{"utf-16le bom", enc(unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder(), text), text, EncUTF16LE},
		{"utf-16be bom", enc(unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewEncoder(), text), text, EncUTF16BE},
		{"utf-16le without bom", enc(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewEncoder(), text), text, EncUTF16LE},
		{"utf-8 split at the sniff window", []byte(long), long, EncUTF8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, got, err := decodeText(bytes.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.wantEnc {
				t.Errorf("encoding = %q, want %q", got, tc.wantEnc)
			}
			out, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("decoded %q, want %q", truncate(string(out)), truncate(tc.want))
			}
		})
	}
	if _, _, err := decodeText(bytes.NewReader([]byte("a\x00\x01\x02b\x00\x00\x00\xff"))); err == nil {
		t.Error("binary input decoded without error")
	}
}

func truncate(s string) string {
	if len(s) > 60 {
		return s[:30] + "…" + s[len(s)-30:]
	}
	return s
}

func TestDetectDelimiter(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want rune
	}{
		{"comma", "a,b,c\n1,2,3\n", ','},
		{"tab", "a\tb\tc\n1\t2\t3\n", '\t'},
		{"semicolon", "a;b;c\n1;2;3\n", ';'},
		{"commas inside quotes do not count", "\"x,y,z,w\"\ta\tb\n", '\t'},
		{"preamble then a tab header", "导出时间: 2026-10-01, 共3笔\n\n平台\t时间\t类型\t金额\n", '\t'},
		{"tie goes to comma", "a,b\tc\n", ','},
		{"no delimiter", "just text\n", ','},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := detectDelimiter([]byte(tc.in)); got != tc.want {
				t.Errorf("detectDelimiter(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestInputErrorFormat(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  InputError
		want string
	}{
		{"csv cell", InputError{File: "b.csv", Line: 7, Col: 6, Column: "应付金额", Msg: `"12,3O" is not an amount`}, `b.csv:7:6: column 应付金额: "12,3O" is not an amount`},
		{"csv line", InputError{File: "b.csv", Line: 3, Msg: "broken quote"}, "b.csv:3: broken quote"},
		{"whole file", InputError{File: "b.csv", Msg: "empty file"}, "b.csv: empty file"},
		{"xlsx cell", InputError{File: "b.xlsx", Sheet: "Sheet1", Line: 12, Col: 4, Column: "金额", Msg: "bad"}, "b.xlsx: Sheet1!D12: column 金额: bad"},
		{"xlsx column AA", InputError{File: "b.xlsx", Sheet: "S", Line: 2, Col: 27, Msg: "bad"}, "b.xlsx: S!AA2: bad"},
		{"xlsx sheet", InputError{File: "b.xlsx", Sheet: "S", Msg: "cannot open worksheet", Err: io.ErrUnexpectedEOF}, "b.xlsx: S: cannot open worksheet: unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

package ledger

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
)

// AppendTime appends t as FormatTime renders it (time.RFC3339 has a fast
// path, and is TimeLayout for a UTC time).
func AppendTime(b []byte, t time.Time) []byte { return t.UTC().AppendFormat(b, time.RFC3339) }

// appendJSONStrings appends cells as the JSON array encoding/json writes for
// a []string (HTML characters and U+2028/U+2029 escaped, invalid UTF-8 as
// U+FFFD): plain cells are copied as they are, any other through
// encoding/json.
func appendJSONStrings(b []byte, cells []string) []byte {
	b = append(b, '[')
	for i, c := range cells {
		if i > 0 {
			b = append(b, ',')
		}
		if jsonPlain(c) {
			b = append(b, '"')
			b = append(b, c...)
			b = append(b, '"')
			continue
		}
		q, _ := json.Marshal(c) // a string always encodes
		b = append(b, q...)
	}
	return append(b, ']')
}

// jsonPlain reports whether encoding/json writes s unchanged between quotes:
// valid UTF-8 without control characters, '"', '\\', HTML characters or
// U+2028/U+2029. One table look-up a byte; the rest only for cells with
// non-ASCII text (decoding runes was a tenth of the rendering on Chinese
// bills, and a switch of six comparisons a byte 5% of an import's CPU).
func jsonPlain(s string) bool {
	var seen uint8
	for i := 0; i < len(s); i++ {
		seen |= jsonByte[s[i]]
	}
	switch {
	case seen == 0:
		return true
	case seen&jsonEscaped != 0:
		return false
	}
	return utf8.ValidString(s) && !strings.Contains(s, "\u2028") && !strings.Contains(s, "\u2029")
}

// What jsonPlain's table says of a byte.
const (
	jsonEscaped = 1 << iota // encoding/json escapes it
	jsonHigh                // part of a non-ASCII character
)

var jsonByte = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c < 0x20, c == '"', c == '\\', c == '<', c == '>', c == '&':
			t[c] = jsonEscaped
		case c >= 0x80:
			t[c] = jsonHigh
		}
	}
	return t
}()

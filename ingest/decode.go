package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Encodings reported by decodeText (Result.Encoding, CheckResult.Encoding).
const (
	EncUTF8    = "utf-8"
	EncUTF8BOM = "utf-8-bom"
	EncUTF16LE = "utf-16le"
	EncUTF16BE = "utf-16be"
	EncGB18030 = "gb18030" // GBK files decode as GB18030, its superset
)

// sniffSize is how much of a file decodeText looks at to choose an
// encoding, and how much decoded text detectDelimiter looks at.
const sniffSize = 64 << 10

// errBinary is returned for input that is no text (NUL bytes in a file that
// is not UTF-16).
var errBinary = errors.New("binary data, not a text bill (CSV/TSV) or XLSX")

// decodeText wraps r so that it yields UTF-8, streaming. The encoding is
// chosen from a byte-order mark if there is one (UTF-8, UTF-16 LE/BE); else
// from the first 64 KiB: UTF-16 without BOM if every other byte is NUL,
// UTF-8 if the bytes are valid UTF-8, GB18030 (a superset of GBK) otherwise.
// A BOM is removed.
func decodeText(r io.Reader) (io.Reader, string, error) {
	br := bufio.NewReaderSize(r, sniffSize)
	head, err := br.Peek(sniffSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, "", err
	}
	full := len(head) == sniffSize
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		br.Discard(3)
		return br, EncUTF8BOM, nil
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		return transform.NewReader(br, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder()), EncUTF16LE, nil
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return transform.NewReader(br, unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder()), EncUTF16BE, nil
	}
	if bytes.IndexByte(head, 0) >= 0 {
		switch utf16Guess(head) {
		case EncUTF16LE:
			return transform.NewReader(br, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder()), EncUTF16LE, nil
		case EncUTF16BE:
			return transform.NewReader(br, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder()), EncUTF16BE, nil
		}
		return nil, "", errBinary
	}
	if full {
		head = dropPartialRune(head)
	}
	if utf8.Valid(head) || mixedUTF8(head) {
		return br, EncUTF8, nil
	}
	return transform.NewReader(&gbkChecker{r: br, line: 1}, simplifiedchinese.GB18030.NewDecoder()), EncGB18030, nil
}

// gbkChecker refuses, in text read as GBK/GB18030, a line whose bytes are
// UTF-8 holding two or more characters of three bytes (Chinese): a row
// pasted in from a UTF-8 file. GB18030 would decode it without an error,
// as noise ("计算" reads "璁＄畻"), stored silently. A GBK line is valid
// UTF-8 for a character or two of two bytes (元 D4 AA is also "Ԫ"), seldom
// for two three-byte ones and the rest of its line besides.
type gbkChecker struct {
	r    io.Reader
	line int    // the line being read, 1-based
	cur  []byte // its start, when it began in an earlier read
	long bool   // longer than maxCheckedLine: not checked
	err  error
}

// maxCheckedLine is the longest line gbkChecker holds across reads.
const maxCheckedLine = 1 << 20

func (c *gbkChecker) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	b := p[:n]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			c.hold(b)
			break
		}
		line := b[:i]
		if len(c.cur) > 0 || c.long {
			c.hold(line)
			line = c.cur
		}
		if !c.long && utf8Line(line) {
			c.err = c.refusal()
			return 0, c.err
		}
		c.cur, c.long = c.cur[:0], false
		c.line++
		b = b[i+1:]
	}
	if err == io.EOF && !c.long && utf8Line(c.cur) {
		c.err = c.refusal()
		return 0, c.err
	}
	return n, err
}

func (c *gbkChecker) hold(b []byte) {
	if c.long || len(c.cur)+len(b) > maxCheckedLine {
		c.long, c.cur = true, c.cur[:0]
		return
	}
	c.cur = append(c.cur, b...)
}

func (c *gbkChecker) refusal() error {
	return &encodingError{line: c.line, msg: "a line in UTF-8 in a file read as GBK/GB18030 (a row pasted in from a UTF-8 file?): save the whole file in one encoding"}
}

// utf8Line reports a line that is valid UTF-8 with at least two characters
// of three bytes or more.
func utf8Line(b []byte) bool {
	wide := 0
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			b = b[1:]
			continue
		}
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			return false
		}
		if n >= 3 {
			wide++
		}
		b = b[n:]
	}
	return wide >= 2
}

// mixedUTF8 reports text that is UTF-8 up to an invalid byte and already
// wrote whole lines of Chinese in UTF-8 before it: a UTF-8 file with rows
// pasted in from a GBK one. Read as UTF-8, the first bad line is refused
// (textChecker); read as GB18030 the header would turn to noise. GBK text
// can look like UTF-8 for a character or two (C6 BD, 平, is also "ƽ"), but
// not for whole lines of three-byte characters.
func mixedUTF8(b []byte) bool {
	wide, lineWide, lines := 0, 0, 0
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n <= 1:
			return lines > 0 && wide >= 2
		case r == '\n':
			if lineWide > 0 {
				lines++
			}
			lineWide = 0
		case n >= 3:
			wide++
			lineWide++
		}
		b = b[n:]
	}
	return false
}

// textChecker passes decoded text through and fails, naming the line, at
// the first byte that is not UTF-8 (a row in another encoding) or at a
// replacement character U+FFFD (a byte the decoder could not read, or a
// character an earlier conversion already lost): either would be stored
// as text nobody wrote. It also counts the lines for that message.
type textChecker struct {
	r    io.Reader
	enc  string
	line int    // 1-based line of the next byte
	tail []byte // an incomplete character at the end of the last read
	err  error
}

// encodingError is the first line of text that does not decode.
type encodingError struct {
	line int
	msg  string
}

func (e *encodingError) Error() string { return e.msg }

// encName is an encoding as users know it.
func encName(enc string) string {
	switch enc {
	case EncUTF8, EncUTF8BOM:
		return "UTF-8"
	case EncGB18030:
		return "GBK/GB18030"
	case EncUTF16LE, EncUTF16BE:
		return "UTF-16"
	}
	return enc
}

func newTextChecker(r io.Reader, enc string) *textChecker {
	return &textChecker{r: r, enc: enc, line: 1}
}

func (c *textChecker) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	b := p[:n]
	// The characters cut by the last read's end are checked with this one
	// (without them, b is checked where it is, not copied).
	buf := b
	if len(c.tail) > 0 {
		buf = append(c.tail, b...)
		c.tail = nil
	}
	for i := 0; i < len(buf); {
		if buf[i] < utf8.RuneSelf {
			if buf[i] == '\n' {
				c.line++
			}
			i++
			continue
		}
		if !utf8.FullRune(buf[i:]) && err == nil {
			c.tail = append([]byte(nil), buf[i:]...)
			break
		}
		r, size := utf8.DecodeRune(buf[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			c.err = &encodingError{line: c.line, msg: "not valid " + encName(c.enc) + " text (a row saved in another encoding, such as GBK?): save the whole file in one encoding"}
		case r == utf8.RuneError:
			c.err = &encodingError{line: c.line, msg: "the replacement character U+FFFD (bytes that are no " + encName(c.enc) + " text, or characters lost by an earlier conversion): save the whole file in one encoding"}
		}
		if c.err != nil {
			return 0, c.err
		}
		i += size
	}
	return n, err
}

// utf16Guess tells UTF-16 without BOM from binary data: text in UTF-16 has a
// NUL in the high byte of nearly every ASCII character (line breaks,
// separators, digits), all on the same side.
func utf16Guess(b []byte) string {
	var even, odd int
	n := len(b) &^ 1
	for i := 0; i < n; i += 2 {
		if b[i] == 0 {
			even++
		}
		if b[i+1] == 0 {
			odd++
		}
	}
	pairs := n / 2
	if pairs < 2 {
		return ""
	}
	switch {
	case odd*10 >= pairs*3 && even*20 < pairs:
		return EncUTF16LE
	case even*10 >= pairs*3 && odd*20 < pairs:
		return EncUTF16BE
	}
	return ""
}

// dropPartialRune cuts an incomplete UTF-8 sequence from the end of a sniffed
// prefix, so a character split by the sniff window does not look invalid.
func dropPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// detectDelimiter chooses the field separator of decoded text from its first
// lines: the candidate (comma, tab, semicolon) that occurs most often outside
// quotes on a single line, the header line being the widest. Ties go to the
// comma, then the tab. Excel's "Unicode text" (UTF-16) is tab-separated.
func detectDelimiter(sample []byte) rune {
	cands := []byte{',', '\t', ';'}
	best := map[byte]int{}
	lines := 0
	inQuote := false
	count := map[byte]int{}
	flush := func() {
		for _, c := range cands {
			best[c] = max(best[c], count[c])
			count[c] = 0
		}
		lines++
	}
	for _, c := range sample {
		switch {
		case c == '"':
			inQuote = !inQuote
		case c == '\n' && !inQuote:
			flush()
			if lines >= 30 {
				goto done
			}
		case !inQuote && (c == ',' || c == '\t' || c == ';'):
			count[c]++
		}
	}
	flush()
done:
	delim, n := ',', best[',']
	if best['\t'] > n {
		delim, n = '\t', best['\t']
	}
	if best[';'] > n {
		delim = ';'
	}
	return delim
}

// crOnly reports text whose lines end with CR alone (classic Mac OS, and
// Excel's "CSV (Macintosh)"): a CR and no LF in the sniffed start.
func crOnly(head []byte) bool {
	return bytes.IndexByte(head, '\r') >= 0 && bytes.IndexByte(head, '\n') < 0
}

// crToLF turns every CR into LF.
type crToLF struct{ r io.Reader }

func (c crToLF) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\r' {
			p[i] = '\n'
		}
	}
	return n, err
}

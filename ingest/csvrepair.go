package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Two quoting slips of real exports that encoding/csv rejects, repaired on
// the decoded text before the CSV reader sees it (WeChat Pay's CSV has both):
//
//   - white space between a closing quote and the delimiter or the line end:
//     "3985734"<TAB>,"129847129"<TAB>,"/" — the white space is dropped (cells
//     are trimmed anyway);
//   - a quote inside an unquoted field: 打开拼多多，点击底部"多多视频" — the
//     field is quoted and its quotes doubled, so the quotes stay literal text
//     (what encoding/csv's LazyQuotes does for such a field).
//
// Text encoding/csv reads without error passes through byte for byte, and
// line breaks are never added or removed, so line numbers in messages stay
// those of the file. Anything else (text after a closing quote, a quoted
// field that never ends) is left as it is, and everything after it too, so
// the CSV reader reports it exactly as before.
//
// Lines without a quote that do not continue a quoted field (nearly every
// line of a machine-written bill) are copied with one scan for '"'.
type quoteRepair struct {
	r        *bufio.Reader
	delim    byte
	inQuotes bool   // a quoted field continues from the previous line
	giveUp   bool   // an unrepairable slip was seen: copy the rest unchanged
	line     []byte // a line longer than the reader's buffer, being collected
	out      []byte // repaired text of the current line
	cur      []byte // what Read returns next: the rest of out, or of an unchanged line in the reader's buffer
	err      error  // the reader's error, returned once out is drained
}

// newQuoteRepair wraps decoded text whose field separator is delim.
func newQuoteRepair(r io.Reader, delim rune) io.Reader {
	if delim >= 0x80 {
		return r
	}
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 4096 {
		br = bufio.NewReaderSize(r, sniffSize)
	}
	return &quoteRepair{r: br, delim: byte(delim)}
}

func (q *quoteRepair) Read(p []byte) (int, error) {
	for len(q.cur) == 0 {
		if q.err != nil {
			return 0, q.err
		}
		q.fill()
	}
	n := copy(p, q.cur)
	q.cur = q.cur[n:]
	return n, nil
}

// fill makes cur the next line, repaired (or records the reader's error).
// An unchanged line is served from the reader's buffer, which stays valid
// until the next ReadSlice, i.e. until cur is drained.
func (q *quoteRepair) fill() {
	s, err := q.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		if len(q.line)+len(s) > maxLineBytes {
			// A line too long for any bill: repair no more and pass the text
			// on, so that the reader downstream (lineLimitReader) refuses it
			// instead of this one collecting it whole.
			q.giveUp = true
			q.cur = append(q.line, s...)
			q.line = nil
			return
		}
		q.line = append(q.line, s...)
		return
	}
	if len(q.line) > 0 {
		s = append(q.line, s...)
		q.line = q.line[:0]
	}
	if err != nil {
		q.err = err
	}
	if len(s) == 0 {
		return
	}
	if q.giveUp || (!q.inQuotes && bytes.IndexByte(s, '"') < 0) {
		q.cur = s
		return
	}
	q.out = q.out[:0]
	q.repairLine(s)
	q.cur = q.out
}

// repairLine runs the field state machine over one line (with its line
// break, if any) and appends the repaired text to out.
func (q *quoteRepair) repairLine(s []byte) {
	isEnd := func(c byte) bool { return c == q.delim || c == '\n' || c == '\r' }
	i := 0
	for i < len(s) {
		if q.inQuotes {
			// Inside a quoted field: copy up to the next quote.
			j := bytes.IndexByte(s[i:], '"')
			if j < 0 {
				q.out = append(q.out, s[i:]...)
				return // the field continues on the next line
			}
			q.out = append(q.out, s[i:i+j+1]...)
			i += j + 1
			if i < len(s) && s[i] == '"' { // an escaped quote
				q.out = append(q.out, '"')
				i++
				continue
			}
			// A closing quote: skip white space before the delimiter or
			// the line end.
			k := i
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') && s[k] != q.delim {
				k++
			}
			if k < len(s) && !isEnd(s[k]) {
				// Text after a closing quote: not ours to guess.
				q.giveUp = true
				q.out = append(q.out, s[i:]...)
				return
			}
			q.inQuotes = false
			i = k
			if i < len(s) && s[i] == q.delim {
				q.out = append(q.out, q.delim)
				i++
				if i == len(s) {
					return
				}
				continue // at the start of the next field
			}
			q.out = append(q.out, s[i:]...) // the line break
			return
		}
		// At the start of a field.
		if s[i] == '"' {
			q.inQuotes = true
			q.out = append(q.out, '"')
			i++
			continue
		}
		// An unquoted field: up to the delimiter or the line end.
		j := i
		for j < len(s) && !isEnd(s[j]) {
			j++
		}
		field := s[i:j]
		if bytes.IndexByte(field, '"') < 0 {
			q.out = append(q.out, field...)
		} else {
			q.out = append(q.out, '"')
			for _, c := range field {
				if c == '"' {
					q.out = append(q.out, '"')
				}
				q.out = append(q.out, c)
			}
			q.out = append(q.out, '"')
		}
		i = j
		if i < len(s) && s[i] == q.delim {
			q.out = append(q.out, q.delim)
			i++
			if i == len(s) {
				return
			}
			continue
		}
		q.out = append(q.out, s[i:]...) // the line break
		return
	}
}

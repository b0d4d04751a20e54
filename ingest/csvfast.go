package ingest

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
)

// csvReader reads delimited text exactly as encoding/csv does with the
// settings of newCSVTable (any number of fields, no lazy quotes, no
// comments, records reused), faster on the lines that hold no quote: most
// machine-written bills quote nothing, and cutting such a line at its
// separators costs a fraction of encoding/csv's field-by-field copy (0.8 s
// of CPU for a million template rows). The first line with a quote hands
// the rest of the text to an encoding/csv reader, which reads it to the
// end; its line numbers are offset by the lines read before.
type csvReader struct {
	Comma rune

	br      *bufio.Reader
	long    []byte   // a line longer than br's buffer, gathered
	line    int      // physical lines read by the fast path
	recLine int      // the line of the current record (fast path)
	rec     []string // the current record (reused)

	slow     *csv.Reader // once a line with a quote was seen
	slowBase int         // lines read before slow's first line
}

// csvBufferSize is the read buffer of the fast path; longer lines are
// gathered (up to maxLineBytes: lineLimitReader refuses longer ones).
const csvBufferSize = 64 << 10

func newCSVReader(r io.Reader, comma rune) *csvReader {
	c := &csvReader{Comma: comma, br: bufio.NewReaderSize(r, csvBufferSize)}
	if comma >= utf8.RuneSelf || comma == '"' || comma == '\r' || comma == '\n' {
		c.toSlow(nil) // only single-byte separators have a fast path
	}
	return c
}

// Read returns the next record, as csv.Reader.Read does.
func (c *csvReader) Read() ([]string, error) {
	if c.slow != nil {
		return c.slowRead()
	}
	for {
		line, err := c.readLine()
		if err != nil && (err != io.EOF || len(line) == 0) {
			return nil, err
		}
		c.line++
		if bytes.IndexByte(line, '"') >= 0 {
			c.toSlow(line)
			return c.slowRead()
		}
		// As encoding/csv: "\r\n" ends a line as "\n" does, a "\r" before
		// the end of the text is dropped, and empty lines are skipped.
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
		} else if n > 0 && line[n-1] == '\r' { // the last line, without '\n'
			line = line[:n-1]
		}
		if len(line) == 0 {
			continue
		}
		c.split(string(line))
		c.recLine = c.line
		return c.rec, nil
	}
}

// readLine is the next line with its '\n' (none at the end of the text),
// valid until the next call.
func (c *csvReader) readLine() ([]byte, error) {
	line, err := c.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		c.long = append(c.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = c.br.ReadSlice('\n')
			c.long = append(c.long, line...)
		}
		line = c.long
	}
	if err == io.EOF && len(line) > 0 {
		return line, io.EOF
	}
	return line, err
}

// split cuts s at the separators into c.rec.
func (c *csvReader) split(s string) {
	sep := byte(c.Comma)
	c.rec = c.rec[:0]
	for {
		i := strings.IndexByte(s, sep)
		if i < 0 {
			c.rec = append(c.rec, s)
			return
		}
		c.rec = append(c.rec, s[:i])
		s = s[i+1:]
	}
}

// toSlow hands the rest of the text, starting with line (read but not
// parsed), to encoding/csv.
func (c *csvReader) toSlow(line []byte) {
	var r io.Reader = c.br
	if len(line) > 0 {
		r = io.MultiReader(bytes.NewReader(bytes.Clone(line)), c.br)
		c.slowBase = c.line - 1
	}
	c.slow = csv.NewReader(r)
	c.slow.Comma = c.Comma
	c.slow.FieldsPerRecord = -1
	c.slow.ReuseRecord = true
	c.slow.LazyQuotes = false
}

// slowRead is encoding/csv's next record, with its line numbers counted
// from the start of the text.
func (c *csvReader) slowRead() ([]string, error) {
	rec, err := c.slow.Read()
	var pe *csv.ParseError
	if errors.As(err, &pe) && c.slowBase > 0 {
		moved := *pe
		moved.StartLine += c.slowBase
		moved.Line += c.slowBase
		err = &moved
	}
	return rec, err
}

// FieldPos is the line and column (1-based) where field i of the record
// last read starts, as csv.Reader.FieldPos gives them. The fast path knows
// the line only: its column is 0.
func (c *csvReader) FieldPos(i int) (line, column int) {
	if c.slow != nil {
		line, column = c.slow.FieldPos(i)
		return line + c.slowBase, column
	}
	return c.recLine, 0
}

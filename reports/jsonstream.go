package reports

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
)

// jsonObject writes a JSON object member by member, byte for byte as
// writeJSON writes the whole object (two-space indent, no HTML escaping,
// a newline at the end), so that a long array is encoded one element at a
// time and never held encoded as a whole (writeJSON's encoder builds the
// whole text, then indents it into a second buffer).
//
// Members are written in the order of the calls; the first error stops
// the writing and is returned by end.
type jsonObject struct {
	w       io.Writer
	buf     bytes.Buffer // one member's or element's text
	enc     *json.Encoder
	members int
	err     error
}

// jsonStreamFlush is how much text jsonObject gathers before it writes.
const jsonStreamFlush = 64 << 10

func newJSONObject(w io.Writer) *jsonObject {
	o := &jsonObject{w: w}
	o.enc = json.NewEncoder(&o.buf)
	o.enc.SetEscapeHTML(false)
	o.buf.WriteString("{")
	return o
}

// key starts a member: the separator from the member before, the
// indentation and the quoted name.
func (o *jsonObject) key(name string) {
	if o.members > 0 {
		o.buf.WriteByte(',')
	}
	o.members++
	o.buf.WriteString("\n  ")
	o.buf.WriteString(strconv.Quote(name))
	o.buf.WriteString(": ")
}

// value appends v encoded with its lines after the first indented by
// prefix, without the encoder's closing newline.
func (o *jsonObject) value(v any, prefix string) {
	if o.err != nil {
		return
	}
	o.enc.SetIndent(prefix, "  ")
	if o.err = o.enc.Encode(v); o.err == nil {
		o.buf.Truncate(o.buf.Len() - 1) // Encode's newline
	}
}

// flush writes what is gathered once there is enough of it (or all of it).
func (o *jsonObject) flush(all bool) {
	if o.err != nil || (!all && o.buf.Len() < jsonStreamFlush) {
		return
	}
	_, o.err = o.w.Write(o.buf.Bytes())
	o.buf.Reset()
}

// member writes the member name: v.
func (o *jsonObject) member(name string, v any) {
	o.key(name)
	o.value(v, "  ")
	o.flush(false)
}

// array writes the member name: an array of n elements, element i being
// elem(i), each encoded and written before the next is asked for; no
// elements make [] (as an empty slice does, never null).
func (o *jsonObject) array(name string, n int, elem func(i int) any) {
	o.elements(name, n, func(i int) { o.value(elem(i), "    ") })
}

// elements writes the member name: an array of n elements, each written
// into buf by write(i) and flushed before the next.
func (o *jsonObject) elements(name string, n int, write func(i int)) {
	o.key(name)
	if n == 0 {
		o.buf.WriteString("[]")
		return
	}
	o.buf.WriteString("[")
	for i := 0; i < n && o.err == nil; i++ {
		if i > 0 {
			o.buf.WriteByte(',')
		}
		o.buf.WriteString("\n    ")
		write(i)
		o.flush(false)
	}
	o.buf.WriteString("\n  ]")
}

// end closes the object and writes what is left.
func (o *jsonObject) end() error {
	if o.members == 0 {
		o.buf.WriteString("}\n")
	} else {
		o.buf.WriteString("\n}\n")
	}
	o.flush(true)
	return o.err
}

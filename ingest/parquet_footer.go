package ingest

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// checkThriftCompact walks a Parquet footer (a thrift FileMetaData in the
// compact protocol) without building it, and refuses one whose lists, sets,
// maps or strings claim more elements or bytes than the footer has left:
// parquet-go allocates what a list header claims, and a footer of a few
// hundred bytes claiming 2^30 schema elements made it ask for 96 GB (a
// fatal out-of-memory, beyond recover). Every element takes at least one
// byte, so no honest footer fails this.
func checkThriftCompact(b []byte) error {
	r := &thriftCheck{b: b}
	r.structure(0)
	return r.err
}

type thriftCheck struct {
	b   []byte
	pos int
	err error
}

const thriftMaxDepth = 64

var errThriftShort = errors.New("ends inside a value")

func (r *thriftCheck) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("at byte %d: %s", r.pos, fmt.Sprintf(format, args...))
	}
}

func (r *thriftCheck) left() int { return len(r.b) - r.pos }

func (r *thriftCheck) byte1() byte {
	if r.err != nil || r.pos >= len(r.b) {
		r.fail("%v", errThriftShort)
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

func (r *thriftCheck) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.pos:])
	if n <= 0 {
		r.fail("a damaged number")
		return 0
	}
	r.pos += n
	return v
}

func (r *thriftCheck) skip(n uint64) {
	if r.err == nil && n > uint64(r.left()) {
		r.fail("a value of %d bytes with %d left", n, r.left())
		return
	}
	r.pos += int(n)
}

// count checks that n elements of at least min bytes each fit.
func (r *thriftCheck) count(n uint64, min int, what string) {
	if r.err == nil && n > uint64(r.left()/min) {
		r.fail("a %s claims %d elements with %d bytes left", what, n, r.left())
	}
}

func (r *thriftCheck) structure(depth int) {
	if depth > thriftMaxDepth {
		r.fail("nested more than %d levels", thriftMaxDepth)
		return
	}
	for r.err == nil {
		h := r.byte1()
		if h == 0 {
			return // stop field
		}
		if h>>4 == 0 {
			r.uvarint() // long-form field id
		}
		r.value(h&0x0F, depth)
	}
}

func (r *thriftCheck) value(typ byte, depth int) {
	switch typ {
	case 1, 2: // boolean in the field header
	case 3:
		r.skip(1)
	case 4, 5, 6:
		r.uvarint()
	case 7:
		r.skip(8)
	case 8:
		r.skip(r.uvarint())
	case 9, 10:
		h := r.byte1()
		n, et := uint64(h>>4), h&0x0F
		if n == 15 {
			n = r.uvarint()
		}
		r.count(n, 1, "list")
		for i := uint64(0); i < n && r.err == nil; i++ {
			if et == 1 || et == 2 {
				r.skip(1) // a boolean element is a byte
				continue
			}
			r.value(et, depth+1)
		}
	case 11:
		n := r.uvarint()
		if n == 0 {
			return
		}
		kv := r.byte1()
		r.count(n, 2, "map")
		for i := uint64(0); i < n && r.err == nil; i++ {
			r.value(kv>>4, depth+1)
			r.value(kv&0x0F, depth+1)
		}
	case 12:
		r.structure(depth + 1)
	case 13: // uuid
		r.skip(16)
	default:
		r.fail("unknown value type %d", typ)
	}
}

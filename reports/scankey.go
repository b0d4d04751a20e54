package reports

import (
	"encoding/binary"

	"github.com/gpubill/gpubill/ledger"
)

// Map keys of the narrow scans (spend, gpuhour, instances): the texts of a
// row's columns, each after its length, so that no two lists of texts make
// the same key ("ab"+"c" and "a"+"bc" differ, whatever bytes the texts
// hold). Built into a reused buffer: callers look up with m[string(key)],
// which allocates nothing, and copy only for a new entry.

// appendKeyText appends text v to the key b.
func appendKeyText(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// appendKey appends the texts of columns cols of r to the key b.
func appendKey(b []byte, r ledger.Row, cols ...int) []byte {
	for _, c := range cols {
		b = appendKeyText(b, r.Bytes(c))
	}
	return b
}

package reports

import (
	"encoding/binary"

	"github.com/gpubill/gpubill/money"
	"github.com/shopspring/decimal"
)

// Map keys of the GPU-hour quotes: the texts of a line item's fields, each
// after its length, so that no two lists of texts make the same key ("ab"+"c"
// and "a"+"bc" differ, whatever bytes the texts hold). Built into a reused buffer: callers look up with m[string(key)],
// which allocates nothing, and copy only for a new entry.

// appendKeyText appends text v to the key b.
func appendKeyText[T string | []byte](b []byte, v T) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// appendKeyAmount appends amount d to the key b, as its stored text
// (money.Append keeps its precision: 1.5 and 1.50 differ); NULL
// is an empty text, which no stored amount is.
func appendKeyAmount(b []byte, d decimal.NullDecimal) []byte {
	if !d.Valid {
		return binary.AppendUvarint(b, 0)
	}
	at := len(b)
	b = append(b, 0) // room for the length, below 128 for any stored amount
	b = money.Append(b, d.Decimal)
	if n := len(b) - at - 1; n < 128 {
		b[at] = byte(n)
		return b
	}
	return appendKeyText(b[:at], money.Append(nil, d.Decimal))
}

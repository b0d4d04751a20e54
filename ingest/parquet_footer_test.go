package ingest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// hostileFooter is the Parquet file data with its footer's schema list
// claiming n elements (thrift compact: the list header after field 2).
func hostileFooter(t testing.TB, data []byte, n uint64) []byte {
	t.Helper()
	flen := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	fstart := len(data) - 8 - flen
	footer := data[fstart : len(data)-8]
	// field 1 (version, i32: 0x15 + zigzag varint), then field 2 (list: 0x19).
	if footer[0] != 0x15 || footer[2] != 0x19 {
		t.Fatalf("unexpected footer start % x", footer[:4])
	}
	var hdr []byte
	hdr = append(hdr, 0xF0|(footer[3]&0x0F)) // long form, same element type
	hdr = binary.AppendUvarint(hdr, n)
	var nf []byte
	nf = append(nf, footer[:3]...)
	nf = append(nf, hdr...)
	nf = append(nf, footer[4:]...)
	var out bytes.Buffer
	out.Write(data[:fstart])
	out.Write(nf)
	binary.Write(&out, binary.LittleEndian, uint32(len(nf)))
	out.WriteString("PAR1")
	return out.Bytes()
}

// TestParquetHostileFooter: a footer whose lists claim more elements than
// it has bytes (2^30 schema elements in a few hundred bytes) is refused
// as a damaged file, before any allocation of that size.
func TestParquetHostileFooter(t *testing.T) {
	csvData, err := readTestdata("focus/focus_small.csv")
	if err != nil {
		t.Fatal(err)
	}
	good := focusParquet(t, csvData)
	dir := t.TempDir()
	for _, n := range []uint64{1 << 30, 1 << 20, 1<<31 - 1} {
		path := writeTemp(t, dir, "hostile.parquet", hostileFooter(t, good, n))
		_, err := Scan(context.Background(), path, Options{TZ: shanghai})
		var ie *InputError
		if !errors.As(err, &ie) || ie.File != path || !strings.Contains(err.Error(), "Parquet") {
			t.Errorf("%d elements: got %v, want an input error naming %s", n, err, path)
		}
	}
}

package packet

import (
	"bytes"
	"testing"
)

// TestItemFileSpills: a month past memItems goes through the temporary
// file, and gives the same workbook, byte for byte, as one kept in memory.
func TestItemFileSpills(t *testing.T) {
	db := openPacketLedger(t)
	for _, tc := range []struct {
		name string
		opts Options
	}{{"plain", Options{}}, {"invoiced_only", Options{InvoicedOnly: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			mem := build(t, db, tc.opts)
			if mem.items.f != nil {
				t.Fatalf("%d items went to a file, want them in memory", mem.LineCount)
			}
			_, want := workbook(t, mem)
			defer func(n int) { memItems = n }(memItems)
			memItems = 2
			spilled := build(t, db, tc.opts)
			if spilled.items.f == nil || spilled.LineCount <= memItems {
				t.Fatalf("%d items stayed in memory, want them in the file", spilled.LineCount)
			}
			if _, got := workbook(t, spilled); !bytes.Equal(got, want) {
				t.Errorf("the workbook of a spilled month differs from the one kept in memory")
			}
		})
	}
}

package packet

import (
	"bytes"
	"testing"
)

// TestItemFileSpills: a month past memItems goes through the temporary
// file, and gives the same workbook, byte for byte, as one kept in memory;
// so do 明细's rows handed to the stream writer in batches of any size.
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
			// 明细's rows handed over one and two at a time: the styles
			// the rows name are made in the same order.
			defer func(n int) { lineBatchRows = n }(lineBatchRows)
			for _, n := range []int{1, 2} {
				lineBatchRows = n
				if _, got := workbook(t, build(t, db, tc.opts)); !bytes.Equal(got, want) {
					t.Errorf("the workbook written %d rows at a time differs", n)
				}
			}
		})
	}
}

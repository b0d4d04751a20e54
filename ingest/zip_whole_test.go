package ingest

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestZipRefusedWhole: an archive with more members than the limit, or
// with members that share their compressed data (the overlapping zip
// bomb), is refused as a whole, quickly, before any member is read.
func TestZipRefusedWhole(t *testing.T) {
	smallBill := []byte("平台,实例ID,费用类型,开始时间,结束时间,应付金额\nAutoDL,i-1,GPU计算,2026-10-01 08:00,2026-10-01 09:00,1.88\n")
	t.Run("too many members", func(t *testing.T) {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for i := range DefaultZipMembers + 1 {
			w, err := zw.Create(fmt.Sprintf("bill-%06d.csv", i))
			if err != nil {
				t.Fatal(err)
			}
			w.Write(smallBill)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		members, read := walkBytes(t, buf.Bytes(), ZipLimits{})
		if len(members) != 1 || members[0].err == nil || !strings.Contains(members[0].err.Error(), "10001 members, over the limit of 10000") {
			t.Fatalf("got %d results (first %v), want the archive refused whole", len(members), members[0].err)
		}
		// The central directory only: no member's data.
		if dir := int64(buf.Len()) - int64(DefaultZipMembers+1)*int64(len(smallBill)); read > dir {
			t.Errorf("read %d bytes of the archive, want at most its directory (%d)", read, dir)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
	})
	t.Run("overlapping members", func(t *testing.T) {
		data := overlappingZip(t, smallBill, 400)
		members, _ := walkBytes(t, data, ZipLimits{})
		if len(members) != 1 || members[0].err == nil || !strings.Contains(members[0].err.Error(), "overlapping members") {
			for _, m := range members[:min(3, len(members))] {
				t.Logf("%s: %v", m.path, m.err)
			}
			t.Fatalf("got %d results, want the archive refused whole", len(members))
		}
	})
}

// overlappingZip is an archive of one member whose central directory
// names it n times (as m000.csv, m001.csv …): every entry points at the
// same local header and data.
func overlappingZip(t *testing.T, content []byte, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("m000.csv")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(bytes.Repeat(content, 50))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	eocd := bytes.LastIndex(data, []byte("PK\x05\x06"))
	cdSize := binary.LittleEndian.Uint32(data[eocd+12:])
	cdOff := binary.LittleEndian.Uint32(data[eocd+16:])
	entry := data[cdOff : cdOff+cdSize]
	var out bytes.Buffer
	out.Write(data[:cdOff])
	for i := range n {
		e := bytes.Clone(entry)
		copy(e[46:], fmt.Sprintf("m%03d", i)) // the name follows the 46-byte fixed part
		out.Write(e)
	}
	end := bytes.Clone(data[eocd:])
	binary.LittleEndian.PutUint16(end[8:], uint16(n))
	binary.LittleEndian.PutUint16(end[10:], uint16(n))
	binary.LittleEndian.PutUint32(end[12:], cdSize*uint32(n))
	out.Write(end)
	return out.Bytes()
}

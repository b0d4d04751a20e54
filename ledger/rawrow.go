package ledger

import (
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// rawRow is the current row of a query; valid only inside the callback.
//
// A column's value is read from the statement's result registers (the
// Mem structs of the row, vdbeInt.h) when it is plain UTF-8 text, NULL or
// an integer, which is what the ledger stores; anything else goes through
// sqlite3_column_*. Through the API each value costs three calls into the
// transpiled C (sqlite3_column_text, _bytes, each with its mutex and
// malloc-failure checks): of a 29-column scan of a million rows, 0.75 of
// its 1.4 s. TestRawRowIsColumnAPI compares both ways on every kind of
// value; a new modernc.org/sqlite whose Mem differs fails to compile (the
// field names) or fails that test.
type rawRow struct {
	c    *rawConn
	st   uintptr
	row  uintptr // the first Mem of the result row (Vdbe.pResultRow)
	ncol int     // Vdbe.nResColumn
}

// resultRow is the row st has just stepped to.
func (c *rawConn) resultRow(st uintptr) rawRow {
	vm := (*sqlite3.TVdbe)(cPtr(st))
	return rawRow{c: c, st: st, row: vm.FpResultRow, ncol: int(vm.FnResColumn)}
}

// memSize is the size of a Mem, the stride of the result registers.
const memSize = unsafe.Sizeof(sqlite3.TMem{})

// Value types of a Mem's flags (MEM_TypeMask without MEM_Zero, plus
// MEM_IntReal).
const memTypes = sqlite3.MEM_Null | sqlite3.MEM_Str | sqlite3.MEM_Int | sqlite3.MEM_Real |
	sqlite3.MEM_Blob | sqlite3.MEM_IntReal | sqlite3.MEM_Zero

// mem is the register of column i, nil when i is out of range.
func (r rawRow) mem(i int) *sqlite3.TMem {
	if r.row == 0 || uint(i) >= uint(r.ncol) {
		return nil
	}
	return (*sqlite3.TMem)(cPtr(r.row + uintptr(i)*memSize))
}

// Null reports whether column i (from 0) is NULL.
func (r rawRow) Null(i int) bool {
	if m := r.mem(i); m != nil {
		switch m.Fflags & memTypes {
		case sqlite3.MEM_Null:
			return true
		case sqlite3.MEM_Str, sqlite3.MEM_Int:
			return false
		}
	}
	return sqlite3.Xsqlite3_column_type(r.c.tls, r.st, int32(i)) == sqlite3.SQLITE_NULL
}

// Int64 is column i as an integer.
func (r rawRow) Int64(i int) int64 {
	if m := r.mem(i); m != nil {
		switch m.Fflags & memTypes {
		case sqlite3.MEM_Int:
			return *(*int64)(unsafe.Pointer(&m.Fu))
		case sqlite3.MEM_Null:
			return 0
		}
	}
	return sqlite3.Xsqlite3_column_int64(r.c.tls, r.st, int32(i))
}

// Text is column i as text ("" for NULL).
func (r rawRow) Text(i int) string { return string(r.bytes(i)) }

// bytes is column i as text, in SQLite's memory: valid until the next step
// or, as with the API, until column i is read as another type through it.
func (r rawRow) bytes(i int) []byte {
	if m := r.mem(i); m != nil {
		switch m.Fflags & memTypes {
		case sqlite3.MEM_Str:
			if m.Fenc != sqlite3.SQLITE_UTF8 {
				break
			}
			if m.Fn <= 0 || m.Fz == 0 {
				return nil
			}
			return libc.GoBytes(m.Fz, int(m.Fn))
		case sqlite3.MEM_Null:
			return nil
		}
	}
	p := sqlite3.Xsqlite3_column_text(r.c.tls, r.st, int32(i))
	n := sqlite3.Xsqlite3_column_bytes(r.c.tls, r.st, int32(i))
	if p == 0 || n == 0 {
		return nil
	}
	return libc.GoBytes(p, int(n))
}

// cPtr is the pointer to C memory at address p: memory of modernc.org/libc's
// allocator, which the Go collector neither moves nor frees (the same
// conversion as libc.GoBytes, written so that vet sees no uintptr
// arithmetic turned into a pointer).
func cPtr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

package ledger

import (
	"unsafe"

	sqlite3 "modernc.org/sqlite/lib"
)

// varBinder binds an INSERT's values by writing them into the statement's
// parameter registers (Vdbe.aVar) as sqlite3_bind_text (SQLITE_STATIC),
// _int64 and _null leave them, when the register holds no value with a
// destructor (MEM_Dyn, MEM_Agg) and binding cannot change the statement's
// plan (Vdbe.expmask is 0, as for every INSERT). A buffer the register owns
// (zMalloc, left by an earlier bind that SQLite copied) stays the
// register's, as the API leaves it, to be freed with the statement.
//
// Through the API each value costs a call into the transpiled C with its
// mutex, state and range checks, a release of the old value and a length
// check: 0.43 of the 8.5 s of CPU of an import of a million template rows,
// 23 values a row. Anything else takes the API. TestVarBinderIsBindAPI
// binds every kind of value both ways.
type varBinder struct {
	c    *rawConn
	st   uintptr
	vars uintptr // the first parameter register; 0 = the API for every value
	nvar int32
}

// directTextMax is the longest text bound directly, far below
// SQLITE_MAX_LENGTH, which sqlite3_bind_text checks.
const directTextMax = 1 << 24

// binder is a varBinder for st, a statement reset and ready to bind.
func (c *rawConn) binder(st uintptr) varBinder {
	b := varBinder{c: c, st: st}
	vm := (*sqlite3.TVdbe)(cPtr(st))
	if vm.FeVdbeState == sqlite3.VDBE_READY_STATE && vm.Fexpmask == 0 {
		b.vars, b.nvar = vm.FaVar, int32(vm.FnVar)
	}
	return b
}

// plain is the register of parameter n (from 1) if it may be written
// directly: in range, and holding no value with a destructor.
func (b varBinder) plain(n int32) *sqlite3.TMem {
	if b.vars == 0 || n < 1 || n > b.nvar {
		return nil
	}
	m := (*sqlite3.TMem)(cPtr(b.vars + uintptr(n-1)*memSize))
	if m.Fflags&(sqlite3.MEM_Agg|sqlite3.MEM_Dyn) != 0 {
		return nil
	}
	return m
}

// text binds the size bytes of C memory at p as UTF-8 text, SQLITE_STATIC.
func (b varBinder) text(n int32, p uintptr, size int) int32 {
	if m := b.plain(n); m != nil && p != 0 && size <= directTextMax {
		m.Fz, m.Fn, m.Fenc, m.Fflags = p, int32(size), sqlite3.SQLITE_UTF8, sqlite3.MEM_Str|sqlite3.MEM_Static
		return sqlite3.SQLITE_OK
	}
	return sqlite3.Xsqlite3_bind_text(b.c.tls, b.st, n, p, int32(size), sqlite3.SQLITE_STATIC)
}

// int64 binds v.
func (b varBinder) int64(n int32, v int64) int32 {
	if m := b.plain(n); m != nil {
		*(*int64)(unsafe.Pointer(&m.Fu)) = v
		m.Fflags = sqlite3.MEM_Int
		return sqlite3.SQLITE_OK
	}
	return sqlite3.Xsqlite3_bind_int64(b.c.tls, b.st, n, v)
}

// null binds NULL.
func (b varBinder) null(n int32) int32 {
	if m := b.plain(n); m != nil {
		m.Fflags = sqlite3.MEM_Null
		return sqlite3.SQLITE_OK
	}
	return sqlite3.Xsqlite3_bind_null(b.c.tls, b.st, n)
}

package ledger

import (
	"errors"

	"modernc.org/sqlite"
	zsqlite "zombiezen.com/go/sqlite"
)

// ResultCode is SQLite's primary result code behind err (SQLITE_BUSY = 5,
// SQLITE_NOTADB = 26 …), from either connection type, or 0 when err does
// not come from SQLite. Commands use it to tell the user what went wrong
// in their language.
func ResultCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	if c := zsqlite.ErrCode(err); c != zsqlite.ResultError {
		return int(c.ToPrimary())
	}
	return 0
}

// IsBusy reports whether err is SQLite's SQLITE_BUSY (any extended code):
// another connection holds a lock this one needs.
func IsBusy(err error) bool { return ResultCode(err) == 5 }

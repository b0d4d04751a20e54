package ledger

import (
	"os"
	"path/filepath"
)

// ledgerSuffixes are the files SQLite keeps beside a ledger: writing to any
// of them destroys the ledger as surely as writing to the ledger itself.
var ledgerSuffixes = []string{"", "-wal", "-shm", "-journal"}

// LedgerFile reports whether path names the ledger at ledgerPath or one of
// its companion files (-wal, -shm, -journal), whether they exist or not:
// existing files are compared as files (os.SameFile, so hard links and
// symbolic links count), others by their absolute paths with the folders'
// symbolic links resolved. It returns the companion's suffix ("" for the
// ledger itself). Every command that writes a file the user names checks it.
func LedgerFile(ledgerPath, path string) (suffix string, ok bool) {
	if ledgerPath == "" || path == "" {
		return "", false
	}
	target := resolvePath(path)
	tst, terr := os.Stat(path)
	for _, s := range ledgerSuffixes {
		p := ledgerPath + s
		if terr == nil {
			if st, err := os.Stat(p); err == nil && os.SameFile(st, tst) {
				return s, true
			}
		}
		if resolvePath(p) == target {
			return s, true
		}
	}
	return "", false
}

// resolvePath is path made absolute, its folder's symbolic links resolved
// (the folder may not exist: then the path is only cleaned) and, if path is
// a symbolic link itself, followed.
func resolvePath(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	dir, base := filepath.Split(abs)
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(d, base)
	}
	return abs
}

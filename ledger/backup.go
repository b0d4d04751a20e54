package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// ErrBackupExists is returned by Backup when the destination exists and
// overwrite was not asked for.
var ErrBackupExists = errors.New("the file exists (use --force to overwrite it)")

// ErrBackupDestination matches (errors.Is) every error of Backup that is
// about the destination the user gave (it exists, is a folder or the ledger,
// cannot be created), as opposed to a failure of the copy itself.
var ErrBackupDestination = errors.New("unusable backup destination")

// destError is an error about the destination of a backup.
type destError struct {
	msg string
	err error
}

func (e *destError) Error() string {
	if e.err != nil {
		return e.msg + ": " + e.err.Error()
	}
	return e.msg
}
func (e *destError) Unwrap() error        { return e.err }
func (e *destError) Is(target error) bool { return target == ErrBackupDestination }

func badDest(err error, format string, args ...any) error {
	return &destError{msg: "ledger: backup: " + fmt.Sprintf(format, args...), err: err}
}

// Backup writes a consistent copy of the ledger to dst and returns its size.
// It may run while other processes import or audit: the copy is VACUUM INTO
// (a compacted copy of one read snapshot; in WAL mode it neither waits for
// writers nor holds them up), made in a temporary file next to dst, checked
// with PRAGMA integrity_check, synced, and only then moved to dst, so dst is
// never a partial copy. The copy is 0600. An existing dst is refused
// (ErrBackupExists) unless overwrite is set; the ledger itself always is.
func (db *DB) Backup(ctx context.Context, dst string, overwrite bool) (int64, error) {
	if dst == "" {
		return 0, badDest(nil, "no destination file")
	}
	if s, ok := LedgerFile(db.path, dst); ok && s != "" {
		return 0, badDest(nil, "%s is the ledger's %s file", dst, s[1:])
	}
	if st, err := os.Stat(dst); err == nil {
		if st.IsDir() {
			return 0, badDest(nil, "%s is a directory", dst)
		}
		if s, ok := LedgerFile(db.path, dst); ok && s == "" {
			return 0, badDest(nil, "%s is the ledger itself", dst)
		}
		if !overwrite {
			return 0, badDest(ErrBackupExists, "%s", dst)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return 0, badDest(err, "%s", dst)
	}
	removeStaleBackupTemps(filepath.Dir(dst))
	// CreateTemp makes the file 0600; VACUUM INTO accepts an empty file.
	tmp, err := os.CreateTemp(filepath.Dir(dst), backupTempPattern)
	if err != nil {
		return 0, badDest(err, "cannot write next to %s", dst)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	defer func() {
		for _, s := range []string{"", "-journal", "-wal", "-shm"} {
			os.Remove(tmpPath + s)
		}
	}()
	if _, err := db.sql.ExecContext(ctx, `VACUUM INTO ?`, tmpPath); err != nil {
		return 0, fmt.Errorf("ledger: backup to %s: %w", dst, err)
	}
	if err := verifyCopy(ctx, tmpPath); err != nil {
		return 0, fmt.Errorf("ledger: backup to %s: the copy fails its check: %w", dst, err)
	}
	f, err := os.OpenFile(tmpPath, os.O_RDWR, 0)
	if err != nil {
		return 0, fmt.Errorf("ledger: backup: %w", err)
	}
	err = f.Sync()
	st, serr := f.Stat()
	f.Close()
	if err == nil {
		err = serr
	}
	if err == nil {
		err = os.Chmod(tmpPath, 0o600)
	}
	if err != nil {
		return 0, fmt.Errorf("ledger: backup: %w", err)
	}
	if overwrite {
		err = os.Rename(tmpPath, dst)
	} else {
		// A hard link never replaces a file that appeared meanwhile.
		err = os.Link(tmpPath, dst)
		if errors.Is(err, fs.ErrExist) {
			return 0, badDest(ErrBackupExists, "%s", dst)
		}
		if err != nil { // a file system without hard links
			if _, serr := os.Lstat(dst); serr == nil {
				return 0, badDest(ErrBackupExists, "%s", dst)
			}
			err = os.Rename(tmpPath, dst)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("ledger: backup: %w", err)
	}
	syncDir(filepath.Dir(dst))
	return st.Size(), nil
}

// backupTempPattern names the hidden copy a backup makes next to its
// destination before it takes the destination's name.
const backupTempPattern = ".gpubill-backup-*.db"

// staleBackupAge is how old a hidden copy must be for the next backup to
// the folder to remove it as the leftover of a killed one: a running
// backup writes its copy (VACUUM INTO) or checks it (integrity_check)
// within minutes, even for a large ledger.
var staleBackupAge = 6 * time.Hour

// removeStaleBackupTemps removes, in dir, the hidden copies (and their
// journals) of backups killed before they finished, older than
// staleBackupAge (best effort).
func removeStaleBackupTemps(dir string) {
	matches, _ := filepath.Glob(filepath.Join(dir, backupTempPattern+"*"))
	for _, m := range matches {
		if st, err := os.Lstat(m); err == nil && st.Mode().IsRegular() && time.Since(st.ModTime()) > staleBackupAge {
			os.Remove(m)
		}
	}
}

// verifyCopy runs PRAGMA integrity_check on the database file at path.
func verifyCopy(ctx context.Context, path string) error {
	q := url.Values{}
	q.Set("mode", "ro")
	sdb, err := sql.Open("sqlite", fileURI(path, q))
	if err != nil {
		return err
	}
	defer sdb.Close()
	var res string
	if err := sdb.QueryRowContext(ctx, `PRAGMA integrity_check(1)`).Scan(&res); err != nil {
		return err
	}
	if res != "ok" {
		return errors.New("integrity_check: " + res)
	}
	return nil
}

// syncDir makes a rename in dir durable (best effort: not every system can
// sync a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

package ledger

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestBackupRemovesKilledCopies: a backup killed before its copy took the
// destination's name leaves a hidden full-size copy next to it; the next
// backup to that folder removes such leftovers once they are old enough
// not to be another backup's work in progress, and keeps recent ones.
func TestBackupRemovesKilledCopies(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := t.TempDir()
	old := filepath.Join(out, ".gpubill-backup-123.db")
	oldJournal := old + "-journal"
	recent := filepath.Join(out, ".gpubill-backup-456.db")
	other := filepath.Join(out, "notes.db")
	for _, p := range []string{old, oldJournal, recent, other} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * staleBackupAge)
	for _, p := range []string{old, oldJournal, other} {
		if err := os.Chtimes(p, long, long); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Backup(ctx, filepath.Join(out, "copy.db"), false); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{old: false, oldJournal: false, recent: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A --db that is not a ledger is an input error (exit 1), not gpubill's
// own failure (exit 2), in either language.
func TestNotALedgerIsInputError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.db")
	if err := os.WriteFile(p, bytes.Repeat([]byte("not a database "), 20), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh", "en"} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"--lang", lang, "--db", p, "report", "spend"}, strings.NewReader(""), &out, &errb)
		if code != exitInput {
			t.Errorf("--lang %s: exit %d, want %d; stderr: %s", lang, code, exitInput, errb.String())
		}
	}
}

package testkit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Golden compares got with the golden file at path, or, when update is true,
// writes got to path (creating its folder). A missing file stops the test; a
// difference fails it with the path, got and want, and tells the reader to
// rerun with -update after checking.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	GoldenFlag(t, path, got, update, "-update")
}

// GoldenFlag is Golden for golden files refreshed by another flag than
// -update: flagName (such as "-update-template") is the one the failure
// messages tell the reader to rerun with.
func GoldenFlag(t testing.TB, path string, got []byte, update bool, flagName string) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file: %v (rerun with %s after checking to create it)", err, flagName)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: output differs from the golden file (rerun with %s after checking)\ngot:\n%s\nwant:\n%s",
			path, flagName, got, want)
	}
}

// TopTestDir is testdata/<name of the top-level test>: the folder of golden
// files that a test shares with all its subtests.
func TopTestDir(t testing.TB) string {
	name, _, _ := strings.Cut(t.Name(), "/")
	return filepath.Join("testdata", name)
}

package main

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run the whole CLI in-process as the `gpubill`
// command of the scripts in testdata/script.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"gpubill": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

var (
	focusSample, _ = filepath.Abs("../../../shared/external/focus-sample/focus_sample.csv")
	demoDir, _     = filepath.Abs("../../testdata/demo")
)

// TestScripts runs testdata/script/*.txtar: one CLI behaviour per script.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "../../testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("GPUBILL_DB", env.WorkDir+"/ledger.db")
			env.Setenv("LANG", "en_US.UTF-8")
			env.Setenv("FOCUS_SAMPLE", focusSample)
			env.Setenv("DEMO", demoDir)
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "focus" { // the external FOCUS sample is present
				_, err := os.Stat(focusSample)
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"zip": cmdZip,
			"fakecloud": cmdFakeCloud, "fakeconfig": cmdFakeConfig,
			"fakeinstances": cmdFakeInstances, "fakesink": cmdFakeSink},
		RequireExplicitExec: true,
	})
}

// cmdZip is the script command `zip ARCHIVE FILE…`: it writes ARCHIVE (in the
// script's work dir) holding the FILEs under the names given, compressed,
// so that scripts need no binary files and no zip tool.
func cmdZip(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! zip")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: zip ARCHIVE FILE...")
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range args[1:] {
		w, err := zw.Create(filepath.ToSlash(name))
		ts.Check(err)
		_, err = w.Write([]byte(ts.ReadFile(name)))
		ts.Check(err)
	}
	ts.Check(zw.Close())
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), buf.Bytes(), 0o644))
}

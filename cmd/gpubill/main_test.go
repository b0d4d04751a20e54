package main

import (
	"context"
	"os"
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

// TestScripts runs testdata/script/*.txtar: one CLI behaviour per script.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "../../testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("GPUBILL_DB", env.WorkDir+"/ledger.db")
			env.Setenv("LANG", "en_US.UTF-8")
			env.Setenv("TZ", "UTC")
			env.Setenv("FOCUS_SAMPLE", os.Getenv("PWD")+"/../../../shared/external/focus-sample/focus_sample.csv")
			return nil
		},
		RequireExplicitExec: true,
	})
}

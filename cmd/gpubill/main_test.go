package main

import (
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
		RequireExplicitExec: true,
	})
}

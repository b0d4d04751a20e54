package rules

import (
	"context"
	"io"
	"os"
	"os/exec"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

func TestZZProf(t *testing.T) {
	src := os.Getenv("ZZ_DB")
	if src == "" {
		t.Skip()
	}
	dst := t.TempDir() + "/l.db"
	if err := exec.Command("cp", src, dst).Run(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := ledger.Open(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := DefaultConfig()
	var w io.Writer
	if p := os.Getenv("ZZ_PROF"); p != "" {
		f, _ := os.Create(p)
		defer f.Close()
		w = f
	}
	for i := 0; i < 2; i++ {
		if i == 0 && w != nil {
			pprof.StartCPUProfile(w)
		}
		start := time.Now()
		r, err := AuditAndSave(ctx, db, "2026-10", cfg.tz().String(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("audit %d: %v, %d findings", i, time.Since(start), len(r.Findings))
		if i == 0 && w != nil {
			pprof.StopCPUProfile()
		}
	}
}

func TestZZPhases(t *testing.T) {
	src := os.Getenv("ZZ_DB")
	if src == "" {
		t.Skip()
	}
	dst := t.TempDir() + "/l.db"
	if err := exec.Command("cp", src, dst).Run(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := ledger.Open(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := DefaultConfig()
	defer ledger.KeepingAllocations()()
	t0 := time.Now()
	in, err := load(ctx, db, "2026-10", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	w, err := db.BeginAudit(ctx, "2026-10", cfg.tz().String())
	if err != nil {
		t.Fatal(err)
	}
	res, err := runRules(ctx, db, in, w)
	if err != nil {
		t.Fatal(err)
	}
	t2 := time.Now()
	if _, err := w.Commit(ctx, res.Params); err != nil {
		t.Fatal(err)
	}
	t3 := time.Now()
	t.Logf("load %v, rules+save %v, commit %v", t1.Sub(t0), t2.Sub(t1), t3.Sub(t2))
}

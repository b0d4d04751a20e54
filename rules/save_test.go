package rules

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/ledger"
)

// scenarioLedger imports the labelled scenario's bills into a new ledger.
func scenarioLedger(t *testing.T, name string) *ledger.DB {
	t.Helper()
	ctx := context.Background()
	db, err := ledger.Open(ctx, filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	bills, err := filepath.Glob(filepath.Join("..", "testdata", "scenario", "2026-10", "*.csv"))
	if err != nil || len(bills) == 0 {
		t.Fatalf("scenario bills: %v", err)
	}
	if _, err := ingest.ImportPaths(ctx, db, bills, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	return db
}

// storedFindings are the stored findings of month without what differs
// between two ledgers (ids and runs).
func storedFindings(t *testing.T, db *ledger.DB, month string) []ledger.Finding {
	t.Helper()
	fs, err := db.Findings(context.Background(), month)
	if err != nil {
		t.Fatal(err)
	}
	for i := range fs {
		fs[i].ID, fs[i].RunID = 0, 0
	}
	return fs
}

// TestAuditAndSaveStoresWhatSaveAuditStores: on the labelled scenario,
// AuditAndSave (each rule's findings stored while later rules run) leaves
// the same findings, in the same order, with the same evidence and states,
// as Audit followed by SaveAudit, on a first run and on a rerun after a
// finding was acknowledged and another resolved; the returned findings
// carry the ids they were stored under.
func TestAuditAndSaveStoresWhatSaveAuditStores(t *testing.T) {
	ctx := context.Background()
	cfg := DefaultConfig()
	const month = "2026-10"
	plain, streamed := scenarioLedger(t, "plain.db"), scenarioLedger(t, "streamed.db")
	for run := 1; run <= 3; run++ {
		res, err := Audit(ctx, plain, month, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := plain.SaveAudit(ctx, month, "Asia/Shanghai", res.Params, res.Findings); err != nil {
			t.Fatal(err)
		}
		got, err := AuditAndSave(ctx, streamed, month, "Asia/Shanghai", cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Findings) < 20 || len(got.Findings) != len(res.Findings) {
			t.Fatalf("run %d: %d findings streamed, %d audited (want the scenario's 20 or more)", run, len(got.Findings), len(res.Findings))
		}
		if got.Params != res.Params {
			t.Errorf("run %d: params %s, want %s", run, got.Params, res.Params)
		}
		stored := map[string]int64{}
		for _, f := range storedFindingsWithIDs(t, streamed, month) {
			stored[f.Fingerprint] = f.ID
		}
		for i, f := range got.Findings {
			if f.ID == 0 || stored[f.Fingerprint] != f.ID || f.Fingerprint != res.Findings[i].Fingerprint {
				t.Errorf("run %d: finding %d (%s) returned with id %d, stored as %d; want the order of Audit (%s)",
					run, i, f.Fingerprint, f.ID, stored[f.Fingerprint], res.Findings[i].Fingerprint)
			}
		}
		a, b := storedFindings(t, plain, month), storedFindings(t, streamed, month)
		if !reflect.DeepEqual(a, b) {
			for i := range min(len(a), len(b)) {
				if !reflect.DeepEqual(a[i], b[i]) {
					t.Fatalf("run %d: stored finding %d differs:\nSaveAudit    %+v\nAuditAndSave %+v", run, i, a[i], b[i])
				}
			}
			t.Fatalf("run %d: %d findings stored by SaveAudit, %d by AuditAndSave", run, len(a), len(b))
		}
		if run == 1 { // the same user actions on both ledgers before the rerun
			for _, db := range []*ledger.DB{plain, streamed} {
				if err := db.SetFindingState(ctx, a[0].Fingerprint, "acknowledged"); err != nil {
					t.Fatal(err)
				}
				if err := db.SetFindingState(ctx, a[len(a)-1].Fingerprint, "resolved"); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	fs := storedFindings(t, streamed, month)
	if fs[0].State != "acknowledged" {
		t.Errorf("after the rerun, the acknowledged finding is %s", fs[0].State)
	}
}

func storedFindingsWithIDs(t *testing.T, db *ledger.DB, month string) []ledger.Finding {
	t.Helper()
	fs, err := db.Findings(context.Background(), month)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

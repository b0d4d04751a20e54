package ingest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/internal/testkit"
)

// TestOCICostReport imports the OCI samples
// (testdata/oci-cost-report/README.md): the real cost-report excerpt and
// a GPU day built by the schema. Totals are the sums of cost/myCost.
func TestOCICostReport(t *testing.T) {
	for _, tc := range []exportCase{
		{file: "testdata/oci-cost-report/cost_sample.csv", format: "oci-cost-report", rows: 40,
			totals: map[string]string{"USD": "0.194714524717888340"},
			kinds:  map[string]int{"service": 20, "storage": 10, "network": 5, "compute": 3, "image": 2}},
		{file: "testdata/oci-cost-report/cost_gpu.csv", format: "oci-cost-report", rows: 7,
			// 2 + 32 + 32 + 0.0000342741935355 + 0.000017137096755 + 0.10625 − 2
			totals: map[string]string{"USD": "64.1063014112902905"},
			kinds:  map[string]int{"compute": 4, "storage": 1, "snapshot": 1, "network": 1},
			// per GPU-hour SKUs: A10 1 h and its correction −1 h; A100 80GB 8 + 8
			gpuHours: map[string]string{"A10": "0", "A100 80G": "16"}},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) { checkExport(t, tc) })
	}
}

// TestOCIOverageAndCorrection: a line with an overage is paid in cash for
// the overage and by the commitment for the rest; a file with corrected
// lines says so.
func TestOCIOverageAndCorrection(t *testing.T) {
	db := testkit.OpenLedger(t)
	res, err := ImportFile(context.Background(), db, "testdata/oci-cost-report/cost_gpu.csv", Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].EN, "corrected lines") {
		t.Errorf("warnings %+v, want one about corrected lines", res.Warnings)
	}
	for _, li := range storedItems(t, db) {
		if li.SourceRow != 3 {
			continue
		}
		if li.CashPaid.Decimal.String() != "8" || li.OtherPaid.Decimal.String() != "24" || li.BilledCost.String() != "32" {
			t.Errorf("overage line: billed %s cash %v other %v, want 32, 8, 24", li.BilledCost, li.CashPaid, li.OtherPaid)
		}
		if li.Tags != `{"Oracle-Tags.CreatedBy":"default/zhang","lab.project":"llm"}` || li.SubAccount != "ml" || li.GPUCount != 1 {
			t.Errorf("overage line: tags %s, compartment %q, GPUs %d", li.Tags, li.SubAccount, li.GPUCount)
		}
	}
}

func FuzzOCICostReport(f *testing.F) {
	fuzzExportSeeds(f, "oci-cost-report")
	fuzzExport(f)
}

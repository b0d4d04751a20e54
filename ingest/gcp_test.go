package ingest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gpubill/gpubill/internal/testkit"
)

// TestGCPBillingExport imports the GCP samples
// (testdata/gcp-billing-export/README.md): credits as JSON and as one
// number per row. Totals are cost plus the discount credits, by hand.
func TestGCPBillingExport(t *testing.T) {
	for _, tc := range []exportCase{
		{file: "testdata/gcp-billing-export/billing_export_json_credits.csv", format: "gcp-billing-export", rows: 7,
			// 2.933908 − 0.25 + 0.31602 + 0.560040 − 0.31 + 0.005479 + 0.000712 + 2.30 + 0.41
			// (the 1.5 free-trial credit is a voucher: it pays, it does not discount)
			totals:   map[string]string{"USD": "5.966159"},
			kinds:    map[string]int{"compute": 3, "storage": 1, "snapshot": 1, "network": 1, "tax": 1},
			pricing:  map[string]int{"on_demand": 6, "reserved": 1},
			gpuHours: map[string]string{"A100": "2", "L4": "1"}},
		{file: "testdata/gcp-billing-export/billing_export_flat_credits.csv", format: "gcp-billing-export", rows: 4,
			// 9.796 − 0.5 + 9.796 + 0.0866 − 0.000001
			totals:   map[string]string{"USD": "19.178599"},
			kinds:    map[string]int{"compute": 2, "storage": 1, "adjustment": 1},
			gpuHours: map[string]string{"H100": "2"}},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) { checkExport(t, tc) })
	}
}

// TestGCPCredits: a promotion is a voucher paying part of the line, a
// sustained-use discount lowers what is billed; cash is the rest.
func TestGCPCredits(t *testing.T) {
	db := testkit.OpenLedger(t)
	if _, err := ImportFile(context.Background(), db, "testdata/gcp-billing-export/billing_export_json_credits.csv", Options{TZ: shanghai}); err != nil {
		t.Fatal(err)
	}
	li := storedItems(t, db)[0]
	if li.BilledCost.String() != "2.683908" || li.VoucherPaid.Decimal.String() != "1.5" || li.CashPaid.Decimal.String() != "1.183908" ||
		li.ListCost.Decimal.String() != "2.933908" || li.BillingPeriod != "2026-10" || li.Tags != `{"team":"llm"}` ||
		li.GPUModel != "A100" || li.GPUCount != 1 || li.PricingUnit != "hour" {
		t.Errorf("A100 line: billed %s voucher %v cash %v list %v period %s tags %s GPU %s×%d unit %s; want 2.683908, 1.5, 1.183908, 2.933908, 2026-10, team, A100×1, hour",
			li.BilledCost, li.VoucherPaid, li.CashPaid, li.ListCost, li.BillingPeriod, li.Tags, li.GPUModel, li.GPUCount, li.PricingUnit)
	}
	bad := writeTemp(t, t.TempDir(), "bad.csv", []byte("cost,usage_start_time,service.description,sku.description,currency,credits\n1,2026-10-01 00:00:00 UTC,Compute Engine,x,USD,[{\"amount\":\"x\"}]\n"))
	if _, err := Scan(context.Background(), bad, Options{TZ: shanghai}); err == nil {
		t.Error("a credits cell that is no JSON list of credits was read")
	}
}

func FuzzGCPBillingExport(f *testing.F) {
	fuzzExportSeeds(f, "gcp-billing-export")
	fuzzExport(f)
}

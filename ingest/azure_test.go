package ingest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/shopspring/decimal"
)

// TestAzureCostDetails imports the Azure samples
// (testdata/azure-cost-details/README.md): the real EA actual-cost excerpt
// and an MCA GPU month as the actual and the amortized dataset show it.
// Totals are the sums of CostInBillingCurrency worked out by hand, with
// the amortized file's commitment rows at 0.
func TestAzureCostDetails(t *testing.T) {
	for _, tc := range []exportCase{
		{file: "testdata/azure-cost-details/ea_actual_sample.csv", format: "azure-cost-details", rows: 27,
			totals: map[string]string{"CAD": "1.26136926505726"},
			kinds:  map[string]int{"network": 12, "storage": 5, "compute": 7, "service": 3}},
		{file: "testdata/azure-cost-details/mca_actual_gpu.csv", format: "azure-cost-details", rows: 7,
			// 0 + 36.73 + 0.3156 + 0.656343 + 2.3925 + 1790.55 − 3.673
			totals:   map[string]string{"USD": "1826.971443"},
			kinds:    map[string]int{"compute": 4, "storage": 1, "network": 1, "adjustment": 1},
			pricing:  map[string]int{"reserved": 2, "on_demand": 4, "spot": 1},
			gpuHours: map[string]string{"A100": "34", "T4": "6"}},
		{file: "testdata/azure-cost-details/mca_amortized_gpu.csv", format: "azure-cost-details", rows: 7,
			// the covered usage (48.96) and the unused reservation (48.96)
			// billed 0: 36.73 + 0.3156 + 0.656343 + 2.3925 − 3.673
			totals:   map[string]string{"USD": "36.421443"},
			kinds:    map[string]int{"compute": 4, "storage": 1, "network": 1, "adjustment": 1},
			gpuHours: map[string]string{"A100": "34", "T4": "6"}},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) { checkExport(t, tc) })
	}
}

// TestAzureActualAndAmortized: the actual and the amortized export of one
// month imported together hold the invoice's total once; the amortized
// file adds only its unused-reservation row (billed 0) and says what it is.
func TestAzureActualAndAmortized(t *testing.T) {
	db := testkit.OpenLedger(t)
	ctx := context.Background()
	if _, err := ImportFile(ctx, db, "testdata/azure-cost-details/mca_actual_gpu.csv", Options{TZ: shanghai}); err != nil {
		t.Fatal(err)
	}
	res, err := ImportFile(ctx, db, "testdata/azure-cost-details/mca_amortized_gpu.csv", Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if res.New != 1 || res.Duplicate != 6 {
		t.Errorf("amortized after actual: %d new, %d duplicate; want 1 (the unused reservation), 6", res.New, res.Duplicate)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].EN, "amortized-cost export") {
		t.Errorf("warnings %+v, want one naming the amortized export", res.Warnings)
	}
	total := decimal.Zero
	for _, li := range storedItems(t, db) {
		total = total.Add(li.BilledCost)
	}
	if total.String() != "1826.971443" {
		t.Errorf("ledger total %s, want the invoice's 1826.971443", total)
	}
	actual, err := ImportFile(ctx, db, "testdata/azure-cost-details/ea_actual_sample.csv", Options{TZ: shanghai})
	if err != nil || len(actual.Warnings) != 0 {
		t.Errorf("actual-cost file: warnings %+v, err %v; want none", actual.Warnings, err)
	}
}

// TestAzureDates: EA's US month/day/year and ISO dates give the same UTC
// day; an impossible date is refused.
func TestAzureDates(t *testing.T) {
	want := time.Date(2023, 9, 2, 0, 0, 0, 0, time.UTC)
	for _, s := range []string{"9/2/2023", "09/02/2023", "09/02/2023 00:00:00", "2023-09-02", "2023-09-02T00:00:00Z"} {
		c := &rowCtx{env: &mapEnv{path: "x.csv"}, b: &binding{}, t: newCSVTable("x.csv", strings.NewReader(""), ','), rec: []string{s}}
		got, err := c.azureDate(0, true)
		if err != nil || !got.Equal(want) {
			t.Errorf("%q: %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"2/30/2023", "13/1/2023", "9/2/23"} {
		if _, ok := usDate(s); ok {
			t.Errorf("%q read as a US date, want refused", s)
		}
	}
}

func FuzzAzureCostDetails(f *testing.F) {
	fuzzExportSeeds(f, "azure-cost-details")
	fuzzExport(f)
}

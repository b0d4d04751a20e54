package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

// TestAWSCUR imports the CUR samples (testdata/aws-cur/README.md): the
// real legacy excerpt, the legacy GPU month built by the data dictionary
// (savings plan covered usage and its negation, a reservation, spot,
// credit, refund, discount, fee, tax) and the CUR 2.0 month with net
// costs. Totals are the sums of the billed column worked out by hand.
func TestAWSCUR(t *testing.T) {
	for _, tc := range []exportCase{
		{file: "testdata/aws-cur/cur_legacy_sample.csv", format: "aws-cur", rows: 49,
			totals: map[string]string{"USD": "0.1733871405"},
			kinds:  map[string]int{"tax": 12, "network": 8, "service": 26, "storage": 3}},
		{file: "testdata/aws-cur/cur_legacy_gpu.csv", format: "aws-cur", rows: 16,
			// 65.5452 + 56.72 − 56.72 + 1116.00 + 0.4734 + 0 + 96.72 + 8.00 + 1.25
			// + 10.80 + 3.72 − 50.00 − 5.00 − 2.00 + 100.00 + 12.34
			totals: map[string]string{"USD": "1357.8486"},
			kinds: map[string]int{"compute": 7, "storage": 1, "snapshot": 1, "network": 2, "credit": 1,
				"adjustment": 2, "service": 1, "tax": 1},
			pricing: map[string]int{"on_demand": 9, "reserved": 5, "spot": 1, "package": 1},
			// p4d 2 h × 8 A100; g5.12xlarge 10 h × 4 A10G (the negation
			// line carries no hours); g4dn 3 h × 1 T4; p3.8xlarge 5 h × 4
			// V100 covered by a reservation (its fee carries no hours).
			gpuHours: map[string]string{"A100": "16", "A10G": "40", "T4": "3", "V100": "20"}},
		{file: "testdata/aws-cur/cur2_gpu.csv", format: "aws-cur", rows: 4,
			// the net costs: 7.2432 + 198.144 + 10.60875 + 21.61
			totals:   map[string]string{"USD": "237.60595"},
			kinds:    map[string]int{"compute": 2, "storage": 1, "tax": 1},
			gpuHours: map[string]string{"L4": "10", "H100": "32"}},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) { checkExport(t, tc) })
	}
}

// TestAWSCURMapping pins the line types' meaning on the GPU month.
func TestAWSCURMapping(t *testing.T) {
	db := testkit.OpenLedger(t)
	if _, err := ImportFile(context.Background(), db, "testdata/aws-cur/cur_legacy_gpu.csv", Options{TZ: shanghai}); err != nil {
		t.Fatal(err)
	}
	byDesc := map[string]ledger.LineItem{}
	for _, li := range storedItems(t, db) {
		byDesc[li.Description] = li
	}
	check := func(desc, kind, category, pricing, cash, voucher string) {
		t.Helper()
		li, ok := byDesc[desc]
		if !ok {
			t.Fatalf("no line %q", desc)
		}
		if li.Kind != kind || li.ChargeCategory != category || li.PricingModel != pricing {
			t.Errorf("%s: %s/%s/%s, want %s/%s/%s", desc, li.Kind, li.ChargeCategory, li.PricingModel, kind, category, pricing)
		}
		if got := li.CashPaid.Decimal.String(); !li.CashPaid.Valid || got != cash {
			t.Errorf("%s: cash %v, want %s", desc, li.CashPaid, cash)
		}
		if got := li.VoucherPaid.Decimal.String(); voucher == "" && li.VoucherPaid.Valid || voucher != "" && got != voucher {
			t.Errorf("%s: voucher %v, want %q", desc, li.VoucherPaid, voucher)
		}
	}
	check("AWS Activate Credits", "credit", "Credit", "on_demand", "-50", "50")
	check("Refund for case 1234567890", "adjustment", "Adjustment", "on_demand", "-5", "")
	check("Enterprise Program Discount", "adjustment", "Adjustment", "on_demand", "-2", "")
	check("1 year No Upfront Compute Savings Plan", "compute", "Purchase", "reserved", "1116", "")
	check("Tax for product code AmazonEC2", "tax", "Tax", "on_demand", "12.34", "")
	neg := byDesc["SavingsPlanNegation used by AccountId : 444455556666 and UsageSku : ABCD"]
	if neg.PricingQuantity.Valid || neg.GPUModel != "A10G" || neg.PricingModel != "reserved" {
		t.Errorf("negation line: quantity %v, GPU %q, pricing %q; want none, A10G, reserved", neg.PricingQuantity, neg.GPUModel, neg.PricingModel)
	}
	p4d := byDesc["$32.7726 per On Demand Linux p4d.24xlarge Instance Hour"]
	if p4d.GPUModel != "A100" || p4d.GPUCount != 8 || p4d.BillingPeriod != "2026-10" || p4d.Tags != `{"user:project":"llm"}` ||
		p4d.SubAccount != "444455556666" || p4d.BillingAccountID != "111122223333" || p4d.ResourceID != "i-0p4d000000000001" {
		t.Errorf("p4d line: %+v", p4d)
	}
}

// TestAWSCURGzip: the CUR as AWS delivers it, gzip-compressed, imports
// the same rows as the plain CSV (importing one after the other adds
// nothing), and a damaged or nested gzip file is refused by name.
func TestAWSCURGzip(t *testing.T) {
	plain, err := os.ReadFile("testdata/aws-cur/cur2_gpu.csv")
	if err != nil {
		t.Fatal(err)
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	dir := t.TempDir()
	db := testkit.OpenLedger(t)
	res, err := ImportFile(context.Background(), db, writeTemp(t, dir, "cur-00001.csv.gz", gz(plain)), Options{TZ: shanghai})
	if err != nil || res.Format != "aws-cur" || res.New != 4 {
		t.Fatalf("gzip: %+v, %v; want aws-cur with 4 new rows", res, err)
	}
	res, err = ImportFile(context.Background(), db, writeTemp(t, dir, "cur.csv", plain), Options{TZ: shanghai})
	if err != nil || res.New != 0 || res.Duplicate != 4 {
		t.Fatalf("plain after gzip: %+v, %v; want 0 new, 4 duplicate", res, err)
	}
	for name, data := range map[string][]byte{
		"truncated.csv.gz": gz(plain)[:60],
		"nested.csv.gz":    gz(gz(plain)),
	} {
		p := writeTemp(t, dir, name, data)
		_, err := Scan(context.Background(), p, Options{TZ: shanghai})
		if err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), "gzip") {
			t.Errorf("%s: got %v, want an error naming the file and gzip", name, err)
		}
	}
}

// TestAWSDataExportsFOCUS: the FOCUS 1.0 export of AWS Data Exports (its
// columns, with AWS's x_ ones) is read as FOCUS, not as a CUR.
func TestAWSDataExportsFOCUS(t *testing.T) {
	csv := "AvailabilityZone,BilledCost,BillingAccountId,BillingAccountName,BillingCurrency,BillingPeriodEnd,BillingPeriodStart,ChargeCategory,ChargeClass,ChargeDescription,ChargeFrequency,ChargePeriodEnd,ChargePeriodStart,CommitmentDiscountCategory,CommitmentDiscountId,CommitmentDiscountName,CommitmentDiscountStatus,CommitmentDiscountType,ConsumedQuantity,ConsumedUnit,ContractedCost,ContractedUnitPrice,EffectiveCost,InvoiceIssuerName,ListCost,ListUnitPrice,PricingCategory,PricingQuantity,PricingUnit,ProviderName,PublisherName,RegionId,RegionName,ResourceId,ResourceName,ResourceType,ServiceCategory,ServiceName,SkuId,SkuPriceId,SubAccountId,SubAccountName,Tags,x_CostCategories,x_Discounts,x_Operation,x_ServiceCode,x_UsageType\n" +
		"us-east-1a,65.5452,111122223333,lab,USD,2026-11-01T00:00:00Z,2026-10-01T00:00:00Z,Usage,,$32.7726 per On Demand Linux p4d.24xlarge Instance Hour,Usage-Based,2026-10-03T10:00:00Z,2026-10-03T08:00:00Z,,,,,,2,Hrs,65.5452,32.7726,65.5452,AWS Inc.,65.5452,32.7726,Standard,2,Hrs,AWS,AWS,us-east-1,US East (N. Virginia),i-0p4d000000000001,,,Compute,Amazon Elastic Compute Cloud,ABCD,ABCD.EFGH,444455556666,ml,{},{},{},RunInstances,AmazonEC2,USE1-BoxUsage:p4d.24xlarge\n"
	p := writeTemp(t, t.TempDir(), "focus.csv", []byte(csv))
	res, err := Scan(context.Background(), p, Options{TZ: shanghai})
	if err != nil || res.Format != "focus" || res.New != 1 || res.Provider != "aws" {
		t.Errorf("AWS FOCUS export: %+v, %v; want focus, aws, 1 row", res, err)
	}
}

func FuzzAWSCUR(f *testing.F) {
	fuzzExportSeeds(f, "aws-cur")
	fuzzExport(f)
}

package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestForeignExportRefused: a cloud cost export gpubill does not read is
// refused with an error that names it and says what to export instead, in
// English and Chinese, from import and from check alike; the headers are
// the vendors' own (foreign.go lists the sources), with one data row.
func TestForeignExportRefused(t *testing.T) {
	cases := []struct {
		name       string
		csv        string
		wantEN     []string
		wantZH     []string
		notContain string
	}{
		{"aws cur legacy without its usage start",
			"identity/LineItemId,identity/TimeInterval,bill/BillingPeriodStartDate,bill/BillingPeriodEndDate,lineItem/UsageAccountId,lineItem/LineItemType,lineItem/UsageEndDate,lineItem/ProductCode,lineItem/UsageAmount,lineItem/CurrencyCode,lineItem/UnblendedCost,lineItem/ResourceId\n" +
				"abc,2026-10-01T00:00:00Z/2026-10-02T00:00:00Z,2026-10-01T00:00:00Z,2026-11-01T00:00:00Z,111122223333,Usage,2026-10-01T01:00:00Z,AmazonEC2,1,USD,3.06,i-0abc\n",
			[]string{"this looks like an AWS Cost and Usage Report", "lineItem/UnblendedCost, lineItem/LineItemType",
				"lacks the columns gpubill needs to read it: lineItem/UsageStartDate / line_item_usage_start_date", "AWS Data Exports"},
			[]string{"这看起来是AWS 成本和使用情况报告（CUR）", "缺少 gpubill 读取所需的列：lineItem/UsageStartDate"},
			"does not read"},
		{"aws cur 2.0 without its cost",
			"bill_bill_type,bill_billing_period_start_date,identity_line_item_id,line_item_line_item_type,line_item_usage_start_date,line_item_usage_end_date,line_item_product_code,line_item_usage_amount,line_item_blended_cost,line_item_currency_code,line_item_resource_id\n" +
				"Anniversary,2026-10-01T00:00:00Z,abc,Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,AmazonEC2,1,3.06,USD,i-0abc\n",
			[]string{"AWS Cost and Usage Report", "line_item_blended_cost, line_item_usage_start_date", "lacks the columns gpubill needs to read it: lineItem/UnblendedCost / line_item_unblended_cost"},
			[]string{"缺少"}, "does not read"},
		{"azure ea without its date",
			"InvoiceSectionName,AccountName,AccountOwnerId,SubscriptionId,SubscriptionName,ResourceGroup,ResourceLocation,ProductName,MeterCategory,MeterSubCategory,MeterId,MeterName,MeterRegion,UnitOfMeasure,Quantity,EffectivePrice,CostInBillingCurrency,CostCenter,ConsumedService,ResourceId,Tags,BillingCurrency,BillingPeriodStartDate,BillingPeriodEndDate,ChargeType,PricingModel\n" +
				"dept,acct,owner@example.com,sub-1,Sub,rg,eastus,Virtual Machines NCv3,Virtual Machines,NCv3 Series,m1,NC6s v3,US East,1 Hour,1,3.06,3.06,,Microsoft.Compute,/subscriptions/sub-1/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/gpu1,,USD,10/01/2026,10/31/2026,Usage,OnDemand\n",
			[]string{"an Azure cost-details export, Enterprise Agreement", "MeterCategory, CostInBillingCurrency", "lacks the columns gpubill needs to read it: Date"},
			[]string{"Azure 成本明细导出（cost details），企业协议 EA", "缺少 gpubill 读取所需的列：Date"}, "looks like focus"},
		{"azure mca without its cost",
			"invoiceId,billingAccountId,billingProfileId,billingPeriodStartDate,billingPeriodEndDate,date,meterCategory,meterName,quantity,effectivePrice,billingCurrency,ResourceId,chargeType,pricingModel\n" +
				"G001,ba,bp,2026-10-01,2026-10-31,2026-10-01,Virtual Machines,NC6s v3,1,3.06,USD,/subscriptions/s/rg/vm,Usage,OnDemand\n",
			[]string{"an Azure cost-details export, Microsoft Customer Agreement", "lacks the columns gpubill needs to read it: CostInBillingCurrency"},
			[]string{"微软客户协议 MCA"}, "looks like focus"},
		{"gcp cost table",
			"Billing account name,Billing account ID,Project name,Project ID,Service description,Service ID,SKU description,SKU ID,Credit type,Cost type,Usage start date,Usage end date,Usage amount,Usage unit,Unrounded Cost ($),Cost ($)\n" +
				"acct,0123-4567-89AB,proj,proj-id,Compute Engine,6F81-5844-456A,Nvidia Tesla T4 GPU running in Americas,ABCD,,Usage,2026-10-01,2026-10-31,720,hour,252.000001,252.00\n",
			[]string{"a Google Cloud cost table report (CSV download)", "Service description, SKU description, Usage start date",
				"without resource ids", "export the billing data to BigQuery"},
			[]string{"Google Cloud 费用表报告", "没有资源 ID"}, "lacks"},
		{"gcp cost table as downloaded, invoice rows above and totals below",
			"Invoice number,123,\nBilling account ID,000000-000000-000000,\nCurrency,USD,\nTotal amount due,$60.00,\n" +
				"Billing account name,Billing account ID,Project name,Project ID,Project hierarchy,Service description,Service ID,SKU description,SKU ID,Consumption model description,Credit type,Cost type,Usage start date,Usage end date,Usage amount,Usage unit,Unrounded Cost ($),Cost ($)\n" +
				"Lab,000000-000000-000000,ml,ml-1,example.com,Compute Engine,6F81-5844-456A,Nvidia Tesla A100 80GB GPU running in Americas,K1,Default,,Usage,2026-10-01,2026-10-31,\"1,000\",hour,60.00,60.00\n" +
				",,,,,,,,,,,Total,,,,,60.00,60.00\n",
			[]string{"a Google Cloud cost table report (CSV download)", "Service description, SKU description, Usage start date"},
			[]string{"Google Cloud 费用表报告"}, "lacks"},
		{"gcp cost table with columns hidden in the console",
			"Project ID,Service description,Service ID,SKU description,SKU ID,Consumption model description,Consumption model ID,Cost type,Unrounded cost ($),Cost ($)\n" +
				"p,Compute Engine,6F81-5844-456A,N2 Instance Core,SKU-1,Default,7754-699E-0EBF,regular,120.00,120.00\n",
			[]string{"a Google Cloud cost table report (CSV download)", "Service description, SKU description, Cost type"},
			[]string{"Google Cloud 费用表报告"}, "lacks"},
		{"gcp billing export without its cost",
			"billing_account_id,service.id,service.description,sku.id,sku.description,usage_start_time,usage_end_time,project.id,currency,usage.amount,usage.unit,invoice.month,cost_type\n" +
				"0123-4567-89AB,6F81-5844-456A,Compute Engine,ABCD,Nvidia Tesla T4 GPU,2026-10-01 00:00:00 UTC,2026-10-01 01:00:00 UTC,proj,USD,3600,seconds,202610,regular\n",
			[]string{"a Google Cloud billing export (BigQuery table as CSV)", "service.description, usage_start_time", "lacks the columns gpubill needs to read it: cost"},
			[]string{"BigQuery", "缺少"}, "does not read"},
		{"oci cost report without its cost",
			"lineItem/referenceNo,lineItem/tenantId,lineItem/intervalUsageStart,lineItem/intervalUsageEnd,product/service,product/resource,product/compartmentId,product/region,product/resourceId,usage/billedQuantity,cost/subscriptionId,cost/productSku,product/Description,cost/unitPrice,cost/currencyCode,cost/billingUnitReadable\n" +
				"ref,ocid1.tenancy,2026-10-01T00:00Z,2026-10-01T01:00Z,COMPUTE,GPU_A10,ocid1.compartment,us-ashburn-1,ocid1.instance,1,sub,B95909,GPU A10,2,USD,GPU Per Hour\n",
			[]string{"an Oracle Cloud (OCI) cost report", "lineItem/intervalUsageStart, cost/unitPrice", "lacks the columns gpubill needs to read it: cost/myCost", "FOCUS report"},
			[]string{"Oracle Cloud（OCI）成本报告", "缺少"}, "does not read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "export.csv")
			if err := os.WriteFile(p, []byte(tc.csv), 0o644); err != nil {
				t.Fatal(err)
			}
			_, scanErr := Scan(context.Background(), p, Options{TZ: shanghai})
			_, checkErr := Check(p)
			for _, err := range []error{scanErr, checkErr} {
				var ie *InputError
				if !errors.As(err, &ie) {
					t.Fatalf("got %v, want an *InputError", err)
				}
				en, zh := err.Error(), ie.TextZH()
				if !strings.HasPrefix(en, p+": ") || !strings.HasPrefix(zh, p+": ") {
					t.Errorf("messages do not start with the file:\n%s\n%s", en, zh)
				}
				for _, w := range tc.wantEN {
					if !strings.Contains(en, w) {
						t.Errorf("got %q, want it to contain %q", en, w)
					}
				}
				for _, w := range tc.wantZH {
					if !strings.Contains(zh, w) {
						t.Errorf("got %q, want it to contain %q", zh, w)
					}
				}
				if strings.Contains(strings.ToLower(en), tc.notContain) {
					t.Errorf("got %q, which still says %q", en, tc.notContain)
				}
			}
		})
	}
}

// TestForeignExportNotClaimed: a header that shares only some of a foreign
// export's columns is not named as that export, and a readable format's
// file is read, however many cloud columns it carries.
func TestForeignExportNotClaimed(t *testing.T) {
	for _, rec := range [][]string{
		{"lineItem/UnblendedCost", "amount"},            // half a CUR
		{"CostInBillingCurrency", "x"},                  // no meter
		{"Service description", "SKU description", "x"}, // no usage start
		{"cost/myCost", "product/service"},              // no interval
		{"lineItem/referenceNo", "lineItem/tenantId"},   // no cost
	} {
		if m := recogniseForeign(rec); m != nil {
			t.Errorf("%q: recognised as %s, want none", rec, m.export.id)
		}
	}
	if m := recogniseForeign([]string{" LINEITEM/UNBLENDEDCOST ", "lineitem/usagestartdate"}); m == nil || m.export.id != "aws-cur" {
		t.Errorf("case and spaces: got %+v, want aws-cur", m)
	}
	// A FOCUS file that also carries Azure's own columns (Microsoft's FOCUS
	// export keeps x_ columns, a hand-made one may keep more) is FOCUS.
	p := filepath.Join(t.TempDir(), "focus.csv")
	body := "BilledCost,BillingCurrency,BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,ChargePeriodEnd,ProviderName,ServiceName,ChargeCategory,CostInBillingCurrency,Date,MeterCategory\n" +
		"3.06,USD,2026-10-01T00:00:00Z,2026-11-01T00:00:00Z,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,Microsoft,Virtual Machines,Usage,3.06,2026-10-01,Virtual Machines\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Scan(context.Background(), p, Options{TZ: shanghai})
	if err != nil || !strings.HasPrefix(res.Format, "focus") {
		t.Errorf("FOCUS with Azure columns: format %q, error %v; want focus, nil", res.Format, err)
	}
}

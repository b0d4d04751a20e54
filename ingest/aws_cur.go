package ingest

import (
	"encoding/json"
	"strings"

	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// AWS Cost and Usage Report: the legacy CUR (lineItem/UnblendedCost …,
// docs.aws.amazon.com/cur/latest/userguide/data-dictionary.html) and CUR 2.0
// of AWS Data Exports (line_item_unblended_cost …, table-dictionary-cur2.html;
// a legacy CUR queried through Athena has the same snake_case names), as
// CSV, gzip-compressed CSV (.csv.gz, read by content) or ZIP.
//
// Billed: lineItem/NetUnblendedCost where the file has it (an account with
// discounts: the cost after them), else lineItem/UnblendedCost; this is the
// FOCUS converters' BilledCost. Every line type sums to the invoice:
//   - Usage: the charge; SpotUsage → spot.
//   - DiscountedUsage (covered by a reserved instance, cost 0), RIFee (the
//     reservation's hourly fee) → reserved.
//   - SavingsPlanCoveredUsage (the on-demand cost of covered usage) and
//     SavingsPlanNegation (its negative) cancel; SavingsPlanRecurringFee and
//     SavingsPlanUpfrontFee are what the plan costs → reserved, Purchase.
//     Negation and fee lines carry no quantity (kept in raw): the hours
//     used are those of the usage lines, counted once.
//   - Fee (upfront fees, subscriptions) → Purchase, package.
//   - Credit (promotional credits) → credit: a voucher.
//   - Refund → adjustment; Tax → tax; EdpDiscount, PrivateRateDiscount,
//     BundledDiscount, Discount … → adjustment (not a voucher).
//
// GPU instances (product/instanceType, else the usage type's
// BoxUsage:p4d.24xlarge) give the GPU model and count (awsGPUPerInstance).

func init() { registerFormat(awsCURFormat, 21) }

var awsCURFormat = &Format{
	ID:         "aws-cur",
	Version:    "1",
	NameZH:     "AWS 成本和使用情况报告（CUR 旧版列名或 CUR 2.0；CSV、gzip、ZIP）",
	NameEN:     "AWS Cost and Usage Report (legacy or CUR 2.0 columns; CSV, gzip, ZIP)",
	Confidence: ConfidenceDoc,
	DetectZH: "表头含 lineItem/UnblendedCost 与 lineItem/UsageStartDate（或 CUR 2.0 的 line_item_unblended_cost 与 " +
		"line_item_usage_start_date）。应付取 NetUnblendedCost（有折扣的账户才有该列），否则 UnblendedCost；" +
		"Savings Plans 的 Negation 行与 CoveredUsage 相抵，Credit 行记为代金券",
	DetectEN: "header holds lineItem/UnblendedCost and lineItem/UsageStartDate (or CUR 2.0's line_item_unblended_cost and " +
		"line_item_usage_start_date). Billed is NetUnblendedCost (present for accounts with discounts), else UnblendedCost; " +
		"Savings Plans negation lines cancel the covered usage, Credit lines are vouchers",
	DedupeKey: "hash of provider, account, resource, kind, charge category, charge period, quantity and unit, unit price, " +
		"list/billed cost, currency, description + occurrence number in the file (identity/LineItemId is unique " +
		"only within one delivery of the report, so it is kept in raw only)",
	Target:       TargetLineItems,
	billedIsCash: true,
	Columns: []Column{
		{Field: "unblended_cost", Headers: []string{"lineItem/UnblendedCost", "line_item_unblended_cost"}, Required: true},
		{Field: "usage_start", Headers: []string{"lineItem/UsageStartDate", "line_item_usage_start_date"}, Required: true},
		{Field: "usage_end", Headers: []string{"lineItem/UsageEndDate", "line_item_usage_end_date"}},
		{Field: "net_unblended_cost", Headers: []string{"lineItem/NetUnblendedCost", "line_item_net_unblended_cost"}},
		{Field: "line_item_type", Headers: []string{"lineItem/LineItemType", "line_item_line_item_type"}},
		{Field: "unblended_rate", Headers: []string{"lineItem/UnblendedRate", "line_item_unblended_rate"}},
		{Field: "usage_amount", Headers: []string{"lineItem/UsageAmount", "line_item_usage_amount"}},
		{Field: "currency", Headers: []string{"lineItem/CurrencyCode", "line_item_currency_code"}},
		{Field: "product_code", Headers: []string{"lineItem/ProductCode", "line_item_product_code"}},
		{Field: "usage_type", Headers: []string{"lineItem/UsageType", "line_item_usage_type"}},
		{Field: "operation", Headers: []string{"lineItem/Operation", "line_item_operation"}},
		{Field: "zone", Headers: []string{"lineItem/AvailabilityZone", "line_item_availability_zone"}},
		{Field: "resource_id", Headers: []string{"lineItem/ResourceId", "line_item_resource_id"}},
		{Field: "description", Headers: []string{"lineItem/LineItemDescription", "line_item_line_item_description"}},
		{Field: "usage_account", Headers: []string{"lineItem/UsageAccountId", "line_item_usage_account_id"}},
		{Field: "payer_account", Headers: []string{"bill/PayerAccountId", "bill_payer_account_id"}},
		{Field: "billing_period_start", Headers: []string{"bill/BillingPeriodStartDate", "bill_billing_period_start_date"}},
		{Field: "product_name", Headers: []string{"product/ProductName", "product_product_name"}},
		{Field: "product_family", Headers: []string{"product/productFamily", "product_product_family"}},
		{Field: "instance_type", Headers: []string{"product/instanceType", "product_instance_type"}},
		{Field: "region", Headers: []string{"product/regionCode", "product_region_code", "product/region"}},
		{Field: "list_cost", Headers: []string{"pricing/publicOnDemandCost", "pricing_public_on_demand_cost"}},
		{Field: "list_unit_price", Headers: []string{"pricing/publicOnDemandRate", "pricing_public_on_demand_rate"}},
		{Field: "pricing_unit", Headers: []string{"pricing/unit", "pricing_unit"}},
		{Field: "pricing_term", Headers: []string{"pricing/term", "pricing_term"}},
		{Field: "resource_tags", Headers: []string{"resource_tags"}},
		// Known columns without a ledger column of their own.
		{Field: "line_item_id", Headers: []string{"identity/LineItemId", "identity_line_item_id"}, RawOnly: true},
		{Field: "time_interval", Headers: []string{"identity/TimeInterval", "identity_time_interval"}, RawOnly: true},
		{Field: "bill_type", Headers: []string{"bill/BillType", "bill_bill_type"}, RawOnly: true},
		{Field: "invoice_id", Headers: []string{"bill/InvoiceId", "bill_invoice_id"}, RawOnly: true},
		{Field: "billing_period_end", Headers: []string{"bill/BillingPeriodEndDate", "bill_billing_period_end_date"}, RawOnly: true},
		{Field: "blended_cost", Headers: []string{"lineItem/BlendedCost", "line_item_blended_cost"}, RawOnly: true},
		{Field: "reservation_arn", Headers: []string{"reservation/ReservationARN", "reservation_reservation_a_r_n"}, RawOnly: true},
		{Field: "reservation_effective_cost", Headers: []string{"reservation/EffectiveCost", "reservation_effective_cost"}, RawOnly: true},
		{Field: "savings_plan_arn", Headers: []string{"savingsPlan/SavingsPlanARN", "savings_plan_savings_plan_a_r_n"}, RawOnly: true},
		{Field: "savings_plan_effective_cost", Headers: []string{"savingsPlan/SavingsPlanEffectiveCost", "savings_plan_savings_plan_effective_cost"}, RawOnly: true},
	},
	lines: awsCURLines,
}

// awsCURLines maps CUR rows.
func awsCURLines(b *binding, env *mapEnv) (lineMapper, error) {
	ix := struct {
		unblended, start, end, net, lineType, rate, amount, currency, product, usageType, operation, zone,
		resource, description, usageAccount, payer, billingStart, productName, family, instanceType, region,
		listCost, listRate, unit, term, tags int
	}{
		b.idx("unblended_cost"), b.idx("usage_start"), b.idx("usage_end"), b.idx("net_unblended_cost"),
		b.idx("line_item_type"), b.idx("unblended_rate"), b.idx("usage_amount"), b.idx("currency"),
		b.idx("product_code"), b.idx("usage_type"), b.idx("operation"), b.idx("zone"), b.idx("resource_id"),
		b.idx("description"), b.idx("usage_account"), b.idx("payer_account"), b.idx("billing_period_start"),
		b.idx("product_name"), b.idx("product_family"), b.idx("instance_type"), b.idx("region"),
		b.idx("list_cost"), b.idx("list_unit_price"), b.idx("pricing_unit"), b.idx("pricing_term"), b.idx("resource_tags"),
	}
	tagCols := prefixColumns(b.header, "resourceTags/")
	kinds := newTextMemo(awsKind)
	gpus := newTextMemo(func(instanceType, usageType, _ string) awsInstanceGPU { return awsGPUOf(instanceType, usageType) })
	return func(c *rowCtx, li *ledger.LineItem) (bool, error) {
		var err error
		li.Provider = "aws"
		if li.BilledCost, err = c.requiredAmount(ix.unblended); err != nil {
			return false, err
		}
		if net, err := c.amount(ix.net); err != nil {
			return false, err
		} else if net.Valid {
			li.BilledCost = net.Decimal
		}
		if err := exportPeriod(c, li, ix.start, ix.end); err != nil {
			return false, err
		}
		li.BillingPeriod = utcMonth(li.ChargePeriodStart)
		if exportText(c, ix.billingStart) != "" {
			t, err := c.time(ix.billingStart, nil)
			if err != nil {
				return false, err
			}
			li.BillingPeriod = utcMonth(t)
		}
		if li.Currency, err = exportCurrency(c, ix.currency, "lineItem/CurrencyCode"); err != nil {
			return false, err
		}
		lineType := exportText(c, ix.lineType)
		usageType := exportText(c, ix.usageType)
		li.BillingAccountID = exportText(c, ix.payer)
		li.SubAccount = exportText(c, ix.usageAccount)
		li.ResourceID = exportText(c, ix.resource)
		li.ServiceName = exportText(c, ix.productName)
		if li.ServiceName == "" {
			li.ServiceName = exportText(c, ix.product)
		}
		li.ResourceType = exportText(c, ix.family)
		instanceType := exportText(c, ix.instanceType)
		li.SKU = instanceType
		if li.SKU == "" {
			li.SKU = usageType
		}
		li.Region = exportText(c, ix.region)
		li.Zone = exportText(c, ix.zone)
		li.Description = exportText(c, ix.description)
		if li.PricingQuantity, err = c.amount(ix.amount); err != nil {
			return false, err
		}
		li.PricingUnit = exportUnit(exportText(c, ix.unit))
		li.ConsumedQuantity, li.ConsumedUnit = li.PricingQuantity, li.PricingUnit
		if li.ListUnitPrice, err = c.amount(ix.listRate); err != nil {
			return false, err
		}
		if !li.ListUnitPrice.Valid {
			if li.ListUnitPrice, err = c.amount(ix.rate); err != nil {
				return false, err
			}
		}
		if li.ListCost, err = c.amount(ix.listCost); err != nil {
			return false, err
		}
		li.Kind = kinds.get(exportText(c, ix.product), usageType, li.ResourceType)
		li.ChargeCategory, li.PricingModel = ledger.CategoryUsage, ledger.PricingOnDemand
		switch lt := strings.ToLower(lineType); {
		case lt == "tax":
			li.Kind, li.ChargeCategory = ledger.KindTax, ledger.CategoryTax
		case lt == "credit":
			li.Kind, li.ChargeCategory = ledger.KindCredit, ledger.CategoryCredit
		case lt == "refund":
			li.Kind, li.ChargeCategory = ledger.KindAdjustment, ledger.CategoryAdjustment
		case strings.HasSuffix(lt, "discount"):
			li.Kind, li.ChargeCategory = ledger.KindAdjustment, ledger.CategoryAdjustment
		case lt == "fee":
			li.ChargeCategory, li.PricingModel = ledger.CategoryPurchase, ledger.PricingPackage
		case lt == "rifee" || lt == "savingsplanrecurringfee" || lt == "savingsplanupfrontfee":
			li.ChargeCategory, li.PricingModel = ledger.CategoryPurchase, ledger.PricingReserved
			if li.Kind == ledger.KindService || li.Kind == ledger.KindOther {
				li.Kind = ledger.KindCompute // a Compute Savings Plan, an EC2 reservation
			}
			// The fee pays for the hours reserved, used or not: the
			// hours used are on the covered usage lines.
			li.PricingQuantity, li.ConsumedQuantity = decimal.NullDecimal{}, decimal.NullDecimal{}
		case lt == "discountedusage" || lt == "savingsplancoveredusage":
			li.PricingModel = ledger.PricingReserved
		case lt == "savingsplannegation":
			li.PricingModel = ledger.PricingReserved
			li.PricingQuantity, li.ConsumedQuantity = decimal.NullDecimal{}, decimal.NullDecimal{}
		default:
			switch term := strings.ToLower(exportText(c, ix.term)); {
			case strings.Contains(usageType, "SpotUsage") || term == "spot":
				li.PricingModel = ledger.PricingSpot
			case term == "reserved":
				li.PricingModel = ledger.PricingReserved
			}
		}
		if li.Kind == ledger.KindCompute {
			g := gpus.get(instanceType, usageType, "")
			li.GPUModel, li.GPUCount = g.model, g.count
		}
		if li.Tags, err = columnTags(c, tagCols); err != nil {
			return false, err
		}
		if t := exportText(c, ix.tags); li.Tags == "" && strings.HasPrefix(t, "{") && t != "{}" && json.Valid([]byte(t)) {
			li.Tags = t
		}
		li.Raw = c.raw()
		return false, nil
	}, nil
}

// awsKind derives the charge kind of a usage line from its product code,
// usage type and product family: data transfer, NAT gateways and public
// addresses → network; EBS snapshots → snapshot; volumes and S3/EFS/FSx
// storage → storage; instance hours → compute; other services → service.
func awsKind(product, usageType, family string) string {
	u, f := strings.ToLower(usageType), strings.ToLower(family)
	has := func(s string, words ...string) bool {
		for _, w := range words {
			if strings.Contains(s, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has(u, "snapshot") || f == "storage snapshot":
		return ledger.KindSnapshot
	case has(u, "datatransfer", "-out-bytes", "-in-bytes", "natgateway", "publicipv4", "elasticip", "idleaddress") ||
		f == "data transfer" || f == "ip address" || product == "AWSDataTransfer":
		return ledger.KindNetwork
	case has(u, "ebs:volume", "volumeusage", "timedstorage") || f == "storage" ||
		product == "AmazonS3" || product == "AmazonEFS" || product == "AmazonFSx":
		return ledger.KindStorage
	case has(u, "boxusage", "spotusage", "dedicatedusage", "hostusage", "heavyusage") || f == "compute instance":
		return ledger.KindCompute
	case product == "":
		return ledger.KindOther
	}
	return ledger.KindService
}

// awsInstanceGPU is the GPU model and count of an instance type.
type awsInstanceGPU struct {
	model string
	count int
}

// awsGPUOf reads the instance type (or the part of the usage type after
// its colon, BoxUsage:g5.12xlarge) and gives its GPU: the model from the
// instance family (gpuModelFromText), the count from awsGPUPerInstance
// (0 when the size is not listed).
func awsGPUOf(instanceType, usageType string) awsInstanceGPU {
	it := instanceType
	if it == "" {
		if _, after, ok := strings.Cut(usageType, ":"); ok {
			it = after
		}
	}
	it = strings.ToLower(strings.TrimSpace(it))
	m := gpuModelFromText(it)
	if m == "" {
		return awsInstanceGPU{}
	}
	return awsInstanceGPU{model: m, count: awsGPUPerInstance[it]}
}

// awsGPUPerInstance is the number of GPUs of each size of the GPU instance
// families, from the accelerated computing table of
// aws.amazon.com/ec2/instance-types/ (checked 2026-12); a size not listed
// gives 0 (unknown).
var awsGPUPerInstance = func() map[string]int {
	m := map[string]int{
		"p2.xlarge": 1, "p2.8xlarge": 8, "p2.16xlarge": 16,
		"p3.2xlarge": 1, "p3.8xlarge": 4, "p3.16xlarge": 8, "p3dn.24xlarge": 8,
		"p4d.24xlarge": 8, "p4de.24xlarge": 8,
		"p5.4xlarge": 1, "p5.48xlarge": 8, "p5e.48xlarge": 8, "p5en.48xlarge": 8,
		"g3s.xlarge": 1, "g3.4xlarge": 1, "g3.8xlarge": 2, "g3.16xlarge": 4,
		"g4ad.xlarge": 1, "g4ad.2xlarge": 1, "g4ad.4xlarge": 1, "g4ad.8xlarge": 2, "g4ad.16xlarge": 4,
		"g4dn.12xlarge": 4, "g4dn.metal": 8,
		"g5.12xlarge": 4, "g5.24xlarge": 4, "g5.48xlarge": 8,
		"g5g.16xlarge": 2, "g5g.metal": 2,
		"g6.12xlarge": 4, "g6.24xlarge": 4, "g6.48xlarge": 8,
		"g6e.12xlarge": 4, "g6e.24xlarge": 4, "g6e.48xlarge": 8,
		"gr6.4xlarge": 1, "gr6.8xlarge": 1,
	}
	// The one-GPU sizes of g4dn, g5, g5g, g6 and g6e.
	for _, fam := range []string{"g4dn", "g5", "g5g", "g6", "g6e"} {
		for _, size := range []string{"xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge"} {
			if _, ok := m[fam+"."+size]; !ok {
				m[fam+"."+size] = 1
			}
		}
	}
	return m
}()

package ingest

import (
	"strings"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// Oracle Cloud (OCI) cost reports (Billing → Cost and Usage Reports, the
// "cost" CSV files): docs.oracle.com/iaas/Content/Billing/Concepts/usagereportsoverview.htm,
// cost report schema. One row per resource, SKU and hour.
//
// Billed: cost/myCost, the cost of the line at the tenancy's own price
// (billedQuantity × unitPrice, negotiated discounts applied). Under a
// Universal Credits commitment the usage is drawn from the prepaid
// commitment and only cost/myCostOverage, the usage beyond it, is invoiced
// (the FOCUS converters take myCostOverage as BilledCost); gpubill keeps
// myCost billed and, where the overage is stated, records the overage as
// cash paid and the rest as paid by the commitment (other_paid). That
// split is read from the column names, not from a real file with an
// overage [guess]. Corrected lines (lineItem/isCorrection) are summed as
// written, with a warning.
//
// GPU SKUs are priced per GPU-hour ("GPU Per Hour"): the billed quantity
// is GPU-hours, one GPU per unit.

func init() { registerFormat(ociFormat, 23) }

var ociFormat = &Format{
	ID:         "oci-cost-report",
	Version:    "1",
	NameZH:     "Oracle Cloud（OCI）成本报告（cost CSV）",
	NameEN:     "Oracle Cloud (OCI) cost report (cost CSV)",
	Confidence: ConfidenceDoc,
	DetectZH: "表头含 lineItem/intervalUsageStart 与 cost/myCost。应付取 cost/myCost；有 cost/myCostOverage 时，超额部分记为现金支付、" +
		"其余记为承诺额度支付（按列名推测，未见过含超额的真实文件）；tags/ 列读入标签",
	DetectEN: "header holds lineItem/intervalUsageStart and cost/myCost. Billed is cost/myCost; where cost/myCostOverage is stated, " +
		"the overage is cash paid and the rest paid by the commitment (a guess from the column names: no real file with an " +
		"overage seen); tags/ columns become tags",
	DedupeKey: "hash of provider, account, resource, kind, charge category, charge period, quantity and unit, unit price, " +
		"list/billed cost, currency, description + occurrence number in the file (lineItem/referenceNo is kept in raw only)",
	Target:       TargetLineItems,
	billedIsCash: true,
	Columns: []Column{
		{Field: "my_cost", Headers: []string{"cost/myCost"}, Required: true},
		{Field: "start", Headers: []string{"lineItem/intervalUsageStart"}, Required: true},
		{Field: "end", Headers: []string{"lineItem/intervalUsageEnd"}},
		{Field: "my_cost_overage", Headers: []string{"cost/myCostOverage"}},
		{Field: "currency", Headers: []string{"cost/currencyCode"}},
		{Field: "tenant", Headers: []string{"lineItem/tenantId"}},
		{Field: "compartment_name", Headers: []string{"product/compartmentName"}},
		{Field: "service", Headers: []string{"product/service"}},
		{Field: "region", Headers: []string{"product/region"}},
		{Field: "zone", Headers: []string{"product/availabilityDomain"}},
		{Field: "resource_id", Headers: []string{"product/resourceId"}},
		{Field: "quantity", Headers: []string{"usage/billedQuantity"}},
		{Field: "sku", Headers: []string{"cost/productSku"}},
		{Field: "description", Headers: []string{"product/Description"}},
		{Field: "unit_price", Headers: []string{"cost/unitPrice"}},
		{Field: "unit", Headers: []string{"cost/skuUnitDescription"}},
		{Field: "is_correction", Headers: []string{"lineItem/isCorrection"}},
		// Known columns without a ledger column of their own.
		{Field: "reference_no", Headers: []string{"lineItem/referenceNo"}, RawOnly: true},
		{Field: "backreference_no", Headers: []string{"lineItem/backreferenceNo"}, RawOnly: true},
		{Field: "compartment_id", Headers: []string{"product/compartmentId"}, RawOnly: true},
		{Field: "subscription_id", Headers: []string{"cost/subscriptionId"}, RawOnly: true},
		{Field: "quantity_overage", Headers: []string{"usage/billedQuantityOverage"}, RawOnly: true},
		{Field: "unit_price_overage", Headers: []string{"cost/unitPriceOverage"}, RawOnly: true},
		{Field: "billing_unit", Headers: []string{"cost/billingUnitReadable"}, RawOnly: true},
		{Field: "overage_flag", Headers: []string{"cost/overageFlag"}, RawOnly: true},
	},
	lines: ociLines,
}

// ociLines maps cost-report rows.
func ociLines(b *binding, env *mapEnv) (lineMapper, error) {
	ix := struct {
		cost, start, end, overage, currency, tenant, compartment, service, region, zone, resource, quantity, sku,
		description, unitPrice, unit, correction int
	}{
		b.idx("my_cost"), b.idx("start"), b.idx("end"), b.idx("my_cost_overage"), b.idx("currency"), b.idx("tenant"),
		b.idx("compartment_name"), b.idx("service"), b.idx("region"), b.idx("zone"), b.idx("resource_id"),
		b.idx("quantity"), b.idx("sku"), b.idx("description"), b.idx("unit_price"), b.idx("unit"), b.idx("is_correction"),
	}
	tagCols := prefixColumns(b.header, "tags/")
	units := newMemo(func(s string) (string, bool) { return ociUnit(s), true })
	gpus := newTextMemo(func(desc, _, _ string) string {
		m, _, _ := billing.GPUModelOf("oracle", desc)
		return m
	})
	warned := false
	return func(c *rowCtx, li *ledger.LineItem) (bool, error) {
		var err error
		li.Provider = "oracle"
		if li.BilledCost, err = c.requiredAmount(ix.cost); err != nil {
			return false, err
		}
		overage, err := c.amount(ix.overage)
		if err != nil {
			return false, err
		}
		if overage.Valid {
			li.CashPaid = overage
			li.OtherPaid = decimal.NullDecimal{Decimal: li.BilledCost.Sub(overage.Decimal), Valid: true}
		}
		if err := exportPeriod(c, li, ix.start, ix.end); err != nil {
			return false, err
		}
		li.BillingPeriod = utcMonth(li.ChargePeriodStart)
		if li.Currency, err = exportCurrency(c, ix.currency, "cost/currencyCode"); err != nil {
			return false, err
		}
		li.BillingAccountID = exportText(c, ix.tenant)
		li.SubAccount = exportText(c, ix.compartment)
		li.ServiceName = exportText(c, ix.service)
		li.Region = exportText(c, ix.region)
		li.Zone = exportText(c, ix.zone)
		li.ResourceID = exportText(c, ix.resource)
		li.SKU = exportText(c, ix.sku)
		li.Description = exportText(c, ix.description)
		if li.PricingQuantity, err = c.amount(ix.quantity); err != nil {
			return false, err
		}
		li.PricingUnit, _ = units.get(exportText(c, ix.unit))
		li.ConsumedQuantity, li.ConsumedUnit = li.PricingQuantity, li.PricingUnit
		if li.ListUnitPrice, err = c.amount(ix.unitPrice); err != nil {
			return false, err
		}
		li.ChargeCategory, li.PricingModel = ledger.CategoryUsage, ledger.PricingOnDemand
		li.Kind = ociKind(li.ServiceName, li.Description)
		if li.Kind == ledger.KindCompute {
			if li.GPUModel = gpus.get(li.Description, "", ""); li.GPUModel != "" {
				li.GPUCount = 1 // priced per GPU-hour
			}
		}
		if strings.EqualFold(exportText(c, ix.correction), "true") && !warned {
			warned = true
			env.warnings = append(env.warnings, Warning{Row: c.t.line(ix.correction),
				ZH: "文件含更正行（lineItem/isCorrection 为 true）：gpubill 按行原样相加，请与 OCI 控制台的合计核对",
				EN: "the file holds corrected lines (lineItem/isCorrection true): gpubill adds every line as written; check the total against the OCI console"})
		}
		if li.Tags, err = columnTags(c, tagCols); err != nil {
			return false, err
		}
		li.Raw = c.raw()
		return false, nil
	}, nil
}

// ociUnit normalises cost/skuUnitDescription: Hours, GPU Per Hour, OCPU
// Per Hour → hour; GB Months → GB-month; others kept as written.
func ociUnit(s string) string {
	t := strings.ToLower(strings.TrimSpace(s))
	if strings.HasSuffix(t, "per hour") && !strings.Contains(t, "gigabyte") && !strings.Contains(t, "gb") {
		return "hour"
	}
	if u, ok := ParseUnit(strings.ReplaceAll(t, " ", "-")); ok {
		return u
	}
	return s
}

// ociKind derives the kind from product/service and the SKU's description:
// outbound data transfer and networking → network; block volume backups →
// snapshot; container and custom image storage → image; block and object
// storage → storage; COMPUTE → compute; other
// services → service.
func ociKind(service, description string) string {
	s, d := strings.ToUpper(service), strings.ToLower(description)
	switch {
	case strings.Contains(d, "data transfer") || s == "NETWORK" || strings.Contains(s, "LOAD_BALANCER") || strings.Contains(s, "FASTCONNECT"):
		return ledger.KindNetwork
	case strings.Contains(d, "backup"):
		return ledger.KindSnapshot
	case strings.Contains(d, "image storage") || strings.Contains(d, "custom image"):
		return ledger.KindImage
	case s == "BLOCK_STORAGE" || s == "OBJECTSTORE" || s == "FILE_STORAGE" || strings.Contains(d, "block volume"):
		return ledger.KindStorage
	case s == "COMPUTE":
		return ledger.KindCompute
	case s == "":
		return ledger.KindOther
	}
	return ledger.KindService
}

package ingest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// Azure cost details exports (Cost Management → Exports, "Cost and usage
// details"), Enterprise Agreement (PascalCase headers, BillingCurrencyCode)
// and Microsoft Customer Agreement (camelCase, billingCurrency, invoiceId):
// learn.microsoft.com/azure/cost-management-billing/dataset-schema/cost-usage-details-ea
// and -mca. Headers match case aside, so one spelling serves both.
//
// Billed: CostInBillingCurrency of the actual-cost dataset, which reconciles
// with the invoice. The amortized dataset has the same columns; it differs
// in its rows (understand-reserved-instance-usage-ea): no reservation or
// savings plan purchases, usage covered by a commitment at its prorated
// cost instead of 0, and UnusedReservation / UnusedSavingsPlan rows. gpubill
// keeps the invoice's meaning in both: covered usage and unused-commitment
// rows are billed 0 (their amortized cost stays in raw), so importing the
// actual and the amortized export of a month adds the shared rows once and
// never counts a commitment twice; an amortized file is named in a warning
// (its purchases are only in the actual export).
//
// Dates are US month/day/year in EA files (9/2/2023), ISO in newer ones;
// a row's charge period is its UTC day.

func init() { registerFormat(azureFormat, 22) }

var azureFormat = &Format{
	ID:         "azure-cost-details",
	Version:    "1",
	NameZH:     "Azure 成本明细导出（EA 或 MCA，实际成本或摊销成本）",
	NameEN:     "Azure cost details export (EA or MCA, actual or amortized cost)",
	Confidence: ConfidenceDoc,
	DetectZH: "表头含 CostInBillingCurrency、Date 与 MeterCategory（大小写不论，EA 与 MCA 通用），且没有 FOCUS 的 BilledCost。" +
		"应付取实际成本数据集的 CostInBillingCurrency；摊销数据集中预留/节省计划覆盖的用量与未用部分记为 0（摊销额留在原始行中），" +
		"两者一起导入不会重复计算",
	DetectEN: "header holds CostInBillingCurrency, Date and MeterCategory (case aside: EA and MCA alike) and no FOCUS BilledCost. " +
		"Billed is CostInBillingCurrency of the actual-cost dataset; in the amortized dataset commitment-covered usage and unused " +
		"commitments are billed 0 (their amortized cost kept in raw), so importing both never counts a commitment twice",
	DedupeKey: "hash of provider, account, resource, kind, charge category, charge period, quantity and unit, unit price, " +
		"list/billed cost, currency, description + occurrence number in the file (the export has no line id)",
	Target:       TargetLineItems,
	billedIsCash: true,
	Columns: []Column{
		{Field: "cost", Headers: []string{"CostInBillingCurrency"}, Required: true},
		{Field: "date", Headers: []string{"Date"}, Required: true},
		{Field: "meter_category", Headers: []string{"MeterCategory"}, Required: true},
		{Field: "meter_subcategory", Headers: []string{"MeterSubCategory"}},
		{Field: "meter_name", Headers: []string{"MeterName"}},
		{Field: "currency", Headers: []string{"BillingCurrencyCode", "BillingCurrency"}},
		{Field: "quantity", Headers: []string{"Quantity"}},
		{Field: "unit", Headers: []string{"UnitOfMeasure"}},
		{Field: "unit_price", Headers: []string{"UnitPrice"}},
		{Field: "payg_price", Headers: []string{"PayGPrice"}},
		{Field: "payg_cost", Headers: []string{"paygCostInBillingCurrency"}},
		{Field: "charge_type", Headers: []string{"ChargeType"}},
		{Field: "pricing_model", Headers: []string{"PricingModel"}},
		{Field: "billing_account", Headers: []string{"BillingAccountId"}},
		{Field: "subscription", Headers: []string{"SubscriptionId"}},
		{Field: "resource_id", Headers: []string{"ResourceId", "InstanceId"}},
		{Field: "resource_name", Headers: []string{"ResourceName"}},
		{Field: "location", Headers: []string{"ResourceLocation"}},
		{Field: "zone", Headers: []string{"AvailabilityZone"}},
		{Field: "product", Headers: []string{"ProductName", "Product"}},
		{Field: "consumed_service", Headers: []string{"ConsumedService"}},
		{Field: "tags", Headers: []string{"Tags"}},
		{Field: "billing_period_start", Headers: []string{"BillingPeriodStartDate"}},
		{Field: "additional_info", Headers: []string{"AdditionalInfo"}},
		// Known columns without a ledger column of their own.
		{Field: "effective_price", Headers: []string{"EffectivePrice"}, RawOnly: true},
		{Field: "invoice_id", Headers: []string{"invoiceId"}, RawOnly: true},
		{Field: "subscription_name", Headers: []string{"SubscriptionName"}, RawOnly: true},
		{Field: "resource_group", Headers: []string{"ResourceGroup", "resourceGroupName"}, RawOnly: true},
		{Field: "meter_id", Headers: []string{"MeterId"}, RawOnly: true},
		{Field: "meter_region", Headers: []string{"MeterRegion"}, RawOnly: true},
		{Field: "reservation_id", Headers: []string{"ReservationId"}, RawOnly: true},
		{Field: "reservation_name", Headers: []string{"ReservationName"}, RawOnly: true},
		{Field: "benefit_name", Headers: []string{"benefitName"}, RawOnly: true},
		{Field: "frequency", Headers: []string{"Frequency"}, RawOnly: true},
		{Field: "account_owner", Headers: []string{"AccountOwnerId"}, RawOnly: true},
		// FOCUS's own column: a FOCUS file is never read as this export.
		{Field: "focus_billed_cost", Headers: []string{"BilledCost"}, RawOnly: true},
	},
	match: func(b *binding) bool { return b.idx("focus_billed_cost") < 0 },
	lines: azureLines,
}

// azureLines maps cost-details rows.
func azureLines(b *binding, env *mapEnv) (lineMapper, error) {
	ix := struct {
		cost, date, category, subcategory, meter, currency, quantity, unit, unitPrice, paygPrice, paygCost, chargeType,
		pricing, account, subscription, resource, resourceName, location, zone, product, service, tags, billingStart, info int
	}{
		b.idx("cost"), b.idx("date"), b.idx("meter_category"), b.idx("meter_subcategory"), b.idx("meter_name"),
		b.idx("currency"), b.idx("quantity"), b.idx("unit"), b.idx("unit_price"), b.idx("payg_price"), b.idx("payg_cost"),
		b.idx("charge_type"), b.idx("pricing_model"), b.idx("billing_account"), b.idx("subscription"), b.idx("resource_id"),
		b.idx("resource_name"), b.idx("location"), b.idx("zone"), b.idx("product"), b.idx("consumed_service"), b.idx("tags"),
		b.idx("billing_period_start"), b.idx("additional_info"),
	}
	units := newTextMemo(func(s, _, _ string) azureUnit { return parseAzureUnit(s) })
	gpus := newTextMemo(func(product, meter, sub string) awsInstanceGPU { return azureGPUOf(product, meter, sub) })
	amortized := false
	return func(c *rowCtx, li *ledger.LineItem) (bool, error) {
		var err error
		li.Provider = "microsoft"
		if li.BilledCost, err = c.requiredAmount(ix.cost); err != nil {
			return false, err
		}
		day, err := c.azureDate(ix.date, true)
		if err != nil {
			return false, err
		}
		li.ChargePeriodStart, li.ChargePeriodEnd = day, day.AddDate(0, 0, 1)
		li.BillingPeriod = utcMonth(day)
		if start, err := c.azureDate(ix.billingStart, false); err != nil {
			return false, err
		} else if !start.IsZero() {
			li.BillingPeriod = utcMonth(start)
		}
		if li.Currency, err = exportCurrency(c, ix.currency, "BillingCurrencyCode"); err != nil {
			return false, err
		}
		li.BillingAccountID = exportText(c, ix.account)
		li.SubAccount = exportText(c, ix.subscription)
		li.ResourceID = exportText(c, ix.resource)
		li.ResourceName = exportText(c, ix.resourceName)
		li.Region = exportText(c, ix.location)
		li.Zone = exportText(c, ix.zone)
		li.ServiceName = exportText(c, ix.category)
		li.ResourceType = exportText(c, ix.service)
		li.SKU = exportText(c, ix.product)
		meter, sub := exportText(c, ix.meter), exportText(c, ix.subcategory)
		li.Description = joinNonEmpty(" - ", sub, meter)
		qty, err := c.amount(ix.quantity)
		if err != nil {
			return false, err
		}
		u := units.get(exportText(c, ix.unit), "", "")
		li.PricingUnit = u.unit
		if qty.Valid {
			li.PricingQuantity = decimal.NullDecimal{Decimal: qty.Decimal.Mul(u.per), Valid: true}
		}
		li.ConsumedQuantity, li.ConsumedUnit = li.PricingQuantity, li.PricingUnit
		if li.ListUnitPrice, err = c.amount(ix.paygPrice); err != nil {
			return false, err
		}
		if !li.ListUnitPrice.Valid {
			if li.ListUnitPrice, err = c.amount(ix.unitPrice); err != nil {
				return false, err
			}
		}
		if li.ListCost, err = c.amount(ix.paygCost); err != nil {
			return false, err
		}
		if li.ListUnitPrice.Valid && u.per.GreaterThan(decimal.NewFromInt(1)) {
			// A price per "100 Hours" becomes a price per hour.
			li.ListUnitPrice.Decimal = li.ListUnitPrice.Decimal.Div(u.per)
		}
		li.Kind = azureKind(li.ServiceName, sub, meter)
		li.ChargeCategory, li.PricingModel = ledger.CategoryUsage, ledger.PricingOnDemand
		chargeType := strings.ToLower(exportText(c, ix.chargeType))
		pricing := strings.ToLower(exportText(c, ix.pricing))
		switch pricing {
		case "reservation", "savingsplan":
			li.PricingModel = ledger.PricingReserved
		case "spot":
			li.PricingModel = ledger.PricingSpot
		}
		switch chargeType {
		case "purchase":
			li.ChargeCategory = ledger.CategoryPurchase
			if li.PricingModel == ledger.PricingOnDemand {
				li.PricingModel = ledger.PricingPackage
			}
			// A commitment bought is no hours used.
			li.PricingQuantity, li.ConsumedQuantity = decimal.NullDecimal{}, decimal.NullDecimal{}
		case "refund", "roundingadjustment", "adjustment":
			li.Kind, li.ChargeCategory = ledger.KindAdjustment, ledger.CategoryAdjustment
		case "tax":
			li.Kind, li.ChargeCategory = ledger.KindTax, ledger.CategoryTax
		case "credit":
			li.Kind, li.ChargeCategory = ledger.KindCredit, ledger.CategoryCredit
		case "unusedreservation", "unusedsavingsplan":
			// Amortized only: the commitment was paid by its purchase.
			li.PricingModel = ledger.PricingReserved
			li.BilledCost, li.ListCost = decimal.Zero, decimal.NullDecimal{}
			li.PricingQuantity, li.ConsumedQuantity = decimal.NullDecimal{}, decimal.NullDecimal{}
			amortized = true
		}
		if chargeType == "usage" && li.PricingModel == ledger.PricingReserved && !li.BilledCost.IsZero() {
			// Amortized: covered usage costs 0 on the invoice.
			li.BilledCost = decimal.Zero
			amortized = true
		}
		if amortized && len(env.warnings) == 0 {
			env.warnings = append(env.warnings, Warning{
				ZH: "这是 Azure 摊销成本（amortized）导出：预留实例与节省计划覆盖的用量和未使用部分按发票记为 0（摊销额保留在原始行中），" +
					"购买记录只在实际成本（actual）导出中，请一并导入该导出",
				EN: "this is an Azure amortized-cost export: usage covered by reservations and savings plans and their unused part are " +
					"billed 0 as on the invoice (the amortized amounts are kept in raw); their purchases are only in the actual-cost " +
					"export, so import that one too"})
		}
		if li.Kind == ledger.KindCompute {
			g := gpus.get(li.SKU, meter, sub+" "+exportText(c, ix.info))
			li.GPUModel, li.GPUCount = g.model, g.count
		}
		li.Tags = azureTags(exportText(c, ix.tags))
		li.Raw = c.raw()
		return false, nil
	}, nil
}

// azureDate reads a date cell: ISO 8601, or the US month/day/year of EA
// files (9/2/2023, 09/02/2023 00:00:00). Days are UTC.
func (c *rowCtx) azureDate(i int, required bool) (time.Time, error) {
	s := exportText(c, i)
	if s == "" {
		if required {
			return time.Time{}, c.errAt(i, "required time is empty")
		}
		return time.Time{}, nil
	}
	if t, ok := usDate(s); ok {
		return t, nil
	}
	t, err := ParseTime(s, time.UTC)
	if err != nil {
		return time.Time{}, c.errAt(i, fmt.Sprintf("%q is not a date (M/D/YYYY or YYYY-MM-DD)", s))
	}
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), nil
}

// usDate parses M/D/YYYY (a time of day after it is ignored; the
// exports' days are whole days), refusing impossible dates.
func usDate(s string) (time.Time, bool) {
	d, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	parts := strings.Split(d, "/")
	if len(parts) != 3 || len(parts[2]) != 4 {
		return time.Time{}, false
	}
	var n [3]int
	for k, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || len(p) > 4 || v < 0 {
			return time.Time{}, false
		}
		n[k] = v
	}
	m, day, y := n[0], n[1], n[2]
	if m < 1 || m > 12 || day < 1 || day > 31 || !billYear(y) {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), day, 0, 0, 0, 0, time.UTC)
	if t.Day() != day {
		return time.Time{}, false
	}
	return t, true
}

// azureUnit is a UnitOfMeasure read: "10 Hours" is per = 10, unit hour.
type azureUnit struct {
	per  decimal.Decimal
	unit string
}

// parseAzureUnit reads UnitOfMeasure: an optional count before a unit
// (1 Hour, 100 Hours, 1 GB/Month, 10K). The quantity of a known unit is
// scaled to one of it; an unknown one keeps its text and the quantity.
func parseAzureUnit(s string) azureUnit {
	one := azureUnit{per: decimal.NewFromInt(1), unit: s}
	num, word, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok {
		return one
	}
	n, err := decimal.NewFromString(num)
	if err != nil || !n.IsPositive() {
		return one
	}
	if u, known := ParseUnit(word); known {
		return azureUnit{per: n, unit: u}
	}
	return one
}

// azureKind derives the kind from the meter: Virtual Machines → compute;
// snapshots → snapshot; Storage and managed disks → storage; Bandwidth,
// Virtual Network, IP addresses, NAT → network; other meters → service.
func azureKind(category, sub, meter string) string {
	cat := strings.ToLower(category)
	text := strings.ToLower(sub + " " + meter)
	switch {
	case strings.Contains(text, "snapshot"):
		return ledger.KindSnapshot
	case cat == "bandwidth" || cat == "virtual network" || cat == "networking" ||
		strings.Contains(text, "ip address") || strings.Contains(text, "data transfer") || strings.Contains(cat, "nat gateway"):
		return ledger.KindNetwork
	case cat == "storage" || strings.Contains(text, "disk"):
		return ledger.KindStorage
	case cat == "virtual machines":
		return ledger.KindCompute
	case cat == "":
		return ledger.KindOther
	}
	return ledger.KindService
}

// azureGPUOf names the GPU of an N-series VM from its product, meter and
// subcategory (gpuModelFromText), with the count of the sizes in
// azureGPUPerSize.
func azureGPUOf(product, meter, sub string) awsInstanceGPU {
	m := gpuModelFromText(product + " " + meter + " " + sub)
	if m == "" {
		return awsInstanceGPU{}
	}
	key := strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(meter, "_", " ")), " "))
	return awsInstanceGPU{model: m, count: azureGPUPerSize[key]}
}

// azureGPUPerSize is the GPU count of N-series sizes as their meters name
// them, from learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated
// (checked 2026-12); a size not listed gives 0 (unknown).
var azureGPUPerSize = map[string]int{
	"nc6s v3": 1, "nc12s v3": 2, "nc24s v3": 4, "nc24rs v3": 4,
	"nc4as t4 v3": 1, "nc8as t4 v3": 1, "nc16as t4 v3": 1, "nc64as t4 v3": 4,
	"nc24ads a100 v4": 1, "nc48ads a100 v4": 2, "nc96ads a100 v4": 4,
	"nd96asr a100 v4": 8, "nd96asr v4": 8, "nd96amsr a100 v4": 8,
	"nc40ads h100 v5": 1, "nc80adis h100 v5": 2, "nd96isr h100 v5": 8,
}

// azureTags reads Tags: a JSON object, or EA's bare list of "key": "value"
// pairs without braces.
func azureTags(s string) string {
	if s == "" {
		return ""
	}
	if !strings.HasPrefix(s, "{") {
		s = "{" + s + "}"
	}
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil || len(m) == 0 {
		return ""
	}
	return s
}

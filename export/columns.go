package export

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
	"github.com/gpubill/gpubill/platform"
)

// colType is how a column's values are typed in Parquet (in CSV every value
// is text).
type colType int

const (
	typeText     colType = iota
	typeMoney            // DECIMAL(MoneyPrecision, MoneyScale)
	typeQuantity         // DECIMAL(QuantityPrecision, QuantityScale): quantities and unit prices
	typeTime             // TIMESTAMP (UTC, microseconds)
	typeInt              // INT64
)

// column is one column of the export.
type column struct {
	name string
	typ  colType
}

// Columns of the export, in the order CSV writes them: FOCUS 1.2 first (the
// columns gpubill can fill, and the mandatory ones it fills with NULL), then
// gpubill's x_ columns. docs/export.md describes each.
var columns = []column{
	{"BillingAccountId", typeText},
	{"BillingCurrency", typeText},
	{"BillingPeriodStart", typeTime},
	{"BillingPeriodEnd", typeTime},
	{"ChargePeriodStart", typeTime},
	{"ChargePeriodEnd", typeTime},
	{"ChargeCategory", typeText},
	{"ChargeClass", typeText},
	{"ChargeDescription", typeText},
	{"ChargeFrequency", typeText},
	{"BilledCost", typeMoney},
	{"EffectiveCost", typeMoney},
	{"ListCost", typeMoney},
	{"ContractedCost", typeMoney},
	{"ListUnitPrice", typeQuantity},
	{"ContractedUnitPrice", typeQuantity},
	{"ConsumedQuantity", typeQuantity},
	{"ConsumedUnit", typeText},
	{"PricingCategory", typeText},
	{"PricingQuantity", typeQuantity},
	{"PricingUnit", typeText},
	{"ProviderName", typeText},
	{"PublisherName", typeText},
	{"InvoiceIssuerName", typeText},
	{"RegionId", typeText},
	{"AvailabilityZone", typeText},
	{"ResourceId", typeText},
	{"ResourceName", typeText},
	{"ResourceType", typeText},
	{"ServiceCategory", typeText},
	{"ServiceName", typeText},
	{"SkuId", typeText},
	{"SubAccountId", typeText},
	{"Tags", typeText},
	{"x_Provider", typeText},
	{"x_Kind", typeText},
	{"x_PricingModel", typeText},
	{"x_ParentResourceId", typeText},
	{"x_UsageStart", typeTime},
	{"x_UsageEnd", typeTime},
	{"x_GpuModel", typeText},
	{"x_GpuCount", typeInt},
	{"x_VoucherPaid", typeMoney},
	{"x_CashPaid", typeMoney},
	{"x_OtherPaid", typeMoney},
	{"x_Unpaid", typeMoney},
	{SourceFileColumn, typeText},
	{SourceSheetColumn, typeText},
	{SourceRowColumn, typeInt},
	{SourceFormatColumn, typeText},
	{SourceIDsColumn, typeText},
	{"x_LineItemId", typeInt},
	{"x_RowKey", typeText},
	{"x_LineKey", typeText},
	{"x_DataEnd", typeTime},
	{"x_FindingRules", typeText},
	{"x_FindingFingerprints", typeText},
	{"x_AmountAtRisk", typeMoney},
	// Parquet only (scalesColumn): the decimals each amount had in the
	// ledger, which a DECIMAL column of fixed scale cannot carry.
}

// scalesColumn is the Parquet-only column that keeps the source precision
// of the decimal columns (ScalesText).
const scalesColumn = "x_SourceScales"

// cell is one value of a row: text for CSV, and the typed value Parquet
// writes.
type cell struct {
	null bool
	text string
	dec  decimal.Decimal
	t    time.Time
	n    int64
}

func textCell(s string) cell {
	if s == "" {
		return cell{null: true}
	}
	return cell{text: s}
}

func decCell(d decimal.Decimal) cell {
	return cell{text: string(money.Append(nil, d)), dec: d}
}

func ndecCell(d decimal.NullDecimal) cell {
	if !d.Valid {
		return cell{null: true}
	}
	return decCell(d.Decimal)
}

// TimeLayout is how the export writes times: UTC, RFC 3339 (FOCUS's
// format for date-times).
const TimeLayout = "2006-01-02T15:04:05Z"

func timeCell(t time.Time) cell {
	if t.IsZero() {
		return cell{null: true}
	}
	t = t.UTC()
	layout := TimeLayout
	if t.Nanosecond() != 0 {
		layout = time.RFC3339Nano
	}
	return cell{text: t.Format(layout), t: t}
}

func intCell(n int64) cell { return cell{text: strconv.FormatInt(n, 10), n: n} }

// lineFindings is what the stored findings say of one line item.
type lineFindings struct {
	rules, fingerprints []string
	atRisk              decimal.NullDecimal
}

// row fills cells (len(columns)) with line item li. src is its source as
// findings cite it (Row 0: none); ids its x_SourceIds cell; lf its
// findings (nil: none); dataEnd the end of its provider's data in the ledger.
func row(cells []cell, li *ledger.LineItem, src Source, ids string, lf *lineFindings, dataEnd time.Time) {
	start, end := monthBounds(li.BillingPeriod)
	provider := platform.Name(li.Provider, "en")
	set := func(i int, c cell) { cells[i] = c }
	i := 0
	next := func(c cell) { set(i, c); i++ }
	next(textCell(li.BillingAccountID))
	next(textCell(li.Currency))
	next(timeCell(start))
	next(timeCell(end))
	next(timeCell(li.ChargePeriodStart))
	next(timeCell(li.ChargePeriodEnd))
	next(textCell(li.ChargeCategory))
	next(cell{null: true}) // ChargeClass: gpubill knows no corrections of earlier periods
	next(textCell(li.Description))
	next(textCell(chargeFrequency(li)))
	next(decCell(li.BilledCost))
	next(decCell(li.BilledCost)) // EffectiveCost: gpubill amortises nothing
	next(ndecCell(li.ListCost))
	next(decCell(li.BilledCost)) // ContractedCost: what the contract charged
	next(ndecCell(li.ListUnitPrice))
	next(ndecCell(li.ListUnitPrice)) // ContractedUnitPrice: no negotiated price known
	next(ndecCell(li.ConsumedQuantity))
	next(textCell(li.ConsumedUnit))
	next(textCell(pricingCategory(li)))
	next(ndecCell(li.PricingQuantity))
	next(textCell(li.PricingUnit))
	next(textCell(provider))
	next(textCell(provider))
	next(textCell(provider))
	next(textCell(li.Region))
	next(textCell(li.Zone))
	next(textCell(li.ResourceID))
	next(textCell(li.ResourceName))
	next(textCell(li.ResourceType))
	next(textCell(serviceCategory(li.Kind)))
	next(textCell(li.ServiceName))
	next(textCell(li.SKU))
	next(textCell(li.SubAccount))
	next(textCell(li.Tags))
	next(textCell(li.Provider))
	next(textCell(li.Kind))
	next(textCell(li.PricingModel))
	next(textCell(li.ParentResourceID))
	next(timeCell(li.UsageStart))
	next(timeCell(li.UsageEnd))
	next(textCell(li.GPUModel))
	if li.GPUCount > 0 {
		next(intCell(int64(li.GPUCount)))
	} else {
		next(cell{null: true})
	}
	next(ndecCell(li.VoucherPaid))
	next(ndecCell(li.CashPaid))
	next(ndecCell(li.OtherPaid))
	next(ndecCell(li.Unpaid))
	next(textCell(src.File))
	next(textCell(src.Sheet))
	if src.Row > 0 {
		next(intCell(int64(src.Row)))
	} else {
		next(cell{null: true})
	}
	next(textCell(src.Format))
	next(textCell(ids))
	next(intCell(li.ID))
	next(textCell(li.RowKey))
	next(textCell(li.LineKey)) // "": the source named no line id
	next(timeCell(dataEnd))
	if lf != nil {
		next(textCell(strings.Join(lf.rules, ",")))
		next(textCell(strings.Join(lf.fingerprints, ",")))
		next(ndecCell(lf.atRisk))
	} else {
		next(cell{null: true})
		next(cell{null: true})
		next(cell{null: true})
	}
	if i != len(columns) {
		panic(fmt.Sprintf("export: row fills %d of %d columns", i, len(columns)))
	}
}

// monthBounds is the billing period's start and end (half-open), UTC:
// FOCUS's BillingPeriodStart/End. A period that is no YYYY-MM gives zeros.
func monthBounds(period string) (time.Time, time.Time) {
	t, err := time.Parse("2006-01", period)
	if err != nil {
		return time.Time{}, time.Time{}
	}
	return t, t.AddDate(0, 1, 0)
}

// chargeFrequency is FOCUS's ChargeFrequency: a purchase (a prepaid
// package) is One-Time, everything else Usage-Based.
func chargeFrequency(li *ledger.LineItem) string {
	if li.ChargeCategory == ledger.CategoryPurchase {
		return "One-Time"
	}
	return "Usage-Based"
}

// pricingCategory is FOCUS's PricingCategory of a pricing model: on demand
// Standard, spot Dynamic, prepaid packages and reservations Committed.
func pricingCategory(li *ledger.LineItem) string {
	switch li.ChargeCategory {
	case ledger.CategoryUsage, ledger.CategoryPurchase:
	default:
		return "" // FOCUS: null for credits, taxes, adjustments
	}
	switch li.PricingModel {
	case ledger.PricingSpot:
		return "Dynamic"
	case ledger.PricingPackage, ledger.PricingReserved:
		return "Committed"
	case ledger.PricingOnDemand:
		return "Standard"
	}
	return "Other"
}

// serviceCategory is FOCUS's ServiceCategory of a charge kind.
func serviceCategory(kind string) string {
	switch kind {
	case ledger.KindCompute, ledger.KindSeat:
		return "Compute"
	case ledger.KindStorage, ledger.KindImage, ledger.KindSnapshot:
		return "Storage"
	case ledger.KindNetwork:
		return "Networking"
	}
	return "Other"
}

package ingest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// FOCUS (FinOps Open Cost and Usage Specification) 1.0–1.2 cost files, as
// AWS, Azure, GCP, OCI and others export them. Naive times are UTC (the spec
// says so); NULL written as text or as an empty cell means no value.

func init() {
	registerFormat(focusFormat, 20)
	registerFormat(gpubillExportFormat(), 19)
}

// gpubillExportFormat is gpubill's own FOCUS export (gpubill export), read
// by the FOCUS columns and the x_ ones. It is a format of its own because
// it is no monthly bill (billing.MonthlyBillFormat): its lines come from
// bills of every kind, and its data reaches as far as x_DataEnd says, the
// end of data of the ledger it came from, not to the end of the month.
func gpubillExportFormat() *Format {
	f := *focusFormat
	f.ID = "gpubill-export"
	f.Version = "1"
	f.NameZH = "gpubill 导出的 FOCUS 数据（gpubill export）"
	f.NameEN = "gpubill's FOCUS export (gpubill export)"
	f.Confidence = ConfidenceDoc
	f.DetectZH = "FOCUS 表头，另含 x_Provider、x_Kind、x_RowKey 列"
	f.DetectEN = "a FOCUS header with the x_Provider, x_Kind and x_RowKey columns"
	f.DedupeKey = "x_RowKey: the dedupe key of the ledger the export came from (and x_LineKey, its second key, where the line has one)"
	f.match = func(b *binding) bool {
		return b.idx("x_provider") >= 0 && b.idx("x_kind") >= 0 && b.idx("x_row_key") >= 0
	}
	return &f
}

var focusFormat = &Format{
	ID:         "focus",
	Version:    "1.0-1.2",
	NameZH:     "FOCUS 成本数据（AWS、Azure、GCP、OCI 等）",
	NameEN:     "FOCUS cost data (AWS, Azure, GCP, OCI …)",
	Confidence: ConfidenceDoc,
	DetectZH:   "表头含 BilledCost、ChargePeriodStart 以及 ProviderName 或 ServiceName；CSV、XLSX 或 Parquet 文件（按内容识别，列名即表头）",
	DetectEN:   "header holds BilledCost, ChargePeriodStart and ProviderName or ServiceName; CSV, XLSX or Parquet (recognised by content, its column names are the header)",
	DedupeKey: "hash of provider, account, resource_id, kind, charge category, charge period, quantity and unit, " +
		"unit price, list/billed cost, currency, description + occurrence number in the file " +
		"(FOCUS defines no line id; a vendor's extra Id column is not trusted across exports)",
	Target: TargetLineItems,
	// BilledCost is what the provider invoices: paid in money; credits come
	// as lines of their own.
	billedIsCash: true,
	Columns: []Column{
		{Field: "billed_cost", Headers: []string{"BilledCost"}, Required: true},
		{Field: "charge_period_start", Headers: []string{"ChargePeriodStart"}, Required: true},
		{Field: "charge_period_end", Headers: []string{"ChargePeriodEnd"}},
		{Field: "billing_period_start", Headers: []string{"BillingPeriodStart"}},
		{Field: "provider", Headers: []string{"ProviderName", "ServiceProviderName"}},
		{Field: "service_name", Headers: []string{"ServiceName"}},
		{Field: "service_category", Headers: []string{"ServiceCategory"}},
		{Field: "charge_category", Headers: []string{"ChargeCategory"}},
		{Field: "charge_description", Headers: []string{"ChargeDescription"}},
		{Field: "pricing_category", Headers: []string{"PricingCategory"}},
		{Field: "billing_account_id", Headers: []string{"BillingAccountId"}},
		{Field: "sub_account_id", Headers: []string{"SubAccountId"}},
		{Field: "resource_id", Headers: []string{"ResourceId"}},
		{Field: "resource_name", Headers: []string{"ResourceName"}},
		{Field: "resource_type", Headers: []string{"ResourceType"}},
		{Field: "sku_id", Headers: []string{"SkuId"}},
		{Field: "region_id", Headers: []string{"RegionId"}},
		{Field: "region_name", Headers: []string{"RegionName"}},
		{Field: "availability_zone", Headers: []string{"AvailabilityZone"}},
		{Field: "consumed_quantity", Headers: []string{"ConsumedQuantity"}},
		{Field: "consumed_unit", Headers: []string{"ConsumedUnit"}},
		{Field: "pricing_quantity", Headers: []string{"PricingQuantity"}},
		{Field: "pricing_unit", Headers: []string{"PricingUnit"}},
		{Field: "list_unit_price", Headers: []string{"ListUnitPrice"}},
		{Field: "list_cost", Headers: []string{"ListCost"}},
		{Field: "billing_currency", Headers: []string{"BillingCurrency"}},
		{Field: "tags", Headers: []string{"Tags"}},
		// Known FOCUS columns without a ledger column of their own.
		{Field: "billing_account_name", Headers: []string{"BillingAccountName"}, RawOnly: true},
		{Field: "billing_period_end", Headers: []string{"BillingPeriodEnd"}, RawOnly: true},
		{Field: "charge_class", Headers: []string{"ChargeClass"}, RawOnly: true},
		{Field: "charge_frequency", Headers: []string{"ChargeFrequency"}, RawOnly: true},
		{Field: "commitment_discount_category", Headers: []string{"CommitmentDiscountCategory"}, RawOnly: true},
		{Field: "commitment_discount_id", Headers: []string{"CommitmentDiscountId"}, RawOnly: true},
		{Field: "commitment_discount_name", Headers: []string{"CommitmentDiscountName"}, RawOnly: true},
		{Field: "commitment_discount_status", Headers: []string{"CommitmentDiscountStatus"}, RawOnly: true},
		{Field: "commitment_discount_type", Headers: []string{"CommitmentDiscountType"}, RawOnly: true},
		{Field: "contracted_cost", Headers: []string{"ContractedCost"}, RawOnly: true},
		{Field: "contracted_unit_price", Headers: []string{"ContractedUnitPrice"}, RawOnly: true},
		{Field: "effective_cost", Headers: []string{"EffectiveCost"}, RawOnly: true},
		{Field: "invoice_issuer_name", Headers: []string{"InvoiceIssuerName"}, RawOnly: true},
		{Field: "publisher_name", Headers: []string{"PublisherName"}, RawOnly: true},
		{Field: "sku_price_id", Headers: []string{"SkuPriceId"}, RawOnly: true},
		{Field: "sub_account_name", Headers: []string{"SubAccountName"}, RawOnly: true},
		// gpubill's own x_ columns (gpubill export, docs/export.md): what
		// the ledger knows beyond FOCUS, read back so that an exported
		// ledger survives the round trip.
		{Field: "x_provider", Headers: []string{"x_Provider"}},
		{Field: "x_kind", Headers: []string{"x_Kind"}},
		{Field: "x_pricing_model", Headers: []string{"x_PricingModel"}},
		{Field: "x_parent_resource_id", Headers: []string{"x_ParentResourceId"}},
		{Field: "x_usage_start", Headers: []string{"x_UsageStart"}},
		{Field: "x_usage_end", Headers: []string{"x_UsageEnd"}},
		{Field: "x_gpu_model", Headers: []string{"x_GpuModel"}},
		{Field: "x_gpu_count", Headers: []string{"x_GpuCount"}},
		{Field: "x_voucher_paid", Headers: []string{"x_VoucherPaid"}},
		{Field: "x_cash_paid", Headers: []string{"x_CashPaid"}},
		{Field: "x_other_paid", Headers: []string{"x_OtherPaid"}},
		{Field: "x_unpaid", Headers: []string{"x_Unpaid"}},
		{Field: "x_source_scales", Headers: []string{"x_SourceScales"}},
		{Field: "x_row_key", Headers: []string{"x_RowKey"}},
		{Field: "x_line_key", Headers: []string{"x_LineKey"}},
		{Field: "x_data_end", Headers: []string{"x_DataEnd"}},
	},
	match: func(b *binding) bool { return b.idx("provider") >= 0 || b.idx("service_name") >= 0 },
	lines: focusLines,
	// FOCUS names no line id: the only LineKey is gpubill export's
	// x_LineKey, a stored key that must not be numbered again.
	finalLineKeys: true,
	// gpubill's own export states every paid part as the ledger settled it.
	settled: func(b *binding) bool { return b.idx("x_cash_paid") >= 0 },
}

// focusLines maps FOCUS rows.
func focusLines(b *binding, env *mapEnv) (lineMapper, error) {
	ix := struct {
		billed, start, end, billingStart, provider, service, serviceCat, category, description, pricingCat,
		account, subAccount, resourceID, resourceName, resourceType, sku, regionID, regionName, zone,
		consumedQty, consumedUnit, pricingQty, pricingUnit, listUnitPrice, listCost, currency, tags int
	}{
		b.idx("billed_cost"), b.idx("charge_period_start"), b.idx("charge_period_end"), b.idx("billing_period_start"),
		b.idx("provider"), b.idx("service_name"), b.idx("service_category"), b.idx("charge_category"),
		b.idx("charge_description"), b.idx("pricing_category"), b.idx("billing_account_id"), b.idx("sub_account_id"),
		b.idx("resource_id"), b.idx("resource_name"), b.idx("resource_type"), b.idx("sku_id"), b.idx("region_id"),
		b.idx("region_name"), b.idx("availability_zone"), b.idx("consumed_quantity"), b.idx("consumed_unit"),
		b.idx("pricing_quantity"), b.idx("pricing_unit"), b.idx("list_unit_price"), b.idx("list_cost"),
		b.idx("billing_currency"), b.idx("tags"),
	}
	x := struct {
		provider, kind, pricing, parent, usageStart, usageEnd, gpuModel, gpuCount,
		voucher, cash, other, unpaid, scales, rowKey, lineKey, dataEnd int
	}{
		b.idx("x_provider"), b.idx("x_kind"), b.idx("x_pricing_model"), b.idx("x_parent_resource_id"),
		b.idx("x_usage_start"), b.idx("x_usage_end"), b.idx("x_gpu_model"), b.idx("x_gpu_count"),
		b.idx("x_voucher_paid"), b.idx("x_cash_paid"), b.idx("x_other_paid"), b.idx("x_unpaid"),
		b.idx("x_source_scales"), b.idx("x_row_key"), b.idx("x_line_key"), b.idx("x_data_end"),
	}
	cell := func(c *rowCtx, i int) string { return focusText(c.cell(i)) }
	// Derived from texts that repeat row after row (textMemo): the provider
	// and the GPU model (its regular expressions were a third of the
	// parsing of a FOCUS file).
	providers := newTextMemo(func(name, _, _ string) string { return focusProvider(name, env.provider) })
	gpuModels := newTextMemo(func(desc, sku, rtype string) string { return gpuModelFromText(desc + " " + sku + " " + rtype) })
	xl := &focusExcel{env: env} // amounts and times as Excel saves them
	return func(c *rowCtx, li *ledger.LineItem) (bool, error) {
		var err error
		li.Provider = providers.get(cell(c, ix.provider), "", "")
		if li.Provider == "" {
			if ix.provider < 0 {
				return false, c.errAt(-1, "the file has no ProviderName column: pass --provider")
			}
			return false, c.errAt(ix.provider, "ProviderName is empty (or pass --provider)")
		}
		if li.BilledCost, err = xl.requiredAmount(c, ix.billed); err != nil {
			return false, err
		}
		if li.ChargePeriodStart, err = xl.requiredTime(c, ix.start); err != nil {
			return false, err
		}
		li.ChargePeriodEnd = li.ChargePeriodStart
		if ix.end >= 0 {
			if li.ChargePeriodEnd, err = xl.requiredTime(c, ix.end); err != nil {
				return false, err
			}
		}
		if li.ChargePeriodEnd.Before(li.ChargePeriodStart) {
			return false, c.errAt(ix.end, fmt.Sprintf("ChargePeriodEnd %q is before ChargePeriodStart %q", c.cell(ix.end), c.cell(ix.start)))
		}
		// The billing period is the month of BillingPeriodStart as written
		// (its own offset, UTC when naive); else of the charge start in UTC.
		li.BillingPeriod = li.ChargePeriodStart.Format("2006-01")
		if s := cell(c, ix.billingStart); s != "" {
			t, ok := parseTimeWall(trimCell(s), time.UTC)
			if !ok {
				t, ok = excelDate(s) // saved by Excel (focus_excel.go)
				if ok {
					xl.warnDates(c, ix.billingStart)
				}
			}
			if !ok {
				return false, c.errAt(ix.billingStart, fmt.Sprintf("%q is not a date-time", s))
			}
			li.BillingPeriod = t.Format("2006-01")
		}
		li.Currency = strings.ToUpper(cell(c, ix.currency))
		if li.Currency == "" {
			if ix.currency < 0 {
				return false, c.errAt(-1, "the file has no BillingCurrency column")
			}
			return false, c.errAt(ix.currency, "required value is empty")
		}
		li.ChargeCategory = focusCategory(cell(c, ix.category))
		li.ServiceName = cell(c, ix.service)
		li.BillingAccountID = cell(c, ix.account)
		li.SubAccount = cell(c, ix.subAccount)
		li.ResourceID = cell(c, ix.resourceID)
		li.ResourceName = cell(c, ix.resourceName)
		li.ResourceType = cell(c, ix.resourceType)
		li.SKU = cell(c, ix.sku)
		li.Region = cell(c, ix.regionID)
		if li.Region == "" {
			li.Region = cell(c, ix.regionName)
		}
		li.Zone = cell(c, ix.zone)
		li.Description = cell(c, ix.description)
		if li.ConsumedQuantity, err = xl.amount(c, ix.consumedQty); err != nil {
			return false, err
		}
		li.ConsumedUnit = cell(c, ix.consumedUnit)
		if li.PricingQuantity, err = xl.amount(c, ix.pricingQty); err != nil {
			return false, err
		}
		li.PricingUnit = cell(c, ix.pricingUnit)
		if li.ListUnitPrice, err = xl.amount(c, ix.listUnitPrice); err != nil {
			return false, err
		}
		if li.ListCost, err = xl.amount(c, ix.listCost); err != nil {
			return false, err
		}
		li.Kind = focusKind(li.ChargeCategory, cell(c, ix.serviceCat), li.ResourceType, li.Description)
		li.PricingModel = focusPricing(li.ChargeCategory, cell(c, ix.pricingCat))
		li.GPUModel = gpuModels.get(li.Description, li.SKU, li.ResourceType)
		if t := cell(c, ix.tags); t != "" && strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
			li.Tags = t
		}
		if err := focusExtras(c, li, x.provider, x.kind, x.pricing, x.parent, x.usageStart, x.usageEnd,
			x.gpuModel, x.gpuCount, x.voucher, x.cash, x.other, x.unpaid, x.scales); err != nil {
			return false, err
		}
		// gpubill's own export carries the ledger's dedupe key: it was
		// made from the source row, which the export cannot reproduce
		// (the paid parts were settled after it), and kept, it makes a
		// re-imported export add nothing twice.
		li.RowKey = focusText(c.cell(x.rowKey))
		// Its second key too (x_LineKey, the vendor's line id as stored:
		// "<provider>:<id>#<n>"), already final (Format.finalLineKeys), so
		// that a fetch or the vendor's CSV of the month adds nothing to
		// the round-tripped ledger.
		li.LineKey = focusText(c.cell(x.lineKey))
		if end, err := c.time(x.dataEnd, time.UTC); err != nil {
			return false, err
		} else if !end.IsZero() && end.After(env.dataEnds[li.Provider]) {
			if env.dataEnds == nil {
				env.dataEnds = map[string]time.Time{}
			}
			env.dataEnds[li.Provider] = end
		}
		li.Raw = c.raw()
		return false, nil
	}, nil
}

// focusExtras reads gpubill's x_ columns (gpubill export) over what the
// FOCUS columns gave: the ledger's own provider slug, kind, pricing model,
// parent, actual run times, GPU, paid parts, and the decimals each amount
// had (x_SourceScales, written by the Parquet export, whose DECIMAL
// columns have one scale). A column the file lacks (index < 0) leaves the
// derived value.
func focusExtras(c *rowCtx, li *ledger.LineItem, provider, kind, pricing, parent, usageStart, usageEnd,
	gpuModel, gpuCount, voucher, cash, other, unpaid, scales int) error {
	var err error
	if s := focusText(c.cell(provider)); s != "" {
		if !platform.ValidSlug(s) {
			return c.errAt(provider, fmt.Sprintf("%q is not a provider slug", s))
		}
		li.Provider = s
	}
	if s := focusText(c.cell(kind)); s != "" {
		if !slices.Contains(ledger.Kinds, s) {
			return c.errAt(kind, fmt.Sprintf("%q is not a charge kind (%s)", s, strings.Join(ledger.Kinds, ", ")))
		}
		li.Kind = s
	}
	if s := focusText(c.cell(pricing)); s != "" {
		if !slices.Contains(ledger.PricingModels, s) {
			return c.errAt(pricing, fmt.Sprintf("%q is not a pricing model (%s)", s, strings.Join(ledger.PricingModels, ", ")))
		}
		li.PricingModel = s
	}
	if parent >= 0 {
		li.ParentResourceID = focusText(c.cell(parent))
	}
	if li.UsageStart, err = c.time(usageStart, time.UTC); err != nil {
		return err
	}
	if li.UsageEnd, err = c.time(usageEnd, time.UTC); err != nil {
		return err
	}
	if gpuModel >= 0 {
		li.GPUModel = focusText(c.cell(gpuModel))
	}
	if gpuCount >= 0 {
		if li.GPUCount, err = c.count(gpuCount); err != nil {
			return err
		}
	}
	if err := c.amounts(amountCell{voucher, &li.VoucherPaid}, amountCell{cash, &li.CashPaid}, amountCell{other, &li.OtherPaid},
		amountCell{unpaid, &li.Unpaid}); err != nil {
		return err
	}
	s := focusText(c.cell(scales))
	if s == "" {
		return nil
	}
	amounts := map[string]*decimal.NullDecimal{
		"ListCost": &li.ListCost, "ListUnitPrice": &li.ListUnitPrice, "ConsumedQuantity": &li.ConsumedQuantity,
		"PricingQuantity": &li.PricingQuantity, "x_VoucherPaid": &li.VoucherPaid, "x_CashPaid": &li.CashPaid,
		"x_OtherPaid": &li.OtherPaid, "x_Unpaid": &li.Unpaid,
	}
	for _, kv := range strings.Split(s, ",") {
		name, v, ok := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 0 || n > 40 {
			return c.errAt(scales, fmt.Sprintf("%q is not a list of Column=decimals", s))
		}
		if name == "BilledCost" {
			li.BilledCost = rescale(li.BilledCost, int32(n))
		} else if d := amounts[name]; d != nil && d.Valid {
			d.Decimal = rescale(d.Decimal, int32(n))
		}
	}
	return nil
}

// rescale gives d n decimals where it has more, all of them zeros (a
// DECIMAL column's fixed scale): the value never changes.
func rescale(d decimal.Decimal, n int32) decimal.Decimal {
	if -d.Exponent() <= n {
		return d
	}
	if t := d.Truncate(n); t.Equal(d) {
		return t
	}
	return d
}

// focusText turns FOCUS's NULL (written as text) into an empty cell.
func focusText(s string) string {
	if s == "NULL" || s == "null" {
		return ""
	}
	return s
}

// focusProvider maps ProviderName to a provider slug: a platform gpubill
// knows by name gets its slug (Alibaba Cloud → aliyun), others are kept
// lower-cased (AWS → aws, Microsoft → microsoft). Empty takes override.
func focusProvider(name, override string) string {
	if name == "" {
		return override
	}
	if slug, ok := platform.Parse(name); ok {
		return slug
	}
	return strings.ToLower(name)
}

// focusCategory normalises ChargeCategory's case; empty means Usage, an
// unknown value is kept as written.
func focusCategory(s string) string {
	if s == "" {
		return ledger.CategoryUsage
	}
	for _, c := range ledger.ChargeCategories {
		if strings.EqualFold(s, c) {
			return c
		}
	}
	return s
}

// focusPricing derives the pricing model from PricingCategory (1.0:
// On-Demand, Commitment-Based, Dynamic, Other; pre-1.0: Standard, Committed)
// and ChargeCategory (a Purchase is prepaid).
func focusPricing(category, pricingCat string) string {
	if category == ledger.CategoryPurchase {
		return ledger.PricingPackage
	}
	switch strings.ToLower(pricingCat) {
	case "commitment-based", "committed":
		return ledger.PricingReserved
	case "dynamic", "spot":
		return ledger.PricingSpot
	}
	return ledger.PricingOnDemand
}

// focusKind derives the charge kind. Charge categories Credit, Tax and
// Adjustment give their kind; then the text of ChargeDescription and
// ResourceType wins over ServiceCategory, because AWS files data transfer,
// EBS volumes and snapshots under the Compute category: snapshot → snapshot,
// data transfer or public IP → network, a disk or volume → storage. Else the
// service category: Compute → compute, Storage → storage, Networking →
// network, Other or none → other, any other FOCUS category (Databases,
// Integration, AI and Machine Learning …) → service.
func focusKind(category, serviceCat, resourceType, description string) string {
	switch category {
	case ledger.CategoryCredit:
		return ledger.KindCredit
	case ledger.CategoryTax:
		return ledger.KindTax
	case ledger.CategoryAdjustment:
		return ledger.KindAdjustment
	}
	text := strings.ToLower(description + " | " + resourceType)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(text, w) {
				return true
			}
		}
		return false
	}
	rt := strings.ToLower(resourceType)
	switch {
	case has("snapshot"):
		return ledger.KindSnapshot
	case has("data transfer", "datatransfer", "-out-bytes", "-in-bytes", "bandwidth", "public ip", "ipv4 address", "nat gateway"):
		return ledger.KindNetwork
	case rt == "volume" || rt == "bootvolume" || rt == "disk" || has("managed disk", "provisioned storage", "block volume"):
		return ledger.KindStorage
	}
	switch strings.ToLower(serviceCat) {
	case "compute":
		return ledger.KindCompute
	case "storage":
		return ledger.KindStorage
	case "networking":
		return ledger.KindNetwork
	case "", "other":
		return ledger.KindOther
	}
	return ledger.KindService
}

// GPU instance families: AWS instance types (g5.4xlarge …) and Azure N-series
// names, with the GPU they carry.
var (
	awsGPUType = regexp.MustCompile(`\b(p2|p3|p3dn|p4d|p4de|p5|p5e|p5en|g3|g3s|g4dn|g4ad|g5|g5g|g6|g6e|gr6)\.(\d*x?large|metal)\b`)
	awsGPU     = map[string]string{
		"p2": "K80", "p3": "V100", "p3dn": "V100", "p4d": "A100", "p4de": "A100 80G", "p5": "H100", "p5e": "H200",
		"p5en": "H200", "g3": "M60", "g3s": "M60", "g4dn": "T4", "g4ad": "Radeon Pro V520", "g5": "A10G",
		"g5g": "T4G", "g6": "L4", "g6e": "L40S", "gr6": "L4",
	}
	azureNSeries = regexp.MustCompile(`\bN(C|D|V)[A-Za-z0-9_]*\b`)
	gpuNames     = regexp.MustCompile(`\b(H200|H100|A100|A10|V100|T4|M60|K80|P100|P40|L4|L40S|MI300X)\b`)
)

// gpuModelFromText recognises a GPU instance type in a description or SKU
// (g5.4xlarge → A10G; an Azure N-series VM naming its GPU → that GPU); ""
// when it cannot tell.
func gpuModelFromText(s string) string {
	if m := awsGPUType.FindStringSubmatch(s); m != nil {
		return awsGPU[m[1]]
	}
	if azureNSeries.MatchString(s) {
		if m := gpuNames.FindString(s); m != "" {
			return m
		}
		switch {
		case strings.Contains(s, "NCv3") || strings.Contains(s, "NCsv3") || strings.Contains(s, "NDv2"):
			return "V100"
		case strings.Contains(s, "NCv2"):
			return "P100"
		}
	}
	return ""
}

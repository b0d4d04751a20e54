package ingest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// Google Cloud billing export to BigQuery (standard or detailed usage
// cost table, cloud.google.com/billing/docs/how-to/export-data-bigquery-tables/standard-usage),
// saved as CSV: the record fields flattened with dots (service.description,
// as BigQuery names them) or underscores, the repeated credits record as
// its JSON (TO_JSON_STRING(credits)), or as one number per row (a column
// credits_amount, credits.amount or total_credits: the sum of the row's
// credits).
//
// cost is before credits; the invoice is cost plus the credits (negative).
// A credit of type PROMOTION or FREE_TIER is a voucher: it pays part of
// the line (voucher_paid). Every other type (SUSTAINED_USAGE_DISCOUNT,
// COMMITTED_USAGE_DISCOUNT, DISCOUNT, SUBSCRIPTION_BENEFIT …) is a
// discount and comes off the billed amount; a committed-use discount makes
// the line reserved. Credits given as a bare number have no type and are
// taken as discounts. So billed = cost + discounts, voucher = −promotions,
// cash = billed − voucher. cost_type tax → tax, adjustment and
// rounding_error → adjustment.
//
// GPU SKUs ("Nvidia Tesla A100 GPU running in Americas") are priced per
// GPU: usage.amount_in_pricing_units is GPU-hours, one GPU per unit.

func init() { registerFormat(gcpFormat, 24) }

var gcpFormat = &Format{
	ID:         "gcp-billing-export",
	Version:    "1",
	NameZH:     "Google Cloud 结算数据导出（BigQuery 标准/详细用量费用表另存的 CSV）",
	NameEN:     "Google Cloud billing export (BigQuery standard or detailed usage cost table as CSV)",
	Confidence: ConfidenceDoc,
	DetectZH: "表头含 cost、usage_start_time、service.description 与 sku.description（点或下划线）。应付 = cost + 折扣类 credits；" +
		"PROMOTION、FREE_TIER 类 credits 记为代金券；credits 为 JSON 数组，或每行一个数（视为折扣）",
	DetectEN: "header holds cost, usage_start_time, service.description and sku.description (dots or underscores). Billed = cost + " +
		"discount credits; PROMOTION and FREE_TIER credits are vouchers; credits as a JSON array, or one number per row (taken as discounts)",
	DedupeKey: "hash of provider, account, resource, kind, charge category, charge period, quantity and unit, unit price, " +
		"list/billed/voucher/cash amounts, currency, description + occurrence number in the file (the export has no line id)",
	Target:       TargetLineItems,
	billedIsCash: true,
	Columns: []Column{
		{Field: "cost", Headers: []string{"cost"}, Required: true},
		{Field: "usage_start", Headers: []string{"usage_start_time"}, Required: true},
		{Field: "service", Headers: []string{"service.description", "service_description"}, Required: true},
		{Field: "sku", Headers: []string{"sku.description", "sku_description"}, Required: true},
		{Field: "usage_end", Headers: []string{"usage_end_time"}},
		{Field: "currency", Headers: []string{"currency"}},
		{Field: "credits", Headers: []string{"credits"}},
		{Field: "credits_amount", Headers: []string{"credits_amount", "credits.amount", "total_credits", "credits_total"}},
		{Field: "billing_account", Headers: []string{"billing_account_id"}},
		{Field: "project", Headers: []string{"project.id", "project_id"}},
		{Field: "resource", Headers: []string{"resource.name", "resource_name", "resource.global_name", "resource_global_name"}},
		{Field: "region", Headers: []string{"location.region", "location_region", "location.location", "location_location"}},
		{Field: "zone", Headers: []string{"location.zone", "location_zone"}},
		{Field: "amount", Headers: []string{"usage.amount_in_pricing_units", "usage_amount_in_pricing_units"}},
		{Field: "pricing_unit", Headers: []string{"usage.pricing_unit", "usage_pricing_unit"}},
		{Field: "usage_amount", Headers: []string{"usage.amount", "usage_amount"}},
		{Field: "usage_unit", Headers: []string{"usage.unit", "usage_unit"}},
		{Field: "invoice_month", Headers: []string{"invoice.month", "invoice_month"}},
		{Field: "cost_type", Headers: []string{"cost_type"}},
		{Field: "cost_at_list", Headers: []string{"cost_at_list"}},
		{Field: "labels", Headers: []string{"labels"}},
		// Known columns without a ledger column of their own.
		{Field: "service_id", Headers: []string{"service.id", "service_id"}, RawOnly: true},
		{Field: "sku_id", Headers: []string{"sku.id", "sku_id"}, RawOnly: true},
		{Field: "project_name", Headers: []string{"project.name", "project_name"}, RawOnly: true},
		{Field: "export_time", Headers: []string{"export_time"}, RawOnly: true},
		{Field: "currency_conversion_rate", Headers: []string{"currency_conversion_rate"}, RawOnly: true},
		{Field: "system_labels", Headers: []string{"system_labels"}, RawOnly: true},
	},
	lines: gcpLines,
}

// gcpLines maps billing export rows.
func gcpLines(b *binding, env *mapEnv) (lineMapper, error) {
	ix := struct {
		cost, start, end, service, sku, currency, credits, creditsAmount, account, project, resource, region, zone,
		amount, pricingUnit, usageAmount, usageUnit, invoiceMonth, costType, listCost, labels int
	}{
		b.idx("cost"), b.idx("usage_start"), b.idx("usage_end"), b.idx("service"), b.idx("sku"), b.idx("currency"),
		b.idx("credits"), b.idx("credits_amount"), b.idx("billing_account"), b.idx("project"), b.idx("resource"),
		b.idx("region"), b.idx("zone"), b.idx("amount"), b.idx("pricing_unit"), b.idx("usage_amount"), b.idx("usage_unit"),
		b.idx("invoice_month"), b.idx("cost_type"), b.idx("cost_at_list"), b.idx("labels"),
	}
	gpus := newTextMemo(func(sku, _, _ string) string {
		if !strings.Contains(strings.ToLower(sku), "gpu") {
			return ""
		}
		m, _, _ := billing.GPUModelOf("google", sku)
		return m
	})
	return func(c *rowCtx, li *ledger.LineItem) (bool, error) {
		var err error
		li.Provider = "google"
		cost, err := c.requiredAmount(ix.cost)
		if err != nil {
			return false, err
		}
		cr, err := c.gcpCredits(ix.credits, ix.creditsAmount)
		if err != nil {
			return false, err
		}
		li.BilledCost = cost.Add(cr.discount)
		li.VoucherPaid = decimal.NullDecimal{Decimal: cr.voucher.Neg(), Valid: true}
		li.CashPaid = decimal.NullDecimal{Decimal: li.BilledCost.Add(cr.voucher), Valid: true}
		if err := exportPeriod(c, li, ix.start, ix.end); err != nil {
			return false, err
		}
		li.BillingPeriod = utcMonth(li.ChargePeriodStart)
		if m := exportText(c, ix.invoiceMonth); m != "" {
			if len(m) != 6 || strings.Trim(m, "0123456789") != "" || m[4:] < "01" || m[4:] > "12" {
				return false, c.errAt(ix.invoiceMonth, fmt.Sprintf("%q is not an invoice month (YYYYMM)", m))
			}
			li.BillingPeriod = m[:4] + "-" + m[4:]
		}
		if li.Currency, err = exportCurrency(c, ix.currency, "currency"); err != nil {
			return false, err
		}
		li.BillingAccountID = exportText(c, ix.account)
		li.SubAccount = exportText(c, ix.project)
		li.ResourceID = exportText(c, ix.resource)
		li.Region = exportText(c, ix.region)
		li.Zone = exportText(c, ix.zone)
		li.ServiceName = exportText(c, ix.service)
		li.SKU = exportText(c, ix.sku)
		li.Description = li.SKU
		if li.PricingQuantity, err = c.amount(ix.amount); err != nil {
			return false, err
		}
		li.PricingUnit = exportUnit(exportText(c, ix.pricingUnit))
		if li.ConsumedQuantity, err = c.amount(ix.usageAmount); err != nil {
			return false, err
		}
		li.ConsumedUnit = exportUnit(exportText(c, ix.usageUnit))
		if li.ListCost, err = c.amount(ix.listCost); err != nil {
			return false, err
		}
		li.ChargeCategory, li.PricingModel = ledger.CategoryUsage, ledger.PricingOnDemand
		if cr.committed {
			li.PricingModel = ledger.PricingReserved
		}
		if strings.Contains(strings.ToLower(li.SKU), "preemptible") || strings.Contains(strings.ToLower(li.SKU), "spot") {
			li.PricingModel = ledger.PricingSpot
		}
		li.Kind = gcpKind(li.ServiceName, li.SKU)
		switch strings.ToLower(exportText(c, ix.costType)) {
		case "tax":
			li.Kind, li.ChargeCategory = ledger.KindTax, ledger.CategoryTax
		case "adjustment", "rounding_error":
			li.Kind, li.ChargeCategory = ledger.KindAdjustment, ledger.CategoryAdjustment
		}
		if li.Kind == ledger.KindCompute {
			if li.GPUModel = gpus.get(li.SKU, "", ""); li.GPUModel != "" {
				li.GPUCount = 1 // a GPU SKU is priced per GPU
			}
		}
		li.Tags = gcpLabels(exportText(c, ix.labels))
		li.Raw = c.raw()
		return false, nil
	}, nil
}

// gcpCreditSum is a row's credits: the vouchers (PROMOTION, FREE_TIER) and
// the discounts (every other type), both negative or zero, and whether a
// committed-use discount is among them.
type gcpCreditSum struct {
	voucher, discount decimal.Decimal
	committed         bool
}

// gcpCredits reads the credits JSON array (name, amount, type …), else the
// one-number column; both absent or empty give no credits.
func (c *rowCtx) gcpCredits(jsonCol, numCol int) (gcpCreditSum, error) {
	var out gcpCreditSum
	if s := exportText(c, jsonCol); s != "" && s != "[]" {
		var credits []struct {
			Amount json.Number `json:"amount"`
			Type   string      `json:"type"`
		}
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		if err := d.Decode(&credits); err != nil {
			return out, c.errAt(jsonCol, fmt.Sprintf("%q is not a JSON list of credits", s))
		}
		for _, cr := range credits {
			a, err := ParseAmount(cr.Amount.String())
			if err != nil || !a.Valid {
				return out, c.errAt(jsonCol, fmt.Sprintf("credit amount %q is not an amount", cr.Amount.String()))
			}
			switch t := strings.ToUpper(cr.Type); {
			case t == "PROMOTION" || t == "FREE_TIER":
				out.voucher = out.voucher.Add(a.Decimal)
			default:
				out.discount = out.discount.Add(a.Decimal)
				out.committed = out.committed || strings.HasPrefix(t, "COMMITTED_USAGE_DISCOUNT")
			}
		}
		return out, nil
	}
	n, err := c.amount(numCol)
	if err != nil {
		return out, err
	}
	if n.Valid {
		out.discount = n.Decimal
	}
	return out, nil
}

// gcpKind derives the kind from the service and SKU descriptions: GPUs,
// cores, RAM and instances → compute; snapshots → snapshot; images →
// image; disks and Cloud Storage → storage; egress, IP addresses and
// interconnect → network; other services → service.
func gcpKind(service, sku string) string {
	s, k := strings.ToLower(service), strings.ToLower(sku)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(k, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("snapshot"):
		return ledger.KindSnapshot
	case has("egress", "ip address", "ip charge", "interconnect", "network", "nat gateway"):
		return ledger.KindNetwork
	case has("image storage", "custom image"):
		return ledger.KindImage
	case has("pd capacity", "storage pd", "ssd backed pd", "balanced pd", "hyperdisk", "local ssd") || s == "cloud storage":
		return ledger.KindStorage
	case s == "compute engine" && has("gpu", "core", "ram", "instance", "tpu"):
		return ledger.KindCompute
	case s == "":
		return ledger.KindOther
	}
	return ledger.KindService
}

// gcpLabels turns the labels record ([{"key": "k", "value": "v"}], or an
// object) into a JSON object ("" when none or unreadable).
func gcpLabels(s string) string {
	if s == "" || s == "[]" {
		return ""
	}
	if strings.HasPrefix(s, "{") {
		var m map[string]any
		if json.Unmarshal([]byte(s), &m) == nil && len(m) > 0 {
			return s
		}
		return ""
	}
	var kvs []struct{ Key, Value string }
	if json.Unmarshal([]byte(s), &kvs) != nil || len(kvs) == 0 {
		return ""
	}
	m := map[string]string{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	js, err := jsonObject(m)
	if err != nil {
		return ""
	}
	return js
}

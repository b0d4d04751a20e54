package ingest

import (
	"fmt"
	"strings"
)

// foreignExport is a cloud cost export known by its header row, so that
// refusing it names what it is rather than the nearest format it resembles
// (an Azure cost-details file used to be called "focus lacking BilledCost"):
// either one gpubill does not read (the GCP console's cost table), with what
// to export instead, or one a format reads (format set) whose file lacks a
// required column, with the columns missing. It is consulted only when no
// format matched, so it never changes how a readable file is read.
type foreignExport struct {
	id       string   // stable name, for tests
	nameEN   string   // "an AWS Cost and Usage Report"
	nameZH   string   // "AWS 成本和使用情况报告（CUR）"
	adviceEN string   // what to export instead
	adviceZH string   //
	all      []string // headers that must all be present (as normCol spells them)
	// format, when set, is the format that reads this export: the file
	// was recognised by all but lacks some of format's required columns,
	// and the refusal names them.
	format *Format
	// variant, when set, refines the name from the rest of the header
	// (EA or MCA); it returns "" when the header does not say.
	variant func(has func(string) bool) (en, zh string)
}

// foreignExports are checked in order; the first whose headers are all
// present names the file. Sources of the column names (checked 2026-12):
//   - AWS CUR legacy: docs.aws.amazon.com/cur/latest/userguide/data-dictionary.html
//     (lineItem/UnblendedCost, lineItem/UsageStartDate, bill/BillingPeriodStartDate).
//   - AWS CUR 2.0: docs.aws.amazon.com/cur/latest/userguide/table-dictionary-cur2.html
//     (line_item_unblended_cost, line_item_usage_start_date); a legacy CUR read
//     through Athena uses the same snake_case names.
//   - Azure cost details: learn.microsoft.com/azure/cost-management-billing/
//     automate/understand-usage-details-fields and dataset-schema/cost-usage-details-ea
//     and -mca (EA: CostInBillingCurrency, Date, MeterCategory, AccountOwnerId;
//     MCA: costInBillingCurrency, date, meterCategory, invoiceId). Actual and
//     amortized files share these columns, so the header cannot tell them apart.
//   - GCP: the cost table report's CSV download ("Service description", "SKU
//     description", "Usage start date"; cloud.google.com/billing/docs/how-to/cost-table,
//     which names the report but not its columns; the full column list, with the
//     "Invoice number"/"Currency" rows above the header and "Total" rows below,
//     is from third-party parsers in public code, not from Google)
//     and the BigQuery billing export's fields (service.description,
//     sku.description, usage_start_time, cost; …/export-data-bigquery-tables/standard-usage)
//     flattened to CSV, with dots or underscores.
//   - OCI cost reports: docs.oracle.com/iaas/Content/Billing/Concepts/usagereportsoverview.htm
//     (lineItem/intervalUsageStart, product/service, cost/myCost).
var foreignExports = []*foreignExport{
	{
		// Readable (aws_cur.go): named when a CUR lacks a column the
		// format requires.
		id:       "aws-cur",
		format:   awsCURFormat,
		nameEN:   "an AWS Cost and Usage Report",
		nameZH:   "AWS 成本和使用情况报告（CUR）",
		adviceEN: "export the report again with all its columns, or export FOCUS from AWS Data Exports",
		adviceZH: "请重新导出包含全部列的报告，或改用 AWS Data Exports 导出 FOCUS 格式",
		all: []string{
			"lineItem/UnblendedCost|lineItem/NetUnblendedCost|lineItem/BlendedCost|line_item_unblended_cost|line_item_net_unblended_cost|line_item_blended_cost",
			"lineItem/UsageStartDate|lineItem/LineItemType|identity/LineItemId|bill/BillingPeriodStartDate|line_item_usage_start_date|line_item_line_item_type|identity_line_item_id|bill_billing_period_start_date",
		},
	},
	{
		// Readable (azure.go): named when a cost-details file lacks a
		// column the format requires.
		id:       "azure-cost-details",
		format:   azureFormat,
		nameEN:   "an Azure cost-details export",
		nameZH:   "Azure 成本明细导出（cost details）",
		adviceEN: `export "Cost and usage details" again with all its columns, or the "Cost and usage details (FOCUS)" dataset`,
		adviceZH: "请重新导出包含全部列的“成本和使用情况详细信息”，或导出其 FOCUS 数据集",
		all: []string{"MeterCategory|MeterName|MeterId|MeterSubCategory",
			"CostInBillingCurrency|CostInPricingCurrency|costInUsd|PayGPrice|EffectivePrice|BillingCurrencyCode|BillingCurrency"},
		variant: func(has func(string) bool) (string, string) {
			switch {
			case has("AccountOwnerId"):
				return "Enterprise Agreement", "企业协议 EA"
			case has("invoiceId"):
				return "Microsoft Customer Agreement", "微软客户协议 MCA"
			}
			return "", ""
		},
	},
	{
		// Not read: the console's cost table sums each project and SKU over
		// the invoice month (one row per SKU, no resource ids, usage dates
		// spanning the month), so no rule could tell an instance or an hour.
		// Its columns can be hidden in the console, hence the alternatives
		// beside the two descriptions.
		id:     "gcp-cost-table",
		nameEN: "a Google Cloud cost table report (CSV download)",
		nameZH: "Google Cloud 费用表报告（CSV 下载）",
		adviceEN: "it sums each project and SKU over the invoice month, without resource ids or hourly periods, which the audit needs; " +
			"export the billing data to BigQuery (detailed usage cost) and save the table as CSV, which gpubill reads, or its FOCUS view",
		adviceZH: "它按项目与 SKU 汇总整个发票月，没有资源 ID 和逐小时的计费时段，审计无从判断；" +
			"请把结算数据导出到 BigQuery（详细用量费用），再将该表另存为 CSV（gpubill 可读取），或导出其 FOCUS 视图",
		all: []string{"Service description", "SKU description",
			"Usage start date|Cost type|Unrounded cost ($)|Cost ($)|Credit type|Consumption model description"},
	},
	{
		// Readable (gcp.go): named when an export lacks a column the
		// format requires.
		id:       "gcp-billing-export",
		format:   gcpFormat,
		nameEN:   "a Google Cloud billing export (BigQuery table as CSV)",
		nameZH:   "Google Cloud 结算数据导出（BigQuery 表另存的 CSV）",
		adviceEN: "export the table again with cost, usage_start_time, service.description and sku.description, or its FOCUS view",
		adviceZH: "请重新导出包含 cost、usage_start_time、service.description 与 sku.description 的表，或其 FOCUS 视图",
		all: []string{"service.description|service_description|sku.description|sku_description|service.id|sku.id",
			"usage_start_time|usage_end_time|invoice.month|invoice_month|billing_account_id"},
	},
	{
		// Readable (oci.go): named when a cost report lacks a column the
		// format requires.
		id:       "oci-cost-report",
		format:   ociFormat,
		nameEN:   "an Oracle Cloud (OCI) cost report",
		nameZH:   "Oracle Cloud（OCI）成本报告",
		adviceEN: "download the cost report again as OCI writes it, or its FOCUS report",
		adviceZH: "请重新下载 OCI 原样生成的成本报告，或下载其 FOCUS 报告",
		all:      []string{"lineItem/intervalUsageStart|lineItem/intervalUsageEnd|lineItem/referenceNo", "cost/myCost|cost/unitPrice|cost/currencyCode|cost/productSku"},
	},
}

// foreignMatch is a header row recognised as a foreign export.
type foreignMatch struct {
	export   *foreignExport
	found    []string // the headers that identified it, as written
	missing  []string // the required columns of export.format the header lacks
	variantE string
	variantZ string
}

// recogniseForeign names the foreign export whose headers rec carries (nil
// when none). Headers match as normCol spells them (case and spaces aside);
// "a|b" in foreignExport.all accepts either spelling.
func recogniseForeign(rec []string) *foreignMatch {
	pos := make(map[string]int, len(rec))
	for i, h := range rec {
		if n := normCol(h); n != "" {
			if _, dup := pos[n]; !dup {
				pos[n] = i
			}
		}
	}
	find := func(spellings string) (int, bool) {
		for _, s := range strings.Split(spellings, "|") {
			if i, ok := pos[normCol(s)]; ok {
				return i, true
			}
		}
		return 0, false
	}
	has := func(s string) bool { _, ok := find(s); return ok }
	for _, fe := range foreignExports {
		m := &foreignMatch{export: fe}
		for _, h := range fe.all {
			i, ok := find(h)
			if !ok {
				m = nil
				break
			}
			m.found = append(m.found, strings.TrimSpace(rec[i]))
		}
		if m == nil {
			continue
		}
		if fe.variant != nil {
			m.variantE, m.variantZ = fe.variant(has)
		}
		if fe.format != nil {
			b := bind(fe.format, rec)
			for ci, c := range fe.format.Columns {
				if c.Required && b.pos[ci] < 0 {
					m.missing = append(m.missing, strings.Join(c.Headers, " / "))
				}
			}
		}
		return m
	}
	return nil
}

// foreignIn returns the first foreign export among the records read while
// looking for a header (nil when none).
func foreignIn(seen [][]string) *foreignMatch {
	for _, rec := range seen {
		if m := recogniseForeign(rec); m != nil {
			return m
		}
	}
	return nil
}

// nameEN and nameZH name the export with its variant.
func (m *foreignMatch) nameEN() string {
	if m.variantE != "" {
		return m.export.nameEN + ", " + m.variantE
	}
	return m.export.nameEN
}

func (m *foreignMatch) nameZH() string {
	if m.variantZ != "" {
		return m.export.nameZH + "，" + m.variantZ
	}
	return m.export.nameZH
}

// hint is the short note describeCandidates adds to a header row.
func (m *foreignMatch) hint() string {
	if len(m.missing) > 0 {
		return "looks like " + m.nameEN() + " lacking " + strings.Join(m.missing, ", ")
	}
	return "looks like " + m.nameEN()
}

// foreignError is the refusal of a file whose only tables are a foreign
// export, in English (Msg) and Chinese (MsgZH).
func foreignError(path string, m *foreignMatch) error {
	cols := strings.Join(m.found, ", ")
	if m.export.format != nil {
		missing := strings.Join(m.missing, ", ")
		if missing == "" {
			missing = strings.Join(formatInfo(m.export.format).RequiredHeaders, ", ")
		}
		return &InputError{File: path,
			Msg: fmt.Sprintf("this looks like %s, from its columns %s, but it lacks the columns gpubill needs to read it: %s; %s",
				m.nameEN(), cols, missing, m.export.adviceEN),
			MsgZH: fmt.Sprintf("这看起来是%s（据列 %s 判断），但缺少 gpubill 读取所需的列：%s；%s",
				m.nameZH(), cols, missing, m.export.adviceZH),
		}
	}
	return &InputError{File: path,
		Msg: fmt.Sprintf("this looks like %s, from its columns %s; gpubill does not read it yet; %s",
			m.nameEN(), cols, m.export.adviceEN),
		MsgZH: fmt.Sprintf("这看起来是%s（据列 %s 判断），gpubill 暂不支持读取；%s",
			m.nameZH(), cols, m.export.adviceZH),
	}
}

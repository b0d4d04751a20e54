package ingest

import (
	"fmt"
	"strings"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
	"github.com/shopspring/decimal"
)

// The gpubill template (DESIGN.md "The gpubill template"): bill lines and
// money flow, headers in Chinese or English in any order, as CSV/TSV or as
// sheets of an XLSX workbook. The columns are defined in template_spec.go.

func init() {
	registerFormat(templateBillFormat, 10)
	registerFormat(templateFlowFormat, 11)
}

var templateBillFormat = &Format{
	ID:         "gpubill-bill",
	Version:    "1",
	NameZH:     "gpubill 模板：费用明细",
	NameEN:     "gpubill template: bill lines",
	Confidence: ConfidenceOurs,
	DetectZH:   "表头含 平台、费用类型、开始时间、结束时间、应付金额（中英文表头均可，顺序不限）",
	DetectEN:   "header holds provider, kind, start, end and billed_cost (Chinese or English headers, any order)",
	DedupeKey: "hash of provider, account, resource_id, kind, charge category, charge period, usage period, " +
		"quantity and unit, unit price, list/billed/voucher/cash amounts, currency, description + occurrence number in the file",
	Target:  TargetLineItems,
	Columns: templateColumns(BillColumns),
	lines:   templateLines,
}

var templateFlowFormat = &Format{
	ID:         "gpubill-flow",
	Version:    "1",
	NameZH:     "gpubill 模板：收支明细",
	NameEN:     "gpubill template: money flow",
	Confidence: ConfidenceOurs,
	DetectZH:   "表头含 平台、时间、类型、金额",
	DetectEN:   "header holds provider, time, type and amount",
	DedupeKey:  "hash of provider, account, time, type, amount, currency, balance, reference, description + occurrence number in the file",
	Target:     TargetTransactions,
	Columns:    templateColumns(FlowColumns),
	txs:        templateTxs,
}

// templateColumns turns the template spec into format columns: the Chinese
// header is canonical, then the English field name, then the aliases.
func templateColumns(spec []TemplateColumn) []Column {
	cols := make([]Column, 0, len(spec))
	for _, c := range spec {
		h := append([]string{c.ZH, c.Field}, c.Aliases...)
		cols = append(cols, Column{Field: c.Field, Headers: h, Required: c.Required})
	}
	return cols
}

// templateLines maps bill-line rows.
func templateLines(b *binding, env *mapEnv) (lineMapper, error) {
	ix := struct {
		provider, account, project, resourceID, resourceName, parent, kind, pricing, gpuModel, gpuCount,
		start, end, usageStart, usageEnd, quantity, unit, unitPrice, listCost, billed, voucher, cash,
		description, currency int
	}{
		b.idx("provider"), b.idx("account"), b.idx("project"), b.idx("resource_id"), b.idx("resource_name"),
		b.idx("parent_resource_id"), b.idx("kind"), b.idx("pricing_model"), b.idx("gpu_model"), b.idx("gpu_count"),
		b.idx("start"), b.idx("end"), b.idx("usage_start"), b.idx("usage_end"), b.idx("billed_quantity"),
		b.idx("unit"), b.idx("unit_price"), b.idx("list_cost"), b.idx("billed_cost"), b.idx("voucher_paid"),
		b.idx("cash_paid"), b.idx("description"), b.idx("currency"),
	}
	// Coded columns hold few distinct values: look each up once.
	kinds, pricings, units, currencies := newMemo(ParseKind), newMemo(ParsePricingModel), newMemo(ParseUnit), newMemo(normCurrency)
	providers := newMemo(platform.Parse)
	return func(c *rowCtx, li *ledger.LineItem) (bool, error) {
		if isTotalRow(c.rec) || isExampleRow(c.cell(ix.description)) {
			return true, nil
		}
		var err error
		if li.Provider, err = c.provider(ix.provider, providers); err != nil {
			return false, err
		}
		li.BillingAccountID = c.cell(ix.account)
		li.SubAccount = c.cell(ix.project)
		li.ResourceID = c.cell(ix.resourceID)
		li.ResourceName = c.cell(ix.resourceName)
		li.ParentResourceID = c.cell(ix.parent)
		s, err := c.required(ix.kind)
		if err != nil {
			return false, err
		}
		var ok bool
		if li.Kind, ok = kinds.get(s); !ok {
			return false, c.errAt(ix.kind, fmt.Sprintf("%q is not a charge kind (GPU计算, 存储, 镜像, 快照, 流量, 占用费, 增值服务, 代金券, 税, 调账, 其他 or %s)",
				s, strings.Join(ledger.Kinds, ", ")))
		}
		if li.PricingModel, ok = pricings.get(c.cell(ix.pricing)); !ok {
			return false, c.errAt(ix.pricing, fmt.Sprintf("%q is not a pricing model (按量, 包日, 包周, 包月, 包年, 竞价 or %s)",
				c.cell(ix.pricing), strings.Join(ledger.PricingModels, ", ")))
		}
		if li.ResourceID == "" && (li.Kind == ledger.KindCompute || li.Kind == ledger.KindSeat) {
			if ix.resourceID < 0 {
				return false, c.errAt(-1, "a "+li.Kind+" charge needs an instance id, but the file has no 实例ID (resource_id) column")
			}
			return false, c.errAt(ix.resourceID, "required value is empty (an instance id is needed for "+li.Kind+" charges)")
		}
		li.GPUModel = c.cell(ix.gpuModel)
		if li.GPUCount, err = c.count(ix.gpuCount); err != nil {
			return false, err
		}
		if li.ChargePeriodStart, err = c.requiredTime(ix.start, env.tz); err != nil {
			return false, err
		}
		if li.ChargePeriodEnd, err = c.requiredTime(ix.end, env.tz); err != nil {
			return false, err
		}
		if li.ChargePeriodEnd.Before(li.ChargePeriodStart) {
			return false, c.errAt(ix.end, fmt.Sprintf("end %q is before start %q", c.cell(ix.end), c.cell(ix.start)))
		}
		if li.UsageStart, err = c.time(ix.usageStart, env.tz); err != nil {
			return false, err
		}
		if li.UsageEnd, err = c.time(ix.usageEnd, env.tz); err != nil {
			return false, err
		}
		if !li.UsageStart.IsZero() && !li.UsageEnd.IsZero() && li.UsageEnd.Before(li.UsageStart) {
			return false, c.errAt(ix.usageEnd, fmt.Sprintf("usage end %q is before usage start %q", c.cell(ix.usageEnd), c.cell(ix.usageStart)))
		}
		if li.PricingQuantity, err = c.amount(ix.quantity); err != nil {
			return false, err
		}
		if u := c.cell(ix.unit); u != "" {
			if li.PricingUnit, ok = units.get(u); !ok {
				return false, c.errAt(ix.unit, fmt.Sprintf("%q is not a unit (小时, 分钟, 秒, 天, GB, GB·天, GB·月, 次 or %s)", u, strings.Join(Units, ", ")))
			}
		}
		if err := c.amounts(amountCell{ix.unitPrice, &li.ListUnitPrice}, amountCell{ix.listCost, &li.ListCost}); err != nil {
			return false, err
		}
		if li.BilledCost, err = c.requiredAmount(ix.billed); err != nil {
			return false, err
		}
		if err := c.amounts(amountCell{ix.voucher, &li.VoucherPaid}, amountCell{ix.cash, &li.CashPaid}); err != nil {
			return false, err
		}
		if !li.CashPaid.Valid { // default: billed − voucher
			li.CashPaid = decimal.NewNullDecimal(li.BilledCost)
			if li.VoucherPaid.Valid {
				li.CashPaid.Decimal = li.BilledCost.Sub(li.VoucherPaid.Decimal)
			}
		}
		if li.Currency, err = c.currency(ix.currency, currencies); err != nil {
			return false, err
		}
		li.Description = c.cell(ix.description)
		li.ChargeCategory = templateCategory(li.Kind, li.PricingModel)
		li.BillingPeriod = env.month(li.ChargePeriodStart)
		li.Raw = c.raw()
		return false, nil
	}, nil
}

// templateCategory derives the FOCUS charge category of a template row.
func templateCategory(kind, pricing string) string {
	if kind == ledger.KindAdjustment {
		return ledger.CategoryAdjustment
	}
	return cloudCategory(kind, pricing)
}

// templateTxs maps money-flow rows.
func templateTxs(b *binding, env *mapEnv) (txMapper, error) {
	ix := struct{ provider, account, time, typ, amount, balance, reference, description, currency int }{
		b.idx("provider"), b.idx("account"), b.idx("time"), b.idx("type"), b.idx("amount"), b.idx("balance"),
		b.idx("reference"), b.idx("description"), b.idx("currency"),
	}
	types, currencies, providers := newMemo(ParseTxType), newMemo(normCurrency), newMemo(platform.Parse)
	return func(c *rowCtx, tx *ledger.Transaction) (bool, error) {
		if isTotalRow(c.rec) || isExampleRow(c.cell(ix.description)) {
			return true, nil
		}
		var err error
		if tx.Provider, err = c.provider(ix.provider, providers); err != nil {
			return false, err
		}
		tx.Account = c.cell(ix.account)
		if tx.Time, err = c.requiredTime(ix.time, env.tz); err != nil {
			return false, err
		}
		s, err := c.required(ix.typ)
		if err != nil {
			return false, err
		}
		var ok bool
		if tx.Type, ok = types.get(s); !ok {
			return false, c.errAt(ix.typ, fmt.Sprintf("%q is not a money-flow type (充值, 消费, 退款, 提现, 代金券, 冻结, 解冻 or %s)",
				s, strings.Join(ledger.TxTypes, ", ")))
		}
		amt, err := c.requiredAmount(ix.amount)
		if err != nil {
			return false, err
		}
		// The type gives the direction; consoles often show charges as
		// negative numbers, which mean the same.
		tx.Amount = amt.Abs()
		if tx.Balance, err = c.amount(ix.balance); err != nil {
			return false, err
		}
		tx.Reference = c.cell(ix.reference)
		tx.Description = c.cell(ix.description)
		if tx.Currency, err = c.currency(ix.currency, currencies); err != nil {
			return false, err
		}
		tx.Raw = c.raw()
		return false, nil
	}, nil
}

// provider reads a platform cell: a known slug, brand or Chinese name; an
// empty cell takes --provider.
func (c *rowCtx) provider(i int, m *memo) (string, error) {
	s := c.cell(i)
	if s == "" {
		if c.env.provider != "" {
			return c.env.provider, nil
		}
		return "", c.errAt(i, "required value is empty (or pass --provider)")
	}
	slug, ok := m.get(s)
	if !ok {
		return "", c.errAt(i, fmt.Sprintf("%q is not a known platform (%s, or its Chinese name)", s, knownPlatforms()))
	}
	return slug, nil
}

// knownPlatforms lists the slugs of the built-in platforms for an error.
func knownPlatforms() string {
	var known []string
	for _, p := range platform.All {
		known = append(known, p.Slug)
	}
	return strings.Join(known, ", ")
}

// currency reads a currency cell; empty means CNY.
func (c *rowCtx) currency(i int, m *memo) (string, error) {
	s := c.cell(i)
	cur, ok := m.get(s)
	if !ok {
		return "", c.errAt(i, fmt.Sprintf("%q is not a currency code (CNY, USD …)", s))
	}
	return cur, nil
}

// count reads an optional non-negative integer cell (0 = unknown).
func (c *rowCtx) count(i int) (int, error) {
	d, err := c.amount(i)
	if err != nil || !d.Valid {
		return 0, err
	}
	if !d.Decimal.IsInteger() || d.Decimal.IsNegative() || d.Decimal.GreaterThan(decimal.NewFromInt(100000)) {
		return 0, c.errAt(i, fmt.Sprintf("%q is not a count", c.cell(i)))
	}
	return int(d.Decimal.IntPart()), nil
}

// normCurrency maps a currency cell to an ISO 4217 code; empty means CNY.
func normCurrency(s string) (string, bool) {
	t := strings.ToUpper(trimCell(s))
	switch t {
	case "", "CNY", "RMB", "人民币", "元", "¥", "￥":
		return "CNY", true
	case "$", "美元":
		return "USD", true
	}
	if !isCurrencyCode(t) {
		return "", false
	}
	return t, true
}

// isCurrencyCode reports whether s has the shape of an ISO 4217 code:
// three letters A–Z.
func isCurrencyCode(s string) bool {
	return len(s) == 3 && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// Units are the normalised pricing units (line_items.pricing_unit) that
// ParseUnit returns.
var Units = []string{"hour", "minute", "second", "day", "week", "month", "year", "GB", "GB-hour", "GB-day", "GB-month", "count"}

// unitNames maps unit spellings (normalised: lower case, no spaces, GB·天 and
// GB/天 written gb-天) to Units.
var unitNames = map[string]string{
	"小时": "hour", "时": "hour", "h": "hour", "hr": "hour", "hrs": "hour", "hour": "hour", "hours": "hour", "卡时": "hour",
	"分钟": "minute", "分": "minute", "min": "minute", "mins": "minute", "minute": "minute", "minutes": "minute",
	"秒": "second", "s": "second", "sec": "second", "secs": "second", "second": "second", "seconds": "second",
	"天": "day", "日": "day", "d": "day", "day": "day", "days": "day",
	"周": "week", "星期": "week", "week": "week", "weeks": "week",
	"月": "month", "个月": "month", "month": "month", "months": "month",
	"年": "year", "year": "year", "years": "year",
	"gb": "GB", "gib": "GB",
	"gb-小时": "GB-hour", "gb-时": "GB-hour", "gb-h": "GB-hour", "gb-hour": "GB-hour", "gb-hours": "GB-hour",
	"gb-天": "GB-day", "gb-日": "GB-day", "gb-day": "GB-day", "gb-days": "GB-day",
	"gb-月": "GB-month", "gb-month": "GB-month", "gb-months": "GB-month", "gb-mo": "GB-month",
	"次": "count", "个": "count", "count": "count", "times": "count", "unit": "count", "units": "count",
}

var unitSeparators = strings.NewReplacer("·", "-", "•", "-", "*", "-", "/", "-", "×", "-", "・", "-", "－", "-")

// ParseUnit maps a unit cell (小时, 秒, GB·天 …, or English) to a normalised
// pricing unit (one of Units).
func ParseUnit(s string) (string, bool) {
	t := unitSeparators.Replace(normHeader(s))
	if u, ok := unitNames[t]; ok {
		return u, true
	}
	// Exact English spellings of Units ("GB-day").
	for _, u := range Units {
		if strings.EqualFold(t, u) {
			return u, true
		}
	}
	return "", false
}

// ExampleMarkZH and ExampleMarkEN are the 说明 of the example row that
// `gpubill template` writes: a row carrying one of them is skipped on import,
// so a template filled in without deleting the example adds no fake charge.
const (
	ExampleMarkZH = "示例行：导入时自动跳过"
	ExampleMarkEN = "example row: skipped on import"
)

func isExampleRow(description string) bool {
	return description == ExampleMarkZH || description == ExampleMarkEN
}

// totalWords start a total line (合计 …) that carries no charge of its own.
var totalWords = []string{"合计", "总计", "小计", "total", "subtotal", "grandtotal"}

// isTotalRow reports a total line: its first non-empty cell is 合计, 总计,
// 小计 or Total (optionally followed by a colon or a count).
func isTotalRow(rec []string) bool {
	for _, c := range rec {
		if c == "" {
			continue
		}
		// Cheap test first: this runs on every row.
		if len(c) > 24 || !(strings.HasPrefix(c, "合") || strings.HasPrefix(c, "总") || strings.HasPrefix(c, "小") ||
			strings.ContainsRune("TtSsGg", rune(c[0]))) {
			return false
		}
		t := strings.TrimRight(normHeader(c), ":：")
		for _, w := range totalWords {
			if t == w {
				return true
			}
		}
		return false
	}
	return false
}

// memo caches a lookup of coded cell values (kinds, units, platforms …),
// which repeat on every row; it stops growing at memoMax distinct values.
type memo struct {
	f func(string) (string, bool)
	m map[string]memoResult
}

type memoResult struct {
	v  string
	ok bool
}

const memoMax = 1024

func newMemo(f func(string) (string, bool)) *memo {
	return &memo{f: f, m: make(map[string]memoResult)}
}

func (m *memo) get(s string) (string, bool) {
	if r, ok := m.m[s]; ok {
		return r.v, r.ok
	}
	v, ok := m.f(s)
	if len(m.m) < memoMax {
		m.m[s] = memoResult{v, ok}
	}
	return v, ok
}

package ledger

import (
	"time"

	"github.com/shopspring/decimal"
)

// LineItem is one charge of a bill, normalised (DESIGN.md "The ledger"):
// every column of line_items, so that a rule can read any of them.
// Optional amounts are decimal.NullDecimal (Valid false = unknown, never 0);
// optional times are the zero time.
type LineItem struct {
	ID                int64
	Provider          string
	ResourceID        string
	Currency          string
	Kind              string
	ChargeCategory    string
	PricingModel      string
	BillingPeriod     string // YYYY-MM
	BilledCost        decimal.Decimal
	PricingQuantity   decimal.NullDecimal
	PricingUnit       string
	UsageStart        time.Time
	UsageEnd          time.Time
	ChargePeriodStart time.Time
	ChargePeriodEnd   time.Time // half-open
	BillingAccountID  string
	ParentResourceID  string
	ListUnitPrice     decimal.NullDecimal
	ConsumedQuantity  decimal.NullDecimal
	ConsumedUnit      string
	ServiceName       string
	ResourceType      string
	SKU               string
	GPUModel          string
	GPUCount          int // 0 = unknown
	Description       string
	SubAccount        string
	ResourceName      string
	Region            string
	Zone              string
	ListCost          decimal.NullDecimal
	// What paid the line, in one meaning for every format (ingest/paid.go,
	// ingest.SettlePaid): for a charge, billed = voucher + cash + other + unpaid;
	// VoucherPaid is what vouchers and gifts paid (positive), CashPaid what
	// money paid. A credit line holds the voucher it used as a positive
	// VoucherPaid and the cash it replaced as a negative CashPaid, so sums
	// never show cash above billed.
	VoucherPaid decimal.NullDecimal
	CashPaid    decimal.NullDecimal
	OtherPaid   decimal.NullDecimal // stored-value cards, credit lines of credit, commission, write-offs
	Unpaid      decimal.NullDecimal
	Tags        string   // JSON object; "" = {}
	Raw         []string // the source row's cells; read only when asked (Read.NoRaw)

	ImportID  int64
	SourceRow int    // 1-based record number in its file (header = 0)
	RowKey    string // dedupe key
	// LineKey is the vendor's id of the line, a second dedupe key ("" when
	// the source names none): migration 0015.
	LineKey string
	File    string // the imported file's path (filled by queries, not stored per row)
}

// Transaction is one movement of a platform balance (收支明细).
type Transaction struct {
	ID          int64
	Provider    string
	Account     string
	Time        time.Time
	Type        string // TxTopup …
	Amount      decimal.Decimal
	Currency    string
	Balance     decimal.NullDecimal
	Reference   string
	Description string
	Raw         []string

	ImportID  int64
	SourceRow int
	RowKey    string
}

// Payment is one record of an Alipay or WeChat Pay export: the other side
// of a platform top-up.
type Payment struct {
	ID              int64
	Source          string // alipay | wechatpay
	Time            time.Time
	Direction       string // out (支出) | in (收入) | none (不计收支)
	Counterparty    string // 交易对方
	Item            string // 商品说明 / 商品
	Amount          decimal.Decimal
	Currency        string
	Status          string // 交易状态 / 当前状态, as written
	OrderNo         string // 交易订单号 / 交易单号
	MerchantOrderNo string // 商家订单号 / 商户单号: often the platform's order number
	Raw             []string

	ImportID  int64
	SourceRow int
	RowKey    string
}

// Import is the record of one imported file (or sheet / zip member).
type Import struct {
	ID            int64
	Path          string
	SHA256        string
	Size          int64
	Format        string
	FormatVersion string
	Sheet         string
	Header        []string
	HeaderRow     int
	// RowMap lists the records whose physical row is not HeaderRow +
	// record (a quoted multi-line cell or a skipped blank line came
	// before): [record, row] pairs (migration 0011). RowMapped is false for
	// imports made before it, which can be cited by record number only.
	RowMap        [][2]int
	RowMapped     bool
	RowsRead      int
	RowsNew       int
	RowsDuplicate int
	RowsSkipped   int
	StartedAt     time.Time
	FinishedAt    time.Time
	Status        string
}

// Finding is one flagged charge (or group of charges) produced by a rule.
type Finding struct {
	ID           int64
	Fingerprint  string
	RunID        int64
	Month        string
	RuleID       string
	Severity     string
	Provider     string
	ResourceID   string
	PeriodStart  time.Time
	PeriodEnd    time.Time
	AmountAtRisk decimal.NullDecimal // unknown when Valid is false
	Currency     string
	Basis        string
	ReasonZH     string
	ReasonEN     string
	AdviceZH     string
	AdviceEN     string
	// Claim is why the finding can be claimed from the platform although
	// its rule is not a refund rule: "" as its rule says, ClaimGuardStop
	// (migration 0016).
	Claim    string
	State    string // open | acknowledged | resolved
	Evidence []Evidence
}

// Evidence points at one line item behind a finding, and where it came from.
type Evidence struct {
	LineItemID int64  `json:"line_item_id"`
	File       string `json:"file"`
	Row        int    `json:"row"`
	// RowKey is the line item's dedupe key where the finding's producer
	// had the item at hand (the audit fingerprints findings by it); it is
	// not stored, and read findings leave it empty.
	RowKey string `json:"-"`
	// BilledCost is the line item's billed cost, filled by DB.Findings (not
	// Valid when the line item is gone: an undone import); not stored.
	BilledCost decimal.NullDecimal `json:"-"`
}

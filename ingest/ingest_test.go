package ingest

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

var update = flag.Bool("update", false, "rewrite the golden files of the ingest tests")

// writeTemp writes data to a file named name under dir and returns its path.
func writeTemp(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// countRows returns SELECT count(*) FROM table.
func countRows(t testing.TB, db *ledger.DB, table string) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// goldenItem is the stable rendering of a line item in golden files: every
// stored field except the ids and the file path.
type goldenItem struct {
	SourceRow         int      `json:"source_row"`
	RowKey            string   `json:"row_key"`
	Provider          string   `json:"provider"`
	BillingAccountID  string   `json:"billing_account_id,omitempty"`
	SubAccount        string   `json:"sub_account,omitempty"`
	BillingPeriod     string   `json:"billing_period"`
	ChargePeriodStart string   `json:"charge_period_start"`
	ChargePeriodEnd   string   `json:"charge_period_end"`
	ChargeCategory    string   `json:"charge_category"`
	Kind              string   `json:"kind"`
	PricingModel      string   `json:"pricing_model"`
	ServiceName       string   `json:"service_name,omitempty"`
	ResourceID        string   `json:"resource_id,omitempty"`
	ResourceName      string   `json:"resource_name,omitempty"`
	ResourceType      string   `json:"resource_type,omitempty"`
	SKU               string   `json:"sku,omitempty"`
	ParentResourceID  string   `json:"parent_resource_id,omitempty"`
	GPUModel          string   `json:"gpu_model,omitempty"`
	GPUCount          int      `json:"gpu_count,omitempty"`
	Region            string   `json:"region,omitempty"`
	Zone              string   `json:"zone,omitempty"`
	ConsumedQuantity  *string  `json:"consumed_quantity"`
	ConsumedUnit      string   `json:"consumed_unit,omitempty"`
	PricingQuantity   *string  `json:"pricing_quantity"`
	PricingUnit       string   `json:"pricing_unit,omitempty"`
	ListUnitPrice     *string  `json:"list_unit_price"`
	ListCost          *string  `json:"list_cost"`
	BilledCost        string   `json:"billed_cost"`
	VoucherPaid       *string  `json:"voucher_paid"`
	CashPaid          *string  `json:"cash_paid"`
	OtherPaid         *string  `json:"other_paid,omitempty"`
	Unpaid            *string  `json:"unpaid,omitempty"`
	Currency          string   `json:"currency"`
	UsageStart        string   `json:"usage_start,omitempty"`
	UsageEnd          string   `json:"usage_end,omitempty"`
	Tags              string   `json:"tags,omitempty"`
	Description       string   `json:"description,omitempty"`
	Raw               []string `json:"raw"`
}

func nd(d decimal.NullDecimal) *string {
	if !d.Valid {
		return nil
	}
	s := d.Decimal.String()
	return &s
}

func ts(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func toGolden(li *ledger.LineItem, withRaw bool) goldenItem {
	g := goldenItem{SourceRow: li.SourceRow, RowKey: li.RowKey, Provider: li.Provider, BillingAccountID: li.BillingAccountID,
		SubAccount: li.SubAccount, BillingPeriod: li.BillingPeriod, ChargePeriodStart: ts(li.ChargePeriodStart),
		ChargePeriodEnd: ts(li.ChargePeriodEnd), ChargeCategory: li.ChargeCategory, Kind: li.Kind,
		PricingModel: li.PricingModel, ServiceName: li.ServiceName, ResourceID: li.ResourceID,
		ResourceName: li.ResourceName, ResourceType: li.ResourceType, SKU: li.SKU, ParentResourceID: li.ParentResourceID,
		GPUModel: li.GPUModel, GPUCount: li.GPUCount, Region: li.Region, Zone: li.Zone,
		ConsumedQuantity: nd(li.ConsumedQuantity), ConsumedUnit: li.ConsumedUnit, PricingQuantity: nd(li.PricingQuantity),
		PricingUnit: li.PricingUnit, ListUnitPrice: nd(li.ListUnitPrice), ListCost: nd(li.ListCost),
		BilledCost: li.BilledCost.String(), VoucherPaid: nd(li.VoucherPaid), CashPaid: nd(li.CashPaid),
		OtherPaid: nd(li.OtherPaid), Unpaid: nd(li.Unpaid),
		Currency: li.Currency, UsageStart: ts(li.UsageStart), UsageEnd: ts(li.UsageEnd), Tags: li.Tags,
		Description: li.Description}
	if withRaw {
		g.Raw = li.Raw
	}
	return g
}

// storedItems reads every line item back from the ledger, in insertion order.
func storedItems(t testing.TB, db *ledger.DB) []ledger.LineItem {
	t.Helper()
	items, err := testkit.LineItems(context.Background(), db, ledger.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	// LineItems orders by provider/resource/time; golden files read better in
	// file order.
	sortBySourceRow(items)
	return items
}

func sortBySourceRow(items []ledger.LineItem) {
	sort.Slice(items, func(i, j int) bool {
		if items[i].ImportID != items[j].ImportID {
			return items[i].ImportID < items[j].ImportID
		}
		return items[i].SourceRow < items[j].SourceRow
	})
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// jsonStrings decodes a JSON array of strings (a raw column).
func jsonStrings(t testing.TB, s string) []string {
	t.Helper()
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// readTestdata reads a file under testdata/.
func readTestdata(p string) ([]byte, error) {
	return os.ReadFile(filepath.Join("testdata", filepath.FromSlash(p)))
}

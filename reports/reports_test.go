package reports

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// dec parses a decimal literal of a test table.
func dec(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatalf("bad decimal %q in test: %v", s, err)
	}
	return d
}

// nd parses an optional decimal: "" is unknown.
func nd(t *testing.T, s string) decimal.NullDecimal {
	t.Helper()
	if s == "" {
		return decimal.NullDecimal{}
	}
	return decimal.NullDecimal{Decimal: dec(t, s), Valid: true}
}

// bj is a time in Beijing (naive Chinese export times are Beijing time).
func bj(s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, time.FixedZone("CST", 8*3600))
	if err != nil {
		panic(err)
	}
	return t
}

// sample is the ledger behind the golden files: two providers in CNY (with
// 8- and 11-decimal amounts, a credit, unknown voucher/cash, a Chinese and
// a formula-like resource name), one FOCUS provider in USD, and a line of
// another month that no report of 2026-10 may include.
type sample struct {
	db    *ledger.DB
	byKey map[string]ledger.LineItem // by resource id + kind
}

func newSample(t *testing.T) *sample {
	t.Helper()
	db := testkit.OpenLedger(t)
	s := &sample{db: db, byKey: map[string]ledger.LineItem{}}
	day := func(d int) (time.Time, time.Time) {
		return bj(fmt.Sprintf("2026-10-%02d 00:00", d)), bj(fmt.Sprintf("2026-10-%02d 00:00", d+1))
	}
	s1, e1 := day(3)
	s2, e2 := day(4)
	cn := []ledger.LineItem{
		{Provider: "autodl", BillingPeriod: "2026-10",
			ChargePeriodStart: bj("2026-10-03 14:00"), ChargePeriodEnd: bj("2026-10-04 00:00"),
			Kind: ledger.KindCompute, ResourceID: "c7b24f3a9e", GPUModel: "RTX 4090",
			GPUCount: 1, PricingQuantity: nd(t, "10"), PricingUnit: "hour",
			ListUnitPrice: nd(t, "1.88"), BilledCost: dec(t, "18.80000000"),
			ResourceName: "训练-大模型", SubAccount: "NSFC-2026", ListCost: nd(t, "18.80000000"),
			VoucherPaid: nd(t, "5"), CashPaid: nd(t, "13.80000000")},
		{Provider: "autodl", BillingPeriod: "2026-10", ChargePeriodStart: s1,
			ChargePeriodEnd: e1, Kind: ledger.KindStorage, ResourceID: "c7b24f3a9e",
			BilledCost: dec(t, "0.12345678"), ResourceName: "训练-大模型", SubAccount: "NSFC-2026"},
		{Provider: "autodl", BillingPeriod: "2026-10", ChargePeriodStart: s2,
			ChargePeriodEnd: e2, Kind: ledger.KindStorage, ResourceID: "disk-2",
			BilledCost: dec(t, "1.5"), ResourceName: "数据盘", SubAccount: "NSFC-2026",
			VoucherPaid: nd(t, "0"), CashPaid: nd(t, "1.5")},
	}
	ali := []ledger.LineItem{
		{Provider: "aliyun", BillingPeriod: "2026-10",
			ChargePeriodStart: bj("2026-10-01 00:00"), ChargePeriodEnd: bj("2026-11-01 00:00"),
			Kind: ledger.KindCompute, PricingModel: ledger.PricingPackage,
			ResourceID: "i-bp1xyz", GPUModel: "A10", GPUCount: 1,
			BilledCost: dec(t, "1000.12345678901"), ResourceName: "=cmd|' /C calc'!A0",
			ListCost: nd(t, "1200"), VoucherPaid: nd(t, "0"), CashPaid: nd(t, "1000.12345678901")},
		{Provider: "aliyun", BillingPeriod: "2026-10", ChargePeriodStart: s1,
			ChargePeriodEnd: e1, Kind: ledger.KindNetwork, ResourceID: "i-bp1xyz",
			BilledCost: dec(t, "12.5"), ResourceName: "=cmd|' /C calc'!A0", VoucherPaid: nd(t, "2.5"),
			CashPaid: nd(t, "10")},
		{Provider: "aliyun", BillingPeriod: "2026-10", ChargePeriodStart: s2,
			ChargePeriodEnd: e2, ChargeCategory: ledger.CategoryCredit, Kind: ledger.KindCredit,
			ResourceID: "", Description: "代金券抵扣", BilledCost: dec(t, "-1.50"),
			VoucherPaid: nd(t, "0"), CashPaid: nd(t, "-1.50")},
		{Provider: "aliyun", BillingPeriod: "2026-09",
			ChargePeriodStart: bj("2026-09-30 00:00"), ChargePeriodEnd: bj("2026-10-01 00:00"),
			Kind: ledger.KindCompute, ResourceID: "i-bp1xyz",
			BilledCost: dec(t, "999"), VoucherPaid: nd(t, "0"), CashPaid: nd(t, "999")},
	}
	focus := []ledger.LineItem{
		{Provider: "aws", BillingPeriod: "2026-10",
			ChargePeriodStart: bj("2026-10-05 08:00"), ChargePeriodEnd: bj("2026-10-05 09:00"),
			Kind: ledger.KindCompute, ResourceID: "i-0abc", GPUModel: "A100 80G",
			Currency: "USD", BilledCost: dec(t, "3.14159265358"), ResourceName: "gpu-box",
			ListCost: nd(t, "4.1"), CashPaid: nd(t, "3.14159265358")},
		{Provider: "aws", BillingPeriod: "2026-10",
			ChargePeriodStart: bj("2026-10-05 08:00"), ChargePeriodEnd: bj("2026-10-05 09:00"),
			ChargeCategory: ledger.CategoryTax, Kind: ledger.KindTax, Currency: "USD",
			BilledCost: dec(t, "0.31"), CashPaid: nd(t, "0.31")},
	}
	for _, f := range []struct {
		path  string
		items []ledger.LineItem
	}{{"bills/autodl-2026-10.csv", cn}, {"bills/阿里云账单.csv", ali}, {"bills/focus.csv", focus}} {
		for _, li := range testkit.ImportItems(t, db, f.path, f.items) {
			s.byKey[li.ResourceID+"/"+li.Kind+"/"+li.BillingPeriod] = li
		}
	}
	return s
}

// item returns the stored sample line item of resource/kind in 2026-10.
func (s *sample) item(t *testing.T, resource, kind string) ledger.LineItem {
	t.Helper()
	li, ok := s.byKey[resource+"/"+kind+"/2026-10"]
	if !ok {
		t.Fatalf("no sample line item %s/%s", resource, kind)
	}
	return li
}

// checkGolden compares got with testdata/<TestName>/<name>.golden, or
// rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join(testkit.TopTestDir(t), name+".golden"), got, *update)
}

// formatCases are every format × language whose output differs; the
// machine formats do not depend on the language (checked in the tests).
var formatCases = []struct {
	name string
	opts WriteOptions
}{
	{"table_zh", WriteOptions{Format: FormatTable, Lang: "zh"}},
	{"table_en", WriteOptions{Format: FormatTable, Lang: "en"}},
	{"md_zh", WriteOptions{Format: FormatMarkdown, Lang: "zh"}},
	{"md_en", WriteOptions{Format: FormatMarkdown, Lang: "en"}},
	{"tsv", WriteOptions{Format: FormatTSV, Lang: "en"}},
	{"csv", WriteOptions{Format: FormatCSV, Lang: "en"}},
	{"json", WriteOptions{Format: FormatJSON, Lang: "en"}},
}

// render writes a report with opts and returns the bytes.
func render(t *testing.T, w interface {
	Write(io.Writer, WriteOptions) error
}, opts WriteOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := w.Write(&b, opts); err != nil {
		t.Fatalf("write %s/%s: %v", opts.Format, opts.Lang, err)
	}
	return b.Bytes()
}

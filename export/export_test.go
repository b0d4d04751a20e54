package export

import (
	"bytes"
	"context"
	"encoding/csv"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestDecimalBytesOf(t *testing.T) {
	tests := []struct {
		name, in string
		scale    int32
		err      string
	}{
		{"FOCUS sample's 11 decimals", "0.00001605990", MoneyScale, ""},
		{"negative", "-1234.56", MoneyScale, ""},
		{"26 integer digits", "99999999999999999999999999.999999999999", MoneyScale, ""},
		{"too many decimals", "0.0000000000001", MoneyScale, "more than 12 decimals"},
		{"trailing zeros beyond the scale fit", "1.50000000000000000", MoneyScale, ""},
		{"too many integer digits", "100000000000000000000000000", MoneyScale, "integer digits"},
		{"quantity of 15 decimals", "0.002007490000000", QuantityScale, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := decimalBytesOf(dec(tt.in), tt.scale)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// Read back as the Parquet reader of ingest does: two's complement.
			got := decimal.NewFromBigInt(new(bigInt).fromTwos(b), -tt.scale)
			if !got.Equal(dec(tt.in)) {
				t.Errorf("got %s, want %s", got, tt.in)
			}
		})
	}
}

func TestShareAtRisk(t *testing.T) {
	ev := func(costs ...string) []ledger.Evidence {
		var out []ledger.Evidence
		for i, c := range costs {
			out = append(out, ledger.Evidence{LineItemID: int64(i + 1), BilledCost: decimal.NullDecimal{Decimal: dec(c), Valid: true}})
		}
		return out
	}
	tests := []struct {
		name   string
		amount string // "" = unknown
		costs  []string
		want   []string // "" = unknown
	}{
		{"the lines' cost", "3.00", []string{"1.00", "2.00"}, []string{"1.00", "2.00"}},
		{"all but one copy", "1.88", []string{"1.88", "1.88"}, []string{"0", "1.88"}},
		{"beyond the limit, last lines", "2.5", []string{"1", "1", "1"}, []string{"0.5", "1", "1"}},
		{"more than the lines cost", "5", []string{"1", "1"}, []string{"4", "1"}},
		{"unknown", "", []string{"1"}, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &ledger.Finding{Evidence: ev(tt.costs...)}
			if tt.amount != "" {
				f.AmountAtRisk = decimal.NullDecimal{Decimal: dec(tt.amount), Valid: true}
			}
			got := shareAtRisk(f)
			sum := decimal.Zero
			for i, g := range got {
				if tt.want[i] == "" {
					if g.Valid {
						t.Errorf("share %d: got %s, want unknown", i, g.Decimal)
					}
					continue
				}
				if !g.Valid || !g.Decimal.Equal(dec(tt.want[i])) {
					t.Errorf("share %d: got %v, want %s", i, g, tt.want[i])
				}
				sum = sum.Add(g.Decimal)
			}
			if tt.amount != "" && !sum.Equal(dec(tt.amount)) {
				t.Errorf("shares add up to %s, want %s", sum, tt.amount)
			}
		})
	}
}

// TestExportReadsBack exports the FOCUS fixture of ingest as CSV and
// Parquet and checks the files: partitions, header, exact amounts, the
// DECIMAL logical type, and that gpubill import reads both back with the
// same line items.
func TestExportReadsBack(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := ledger.Open(ctx, filepath.Join(dir, "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := ingest.ImportFile(ctx, db, "../ingest/testdata/focus/focus_small.csv", ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	months, err := db.Months(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := itemsOf(t, db)
	for _, format := range []string{FormatCSV, FormatParquet} {
		t.Run(format, func(t *testing.T) {
			out := filepath.Join(dir, format)
			parts, err := Export(ctx, db, Options{Format: format, Months: months, Dir: out})
			if err != nil {
				t.Fatal(err)
			}
			if len(parts) != len(months) {
				t.Fatalf("got %d partitions, want %d (%v)", len(parts), len(months), months)
			}
			for _, p := range parts {
				if !strings.HasSuffix(filepath.ToSlash(p.Path), "billing_period="+p.Month+"/part-00000."+strings.TrimPrefix(format, "focus-")) {
					t.Errorf("partition path %s", p.Path)
				}
				st, err := os.Stat(p.Path)
				if err != nil {
					t.Fatal(err)
				}
				if st.Mode().Perm() != 0o600 {
					t.Errorf("%s: mode %v, want 0600", p.Path, st.Mode().Perm())
				}
			}
			if format == FormatCSV {
				checkCSV(t, parts[0].Path)
			} else {
				checkParquet(t, parts[0].Path)
			}
			db2, err := ledger.Open(ctx, filepath.Join(dir, format+".db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db2.Close()
			if _, err := ingest.ImportPaths(ctx, db2, []string{out}, ingest.Options{}); err != nil {
				t.Fatal(err)
			}
			got := itemsOf(t, db2)
			if len(got) != len(want) {
				t.Fatalf("read back %d line items, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("line item %d:\ngot  %s\nwant %s", i, got[i], want[i])
				}
			}
			// The export's own rows are the ledger's: importing it again adds nothing.
			res, err := ingest.ImportPaths(ctx, db, []string{out}, ingest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				if r.New != 0 {
					t.Errorf("%s into the ledger it came from: %d new rows, want 0", r.Path, r.New)
				}
			}
		})
	}
}

// itemsOf renders the ledger's line items without what the round trip
// changes on purpose (id, import, source row, raw cells).
func itemsOf(t *testing.T, db *ledger.DB) []string {
	t.Helper()
	var out []string
	err := db.EachLineItem(context.Background(), ledger.Filter{}, ledger.Read{NoRaw: true}, func(li *ledger.LineItem) error {
		x := *li
		x.ID, x.ImportID, x.SourceRow, x.File = 0, 0, 0, ""
		out = append(out, strings.Join([]string{x.Provider, x.BillingAccountID, x.SubAccount, x.BillingPeriod,
			x.ChargePeriodStart.String(), x.ChargePeriodEnd.String(), x.UsageStart.String(), x.UsageEnd.String(),
			x.ChargeCategory, x.Kind, x.PricingModel, x.ServiceName, x.ResourceID, x.ResourceName, x.ResourceType,
			x.SKU, x.ParentResourceID, x.GPUModel, decimal.NewFromInt(int64(x.GPUCount)).String(), x.Region, x.Zone,
			nd(x.ConsumedQuantity), x.ConsumedUnit, nd(x.PricingQuantity), x.PricingUnit, nd(x.ListUnitPrice),
			nd(x.ListCost), x.BilledCost.String(), nd(x.VoucherPaid), nd(x.CashPaid), nd(x.OtherPaid), nd(x.Unpaid),
			x.Currency, x.Tags, x.Description, x.RowKey}, "|"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// nd renders an optional amount with its exponent: 1.50 and 1.5 differ.
func nd(d decimal.NullDecimal) string {
	if !d.Valid {
		return "NULL"
	}
	return string(money.Append(nil, d.Decimal))
}

func checkCSV(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, name := range []string{"BilledCost", "EffectiveCost", "ChargeCategory", "ServiceCategory", "x_Kind", "x_SourceRow", "x_AmountAtRisk"} {
		if _, ok := col[name]; !ok {
			t.Errorf("no column %s", name)
		}
	}
	// The fixture's amounts keep their 11 decimals.
	if got := recs[1][col["BilledCost"]]; len(got) < 13 || got[len(got)-12] != '.' {
		t.Errorf("BilledCost %q: want the source's 11 decimals", got)
	}
}

func checkParquet(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	leaf, ok := pf.Schema().Lookup("BilledCost")
	if !ok {
		t.Fatal("no BilledCost column")
	}
	lt := leaf.Node.Type().LogicalType()
	d, ok := lt.Value.(*format.DecimalType)
	if !ok || d.Precision != MoneyPrecision || d.Scale != MoneyScale {
		t.Errorf("BilledCost logical type %v, want DECIMAL(%d, %d)", lt, MoneyPrecision, MoneyScale)
	}
}

// bigInt reads DECIMAL bytes back (two's complement, big-endian).
type bigInt struct{ big.Int }

func (b *bigInt) fromTwos(p []byte) *big.Int {
	v := new(big.Int).SetBytes(p)
	if len(p) > 0 && p[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(p))))
	}
	return v
}

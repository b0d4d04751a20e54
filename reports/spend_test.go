package reports

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

func TestSpendGolden(t *testing.T) {
	s := newSample(t)
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		by   []string
	}{
		{"default", nil},
		{"resource", []string{ByResource}},
		{"all", []string{ByProvider, ByProject, ByResource, ByGPUModel, ByPricingModel, ByKind}},
	} {
		rep, err := Spend(ctx, s.db, SpendOptions{Month: "2026-10", By: bc.by})
		if err != nil {
			t.Fatalf("%s: %v", bc.name, err)
		}
		for _, fc := range formatCases {
			t.Run(bc.name+"_"+fc.name, func(t *testing.T) {
				got := render(t, rep, fc.opts)
				checkGolden(t, bc.name+"_"+fc.name, got)
				if fc.opts.Format == FormatTSV || fc.opts.Format == FormatCSV || fc.opts.Format == FormatJSON {
					zh := fc.opts
					zh.Lang = "zh"
					if other := render(t, rep, zh); !bytes.Equal(other, got) {
						t.Errorf("%s output depends on the language: zh\n%s\nen\n%s", fc.opts.Format, other, got)
					}
				}
			})
		}
	}
}

// TestSpendJSONContract checks the fields scripts rely on, independent of
// the golden files: exactly the By dimensions plus currency and money.
func TestSpendJSONContract(t *testing.T) {
	s := newSample(t)
	for _, tc := range []struct {
		name     string
		by       []string
		wantKeys string
	}{
		{"default", nil, "billed_cost,cash_paid,currency,kind,list_cost,provider,voucher_paid"},
		{"resource", []string{"resource"}, "billed_cost,cash_paid,currency,list_cost,resource_id,resource_name,voucher_paid"},
		{"project", []string{"project", "gpu_model"}, "billed_cost,cash_paid,currency,gpu_model,list_cost,project,voucher_paid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Spend(context.Background(), s.db, SpendOptions{Month: "2026-10", By: tc.by})
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Month  string           `json:"month"`
				Rows   []map[string]any `json:"rows"`
				Totals []map[string]any `json:"totals"`
			}
			if err := json.Unmarshal(render(t, rep, WriteOptions{Format: FormatJSON}), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Month != "2026-10" {
				t.Errorf("month: got %q want 2026-10", doc.Month)
			}
			if len(doc.Rows) == 0 {
				t.Fatal("got no rows")
			}
			for i, row := range doc.Rows {
				var keys []string
				for k := range row {
					keys = append(keys, k)
				}
				if got := strings.Join(sortedCopy(keys), ","); got != tc.wantKeys {
					t.Errorf("row %d keys: got %s want %s", i, got, tc.wantKeys)
				}
				if _, ok := row["billed_cost"].(string); !ok {
					t.Errorf("row %d billed_cost: got %T want a decimal string", i, row["billed_cost"])
				}
			}
			if got := len(doc.Totals); got != 2 {
				t.Errorf("totals: got %d currencies want 2 (CNY, USD)", got)
			}
		})
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestSpendTotalsExact checks that totals (and the groups) equal the exact
// sum of the ledger rows, computed independently in Go.
// manyItemsLedger holds 300 line items of October 2026 in two currencies,
// with large amounts of up to 11 decimals, negative ones, missing voucher,
// cash and list amounts, and one item of September.
func manyItemsLedger(t *testing.T) *ledger.DB {
	db := testkit.OpenLedger(t)
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []string{ledger.KindCompute, ledger.KindStorage, ledger.KindNetwork, ledger.KindImage, ledger.KindCredit}
	var items []ledger.LineItem
	for i := range 300 {
		cur, places := "CNY", 8
		if i%3 == 0 {
			cur, places = "USD", 11
		}
		amount := func() string {
			// large integer parts and long fractions: float64 would lose digits
			return fmt.Sprintf("%d.%0*d", rng.Int64N(90_000_000_000), places, rng.Int64N(pow10(places)))
		}
		kind := kinds[i%len(kinds)]
		billed := dec(t, amount())
		if kind == ledger.KindCredit || i%11 == 0 {
			billed = billed.Neg()
		}
		li := ledger.LineItem{Provider: []string{"autodl", "aliyun", "aws"}[i%3],
			BillingPeriod: "2026-10", ChargePeriodStart: bj("2026-10-03 00:00"),
			ChargePeriodEnd: bj("2026-10-04 00:00"), Kind: kind,
			ResourceID: fmt.Sprintf("r%d", i%17), Currency: cur, BilledCost: billed,
			GPUModel: []string{"", "RTX 4090", "A100"}[i%3], SubAccount: []string{"p1", "p2"}[i%2]}
		if i%4 != 0 {
			li.VoucherPaid = nd(t, amount())
		}
		if i%5 != 0 {
			li.CashPaid = nd(t, amount())
		}
		if i%2 == 0 {
			li.ListCost = nd(t, amount())
		}
		items = append(items, li)
	}
	testkit.ImportItems(t, db, "many.csv", items)
	other := []ledger.LineItem{{Provider: "autodl", BillingPeriod: "2026-09",
		ChargePeriodStart: bj("2026-09-03 00:00"), ChargePeriodEnd: bj("2026-09-04 00:00"),
		Kind: ledger.KindCompute, BilledCost: dec(t, "7.77")}}
	testkit.ImportItems(t, db, "september.csv", other)

	return db
}

func TestSpendTotalsExact(t *testing.T) {
	db := manyItemsLedger(t)
	stored, err := testkit.LineItems(context.Background(), db, ledger.Filter{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		billed, voucher, cash, list, hidden decimal.Decimal
	}
	wants := map[string]*want{}
	for _, li := range stored {
		w := wants[li.Currency]
		if w == nil {
			w = &want{}
			wants[li.Currency] = w
		}
		w.billed = w.billed.Add(li.BilledCost)
		w.voucher = w.voucher.Add(li.VoucherPaid.Decimal) // an invalid NullDecimal holds 0
		w.cash = w.cash.Add(li.CashPaid.Decimal)
		w.list = w.list.Add(li.ListCost.Decimal)
		if li.Kind != ledger.KindCompute && li.Kind != ledger.KindCredit {
			w.hidden = w.hidden.Add(li.BilledCost)
		}
	}

	for _, by := range [][]string{nil, {ByResource}, {ByProvider, ByProject, ByGPUModel, ByKind}} {
		t.Run(strings.Join(by, ","), func(t *testing.T) {
			rep, err := Spend(context.Background(), db, SpendOptions{Month: "2026-10", By: by})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Totals) != len(wants) {
				t.Fatalf("got %d currencies want %d", len(rep.Totals), len(wants))
			}
			for _, tot := range rep.Totals {
				w := wants[tot.Currency]
				for _, c := range []struct {
					name      string
					got, want decimal.Decimal
				}{
					{"billed", tot.BilledCost, w.billed},
					{"voucher", tot.VoucherPaid.Amount.Decimal, w.voucher},
					{"cash", tot.CashPaid.Amount.Decimal, w.cash},
					{"list", tot.ListCost.Amount.Decimal, w.list},
					{"hidden", tot.HiddenCost, w.hidden},
				} {
					if !c.got.Equal(c.want) {
						t.Errorf("%s %s total: got %s want %s", tot.Currency, c.name, c.got, c.want)
					}
				}
				// the groups of a currency add up to its total, digit for digit
				sum, n := decimal.Zero, 0
				for _, r := range rep.Rows {
					if r.Currency == tot.Currency {
						sum = sum.Add(r.BilledCost)
						n += r.Items
					}
				}
				if !sum.Equal(w.billed) {
					t.Errorf("%s rows: got sum %s want %s", tot.Currency, sum, w.billed)
				}
				if n != tot.Items {
					t.Errorf("%s rows: got %d items want %d", tot.Currency, n, tot.Items)
				}
			}
		})
	}
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// TestSpendUnknownAmounts: a group's total of an optional column is null
// only when no row states it; a partial sum covers the known rows.
func TestSpendUnknownAmounts(t *testing.T) {
	db := testkit.OpenLedger(t)
	mk := func(res, voucher string) ledger.LineItem {
		return ledger.LineItem{Provider: "autodl", BillingPeriod: "2026-10",
			ChargePeriodStart: bj("2026-10-03 00:00"), ChargePeriodEnd: bj("2026-10-04 00:00"),
			Kind: ledger.KindCompute, ResourceID: res, BilledCost: dec(t, "2"),
			VoucherPaid: nd(t, voucher)}
	}
	testkit.ImportItems(t, db, "b.csv", []ledger.LineItem{mk("none", ""), mk("none", ""), mk("part", ""), mk("part", "1.25"),
		mk("all", "0.5"), mk("all", "0.25")})
	rep, err := Spend(context.Background(), db, SpendOptions{Month: "2026-10", By: []string{ByResource}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		resource    string
		wantJSON    string
		wantPartial bool
	}{
		{"none", "null", false},
		{"part", `"1.25"`, true},
		{"all", `"0.75"`, false},
	} {
		t.Run(tc.resource, func(t *testing.T) {
			var row *SpendRow
			for i := range rep.Rows {
				if rep.Rows[i].ResourceID == tc.resource {
					row = &rep.Rows[i]
				}
			}
			if row == nil {
				t.Fatalf("no row for %s", tc.resource)
			}
			got, _ := json.Marshal(jsonMoney(row.VoucherPaid.Amount))
			if string(got) != tc.wantJSON {
				t.Errorf("voucher_paid: got %s want %s", got, tc.wantJSON)
			}
			if row.VoucherPaid.Partial() != tc.wantPartial {
				t.Errorf("partial: got %v want %v", row.VoucherPaid.Partial(), tc.wantPartial)
			}
			if row.CashPaid.Amount.Valid {
				t.Errorf("cash_paid: got %v want unknown (no row states it)", row.CashPaid.Amount)
			}
		})
	}
	table := string(render(t, rep, WriteOptions{Format: FormatTable, Lang: "en"}))
	if !strings.Contains(table, "1.25*") || !strings.Contains(table, "* some rows") {
		t.Errorf("table: got\n%s\nwant the partial sum marked 1.25* and the note", table)
	}
}

func TestSpendOptionErrors(t *testing.T) {
	db := testkit.OpenLedger(t)
	for _, tc := range []struct {
		name    string
		opts    SpendOptions
		wantErr string
	}{
		{"unknown dimension", SpendOptions{Month: "2026-10", By: []string{"colour"}}, `unknown spend dimension "colour"`},
		{"bad month", SpendOptions{Month: "2026-13"}, `month "2026-13" is not YYYY-MM`},
		{"month with day", SpendOptions{Month: "2026-10-01"}, `is not YYYY-MM`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Spend(context.Background(), db, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got error %v want one containing %q", err, tc.wantErr)
			}
		})
	}
	rep, err := Spend(context.Background(), db, SpendOptions{Month: "2026-10", By: []string{"resource_id", "kind", "resource"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rep.By, ","); got != "resource,kind" {
		t.Errorf("by: got %s want resource,kind (aliases mapped, repeats dropped)", got)
	}
}

// TestSpendCSVFormulaInjection: bill text that a spreadsheet would run as a
// formula gets an apostrophe; amounts stay numbers, negative ones too.
func TestSpendCSVFormulaInjection(t *testing.T) {
	s := newSample(t)
	rep, err := Spend(context.Background(), s.db, SpendOptions{Month: "2026-10", By: []string{ByResource, ByKind}})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(render(t, rep, WriteOptions{Format: FormatCSV}))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, k := range recs[0] {
		col[k] = i
	}
	var sawName, sawCredit bool
	for _, r := range recs[1:] {
		if r[col["resource_id"]] == "i-bp1xyz" {
			sawName = true
			if got, want := r[col["resource_name"]], "'=cmd|' /C calc'!A0"; got != want {
				t.Errorf("resource_name: got %q want %q", got, want)
			}
		}
		if r[col["kind"]] == ledger.KindCredit {
			sawCredit = true
			// The ledger keeps the source precision: -1.50 stays -1.50, a number.
			if got, want := r[col["billed_cost"]], "-1.50"; got != want {
				t.Errorf("credit billed_cost: got %q want %q (a number, no apostrophe)", got, want)
			}
			if got, want := r[col["cash_paid"]], "-1.50"; got != want {
				t.Errorf("credit cash_paid: got %q want %q", got, want)
			}
		}
	}
	if !sawName || !sawCredit {
		t.Fatalf("csv misses the sample rows (name %v, credit %v):\n%v", sawName, sawCredit, recs)
	}

	// The encoder itself: text vs numeric columns.
	g := &grid{cols: []column{{key: "name"}, {key: "amount", numeric: true}}}
	for _, c := range []string{"=1+1", "+86 138", "-1.50", "@SUM(A1)", "\tx", "\rx", "plain", ""} {
		g.add(c, "-1.50")
	}
	var b bytes.Buffer
	if err := g.writeCSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err = csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"'=1+1", "'+86 138", "'-1.50", "'@SUM(A1)", "'\tx", "'\rx", "plain", ""}
	for i, r := range recs[1:] {
		if r[0] != want[i] {
			t.Errorf("text cell %d: got %q want %q", i, r[0], want[i])
		}
		if r[1] != "-1.50" {
			t.Errorf("numeric cell %d: got %q want -1.50", i, r[1])
		}
	}
}

// TestSpendTableAlignment measures every line of the aligned table by
// display width: with a Chinese resource name the columns must still line
// up (CJK characters take two cells).
func TestSpendTableAlignment(t *testing.T) {
	s := newSample(t)
	rep, err := Spend(context.Background(), s.db, SpendOptions{Month: "2026-10", By: []string{ByResource, ByKind}})
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh", "en"} {
		t.Run(lang, func(t *testing.T) {
			out := string(render(t, rep, WriteOptions{Format: FormatTable, Lang: lang}))
			// the first table: from the line after the title to the first blank line after it
			blocks := strings.Split(out, "\n\n")
			if len(blocks) < 2 {
				t.Fatalf("got\n%s\nwant a title and a table", out)
			}
			lines := strings.Split(strings.TrimSpace(blocks[1]), "\n")
			if len(lines) < 4 {
				t.Fatalf("got %d table lines want at least 4:\n%s", len(lines), blocks[1])
			}
			sawCJK := false
			// The last column (list cost) is right-aligned, so every line ends at the same cell.
			w0 := displayWidth(lines[0])
			for i, l := range lines {
				if w := displayWidth(l); w != w0 {
					t.Errorf("line %d: got display width %d want %d:\n%s", i, w, w0, strings.Join(lines, "\n"))
				}
				if strings.Contains(l, "训练-大模型") {
					sawCJK = true
				}
				// the currency column starts at the same cell on every row
				if i > 0 {
					at := strings.Index(l, "CNY")
					if at < 0 {
						at = strings.Index(l, "USD")
					}
					head := strings.Index(lines[0], tr(lang, "col.currency"))
					if at < 0 || displayWidth(l[:at]) != displayWidth(lines[0][:head]) {
						t.Errorf("line %d: currency at cell %d want %d:\n%s", i, displayWidth(l[:max(at, 0)]), displayWidth(lines[0][:head]), l)
					}
				}
			}
			if !sawCJK {
				t.Errorf("table lacks the Chinese resource name:\n%s", out)
			}
		})
	}
}

// TestSpendExtrasExact: the previous month, the change, the top resources,
// the days and the provider × kind figures each equal the exact sum of the
// ledger rows they cover (computed here in Go), and the days of a currency
// add up to its total.
func TestSpendExtrasExact(t *testing.T) {
	db := testkit.OpenLedger(t)
	rng := rand.New(rand.NewPCG(3, 4))
	var items []ledger.LineItem
	for i := range 400 {
		month, day := "2026-10", 1+i%31
		if i%4 == 0 {
			month, day = "2026-09", 1+i%30
		}
		cur := "CNY"
		if i%5 == 0 {
			cur = "USD"
		}
		start := bj(fmt.Sprintf("%s-%02d %02d:00", month, day, i%24))
		items = append(items, ledger.LineItem{Provider: []string{"autodl", "aliyun", "aws"}[i%3],
			BillingPeriod: month, ChargePeriodStart: start, ChargePeriodEnd: start.Add(time.Hour),
			Kind:       []string{ledger.KindCompute, ledger.KindStorage, ledger.KindNetwork, ledger.KindCredit}[i%4],
			ResourceID: fmt.Sprintf("r%d", i%23), Currency: cur,
			BilledCost: dec(t, fmt.Sprintf("%d.%08d", rng.Int64N(1_000_000), rng.Int64N(100_000_000)))})
	}
	stored := testkit.ImportItems(t, db, "many.csv", items)
	rep, err := Spend(context.Background(), db, SpendOptions{Month: "2026-10", TZ: bj("2026-10-01 00:00").Location()})
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ a, b, c string }
	month := map[string]decimal.Decimal{}
	prev := map[string]decimal.Decimal{}
	res := map[key]decimal.Decimal{}
	days := map[key]decimal.Decimal{}
	pk := map[key]decimal.Decimal{}
	for _, li := range stored {
		if li.BillingPeriod == "2026-09" {
			prev[li.Currency] = prev[li.Currency].Add(li.BilledCost)
			continue
		}
		month[li.Currency] = month[li.Currency].Add(li.BilledCost)
		res[key{li.Provider, li.ResourceID, li.Currency}] = res[key{li.Provider, li.ResourceID, li.Currency}].Add(li.BilledCost)
		d := key{li.ChargePeriodStart.In(bj("2026-10-01 00:00").Location()).Format("2006-01-02"), li.Currency, ""}
		days[d] = days[d].Add(li.BilledCost)
		pk[key{li.Provider, li.Kind, li.Currency}] = pk[key{li.Provider, li.Kind, li.Currency}].Add(li.BilledCost)
	}
	if rep.Previous == nil || rep.Previous.Month != "2026-09" {
		t.Fatalf("previous: got %+v want 2026-09", rep.Previous)
	}
	for _, tot := range rep.Previous.Totals {
		if !tot.BilledCost.Equal(prev[tot.Currency]) {
			t.Errorf("previous %s: got %s want %s", tot.Currency, tot.BilledCost, prev[tot.Currency])
		}
	}
	for _, c := range rep.Changes {
		if want := month[c.Currency].Sub(prev[c.Currency]); !c.Delta.Equal(want) {
			t.Errorf("change %s: got %s want %s", c.Currency, c.Delta, want)
		}
	}
	if len(rep.TopResources) != 2*TopResourceCount {
		t.Errorf("top resources: got %d want %d (10 per currency)", len(rep.TopResources), 2*TopResourceCount)
	}
	for i, tr := range rep.TopResources {
		if want := res[key{tr.Provider, tr.ResourceID, tr.Currency}]; !tr.BilledCost.Equal(want) {
			t.Errorf("top %s/%s: got %s want %s", tr.Provider, tr.ResourceID, tr.BilledCost, want)
		}
		if i > 0 && rep.TopResources[i-1].Currency == tr.Currency && rep.TopResources[i-1].BilledCost.LessThan(tr.BilledCost) {
			t.Errorf("top resources not by billed cost descending at %d", i)
		}
	}
	dayTotal := map[string]decimal.Decimal{}
	for _, d := range rep.Daily {
		if want := days[key{d.Date, d.Currency, ""}]; !d.BilledCost.Equal(want) {
			t.Errorf("day %s %s: got %s want %s", d.Date, d.Currency, d.BilledCost, want)
		}
		dayTotal[d.Currency] = dayTotal[d.Currency].Add(d.BilledCost)
	}
	for _, tot := range rep.Totals {
		if !dayTotal[tot.Currency].Equal(tot.BilledCost) {
			t.Errorf("days of %s: got sum %s want the total %s", tot.Currency, dayTotal[tot.Currency], tot.BilledCost)
		}
	}
	for _, r := range rep.ProviderKinds {
		if want := pk[key{r.Provider, r.Kind, r.Currency}]; !r.BilledCost.Equal(want) {
			t.Errorf("%s/%s/%s: got %s want %s", r.Provider, r.Kind, r.Currency, r.BilledCost, want)
		}
	}
	// The charts carry the same figures: the stacked bars of a currency add
	// up to its total.
	for _, c := range rep.charts(WriteOptions{Lang: "en"}) {
		if c.key != "spend_by_provider_kind" {
			continue
		}
		sum := decimal.Zero
		for _, s := range c.series {
			for _, v := range s.values {
				sum = sum.Add(v)
			}
		}
		if !sum.Equal(month[c.currency]) {
			t.Errorf("chart %s: got sum %s want %s", c.currency, sum, month[c.currency])
		}
	}
}

// TestSpendNoPreviousMonth: without the month before in the ledger,
// previous_month and change are null and the section says so.
func TestSpendNoPreviousMonth(t *testing.T) {
	db := testkit.OpenLedger(t)
	testkit.ImportItems(t, db, "b.csv", []ledger.LineItem{{Provider: "autodl",
		BillingPeriod: "2026-10", ChargePeriodStart: bj("2026-10-03 00:00"),
		ChargePeriodEnd: bj("2026-10-04 00:00"), Kind: ledger.KindCompute,
		ResourceID: "i-1", BilledCost: dec(t, "2")}})
	rep, err := Spend(context.Background(), db, SpendOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(render(t, rep, WriteOptions{Format: FormatJSON}), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"previous_month", "change"} {
		if got := string(doc[k]); got != "null" {
			t.Errorf("%s: got %s want null", k, got)
		}
	}
	if got := string(doc["daily"]); !strings.Contains(got, `"2026-10-03"`) {
		t.Errorf("daily: got %s want the day 2026-10-03", got)
	}
	table := string(render(t, rep, WriteOptions{Format: FormatTable, Lang: "en"}))
	if !strings.Contains(table, "The ledger holds no bill of the previous month (2026-09).") {
		t.Errorf("table: got\n%s\nwant the no-previous-month text", table)
	}
}

// TestSpendCreditVoucherNote: a voucher billed as a line of its own counts
// in Voucher and is taken off Billed and Cash; the table says so, and gives
// the sum only where the columns foot that way (nothing else paid).
func TestSpendCreditVoucherNote(t *testing.T) {
	mk := func(kind, billed, voucher, cash, other string) ledger.LineItem {
		return ledger.LineItem{Provider: "autodl", BillingPeriod: "2026-10", Currency: "CNY",
			ChargePeriodStart: bj("2026-10-03 00:00"), ChargePeriodEnd: bj("2026-10-04 00:00"),
			Kind: kind, ResourceID: "r-" + billed, BilledCost: dec(t, billed),
			VoucherPaid: nd(t, voucher), CashPaid: nd(t, cash), OtherPaid: nd(t, other)}
	}
	charge, credit := mk(ledger.KindCompute, "20", "0", "20", ""), mk(ledger.KindCredit, "-5", "5", "-5", "")
	for _, tc := range []struct {
		name  string
		items []ledger.LineItem
		want  string
	}{
		{"foots", []ledger.LineItem{charge, credit},
			"CNY: Voucher includes 5.00 of vouchers billed as lines of their own, which take them off Billed and Cash too, so Billed = Voucher + Cash − 5.00."},
		{"other payments", []ledger.LineItem{charge, credit, mk(ledger.KindStorage, "10", "0", "4", "6")},
			"CNY: Voucher includes 5.00 of vouchers billed as lines of their own, which take them off Billed and Cash too."},
		{"no credit line", []ledger.LineItem{charge}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := testkit.OpenLedger(t)
			testkit.ImportItems(t, db, "b.csv", tc.items)
			rep, err := Spend(context.Background(), db, SpendOptions{Month: "2026-10"})
			if err != nil {
				t.Fatal(err)
			}
			table := string(render(t, rep, WriteOptions{Format: FormatTable, Lang: "en"}))
			if tc.want == "" {
				if strings.Contains(table, "Voucher includes") {
					t.Errorf("table has a credit voucher note without a credit line:\n%s", table)
				}
				return
			}
			if !strings.Contains(table, tc.want+"\n") {
				t.Errorf("table lacks %q:\n%s", tc.want, table)
			}
		})
	}
}

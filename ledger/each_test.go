package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestEachLineItemEqualsPlainScan checks EachLineItem (its own connection,
// one string a row) against the column-by-column scan through database/sql,
// field by field, for rows with every field set, every nullable field NULL,
// and text holding control, NUL and JSON-special characters.
func TestEachLineItemEqualsPlainScan(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	start := time.Date(2026, 10, 3, 6, 0, 0, 0, time.UTC)
	full := LineItem{Provider: "aliyun", BillingAccountID: "acct-1",
		BillingPeriod: "2026-10", ChargePeriodStart: start, ChargePeriodEnd: start.Add(time.Hour),
		ChargeCategory: CategoryUsage, Kind: KindCompute, PricingModel: "on_demand",
		ServiceName: "ECS", ResourceID: "i-1", ResourceType: "gpu",
		SKU: "ecs.gn7i", ParentResourceID: "p-1", GPUModel: "A10",
		GPUCount: 2, ConsumedQuantity: nd("0.5"), ConsumedUnit: "hour",
		PricingQuantity: nd("1"), PricingUnit: "hour", ListUnitPrice: nd("12.34567891"),
		BilledCost: decimal.RequireFromString("10.00000001"), Currency: "CNY",
		UsageStart: start.Add(time.Minute), UsageEnd: start.Add(31 * time.Minute),
		Description: "说明, \"quoted\"", RowKey: "k-full", SourceRow: 7,
		SubAccount: "proj", ResourceName: "训练机", Region: "cn-hangzhou", Zone: "h",
		ListCost: nd("12.34567891"), VoucherPaid: nd("1"), CashPaid: nd("9.00000001"),
		OtherPaid: nd("0"), Unpaid: nd("-0.5"), Tags: `{"team":"a"}`,
		Raw: []string{"a", "b,c", "\"d\"", "\x1f"}}
	empty := LineItem{Provider: "autodl", BillingPeriod: "2026-10",
		ChargePeriodStart: start, ChargePeriodEnd: start.Add(time.Hour), ChargeCategory: CategoryUsage,
		Kind: KindStorage, BilledCost: decimal.RequireFromString("0"),
		Currency: "CNY", RowKey: "k-empty", SourceRow: 8, Raw: []string{}}
	sep := full
	sep.RowKey, sep.SourceRow, sep.Description, sep.ResourceName = "k-sep", 9, "a\x1fb", "x\x1f"
	nulText := full
	nulText.RowKey, nulText.SourceRow, nulText.Zone, nulText.ConsumedUnit = "k-nul", 10, "\x00", "\x00x"
	importItems(t, db, []LineItem{full, empty, sep, nulText})

	parts, err := db.parts(ctx, Filter{Month: "2026-10"})
	if err != nil || len(parts) != 1 || parts[0].IDMin != 1 || parts[0].IDMax != 4 {
		t.Fatalf("parts: got %+v, %v; want ids 1 to 4", parts, err)
	}
	mid, err := lineItems(ctx, db, Filter{IDMin: 2, IDMax: 3})
	if err != nil || len(mid) != 2 || mid[0].ID+mid[1].ID != 5 {
		t.Fatalf("ids 2..3: got %d items (%v)", len(mid), err)
	}
	for _, noRaw := range []bool{false, true} {
		got := readItems(t, db, Filter{}, Read{NoRaw: noRaw})
		want := plainScan(t, db, noRaw)
		if len(got) != len(want) || len(got) != 4 {
			t.Fatalf("noRaw=%v: got %d items, want %d (and 4)", noRaw, len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("noRaw=%v item %s:\n got %+v\nwant %+v", noRaw, want[i].RowKey, got[i], want[i])
			}
		}
	}
}

// readItems is what EachLineItem hands over for f and r.
func readItems(t *testing.T, db *DB, f Filter, r Read) []LineItem {
	t.Helper()
	var out []LineItem
	if err := db.EachLineItem(context.Background(), f, r, func(li *LineItem) error {
		out = append(out, *li)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func nd(s string) decimal.NullDecimal {
	return decimal.NullDecimal{Decimal: decimal.RequireFromString(s), Valid: true}
}

// replaceRaw makes the plain query leave the source cells out.
func replaceRaw(sel string) string { return strings.Replace(sel, "li.raw,", "'[]',", 1) }

// plainScan reads every line item column by column (scanLineItem), in the
// order of EachLineItem.
func plainScan(t *testing.T, db *DB, noRaw bool) []LineItem {
	t.Helper()
	sel := lineItemSelect
	if noRaw {
		sel = replaceRaw(sel)
	}
	rows, err := db.sql.QueryContext(context.Background(), sel+" ORDER BY li.provider, li.resource_id, li.charge_period_start, li.id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []LineItem
	for rows.Next() {
		li, err := scanLineItem(rows)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, *li)
	}
	if err := rows.Err(); err != nil && err != sql.ErrNoRows {
		t.Fatal(err)
	}
	return out
}

// TestParseTimeFastPath: the in-place reading of stored times agrees with
// time.Parse on valid times and refuses what time.Parse refuses.
func TestParseTimeFastPath(t *testing.T) {
	for _, s := range []string{"2026-10-03T06:22:05Z", "2024-02-29T23:59:59Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"} {
		got, err := ParseTime(s)
		want, werr := time.Parse(TimeLayout, s)
		if err != nil || werr != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, %v; want %v, %v", s, got, err, want, werr)
		}
	}
	for _, s := range []string{"", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-10-03T24:00:00Z",
		"2026-10-03T06:60:05Z", "2026-10-03T06:22:60Z", "2026-10-03 06:22:05Z", "2026-10-03T06:22:05+08:00", "2026-1a-03T06:22:05Z",
		"+026-10-03T06:22:05Z", "2026-00-03T06:22:05Z", "2026-10-00T06:22:05Z", "1900-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
		"2026-10-32T00:00:00Z"} {
		if got, err := ParseTime(s); err == nil {
			t.Errorf("ParseTime(%q) = %v, want an error", s, got)
		}
	}
	// Every day of four centuries and of the ends of the years a time can
	// have, at a clock time drawn from the day, and the day after each
	// month's end: the same Time as time.Parse gives (==: the same
	// representation, not only the same instant), or an error where it errs.
	check := func(day time.Time, i int) {
		for _, at := range []time.Time{day.Add(time.Duration(i*7919%86400) * time.Second), day.Add(86399 * time.Second)} {
			s := at.Format(TimeLayout)
			got, err := ParseTime(s)
			want, werr := time.Parse(TimeLayout, s)
			if got != want || (err == nil) != (werr == nil) {
				t.Fatalf("ParseTime(%q) = %#v, %v; want %#v, %v", s, got, err, want, werr)
			}
		}
		if day.Day() >= 28 {
			s := fmt.Sprintf("%04d-%02d-%02dT00:00:00Z", day.Year(), day.Month(), day.Day()+1)
			_, err := ParseTime(s)
			if _, werr := time.Parse(TimeLayout, s); (err == nil) != (werr == nil) {
				t.Fatalf("ParseTime(%q): error %v, time.Parse's %v", s, err, werr)
			}
		}
	}
	for _, span := range [][2]int{{0, 3}, {1899, 2301}, {9997, 9999}} {
		i := 0
		for day := time.Date(span[0], 1, 1, 0, 0, 0, 0, time.UTC); day.Year() <= span[1]; day = day.AddDate(0, 0, 1) {
			check(day, i)
			i++
		}
	}
}

// lineItemSelect and scanLineItem read a line item through database/sql,
// column by column: the independent reading the column table is checked against.
const lineItemSelect = `SELECT li.id, li.provider, li.billing_account_id, li.sub_account, li.billing_period,
	li.charge_period_start, li.charge_period_end, li.charge_category, li.kind, li.pricing_model, li.service_name,
	li.resource_id, li.resource_name, li.resource_type, li.sku, li.parent_resource_id, li.gpu_model, li.gpu_count,
	li.region, li.zone, li.consumed_quantity, li.consumed_unit, li.pricing_quantity, li.pricing_unit,
	li.list_unit_price, li.list_cost, li.billed_cost, li.voucher_paid, li.cash_paid, li.other_paid, li.unpaid,
	li.currency, li.usage_start, li.usage_end, li.tags, li.description, li.raw, li.import_id, li.source_row,
	li.row_key, im.path
	FROM line_items li JOIN imports im ON im.id = li.import_id`

func scanLineItem(rows *sql.Rows) (*LineItem, error) {
	var li LineItem
	var start, end, raw string
	var gpuCount sql.NullInt64
	var usageStart, usageEnd sql.NullString
	var consumed, pricing, listUnit, listCost, voucher, cash, other, unpaid *string
	var billed string
	if err := rows.Scan(&li.ID, &li.Provider, &li.BillingAccountID, &li.SubAccount, &li.BillingPeriod,
		&start, &end, &li.ChargeCategory, &li.Kind, &li.PricingModel, &li.ServiceName,
		&li.ResourceID, &li.ResourceName, &li.ResourceType, &li.SKU, &li.ParentResourceID, &li.GPUModel, &gpuCount,
		&li.Region, &li.Zone, &consumed, &li.ConsumedUnit, &pricing, &li.PricingUnit,
		&listUnit, &listCost, &billed, &voucher, &cash, &other, &unpaid,
		&li.Currency, &usageStart, &usageEnd, &li.Tags, &li.Description, &raw, &li.ImportID, &li.SourceRow,
		&li.RowKey, &li.File); err != nil {
		return nil, fmt.Errorf("ledger: scan line item: %w", err)
	}
	var err error
	if li.ChargePeriodStart, err = ParseTime(start); err != nil {
		return nil, fmt.Errorf("ledger: line item %d: %w", li.ID, err)
	}
	if li.ChargePeriodEnd, err = ParseTime(end); err != nil {
		return nil, fmt.Errorf("ledger: line item %d: %w", li.ID, err)
	}
	for _, t := range []struct {
		s   sql.NullString
		dst *time.Time
	}{{usageStart, &li.UsageStart}, {usageEnd, &li.UsageEnd}} {
		if t.s.Valid {
			if *t.dst, err = ParseTime(t.s.String); err != nil {
				return nil, fmt.Errorf("ledger: line item %d: %w", li.ID, err)
			}
		}
	}
	li.GPUCount = int(gpuCount.Int64)
	b, err := scanDec(&billed)
	if err != nil {
		return nil, err
	}
	li.BilledCost = b.Decimal
	for _, d := range []struct {
		s   *string
		dst *decimal.NullDecimal
	}{{consumed, &li.ConsumedQuantity}, {pricing, &li.PricingQuantity}, {listUnit, &li.ListUnitPrice},
		{listCost, &li.ListCost}, {voucher, &li.VoucherPaid}, {cash, &li.CashPaid}, {other, &li.OtherPaid}, {unpaid, &li.Unpaid}} {
		if *d.dst, err = scanDec(d.s); err != nil {
			return nil, err
		}
	}
	if err := json.Unmarshal([]byte(raw), &li.Raw); err != nil {
		return nil, fmt.Errorf("ledger: line item %d raw: %w", li.ID, err)
	}
	return &li, nil
}

// cellsLedger holds two imports of one item each (ids 1 and 2), whose
// source cells are the row key, "T9" and `"q",`.
func cellsLedger(t *testing.T) *DB {
	t.Helper()
	db := openTest(t)
	start := time.Date(2026, 10, 3, 6, 0, 0, 0, time.UTC)
	for _, key := range []string{"a", "b"} {
		importItems(t, db, []LineItem{{Provider: "autodl", BillingPeriod: "2026-10", ChargePeriodStart: start,
			ChargePeriodEnd: start.Add(time.Hour), ChargeCategory: CategoryUsage, Kind: KindCompute,
			BilledCost: decimal.RequireFromString("1"), Currency: "CNY", RowKey: key, Raw: []string{key, "T9", `"q",`}}})
	}
	return db
}

// TestReadCells reads some of the source cells of some imports' items
// only, beside a filter's placeholders.
func TestReadCells(t *testing.T) {
	db := cellsLedger(t)
	for _, tc := range []struct {
		cells map[int64][]int
		want  string
	}{
		{map[int64][]int{2: {1}}, `[] ["T9"]`},
		{map[int64][]int{1: {1}, 2: {1}}, `["T9"] ["T9"]`},                 // one branch
		{map[int64][]int{1: {2, 0}, 2: {0, 5}}, `["\"q\",","a"] ["b",""]`}, // 5: no such cell
		{map[int64][]int{}, `[] []`},
		{nil, `["a","T9","\"q\","] ["b","T9","\"q\","]`},
	} {
		items := readItems(t, db, Filter{Month: "2026-10", Providers: []string{"autodl"}}, Read{Cells: tc.cells, Order: IDDescending})
		if len(items) != 2 {
			t.Fatalf("Cells %v: %d items", tc.cells, len(items))
		}
		a, _ := json.Marshal(items[1].Raw)
		b, _ := json.Marshal(items[0].Raw)
		if got := string(a) + " " + string(b); got != tc.want {
			t.Errorf("Cells %v: raw cells %s, want %s", tc.cells, got, tc.want)
		}
	}
}

// lineItems returns the line items f selects, with their raw cells, in
// ByResource order (testkit.LineItems, which this package cannot import).
func lineItems(ctx context.Context, db *DB, f Filter) ([]LineItem, error) {
	var out []LineItem
	err := db.EachLineItem(ctx, f, Read{}, func(li *LineItem) error {
		out = append(out, *li)
		return nil
	})
	return out, err
}

// TestRawCells reads the listed source cells of the items asked for, in
// the order listed, and nothing of imports not listed or ids not held.
func TestRawCells(t *testing.T) {
	db := cellsLedger(t)
	for _, tc := range []struct {
		cells map[int64][]int
		want  string
	}{
		{map[int64][]int{2: {1}}, `{"2":["T9"]}`},
		{map[int64][]int{1: {2, 0}, 2: {0, 5}}, `{"1":["\"q\",","a"],"2":["b",""]}`}, // 5: no such cell
		{map[int64][]int{1: {1}, 2: {1}}, `{"1":["T9"],"2":["T9"]}`},
		{map[int64][]int{}, `{}`},
	} {
		got, err := db.RawCells(context.Background(), []int64{1, 2, 3}, tc.cells)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(got); string(b) != tc.want {
			t.Errorf("cells %v: %s, want %s", tc.cells, b, tc.want)
		}
	}
}

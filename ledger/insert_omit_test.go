package ledger

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// An INSERT leaves out the columns every row of it holds at their default
// (omittedColumns); what is stored must be exactly what binding every
// column stores: ” stays ”, NULL stays NULL, "{}" stays "{}".
func TestInsertLeavesOutDefaultColumns(t *testing.T) {
	full := item("full", "2.5")
	full.BillingAccountID, full.SubAccount, full.ServiceName = "acct", "P1", "GPU"
	full.ResourceID, full.ResourceName, full.ResourceType, full.SKU = "i-1", "train", "instance", "4090 x1"
	full.ParentResourceID, full.GPUModel, full.GPUCount, full.Region, full.Zone = "p-1", "RTX 4090", 2, "cn", "cn-a"
	full.ConsumedQuantity = decimal.NewNullDecimal(decimal.RequireFromString("0.5"))
	full.ConsumedUnit, full.PricingUnit = "hour", "hour"
	full.PricingQuantity = decimal.NewNullDecimal(decimal.RequireFromString("1"))
	full.ListUnitPrice = decimal.NewNullDecimal(decimal.RequireFromString("2.5"))
	full.ListCost = decimal.NewNullDecimal(decimal.RequireFromString("2.5"))
	for _, p := range []*decimal.NullDecimal{&full.VoucherPaid, &full.CashPaid, &full.OtherPaid, &full.Unpaid} {
		*p = decimal.NewNullDecimal(decimal.Zero)
	}
	full.UsageStart, full.UsageEnd = full.ChargePeriodStart, full.ChargePeriodEnd
	full.Tags, full.Description = `{"team":"a"}`, "note"
	full.LineKey = "tencentcloud:1/GPU/GPU#1"
	bare := func(key string) LineItem { return item(key, "1") }
	// A zero amount and an empty (not NULL) text where a column could be
	// left out: these must not be confused with the defaults.
	zeroes := bare("zeroes")
	zeroes.CashPaid = decimal.NewNullDecimal(decimal.Zero)
	zeroes.Tags = "{}"
	batches := [][]LineItem{
		{bare("a"), bare("b"), bare("c")},
		{bare("d"), full, bare("e")},
		{zeroes, bare("f")},
	}
	var rows LineItemRows
	for _, li := range batches[0] {
		rows.Append(&li)
	}
	omit := omittedColumns(rows.rows)
	for _, col := range []string{"sub_account", "gpu_count", "consumed_quantity", "usage_start", "tags", "description"} {
		if i := insertAt(col); omit&(1<<i) == 0 {
			t.Errorf("bare rows: %s not left out (omit %b)", col, omit)
		}
	}
	for _, col := range []string{"provider", "billed_cost", "pricing_model", "raw", "row_key"} {
		if i := insertAt(col); omit&(1<<i) != 0 {
			t.Errorf("bare rows: %s left out", col)
		}
	}
	rows.Reset()
	rows.Append(&full)
	if omit := omittedColumns(rows.rows); omit != 0 {
		t.Errorf("a row with every column set: omit %b, want 0", omit)
	}

	// The same batches stored through the INSERT that binds every column.
	want, got := openTest(t), openTest(t)
	for _, b := range batches {
		importItems(t, got, slices.Clone(b))
		insertAll(t, want, slices.Clone(b))
	}
	if g, w := quotedRows(t, got), quotedRows(t, want); g != w {
		t.Errorf("stored rows differ:\n got %s\nwant %s", g, w)
	}
}

// insertAll writes items as one file through an INSERT that binds every
// column.
func insertAll(t *testing.T, db *DB, items []LineItem) {
	t.Helper()
	importItemsWith(t, db, items, func(tx *ImportTx, ctx context.Context, items []LineItem) (int, error) {
		var rows LineItemRows
		for i := range items {
			rows.Append(&items[i])
		}
		added := 0
		for chunk := range slices.Chunk(rows.rows, lineItemsPerInsert) {
			n, err := tx.c.insertRows(ctx, tx.lineItemInsert(len(chunk), 0), chunk, 0)
			if err != nil {
				return added, err
			}
			added += int(n)
		}
		return added, nil
	})
}

// quotedRows is every line item column, quoted (NULL and ” differ), row by
// row in row key order.
func quotedRows(t *testing.T, db *DB) string {
	t.Helper()
	cols := make([]string, len(inserted))
	for i, c := range inserted {
		cols[i] = "quote(" + c.name + ")"
	}
	rows, err := db.sql.Query("SELECT " + strings.Join(cols, "||'|'||") + " FROM line_items ORDER BY row_key")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The column table matches the schema as migrated: the same columns in
// the same order, and the defaults it lets an INSERT leave out.
func TestColumnsMatchSchema(t *testing.T) {
	db := openTest(t)
	rows, err := db.sql.Query("SELECT name, \"notnull\", ifnull(dflt_value, 'NULL') FROM pragma_table_info('line_items') ORDER BY cid")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	defaults := map[string]string{}
	for rows.Next() {
		var name, dflt string
		var notNull bool
		if err := rows.Scan(&name, &notNull, &dflt); err != nil {
			t.Fatal(err)
		}
		if !notNull && dflt == "NULL" {
			dflt = "nullable"
		}
		names = append(names, name)
		defaults[name] = dflt
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var table []string
	for _, c := range lineItemColumns {
		table = append(table, c.name)
		want := ""
		switch {
		case c.null:
			want = "nullable"
		case c.dflt:
			want = "'" + c.zero + "'"
		default:
			continue
		}
		if got := defaults[c.name]; got != want {
			t.Errorf("column %s: default %s, the column table says %s", c.name, got, want)
		}
	}
	if !slices.Equal(table, names) {
		t.Errorf("columns:\n table  %v\n schema %v", table, names)
	}
}

// Batches whose rows leave ever other columns empty prepare at most
// maxInsertShapes INSERTs (and the one of every column), and store what
// binding every column stores.
func TestInsertShapesAreBounded(t *testing.T) {
	var items []LineItem
	for k := range 3 * maxInsertShapes {
		for j := range lineItemsPerInsert { // one chunk per k: its own set of empty columns
			li := item(fmt.Sprintf("k%03d-%02d", k, j), "1")
			for bit, set := range []func(){
				func() { li.SubAccount = "p" }, func() { li.ServiceName = "s" }, func() { li.ResourceID = "r" },
				func() { li.ResourceName = "n" }, func() { li.SKU = "sku" }, func() { li.Region = "cn" },
				func() { li.Zone = "z" },
			} {
				if k&(1<<bit) != 0 {
					set()
				}
			}
			items = append(items, li)
		}
	}
	want, got := openTest(t), openTest(t)
	importItemsWith(t, got, slices.Clone(items), func(tx *ImportTx, ctx context.Context, items []LineItem) (int, error) {
		n, err := tx.InsertLineItems(ctx, items)
		if len(tx.inserts) > maxInsertShapes+1 {
			t.Errorf("%d INSERTs prepared, want at most %d", len(tx.inserts), maxInsertShapes+1)
		}
		return n, err
	})
	insertAll(t, want, slices.Clone(items))
	if g, w := quotedRows(t, got), quotedRows(t, want); g != w {
		t.Errorf("stored rows differ:\n got %s\nwant %s", g, w)
	}
}

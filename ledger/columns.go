package ledger

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gpubill/gpubill/money"
	"github.com/shopspring/decimal"
)

// The columns of line_items, in one table: it generates the INSERT of an
// import (InsertLineItemRows), the SELECT lists of the reads, the order a
// row is scanned in and the defaults an INSERT may leave out. The schema is
// the migrations'; TestColumnsMatchSchema holds the table to it.

// column is one column of line_items. field points at the LineItem field
// it is read into and written from; its type says how the column is
// stored: *string text, *int64 and *int integers, *decimal.Decimal and
// *decimal.NullDecimal amounts, *time.Time times, *[]string the raw cells
// (a JSON array).
type column struct {
	name  string
	field func(li *LineItem) any
	// null: the field's zero value (an unknown amount, a zero time, GPU
	// count 0) is stored as NULL, the column's default.
	null bool
	// dflt: the column's default is the text zero stands for, and an
	// INSERT may leave it out when every row holds it.
	dflt bool
	// zero is what an empty text is stored as (pricing_model, tags).
	zero string
	// readOnly columns are read, never inserted (the id).
	readOnly bool
	// unique texts are never shared (each row's own).
	unique bool
}

var lineItemColumns = []column{
	{name: "id", field: func(li *LineItem) any { return &li.ID }, readOnly: true},
	{name: "provider", field: func(li *LineItem) any { return &li.Provider }},
	{name: "billing_account_id", field: func(li *LineItem) any { return &li.BillingAccountID }, dflt: true},
	{name: "sub_account", field: func(li *LineItem) any { return &li.SubAccount }, dflt: true},
	{name: "billing_period", field: func(li *LineItem) any { return &li.BillingPeriod }},
	{name: "charge_period_start", field: func(li *LineItem) any { return &li.ChargePeriodStart }},
	{name: "charge_period_end", field: func(li *LineItem) any { return &li.ChargePeriodEnd }},
	{name: "charge_category", field: func(li *LineItem) any { return &li.ChargeCategory }},
	{name: "kind", field: func(li *LineItem) any { return &li.Kind }},
	{name: "pricing_model", field: func(li *LineItem) any { return &li.PricingModel }, zero: PricingOnDemand},
	{name: "service_name", field: func(li *LineItem) any { return &li.ServiceName }, dflt: true},
	{name: "resource_id", field: func(li *LineItem) any { return &li.ResourceID }, dflt: true},
	{name: "resource_name", field: func(li *LineItem) any { return &li.ResourceName }, dflt: true},
	{name: "resource_type", field: func(li *LineItem) any { return &li.ResourceType }, dflt: true},
	{name: "sku", field: func(li *LineItem) any { return &li.SKU }, dflt: true},
	{name: "parent_resource_id", field: func(li *LineItem) any { return &li.ParentResourceID }, dflt: true},
	{name: "gpu_model", field: func(li *LineItem) any { return &li.GPUModel }, dflt: true},
	{name: "gpu_count", field: func(li *LineItem) any { return &li.GPUCount }, null: true},
	{name: "region", field: func(li *LineItem) any { return &li.Region }, dflt: true},
	{name: "zone", field: func(li *LineItem) any { return &li.Zone }, dflt: true},
	{name: "consumed_quantity", field: func(li *LineItem) any { return &li.ConsumedQuantity }, null: true},
	{name: "consumed_unit", field: func(li *LineItem) any { return &li.ConsumedUnit }, dflt: true},
	{name: "pricing_quantity", field: func(li *LineItem) any { return &li.PricingQuantity }, null: true},
	{name: "pricing_unit", field: func(li *LineItem) any { return &li.PricingUnit }, dflt: true},
	{name: "list_unit_price", field: func(li *LineItem) any { return &li.ListUnitPrice }, null: true},
	{name: "list_cost", field: func(li *LineItem) any { return &li.ListCost }, null: true},
	{name: "billed_cost", field: func(li *LineItem) any { return &li.BilledCost }},
	{name: "voucher_paid", field: func(li *LineItem) any { return &li.VoucherPaid }, null: true},
	{name: "cash_paid", field: func(li *LineItem) any { return &li.CashPaid }, null: true},
	{name: "other_paid", field: func(li *LineItem) any { return &li.OtherPaid }, null: true},
	{name: "unpaid", field: func(li *LineItem) any { return &li.Unpaid }, null: true},
	{name: "currency", field: func(li *LineItem) any { return &li.Currency }},
	{name: "usage_start", field: func(li *LineItem) any { return &li.UsageStart }, null: true},
	{name: "usage_end", field: func(li *LineItem) any { return &li.UsageEnd }, null: true},
	{name: "tags", field: func(li *LineItem) any { return &li.Tags }, dflt: true, zero: "{}"},
	{name: "description", field: func(li *LineItem) any { return &li.Description }, dflt: true},
	{name: "raw", field: func(li *LineItem) any { return &li.Raw }},
	{name: "import_id", field: func(li *LineItem) any { return &li.ImportID }},
	{name: "source_row", field: func(li *LineItem) any { return &li.SourceRow }},
	{name: "row_key", field: func(li *LineItem) any { return &li.RowKey }, unique: true},
	{name: "line_key", field: func(li *LineItem) any { return &li.LineKey }, dflt: true},
}

// insertColumns is the number of columns an INSERT writes: every column of
// lineItemColumns but the read-only id (checked by init).
const insertColumns = 40

var (
	// columnIndex maps a column's name to its place in lineItemColumns.
	columnIndex = map[string]int{}
	// inserted are the columns an INSERT writes, in lineItemRow order.
	inserted []*column
	// intColumns is a bit per inserted integer column.
	intColumns uint64
)

func init() {
	for i := range lineItemColumns {
		c := &lineItemColumns[i]
		columnIndex[c.name] = i
		if c.readOnly {
			continue
		}
		switch c.field(&LineItem{}).(type) {
		case *int64, *int:
			intColumns |= 1 << len(inserted)
		}
		inserted = append(inserted, c)
	}
	if len(inserted) != insertColumns {
		panic(fmt.Sprintf("ledger: %d insertable columns, want %d", len(inserted), insertColumns))
	}
}

// insertAt is the place of a named column among inserted.
func insertAt(name string) int {
	for i, c := range inserted {
		if c.name == name {
			return i
		}
	}
	panic("ledger: no column " + name)
}

// lineItemRow is one line item as it is bound: the texts of its columns
// one after the other in text (end[i] is where column i's ends), a bit per
// NULL column and the integer columns' values.
type lineItemRow struct {
	text string
	end  [insertColumns]int32
	null uint64
	ints [insertColumns]int64
}

// col is the text of inserted column i.
func (r *lineItemRow) col(i int) string {
	start := int32(0)
	if i > 0 {
		start = r.end[i-1]
	}
	return r.text[start:r.end[i]]
}

// LineItemRows is a batch of line items rendered for InsertLineItemRows.
// Importers fill it in their parsing goroutine, so that the goroutine that
// writes to SQLite only binds and steps. A row's texts are rendered into
// one buffer and become one string: one allocation a row.
type LineItemRows struct {
	rows []lineItemRow
	buf  []byte
}

// Len is the number of rows in the batch.
func (r *LineItemRows) Len() int { return len(r.rows) }

// Reset empties the batch.
func (r *LineItemRows) Reset() { r.rows = r.rows[:0] }

// Append renders li (with its ImportID, SourceRow and RowKey set) into the
// batch.
func (r *LineItemRows) Append(li *LineItem) {
	r.rows = append(r.rows, lineItemRow{})
	row := &r.rows[len(r.rows)-1]
	b := r.buf[:0]
	for i, c := range inserted {
		switch v := c.field(li).(type) {
		case *string:
			if *v == "" {
				b = append(b, c.zero...)
			} else {
				b = append(b, *v...)
			}
		case *int64:
			row.ints[i] = *v
		case *int:
			row.ints[i] = int64(*v)
			if c.null && *v <= 0 {
				row.null |= 1 << i
			}
		case *decimal.Decimal:
			b = money.Append(b, *v)
		case *decimal.NullDecimal:
			if v.Valid {
				b = money.Append(b, v.Decimal)
			} else {
				row.null |= 1 << i
			}
		case *time.Time:
			if c.null && v.IsZero() {
				row.null |= 1 << i
			} else {
				b = AppendTime(b, *v)
			}
		case *[]string:
			b = appendJSONStrings(b, *v)
		}
		row.end[i] = int32(len(b))
	}
	row.text = string(b)
	r.buf = b
}

// omittedColumns are the columns that every row of rows leaves at their
// default: a NULL of a null column, the zero text of a dflt one. Binding a
// value costs a call into SQLite and a copy per row and column; a column
// left out costs SQLite one copy of its default.
func omittedColumns(rows []lineItemRow) uint64 {
	var omit uint64
	for i, c := range inserted {
		if !c.null && !c.dflt {
			continue
		}
		all := true
		for j := range rows {
			r := &rows[j]
			if c.null && r.null&(1<<i) == 0 || !c.null && r.col(i) != c.zero {
				all = false
				break
			}
		}
		if all {
			omit |= 1 << i
		}
	}
	return omit
}

// selectColumns is the SELECT list of the named columns (all but raw when
// names is nil and noRaw, all when nil and not).
func selectColumns(names []string, noRaw bool) ([]*column, string, error) {
	if names == nil {
		for _, c := range lineItemColumns {
			if !noRaw || c.name != "raw" {
				names = append(names, c.name)
			}
		}
	}
	cols := make([]*column, len(names))
	list := make([]string, len(names))
	for i, n := range names {
		at, ok := columnIndex[n]
		if !ok {
			return nil, "", fmt.Errorf("ledger: line_items has no column %q", n)
		}
		cols[i], list[i] = &lineItemColumns[at], "li."+n
	}
	return cols, strings.Join(list, ", "), nil
}

// itemReader builds line items of the rows of a SELECT of cols. Repeated
// texts and amounts (providers, units, prices) are one string or decimal
// shared by the items (the last shareMax of each seen): a month holds a
// million items, and a decimal is a *big.Int to build and to hold. A
// unique column (the row key) is not looked up.
type itemReader struct {
	cols  []*column
	paths map[int64]string
	strs  map[string]string
	decs  map[string]decimal.Decimal
	last  []string // each column's text in the row before
	// each amount or time column's text in the row before (lastAmt), and
	// its amount or time
	lastAmt  [][]byte
	lastDec  []decimal.Decimal
	lastTime []time.Time
}

// shareMax bounds the shared texts and amounts of one reader.
const shareMax = 1 << 16

func newItemReader(cols []*column, paths map[int64]string) *itemReader {
	return &itemReader{cols: cols, paths: paths, strs: map[string]string{}, decs: map[string]decimal.Decimal{},
		last: make([]string, len(cols)), lastAmt: make([][]byte, len(cols)), lastDec: make([]decimal.Decimal, len(cols)),
		lastTime: make([]time.Time, len(cols))}
}

// text is b as a shared string.
func (ir *itemReader) text(i int, b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if string(b) == ir.last[i] {
		return ir.last[i]
	}
	s, ok := ir.strs[string(b)]
	if !ok {
		s = string(b)
		if len(ir.strs) == shareMax {
			clear(ir.strs) // start again: the texts of the rows to come
		}
		ir.strs[s] = s
	}
	ir.last[i] = s
	return s
}

// amount is b, a stored amount of column i (-1: of no column of cols),
// shared.
func (ir *itemReader) amount(i int, b []byte) (decimal.Decimal, error) {
	last := i >= 0 && i < len(ir.lastAmt)
	if last && ir.lastAmt[i] != nil && string(b) == string(ir.lastAmt[i]) {
		return ir.lastDec[i], nil
	}
	d, ok := ir.decs[string(b)]
	if !ok {
		var err error
		if d, err = parseAmount(b); err != nil {
			return d, err
		}
		if len(ir.decs) == shareMax {
			clear(ir.decs)
		}
		ir.decs[string(b)] = d
	}
	if last {
		ir.lastAmt[i], ir.lastDec[i] = append(ir.lastAmt[i][:0], b...), d
	}
	return d, nil
}

// read fills li with row r.
func (ir *itemReader) read(r Row, li *LineItem) error {
	for i, c := range ir.cols {
		if err := ir.readColumn(r, i, c, li); err != nil {
			return fmt.Errorf("ledger: line item %d, %s: %w", li.ID, c.name, err)
		}
	}
	if ir.paths != nil {
		li.File = ir.paths[li.ImportID]
	}
	return nil
}

func (ir *itemReader) readColumn(r Row, i int, c *column, li *LineItem) error {
	switch v := c.field(li).(type) {
	case *int64:
		*v = r.Int64(i)
	case *int:
		*v = int(r.Int64(i)) // NULL reads as 0
	case *string:
		if c.unique {
			*v = r.Text(i)
		} else {
			*v = ir.text(i, r.Bytes(i))
		}
	case *decimal.Decimal, *decimal.NullDecimal:
		b := r.Bytes(i)
		if len(b) == 0 {
			if _, ok := v.(*decimal.NullDecimal); ok && r.Null(i) {
				*v.(*decimal.NullDecimal) = decimal.NullDecimal{}
				return nil
			}
			return fmt.Errorf("stored amount is empty")
		}
		d, err := ir.amount(i, b)
		if err != nil {
			return err
		}
		if n, ok := v.(*decimal.NullDecimal); ok {
			*n = decimal.NullDecimal{Decimal: d, Valid: true}
		} else {
			*v.(*decimal.Decimal) = d
		}
	case *time.Time:
		b := r.Bytes(i)
		if len(b) == 0 && r.Null(i) {
			*v = time.Time{}
			return nil
		}
		if ir.lastAmt[i] != nil && string(b) == string(ir.lastAmt[i]) {
			*v = ir.lastTime[i]
			return nil
		}
		t, err := ParseTime(string(b))
		if err != nil {
			return err
		}
		*v = t
		ir.lastAmt[i], ir.lastTime[i] = append(ir.lastAmt[i][:0], b...), t
	case *[]string:
		*v = []string{}
		if b := r.Bytes(i); len(b) > 0 && string(b) != "[]" {
			return json.Unmarshal(b, v)
		}
	}
	return nil
}

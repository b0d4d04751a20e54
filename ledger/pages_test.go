package ledger

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// tableColumns are the columns of line_items, in the table's order.
func tableColumns(t *testing.T, db *DB) []string {
	t.Helper()
	var cols []string
	err := db.scan(context.Background(), "SELECT name FROM pragma_table_info('line_items') ORDER BY cid", nil, func(r Row) error {
		cols = append(cols, r.Text(0))
		return nil
	}, false)
	if err != nil || len(cols) < 30 {
		t.Fatalf("columns of line_items: %v (%v)", cols, err)
	}
	return cols
}

// pagesVersusSelect reads f both ways, every column of the table as Null,
// Int64 and Bytes (and one column past the end), and fails on the first
// difference. It returns the rows read and how many of them pageScan read
// through SQL.
func pagesVersusSelect(t *testing.T, db *DB, f Filter) (rows, slow int) {
	t.Helper()
	ctx := context.Background()
	cols := tableColumns(t, db)
	show := func(r Row) string { return showRow(r, cols) }
	where, args := f.where()
	order := " ORDER BY li.id"
	if f.Descending {
		order += " DESC"
	}
	var want []string
	q := "SELECT li." + strings.Join(cols, ", li.") + " FROM line_items li" + where + order
	if err := db.scan(ctx, q, args, func(r Row) error {
		want = append(want, show(r))
		return nil
	}, false); err != nil {
		t.Fatal(err)
	}
	p, err := db.openPages(ctx, f, cols)
	if err != nil || p == nil {
		t.Fatalf("%+v: not read from pages (%v)", f, err)
	}
	defer p.c.close()
	var got []string
	if err := p.scan(ctx, f, func(r Row) error {
		got = append(got, show(r))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := range max(len(got), len(want)) {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Fatalf("%+v, row %d of %d/%d:\npages  %s\nselect %s", f, i, len(got), len(want), g, w)
		}
	}
	return len(want), p.slow
}

// pageTestItems are n line items over two months, three providers and
// kinds, with NULL amounts and times on some; every 500th has a 40 KB
// description (a payload over three overflow pages of 16 KiB) and, with
// rawBytes, items have source cells of a quarter to twice that size (on 4
// KiB pages the row key, the table's last column, then lies in an
// overflow page, and the page holds either of the two sizes of a payload's
// first part that the file format defines).
func pageTestItems(n, rawBytes int) []LineItem {
	start := time.Date(2026, 10, 3, 6, 0, 0, 0, time.UTC)
	items := make([]LineItem, n)
	for i := range items {
		li := LineItem{Item: Item{Provider: []string{"aliyun", "autodl", "tencent"}[i%3],
			BillingAccountID: "acct", BillingPeriod: "2026-10",
			ChargePeriodStart: start.Add(time.Duration(i%97) * time.Hour), ChargeCategory: CategoryUsage,
			Kind:         []string{KindCompute, KindStorage, KindNetwork}[i%3*i%2],
			PricingModel: "on_demand", ResourceID: fmt.Sprintf("i-%d", i%41), GPUModel: "A10",
			GPUCount: i % 3, Currency: "CNY", BilledCost: decimal.New(int64(i%13)-3, -2),
			Description: fmt.Sprintf("说明 %d", i%5), RowKey: fmt.Sprintf("k%d", i),
			SourceRow: i + 1}, Raw: []string{strings.Repeat("x", rawBytes*(1+i%9)/4)}}
		li.ChargePeriodEnd = li.ChargePeriodStart.Add(time.Hour)
		if i%4 != 0 {
			li.PricingQuantity, li.ListUnitPrice = nd(fmt.Sprint(i%9)), nd("12.34567891")
			li.UsageStart, li.UsageEnd = li.ChargePeriodStart.Add(time.Minute), li.ChargePeriodEnd
		}
		if i%500 == 7 {
			li.Description = strings.Repeat("长", 40<<10/3)
		}
		if i%2 == 1 && i > n/2 { // the second half interleaves two months
			li.BillingPeriod = "2026-11"
			li.ChargePeriodStart, li.ChargePeriodEnd = li.ChargePeriodStart.AddDate(0, 1, 0), li.ChargePeriodEnd.AddDate(0, 1, 0)
		}
		items[i] = li
	}
	return items
}

// pageTestFilters are the filters the tests read both ways.
func pageTestFilters(importID int64) []Filter {
	edge := time.Date(2026, 10, 4, 0, 0, 0, 0, time.UTC)
	return []Filter{{}, {Month: "2026-10"}, {Month: "2026-11", Kinds: []string{KindCompute}},
		{Providers: []string{"autodl", "aliyun"}}, {ImportID: importID}, {ImportID: importID + 1},
		{StartsBefore: edge}, {Month: "2026-10", StartsBefore: edge, Descending: true},
		{IDMin: 100, IDMax: 900}, {IDMin: 100, IDMax: 900, Descending: true}, {IDMin: 1990}, {Descending: true},
		{Month: "2026-12"}}
}

// TestPageScanIsSelect: reading line_items from its pages gives the rows,
// in the order, and the values (as Null, Int64 and Bytes) that a SELECT
// with the same conditions gives: on 16 KiB pages with payloads spread
// over overflow pages and rows still in the WAL; on 4 KiB pages in a
// three-level tree whose rows keep their last columns in overflow pages;
// with values that are not their column's type (a blob, a real, text in
// an integer column: read by id); and with records shorter than the
// table (columns added later hold their defaults). LoadLineItems loads
// the same items both ways.
func TestPageScanIsSelect(t *testing.T) {
	ctx := context.Background()

	t.Run("16KiB pages, odd values, WAL", func(t *testing.T) {
		db := openTest(t)
		importItems(t, db, pageTestItems(3000, 10))
		// Values SQLite keeps with their own type, whatever the column's.
		for _, set := range []string{"gpu_count = 'abc'", "gpu_count = 1.5", "description = x'00ff41'",
			"billed_cost = 2.5", "source_row = '12x'", "usage_end = NULL", "provider = x'6175746f646c'", "gpu_count = 9223372036854775807",
			"gpu_count = -129", "gpu_count = 0", "gpu_count = 1", "gpu_count = 70000"} {
			if _, err := db.SQL().ExecContext(ctx, "UPDATE line_items SET "+set+" WHERE id = (SELECT min(id) + ? FROM line_items)",
				len(set)*7); err != nil {
				t.Fatal(err)
			}
		}
		if st, err := os.Stat(db.path + "-wal"); err != nil || st.Size() == 0 {
			t.Fatalf("the updates are not in the WAL (%v)", err)
		}
		var imp int64
		db.SQL().QueryRowContext(ctx, "SELECT id FROM imports").Scan(&imp)
		slow := 0
		for _, f := range pageTestFilters(imp) {
			_, s := pagesVersusSelect(t, db, f)
			slow += s
		}
		if slow == 0 {
			t.Error("no row was read through SQL")
		}
		lookupVersusSelect(t, db)
		loadBothWays(t, db, Filter{Month: "2026-10"})
		scanBothWays(t, db, Filter{Month: "2026-11", Descending: true}, "li.id, li.provider, li.gpu_count, li.description, li.billed_cost")
	})

	t.Run("4KiB pages, three levels", func(t *testing.T) {
		db := openWithPageSize(t, 4096)
		importItems(t, db, pageTestItems(2000, 5000))
		// Payloads of sizes 41 bytes apart over two overflow pages' worth:
		// every 100-byte window of the remainders that decide how much of a
		// payload its leaf holds.
		tx, err := db.SQL().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for j := range 200 {
			n := 3000 + 41*j
			if _, err := tx.ExecContext(ctx, "UPDATE line_items SET description = substr(hex(zeroblob(?)), 1, ?) WHERE id = ?", n, n, 1+9*j); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		var depth int
		if err := db.SQL().QueryRowContext(ctx, `SELECT max(length(path) - length(replace(path, '/', ''))) FROM dbstat WHERE name = 'line_items'`).Scan(&depth); err != nil {
			t.Fatal(err)
		}
		if depth < 2 {
			t.Fatalf("the table's tree has %d levels below its root, want 2 or more", depth)
		}
		var imp int64
		db.SQL().QueryRowContext(ctx, "SELECT id FROM imports").Scan(&imp)
		for _, f := range pageTestFilters(imp) {
			if _, slow := pagesVersusSelect(t, db, f); slow != 0 {
				t.Errorf("%+v: %d rows read through SQL, want none", f, slow)
			}
		}
		lookupVersusSelect(t, db)
		loadBothWays(t, db, Filter{Month: "2026-11"})
	})

	t.Run("short records", func(t *testing.T) {
		// line_items without its last three columns, then rows, then the
		// columns added: the records written before are shorter than the
		// table.
		path := filepath.Join(t.TempDir(), "short.db")
		sdb, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer sdb.Close()
		schema, err := migrationFS.ReadFile("migrations/0001_init.sql")
		if err != nil {
			t.Fatal(err)
		}
		create := regexp.MustCompile(`(?s)CREATE TABLE line_items \(.*?\n\);`).FindString(string(schema))
		create = regexp.MustCompile(`--[^\n]*`).ReplaceAllString(create, "")
		cut := strings.Index(create, "    import_id")
		if create == "" || cut < 0 {
			t.Fatal("no CREATE TABLE line_items in the first migration")
		}
		create = strings.TrimRight(create[:cut], " \n,") + "\n);"
		if _, err := sdb.Exec(create); err != nil {
			t.Fatal(err)
		}
		insert := func(n, from int) {
			for i := range n {
				if _, err := sdb.Exec(`INSERT INTO line_items(provider, billing_period, charge_period_start, charge_period_end,
					charge_category, kind, billed_cost, currency) VALUES (?, ?, '2026-10-03 06:00:00', '2026-10-03 07:00:00', 'Usage', ?, ?, 'CNY')`,
					[]string{"autodl", "aliyun"}[i%2], []string{"2026-10", "2026-11"}[i%3/2], []string{KindCompute, KindStorage}[i%2],
					fmt.Sprint(from+i)); err != nil {
					t.Fatal(err)
				}
			}
		}
		insert(40, 0)
		for _, add := range []string{"import_id INTEGER NOT NULL DEFAULT 7", "source_row INTEGER NOT NULL DEFAULT 0",
			"row_key TEXT NOT NULL DEFAULT 'old'"} {
			if _, err := sdb.Exec("ALTER TABLE line_items ADD COLUMN " + add); err != nil {
				t.Fatal(err)
			}
		}
		insert(40, 40)
		if _, err := sdb.Exec("UPDATE line_items SET import_id = 8, row_key = 'new' || id WHERE id > 40"); err != nil {
			t.Fatal(err)
		}
		db := &DB{path: path}
		slow := 0
		for _, f := range []Filter{{}, {ImportID: 7}, {ImportID: 8, Descending: true}, {Month: "2026-11"}, {IDMin: 30, IDMax: 50}} {
			_, s := pagesVersusSelect(t, db, f)
			slow += s
		}
		if slow == 0 {
			t.Error("no short record was read through SQL")
		}
		lookupVersusSelect(t, db)
	})

	t.Run("UTF-16 is read through SQL", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "utf16.db")
		sdb, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer sdb.Close()
		if _, err := sdb.Exec("PRAGMA encoding = 'UTF-16le'; CREATE TABLE line_items(id INTEGER PRIMARY KEY, provider TEXT)"); err != nil {
			t.Fatal(err)
		}
		db := &DB{path: path}
		if used, err := db.pageScan(ctx, Filter{}, []string{"id", "provider"}, func(Row) error { return nil }); used || err != nil {
			t.Errorf("a UTF-16 ledger read from its pages: %v, %v", used, err)
		}
	})
}

// loadBothWays checks that LoadLineItems loads the same items from the
// pages as through the SELECT.
func loadBothWays(t *testing.T, db *DB, f Filter) {
	t.Helper()
	ctx := context.Background()
	defer func() { usePages = true }()
	var loaded [2][]*Item
	for i, pages := range []bool{true, false} {
		usePages = pages
		before := pageScans.Load()
		defer func() {
			if read := pageScans.Load() > before; read != pages {
				t.Errorf("LoadLineItems with usePages %v: read from pages %v", pages, read)
			}
		}()
		var err error
		if loaded[i], err = db.LoadLineItems(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if len(loaded[0]) == 0 || len(loaded[0]) != len(loaded[1]) {
		t.Fatalf("%+v: %d items from the pages, %d through SQL", f, len(loaded[0]), len(loaded[1]))
	}
	for i := range loaded[0] {
		if !reflect.DeepEqual(*loaded[0][i], *loaded[1][i]) {
			t.Fatalf("%+v, item %d:\npages  %+v\nselect %+v", f, i, *loaded[0][i], *loaded[1][i])
		}
	}
}

// FuzzPageCells: any bytes as a table leaf or interior page of a ledger
// end in rows or an error, never a panic: the cells, their records and
// every value of a record read as NULL, integer and text.
func FuzzPageCells(f *testing.F) {
	// Small pages made of real records of a ledger (a 16 KiB page makes
	// each minimization of the fuzzer take minutes), and an interior page.
	db := openTest(f)
	importItems(f, db, pageTestItems(40, 10))
	p, err := db.openPages(context.Background(), Filter{}, []string{"id"})
	if err != nil || p == nil {
		f.Fatalf("not read from pages (%v)", err)
	}
	var records [][]byte
	if err := p.scan(context.Background(), Filter{IDMax: 3}, func(Row) error {
		records = append(records, append([]byte(nil), p.rec.data...))
		return nil
	}); err != nil || len(records) != 3 {
		f.Fatalf("%d records (%v)", len(records), err)
	}
	p.c.close()
	leaf := testPage(0x0d, 2048, records...)
	var back [][]byte
	if err := leafCells(leaf, 0, 2048, false, func(id int64, rest []byte, size int) error {
		back = append(back, rest[:size])
		return nil
	}); err != nil || !reflect.DeepEqual(back, records) {
		f.Fatalf("the seed page holds %d records, not the 3 put in (%v)", len(back), err)
	}
	f.Add(leaf, uint16(2000))
	f.Add(testPage(0x0d, 1024, records[:1]...), uint16(1024))
	f.Add(testPage(0x05, 512, []byte{0, 0, 0, 9, 5}, []byte{0, 0, 0, 7, 0x81, 0}), uint16(512))
	f.Add([]byte{0x0d, 0, 0, 0, 1, 0, 0, 0, 0, 12, 3, 1, 2, 0, 0x13}, uint16(512))
	f.Fuzz(func(t *testing.T, page []byte, usable uint16) {
		cols := make([]pageCol, 12)
		for i := range cols {
			cols[i] = pageCol{cid: i - 1, class: i % 2}
		}
		rec := &record{sel: cols, last: 10}
		if len(page) > 0 && page[0] == 0x05 {
			interiorChildren(page, 0, int(usable), 3, 900)
			return
		}
		leafCells(page, 0, int(usable), usable%2 == 0, func(id int64, rest []byte, size int) error {
			if localPayload(size, max(int(usable), 480)) != size || size > len(rest) {
				return nil
			}
			if plain, err := rec.decode(id, rest[:size]); err != nil || !plain {
				return nil
			}
			for i := range len(cols) + 1 {
				rec.nullAt(i)
				rec.int64At(i)
				rec.bytesAt(i)
			}
			return nil
		})
	})
}

// testPage is a B-tree page of size bytes of the given type holding cells:
// for a leaf (0x0d), records, each made a cell with its size and an id
// from 1; for an interior page (0x05), the cells as they are.
func testPage(typ byte, size int, cells ...[]byte) []byte {
	b := make([]byte, size)
	hdr := 8
	if typ == 0x05 {
		hdr = 12
		binary.BigEndian.PutUint32(b[8:], 3) // the right-most child
	}
	b[0] = typ
	binary.BigEndian.PutUint16(b[3:], uint16(len(cells)))
	end := size
	for i, c := range cells {
		if typ == 0x0d {
			c = append(appendVarint(appendVarint(nil, uint64(len(c))), uint64(i+1)), c...)
		}
		end -= len(c)
		copy(b[end:], c)
		binary.BigEndian.PutUint16(b[hdr+2*i:], uint16(end))
	}
	binary.BigEndian.PutUint16(b[5:], uint16(end))
	return b
}

// appendVarint appends v as a SQLite varint of up to 8 bytes (v < 2^56).
func appendVarint(b []byte, v uint64) []byte {
	var groups []byte
	for {
		groups = append(groups, byte(v&0x7f))
		if v >>= 7; v == 0 {
			break
		}
	}
	for i := len(groups) - 1; i > 0; i-- {
		b = append(b, groups[i]|0x80)
	}
	return append(b, groups[0])
}

// scanBothWays checks that ScanLineItems reads the same rows and values
// from the pages as through the SELECT, in each range in the same order.
func scanBothWays(t *testing.T, db *DB, f Filter, cols string) {
	t.Helper()
	defer func() { usePages = true }()
	var rows [2][]string
	for i, pages := range []bool{true, false} {
		usePages = pages
		before := pageScans.Load()
		defer func() {
			if read := pageScans.Load() > before; read != pages {
				t.Errorf("ScanLineItems with usePages %v: read from pages %v", pages, read)
			}
		}()
		var parts [][]string
		if _, err := db.ScanLineItems(context.Background(), f, cols, func(int) func(Row) error {
			parts = append(parts, nil)
			p := len(parts) - 1
			return func(r Row) error {
				parts[p] = append(parts[p], fmt.Sprintf("%d %q %d %q %q", r.Int64(0), r.Bytes(1), r.Int64(2), r.Bytes(3), r.Bytes(4)))
				return nil
			}
		}); err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			rows[i] = append(rows[i], p...)
		}
	}
	if len(rows[0]) == 0 || !reflect.DeepEqual(rows[0], rows[1]) {
		t.Fatalf("ScanLineItems %+v: %d rows from the pages, %d through SQL, or they differ", f, len(rows[0]), len(rows[1]))
	}
}

func TestColumnNames(t *testing.T) {
	for cols, want := range map[string][]string{
		"li.id, li.provider,li.row_key": {"id", "provider", "row_key"},
		"li.id, count(*)":               nil,
		"id":                            nil,
		"li.id, li.":                    nil,
		"li.Provider":                   nil,
	} {
		got, ok := columnNames(cols)
		if ok != (want != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("columnNames(%q) = %q, %v; want %q", cols, got, ok, want)
		}
	}
}

// A leaf page of line_items overwritten on disk: pageScan reports a
// malformed page, naming it, and does not panic; LoadLineItems fails (here
// SQLite's own reads find the page first), and other reads still work.
func TestPageScanCorruptLeaf(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	importItems(t, db, pageTestItems(2000, 10))
	var leaf, size int64
	if err := db.SQL().QueryRowContext(ctx, `SELECT pageno, pgsize FROM dbstat WHERE name = 'line_items' AND pagetype = 'leaf'
		ORDER BY pageno LIMIT 1 OFFSET 3`).Scan(&leaf, &size); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Cell count and pointers beyond the page.
	if _, err := f.WriteAt([]byte{0x0d, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0xff, 0xff, 0xff, 0xff}, (leaf-1)*size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if db, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	used, err := db.pageScan(ctx, Filter{}, []string{"id", "provider"}, func(Row) error { return nil })
	if !used || !errors.Is(err, errCorruptPage) || !strings.Contains(err.Error(), fmt.Sprintf("page %d", leaf)) {
		t.Errorf("pageScan of a ledger with a broken leaf: %v, %v; want a malformed page %d", used, err, leaf)
	}
	if _, err := db.LoadLineItems(ctx, Filter{Month: "2026-10"}); err == nil {
		t.Error("LoadLineItems of a ledger with a broken leaf: no error")
	}
	if _, err := db.Imports(ctx, 0); err != nil {
		t.Errorf("the imports after a failed load: %v", err)
	}
}

// BenchmarkLoadLineItems loads a month from the table's pages and through
// the SELECT (GPUBILL_BENCH_ROWS items, default 100,000, as
// pageTestItems makes them), alternating, and reports items a second:
//
//	go test ./ledger -run '^$' -bench LoadLineItems
func BenchmarkLoadLineItems(b *testing.B) {
	n := 100_000
	if s := os.Getenv("GPUBILL_BENCH_ROWS"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 {
			b.Fatalf("GPUBILL_BENCH_ROWS=%q: want a positive number", s)
		}
	}
	db := openTest(b)
	items := pageTestItems(n, 10)
	for i := range items { // one month, the way most ledgers hold it
		items[i].BillingPeriod = "2026-10"
	}
	importItems(b, db, items)
	defer func() { usePages = true }()
	for _, c := range []struct {
		name  string
		pages bool
	}{{"pages", true}, {"select", false}} {
		b.Run(c.name, func(b *testing.B) {
			usePages = c.pages
			for b.Loop() {
				got, err := db.LoadLineItems(context.Background(), Filter{Month: "2026-10"})
				if err != nil || len(got) != n {
					b.Fatalf("%d items (%v), want %d", len(got), err, n)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
}

// Random bytes of the table's pages overwritten, 300 times over: pageScan
// reads rows or reports an error, never panics, and never takes long (a
// child pointer back up the tree is caught, not walked again).
func TestPageScanSurvivesCorruption(t *testing.T) {
	ctx := context.Background()
	db := openWithPageSize(t, 4096)
	importItems(t, db, pageTestItems(400, 3000))
	var pages []int64
	if err := db.Scan(ctx, "SELECT pageno FROM dbstat WHERE name = 'line_items'", nil, func(r Row) error {
		pages = append(pages, r.Int64(0))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	clean, err := os.ReadFile(db.path)
	if err != nil || len(pages) < 100 {
		t.Fatalf("%d pages of line_items (%v)", len(pages), err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	path := filepath.Join(t.TempDir(), "broken.db")
	broken := &DB{path: path}
	cols := []string{"id", "provider", "gpu_count", "billed_cost", "row_key"}
	failed := 0
	for trial := range 300 {
		b := slices.Clone(clean)
		for range 1 + rng.IntN(8) {
			pg := pages[rng.IntN(len(pages))]
			off := (pg-1)*4096 + int64(rng.IntN(64)) // the page's header and first pointers
			if rng.IntN(3) == 0 {
				off = (pg-1)*4096 + int64(rng.IntN(4096))
			}
			b[off] = byte(rng.IntN(256))
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Remove(path + "-wal")
		os.Remove(path + "-shm")
		start := time.Now()
		n := 0
		used, err := broken.pageScan(ctx, Filter{}, cols, func(r Row) error {
			n++
			r.Bytes(4)
			return nil
		})
		if !used && err == nil {
			t.Fatalf("trial %d: not read from pages", trial)
		}
		if err != nil {
			failed++
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("trial %d: %v for %d rows (%v)", trial, d, n, err)
		}
	}
	if failed == 0 {
		t.Error("no trial found its page broken")
	}
	t.Logf("%d of 300 trials reported a malformed page", failed)
}

// An interior page whose right-most child points back to the root: the
// walk stops at the page it reached twice, and hands no row twice.
func TestPageScanTreeCycle(t *testing.T) {
	ctx := context.Background()
	db := openWithPageSize(t, 4096)
	importItems(t, db, pageTestItems(400, 3000))
	var root int64
	if err := db.SQL().QueryRowContext(ctx, "SELECT rootpage FROM sqlite_schema WHERE name = 'line_items'").Scan(&root); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(db.path)
	if err != nil {
		t.Fatal(err)
	}
	page := b[(root-1)*4096 : root*4096]
	if page[0] != 0x05 {
		t.Fatalf("the root of line_items is a page of type %d, not an interior page", page[0])
	}
	binary.BigEndian.PutUint32(page[8:], uint32(root))
	path := filepath.Join(t.TempDir(), "cycle.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	used, err := (&DB{path: path}).pageScan(ctx, Filter{}, []string{"id"}, func(r Row) error {
		id := r.Int64(0)
		if seen[id] {
			return fmt.Errorf("row %d handed twice", id)
		}
		seen[id] = true
		return nil
	})
	if !used || !errors.Is(err, errCorruptPage) || !strings.Contains(err.Error(), fmt.Sprintf("page %d: reached twice", root)) {
		t.Errorf("a tree whose root is its own child: %v, %v; want page %d reached twice", used, err, root)
	}
	used, err = (&DB{path: path}).pageLookup(ctx, []int64{1, 399, 400, 1 << 40}, []string{"id"}, func(Row) error { return nil })
	if !used || !errors.Is(err, errCorruptPage) || !strings.Contains(err.Error(), fmt.Sprintf("page %d: reached twice", root)) {
		t.Errorf("a look-up in a tree whose root is its own child: %v, %v; want page %d reached twice", used, err, root)
	}
}

// TestLoadRefused: with Filter.Refused, a load hands over every row the
// other conditions select that StartsBefore refuses, and only those (as a
// SELECT with NOT the condition finds them), while it loads the same
// items as without: from the pages and through SQL, in several readers
// (each its own part), and for refused rows that are not plain (read by
// their id).
func TestLoadRefused(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	importItems(t, db, pageTestItems(3000, 10))
	edge := time.Date(2026, 10, 3, 12, 0, 0, 0, time.UTC)
	edgeText := FormatTime(edge)
	// A blob in some refused rows: not plain, read by id.
	if _, err := db.SQL().ExecContext(ctx, `UPDATE line_items SET description = x'00ff41' WHERE id IN
		(SELECT id FROM line_items WHERE charge_period_start >= ? AND ifnull(usage_start >= ?, 1) AND billing_period = '2026-10'
		AND kind = 'compute' LIMIT 7)`, edgeText, edgeText); err != nil {
		t.Fatal(err)
	}
	defer func(old int64) { loadPartMin = old }(loadPartMin)
	loadPartMin = 400
	defer func() { usePages = true }()
	key := func(r ...[]byte) string { return fmt.Sprintf("%q", r) }
	mostParts := 0
	for _, f := range []Filter{{Month: "2026-10"}, {Kinds: []string{KindCompute}}, {Month: "2026-11", Providers: []string{"autodl"}}} {
		var want []string
		where, args := f.where()
		if where == "" {
			where = " WHERE "
		} else {
			where += " AND "
		}
		err := db.Scan(ctx, "SELECT provider, resource_id, billing_account_id, charge_category, billed_cost FROM line_items li"+where+
			"NOT (charge_period_start < ? OR ifnull(usage_start < ?, 0))", append(args, edgeText, edgeText), func(r Row) error {
			want = append(want, key(r.Bytes(0), r.Bytes(1), r.Bytes(2), r.Bytes(3), r.Bytes(4)))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		f.StartsBefore = edge
		usePages = true
		plain, err := db.LoadLineItems(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, pages := range []bool{true, false} {
			usePages = pages
			var mu sync.Mutex
			var got []string
			partSeen := map[int]bool{}
			g := f
			g.Refused = func(part int) func(RefusedRow) error {
				if partSeen[part] {
					t.Errorf("part %d asked for twice", part)
				}
				partSeen[part] = true
				return func(r RefusedRow) error {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, key(r.Provider, r.ResourceID, r.BillingAccountID, r.ChargeCategory, r.BilledCost))
					return nil
				}
			}
			items, err := db.LoadLineItems(ctx, g)
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != len(plain) {
				t.Fatalf("%+v, pages %v: %d items with Refused, %d without", f, pages, len(items), len(plain))
			}
			for i := range items {
				if !reflect.DeepEqual(*items[i], *plain[i]) {
					t.Fatalf("%+v, pages %v, item %d: %+v, without Refused %+v", f, pages, i, *items[i], *plain[i])
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if len(want) < 100 || len(partSeen) == 0 || !slices.Equal(got, want) {
				t.Fatalf("%+v, pages %v: %d parts, %d refused rows, want %d", f, pages, len(partSeen), len(got), len(want))
			}
			mostParts = max(mostParts, len(partSeen))
		}
	}
	if mostParts < 2 {
		t.Errorf("every load read in one part")
	}
}

// BenchmarkRecordDecode decodes the headers of 1,000 records of a ledger's
// line items, as pageScan does for each row it reads.
//
//	go test ./ledger -run '^$' -bench RecordDecode
func BenchmarkRecordDecode(b *testing.B) {
	db := openTest(b)
	importItems(b, db, pageTestItems(1000, 10))
	p, err := db.openPages(context.Background(), Filter{}, loadColumnNames)
	if err != nil || p == nil {
		b.Fatalf("not read from pages (%v)", err)
	}
	var records [][]byte
	if err := p.scan(context.Background(), Filter{}, func(Row) error {
		records = append(records, append([]byte(nil), p.rec.data...))
		return nil
	}); err != nil || len(records) != 1000 {
		b.Fatalf("%d records (%v)", len(records), err)
	}
	p.c.close()
	rec := p.rec
	for b.Loop() {
		for i, r := range records {
			if plain, err := rec.decode(int64(i), r); !plain || err != nil {
				b.Fatalf("record %d: plain %v, %v", i, plain, err)
			}
		}
	}
}

// lookupVersusSelect looks up sets of ids in db's line_items both ways,
// from the pages (pageLookup) and by a SELECT of the same ids, every column
// as Null, Int64 and Bytes, and fails on the first difference: every id,
// every seventh, runs of neighbours, random ids, ids the table does not
// hold (before its first, past its last) and the largest id there is. It also
// checks that BilledCosts, which looks up from the pages, gives what a
// SELECT gives.
func lookupVersusSelect(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	cols := tableColumns(t, db)
	var all []int64
	if err := db.scan(ctx, "SELECT id FROM line_items ORDER BY id", nil, func(r Row) error {
		all = append(all, r.Int64(0))
		return nil
	}, false); err != nil || len(all) < 40 {
		t.Fatalf("ids: %d (%v)", len(all), err)
	}
	last := all[len(all)-1]
	rng := rand.New(rand.NewPCG(7, uint64(len(all))))
	sets := [][]int64{all, {all[0]}, {last}, {-5, 0, last + 1, last + 1000, math.MaxInt64}, {0, all[3], last + 1, math.MaxInt64}}
	var sparse, runs []int64
	for i, id := range all {
		if i%7 == 3 {
			sparse = append(sparse, id)
		}
		if i%100 < 5 {
			runs = append(runs, id)
		}
	}
	sets = append(sets, sparse, runs)
	var random []int64
	for range 300 {
		random = append(random, all[0]-2+rng.Int64N(last-all[0]+5))
	}
	slices.Sort(random)
	sets = append(sets, slices.Compact(random))
	for _, ids := range sets {
		in := make([]string, len(ids))
		for i, id := range ids {
			in[i] = fmt.Sprint(id)
		}
		var want, got []string
		q := "SELECT li." + strings.Join(cols, ", li.") + " FROM line_items li WHERE li.id IN (" + strings.Join(in, ",") + ") ORDER BY li.id"
		if err := db.scan(ctx, q, nil, func(r Row) error { want = append(want, showRow(r, cols)); return nil }, false); err != nil {
			t.Fatal(err)
		}
		before := pageLookups.Load()
		used, err := db.pageLookup(ctx, ids, cols, func(r Row) error { got = append(got, showRow(r, cols)); return nil })
		if !used || err != nil || pageLookups.Load() != before+1 {
			t.Fatalf("%d ids: not looked up from the pages: %v, %v", len(ids), used, err)
		}
		if !slices.Equal(got, want) {
			for i := range max(len(got), len(want)) {
				if i >= len(got) || i >= len(want) || got[i] != want[i] {
					t.Fatalf("%d ids (%v…), row %d of %d/%d differs:\npages  %s\nselect %s", len(ids), ids[:min(len(ids), 5)],
						i, len(got), len(want), at(got, i), at(want, i))
				}
			}
		}
		costs, err := db.BilledCosts(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		wantCosts := map[int64]string{}
		if err := db.scan(ctx, "SELECT id, billed_cost FROM line_items WHERE id IN ("+strings.Join(in, ",")+")", nil, func(r Row) error {
			d, err := r.Decimal(1)
			wantCosts[r.Int64(0)] = fmt.Sprint(d)
			return err
		}, false); err != nil {
			t.Fatal(err)
		}
		for i, id := range ids {
			if w, ok := wantCosts[id]; ok != costs[i].Valid || (ok && fmt.Sprint(costs[i]) != w) {
				t.Fatalf("billed cost of %d: %v, want %q (held: %v)", id, costs[i], w, ok)
			}
		}
	}
	if _, err := db.pageLookup(ctx, []int64{3, 2}, cols, func(Row) error { return nil }); err == nil {
		t.Error("ids out of order: no error")
	}
}

// showRow is every column of r as Null, Int64 and Bytes, and one past them.
func showRow(r Row, cols []string) string {
	var b strings.Builder
	for i := range len(cols) + 1 {
		fmt.Fprintf(&b, "%s=%v/%d/%q ", append(cols, "past")[i], r.Null(i), r.Int64(i), r.Bytes(i))
	}
	return b.String()
}

func at(rows []string, i int) string {
	if i < len(rows) {
		return rows[i]
	}
	return "(none)"
}

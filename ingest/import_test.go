package ingest

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

// TestImportBadAmountRollsBack: a bad amount in the 6th data row (physical
// line 7, the header being line 1) refuses the whole file, names FILE:7: and
// the column, and leaves the ledger as it was.
func TestImportBadAmountRollsBack(t *testing.T) {
	ctx := context.Background()
	db := testkit.OpenLedger(t)
	path := filepath.Join("testdata", "gpubill-bill", "bad_amount.csv")
	res, err := ImportFile(ctx, db, path, Options{TZ: shanghai})
	if err == nil {
		t.Fatalf("import succeeded: %+v", res)
	}
	for _, want := range []string{path + ":7:", "应付金额", `"12,3O"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if got := countRows(t, db, "line_items"); got != 0 {
		t.Errorf("line_items = %d after a refused file, want 0", got)
	}
	if got := countRows(t, db, "imports"); got != 0 {
		t.Errorf("imports = %d after a refused file, want 0", got)
	}
	if res.Status != StatusFailed || res.New != 0 {
		t.Errorf("result status %q new %d, want failed and 0", res.Status, res.New)
	}
}

// TestImportRollbackKeepsEarlierImports: a refused file removes only its own
// rows, not those of earlier imports.
func TestImportRollbackKeepsEarlierImports(t *testing.T) {
	ctx := context.Background()
	db := testkit.OpenLedger(t)
	if _, err := ImportFile(ctx, db, filepath.Join("testdata", "gpubill-bill", "bill_en.csv"), Options{TZ: shanghai}); err != nil {
		t.Fatal(err)
	}
	before := countRows(t, db, "line_items")
	if _, err := ImportFile(ctx, db, filepath.Join("testdata", "gpubill-bill", "bad_amount.csv"), Options{TZ: shanghai}); err == nil {
		t.Fatal("bad file imported")
	}
	if got := countRows(t, db, "line_items"); got != before {
		t.Errorf("line_items = %d, want %d (the earlier import)", got, before)
	}
	if got := countRows(t, db, "imports"); got != 1 {
		t.Errorf("imports = %d, want 1", got)
	}
}

// billVariants renders testdata/gpubill-bill/bill_zh.csv in every encoding
// and container the importer reads.
func billVariants(t *testing.T) map[string][]byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "gpubill-bill", "bill_zh.csv"))
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(src))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	gbk, err := simplifiedchinese.GBK.NewEncoder().Bytes(src)
	if err != nil {
		t.Fatal(err)
	}
	var tsv bytes.Buffer
	w := csv.NewWriter(&tsv)
	w.Comma = '\t'
	w.UseCRLF = true // as Excel writes "Unicode text"
	if err := w.WriteAll(recs); err != nil {
		t.Fatal(err)
	}
	utf16, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes(tsv.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"utf8.csv":      src,
		"utf8bom.csv":   append([]byte("\xEF\xBB\xBF"), src...),
		"gbk.csv":       gbk,
		"utf16le.txt":   utf16,
		"workbook.xlsx": billXLSX(t, recs),
	}
}

// billXLSX writes the records as an XLSX workbook the way Excel would hold
// them: an explanation sheet first (to be ignored), amounts and quantities as
// numbers, the charge times as Excel serial dates.
func billXLSX(t *testing.T, recs [][]string) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", "说明"); err != nil {
		t.Fatal(err)
	}
	f.SetCellValue("说明", "A1", "列")
	f.SetCellValue("说明", "B1", "含义")
	f.SetCellValue("说明", "A2", "应付金额")
	if _, err := f.NewSheet("费用明细"); err != nil {
		t.Fatal(err)
	}
	header := recs[1]
	col := func(name string) int {
		for i, h := range header {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	numeric := map[int]bool{col("计费数量"): true, col("单价"): true, col("原价"): true, col("代金券"): true,
		col("现金支付"): true, col("GPU数量"): true}
	serial := map[int]bool{col("开始时间"): true, col("结束时间"): true}
	for ri, rec := range recs {
		if emptyRecord(rec) {
			continue // Excel writes no row element for an empty row
		}
		for ci, cell := range rec {
			if cell == "" {
				continue
			}
			ref, _ := excelize.CoordinatesToCellName(ci+1, ri+1)
			var v any = cell
			if ri > 1 && numeric[ci] {
				d, err := ParseAmount(cell)
				if err != nil || !d.Valid {
					t.Fatalf("cell %s %q: %v", ref, cell, err)
				}
				v = d.Decimal.InexactFloat64() // Excel keeps numbers as doubles
			}
			if ri > 1 && serial[ci] {
				if tm, err := ParseTime(cell, shanghai); err == nil && !strings.Contains(cell, "+") {
					wall := tm.In(shanghai)
					days := time.Date(wall.Year(), wall.Month(), wall.Day(), 0, 0, 0, 0, time.UTC).Sub(time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)).Hours() / 24
					secs := wall.Hour()*3600 + wall.Minute()*60 + wall.Second()
					v = days + float64(secs)/86400
				}
			}
			if err := f.SetCellValue("费用明细", ref, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// comparable strips what legitimately differs between two imports of the
// same bill: ids, import id, file path, and (for XLSX, which holds numbers
// and serial dates) the raw cells.
func comparable(li ledger.LineItem, keepRaw bool) ledger.LineItem {
	li.ID, li.ImportID, li.File = 0, 0, ""
	if !keepRaw {
		li.Raw = nil
	}
	return li
}

// TestSameBillEveryEncoding: the same bill as UTF-8, UTF-8 with BOM, GBK,
// UTF-16LE tab-separated text and XLSX imports to identical line items, and
// once one of them is in the ledger the others add nothing.
func TestSameBillEveryEncoding(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	variants := billVariants(t)
	wantEnc := map[string]string{"utf8.csv": EncUTF8, "utf8bom.csv": EncUTF8BOM, "gbk.csv": EncGB18030,
		"utf16le.txt": EncUTF16LE, "workbook.xlsx": "xlsx"}
	names := []string{"utf8.csv", "utf8bom.csv", "gbk.csv", "utf16le.txt", "workbook.xlsx"}
	var want []ledger.LineItem
	for _, name := range names {
		path := writeTemp(t, dir, name, variants[name])
		db := testkit.OpenLedger(t)
		res, err := ImportFile(ctx, db, path, Options{TZ: shanghai})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Encoding != wantEnc[name] {
			t.Errorf("%s: encoding %q, want %q", name, res.Encoding, wantEnc[name])
		}
		if res.New != 8 || res.Skipped != 2 || res.Read != 10 {
			t.Errorf("%s: read/new/skipped = %d/%d/%d, want 10/8/2", name, res.Read, res.New, res.Skipped)
		}
		got := storedItems(t, db)
		if want == nil {
			want = got
			continue
		}
		keepRaw := name != "workbook.xlsx"
		if len(got) != len(want) {
			t.Fatalf("%s: %d line items, want %d", name, len(got), len(want))
		}
		for i := range got {
			g, w := comparable(got[i], keepRaw), comparable(want[i], keepRaw)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s: line item %d differs from the UTF-8 import\ngot:  %+v\nwant: %+v", name, i+1, g, w)
			}
		}
	}
	// Dedupe across encodings and containers: one ledger, five files.
	db := testkit.OpenLedger(t)
	for i, name := range names {
		res, err := ImportFile(ctx, db, filepath.Join(dir, name), Options{TZ: shanghai})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wantNew := 0
		if i == 0 {
			wantNew = 8
		}
		if res.New != wantNew || res.Duplicate != 8-wantNew {
			t.Errorf("%s imported after %v: new/duplicate = %d/%d, want %d/%d", name, names[:i], res.New, res.Duplicate, wantNew, 8-wantNew)
		}
	}
	if got := countRows(t, db, "line_items"); got != 8 {
		t.Errorf("line_items = %d, want 8", got)
	}
}

// TestOverlappingExport: importing rows 1–10 and then rows 1–20 of the same
// bill adds exactly 10 the second time; importing rows 1–20 again adds none.
func TestOverlappingExport(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var buf bytes.Buffer
	if err := WriteSampleTemplateCSV(&buf, 20, 42); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(buf.String(), "\n")
	first := writeTemp(t, dir, "nov1-15.csv", []byte(strings.Join(lines[:11], "")))
	all := writeTemp(t, dir, "nov1-30.csv", buf.Bytes())
	db := testkit.OpenLedger(t)
	for _, step := range []struct {
		path         string
		new, dup     int
		totalStored  int
		descriptions string
	}{
		{first, 10, 0, 10, "rows 1-10"},
		{all, 10, 10, 20, "rows 1-20 after 1-10"},
		{all, 0, 20, 20, "rows 1-20 again"},
	} {
		res, err := ImportFile(ctx, db, step.path, Options{TZ: shanghai})
		if err != nil {
			t.Fatal(err)
		}
		if res.New != step.new || res.Duplicate != step.dup {
			t.Errorf("%s: new/duplicate = %d/%d, want %d/%d", step.descriptions, res.New, res.Duplicate, step.new, step.dup)
		}
		if got := countRows(t, db, "line_items"); got != step.totalStored {
			t.Errorf("%s: line_items = %d, want %d", step.descriptions, got, step.totalStored)
		}
	}
}

// TestIdenticalRowsStayTwo: two identical charges in one file are two line
// items (the duplicate-charge rule judges them); importing the file again
// adds neither.
func TestIdenticalRowsStayTwo(t *testing.T) {
	ctx := context.Background()
	row := "AutoDL,c1,GPU计算,2026-10-03 14:00,2026-10-03 15:00,1.88\n"
	path := writeTemp(t, t.TempDir(), "twice.csv", []byte("平台,实例ID,费用类型,开始时间,结束时间,应付金额\n"+row+row))
	db := testkit.OpenLedger(t)
	for i, want := range []int{2, 0} {
		res, err := ImportFile(ctx, db, path, Options{TZ: shanghai})
		if err != nil {
			t.Fatal(err)
		}
		if res.New != want {
			t.Errorf("import %d: new = %d, want %d", i+1, res.New, want)
		}
	}
	items := storedItems(t, db)
	if len(items) != 2 || items[0].RowKey == items[1].RowKey ||
		!strings.HasSuffix(items[0].RowKey, "#1") || !strings.HasSuffix(items[1].RowKey, "#2") {
		t.Errorf("row keys %v, want two keys ending in #1 and #2", rowKeys(items))
	}
}

func rowKeys(items []ledger.LineItem) []string {
	var out []string
	for _, li := range items {
		out = append(out, li.RowKey)
	}
	return out
}

// TestBrokenFiles: damaged or foreign input gives a clear error, no panic,
// and stores nothing.
func TestBrokenFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := billVariants(t)["workbook.xlsx"]
	random := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated.xlsx", good[:len(good)/2], "not a readable XLSX workbook"},
		{"random.bin", random, "binary data"},
		{"empty.csv", nil, "empty file"},
		{"legacy.xls", []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0, 0}, "Excel 97-2003"},
		{"scan.pdf", []byte("%PDF-1.7\n..."), "PDF"},
		{"notes.txt", []byte("just some notes\nnothing to bill\n"), "no known bill format recognised"},
		{"blank.csv", []byte("\n\n\n"), "no known bill format recognised"},
		{"zip.zip", []byte("PK\x03\x04garbage"), "not a readable XLSX workbook"},
		{"gbk-garbage.csv", []byte{0xff, 0xfe, 0xfd, 0x81, 0x30, '\n'}, "no known bill format recognised"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTemp(t, dir, tc.name, tc.data)
			db := testkit.OpenLedger(t)
			res, err := ImportFile(ctx, db, path, Options{TZ: shanghai})
			if err == nil {
				t.Fatalf("import succeeded: %+v", res)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), path) {
				t.Errorf("error %q, want it to start with the path and contain %q", err, tc.want)
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Errorf("error is %T, want *InputError", err)
			}
			if n := countRows(t, db, "line_items") + countRows(t, db, "imports"); n != 0 {
				t.Errorf("%d rows stored, want 0", n)
			}
		})
	}
}

// TestHeaderOnly: a recognised header without rows is a valid, empty import.
func TestHeaderOnly(t *testing.T) {
	path := writeTemp(t, t.TempDir(), "h.csv", []byte("provider,kind,start,end,billed_cost\n"))
	db := testkit.OpenLedger(t)
	res, err := ImportFile(context.Background(), db, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Read != 0 || res.New != 0 || res.Tables != 1 || countRows(t, db, "imports") != 1 {
		t.Errorf("result %+v, imports %d; want 0 rows, 1 table, 1 import", res, countRows(t, db, "imports"))
	}
}

// TestDryRun: a dry run reports exact counts and stores nothing.
func TestDryRun(t *testing.T) {
	ctx := context.Background()
	db := testkit.OpenLedger(t)
	path := filepath.Join("testdata", "gpubill-bill", "bill_zh.csv")
	res, err := ImportFile(ctx, db, path, Options{TZ: shanghai, DryRun: true, Preview: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusDryRun || res.Read != 10 || res.New != 8 || res.Duplicate != 0 || res.Skipped != 2 {
		t.Errorf("dry run = %+v, want dry-run with read 10, new 8, skipped 2", summarize(res))
	}
	if len(res.Preview) != 3 || res.Preview[0].ResourceID != "c7b24f3a9e" || res.Preview[2].Provider != "gpushare" {
		t.Errorf("preview = %d items %v, want the first 3 rows", len(res.Preview), res.Preview)
	}
	// under a title line and the header
	if fmt.Sprint(res.PreviewAt) != "[3 4 5]" {
		t.Errorf("preview at lines %v, want [3 4 5]", res.PreviewAt)
	}
	if n := countRows(t, db, "line_items") + countRows(t, db, "imports"); n != 0 {
		t.Errorf("dry run stored %d rows, want 0", n)
	}
	if _, err := ImportFile(ctx, db, path, Options{TZ: shanghai}); err != nil {
		t.Fatal(err)
	}
	res, err = ImportFile(ctx, db, path, Options{TZ: shanghai, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.New != 0 || res.Duplicate != 8 {
		t.Errorf("dry run after import: new/duplicate = %d/%d, want 0/8", res.New, res.Duplicate)
	}
	if got := countRows(t, db, "imports"); got != 1 {
		t.Errorf("imports = %d, want 1", got)
	}
}

// TestWorkbookSheets: an XLSX with bill lines, money flow and an explanation
// sheet imports the two data sheets (serial dates included) and ignores the
// third; an error names the sheet and cell.
func TestWorkbookSheets(t *testing.T) {
	ctx := context.Background()
	build := func(flowAmount any) []byte {
		f := excelize.NewFile()
		defer f.Close()
		f.SetSheetName("Sheet1", "费用明细")
		f.SetSheetRow("费用明细", "A1", &[]any{"平台", "实例ID", "费用类型", "开始时间", "结束时间", "应付金额"})
		f.SetSheetRow("费用明细", "A2", &[]any{"AutoDL", "c1", "GPU计算", 46298.5, 46298.541666666664, 1.88})
		f.SetSheetRow("费用明细", "A3", &[]any{"AutoDL", "c1", "GPU计算", "2026-10-03 13:00", "2026-10-03 14:00", "1.88"})
		f.NewSheet("收支明细")
		f.SetSheetRow("收支明细", "A1", &[]any{"平台", "时间", "类型", "金额", "余额"})
		f.SetSheetRow("收支明细", "A2", &[]any{"AutoDL", "2026-10-01 09:00", "充值", 100, 100})
		f.SetSheetRow("收支明细", "A3", &[]any{"AutoDL", 46298.5, "消费", flowAmount, 98.12})
		f.NewSheet("说明")
		f.SetSheetRow("说明", "A1", &[]any{"表", "列", "含义"})
		f.SetSheetRow("说明", "A2", &[]any{"费用明细", "平台", "平台名称"})
		var buf bytes.Buffer
		if err := f.Write(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	dir := t.TempDir()
	path := writeTemp(t, dir, "book.xlsx", build(1.88))
	db := testkit.OpenLedger(t)
	res, err := ImportFile(ctx, db, path, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tables != 2 || res.Format != "gpubill-bill,gpubill-flow" || res.New != 4 {
		t.Errorf("result %+v, want 2 tables (bill, flow) and 4 new rows", summarize(res))
	}
	items := storedItems(t, db)
	if len(items) != 2 || !items[0].ChargePeriodStart.Equal(time.Date(2026, 10, 3, 4, 0, 0, 0, time.UTC)) ||
		!items[0].ChargePeriodEnd.Equal(time.Date(2026, 10, 3, 5, 0, 0, 0, time.UTC)) {
		t.Errorf("items %v, want the serial date 46298.5 read as 2026-10-03 12:00 Beijing time", items)
	}
	var sheets []string
	rows, err := db.SQL().Query(`SELECT sheet FROM imports ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		sheets = append(sheets, s)
	}
	rows.Close()
	if !reflect.DeepEqual(sheets, []string{"费用明细", "收支明细"}) {
		t.Errorf("imported sheets %v, want [费用明细 收支明细]", sheets)
	}

	res, err = ImportFile(ctx, db, path, Options{TZ: shanghai, DryRun: true, Preview: 5})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.PreviewAt, res.PreviewTxAt) != "[费用明细!2 费用明细!3] [收支明细!2 收支明细!3]" {
		t.Errorf("dry run previews at %v and %v, want each sheet's rows 2 and 3", res.PreviewAt, res.PreviewTxAt)
	}

	bad := writeTemp(t, dir, "bad.xlsx", build("12,3O"))
	db2 := testkit.OpenLedger(t)
	_, err = ImportFile(ctx, db2, bad, Options{TZ: shanghai})
	want := bad + `: 收支明细!D3: column 金额: "12,3O" is not an amount`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	if n := countRows(t, db2, "line_items") + countRows(t, db2, "transactions") + countRows(t, db2, "imports"); n != 0 {
		t.Errorf("a refused workbook stored %d rows (the good first sheet included), want 0", n)
	}
}

// TestFOCUSSample is the acceptance test of the FOCUS importer on the FinOps
// Foundation's real sample: 1,000 line items, per-provider sums of BilledCost
// exactly equal to the file's own, and a second import adds nothing.
func TestFOCUSSample(t *testing.T) {
	// ../shared/external/focus-sample/ seen from the repository root.
	path := filepath.Join("..", "..", "shared", "external", "focus-sample", "focus_sample.csv")
	if _, err := os.Stat(path); err != nil {
		t.Skip("FOCUS sample absent (../shared/external/focus-sample/focus_sample.csv): skipping the acceptance test")
	}
	// The file's own sums, computed independently from the raw CSV.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	want := map[string]decimal.Decimal{}
	wantRows, g5Rows := 0, 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		d, err := decimal.NewFromString(rec[col["BilledCost"]])
		if err != nil {
			t.Fatal(err)
		}
		p := strings.ToLower(rec[col["ProviderName"]])
		want[p] = want[p].Add(d)
		wantRows++
		if strings.Contains(rec[col["ChargeDescription"]], "g5.4xlarge") {
			g5Rows++
		}
	}

	ctx := context.Background()
	db := testkit.OpenLedger(t)
	res, err := ImportFile(ctx, db, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if wantRows != 1000 || res.New != 1000 || res.Read != 1000 || countRows(t, db, "line_items") != 1000 {
		t.Fatalf("file rows %d, imported new %d read %d, stored %d; want 1000 each", wantRows, res.New, res.Read, countRows(t, db, "line_items"))
	}
	rows, err := db.SQL().Query(`SELECT provider, dsum(billed_cost) FROM line_items GROUP BY provider ORDER BY provider`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]decimal.Decimal{}
	for rows.Next() {
		var p, s string
		if err := rows.Scan(&p, &s); err != nil {
			t.Fatal(err)
		}
		got[p] = decimal.RequireFromString(s)
	}
	rows.Close()
	if len(got) != 3 || len(want) != 3 {
		t.Errorf("providers %v, want aws, microsoft, oracle", got)
	}
	for p, w := range want {
		if g, ok := got[p]; !ok || !g.Equal(w) {
			t.Errorf("provider %s: dsum(billed_cost) = %s, want %s (the file's own sum)", p, g, w)
		}
	}
	var periods, g5 int
	db.SQL().QueryRow(`SELECT count(*) FROM line_items WHERE billing_period = '2024-10'`).Scan(&periods)
	db.SQL().QueryRow(`SELECT count(*) FROM line_items WHERE gpu_model = 'A10G'`).Scan(&g5)
	if periods != 1 {
		t.Errorf("rows billed in 2024-10 = %d, want 1 (the Oracle row)", periods)
	}
	if g5 != g5Rows || g5 == 0 {
		t.Errorf("rows with gpu_model A10G = %d, want %d (g5.4xlarge)", g5, g5Rows)
	}
	res, err = ImportFile(ctx, db, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.New != 0 || res.Duplicate != 1000 || countRows(t, db, "line_items") != 1000 {
		t.Errorf("second import: new/duplicate = %d/%d, stored %d; want 0/1000, 1000", res.New, res.Duplicate, countRows(t, db, "line_items"))
	}
}

// TestImportPaths: folders are walked in name order, hidden files skipped, a
// refused file does not stop the others.
func TestImportPaths(t *testing.T) {
	dir := t.TempDir()
	bill, _ := os.ReadFile(filepath.Join("testdata", "gpubill-bill", "bill_en.csv"))
	flow, _ := os.ReadFile(filepath.Join("testdata", "gpubill-flow", "flow.csv"))
	os.MkdirAll(filepath.Join(dir, "b", "nested"), 0o700)
	os.MkdirAll(filepath.Join(dir, ".git"), 0o700)
	writeTemp(t, dir, "b/nested/flow.csv", flow)
	writeTemp(t, dir, "a-bill.csv", bill)
	writeTemp(t, dir, "b/readme.txt", []byte("hello\n"))
	writeTemp(t, dir, ".hidden.csv", []byte("garbage\x00\x01"))
	writeTemp(t, dir, ".git/config", []byte("[core]\n"))
	db := testkit.OpenLedger(t)
	results, err := ImportPaths(context.Background(), db, []string{dir, filepath.Join(dir, "missing.csv")}, Options{TZ: shanghai})
	if err == nil {
		t.Error("ImportPaths returned no error though two paths failed")
	}
	var got []string
	for _, r := range results {
		rel, _ := filepath.Rel(dir, r.Path)
		got = append(got, rel+"="+r.Status)
	}
	want := []string{"a-bill.csv=ok", "b/nested/flow.csv=ok", "b/readme.txt=failed", "missing.csv=failed"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("results %v, want %v", got, want)
	}
	if n := countRows(t, db, "line_items"); n != 4 {
		t.Errorf("line_items = %d, want 4", n)
	}
	if n := countRows(t, db, "transactions"); n != 6 {
		t.Errorf("transactions = %d, want 6", n)
	}
}

// TestProviderOverride: --provider fills empty platform cells, and a FOCUS
// file without ProviderName needs it.
func TestProviderOverride(t *testing.T) {
	dir := t.TempDir()
	tmpl := writeTemp(t, dir, "t.csv", []byte("平台,实例ID,费用类型,开始时间,结束时间,应付金额\n,c1,GPU计算,2026-10-03 14:00,2026-10-03 15:00,1\n"))
	focus := writeTemp(t, dir, "f.csv", []byte("BilledCost,ChargePeriodStart,ChargePeriodEnd,ServiceName,BillingCurrency\n1.5,2024-09-01T00:00:00Z,2024-09-01T01:00:00Z,Compute Engine,USD\n"))
	for _, tc := range []struct {
		path, provider, want, wantErr string
	}{
		{tmpl, "", "", "t.csv:2:1: column 平台: required value is empty (or pass --provider)"},
		{tmpl, "恒源云", "gpushare", ""},
		{focus, "", "", "f.csv:2: the file has no ProviderName column: pass --provider"},
		{focus, "Google Cloud", "google cloud", ""},
	} {
		db := testkit.OpenLedger(t)
		res, err := ImportFile(context.Background(), db, tc.path, Options{Provider: tc.provider, TZ: shanghai})
		if tc.wantErr != "" {
			if err == nil || !strings.HasSuffix(err.Error(), tc.wantErr) {
				t.Errorf("%s with --provider %q: error %v, want one ending in %q", tc.path, tc.provider, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s with --provider %q: %v", tc.path, tc.provider, err)
			continue
		}
		if res.Provider != tc.want {
			t.Errorf("%s with --provider %q: provider %q, want %q", tc.path, tc.provider, res.Provider, tc.want)
		}
	}
}

// TestRowKeysPastTheOccurrenceMap: with the occurrence map full, identical
// rows are numbered through the on-disk counter exactly as the map numbers
// them, and an overlapping file still adds only its new rows.
func TestRowKeysPastTheOccurrenceMap(t *testing.T) {
	ctx := context.Background()
	var rows []string
	for i := 0; i < 12; i++ {
		rows = append(rows, fmt.Sprintf("AutoDL,c%d,GPU计算,2026-10-03 14:00,2026-10-03 15:00,1.88\n", i%5))
	}
	const header = "平台,实例ID,费用类型,开始时间,结束时间,应付金额\n"
	dir := t.TempDir()
	half := writeTemp(t, dir, "half.csv", []byte(header+strings.Join(rows[:7], "")))
	all := writeTemp(t, dir, "all.csv", []byte(header+strings.Join(rows, "")))

	keysOf := func(cap int) []string {
		old := seenCap
		seenCap = cap
		defer func() { seenCap = old }()
		db := testkit.OpenLedger(t)
		for i, step := range []struct {
			path     string
			new, dup int
		}{{half, 7, 0}, {all, 5, 7}, {all, 0, 12}} {
			res, err := ImportFile(ctx, db, step.path, Options{TZ: shanghai})
			if err != nil {
				t.Fatal(err)
			}
			if res.New != step.new || res.Duplicate != step.dup {
				t.Errorf("cap %d, import %d: new/duplicate = %d/%d, want %d/%d", cap, i+1, res.New, res.Duplicate, step.new, step.dup)
			}
		}
		return rowKeys(storedItems(t, db))
	}
	inMemory, spilled := keysOf(1<<20), keysOf(2)
	if strings.Join(inMemory, ",") != strings.Join(spilled, ",") {
		t.Errorf("keys through the counter %v, want those of the map %v", spilled, inMemory)
	}
	if !strings.HasSuffix(spilled[len(spilled)-1], "#3") {
		t.Errorf("last key %s, want the third occurrence (#3)", spilled[len(spilled)-1])
	}
}

// TestProgressCounts: an import with a Progress counts its records and the
// bytes it read, and marks a workbook as one.
func TestProgressCounts(t *testing.T) {
	ctx := context.Background()
	var buf bytes.Buffer
	if err := WriteSampleTemplateCSV(&buf, 300, 5); err != nil {
		t.Fatal(err)
	}
	path := writeTemp(t, t.TempDir(), "bill.csv", buf.Bytes())
	p := &Progress{}
	res, err := ImportFile(ctx, testkit.OpenLedger(t), path, Options{TZ: shanghai, Progress: p})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Snapshot()
	if s.File != path || s.Size != int64(buf.Len()) || s.Read != s.Size || s.Rows != int64(res.Read) || s.Workbook || s.Elapsed <= 0 {
		t.Errorf("progress %+v after importing %d bytes and %d records of %s", s, buf.Len(), res.Read, path)
	}
	if res.Read != 300 {
		t.Errorf("read %d records, want 300", res.Read)
	}
	book := writeTemp(t, t.TempDir(), "workbook.xlsx", billVariants(t)["workbook.xlsx"])
	wres, err := ImportFile(ctx, testkit.OpenLedger(t), book, Options{TZ: shanghai, Progress: p})
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Snapshot(); !s.Workbook || s.File != book || s.Rows != int64(300+wres.Read) {
		t.Errorf("progress %+v after a workbook of %d records, want it marked as a workbook and %d rows in all", s, wres.Read, 300+wres.Read)
	}
	var nilProgress *Progress
	if s := nilProgress.Snapshot(); s != (ProgressSnapshot{}) {
		t.Errorf("a nil Progress reads %+v", s)
	}
}

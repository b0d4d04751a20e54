package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

// TestRowOf: an import records what turns a line item's record number
// into the row a person sees in Excel or LibreOffice: the header's row
// (after a title row), and the records after a quoted multi-line cell or a
// blank line that the CSV reader skips. Each line item's description names
// the row it is on in the file.
func TestRowOf(t *testing.T) {
	dir := t.TempDir()
	csvText := "AutoDL 账单导出 2026-10\n" + // row 1: a title
		"平台,实例ID,费用类型,开始时间,结束时间,应付金额,说明\n" + // row 2: the header
		"autodl,i-1,GPU计算,2026-10-01 10:00,2026-10-01 11:00,1.88,row3\n" +
		"autodl,i-1,GPU计算,2026-10-01 11:00,2026-10-01 12:00,1.88,\"row4\nsecond line\"\n" +
		"autodl,i-1,GPU计算,2026-10-01 12:00,2026-10-01 13:00,1.88,row6\n" +
		"\n" +
		"autodl,i-1,GPU计算,2026-10-01 13:00,2026-10-01 14:00,1.88,row8\n" +
		"autodl,i-1,GPU计算,2026-10-01 14:00,2026-10-01 15:00,1.88,row9\n"
	csvPath := filepath.Join(dir, "autodl.csv")
	if err := os.WriteFile(csvPath, []byte(csvText), 0o644); err != nil {
		t.Fatal(err)
	}
	f := excelize.NewFile()
	if err := f.SetSheetName("Sheet1", "账单"); err != nil {
		t.Fatal(err)
	}
	rows := [][]any{
		{"恒源云 账单"}, {}, // rows 1–2: a title, a blank row
		{"平台", "实例ID", "费用类型", "开始时间", "结束时间", "应付金额", "说明"}, // row 3
		{"gpushare", "h-1", "GPU计算", "2026-10-02 10:00", "2026-10-02 11:00", "2.20", "账单!4"},
		{},
		{"gpushare", "h-1", "GPU计算", "2026-10-02 11:00", "2026-10-02 12:00", "2.20", "账单!6"},
	}
	for i, r := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if len(r) > 0 {
			if err := f.SetSheetRow("账单", cell, &r); err != nil {
				t.Fatal(err)
			}
		}
	}
	xlsxPath := filepath.Join(dir, "gpushare.xlsx")
	if err := f.SaveAs(xlsxPath); err != nil {
		t.Fatal(err)
	}
	db := testkit.OpenLedger(t)
	ctx := context.Background()
	if _, err := ImportPaths(ctx, db, []string{csvPath, xlsxPath}, Options{TZ: ledger.DefaultTZ()}); err != nil {
		t.Fatal(err)
	}
	imps, err := db.Imports(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]*ledger.Import{}
	for i := range imps {
		byID[imps[i].ID] = &imps[i]
	}
	items, err := testkit.LineItems(ctx, db, ledger.Filter{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"row3": "3", "row4\nsecond line": "4", "row6": "6", "row8": "8", "row9": "9",
		"账单!4": "账单!4", "账单!6": "账单!6"}
	if len(items) != len(want) {
		t.Fatalf("got %d line items, want %d", len(items), len(want))
	}
	for _, li := range items {
		im := byID[li.ImportID]
		row, ok := im.RowOf(li.SourceRow)
		if !ok {
			t.Errorf("%q: no row mapping recorded", li.Description)
			continue
		}
		got := strconv.Itoa(row)
		if im.Sheet != "" {
			got = im.Sheet + "!" + got
		}
		if got != want[li.Description] {
			t.Errorf("%q (record %d): cited as row %s, want %s", li.Description, li.SourceRow, got, want[li.Description])
		}
	}
	// An import made before the mapping was recorded is cited by record.
	old := ledger.Import{HeaderRow: 2}
	if _, ok := old.RowOf(1); ok {
		t.Error("an import without a recorded mapping gave a row")
	}
}

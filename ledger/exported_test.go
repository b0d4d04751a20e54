package ledger

import "testing"

func TestExportedSource(t *testing.T) {
	header := []string{"BilledCost", SourceFileColumn, SourceSheetColumn, SourceRowColumn, SourceFormatColumn}
	old := []string{"BilledCost", SourceFileColumn, SourceRowColumn} // an export made before sheet and format
	for _, tc := range []struct {
		name   string
		header []string
		raw    []string
		want   Source
		ok     bool
	}{
		{"vendor row", header, []string{"1.5", "/bills/autodl.csv", "", "7", "autodl-bill"}, Source{"/bills/autodl.csv", "", 7, "autodl-bill"}, true},
		{"workbook row", header, []string{"1.5", "matpool.xlsx", " 费用明细 ", " 12 ", "matpool-bill"}, Source{"matpool.xlsx", "费用明细", 12, "matpool-bill"}, true},
		{"older export", old, []string{"1.5", "/bills/autodl.csv", "7"}, Source{File: "/bills/autodl.csv", Row: 7}, true},
		{"no such columns", []string{"BilledCost", "ResourceId"}, []string{"1.5", "/bills/autodl.csv"}, Source{}, false},
		{"blank file", header, []string{"1.5", "", "", "7", "autodl-bill"}, Source{}, false},
		{"blank row", header, []string{"1.5", "/bills/autodl.csv", "", "", "autodl-bill"}, Source{}, false},
		{"row not a number", header, []string{"1.5", "/bills/autodl.csv", "", "7.5", ""}, Source{}, false},
		{"row zero", header, []string{"1.5", "/bills/autodl.csv", "", "0", ""}, Source{}, false},
		{"short raw", header, []string{"1.5", "/bills/autodl.csv"}, Source{}, false},
		{"fetched lines", header, []string{"1.5", "api:tencentcloud/DescribeBillDetail?month=2026-10", "", "3", "tencentcloud-api"}, Source{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ExportedSource(tc.header, tc.raw)
			if got != tc.want || ok != tc.ok {
				t.Errorf("got %+v, %v, want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
	if !ExportedHeader(header) || !ExportedHeader(old) || ExportedHeader(header[:2]) {
		t.Error("ExportedHeader: wrong answer")
	}
}

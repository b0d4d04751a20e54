package ledger

import "testing"

func TestExportedSource(t *testing.T) {
	header := []string{"BilledCost", SourceFileColumn, SourceRowColumn}
	for _, tc := range []struct {
		name   string
		header []string
		raw    []string
		file   string
		row    int
		ok     bool
	}{
		{"vendor row", header, []string{"1.5", "/bills/autodl.csv", "7"}, "/bills/autodl.csv", 7, true},
		{"workbook row", header, []string{"1.5", "matpool.xlsx", " 12 "}, "matpool.xlsx", 12, true},
		{"no such columns", []string{"BilledCost", "ResourceId"}, []string{"1.5", "/bills/autodl.csv"}, "", 0, false},
		{"blank file", header, []string{"1.5", "", "7"}, "", 0, false},
		{"blank row", header, []string{"1.5", "/bills/autodl.csv", ""}, "", 0, false},
		{"row not a number", header, []string{"1.5", "/bills/autodl.csv", "7.5"}, "", 0, false},
		{"row zero", header, []string{"1.5", "/bills/autodl.csv", "0"}, "", 0, false},
		{"short raw", header, []string{"1.5", "/bills/autodl.csv"}, "", 0, false},
		{"fetched lines", header, []string{"1.5", "api:tencentcloud/DescribeBillDetail?month=2026-10", "3"}, "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, row, ok := ExportedSource(tc.header, tc.raw)
			if file != tc.file || row != tc.row || ok != tc.ok {
				t.Errorf("got %q, %d, %v, want %q, %d, %v", file, row, ok, tc.file, tc.row, tc.ok)
			}
		})
	}
}

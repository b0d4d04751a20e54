package export

import (
	"slices"
	"testing"
)

func TestLineSource(t *testing.T) {
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
			got, ok := LineSource(tc.header, tc.raw)
			if got != tc.want || ok != tc.ok {
				t.Errorf("got %+v, %v, want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
	if !HasSources(header) || !HasSources(old) || HasSources(header[:2]) {
		t.Error("HasSources: wrong answer")
	}
}

func TestSourceIDs(t *testing.T) {
	vendor := []string{"时间", "交易ID", "金额", "订单号/交易号", "实例ID"}
	ids := IDColumnsOf(vendor).Row([]string{"2026-10-01", " T9 ", "1.00", ""}) // the row lacks its last cell
	want := []ID{{"交易ID", " T9 "}, {"订单号/交易号", ""}, {"实例ID", ""}}
	if !slices.Equal(ids, want) {
		t.Fatalf("Row = %v, want %v", ids, want)
	}
	text := idsText(ids)
	if text != `{"交易ID":" T9 ","订单号/交易号":"","实例ID":""}` {
		t.Errorf("idsText = %s", text)
	}
	exported := []string{"BilledCost", SourceFileColumn, SourceIDsColumn}
	if len(IDColumnsOf(vendor).cols) != 3 || len(IDColumnsOf(exported).cols) != 1 || len(IDColumnsOf([]string{"BilledCost", "x_SourceRow"}).cols) != 0 {
		t.Error("IDColumnsOf: wrong columns")
	}
	// An export of a ledger that imported an export carries the first ids.
	if got := IDColumnsOf(exported).Row([]string{"1.00", "a.csv", text}); !slices.Equal(got, want) {
		t.Errorf("Row of an exported line = %v, want %v", got, want)
	}
	if got := idsText(IDColumnsOf([]string{"BilledCost"}).Row([]string{"1"})); got != "" {
		t.Errorf("no ids: %q", got)
	}
	for _, cell := range []string{"", " ", "{", `{"a":1}`, `["a"]`, `{"a":"b"} x`, `{"a":"b"`, "null"} {
		if got := IDColumnsOf(exported).Row([]string{"1", "a.csv", cell}); got != nil {
			t.Errorf("Row with x_SourceIds %q = %v; want none", cell, got)
		}
	}
	if got := IDColumnsOf(exported).Row([]string{"1", "a.csv"}); got != nil {
		t.Errorf("Row of a line without its x_SourceIds cell = %v; want none", got)
	}
	// A header without the column names its ids by its own columns: a cell
	// is not read as JSON.
	if got := IDColumnsOf(vendor).Row([]string{"x", `{"交易ID":"T9"}`}); !slices.Equal(got, []ID{{"交易ID", `{"交易ID":"T9"}`}, {"订单号/交易号", ""}, {"实例ID", ""}}) {
		t.Errorf("Row of a vendor line = %v", got)
	}
}

// FuzzSourceIDs reads any x_SourceIds cell without panicking, and what it
// reads writes back as a cell that reads the same.
func FuzzSourceIDs(f *testing.F) {
	f.Add(`{"交易ID":"T9","订单号":""}`)
	f.Add(`{"a":"\u0000"}`)
	f.Add(`{}`)
	cols := IDColumnsOf([]string{SourceIDsColumn})
	f.Fuzz(func(t *testing.T, cell string) {
		ids := cols.Row([]string{cell})
		if len(ids) == 0 {
			return
		}
		again := cols.Row([]string{idsText(ids)})
		if !slices.Equal(again, ids) {
			t.Errorf("%q: read %v, written and read again %v", cell, ids, again)
		}
	})
}

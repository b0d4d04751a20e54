package ledger

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gpubill/gpubill/money"
	"github.com/shopspring/decimal"
)

// The renderers of LineItemRows must write exactly what the plain functions
// (and encoding/json) write: stored rows and dedupe keys depend on it.

func TestAppendTimeIsFormatTime(t *testing.T) {
	sh := time.FixedZone("CST", 8*3600)
	for _, tm := range []time.Time{
		time.Date(2026, 10, 1, 0, 0, 0, 0, sh),
		time.Date(2026, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 2, 29, 7, 5, 3, 0, time.FixedZone("", -5*3600)),
	} {
		if got, want := string(AppendTime([]byte("x"), tm)), "x"+FormatTime(tm); got != want {
			t.Errorf("AppendTime(%v) = %q, want %q", tm, got, want)
		}
	}
}

func TestAppendJSONStringsIsJSONMarshal(t *testing.T) {
	for _, cells := range [][]string{
		nil, {}, {""}, {"autodl", "RTX 4090", "2.20"}, {"恒源云", "数据盘 50GB"},
		{`a"b`, `c\d`, "<script>&", "tab\there", "nl\n", "\x00", "bad \xff utf8", "sep \u2028 \u2029", "emoji 🚀"},
	} {
		want, _ := json.Marshal(append([]string{}, cells...))
		if got := appendJSONStrings(nil, cells); string(got) != string(want) {
			t.Errorf("appendJSONStrings(%q) = %s, want %s", cells, got, want)
		}
	}
}

func FuzzAppendJSONStrings(f *testing.F) {
	f.Add("plain", "恒源云 <&>")
	f.Add("\xff\xfe", "\u2028\"\\")
	f.Fuzz(func(t *testing.T, a, b string) {
		cells := []string{a, b}
		want, _ := json.Marshal(cells)
		if got := appendJSONStrings(nil, cells); string(got) != string(want) {
			t.Errorf("appendJSONStrings(%q) = %s, want %s", cells, got, want)
		}
	})
}

// TestLineItemRowsKeepTheirTexts fills a batch and checks
// every stored text against the item it came from.
func TestLineItemRowsKeepTheirTexts(t *testing.T) {
	var rows LineItemRows
	var items []LineItem
	for i := 0; i < 5000; i++ {
		li := item("r"+decimal.NewFromInt(int64(i)).String(), decimal.New(int64(i)*7, -3).String())
		li.Raw = []string{li.ResourceID, "某个很长的描述 " + li.ResourceID, "x"}
		li.UsageStart = li.ChargePeriodStart.Add(time.Duration(i) * time.Second)
		items = append(items, li)
		rows.Append(&items[i])
	}
	for i, row := range rows.rows {
		li := &items[i]
		raw, _ := json.Marshal(li.Raw)
		if row.col(insertAt("resource_id")) != li.ResourceID || row.col(insertAt("billed_cost")) != money.String(li.BilledCost) ||
			row.col(insertAt("charge_period_start")) != FormatTime(li.ChargePeriodStart) ||
			row.col(insertAt("usage_start")) != FormatTime(li.UsageStart) ||
			row.col(insertAt("raw")) != string(raw) || row.null&(1<<insertAt("usage_end")) == 0 {
			t.Fatalf("row %d: %q", i, row.text)
		}
	}
}

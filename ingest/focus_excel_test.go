package ingest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/shopspring/decimal"
)

// TestFocusExcel: a FOCUS CSV saved by Excel is read, its $ amounts and
// M/D/YY times understood, with one warning per assumption; totals are
// the saved file's own.
func TestFocusExcel(t *testing.T) {
	db := testkit.OpenLedger(t)
	res, err := ImportFile(context.Background(), db, "testdata/focus/focus_excel.csv", Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "focus" || res.New != 4 {
		t.Fatalf("format %q, %d new; want focus, 4", res.Format, res.New)
	}
	var en []string
	for _, w := range res.Warnings {
		en = append(en, w.EN)
	}
	text := strings.Join(en, "\n")
	if len(res.Warnings) != 2 || !strings.Contains(text, `Excel's currency format (like "$10,100.00 ")`) ||
		!strings.Contains(text, "read as US month/day/year, a two-digit year as 20xx, UTC") {
		t.Errorf("warnings:\n%s\nwant one about amounts and one about dates", text)
	}
	total := decimal.Zero
	items := storedItems(t, db)
	for _, li := range items {
		total = total.Add(li.BilledCost)
	}
	if total.String() != "10097.3" {
		t.Errorf("total %s, want 10100.00 + 0.50 − 1.20 − 2.00 = 10097.30", total)
	}
	p4d := items[0]
	if !p4d.ChargePeriodStart.Equal(time.Date(2024, 10, 3, 8, 0, 0, 0, time.UTC)) || p4d.BillingPeriod != "2024-10" || p4d.GPUModel != "A100" {
		t.Errorf("p4d row: start %v period %s GPU %q", p4d.ChargePeriodStart, p4d.BillingPeriod, p4d.GPUModel)
	}
	pm := items[3]
	if !pm.ChargePeriodStart.Equal(time.Date(2024, 10, 31, 12, 0, 0, 0, time.UTC)) || !pm.ChargePeriodEnd.Equal(time.Date(2024, 10, 31, 23, 59, 0, 0, time.UTC)) {
		t.Errorf("PM row: %v – %v, want 12:00 – 23:59", pm.ChargePeriodStart, pm.ChargePeriodEnd)
	}
}

// TestExcelForms: what excelAmount and excelDate take and refuse.
func TestExcelForms(t *testing.T) {
	for in, want := range map[string]string{"$10,100.00 ": "10100", "($1.20)": "-1.2", "-$2.00": "-2", "$ 0.5": "0.5", "$-3": "-3"} {
		if d, ok := excelAmount(in); !ok || d.Decimal.String() != want {
			t.Errorf("excelAmount(%q) = %v, %v; want %s", in, d, ok, want)
		}
	}
	for _, in := range []string{"10.00", "€5", "$", "$1,23", "$1e3", "($-1)x"} {
		if d, ok := excelAmount(in); ok {
			t.Errorf("excelAmount(%q) = %v, want refused", in, d)
		}
	}
	for in, want := range map[string]time.Time{
		"10/1/24":          time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC),
		"10/1/2024 0:00":   time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC),
		"2/29/24 23:59:59": time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC),
		"1/2/24 12:30 AM":  time.Date(2024, 1, 2, 0, 30, 0, 0, time.UTC),
	} {
		if got, ok := excelDate(in); !ok || !got.Equal(want) {
			t.Errorf("excelDate(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"2/30/24", "13/1/24", "1/2/3", "1/2/24 25:00", "1/2/24 13:00 PM", "2024-10-01"} {
		if got, ok := excelDate(in); ok {
			t.Errorf("excelDate(%q) = %v, want refused", in, got)
		}
	}
}

// FuzzExcelForms: excelAmount and excelDate never panic, and what they
// accept is what they claim: an amount that ParseAmount gives back from
// its text, a date whose own M/D/YYYY text reads back to it.
func FuzzExcelForms(f *testing.F) {
	for _, s := range []string{"$10,100.00 ", "($1.20)", "-$2.00", "10/1/24 0:00", "10/31/24 12:00 PM", "2/29/24 23:59:59"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, ok := excelAmount(s); ok {
			back, err := ParseAmount(d.Decimal.String())
			if err != nil || !back.Decimal.Equal(d.Decimal) {
				t.Fatalf("excelAmount(%q) = %s, which does not read back", s, d.Decimal)
			}
		}
		if at, ok := excelDate(s); ok {
			again, ok2 := excelDate(at.Format("1/2/2006 15:04:05"))
			if !ok2 || !again.Equal(at) {
				t.Fatalf("excelDate(%q) = %v, which does not read back", s, at)
			}
		}
	})
}

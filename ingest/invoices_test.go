package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

// goldenInvoice is a stored invoice as the golden files show it.
type goldenInvoice struct {
	Provider    string   `json:"provider"`
	Number      string   `json:"number"`
	Date        string   `json:"date"`
	Amount      string   `json:"amount"`
	Currency    string   `json:"currency"`
	Title       string   `json:"title"`
	PeriodStart string   `json:"period_start"`
	PeriodEnd   string   `json:"period_end"`
	Note        string   `json:"note"`
	File        string   `json:"file"`
	Row         int      `json:"row"`
	Raw         []string `json:"raw"`
}

func storedInvoices(t *testing.T, db *ledger.DB) []goldenInvoice {
	t.Helper()
	invs, err := db.Invoices(context.Background(), ledger.InvoiceFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []goldenInvoice
	for _, x := range invs {
		out = append(out, goldenInvoice{x.Provider, x.Number, x.Date, money.String(x.Amount), x.Currency, x.Title,
			x.PeriodStart, x.PeriodEnd, x.Note, filepath.ToSlash(x.File), x.SourceRow, x.Raw})
	}
	return out
}

// TestInvoiceGolden imports every sample of testdata/gpubill-invoices: a
// good list must import and match name.invoices.golden (result and stored
// invoices), and importing it again adds nothing; a bad_* list must fail
// with the message in bad_*.err and store nothing.
func TestInvoiceGolden(t *testing.T) {
	dir := filepath.Join("testdata", InvoiceFormat.ID)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".csv" {
			continue
		}
		path := filepath.Join(dir, e.Name())
		base := strings.TrimSuffix(path, ".csv")
		t.Run(e.Name(), func(t *testing.T) {
			ctx := context.Background()
			db := testkit.OpenLedger(t)
			res, err := ImportInvoices(ctx, db, path, Options{TZ: shanghai})
			if strings.HasPrefix(e.Name(), "bad_") {
				var ie *InputError
				if !errors.As(err, &ie) {
					t.Fatalf("error %v (%T), want an *InputError", err, err)
				}
				testkit.Golden(t, base+".err", []byte(err.Error()+"\n"), *update)
				if n := countRows(t, db, "invoices") + countRows(t, db, "imports"); n != 0 {
					t.Errorf("a refused list left %d rows, want 0", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out := struct {
				Result   resultSummary   `json:"result"`
				Invoices []goldenInvoice `json:"invoices"`
			}{summarize(res), storedInvoices(t, db)}
			testkit.Golden(t, base+".invoices.golden", mustJSON(t, out), *update)
			again, err := ImportInvoices(ctx, db, path, Options{TZ: shanghai})
			if err != nil {
				t.Fatal(err)
			}
			if again.New != 0 || again.Duplicate != res.New {
				t.Errorf("second import: got new %d duplicate %d, want new 0 duplicate %d", again.New, again.Duplicate, res.New)
			}
		})
	}
}

// TestInvoiceImportRefusesABill: invoice import reads invoice lists only; a
// money-flow file is refused with the header it saw.
func TestInvoiceImportRefusesABill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flow.csv")
	if err := os.WriteFile(path, []byte("平台,时间,类型,金额\nAutoDL,2026-10-01,充值,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ImportInvoices(context.Background(), testkit.OpenLedger(t), path, Options{TZ: shanghai})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "no invoice list recognised") || !strings.Contains(err.Error(), "平台,时间,类型,金额") {
		t.Errorf("got %v, want an input error naming the header it saw", err)
	}
}

func TestInvoiceImportDryRunAndProvider(t *testing.T) {
	ctx := context.Background()
	db := testkit.OpenLedger(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "list.csv")
	if err := os.WriteFile(path, []byte("发票号码,开票日期,价税合计\n1,2026-11-03,9.90\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ImportInvoices(ctx, db, path, Options{TZ: shanghai}); err == nil {
		t.Error("a list without a provider column imported, want an error")
	}
	p := filepath.Join(dir, "list2.csv")
	if err := os.WriteFile(p, []byte("平台,发票号码,开票日期,价税合计\n,1,2026-11-03,9.90\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := ImportInvoices(ctx, db, p, Options{TZ: shanghai, Provider: "潞晨云", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusDryRun || res.New != 1 || res.Provider != "luchen" {
		t.Errorf("dry run: got %+v, want status dry-run, 1 new, provider luchen", res)
	}
	if n := countRows(t, db, "invoices"); n != 0 {
		t.Errorf("a dry run stored %d invoices, want 0", n)
	}
}

// TestInvoiceXLSX reads a workbook whose date is an Excel serial number
// and whose number is text, on the second sheet.
func TestInvoiceXLSX(t *testing.T) {
	f := excelize.NewFile()
	f.NewSheet("发票")
	rows := [][]any{{"平台", "发票号码", "开票日期", "价税合计", "所属月份"}, {"华为云", "26110000000000000123", 46329, 88.5, "2026-10"}}
	for i, r := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := f.SetSheetRow("发票", cell, &r); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "发票.xlsx")
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	db := testkit.OpenLedger(t)
	res, err := ImportInvoices(context.Background(), db, path, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	got := storedInvoices(t, db)
	if res.Tables != 1 || len(got) != 1 {
		t.Fatalf("got %d tables, %d invoices, want 1 and 1", res.Tables, len(got))
	}
	// 46329 is 2026-11-03 in Excel's 1900 date system.
	if g := got[0]; g.Provider != "huaweicloud" || g.Number != "26110000000000000123" || g.Date != "2026-11-03" ||
		g.Amount != "88.5" || g.PeriodStart != "2026-10" || g.Row != 1 {
		t.Errorf("got %+v, want huaweicloud 26110000000000000123 of 2026-11-03, 88.5, 2026-10, row 1", g)
	}
}

func TestParsePeriod(t *testing.T) {
	tests := []struct {
		name, in, start, end string
		ok                   bool
	}{
		{"month", "2026-10", "2026-10", "2026-10", true},
		{"slash", "2026/9", "2026-09", "2026-09", true},
		{"compact", "202610", "2026-10", "2026-10", true},
		{"chinese", "2026年10月", "2026-10", "2026-10", true},
		{"range dots", "2026-10..2026-11", "2026-10", "2026-11", true},
		{"range tilde spaced", "2026-12 ~ 2027-01", "2026-12", "2027-01", true},
		{"range 至", "2026年10月至2026年11月", "2026-10", "2026-11", true},
		{"range dash spaced", "2026-10 - 2026-11", "2026-10", "2026-11", true},
		{"reversed", "2026-11..2026-10", "", "", false},
		{"month 13", "2026-13", "", "", false},
		{"month 0", "2026-00", "", "", false},
		{"a day", "2026-10-03", "", "", false},
		{"text", "十月", "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, e, ok := ParsePeriod(tc.in)
			if s != tc.start || e != tc.end || ok != tc.ok {
				t.Errorf("ParsePeriod(%q) = %q, %q, %v; want %q, %q, %v", tc.in, s, e, ok, tc.start, tc.end, tc.ok)
			}
		})
	}
}

func FuzzParsePeriod(f *testing.F) {
	for _, s := range []string{"2026-10", "202610", "2026年10月至2026年11月", "2026-10..2026-11", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start, end, ok := ParsePeriod(s)
		if ok && (len(start) != 7 || len(end) != 7 || end < start) {
			t.Errorf("ParsePeriod(%q) = %q, %q: not an ordered pair of months", s, start, end)
		}
	})
}

package reports

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestFormatMoney(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		currency string
		exact    bool
		want     string
	}{
		{"half away from zero up", "1.005", "CNY", false, "1.01"},
		{"half away from zero down", "-1.005", "CNY", false, "-1.01"},
		{"below half", "2.00499999", "CNY", false, "2.00"},
		{"thousands", "1234567.891", "CNY", false, "1,234,567.89"},
		{"negative thousands", "-1234.5", "CNY", false, "-1,234.50"},
		{"no negative zero", "-0.001", "CNY", false, "0.00"},
		{"three digits", "999.999", "CNY", false, "1,000.00"},
		{"yen has no minor unit", "1234.5", "JPY", false, "1,235"},
		{"exact keeps 11 decimals", "0.12345678901", "USD", true, "0.12345678901"},
		{"exact negative", "-1.5", "CNY", true, "-1.5"},
		{"exact has no grouping", "1234567.5", "CNY", true, "1234567.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := decimal.NewFromString(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := FormatMoney(d, tc.currency, tc.exact); got != tc.want {
				t.Errorf("FormatMoney(%s, %s, %v): got %q want %q", tc.in, tc.currency, tc.exact, got, tc.want)
			}
		})
	}
}

func TestFormatNullMoney(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    decimal.NullDecimal
		exact bool
		want  string
	}{
		{"unknown display", decimal.NullDecimal{}, false, "-"},
		{"unknown exact", decimal.NullDecimal{}, true, ""},
		{"zero is not unknown", decimal.NullDecimal{Valid: true}, false, "0.00"},
		{"known exact", decimal.NullDecimal{Decimal: decimal.RequireFromString("3.14159265358"), Valid: true}, true, "3.14159265358"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FormatNullMoney(tc.in, "CNY", tc.exact); got != tc.want {
				t.Errorf("got %q want %q", got, tc.want)
			}
		})
	}
}

func TestShare(t *testing.T) {
	for _, tc := range []struct {
		name, part, whole   string
		wantExact, wantShow string
	}{
		{"quarter", "25", "100", "0.2500", "25.00%"},
		{"rounded half away", "1", "8", "0.1250", "12.50%"},
		{"third", "1", "3", "0.3333", "33.33%"},
		{"zero whole", "5", "0", "", "-"},
		{"negative whole", "5", "-10", "", "-"},
		{"all hidden", "7.5", "7.5", "1.0000", "100.00%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Share(decimal.RequireFromString(tc.part), decimal.RequireFromString(tc.whole))
			if got := FormatShare(s, true); got != tc.wantExact {
				t.Errorf("exact: got %q want %q", got, tc.wantExact)
			}
			if got := FormatShare(s, false); got != tc.wantShow {
				t.Errorf("display: got %q want %q", got, tc.wantShow)
			}
		})
	}
}

func TestWriteOptionsErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    WriteOptions
		wantErr string
	}{
		{"unknown format", WriteOptions{Format: "pdf"}, `unknown format "pdf"`},
		{"bad lang", WriteOptions{Lang: "fr"}, `unknown language "fr"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.opts.normalize()
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got %v want an error containing %q", err, tc.wantErr)
			}
		})
	}
	o, err := WriteOptions{}.normalize()
	if err != nil {
		t.Fatal(err)
	}
	if o.Format != FormatTable || o.Lang != "zh" || o.TZ == nil {
		t.Errorf("defaults: got %q %q %v want table zh Asia/Shanghai", o.Format, o.Lang, o.TZ)
	}
	if _, off := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).In(o.TZ).Zone(); off != 8*3600 {
		t.Errorf("default zone offset: got %d want %d", off, 8*3600)
	}
}

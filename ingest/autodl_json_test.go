package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// TestMilliToYuan: 厘 become yuan by an exact decimal shift, whatever form
// the number has in the JSON (integer, fraction, exponent, string).
func TestMilliToYuan(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string // want "" = unknown
		wantErr        bool
	}{
		{"hourly 4090", "1880", "1.88", false},
		{"one li", "1", "0.001", false},
		{"negative", "-713", "-0.713", false},
		{"fraction of a li", "1.5", "0.0015", false},
		{"exponent", "-2.5e2", "-0.25", false},
		{"beyond float precision", "99999999999999999", "99999999999999.999", false},
		{"zero", "0", "0", false},
		{"empty is unknown", "", "", false},
		{"text", "一百", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := milliToYuan(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("milliToYuan(%q) error %v, want error %v", tc.in, err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if tc.want == "" {
				if d.Valid {
					t.Errorf("milliToYuan(%q) = %s, want unknown", tc.in, d.Decimal)
				}
				return
			}
			if !d.Valid || d.Decimal.String() != tc.want {
				t.Errorf("milliToYuan(%q) = %s (valid %v), want %s", tc.in, d.Decimal, d.Valid, tc.want)
			}
		})
	}
}

// TestAutoDLJSONExactAmounts imports a one-item list and reads the stored
// text back: 1880 厘 is stored as the decimal 1.88 (no float on the way).
func TestAutoDLJSONExactAmounts(t *testing.T) {
	dir := t.TempDir()
	db := testkit.OpenLedger(t)
	p := writeTemp(t, dir, "orders.json", []byte(`[{"product_uuid":"u1","deal_price":1880,"created_at":"2026-10-03T15:00:00+08:00"},
		{"product_uuid":"u1","deal_price":"33333333333333333","created_at":"2026-10-03T16:00:00+08:00"}]`))
	if _, err := ImportFile(context.Background(), db, p, Options{TZ: shanghai}); err != nil {
		t.Fatal(err)
	}
	var got []string
	rows, err := db.SQL().Query(`SELECT billed_cost FROM line_items ORDER BY source_row`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if strings.Join(got, " ") != "1.880 33333333333333.333" {
		t.Errorf("stored billed_cost %q, want [1.880 33333333333333.333] (the 厘 precision kept)", got)
	}
}

// autodlList returns the item list of a saved AutoDL response, read with
// encoding/json's generic decoding (independently of the streaming reader).
func autodlList(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.TrimPrefix(string(b), "\ufeff"))
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	for {
		switch x := v.(type) {
		case []any:
			out := make([]map[string]any, 0, len(x))
			for _, it := range x {
				out = append(out, it.(map[string]any))
			}
			return out
		case map[string]any:
			if l, ok := x["list"]; ok {
				v = l
			} else {
				v = x["data"]
			}
		default:
			t.Fatalf("%s: no list", path)
		}
	}
}

func liToYuan(t *testing.T, v any) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(fmt.Sprint(v))
	if err != nil {
		t.Fatal(err)
	}
	return d.Div(decimal.NewFromInt(1000))
}

// TestAutoDLJSONTotals: the stored money of every sample equals the file's
// own sum of asset (absolute, as the type gives the direction) or
// deal_price (orders not cancelled), divided by 1000, exactly.
func TestAutoDLJSONTotals(t *testing.T) {
	for _, dir := range []string{"autodl-balance-json", "autodl-order-json"} {
		paths, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		n := 0
		for _, path := range paths {
			if strings.HasPrefix(filepath.Base(path), "bad_") {
				continue
			}
			n++
			t.Run(path, func(t *testing.T) {
				want := decimal.Zero
				for _, it := range autodlList(t, path) {
					if dir == "autodl-balance-json" {
						want = want.Add(liToYuan(t, it["asset"]).Abs())
					} else if st, _ := it["status"].(string); st != "cancelled" {
						want = want.Add(liToYuan(t, it["deal_price"]))
					}
				}
				db := testkit.OpenLedger(t)
				if _, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai}); err != nil {
					t.Fatal(err)
				}
				q := `SELECT dsum(amount) FROM transactions`
				if dir == "autodl-order-json" {
					q = `SELECT dsum(billed_cost) FROM line_items`
				}
				var got string
				if err := db.SQL().QueryRow(q).Scan(&got); err != nil {
					t.Fatal(err)
				}
				g, err := decimal.NewFromString(got)
				if err != nil {
					t.Fatal(err)
				}
				if !g.Equal(want) {
					t.Errorf("stored total %s, want the file's own %s", got, want)
				}
			})
		}
		if n == 0 {
			t.Errorf("no samples in %s", dir)
		}
	}
}

// TestAutoDLJSONReimport: importing the same saved responses again adds
// nothing; every item is a duplicate.
func TestAutoDLJSONReimport(t *testing.T) {
	db := testkit.OpenLedger(t)
	ctx := context.Background()
	for _, p := range []string{
		filepath.Join("testdata", "autodl-balance-json", "balance_statement.json"),
		filepath.Join("testdata", "autodl-balance-json", "balance_bare_list.json"),
		filepath.Join("testdata", "autodl-order-json", "order_list.json"),
	} {
		first, err := ImportFile(ctx, db, p, Options{TZ: shanghai})
		if err != nil {
			t.Fatal(err)
		}
		if first.New == 0 {
			t.Fatalf("%s: first import added nothing", p)
		}
		second, err := ImportFile(ctx, db, p, Options{TZ: shanghai})
		if err != nil {
			t.Fatal(err)
		}
		if second.New != 0 || second.Duplicate != first.New || second.Skipped != first.Skipped {
			t.Errorf("%s: re-import got new %d duplicate %d skipped %d, want 0, %d, %d",
				p, second.New, second.Duplicate, second.Skipped, first.New, first.Skipped)
		}
	}
}

// TestAutoDLJSONErrors: a malformed file is refused with the byte offset of
// the fault (0-based, found here by searching for a marker), a JSON file
// that is not AutoDL's with a message saying so, and a bad item names its
// index and field.
func TestAutoDLJSONErrors(t *testing.T) {
	item := `{"product_uuid":"u","asset":-1880,"created_at":"2026-10-01T10:00:00+08:00","type":"consumption"}`
	order := `{"product_uuid":"u","deal_price":1,"created_at":"2026-10-01"}`
	for _, tc := range []struct {
		name, content string
		at            string // the fault starts where this text starts (malformed JSON)
		want          string // the message contains this
	}{
		{"bad literal in an item", `{"data":{"list":[` + item + `,{"a":tru}]}}`, `}]}}`, "invalid character '}' in literal true"},
		{"missing comma between items", "[" + item + `  {"a":1}]`, `{"a":1}`, "expected comma after array element"},
		{"trailing comma in an item", "[" + item + `,{"a":1,}]`, `}]`, "invalid character '}'"},
		{"bad value in the wrapper", `{"code":Success,"data":{"list":[` + item + `]}}`, `Success`, "invalid character 'S'"},
		{"bad value after the list", `{"data":{"list":[` + item + `],"max_page":1x}}`, `x}}`, "invalid character 'x'"},
		{"truncated", `{"data":{"list":[` + item + `,{"product_uuid":"u","as`, "", "the file ends early"},
		{"two values", "[" + item + "] [1]", "", "more data after the end of the JSON value"},
		{"not autodl", `{"code":"Success","data":{"list":[{"name":"alice"}]}}`, "", "not an AutoDL balance_statement or order list: item 1 has the keys name"},
		{"no list", `{"status":"ok","total":3}`, "", "no item list"},
		{"items not objects", `[1,2,3]`, "", "item 1 (byte offset 1) is not a JSON object"},
		{"later item not an object", "[" + item + `,"x"]`, "", fmt.Sprintf("item 2 (byte offset %d) is not a JSON object", len(item)+2)},
		{"empty list", `{"data":{"list":[]}}`, "", "an empty JSON item list"},
		{"api error", `{"code":"AuthorizeFailed","msg":"请登录","data":null}`, "", `code "AuthorizeFailed", msg "请登录"`},
		{"item without a time", "[" + item + `,{"product_uuid":"u","asset":5}]`, "", fmt.Sprintf("item 2 (byte offset %d): field created_at: required time is missing", len(item)+2)},
		{"order without a price", "[" + order + `,{"product_uuid":"u","deal_price":null,"created_at":"2026-10-01"}]`,
			"", fmt.Sprintf("item 2 (byte offset %d): field deal_price: required amount is missing", len(order)+2)},
		{"bad time", `[{"product_uuid":"u","asset":1,"created_at":"yesterday"}]`, "", "item 1 (byte offset 1): field created_at:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeTemp(t, t.TempDir(), "x.json", []byte(tc.content))
			db := testkit.OpenLedger(t)
			_, err := ImportFile(context.Background(), db, p, Options{TZ: shanghai})
			if err == nil {
				t.Fatal("import succeeded, want an error")
			}
			if _, ok := err.(*InputError); !ok {
				t.Errorf("error %v is a %T, want *InputError", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
			if tc.at != "" {
				off := strings.LastIndex(tc.content, tc.at)
				if want := fmt.Sprintf("malformed JSON at byte offset %d:", off); !strings.Contains(err.Error(), want) {
					t.Errorf("error %q, want %q", err, want)
				}
			}
			if n := countRows(t, db, "transactions") + countRows(t, db, "line_items") + countRows(t, db, "imports"); n != 0 {
				t.Errorf("a refused file stored %d rows, want 0", n)
			}
		})
	}
}

// TestAutoDLJSONByteOffsetAfterBOM: offsets count the file's bytes, BOM
// included.
func TestAutoDLJSONByteOffsetAfterBOM(t *testing.T) {
	content := "\ufeff[{\"product_uuid\":\"u\",\"asset\":1,\"created_at\":\"2026-10-01\"} x]"
	p := writeTemp(t, t.TempDir(), "x.json", []byte(content))
	_, err := Scan(context.Background(), p, Options{TZ: shanghai})
	want := fmt.Sprintf("byte offset %d:", strings.Index(content, " x]")+1)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one with %q", err, want)
	}
}

// TestAutoDLJSONNotForCSV: the JSON formats never match a CSV header, even
// one spelling their keys.
func TestAutoDLJSONNotForCSV(t *testing.T) {
	if b := detectHeader([]string{"product_uuid", "asset", "created_at", "type"}); b != nil {
		t.Errorf("detectHeader matched %s on a CSV header, want none", b.format.ID)
	}
	p := writeTemp(t, t.TempDir(), "x.csv", []byte("product_uuid,deal_price,created_at\nu,1880,2026-10-01\n"))
	if _, err := Scan(context.Background(), p, Options{TZ: shanghai}); err == nil || !strings.Contains(err.Error(), "no known bill format") {
		t.Errorf("CSV with AutoDL key names: error %v, want no known bill format", err)
	}
}

func TestAutoDLJSONCheck(t *testing.T) {
	res, err := Check(filepath.Join("testdata", "autodl-order-json", "order_list.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tables) != 1 || res.Tables[0].Format.ID != "autodl-order-json" || res.Delimiter != "" || res.Encoding != EncUTF8 {
		t.Fatalf("check = %+v, want one autodl-order-json table, no delimiter, utf-8", res)
	}
	tb := res.Tables[0]
	mapped := map[string]string{}
	for _, m := range tb.Mapped {
		mapped[m.Header] = m.Field
	}
	for h, f := range map[string]string{"product_uuid": "product_uuid", "deal_price": "deal_price", "order_type": "order_type",
		"region_name": "region", "uuid": "uuid"} {
		if mapped[h] != f {
			t.Errorf("key %s mapped to %q, want %q (mapped %v)", h, mapped[h], f, mapped)
		}
	}
	if strings.Join(tb.Unknown, ",") != "id,price" {
		t.Errorf("unknown keys %v, want [id price] (kept in raw; uuid took the id column)", tb.Unknown)
	}
}

// TestAutoDLJSONStreams: a list of many items is read item by item (a
// larger file than the decoder ever buffers at once), with every item
// counted and numbered.
func TestAutoDLJSONStreams(t *testing.T) {
	const n = 20000
	var b strings.Builder
	b.WriteString(`{"code":"Success","data":{"list":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"product_uuid":"u%d","asset":-%d,"created_at":"2026-10-01T10:00:00+08:00","type":"consumption","detail":%q}`,
			i%7, i+1, strings.Repeat("x", i%50))
	}
	b.WriteString(`],"page_index":1,"max_page":1}}`)
	p := writeTemp(t, t.TempDir(), "big.json", []byte(b.String()))
	res, err := Scan(context.Background(), p, Options{TZ: shanghai, Preview: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Read != n || res.New != n {
		t.Errorf("read %d new %d, want %d each", res.Read, res.New, n)
	}
	if len(res.PreviewTx) != 1 || res.PreviewTx[0].SourceRow != 1 || res.PreviewTx[0].Amount.String() != "0.001" {
		t.Errorf("preview %+v, want item 1 with amount 0.001", res.PreviewTx)
	}
}

func TestAutoDLTxType(t *testing.T) {
	for _, tc := range []struct {
		name  string
		texts []string
		want  string // "" = not recognised
	}{
		{"recharge", []string{"recharge"}, ledger.TxTopup},
		{"recharge is no charge", []string{"RECHARGE", "payg"}, ledger.TxTopup},
		{"consumption", []string{"consumption"}, ledger.TxCharge},
		{"deduction", []string{"deduction"}, ledger.TxCharge},
		{"charge type only", []string{"", "payg"}, ledger.TxCharge},
		{"refund", []string{"refund", "daily"}, ledger.TxRefund},
		{"voucher", []string{"voucher"}, ledger.TxVoucher},
		{"chinese gift", []string{"充值赠送"}, ledger.TxVoucher},
		{"withdraw", []string{"withdraw"}, ledger.TxWithdrawal},
		{"unfreeze before freeze", []string{"unfreeze"}, ledger.TxUnfreeze},
		{"freeze", []string{"冻结"}, ledger.TxFreeze},
		{"unknown", []string{"adjust", ""}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := autodlTxType(tc.texts...)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("autodlTxType(%q) = %q, %v; want %q", tc.texts, got, ok, tc.want)
			}
		})
	}
}

func TestAutoDLPricingAndKind(t *testing.T) {
	for _, tc := range []struct {
		name          string
		texts         []string
		pricing, kind string
		days, months  int
	}{
		{"包日", []string{"包日"}, ledger.PricingPackage, ledger.KindCompute, 1, 0},
		{"weekly code", []string{"renew_instance", "weekly"}, ledger.PricingPackage, ledger.KindCompute, 7, 0},
		{"包月", []string{"包月"}, ledger.PricingPackage, ledger.KindCompute, 0, 1},
		{"payg", []string{"create_instance", "payg"}, ledger.PricingOnDemand, ledger.KindCompute, 0, 0},
		{"disk expansion", []string{"数据盘扩容", "payg"}, ledger.PricingOnDemand, ledger.KindStorage, 0, 0},
		{"image", []string{"save_image"}, ledger.PricingOnDemand, ledger.KindImage, 0, 0},
		{"no-GPU mode", []string{"无卡模式开机"}, ledger.PricingOnDemand, ledger.KindCompute, 0, 0},
		{"seat", []string{"关机保留"}, ledger.PricingOnDemand, ledger.KindSeat, 0, 0},
		{"unknown kept as other", []string{"academic_cert"}, ledger.PricingOnDemand, ledger.KindOther, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, d, m := autodlPricing(tc.texts...)
			k := autodlKind(tc.texts...)
			if p != tc.pricing || d != tc.days || m != tc.months || k != tc.kind {
				t.Errorf("pricing %s %d days %d months, kind %s; want %s %d %d, %s", p, d, m, k, tc.pricing, tc.days, tc.months, tc.kind)
			}
		})
	}
}

// FuzzReadJSON drives arbitrary bytes that look like JSON through
// detection, streaming and mapping (Scan, no ledger): nothing may panic or
// hang, and a successful scan's counts add up.
func FuzzReadJSON(f *testing.F) {
	for _, p := range []string{
		"autodl-balance-json/balance_statement.json", "autodl-balance-json/balance_bare_list.json",
		"autodl-balance-json/bad_truncated.json", "autodl-balance-json/bad_api_error.json",
		"autodl-order-json/order_list.json", "autodl-order-json/order_data_array.json",
		"autodl-order-json/bad_end_before_start.json",
	} {
		b, err := readTestdata(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"data":{"list":[{"product_uuid":"u","deal_price":1e61,"created_at":1791676800123}]}}`))
	f.Add([]byte(`[{"product_uuid":"u","asset":{"x":[1,2]},"created_at":"2026-10-01"}]`))
	f.Add([]byte(`{"data":{"data":{"data":{"list":[[[[]]]]}}}}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzScan(t, writeTemp(t, dir, "fuzz.json", data))
	})
}

// TestAutoDLJSONPageWarnings: a saved response that is one page of several,
// or holds fewer items than it says the list has, imports its rows and
// warns that the month is incomplete; a complete one does not warn.
func TestAutoDLJSONPageWarnings(t *testing.T) {
	item := func(n int) string {
		return fmt.Sprintf(`{"uuid":"bs-%d","product_uuid":"c5a1","type":"consumption","asset":-1880,"balance":%d,"created_at":"2026-10-0%dT10:00:00+08:00"}`, n, 100000-n*1880, n)
	}
	two := item(1) + "," + item(2)
	tests := []struct {
		name, json string
		want       string // substring of the English warning; "" = none
	}{
		{"page 1 of 3, keys after the list", `{"code":"Success","data":{"list":[` + two + `],"page_index":1,"max_page":3,"result_total":45}}`, "this is page 1 of 3"},
		{"page 2 of 2, keys before the list", `{"code":"Success","data":{"page_index":2,"max_page":2,"list":[` + two + `]}}`, "this is page 2 of 2"},
		{"fewer items than the total", `{"code":"Success","data":{"list":[` + two + `],"max_page":1,"result_total":5}}`, "the list has 5 items but the file holds 2"},
		{"complete", `{"code":"Success","data":{"list":[` + two + `],"page_index":1,"max_page":1,"result_total":2}}`, ""},
		{"a bare list", `[` + two + `]`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "autodl.json")
			if err := os.WriteFile(p, []byte(tc.json), 0o600); err != nil {
				t.Fatal(err)
			}
			res, err := ImportFile(context.Background(), testkit.OpenLedger(t), p, Options{TZ: shanghai})
			if err != nil {
				t.Fatal(err)
			}
			if res.New != 2 {
				t.Errorf("got %d new rows, want 2 (a warning never drops rows)", res.New)
			}
			if tc.want == "" {
				if len(res.Warnings) != 0 {
					t.Errorf("got warnings %+v, want none", res.Warnings)
				}
				return
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].EN, tc.want) || res.Warnings[0].ZH == "" {
				t.Errorf("got warnings %+v, want one saying %q (in zh too)", res.Warnings, tc.want)
			}
		})
	}
}

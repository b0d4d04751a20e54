package ingest

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
	"github.com/shopspring/decimal"
)

const minimalProfile = `
id = "t"
name_en = "test"
target = "transactions"
[provider]
fixed = "autodl"
[columns]
time = ["时间"]
amount = ["金额"]
type = ["类型"]
`

// TestParseProfileErrors checks that every profile error names the file and
// the key at fault.
func TestParseProfileErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"toml syntax", "id = ", "profile my.toml: line 1:"},
		{"unknown key", "colour = 1\n" + minimalProfile, "profile my.toml: colour: unknown key"},
		{"wrong type", minimalProfile + "[time]\nlayouts = 3\n", "profile my.toml: toml: line 12 (last key \"time.layouts\")"},
		{"unknown nested key", minimalProfile + "[amount]\nscal = \"1\"\n", "profile my.toml: amount.scal: unknown key"},
		{"missing id", strings.Replace(minimalProfile, `id = "t"`, "", 1), "profile my.toml: id: missing"},
		{"bad id", strings.Replace(minimalProfile, `id = "t"`, `id = "My Profile"`, 1), "profile my.toml: id: \"My Profile\""},
		{"missing target", strings.Replace(minimalProfile, `target = "transactions"`, "", 1), "profile my.toml: target: missing"},
		{"bad target", strings.Replace(minimalProfile, `target = "transactions"`, `target = "bills"`, 1), "profile my.toml: target: \"bills\" is not"},
		{"unknown field", minimalProfile + "cost = [\"费用\"]\n", "profile my.toml: columns.cost: unknown field for target transactions"},
		{"missing required column", strings.Replace(minimalProfile, "amount = [\"金额\"]\n", "", 1), "profile my.toml: columns.amount: missing"},
		{"no provider", strings.Replace(minimalProfile, "fixed = \"autodl\"", "", 1), "profile my.toml: provider: missing"},
		{"bad provider slug", strings.Replace(minimalProfile, "autodl", "Acme Cloud!", 1), "profile my.toml: provider.fixed: \"Acme Cloud!\" is neither a known platform nor a slug"},
		{"names for a built-in platform", strings.Replace(minimalProfile, "fixed = \"autodl\"", "fixed = \"autodl\"\nname_en = \"X\"", 1), "profile my.toml: provider.name_zh: display names are for a slug of the profile's own"},
		{"bad regex", minimalProfile + "[[tx_type]]\nmatch = '充值('\ntype = \"topup\"\n", "profile my.toml: tx_type[0].match: error parsing regexp"},
		{"bad tx type", minimalProfile + "[[tx_type]]\nmatch = '充值'\ntype = \"gift\"\n", "profile my.toml: tx_type[0].type: \"gift\" is not one of"},
		{"rule missing match", minimalProfile + "[[tx_type]]\ntype = \"topup\"\n", "profile my.toml: tx_type[0].match: missing"},
		{"kind rule in a flow profile", minimalProfile + "[[kind]]\nmatch = 'x'\nkind = \"storage\"\n", "profile my.toml: kind: only a line_items profile"},
		{"rule column not mapped", minimalProfile + "[[tx_type]]\nmatch = 'x'\ncolumns = [\"note\"]\ntype = \"topup\"\n", "profile my.toml: tx_type[0].columns[0]: \"note\" is not a field"},
		{"bad scale", minimalProfile + "[amount]\nscale = \"0\"\n", "profile my.toml: amount.scale: \"0\" is not a positive decimal"},
		{"bad sign", minimalProfile + "[amount]\nsign = \"flip\"\n", "profile my.toml: amount.sign: \"flip\" is not"},
		{"bad layout", minimalProfile + "[time]\nlayouts = [\"YYYY-MM-DD\"]\n", "profile my.toml: time.layouts[0]: \"YYYY-MM-DD\" is not a Go time layout"},
		{"bad encoding", "encoding = \"latin1\"\n" + minimalProfile, "profile my.toml: encoding: \"latin1\""},
		{"required not mapped", minimalProfile + "[detect]\nrequired = [\"balance\"]\n", "profile my.toml: detect.required[0]: \"balance\" is not a field"},
		{"line items without time", "id = \"x\"\nname_en = \"x\"\ntarget = \"line_items\"\n[provider]\nfixed = \"autodl\"\n[columns]\nbilled_cost = [\"金额\"]\n",
			"profile my.toml: columns.start: missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseProfile("my.toml", []byte(tt.doc))
			if err == nil {
				t.Fatalf("ParseProfile succeeded, want an error starting %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got error %q, want it to start with %q", err, tt.want)
			}
		})
	}
	if _, err := LoadProfile(filepath.Join(t.TempDir(), "none.toml")); err == nil || !strings.Contains(err.Error(), "none.toml") {
		t.Errorf("LoadProfile of a missing file: got %v, want an error naming the file", err)
	}
}

// TestBuiltinProfiles checks that every embedded profile loads, that each of
// the six GPU platforms has a flow and an orders profile, and that each
// loads again from its own text (as a user's copy would).
func TestBuiltinProfiles(t *testing.T) {
	want := map[string]bool{}
	for _, slug := range []string{"autodl", "gpushare", "matpool", "gpugeek", "lanrui", "luchen"} {
		want[slug+"-flow"], want[slug+"-orders"] = true, true
	}
	for _, p := range BuiltinProfiles() {
		if !want[p.ID] {
			t.Errorf("unexpected built-in profile %s", p.ID)
			continue
		}
		delete(want, p.ID)
		if p.Confidence != ConfidenceGuess || !bytes.Contains(p.Data, []byte("Confidence: guess")) {
			t.Errorf("%s: confidence %q, want guess stated in the file", p.ID, p.Confidence)
		}
		if p.Family == "" {
			t.Errorf("%s: not in a format family", p.ID)
		}
		if _, err := ParseProfile(p.ID+".toml", p.Data); err != nil {
			t.Errorf("%s does not load as a user profile: %v", p.ID, err)
		}
	}
	for id := range want {
		t.Errorf("built-in profile %s missing", id)
	}
}

func TestProviderFromName(t *testing.T) {
	tests := []struct {
		path string
		want []string
	}{
		{"bills/AutoDL_收支明细.csv", []string{"autodl"}},
		{"恒源云-订单.csv", []string{"gpushare"}},
		{"x/GPUSHARE.csv", []string{"gpushare"}},
		{"矩池云.xlsx", []string{"matpool"}},
		{"gpugeek.csv", []string{"gpugeek"}},
		{"揽睿星舟.csv", []string{"lanrui"}},
		{"luchentech-bill.csv", []string{"luchen"}},
		{"autodl/收支明细.csv", nil}, // only the file name counts
		{"autodl_vs_matpool.csv", []string{"autodl", "matpool"}},
		{"收支明细.csv", nil},
	}
	for _, tt := range tests {
		got := providerFromName(tt.path)
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("providerFromName(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// TestConsoleProvider: a console copy named after no platform is refused,
// nothing stored; --provider makes it import; a platform without a profile
// is refused.
func TestConsoleProvider(t *testing.T) {
	path := filepath.Join("testdata", "gpu-console-flow", "bad_收支明细_无平台.csv")
	tests := []struct {
		name, provider, wantErr string
		wantRows                int
	}{
		{"no platform", "", "or pass --provider SLUG", 0},
		{"--provider", "矩池云", "", 1},
		{"platform without a profile", "aliyun", "has no profile for platform aliyun", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := testkit.OpenLedger(t)
			res, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai, Provider: tt.provider})
			if tt.wantErr != "" {
				var ie *InputError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ie) || ie.File != path {
					t.Fatalf("got error %v, want an InputError on %s containing %q", err, path, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := countRows(t, db, "transactions"); got != tt.wantRows {
				t.Errorf("got %d transactions, want %d", got, tt.wantRows)
			}
			if tt.wantRows > 0 && res.Provider != "matpool" {
				t.Errorf("provider = %q, want matpool", res.Provider)
			}
		})
	}
}

// TestConsoleSampleTotals: the ledger holds exactly the money of each
// sample, summed independently from the raw file.
func TestConsoleSampleTotals(t *testing.T) {
	for _, dir := range []string{"gpu-console-flow", "gpu-console-orders"} {
		entries, err := os.ReadDir(filepath.Join("testdata", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if filepath.Ext(e.Name()) != ".csv" || strings.HasPrefix(e.Name(), "bad_") {
				continue
			}
			path := filepath.Join("testdata", dir, e.Name())
			t.Run(e.Name(), func(t *testing.T) {
				want := rawColumnSum(t, path, dir == "gpu-console-flow")
				db := testkit.OpenLedger(t)
				if _, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai}); err != nil {
					t.Fatal(err)
				}
				got := decimal.Zero
				if dir == "gpu-console-flow" {
					for _, tx := range storedTxs(t, db) {
						d, _ := decimal.NewFromString(tx.Amount)
						got = got.Add(d)
					}
				} else {
					for _, li := range storedItems(t, db) {
						got = got.Add(li.BilledCost)
					}
				}
				if !got.Equal(want) {
					t.Errorf("ledger sum %s, want the file's own sum %s", got, want)
				}
			})
		}
	}
}

// rawColumnSum sums the money column of a console sample (the first header
// cell naming an amount), as absolute values for money flow; a total line
// is left out.
func rawColumnSum(t *testing.T, path string, abs bool) decimal.Decimal {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, _, err := decodeText(f)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil && err != io.EOF {
		t.Fatal(err)
	}
	col := -1
	for i, h := range recs[0] {
		for _, n := range []string{"实付金额", "消费金额", "交易金额", "金额", "费用", "金额(元)"} {
			if col < 0 && h == n {
				col = i
			}
		}
	}
	if col < 0 {
		t.Fatalf("%s: no amount column in %v", path, recs[0])
	}
	sum := decimal.Zero
	for _, rec := range recs[1:] {
		if rec[0] == "合计" || rec[0] == "总计" || rec[col] == "" {
			continue
		}
		d, err := decimal.NewFromString(strings.TrimPrefix(rec[col], "+"))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if abs {
			d = d.Abs()
		}
		sum = sum.Add(d)
	}
	return sum
}

// TestUserProfile imports testdata/TestUserProfile/mycloud.csv with the
// user profile beside it: 厘 amounts, negated charges, a day-first Go layout
// with the built-in parser as fallback, a units line and a voided row
// skipped, an unmatched kind kept as other.
func TestUserProfile(t *testing.T) {
	p, err := LoadProfile(filepath.Join("testdata", "TestUserProfile", "mycloud.toml"))
	if err != nil {
		t.Fatal(err)
	}
	restore := UseProfiles(p)
	defer restore()
	if fs := Formats(); fs[0].ID != "mycloud-bill" {
		t.Errorf("Formats()[0] = %s, want the user profile first", fs[0].ID)
	}
	db := testkit.OpenLedger(t)
	path := filepath.Join("testdata", "TestUserProfile", "mycloud.csv")
	res, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "mycloud-bill" || res.New != 3 || res.Skipped != 2 {
		t.Errorf("got format %s, %d new, %d skipped; want mycloud-bill, 3 new, 2 skipped", res.Format, res.New, res.Skipped)
	}
	items := storedItems(t, db)
	type row struct{ kind, cost, start string }
	want := []row{
		{ledger.KindCompute, "1.88", "2026-10-03T14:00:00+08:00"},
		{ledger.KindStorage, "0.33", "2026-10-04T00:00:00+08:00"},
		{ledger.KindOther, "0.001", "2026-10-05T00:00:00+08:00"},
	}
	if len(items) != len(want) {
		t.Fatalf("got %d items, want %d", len(items), len(want))
	}
	for i, w := range want {
		li := items[i]
		got := row{li.Kind, li.BilledCost.String(), li.ChargePeriodStart.In(shanghai).Format(time.RFC3339)}
		if got != w || li.Provider != "volcengine" {
			t.Errorf("item %d = %+v (%s), want %+v (volcengine)", i, got, li.Provider, w)
		}
	}
	restore()
	if fs := Formats(); fs[0].ID == "mycloud-bill" {
		t.Errorf("after restore the user profile is still listed")
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		bare time.Duration
		want time.Duration
		ok   bool
	}{
		{"1小时30分", time.Second, 90 * time.Minute, true},
		{"2.5小时", time.Second, 150 * time.Minute, true},
		{"90分钟", time.Second, 90 * time.Minute, true},
		{"1天2小时", time.Second, 26 * time.Hour, true},
		{"01:25:29", time.Second, time.Hour + 25*time.Minute + 29*time.Second, true},
		{"1h30m", time.Second, 90 * time.Minute, true},
		{"9000", time.Second, 9000 * time.Second, true},
		{"2", time.Hour, 2 * time.Hour, true},
		{"-3", time.Second, 0, false},
		{"abc", time.Second, 0, false},
		{"1小时x", time.Second, 0, false},
		{"1:xx", time.Second, 0, false},
	}
	for _, tt := range tests {
		got, ok := parseDuration(tt.in, tt.bare)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestDocsProfileExample keeps the complete example of docs/profiles.md valid.
func TestDocsProfileExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "profiles.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```toml\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/profiles.md has no ```toml example")
	}
	p, err := ParseProfile("docs/profiles.md", []byte(example))
	if err != nil {
		t.Fatalf("the example does not load: %v", err)
	}
	if p.ID != "mycloud-bill" || p.Target != TargetLineItems {
		t.Errorf("got id %s target %s, want mycloud-bill line_items", p.ID, p.Target)
	}
}

// FuzzParseProfile: no profile text makes the loader panic.
func FuzzParseProfile(f *testing.F) {
	for _, p := range BuiltinProfiles() {
		f.Add(p.Data)
	}
	f.Add([]byte(minimalProfile))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseProfile("fuzz.toml", data)
	})
}

// FuzzConsoleCSV runs the console-copy profiles (the file name names a
// platform) over arbitrary text: no panic, counts add up, a dry run stores
// nothing.
func FuzzConsoleCSV(f *testing.F) {
	for _, dir := range []string{"gpu-console-flow", "gpu-console-orders"} {
		entries, err := os.ReadDir(filepath.Join("testdata", dir))
		if err != nil {
			f.Fatal(err)
		}
		for _, e := range entries {
			if filepath.Ext(e.Name()) == ".csv" {
				b, err := os.ReadFile(filepath.Join("testdata", dir, e.Name()))
				if err != nil {
					f.Fatal(err)
				}
				f.Add(b)
			}
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzScan(t, writeTemp(t, dir, "autodl-fuzz.csv", data))
	})
}

// TestProfileOwnProvider: a profile may name a provider that is not one of
// the ten built-in platforms (a user's AWS or Azure bill), fixed or through
// a provider column, with its display name.
func TestProfileOwnProvider(t *testing.T) {
	tests := []struct {
		name, provider, csv string
		wantSlug, wantName  string
	}{
		{"fixed aws", "fixed = \"aws\"\nname_en = \"AWS\"",
			"时间,金额,类型\n2026-10-03 10:00,100,充值\n", "aws", "AWS"},
		{"column with accept", "accept = [\"azure-cn\"]\nname_zh = \"世纪互联 Azure\"\nname_en = \"Azure China\"",
			"平台,时间,金额,类型\nAzure China,2026-10-03 10:00,100,充值\nazure-cn,2026-10-04 10:00,50,充值\n", "azure-cn", "Azure China"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(minimalProfile, "fixed = \"autodl\"", tc.provider, 1)
			if strings.Contains(tc.csv, "平台") {
				doc += "provider = [\"平台\"]\n"
			}
			doc += "[[tx_type]]\nmatch = '充值'\ntype = \"topup\"\n"
			p, err := ParseProfile("my.toml", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			restore := UseProfiles(p)
			defer restore()
			db := testkit.OpenLedger(t)
			path := writeTemp(t, t.TempDir(), "bill.csv", []byte(tc.csv))
			res, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai})
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != "t" || res.New == 0 {
				t.Fatalf("got format %q, %d new; want t and the rows", res.Format, res.New)
			}
			var slugs []string
			rows, err := db.SQL().Query(`SELECT DISTINCT provider FROM transactions`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var s string
				rows.Scan(&s)
				slugs = append(slugs, s)
			}
			rows.Close()
			if len(slugs) != 1 || slugs[0] != tc.wantSlug {
				t.Errorf("got providers %v, want [%s]", slugs, tc.wantSlug)
			}
			if got := platform.Name(tc.wantSlug, "en"); got != tc.wantName {
				t.Errorf("ProviderName(%s, en) = %q, want %q", tc.wantSlug, got, tc.wantName)
			}
		})
	}
}

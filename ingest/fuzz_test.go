package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gpubill/gpubill/money"
	"github.com/shopspring/decimal"
)

// Fuzz targets that drive a whole file through detect → map → validate
// (Scan, no ledger), and the generator of the committed seed corpus of every
// fuzz target in ingest, ledger and rules: `go test ./ingest -run
// '^TestFuzzCorpus$' -update` rebuilds testdata/fuzz/<Target>/sample-* from
// the real samples (ingest/testdata, testdata/hostile and, when present,
// ../shared/external); inputs the fuzzer found stay beside them under their
// hash names. scripts/fuzz.sh runs every target for a set time.

// fuzzFileNames are the names a fuzzed file is written under: a GPU
// console's flow or order export takes its platform from the file name
// (sourceProvider), so the name is part of the input.
var fuzzFileNames = []string{"fuzz.csv", "AutoDL_fuzz.csv", "恒源云_fuzz.csv", "matpool_fuzz.csv",
	"GpuGeek_fuzz.csv", "lanrui_fuzz.csv", "潞晨云_fuzz.csv"}

// fuzzNameIndex is the index in fuzzFileNames of the name that carries the
// same platform as the sample's own name (0 when it names none).
func fuzzNameIndex(sample string) uint8 {
	want := providerFromName(sample)
	if len(want) != 1 {
		return 0
	}
	for i, n := range fuzzFileNames {
		if slices.Equal(providerFromName(n), want) {
			return uint8(i)
		}
	}
	return 0
}

// FuzzImportFormat runs any content, under one of fuzzFileNames, through
// every registered format's detection and row mapper. Seeds: one file per
// sample (testdata/fuzz/FuzzImportFormat/sample-*).
func FuzzImportFormat(f *testing.F) {
	f.Add(uint8(0), []byte(templateHeader+goodRows))
	f.Add(uint8(1), []byte("时间,类型,金额,余额\n2026-10-01 10:00:00,充值,100.00,100.00\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, name uint8, data []byte) {
		path := writeTemp(t, dir, fuzzFileNames[int(name)%len(fuzzFileNames)], data)
		res, err := Scan(context.Background(), path, Options{TZ: shanghai, Preview: 1 << 20})
		checkScan(t, path, res, err)
	})
}

// FuzzUserProfile reads a CSV with a fuzzed user profile in use: the
// profile's parser, detection, column mapping, kind rules, amount scale and
// sign, time layouts and skip rules. Seeds: each built-in profile with a
// sample it reads, and testdata/TestUserProfile.
func FuzzUserProfile(f *testing.F) {
	f.Add([]byte(minimalProfile), []byte(templateHeader+goodRows))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, profile, data []byte) {
		p, err := ParseProfile("fuzz.toml", profile)
		if err != nil {
			if p != nil {
				t.Fatalf("ParseProfile returned a profile with error %v", err)
			}
			return
		}
		restore := UseProfiles(p)
		defer restore()
		path := writeTemp(t, dir, "AutoDL_fuzz.csv", data)
		res, err := Scan(context.Background(), path, Options{TZ: shanghai, Preview: 1 << 20})
		checkScan(t, path, res, err)
	})
}

// checkScan asserts what every Scan must give: an error is an *InputError
// whose text starts with the file's path, and a failed file has no new rows;
// a read file's counts add up (Read = New + Duplicate + Skipped; Scan sees no
// duplicates), every mapped row is counted as new, and every amount is an
// exact decimal that its stored text gives back.
func checkScan(t *testing.T, path string, res Result, err error) {
	t.Helper()
	if err != nil {
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Fatalf("got error %T %q, want an *InputError", err, err)
		}
		if !strings.HasPrefix(err.Error(), path) {
			t.Fatalf("got error %q, want it to start with the file %s", err, path)
		}
		if res.Status != StatusFailed || res.New != 0 || res.Duplicate != 0 {
			t.Fatalf("failed file: got status %s, %d new, %d duplicate; want failed, 0, 0", res.Status, res.New, res.Duplicate)
		}
		return
	}
	if res.Read != res.New+res.Duplicate+res.Skipped || res.Duplicate != 0 {
		t.Fatalf("got read %d, new %d, duplicate %d, skipped %d; want read = new + duplicate + skipped, no duplicate",
			res.Read, res.New, res.Duplicate, res.Skipped)
	}
	if res.Tables == 0 || res.Format == "" || res.Status != StatusOK {
		t.Fatalf("got %d tables, format %q, status %s; want a recognised table and ok", res.Tables, res.Format, res.Status)
	}
	mapped := len(res.Preview) + len(res.PreviewTx) + len(res.PreviewPay)
	if !strings.Contains(res.Format, "invoices") && mapped != res.New {
		t.Fatalf("got %d mapped rows, want %d (the new rows)", mapped, res.New)
	}
	for i, li := range res.Preview {
		if li.Provider == "" {
			t.Fatalf("line item %d: got no provider", i)
		}
		checkAmount(t, fmt.Sprintf("line item %d: billed cost", i), decimal.NullDecimal{Decimal: li.BilledCost, Valid: true})
		// Text files: no cell is stored as bytes that are no UTF-8, or as
		// replacement characters nobody wrote (textChecker).
		if res.Encoding != "xlsx" && res.Encoding != "parquet" && res.Encoding != "" {
			for _, s := range []string{li.Description, li.ResourceID, li.ResourceName, li.Provider} {
				if !utf8.ValidString(s) || strings.ContainsRune(s, utf8.RuneError) {
					t.Fatalf("line item %d: stored %q, want valid UTF-8 without U+FFFD", i, s)
				}
			}
		}
		for _, a := range []struct {
			what string
			d    decimal.NullDecimal
		}{{"consumed quantity", li.ConsumedQuantity}, {"pricing quantity", li.PricingQuantity},
			{"list unit price", li.ListUnitPrice}, {"list cost", li.ListCost}, {"voucher paid", li.VoucherPaid},
			{"cash paid", li.CashPaid}, {"other paid", li.OtherPaid}, {"unpaid", li.Unpaid}} {
			checkAmount(t, fmt.Sprintf("line item %d: %s", i, a.what), a.d)
		}
	}
	for i, x := range res.PreviewTx {
		checkAmount(t, fmt.Sprintf("transaction %d: amount", i), decimal.NullDecimal{Decimal: x.Amount, Valid: true})
		checkAmount(t, fmt.Sprintf("transaction %d: balance", i), x.Balance)
	}
	for i, p := range res.PreviewPay {
		checkAmount(t, fmt.Sprintf("payment %d: amount", i), decimal.NullDecimal{Decimal: p.Amount, Valid: true})
	}
}

// maxAmountText bounds the stored text of an amount: ParseAmount takes at
// most 100 characters with exponents up to ±60, and a profile's scale adds
// a few digits; anything longer is an amount built out of control.
const maxAmountText = 400

// checkAmount asserts that a known amount is stored as text that reads back
// to the same decimal, and is not absurdly long.
func checkAmount(t *testing.T, what string, d decimal.NullDecimal) {
	t.Helper()
	if !d.Valid {
		return
	}
	s := money.String(d.Decimal)
	if len(s) > maxAmountText {
		t.Fatalf("%s: got a %d-character amount, want at most %d", what, len(s), maxAmountText)
	}
	back, err := decimal.NewFromString(s)
	if err != nil || !back.Equal(d.Decimal) {
		t.Fatalf("%s: stored text %q reads back as %v, %v; want %v", what, s, back, err, d.Decimal)
	}
}

// TestFuzzCorpus checks the committed seed corpus (every target has seeds,
// every seed file is a corpus file of its target's argument types) and,
// with -update, rebuilds the sample-* seeds from the samples.
func TestFuzzCorpus(t *testing.T) {
	seeds, external := fuzzCorpus(t)
	if *update {
		writeFuzzCorpus(t, seeds, external)
	}
	byDir := map[string][]seedFile{}
	for _, s := range seeds {
		byDir[s.dir] = append(byDir[s.dir], s)
	}
	for dir, want := range byDir {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Errorf("%s: %v (rebuild with go test ./ingest -run '^TestFuzzCorpus$' -update)", dir, err)
			continue
		}
		if len(entries) == 0 {
			t.Errorf("%s: got no seed files, want at least one", dir)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := corpusTypes(data), corpusTypes(marshalSeed(want[0].vals...)); got != want {
				t.Errorf("%s/%s: got values of types %q, want %q", dir, e.Name(), got, want)
			}
		}
	}
}

// seedFile is one generated corpus file.
type seedFile struct {
	dir, name string // dir is relative to ingest/
	vals      []any
}

// fuzzSample is one real file the corpus is built from.
type fuzzSample struct {
	name     string // unique, for seed file names: "<folder>-<file>"
	path     string
	data     []byte
	external bool // from ../shared/external (not in the repository)
}

// externalDir holds the third-party samples (see its READMEs); tests skip
// them when it is absent.
const externalDir = "../../shared/external"

// fuzzSamples lists the sample files: every format folder of testdata (not
// its golden or .err files), the hostile corpus and the external samples.
func fuzzSamples(t *testing.T) (samples []fuzzSample, external bool) {
	t.Helper()
	add := func(dir, prefix string, ext bool) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if ext && errors.Is(err, os.ErrNotExist) {
				return
			}
			t.Fatal(err)
		}
		for _, e := range entries {
			switch filepath.Ext(e.Name()) {
			case ".golden", ".err", ".txt", ".md", ".toml":
				continue
			}
			if e.IsDir() {
				continue
			}
			p := filepath.Join(dir, e.Name())
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			samples = append(samples, fuzzSample{name: prefix + e.Name(), path: p, data: data, external: ext})
		}
	}
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "fuzz" && e.Name() != "TestTemplateCSV" && e.Name() != "TestUserProfile" {
			add(filepath.Join("testdata", e.Name()), e.Name()+"-", false)
		}
	}
	add(hostileDir, "hostile-", false)
	for _, sub := range []string{"focus-sample", "payments"} {
		n := len(samples)
		add(filepath.Join(externalDir, sub), "ext-"+sub+"-", true)
		external = external || len(samples) > n
	}
	return samples, external
}

// maxSeedText bounds a text seed: longer samples are cut at a line end
// (the fuzzer mutates small inputs faster; the full files are tested by
// the golden tests).
const maxSeedText = 16 << 10

// cutText returns data cut to at most maxSeedText bytes at a line end, and
// a binary (ZIP) sample unchanged.
func cutText(data []byte) []byte {
	if bytes.HasPrefix(data, []byte("PK")) || len(data) <= maxSeedText {
		return data
	}
	cut := data[:maxSeedText]
	if i := bytes.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i+1]
	}
	return cut
}

// headLines returns the first n lines of data.
func headLines(data []byte, n int) []byte {
	end := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(data[end:], '\n')
		if j < 0 {
			return data
		}
		end += j + 1
	}
	return data[:end]
}

// fuzzCorpus builds every generated seed file; external reports whether
// the external samples were there.
func fuzzCorpus(t *testing.T) (seeds []seedFile, external bool) {
	t.Helper()
	samples, external := fuzzSamples(t)
	fz := func(target string) string { return filepath.Join("testdata", "fuzz", target) }
	addSeed := func(dir, name string, vals ...any) {
		seeds = append(seeds, seedFile{dir: dir, name: "sample-" + seedName(name), vals: vals})
	}
	var cells []string // cells of the mapped rows of every readable sample
	var amounts []decimal.Decimal
	var gpuText []string
	for _, s := range samples {
		isZip := bytes.HasPrefix(s.data, []byte("PK"))
		ext := filepath.Ext(s.path)
		switch {
		case isZip && (ext == ".xlsx" || ext == ".xlsm"):
			addSeed(fz("FuzzReadXLSX"), s.name, s.data)
		case isZip:
			addSeed(fz("FuzzReadZip"), s.name, s.data)
		case ext == ".json":
			addSeed(fz("FuzzReadJSON"), s.name, s.data)
		case strings.HasPrefix(s.name, "hostile-") || strings.HasPrefix(s.name, "gpubill-invoices-") || s.external:
			addSeed(fz("FuzzReadCSV"), s.name, cutText(s.data))
		case strings.HasPrefix(s.name, "gpu-console-"):
			addSeed(fz("FuzzConsoleCSV"), s.name, headLines(s.data, 3))
		}
		if !isZip && bytes.Count(s.data, []byte(`"`))%2 == 1 {
			addSeed(fz("FuzzQuoteRepair"), s.name, cutText(s.data))
		}
		if !(isZip && ext == ".zip") {
			addSeed(fz("FuzzImportFormat"), s.name, fuzzNameIndex(s.path), cutText(s.data))
		}
		if s.name == "ext-focus-sample-focus_sample.csv" {
			addSeed(fz("FuzzReadParquet"), s.name, focusParquet(t, headLines(s.data, 21)))
		}
		res, err := Scan(context.Background(), s.path, Options{TZ: shanghai, Preview: 1 << 20})
		if err != nil {
			continue
		}
		for _, li := range res.Preview {
			cells = append(cells, li.Raw...)
			amounts = append(amounts, li.BilledCost)
			for _, d := range []decimal.NullDecimal{li.ListCost, li.ListUnitPrice, li.ConsumedQuantity, li.PricingQuantity} {
				if d.Valid {
					amounts = append(amounts, d.Decimal)
				}
			}
			gpuText = append(gpuText, li.GPUModel, li.SKU, li.ResourceType)
		}
		for _, x := range res.PreviewTx {
			cells = append(cells, x.Raw...)
			amounts = append(amounts, x.Amount)
		}
		for _, p := range res.PreviewPay {
			cells = append(cells, p.Raw...)
			amounts = append(amounts, p.Amount)
		}
	}

	// The value parsers: one seed per distinct shape of the cells they read.
	var amountCells, timeCells, periodCells []string
	for _, c := range cells {
		if d, err := ParseAmount(c); err == nil && d.Valid {
			amountCells = append(amountCells, c)
		}
		if _, err := ParseTime(c, shanghai); err == nil {
			timeCells = append(timeCells, c)
		}
		if _, _, ok := ParsePeriod(c); ok {
			periodCells = append(periodCells, c)
		}
	}
	for _, c := range distinctShapes(amountCells) {
		addSeed(fz("FuzzParseAmount"), "amount-"+shape(c), c)
	}
	for _, c := range distinctShapes(timeCells) {
		addSeed(fz("FuzzParseTime"), "time-"+shape(c), c)
	}
	for _, c := range distinctShapes(periodCells) {
		addSeed(fz("FuzzParsePeriod"), "period-"+shape(c), c)
	}
	var amountText []string
	for _, d := range amounts {
		amountText = append(amountText, money.String(d))
	}
	// Every precision and length counts for money.String: digits, not runs.
	for _, s := range distinctBy(amountText, digitShape) {
		addSeed(filepath.Join("..", "money", "testdata", "fuzz", "FuzzDecimalString"), "amount-"+digitShape(s), s)
	}
	for _, s := range distinctShapes(gpuText) {
		addSeed(filepath.Join("..", "billing", "testdata", "fuzz", "FuzzNormalizeGPUModel"), "gpu-"+s, s)
	}

	// Profiles: the user profile of TestUserProfile with its CSV, and each
	// built-in profile with the first sample it reads.
	userDir := filepath.Join("testdata", "TestUserProfile")
	toml, err := os.ReadFile(filepath.Join(userDir, "mycloud.toml"))
	if err != nil {
		t.Fatal(err)
	}
	csvData, err := os.ReadFile(filepath.Join(userDir, "mycloud.csv"))
	if err != nil {
		t.Fatal(err)
	}
	addSeed(fz("FuzzParseProfile"), "mycloud.toml", toml)
	addSeed(fz("FuzzUserProfile"), "mycloud", toml, csvData)
	for _, bp := range BuiltinProfiles() {
		for _, s := range samples {
			if !strings.HasPrefix(s.name, "gpu-console-") || strings.Contains(s.name, "bad_") {
				continue
			}
			restore := UseProfiles(bp.Profile)
			res, err := Scan(context.Background(), s.path, Options{TZ: shanghai})
			restore()
			if err == nil && res.Format == bp.ID {
				addSeed(fz("FuzzUserProfile"), bp.ID, bp.Data, headLines(s.data, 6))
				break
			}
		}
	}
	for i := range seeds {
		seeds[i].dir = filepath.Clean(seeds[i].dir)
	}
	// Several samples may share a seed name once cut to ASCII: number them.
	seen := map[string]int{}
	for i := range seeds {
		k := filepath.Join(seeds[i].dir, seeds[i].name)
		if n := seen[k]; n > 0 {
			seeds[i].name += "-" + strconv.Itoa(n+1)
		}
		seen[k]++
	}
	return seeds, external
}

// shape is a cell with every run of ASCII digits written 9 and everything
// else kept: "2026-10-02 10:00" → "9-9-9 9:9", "¥1,234.50" → "¥9,9.9".
func shape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			b.WriteByte(c)
		} else if i == 0 || s[i-1] < '0' || s[i-1] > '9' {
			b.WriteByte('9')
		}
	}
	return b.String()
}

// distinctShapes returns the non-empty strings of at most 64 bytes, one
// per shape, in first-seen order, at most 60.
func distinctShapes(ss []string) []string { return distinctBy(ss, shape) }

// digitShape is a cell with every ASCII digit written 9.
func digitShape(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '9'
		}
		return r
	}, s)
}

// distinctBy is distinctShapes with another shape.
func distinctBy(ss []string, shape func(string) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		k := shape(s)
		if s == "" || len(s) > 64 || seen[k] || len(out) == 60 {
			continue
		}
		seen[k] = true
		out = append(out, s)
	}
	return out
}

// seedName makes a portable file name: ASCII letters, digits, '.', '-'
// and '_' kept, anything else written '_' (runs collapsed), at most 60 bytes.
func seedName(s string) string {
	var b strings.Builder
	last := byte(0)
	for i := 0; i < len(s) && b.Len() < 60; i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-'
		if !ok {
			c = '_'
			if last == '_' {
				continue
			}
		}
		b.WriteByte(c)
		last = c
	}
	return b.String()
}

// marshalSeed encodes values in Go's corpus file format ("go test fuzz v1").
func marshalSeed(vals ...any) []byte {
	b := bytes.NewBufferString("go test fuzz v1\n")
	for _, v := range vals {
		switch v := v.(type) {
		case []byte:
			fmt.Fprintf(b, "[]byte(%q)\n", v)
		case string:
			fmt.Fprintf(b, "string(%q)\n", v)
		case uint8:
			fmt.Fprintf(b, "byte(%q)\n", v)
		default:
			panic(fmt.Sprintf("marshalSeed: unsupported type %T", v))
		}
	}
	return b.Bytes()
}

// corpusTypes lists the value types of a corpus file ("[]byte,string"), or
// "bad header" when it is not one.
func corpusTypes(data []byte) string {
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) < 2 || lines[0] != "go test fuzz v1" {
		return "bad header"
	}
	var types []string
	for _, l := range lines[1:] {
		typ, _, ok := strings.Cut(l, "(")
		if !ok {
			return "bad line " + strconv.Quote(l)
		}
		if typ == "uint8" {
			typ = "byte"
		}
		types = append(types, typ)
	}
	return strings.Join(types, ",")
}

// writeFuzzCorpus writes the seeds and removes sample-* files no sample
// makes any more (external ones only when the external samples are here).
func writeFuzzCorpus(t *testing.T, seeds []seedFile, external bool) {
	t.Helper()
	want := map[string]bool{}
	dirs := map[string]bool{}
	for _, s := range seeds {
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(s.dir, s.name)
		if err := os.WriteFile(p, marshalSeed(s.vals...), 0o644); err != nil {
			t.Fatal(err)
		}
		want[p], dirs[s.dir] = true, true
	}
	for dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if !strings.HasPrefix(e.Name(), "sample-") || want[p] || (!external && strings.Contains(e.Name(), "-ext-")) {
				continue
			}
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}
	}
}

package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
	"github.com/shopspring/decimal"
)

// Profiles: declarative formats written in TOML (docs/profiles.md). A
// profile names the ledger target, the header aliases of each ledger field,
// which fields must be present for the layout to be recognised, ordered
// regular-expression rules that classify kind, pricing model and money-flow
// type, the amount scale and sign convention, time layouts and rows to skip.
// It compiles to a *Format with the same mapper shape as the built-in
// formats (template.go). The built-in console-copy profiles live in
// profiles/*.toml (profiles_builtin.go); a user's own are given with
// `gpubill import --profile FILE`.

// Profile is a loaded, validated profile.
type Profile struct {
	Path       string // the file it was read from ("builtin:ID" for embedded ones)
	ID         string
	Version    string
	NameZH     string
	NameEN     string
	Target     string // TargetLineItems or TargetTransactions
	Confidence string
	// Encoding is the profile's encoding override ("" = detect). The
	// importer decodes a file before any format is known, so the override
	// is not applied yet (see docs/profiles.md).
	Encoding string
	// Accept lists the platforms the profile takes from --provider or the
	// file name (empty = any); Fixed is its fixed platform, if any.
	Accept []string
	Fixed  string

	format *Format
}

// profileFile is the TOML document.
type profileFile struct {
	ID         string              `toml:"id"`
	Version    string              `toml:"version"`
	NameZH     string              `toml:"name_zh"`
	NameEN     string              `toml:"name_en"`
	Target     string              `toml:"target"`
	Confidence string              `toml:"confidence"`
	DetectZH   string              `toml:"detect_zh"`
	DetectEN   string              `toml:"detect_en"`
	Encoding   string              `toml:"encoding"`
	Provider   profileProvider     `toml:"provider"`
	Detect     profileDetect       `toml:"detect"`
	Columns    map[string][]string `toml:"columns"`
	Classify   profileClassify     `toml:"classify"`
	Kind       []profileRule       `toml:"kind"`
	Pricing    []profileRule       `toml:"pricing"`
	TxType     []profileRule       `toml:"tx_type"`
	Defaults   profileDefaults     `toml:"defaults"`
	Amount     profileAmount       `toml:"amount"`
	Time       profileTime         `toml:"time"`
	Skip       profileSkip         `toml:"skip"`
}

type profileProvider struct {
	Fixed      string   `toml:"fixed"`
	FromSource bool     `toml:"from_source"`
	Accept     []string `toml:"accept"`
	// NameZH and NameEN are the display names of a slug of the profile's
	// own (fixed or accept names a provider that is not a built-in
	// platform, such as aws or azure).
	NameZH string `toml:"name_zh"`
	NameEN string `toml:"name_en"`
}

type profileDetect struct {
	Required []string `toml:"required"`
}

type profileClassify struct {
	Columns []string `toml:"columns"`
}

// profileRule is one [[kind]], [[pricing]] or [[tx_type]] rule; only the
// value key of its own table may be set.
type profileRule struct {
	Match   string   `toml:"match"`
	Columns []string `toml:"columns"`
	Kind    string   `toml:"kind"`
	Pricing string   `toml:"pricing"`
	Type    string   `toml:"type"`
}

type profileDefaults struct {
	Kind         string `toml:"kind"`
	Pricing      string `toml:"pricing"`
	Currency     string `toml:"currency"`
	Unit         string `toml:"unit"`
	DurationUnit string `toml:"duration_unit"`
	TxNegative   string `toml:"tx_type_negative"`
	TxPositive   string `toml:"tx_type_positive"`
}

type profileAmount struct {
	Scale string `toml:"scale"`
	Sign  string `toml:"sign"`
}

type profileTime struct {
	Layouts []string `toml:"layouts"`
}

type profileSkip struct {
	AfterHeader int               `toml:"after_header"`
	Rows        []profileSkipRule `toml:"rows"`
}

type profileSkipRule struct {
	Column string `toml:"column"`
	Match  string `toml:"match"`
}

// profileFields are the ledger fields a profile may map, per target, in the
// order their columns are bound (canonical order, so binding never depends
// on the order of keys in the file).
var profileFields = map[string][]string{
	TargetLineItems: {"provider", "account", "sub_account", "resource_id", "resource_name", "type", "pricing",
		"gpu_model", "gpu_count", "region", "start", "end", "time", "duration", "quantity", "unit", "unit_price",
		"list_cost", "billed_cost", "voucher_paid", "cash_paid", "currency", "description", "order_id"},
	TargetTransactions: {"provider", "account", "time", "type", "amount", "balance", "reference", "description", "currency"},
}

// profileMust are the fields each target cannot do without; they are always
// required headers.
var profileMust = map[string][]string{
	TargetLineItems:    {"billed_cost"},
	TargetTransactions: {"time", "amount"},
}

var profileIDRe = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// profileError is a problem in a profile file: it names the file and key.
type profileError struct {
	file, key, msg string
}

func (e *profileError) Error() string {
	if e.key == "" {
		return "profile " + e.file + ": " + e.msg
	}
	return "profile " + e.file + ": " + e.key + ": " + e.msg
}

// LoadProfile reads and validates the profile file at path.
func LoadProfile(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	return ParseProfile(path, data)
}

// ParseProfile validates a profile document; name is used in errors.
func ParseProfile(name string, data []byte) (*Profile, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var pf profileFile
	md, err := toml.Decode(string(data), &pf)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &profileError{file: name, msg: fmt.Sprintf("line %d: %s", pe.Position.Line, pe.Message)}
		}
		return nil, &profileError{file: name, msg: err.Error()}
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, &profileError{file: name, key: keys[0], msg: "unknown key" + plural(len(keys)) + " (" + strings.Join(keys, ", ") + ")"}
	}
	return compileProfile(name, &pf)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// compiled holds what a profile's mappers use.
type compiledProfile struct {
	pf       *profileFile
	name     string
	fields   []string // mapped field names, in binding order
	classify []string
	kinds    []compiledRule
	pricings []compiledRule
	txTypes  []compiledRule
	skips    []compiledRule
	scale    decimal.Decimal
	hasScale bool
	sign     string
	layouts  []string
	defKind  string
	defPrice string
	defCur   string
	defUnit  string
	durUnit  time.Duration
	txNeg    string
	txPos    string
	fixed    string
	accept   []string
	// ownSlugs are the provider slugs the profile names that are not
	// built-in platforms (aws, azure …); ownNames maps their slugs and
	// display names, lower-cased, to the slug for a provider column.
	ownSlugs  []string
	ownNames  map[string]string
	fromSrc   bool
	required  map[string]bool
	hasColumn map[string]bool
}

type compiledRule struct {
	re      *regexp.Regexp
	columns []string
	value   string
}

func compileProfile(name string, pf *profileFile) (*Profile, error) {
	bad := func(key, format string, a ...any) error {
		return &profileError{file: name, key: key, msg: fmt.Sprintf(format, a...)}
	}
	if pf.ID == "" {
		return nil, bad("id", "missing (a short name such as \"my-cloud-bill\")")
	}
	if !profileIDRe.MatchString(pf.ID) {
		return nil, bad("id", "%q: use lower-case letters, digits and dashes", pf.ID)
	}
	if pf.Version == "" {
		pf.Version = "1"
	}
	if pf.NameZH == "" && pf.NameEN == "" {
		return nil, bad("name_zh", "missing (give name_zh and/or name_en)")
	}
	if pf.NameZH == "" {
		pf.NameZH = pf.NameEN
	}
	if pf.NameEN == "" {
		pf.NameEN = pf.NameZH
	}
	switch pf.Target {
	case TargetLineItems, TargetTransactions:
	case "":
		return nil, bad("target", "missing (line_items or transactions)")
	default:
		return nil, bad("target", "%q is not line_items or transactions", pf.Target)
	}
	switch pf.Confidence {
	case "":
		pf.Confidence = ConfidenceGuess
	case ConfidenceDoc, ConfidenceParser, ConfidenceGuess, ConfidenceOurs:
	default:
		return nil, bad("confidence", "%q is not doc, parser, guess or ours", pf.Confidence)
	}
	switch strings.ToLower(pf.Encoding) {
	case "", "auto":
		pf.Encoding = ""
	case "utf-8", "utf8":
		pf.Encoding = EncUTF8
	case "gbk", "gb2312", "gb18030":
		pf.Encoding = EncGB18030
	case "utf-16le":
		pf.Encoding = EncUTF16LE
	case "utf-16be":
		pf.Encoding = EncUTF16BE
	default:
		return nil, bad("encoding", "%q is not auto, utf-8, gbk, gb18030, utf-16le or utf-16be", pf.Encoding)
	}
	cp := &compiledProfile{pf: pf, name: name, required: map[string]bool{}, hasColumn: map[string]bool{}, ownNames: map[string]string{}}

	// Columns.
	allowed := profileFields[pf.Target]
	if len(pf.Columns) == 0 {
		return nil, bad("columns", "missing: map at least the ledger fields %s to their headers", strings.Join(profileMust[pf.Target], ", "))
	}
	var custom []string
	for f, hs := range pf.Columns {
		key := "columns." + f
		if !slices.Contains(allowed, f) {
			if !strings.HasPrefix(f, "x_") || len(f) < 3 {
				return nil, bad(key, "unknown field for target %s (known: %s; or a name starting with x_ for a column kept in raw and usable by rules)",
					pf.Target, strings.Join(allowed, ", "))
			}
			custom = append(custom, f)
		}
		if len(hs) == 0 {
			return nil, bad(key, "no header names given")
		}
		for _, h := range hs {
			if normCol(h) == "" {
				return nil, bad(key, "empty header name")
			}
		}
		cp.hasColumn[f] = true
	}
	slices.Sort(custom)
	for _, f := range allowed {
		if cp.hasColumn[f] {
			cp.fields = append(cp.fields, f)
		}
	}
	cp.fields = append(cp.fields, custom...)
	for _, f := range profileMust[pf.Target] {
		if !cp.hasColumn[f] {
			return nil, bad("columns."+f, "missing: a %s profile needs this column", pf.Target)
		}
		cp.required[f] = true
	}
	if pf.Target == TargetLineItems && !cp.hasColumn["start"] && !cp.hasColumn["time"] {
		return nil, bad("columns.start", "missing: a line_items profile needs a start or a time column")
	}
	for i, f := range pf.Detect.Required {
		if !cp.hasColumn[f] {
			return nil, bad(fmt.Sprintf("detect.required[%d]", i), "%q is not a field under [columns]", f)
		}
		cp.required[f] = true
	}
	if pf.Target == TargetLineItems && !cp.hasColumn["start"] {
		cp.required["time"] = true
	} else if pf.Target == TargetLineItems && !cp.hasColumn["time"] {
		cp.required["start"] = true
	}

	// Provider.
	pv := pf.Provider
	if pv.Fixed != "" {
		slug, ok := cp.providerSlug(pv.Fixed)
		if !ok {
			return nil, bad("provider.fixed", "%q is neither a known platform nor a slug (lower-case letters, digits and dashes, such as aws)", pv.Fixed)
		}
		if pv.FromSource || cp.hasColumn["provider"] || len(pv.Accept) > 0 {
			return nil, bad("provider.fixed", "a fixed platform excludes from_source, accept and a provider column")
		}
		cp.fixed = slug
	} else if !pv.FromSource && !cp.hasColumn["provider"] {
		return nil, bad("provider", "missing: set fixed = \"SLUG\", from_source = true (--provider or the file name), or map columns.provider")
	}
	for i, a := range pv.Accept {
		slug, ok := cp.providerSlug(a)
		if !ok {
			return nil, bad(fmt.Sprintf("provider.accept[%d]", i), "%q is neither a known platform nor a slug (lower-case letters, digits and dashes, such as aws)", a)
		}
		cp.accept = append(cp.accept, slug)
	}
	if (pv.NameZH != "" || pv.NameEN != "") && len(cp.ownSlugs) == 0 {
		return nil, bad("provider.name_zh", "display names are for a slug of the profile's own (fixed or accept names a built-in platform, which has its names)")
	}
	for _, slug := range cp.ownSlugs {
		if len(cp.ownSlugs) == 1 {
			platform.SetName(slug, pv.NameZH, pv.NameEN)
		}
		cp.ownNames[strings.ToLower(platform.Name(slug, "zh"))] = slug
		cp.ownNames[strings.ToLower(platform.Name(slug, "en"))] = slug
		cp.ownNames[slug] = slug
	}
	cp.fromSrc = pv.FromSource

	// Classification rules.
	cp.classify = pf.Classify.Columns
	for i, c := range cp.classify {
		if !cp.hasColumn[c] {
			return nil, bad(fmt.Sprintf("classify.columns[%d]", i), "%q is not a field under [columns]", c)
		}
	}
	if len(cp.classify) == 0 {
		for _, f := range []string{"type", "description"} {
			if cp.hasColumn[f] {
				cp.classify = append(cp.classify, f)
			}
		}
	}
	compileRules := func(table string, rules []profileRule, value func(r profileRule) (string, string), parse func(string) (string, bool), known string) ([]compiledRule, error) {
		var out []compiledRule
		for i, r := range rules {
			key := fmt.Sprintf("%s[%d]", table, i)
			own, other := value(r)
			if other != "" {
				return nil, bad(key, "only %s = … belongs in a [[%s]] rule", table, table)
			}
			if own == "" {
				return nil, bad(key+"."+valueKey(table), "missing")
			}
			v, ok := parse(own)
			if !ok {
				return nil, bad(key+"."+valueKey(table), "%q is not one of %s", own, known)
			}
			if r.Match == "" {
				return nil, bad(key+".match", "missing (a regular expression)")
			}
			re, err := regexp.Compile(r.Match)
			if err != nil {
				return nil, bad(key+".match", "%v", err)
			}
			cols := r.Columns
			for j, c := range cols {
				if !cp.hasColumn[c] {
					return nil, bad(fmt.Sprintf("%s.columns[%d]", key, j), "%q is not a field under [columns]", c)
				}
			}
			if len(cols) == 0 {
				cols = cp.classify
			}
			if len(cols) == 0 {
				return nil, bad(key+".columns", "missing: name the columns to match (or set classify.columns)")
			}
			out = append(out, compiledRule{re: re, columns: cols, value: v})
		}
		return out, nil
	}
	var err error
	if pf.Target == TargetLineItems {
		if len(pf.TxType) > 0 {
			return nil, bad("tx_type", "only a transactions profile classifies money-flow types")
		}
		if cp.kinds, err = compileRules("kind", pf.Kind, func(r profileRule) (string, string) { return r.Kind, r.Pricing + r.Type },
			ParseKind, strings.Join(ledger.Kinds, ", ")); err != nil {
			return nil, err
		}
		if cp.pricings, err = compileRules("pricing", pf.Pricing, func(r profileRule) (string, string) { return r.Pricing, r.Kind + r.Type },
			ParsePricingModel, strings.Join(ledger.PricingModels, ", ")); err != nil {
			return nil, err
		}
	} else {
		if len(pf.Kind) > 0 || len(pf.Pricing) > 0 {
			return nil, bad("kind", "only a line_items profile classifies kinds and pricing models")
		}
		if cp.txTypes, err = compileRules("tx_type", pf.TxType, func(r profileRule) (string, string) { return r.Type, r.Kind + r.Pricing },
			ParseTxType, strings.Join(ledger.TxTypes, ", ")); err != nil {
			return nil, err
		}
	}

	// Defaults.
	d := pf.Defaults
	cp.defKind = ledger.KindOther
	if d.Kind != "" {
		k, ok := ParseKind(d.Kind)
		if !ok {
			return nil, bad("defaults.kind", "%q is not one of %s", d.Kind, strings.Join(ledger.Kinds, ", "))
		}
		cp.defKind = k
	}
	cp.defPrice = ledger.PricingOnDemand
	if d.Pricing != "" {
		p, ok := ParsePricingModel(d.Pricing)
		if !ok {
			return nil, bad("defaults.pricing", "%q is not one of %s", d.Pricing, strings.Join(ledger.PricingModels, ", "))
		}
		cp.defPrice = p
	}
	cur, ok := normCurrency(d.Currency)
	if !ok {
		return nil, bad("defaults.currency", "%q is not a currency code", d.Currency)
	}
	cp.defCur = cur
	if d.Unit != "" {
		if cp.defUnit, ok = ParseUnit(d.Unit); !ok {
			return nil, bad("defaults.unit", "%q is not a unit (%s)", d.Unit, strings.Join(Units, ", "))
		}
	}
	switch strings.ToLower(d.DurationUnit) {
	case "", "second", "秒":
		cp.durUnit = time.Second
	case "minute", "分钟":
		cp.durUnit = time.Minute
	case "hour", "小时":
		cp.durUnit = time.Hour
	case "day", "天":
		cp.durUnit = 24 * time.Hour
	default:
		return nil, bad("defaults.duration_unit", "%q is not second, minute, hour or day", d.DurationUnit)
	}
	for _, x := range []struct {
		key string
		in  string
		out *string
	}{{"defaults.tx_type_negative", d.TxNegative, &cp.txNeg}, {"defaults.tx_type_positive", d.TxPositive, &cp.txPos}} {
		if x.in == "" {
			continue
		}
		if pf.Target != TargetTransactions {
			return nil, bad(x.key, "only for a transactions profile")
		}
		t, ok := ParseTxType(x.in)
		if !ok {
			return nil, bad(x.key, "%q is not one of %s", x.in, strings.Join(ledger.TxTypes, ", "))
		}
		*x.out = t
	}

	// Amounts.
	if s := pf.Amount.Scale; s != "" {
		sc, err := decimal.NewFromString(s)
		if err != nil || !sc.IsPositive() {
			return nil, bad("amount.scale", "%q is not a positive decimal (e.g. \"0.001\" for 厘)", s)
		}
		cp.scale, cp.hasScale = sc, !sc.Equal(decimal.NewFromInt(1))
	}
	switch pf.Amount.Sign {
	case "", "as_is":
		cp.sign = "as_is"
	case "negate", "abs":
		cp.sign = pf.Amount.Sign
	default:
		return nil, bad("amount.sign", "%q is not as_is, negate or abs", pf.Amount.Sign)
	}

	// Times.
	cp.layouts = pf.Time.Layouts
	for i, l := range cp.layouts {
		if l == "builtin" {
			continue
		}
		// A layout must at least hold a year, a month and a day.
		if !strings.Contains(l, "2006") || !(strings.Contains(l, "01") || strings.Contains(l, "1") || strings.Contains(l, "Jan")) {
			return nil, bad(fmt.Sprintf("time.layouts[%d]", i), "%q is not a Go time layout (write the reference time 2006-01-02 15:04:05, or \"builtin\")", l)
		}
	}
	if len(cp.layouts) == 0 {
		cp.layouts = []string{"builtin"}
	}

	// Skips.
	if pf.Skip.AfterHeader < 0 || pf.Skip.AfterHeader > 100 {
		return nil, bad("skip.after_header", "%d is not between 0 and 100", pf.Skip.AfterHeader)
	}
	for i, s := range pf.Skip.Rows {
		key := fmt.Sprintf("skip.rows[%d]", i)
		if !cp.hasColumn[s.Column] {
			return nil, bad(key+".column", "%q is not a field under [columns]", s.Column)
		}
		re, err := regexp.Compile(s.Match)
		if err != nil || s.Match == "" {
			if err == nil {
				err = errors.New("missing (a regular expression)")
			}
			return nil, bad(key+".match", "%v", err)
		}
		cp.skips = append(cp.skips, compiledRule{re: re, columns: []string{s.Column}})
	}

	p := &Profile{Path: name, ID: pf.ID, Version: pf.Version, NameZH: pf.NameZH, NameEN: pf.NameEN, Target: pf.Target,
		Confidence: pf.Confidence, Encoding: pf.Encoding, Accept: cp.accept, Fixed: cp.fixed}
	p.format = cp.format()
	return p, nil
}

func valueKey(table string) string {
	switch table {
	case "kind":
		return "kind"
	case "pricing":
		return "pricing"
	}
	return "type"
}

// format builds the Format of a compiled profile.
func (cp *compiledProfile) format() *Format {
	pf := cp.pf
	f := &Format{ID: pf.ID, Version: pf.Version, NameZH: pf.NameZH, NameEN: pf.NameEN, Confidence: pf.Confidence,
		Target: pf.Target, DetectZH: pf.DetectZH, DetectEN: pf.DetectEN}
	var req []string
	for _, fld := range cp.fields {
		c := Column{Field: fld, Headers: append([]string(nil), pf.Columns[fld]...), Required: cp.required[fld],
			RawOnly: strings.HasPrefix(fld, "x_")}
		f.Columns = append(f.Columns, c)
		if c.Required {
			req = append(req, c.Headers[0])
		}
	}
	if pf.Target == TargetLineItems && !cp.required["start"] && !cp.required["time"] {
		// Either column will do.
		f.match = func(b *binding) bool { return b.idx("start") >= 0 || b.idx("time") >= 0 }
		req = append(req, pf.Columns["start"][0]+"|"+pf.Columns["time"][0])
	}
	src := ""
	switch {
	case cp.fixed != "":
		src = "platform " + cp.fixed
	case cp.fromSrc && cp.hasColumn["provider"]:
		src = "platform from its column, else --provider or the file name"
	case cp.fromSrc:
		src = "platform from --provider or the file name"
	default:
		src = "platform from its column"
	}
	srcZH := map[string]string{
		"platform from its column, else --provider or the file name": "平台取自平台列，否则取自 --provider 或文件名",
		"platform from --provider or the file name":                  "平台取自 --provider 或文件名",
		"platform from its column":                                   "平台取自平台列",
	}[src]
	if cp.fixed != "" {
		srcZH = "平台固定为 " + cp.fixed
	}
	if f.DetectZH == "" {
		f.DetectZH = "用户配置（profile）：表头含 " + strings.Join(req, "、") + "；" + srcZH
	}
	if f.DetectEN == "" {
		f.DetectEN = "profile: header holds " + strings.Join(req, ", ") + "; " + src
	}
	if pf.Target == TargetTransactions {
		f.DedupeKey = "hash of provider, account, time, type, amount, currency, balance, reference, description + occurrence number in the file"
		f.txs = cp.txs
	} else {
		f.DedupeKey = "hash of provider, account, resource_id, kind, charge category, charge period, quantity and unit, unit price, amounts, currency, description + occurrence number in the file"
		f.lines = cp.lines
	}
	return f
}

// providerNames are the spellings searched for in file names, longest
// first so that "恒源云" is reported rather than "恒源".
var providerNames = func() [][2]string {
	var out [][2]string
	for _, p := range platform.All {
		for _, n := range append([]string{p.Slug, p.NameZH, p.NameEN}, p.Aliases...) {
			n = strings.ToLower(n)
			if len([]rune(n)) >= 2 && !slices.ContainsFunc(out, func(x [2]string) bool { return x[0] == n }) {
				out = append(out, [2]string{n, p.Slug})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	return out
}()

// providerFromName returns the platforms whose name appears in a file name
// (without its folder), sorted.
func providerFromName(path string) []string {
	base := strings.ToLower(filepath.Base(path))
	var slugs []string
	for _, pn := range providerNames {
		if strings.Contains(base, pn[0]) && !slices.Contains(slugs, pn[1]) {
			slugs = append(slugs, pn[1])
		}
	}
	slices.Sort(slugs)
	return slugs
}

// platformHint lists the platform names a file name may carry.
const platformHint = "AutoDL, 恒源云/gpushare, 矩池云/matpool, GpuGeek, 揽睿星舟/lanrui, 潞晨云/luchen"

// sourceProvider resolves the platform of a file whose rows cannot tell it:
// --provider first, then a platform name in the file name. It never guesses:
// no name, or several, is an error naming the file and the flag. accept,
// when not empty, limits the platforms taken.
func sourceProvider(env *mapEnv, formatID string, accept []string) (string, error) {
	slug := env.provider
	how := "--provider"
	if slug == "" {
		names := providerFromName(env.path)
		switch len(names) {
		case 0:
			return "", &InputError{File: env.path, Msg: fmt.Sprintf(
				"format %s cannot tell which platform this file is from: put the platform in the file name (%s) or pass --provider SLUG",
				formatID, platformHint)}
		case 1:
			slug, how = names[0], "the file name"
		default:
			return "", &InputError{File: env.path, Msg: fmt.Sprintf(
				"format %s: the file name names several platforms (%s): rename the file or pass --provider SLUG",
				formatID, strings.Join(names, ", "))}
		}
	}
	if len(accept) > 0 && !slices.Contains(accept, slug) {
		return "", &InputError{File: env.path, Msg: fmt.Sprintf("format %s reads only %s files, but %s says %s (pass --provider or use another profile)",
			formatID, strings.Join(accept, ", "), how, slug)}
	}
	return slug, nil
}

// profileRow resolves the columns of one binding.
type profileRow struct {
	cp  *compiledProfile
	idx map[string]int
	env *mapEnv
	src string // platform from --provider or the file name
	n   int    // records seen (for skip.after_header)
}

func (cp *compiledProfile) newRow(b *binding, env *mapEnv) (*profileRow, error) {
	r := &profileRow{cp: cp, idx: map[string]int{}, env: env}
	for _, f := range cp.fields {
		r.idx[f] = b.idx(f)
	}
	if cp.fixed == "" && cp.fromSrc {
		// Without a provider column every row needs the source platform:
		// refuse the file before its first row.
		if r.idx["provider"] < 0 {
			src, err := sourceProvider(env, cp.pf.ID, cp.accept)
			if err != nil {
				return nil, err
			}
			r.src = src
		}
	}
	return r, nil
}

func (r *profileRow) ix(field string) int {
	if i, ok := r.idx[field]; ok {
		return i
	}
	return -1
}

// skip reports rows the profile skips: after_header records, total lines and
// [[skip.rows]] matches.
func (r *profileRow) skip(c *rowCtx) bool {
	r.n++
	if r.n <= r.cp.pf.Skip.AfterHeader || isTotalRow(c.rec) {
		return true
	}
	for _, s := range r.cp.skips {
		if s.re.MatchString(c.cell(r.ix(s.columns[0]))) {
			return true
		}
	}
	return false
}

// provider resolves the platform of a row.
func (r *profileRow) provider(c *rowCtx, m *memo) (string, error) {
	if r.cp.fixed != "" {
		return r.cp.fixed, nil
	}
	i := r.ix("provider")
	if s := c.cell(i); s != "" {
		slug, ok := m.get(s)
		if !ok {
			return "", c.errAt(i, fmt.Sprintf("%q is not a known platform (a provider of your own goes in the profile: [provider] accept = [\"aws\"], name_en = \"AWS\")", s))
		}
		if len(r.cp.accept) > 0 && !slices.Contains(r.cp.accept, slug) {
			return "", c.errAt(i, fmt.Sprintf("platform %s is not one this profile accepts (%s)", slug, strings.Join(r.cp.accept, ", ")))
		}
		return slug, nil
	}
	if r.src != "" {
		return r.src, nil
	}
	if r.cp.fromSrc {
		src, err := sourceProvider(r.env, r.cp.pf.ID, r.cp.accept)
		if err != nil {
			return "", err
		}
		r.src = src
		return src, nil
	}
	return "", c.errAt(i, "required value is empty (the profile takes the platform from this column)")
}

// text reads a text cell; "-", "--" and the like mean empty.
func (r *profileRow) text(c *rowCtx, field string) string {
	s := c.cell(r.ix(field))
	if isUnknownText(s) {
		return ""
	}
	return s
}

// classify returns the value of the first rule that matches.
func (r *profileRow) classify(c *rowCtx, rules []compiledRule) (string, bool) {
	for _, rule := range rules {
		for _, col := range rule.columns {
			if s := c.cell(r.ix(col)); s != "" && rule.re.MatchString(s) {
				return rule.value, true
			}
		}
	}
	return "", false
}

// amount reads a money cell with the profile's scale; signed applies the
// sign convention.
func (r *profileRow) amount(c *rowCtx, field string, signed bool) (decimal.NullDecimal, error) {
	d, err := c.amount(r.ix(field))
	if err != nil || !d.Valid {
		return d, err
	}
	if r.cp.hasScale {
		d.Decimal = d.Decimal.Mul(r.cp.scale)
	}
	if signed {
		switch r.cp.sign {
		case "negate":
			d.Decimal = d.Decimal.Neg()
		case "abs":
			d.Decimal = d.Decimal.Abs()
		}
	}
	return d, nil
}

// time reads a time cell with the profile's layouts.
func (r *profileRow) time(c *rowCtx, field string) (time.Time, error) {
	i := r.ix(field)
	s := c.cell(i)
	if i < 0 || isUnknownText(s) {
		return time.Time{}, nil
	}
	for _, l := range r.cp.layouts {
		if l == "builtin" {
			if t, err := c.time(i, r.env.tz); err == nil {
				return t, nil
			}
			continue
		}
		if t, err := time.ParseInLocation(l, s, r.env.tz); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, c.errAt(i, fmt.Sprintf("%q does not match the profile's time layouts (%s)", s, strings.Join(r.cp.layouts, " | ")))
}

// duration reads a duration cell: 1小时30分, 2.5小时, 90分钟, 3600秒, 1天2小时,
// 01:30:00, 1h30m, or a bare number in defaults.duration_unit.
func (r *profileRow) duration(c *rowCtx) (time.Duration, error) {
	i := r.ix("duration")
	s := c.cell(i)
	if i < 0 || isUnknownText(s) {
		return 0, nil
	}
	d, ok := parseDuration(s, r.cp.durUnit)
	if !ok {
		return 0, c.errAt(i, fmt.Sprintf("%q is not a duration (1小时30分, 90分钟, 01:30:00, 1h30m …)", s))
	}
	return d, nil
}

var durationUnits = []struct {
	names []string
	d     time.Duration
}{
	{[]string{"天", "日", "d", "day", "days"}, 24 * time.Hour},
	{[]string{"小时", "时", "h", "hr", "hrs", "hour", "hours"}, time.Hour},
	{[]string{"分钟", "分", "m", "min", "mins", "minute", "minutes"}, time.Minute},
	{[]string{"秒钟", "秒", "s", "sec", "secs", "second", "seconds"}, time.Second},
}

func parseDuration(s string, bare time.Duration) (time.Duration, bool) {
	t := strings.ToLower(strings.ReplaceAll(trimCell(s), " ", ""))
	if t == "" || len(t) > 64 {
		return 0, false
	}
	if strings.Count(t, ":") == 2 || strings.Count(t, ":") == 1 {
		parts := strings.Split(t, ":")
		var total time.Duration
		mults := []time.Duration{time.Hour, time.Minute, time.Second}
		if len(parts) == 2 {
			mults = mults[:2] // HH:MM
		}
		for k, p := range parts {
			n, err := strconv.Atoi(p)
			if err != nil || n < 0 || n > 1e6 {
				return 0, false
			}
			total += time.Duration(n) * mults[k]
		}
		return total, true
	}
	if d, err := decimal.NewFromString(t); err == nil {
		return scaleDuration(d, bare)
	}
	var total time.Duration
	rest := t
	for rest != "" {
		j := 0
		for j < len(rest) && (rest[j] >= '0' && rest[j] <= '9' || rest[j] == '.') {
			j++
		}
		if j == 0 {
			return 0, false
		}
		num, err := decimal.NewFromString(rest[:j])
		if err != nil {
			return 0, false
		}
		rest = rest[j:]
		best, bestLen := time.Duration(0), 0
		for _, u := range durationUnits {
			for _, n := range u.names {
				if strings.HasPrefix(rest, n) && len(n) > bestLen {
					best, bestLen = u.d, len(n)
				}
			}
		}
		if bestLen == 0 {
			return 0, false
		}
		rest = rest[bestLen:]
		d, ok := scaleDuration(num, best)
		if !ok {
			return 0, false
		}
		total += d
	}
	return total, true
}

func scaleDuration(n decimal.Decimal, unit time.Duration) (time.Duration, bool) {
	if n.IsNegative() || n.GreaterThan(decimal.NewFromInt(1e6)) {
		return 0, false
	}
	return time.Duration(n.Mul(decimal.NewFromInt(int64(unit))).IntPart()), true
}

// lines builds the line-item mapper of a profile.
func (cp *compiledProfile) lines(b *binding, env *mapEnv) (lineMapper, error) {
	r, err := cp.newRow(b, env)
	if err != nil {
		return nil, err
	}
	providers, units, currencies := newMemo(cp.parseProvider), newMemo(ParseUnit), newMemo(normCurrency)
	return func(c *rowCtx, li *ledger.LineItem) (bool, error) {
		if r.skip(c) {
			return true, nil
		}
		var err error
		if li.Provider, err = r.provider(c, providers); err != nil {
			return false, err
		}
		li.BillingAccountID = r.text(c, "account")
		li.SubAccount = r.text(c, "sub_account")
		li.ResourceID = r.text(c, "resource_id")
		li.ResourceName = r.text(c, "resource_name")
		li.GPUModel = r.text(c, "gpu_model")
		li.Region = r.text(c, "region")
		li.ServiceName = r.text(c, "type")
		if li.GPUCount, err = c.count(r.ix("gpu_count")); err != nil {
			return false, err
		}
		var ok bool
		if li.Kind, ok = r.classify(c, cp.kinds); !ok {
			li.Kind = cp.defKind
		}
		if li.PricingModel, ok = r.classify(c, cp.pricings); !ok {
			li.PricingModel = cp.defPrice
		}
		start, err := r.time(c, "start")
		if err != nil {
			return false, err
		}
		if start.IsZero() {
			if start, err = r.time(c, "time"); err != nil {
				return false, err
			}
		}
		end, err := r.time(c, "end")
		if err != nil {
			return false, err
		}
		dur, err := r.duration(c)
		if err != nil {
			return false, err
		}
		switch {
		case start.IsZero() && !end.IsZero():
			start = end.Add(-dur)
		case start.IsZero():
			i := r.ix("start")
			if i < 0 {
				i = r.ix("time")
			}
			return false, c.errAt(i, "required time is empty")
		case end.IsZero():
			end = start.Add(dur)
		}
		if end.Before(start) {
			return false, c.errAt(r.ix("end"), fmt.Sprintf("end %q is before start %q", c.cell(r.ix("end")), c.cell(r.ix("start"))))
		}
		li.ChargePeriodStart, li.ChargePeriodEnd = start, end
		if r.ix("end") >= 0 || dur > 0 {
			li.UsageStart, li.UsageEnd = start, end
		}
		if li.PricingQuantity, err = c.amount(r.ix("quantity")); err != nil {
			return false, err
		}
		li.PricingUnit = cp.defUnit
		if u := c.cell(r.ix("unit")); u != "" {
			if li.PricingUnit, ok = units.get(u); !ok {
				return false, c.errAt(r.ix("unit"), fmt.Sprintf("%q is not a unit (小时, 分钟, 秒, 天, GB, GB·天, GB·月, 次 or %s)", u, strings.Join(Units, ", ")))
			}
		}
		if !li.PricingQuantity.Valid {
			li.PricingUnit = ""
		}
		if li.ListUnitPrice, err = r.amount(c, "unit_price", false); err != nil {
			return false, err
		}
		if li.ListCost, err = r.amount(c, "list_cost", true); err != nil {
			return false, err
		}
		bc, err := r.amount(c, "billed_cost", true)
		if err != nil {
			return false, err
		}
		if !bc.Valid {
			return false, c.errAt(r.ix("billed_cost"), "required amount is empty")
		}
		li.BilledCost = bc.Decimal
		if li.VoucherPaid, err = r.amount(c, "voucher_paid", true); err != nil {
			return false, err
		}
		if li.CashPaid, err = r.amount(c, "cash_paid", true); err != nil {
			return false, err
		}
		if !li.CashPaid.Valid { // default: billed − voucher
			li.CashPaid = decimal.NewNullDecimal(li.BilledCost)
			if li.VoucherPaid.Valid {
				li.CashPaid.Decimal = li.BilledCost.Sub(li.VoucherPaid.Decimal)
			}
		}
		li.Currency = cp.defCur
		if i := r.ix("currency"); c.cell(i) != "" {
			if li.Currency, err = c.currency(i, currencies); err != nil {
				return false, err
			}
		}
		li.Description = c.cell(r.ix("description"))
		if o := r.text(c, "order_id"); o != "" {
			li.Tags = `{"order_id":` + strconv.Quote(o) + `}`
		}
		li.ChargeCategory = templateCategory(li.Kind, li.PricingModel)
		li.BillingPeriod = env.month(li.ChargePeriodStart)
		li.Raw = c.raw()
		return false, nil
	}, nil
}

// txs builds the money-flow mapper of a profile.
func (cp *compiledProfile) txs(b *binding, env *mapEnv) (txMapper, error) {
	r, err := cp.newRow(b, env)
	if err != nil {
		return nil, err
	}
	providers, currencies := newMemo(cp.parseProvider), newMemo(normCurrency)
	return func(c *rowCtx, tx *ledger.Transaction) (bool, error) {
		if r.skip(c) {
			return true, nil
		}
		var err error
		if tx.Provider, err = r.provider(c, providers); err != nil {
			return false, err
		}
		tx.Account = r.text(c, "account")
		if tx.Time, err = r.time(c, "time"); err != nil {
			return false, err
		}
		if tx.Time.IsZero() {
			return false, c.errAt(r.ix("time"), "required time is empty")
		}
		amt, err := r.amount(c, "amount", true)
		if err != nil {
			return false, err
		}
		if !amt.Valid {
			return false, c.errAt(r.ix("amount"), "required amount is empty")
		}
		var ok bool
		if tx.Type, ok = r.classify(c, cp.txTypes); !ok {
			switch {
			case amt.Decimal.IsNegative() && cp.txNeg != "":
				tx.Type = cp.txNeg
			case amt.Decimal.IsPositive() && cp.txPos != "":
				tx.Type = cp.txPos
			default:
				var cells []string
				for _, col := range cp.classify {
					if s := c.cell(r.ix(col)); s != "" {
						cells = append(cells, strconv.Quote(s))
					}
				}
				return false, c.errAt(r.ix("type"), fmt.Sprintf("%s matches no [[tx_type]] rule of profile %s (and defaults.tx_type_negative/positive do not apply)",
					strings.Join(cells, ", "), cp.pf.ID))
			}
		}
		tx.Amount = amt.Decimal.Abs()
		if tx.Balance, err = r.amount(c, "balance", false); err != nil {
			return false, err
		}
		tx.Reference = r.text(c, "reference")
		tx.Description = c.cell(r.ix("description"))
		tx.Currency = cp.defCur
		if i := r.ix("currency"); c.cell(i) != "" {
			if tx.Currency, err = c.currency(i, currencies); err != nil {
				return false, err
			}
		}
		tx.Raw = c.raw()
		return false, nil
	}, nil
}

// User profiles (--profile) are tried before every built-in format.
var (
	userMu      sync.RWMutex
	userFormats []*Format
)

// UseProfiles makes the profiles the first formats tried when a header row
// is detected (by Import*, Check and Formats), in the order given: a file
// whose header a user profile recognises is read with it, others as usual.
// The returned function restores the previous set. It is meant for one
// command run (the CLI's --profile), not for concurrent imports.
func UseProfiles(ps ...*Profile) (restore func()) {
	userMu.Lock()
	prev := userFormats
	next := make([]*Format, 0, len(ps))
	for _, p := range ps {
		next = append(next, p.format)
	}
	userFormats = next
	userMu.Unlock()
	return func() {
		userMu.Lock()
		userFormats = prev
		userMu.Unlock()
	}
}

// activeUserFormats returns the user profiles' formats.
func activeUserFormats() []*Format {
	userMu.RLock()
	defer userMu.RUnlock()
	return userFormats
}

// providerSlug resolves a provider named by the profile: a built-in
// platform by any of its names, else a slug of the profile's own (aws,
// azure, an internal cloud), kept in ownSlugs.
func (cp *compiledProfile) providerSlug(s string) (string, bool) {
	if slug, ok := platform.Parse(s); ok {
		return slug, true
	}
	slug := strings.TrimSpace(s)
	if !platform.ValidSlug(slug) {
		return "", false
	}
	if !slices.Contains(cp.ownSlugs, slug) {
		cp.ownSlugs = append(cp.ownSlugs, slug)
	}
	return slug, true
}

// parseProvider maps a provider column's cell: a built-in platform's name,
// or the slug or a display name of one of the profile's own slugs.
func (cp *compiledProfile) parseProvider(s string) (string, bool) {
	if slug, ok := platform.Parse(s); ok {
		return slug, true
	}
	slug, ok := cp.ownNames[strings.ToLower(strings.TrimSpace(s))]
	return slug, ok
}

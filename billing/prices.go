package billing

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/shopspring/decimal"
	"golang.org/x/text/width"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// Price is one entry of the reference price catalog (DESIGN.md "Reference
// data"): what one GPU of a model costs for one hour on a platform under a
// pricing model, with where that price comes from and when it was seen.
type Price struct {
	Provider string // provider slug
	// GPUModel is the normalised model key (NormalizeGPUModel), e.g.
	// "RTX4090", "A100-80G"; GPUModelText is the model as the catalog wrote it.
	GPUModel     string
	GPUModelText string
	PricingModel string          // ledger.PricingOnDemand …
	PerHour      decimal.Decimal // one GPU, one hour
	Currency     string
	NoteZH       string // e.g. 促销价
	NoteEN       string // e.g. promotion
	Source       string
	Seen         string // YYYY-MM or YYYY-MM-DD
}

// PriceKey identifies a catalog entry; a catalog holds at most one price per key.
type PriceKey struct {
	Provider, GPUModel, PricingModel, Currency string
}

// Key returns the entry's key.
func (p Price) Key() PriceKey {
	return PriceKey{p.Provider, p.GPUModel, p.PricingModel, p.Currency}
}

// PriceCatalog is a set of reference prices, at most one per PriceKey. The
// zero value and nil are empty catalogs.
type PriceCatalog struct {
	list  []Price
	byKey map[PriceKey]int
}

// PriceEntry is one entry of prices.json, as written (a [[price]] entry of
// the config file is read into one too).
type PriceEntry struct {
	Provider     string          `json:"provider"`
	GPUModel     string          `json:"gpu_model"`
	PricingModel string          `json:"pricing_model"`
	PricePerHour json.RawMessage `json:"price_per_hour"`
	Currency     string          `json:"currency"`
	NoteZH       string          `json:"note_zh"`
	NoteEN       string          `json:"note_en"`
	Source       string          `json:"source"`
	Seen         string          `json:"seen"`
}

//go:embed prices.json
var pricesData []byte

// defaultPrices is the embedded catalog. price_deviation reads it through
// Input.referencePrices, the one place to consult a user override once the
// Config carries one.
var defaultPrices = mustParsePrices(pricesData)

func mustParsePrices(b []byte) *PriceCatalog {
	c, err := ParsePrices(b)
	if err != nil {
		// The file is embedded at build time; TestPriceCatalog keeps it valid.
		panic(err)
	}
	return c
}

// DefaultPrices returns the embedded reference price catalog.
func DefaultPrices() *PriceCatalog { return defaultPrices }

// ParsePrices reads a price catalog in the format of the embedded
// prices.json ({"prices": [...]}): for a user's override file as well as for
// the embedded one. Unknown fields are errors (a misspelt field would
// otherwise silently drop a price). provider takes a slug or a platform's
// name (恒源云 → gpushare); pricing_model defaults to on_demand, currency to
// CNY; price_per_hour is a positive decimal, as a string or a JSON number
// (read from its text, never through a float).
func ParsePrices(b []byte) (*PriceCatalog, error) {
	var doc struct {
		Comment string       `json:"comment"`
		Prices  []PriceEntry `json:"prices"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("billing: prices: %w", err)
	}
	c := &PriceCatalog{byKey: make(map[PriceKey]int, len(doc.Prices))}
	for i, pj := range doc.Prices {
		p, err := pj.Price()
		if err != nil {
			return nil, fmt.Errorf("billing: prices: entry %d (%s %s): %w", i+1, pj.Provider, pj.GPUModel, err)
		}
		if j, dup := c.byKey[p.Key()]; dup {
			return nil, fmt.Errorf("billing: prices: entry %d (%s %s %s %s) repeats entry %d (%s)",
				i+1, p.Provider, pj.GPUModel, p.PricingModel, p.Currency, j+1, c.list[j].GPUModelText)
		}
		c.byKey[p.Key()] = len(c.list)
		c.list = append(c.list, p)
	}
	return c, nil
}

// Price checks the entry and reads it into a Price.
func (pj PriceEntry) Price() (Price, error) {
	p := Price{GPUModelText: strings.TrimSpace(pj.GPUModel), NoteZH: strings.TrimSpace(pj.NoteZH),
		NoteEN: strings.TrimSpace(pj.NoteEN), Source: strings.TrimSpace(pj.Source), Seen: strings.TrimSpace(pj.Seen)}
	prov := strings.TrimSpace(pj.Provider)
	if prov == "" {
		return p, fmt.Errorf("no provider")
	}
	if slug, ok := platform.Parse(prov); ok {
		p.Provider = slug
	} else {
		p.Provider = strings.ToLower(prov) // a FOCUS provider such as aws
	}
	p.GPUModel = NormalizeGPUModel(pj.GPUModel)
	if p.GPUModel == "" {
		return p, fmt.Errorf("gpu_model: %q names no GPU model", pj.GPUModel)
	}
	p.PricingModel = strings.TrimSpace(pj.PricingModel)
	if p.PricingModel == "" {
		p.PricingModel = ledger.PricingOnDemand
	}
	if !slices.Contains(ledger.PricingModels, p.PricingModel) {
		return p, fmt.Errorf("pricing_model: %q is not one of %s", pj.PricingModel, strings.Join(ledger.PricingModels, ", "))
	}
	var err error
	if p.PerHour, err = parsePriceValue(pj.PricePerHour); err != nil {
		return p, fmt.Errorf("price_per_hour: %w", err)
	}
	p.Currency = NormalizeCurrency(pj.Currency)
	if p.Seen != "" {
		_, err1 := time.Parse("2006-01", p.Seen)
		_, err2 := time.Parse("2006-01-02", p.Seen)
		if err1 != nil && err2 != nil {
			return p, fmt.Errorf("seen: %q is not a month (YYYY-MM) or a date (YYYY-MM-DD)", p.Seen)
		}
	}
	return p, nil
}

// parsePriceValue reads a positive decimal given as a JSON string or number.
func parsePriceValue(raw json.RawMessage) (decimal.Decimal, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return decimal.Decimal{}, fmt.Errorf("missing")
	}
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return decimal.Decimal{}, fmt.Errorf("%s is not a string", raw)
		}
		s = strings.TrimSpace(s)
	}
	d, err := decimal.NewFromString(s)
	if err != nil || !d.IsPositive() {
		return decimal.Decimal{}, fmt.Errorf("%q is not a positive amount such as \"1.9\"", s)
	}
	return d, nil
}

// NormalizeCurrency is the currency code of s: RMB, ¥, 元 and an empty text
// are CNY, others upper-cased.
func NormalizeCurrency(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	switch s {
	case "", "RMB", "CNY", "¥", "元", "人民币":
		return "CNY"
	}
	return s
}

// Entries returns the catalog's prices in file order.
func (c *PriceCatalog) Entries() []Price {
	if c == nil {
		return nil
	}
	return append([]Price(nil), c.list...)
}

// Len is the number of prices.
func (c *PriceCatalog) Len() int {
	if c == nil {
		return 0
	}
	return len(c.list)
}

// Lookup returns the reference price of gpuModel (any spelling: it is
// normalised) on provider under pricingModel in currency. An entry for the
// exact model wins; a model with its memory named ("V100 32G") falls back
// to an entry that names none ("V100") when the model has no standard
// memory size, but a model without memory ("A100") never matches an entry
// that names one ("A100 80G"): that could be the other variant. A 48G 4090
// is not the catalog's (24G) 4090.
func (c *PriceCatalog) Lookup(provider, gpuModel, pricingModel, currency string) (Price, bool) {
	return c.LookupModel(provider, ParseGPUModel(gpuModel), pricingModel, currency)
}

// LookupModel is Lookup of a model read already (ParseGPUModel), for
// callers that read each of many items' models once.
func (c *PriceCatalog) LookupModel(provider string, m GPUModel, pricingModel, currency string) (Price, bool) {
	if c == nil || m.base == "" {
		return Price{}, false
	}
	k := PriceKey{provider, m.Key(), pricingModel, currency}
	if i, ok := c.byKey[k]; ok {
		return c.list[i], true
	}
	// "RTX4090" in the catalog is the standard 24G card, not a 48G one; a
	// model without a standard memory ("V100") stands for any of its sizes.
	if _, std := gpuStandardMemory[m.base]; m.mem > 0 && !std {
		k.GPUModel = m.base
		if i, ok := c.byKey[k]; ok {
			return c.list[i], true
		}
	}
	return Price{}, false
}

// Overlay returns a catalog of c's prices with over's on top: an entry of
// over replaces c's entry of the same key, new keys are added. Neither
// catalog changes. (For a user's price override file.)
func (c *PriceCatalog) Overlay(over *PriceCatalog) *PriceCatalog {
	out := &PriceCatalog{byKey: map[PriceKey]int{}}
	for _, src := range []*PriceCatalog{c, over} {
		for _, p := range src.Entries() {
			if i, ok := out.byKey[p.Key()]; ok {
				out.list[i] = p
				continue
			}
			out.byKey[p.Key()] = len(out.list)
			out.list = append(out.list, p)
		}
	}
	return out
}

// GPU model normalisation.

// GPUModel is a GPU model as read from a bill or the catalog (ParseGPUModel).
type GPUModel struct {
	base  string // "RTX4090", "A100"; "" = no model
	mem   int    // GPU memory in GB when it tells variants apart, else 0
	count int    // GPUs named in the text ("RTX 4090 * 2"), 0 = none
}

// Key is the normalised model key (NormalizeGPUModel).
func (m GPUModel) Key() string {
	if m.base == "" || m.mem == 0 {
		return m.base
	}
	return m.base + "-" + strconv.Itoa(m.mem) + "G"
}

// Count is how many GPUs the text named ("RTX 4090 * 2": 2); 0 = none.
func (m GPUModel) Count() int { return m.count }

// NormalizeGPUModel maps the many spellings of a GPU model to one key, so
// that bills and the price catalog meet: "RTX 4090", "4090", "GeForce RTX
// 4090 24G" and "NVIDIA GeForce RTX 4090" give "RTX4090"; "A100 80G",
// "A100-80GB" and "NVIDIA A100-SXM4-80GB" give "A100-80G", while "A100 40G"
// gives "A100-40G" and a bare "A100" stays "A100". Memory is kept in the key
// only where it tells variants apart: the standard memory of a model (24G
// for a 4090) is dropped, any other (a 48G 4090) kept. Vendor words
// (NVIDIA, GeForce, Tesla), form factors (SXM4, PCIe), memory types and a
// GPU count ("× 2", "8卡") are ignored. Text that names no model gives "".
// The result normalises to itself.
func NormalizeGPUModel(s string) string { return ParseGPUModel(s).Key() }

var (
	// a count before the model: "2*", "2 x ", "8卡 "
	reGPUCountPrefix = regexp.MustCompile(`^\s*(\d{1,2})\s*(?:[*x]|卡|张|块)\s*`)
	// a count after it: "* 2", "x2", "×8卡"
	reGPUCountSuffix = regexp.MustCompile(`([*x])\s*(\d{1,2})\s*(?:卡|张|块)?\s*$`)
	// a count anywhere: "2卡", "8 gpus", "2 cards"
	reGPUCountWord = regexp.MustCompile(`(^|[^\d.])(\d{1,2})\s*(?:卡|张|块|gpus\b|cards?\b)`)
	// memory: "24G", "80 GB", "-40GB", "48GiB"
	reGPUMem = regexp.MustCompile(`(^|[^\da-z.])(\d{1,3})\s*(?:gib|gb|g)\b`)
	// words that name no model
	reGPUNoise = regexp.MustCompile(`\b(?:nvidia|geforce|tesla|quadro|sxm\d?|pcie|pci-e|nvlink|hbm\d?e?|gddr\d?x?|gpu|graphics|tensor\s+core|ram|memory|mem)\b|英伟达|显卡|显存|内存|型号`)
	// consumer cards by number: 4090, RTX 4090 D, 3080 Ti, GTX 1080Ti
	reGPUConsumer = regexp.MustCompile(`^(?:rtx|gtx)?((?:10|16|20|30|40|50)[5-9]0)(ti|super|tisuper|d)?$`)
	// workstation cards: A6000, RTX A5000
	reGPUWorkstation = regexp.MustCompile(`^(?:rtx)?(a[2-6]000)$`)
)

// gpuNoModel are placeholders that bills write for "no GPU model".
var gpuNoModel = map[string]bool{"无": true, "暂无": true, "不适用": true, "未知": true, "none": true, "na": true,
	"null": true, "nil": true, "unknown": true}

// gpuStandardMemory is the memory (GB) of models sold with one size; a key
// names memory only when it differs from this (or the model has none).
var gpuStandardMemory = map[string]int{
	"RTX4090": 24, "RTX4090D": 24, "RTX4080": 16, "RTX4080SUPER": 16, "RTX5090": 32,
	"RTX3090": 24, "RTX3090TI": 24, "RTX3080TI": 12, "RTX2080TI": 11, "GTX1080TI": 11,
	"RTXA6000": 48, "RTXA5000": 24, "RTXA4000": 16,
	"A10": 24, "A10G": 24, "T4G": 16, "A30": 24, "A40": 48, "T4": 16, "L4": 24, "L20": 48, "L40": 48, "L40S": 48,
	"H100": 80, "H800": 80, "H200": 141, "H20": 96,
}

// systemMemoryAround reports whether the text around a memory match says it is
// system memory (内存, RAM), not GPU memory.
func systemMemoryAround(before, after string) bool {
	a := strings.TrimLeft(after, " :：")
	b := strings.TrimRight(before, " :：")
	for _, w := range []string{"内存", "ram", "mem", "系统盘", "硬盘", "disk"} {
		if strings.HasPrefix(a, w) || strings.HasSuffix(b, w) {
			return true
		}
	}
	return false
}

// maxGPUModelText is the longest text read as a GPU model. A model's name
// with its vendor, memory and count is far shorter; longer text (a
// description in the wrong column) names no model. It also bounds how
// often ParseGPUModel reads a key again.
const maxGPUModelText = 256

// ParseGPUModel reads a GPU model. Its key is read again until it stands
// still (words glued together by the compaction can read differently, as in
// "1070X 1"; each read takes one count off "1x1x1x1x1x1x0"), so that a key
// always normalises to itself. Four reads were not enough for that one
// (FuzzNormalizeGPUModel); a read that changes the key shortens it, so
// the text's length bounds them.
func ParseGPUModel(s string) GPUModel {
	if len(s) > maxGPUModelText {
		return GPUModel{}
	}
	m := parseGPUModelOnce(s)
	for i := 0; i < len(s) && m.base != ""; i++ {
		again := parseGPUModelOnce(m.Key())
		if again.Key() == m.Key() {
			break
		}
		m.base, m.mem = again.base, again.mem
	}
	return m
}

func parseGPUModelOnce(s string) GPUModel {
	var m GPUModel
	t := strings.ToLower(width.Fold.String(s))
	t = strings.NewReplacer("×", "*", "✕", "*", "╳", "*").Replace(t)
	// a count is 1 to 99; "x" after a letter is part of a name (RTX)
	countAt := func(a, b int) int {
		n, err := strconv.Atoi(t[a:b])
		if err != nil || n < 1 {
			return 0
		}
		return n
	}
	// and something must remain to name the model
	rest := func(s string) bool { return strings.TrimSpace(s) != "" }
	if sm := reGPUCountPrefix.FindStringSubmatchIndex(t); sm != nil && countAt(sm[2], sm[3]) > 0 && rest(t[sm[1]:]) {
		m.count = countAt(sm[2], sm[3])
		t = t[sm[1]:]
	} else if sm := reGPUCountSuffix.FindStringSubmatchIndex(t); sm != nil && countAt(sm[4], sm[5]) > 0 && rest(t[:sm[2]]) &&
		(t[sm[2]] == '*' || sm[2] == 0 || t[sm[2]-1] < 'a' || t[sm[2]-1] > 'z') {
		m.count = countAt(sm[4], sm[5])
		t = t[:sm[2]]
	} else if sm := reGPUCountWord.FindStringSubmatchIndex(t); sm != nil && countAt(sm[4], sm[5]) > 0 && rest(t[:sm[3]]+t[sm[1]:]) {
		m.count = countAt(sm[4], sm[5])
		t = t[:sm[3]] + " " + t[sm[1]:]
	}
	// memory: the first plausible GPU memory; every memory-like token is removed.
	var b strings.Builder
	last := 0
	for _, sm := range reGPUMem.FindAllStringSubmatchIndex(t, -1) {
		numStart, end := sm[4], sm[1]
		b.WriteString(t[last:numStart])
		last = end
		if systemMemoryAround(t[:numStart], t[end:]) {
			continue
		}
		if n, err := strconv.Atoi(t[numStart:sm[5]]); err == nil && m.mem == 0 && n >= 4 && n <= 256 {
			m.mem = n
		}
	}
	b.WriteString(t[last:])
	t = reGPUNoise.ReplaceAllString(b.String(), " ")
	var c strings.Builder
	for _, r := range t {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			c.WriteRune(r)
		}
	}
	compact := c.String()
	switch {
	case compact == "" || gpuNoModel[compact]:
		return GPUModel{count: m.count}
	case reGPUConsumer.MatchString(compact):
		sm := reGPUConsumer.FindStringSubmatch(compact)
		prefix := "RTX"
		if strings.HasPrefix(sm[1], "10") || strings.HasPrefix(sm[1], "16") {
			prefix = "GTX"
		}
		m.base = prefix + sm[1] + strings.ToUpper(sm[2])
	case reGPUWorkstation.MatchString(compact):
		m.base = "RTX" + strings.ToUpper(reGPUWorkstation.FindStringSubmatch(compact)[1])
	default:
		m.base = strings.ToUpper(compact)
	}
	if std, ok := gpuStandardMemory[m.base]; ok && std == m.mem {
		m.mem = 0
	}
	return m
}

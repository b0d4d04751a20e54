package reports

import (
	"fmt"
	"io"
	"time"

	"github.com/gpubill/gpubill/billing"
)

// The price catalog as the replay sees it (gpubill prices): the GPU-hour
// prices (with the user's config overrides), the replay rates and terms,
// and the GPU equivalents, each with its source, the date it was seen, its
// age and whether it is stale (seen more than 90 days ago).

// Kinds of catalog entry.
const (
	PriceGPUHour    = "gpu_hour"
	PriceEquivalent = "equivalent"
	PriceNotOffered = "not_offered"
)

// PricesOptions selects the configuration and "today".
type PricesOptions struct {
	Config ReplayConfig
	Now    time.Time            // zero = time.Now()
	Rates  *billing.RateCatalog // nil = billing.Rates()
}

// PriceEntry is one entry of the catalog.
type PriceEntry struct {
	Kind         string // PriceGPUHour, a billing.Rate* name, package, spot, PriceEquivalent, PriceNotOffered
	Provider     string // "" for an equivalent
	Item         string // the GPU model, or what the rate prices
	PricingModel string
	Value        string
	Currency     string
	Source       string
	Seen         string
	Confidence   string
	AgeDays      int // -1 when seen is not a date
	Stale        bool
	FromConfig   bool
}

// PricesReport is the catalog.
type PricesReport struct {
	Entries    []PriceEntry
	Oldest     string // the oldest date seen
	OldestDays int
	Stale      int
}

// Prices lists the catalog in effect.
func Prices(opts PricesOptions) (*PricesReport, error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	rates := opts.Rates
	if rates == nil {
		var err error
		if rates, err = billing.Rates(); err != nil {
			return nil, err
		}
	}
	_, prices := loadReplayCatalog(opts.Config)
	rep := &PricesReport{}
	var oldest time.Time
	add := func(e PriceEntry) {
		e.AgeDays = -1
		seen, err := time.Parse("2006-01-02", e.Seen)
		if err != nil {
			seen, err = time.Parse("2006-01", e.Seen)
		}
		if err == nil {
			e.AgeDays = int(opts.Now.Sub(seen) / (24 * time.Hour))
			e.Stale = e.AgeDays > replayCatalogStaleDays
			if oldest.IsZero() || seen.Before(oldest) {
				oldest = seen
			}
		}
		if e.Stale {
			rep.Stale++
		}
		rep.Entries = append(rep.Entries, e)
	}
	for _, p := range prices {
		add(PriceEntry{Kind: PriceGPUHour, Provider: p.Provider, Item: p.GPUModelText, PricingModel: p.PricingModel,
			Value: p.PerHour.String() + "/GPU-hour", Currency: p.Currency, Source: p.Source, Seen: p.Seen,
			Confidence: confidenceOf(p.Source, false), FromConfig: p.FromConfig})
	}
	for _, p := range rates.GPUPrices {
		add(PriceEntry{Kind: PriceGPUHour, Provider: p.Provider, Item: p.GPUModel, PricingModel: p.PricingModel,
			Value: p.PerHour.String() + "/GPU-hour", Currency: p.Currency, Source: p.Source, Seen: p.Seen, Confidence: p.Confidence})
	}
	for _, r := range rates.Rates {
		a := rateAssumption(r, "")
		add(PriceEntry{Kind: r.What, Provider: r.Provider, Item: r.NoteEN, Value: a.Value, Currency: r.Currency,
			Source: r.Source, Seen: r.Seen, Confidence: r.Confidence})
	}
	for _, t := range rates.Terms {
		add(PriceEntry{Kind: t.PricingModel, Provider: t.Provider, Item: t.NoteEN, PricingModel: t.PricingModel,
			Value: "× " + t.Factor.String() + " of on-demand" + periodSuffix(t.Period), Source: t.Source, Seen: t.Seen, Confidence: t.Confidence})
	}
	for _, n := range rates.NotOffered {
		add(PriceEntry{Kind: PriceNotOffered, Provider: n.Provider, Item: n.GPUModel, Source: n.Source, Seen: n.Seen, Confidence: n.Confidence})
	}
	for _, e := range rates.Equivalents {
		add(PriceEntry{Kind: PriceEquivalent, Item: e.GPUModel, Value: e.Equivalent, Source: e.Source, Seen: e.Seen, Confidence: e.Confidence})
	}
	if !oldest.IsZero() {
		rep.Oldest = oldest.Format("2006-01-02")
		rep.OldestDays = int(opts.Now.Sub(oldest) / (24 * time.Hour))
	}
	return rep, nil
}

func init() {
	addMessages(map[string][2]string{
		"prices.title":       {"价目表", "Price catalog"},
		"prices.col.kind":    {"类别", "Kind"},
		"prices.col.item":    {"项目", "Item"},
		"prices.col.age":     {"天数", "Age (days)"},
		"prices.col.stale":   {"过期", "Stale"},
		"prices.col.origin":  {"出处", "Origin"},
		"prices.origin.cfg":  {"配置文件", "config"},
		"prices.origin.emb":  {"内置", "built in"},
		"prices.yes":         {"是", "yes"},
		"prices.note.age":    {"最早条目查看于 %s（%d 天前）；%d 条超过 90 天，已过期。", "Oldest entry seen on %s (%d days ago); %d older than 90 days (stale)."},
		"prices.note.config": {"用配置文件的 [[price]]（provider、gpu_model、pricing_model、price_per_hour、source、seen）覆盖或补充 GPU 单价；重放会列出每个用到的条目及其来源。", "Override or add GPU-hour prices with [[price]] entries (provider, gpu_model, pricing_model, price_per_hour, source, seen) in the config file; every replay lists each entry it used with its source."},
	})
}

// Write encodes the catalog (see WriteOptions).
func (r *PricesReport) Write(w io.Writer, opts WriteOptions) error {
	opts, err := opts.normalize()
	if err != nil {
		return err
	}
	if opts.Format == FormatJSON {
		type entry struct {
			Kind         string `json:"kind"`
			Provider     string `json:"provider"`
			Item         string `json:"item"`
			PricingModel string `json:"pricing_model"`
			Value        string `json:"value"`
			Currency     string `json:"currency"`
			Source       string `json:"source"`
			Seen         string `json:"seen"`
			Confidence   string `json:"confidence"`
			AgeDays      *int   `json:"age_days"`
			Stale        bool   `json:"stale"`
			FromConfig   bool   `json:"from_config"`
		}
		out := struct {
			Entries    []entry `json:"entries"`
			Oldest     string  `json:"oldest_seen"`
			OldestDays int     `json:"oldest_age_days"`
			Stale      int     `json:"stale"`
		}{Entries: []entry{}, Oldest: r.Oldest, OldestDays: r.OldestDays, Stale: r.Stale}
		for _, e := range r.Entries {
			je := entry{Kind: e.Kind, Provider: e.Provider, Item: e.Item, PricingModel: e.PricingModel, Value: e.Value,
				Currency: e.Currency, Source: e.Source, Seen: e.Seen, Confidence: e.Confidence, Stale: e.Stale, FromConfig: e.FromConfig}
			if e.AgeDays >= 0 {
				age := e.AgeDays
				je.AgeDays = &age
			}
			out.Entries = append(out.Entries, je)
		}
		return writeJSON(w, out)
	}
	lang, exact := opts.Lang, opts.exact()
	g := &grid{cols: []column{
		textCol("kind", tr(lang, "prices.col.kind")), textCol("provider", tr(lang, "col.provider")),
		textCol("item", tr(lang, "prices.col.item")), textCol("pricing_model", tr(lang, "replay.col.pricing")),
		textCol("value", tr(lang, "replay.col.value")), textCol("currency", tr(lang, "col.currency")),
		textCol("seen", tr(lang, "replay.col.seen")), countCol("age_days", tr(lang, "prices.col.age")),
		textCol("stale", tr(lang, "prices.col.stale")), textCol("confidence", tr(lang, "replay.col.confidence")),
		textCol("origin", tr(lang, "prices.col.origin")), textCol("source", tr(lang, "replay.col.source")),
	}}
	for _, e := range r.Entries {
		age, stale, origin := "", "", tr(lang, "prices.origin.emb")
		if e.AgeDays >= 0 {
			age = fmt.Sprint(e.AgeDays)
		}
		if e.Stale {
			stale = tr(lang, "prices.yes")
			if exact {
				stale = "true"
			}
		}
		if e.FromConfig {
			origin = tr(lang, "prices.origin.cfg")
		}
		prov := e.Provider
		if prov != "" {
			prov = dimText(ByProvider, e.Provider, lang, exact)
		}
		g.add(e.Kind, prov, e.Item, e.PricingModel, e.Value, e.Currency, e.Seen, age, stale, e.Confidence, origin, e.Source)
	}
	doc := &document{key: "prices", title: tr(lang, "prices.title"),
		sections: []section{{key: "prices", grid: g}},
		notes:    []string{fmt.Sprintf(tr(lang, "prices.note.age"), r.Oldest, r.OldestDays, r.Stale), tr(lang, "prices.note.config")}}
	return writeDocument(w, opts, doc)
}

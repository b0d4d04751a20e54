package billing

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
)

// The replay catalog (rates.json): what pricing a month's work on another
// platform needs beyond the GPU-hour prices. Every entry carries its
// source, the date it was seen and a confidence.

// Confidence levels of a catalog entry.
const (
	ConfidenceVendor = "vendor"      // the vendor states it
	ConfidenceUser   = "user report" // one user saw it
	ConfidenceGuess  = "guess"       // inferred; the source says from what
)

// What a Rate prices.
const (
	RateStorage = "storage_gb_day" // disk, file storage: per GB-day
	RateImage   = "image_gb_day"   // saved images and snapshots: per GB-day
	RateTraffic = "traffic_gb"     // traffic: per GB
	RateSeat    = "seat_day"       // a stopped instance keeping its place: per day
)

// Sourced is where an entry comes from.
type Sourced struct {
	Source     string `json:"source"`
	Seen       string `json:"seen"` // YYYY-MM-DD
	Confidence string `json:"confidence"`
}

// Rate is one non-GPU price of a platform.
type Rate struct {
	Provider string          `json:"provider"`
	What     string          `json:"what"`
	Price    decimal.Decimal `json:"price"`
	Currency string          `json:"currency"`
	// FreeGB is a free quota per day (storage, images) or per month
	// (traffic) that is not billed.
	FreeGB decimal.Decimal `json:"free_gb"`
	// ChargedWhileStopped says whether storage bills while its instance
	// is stopped (nil: as the platform's policy says).
	ChargedWhileStopped *bool  `json:"charged_while_stopped"`
	NoteZH              string `json:"note_zh"`
	NoteEN              string `json:"note_en"`
	Sourced
}

// Term is a package or spot term of a platform: its price is Factor × the
// on-demand price of the same GPU, and a package lasts Period.
type Term struct {
	Provider     string          `json:"provider"`
	PricingModel string          `json:"pricing_model"` // package | spot
	Period       string          `json:"period"`        // day | week | month (30 days); "" for spot
	Factor       decimal.Decimal `json:"factor"`
	NoteZH       string          `json:"note_zh"`
	NoteEN       string          `json:"note_en"`
	Sourced
}

// PeriodDuration is the length of a package term (a month is 30 days, as
// GpuGeek states); 0 for spot or an unknown period.
func (t Term) PeriodDuration() time.Duration {
	switch t.Period {
	case "day":
		return 24 * time.Hour
	case "week":
		return 7 * 24 * time.Hour
	case "month":
		return 30 * 24 * time.Hour
	}
	return 0
}

// GPUPrice is a GPU-hour price that the rules' catalog lacks.
type GPUPrice struct {
	Provider     string          `json:"provider"`
	GPUModel     string          `json:"gpu_model"`
	PricingModel string          `json:"pricing_model"`
	PerHour      decimal.Decimal `json:"price_per_hour"`
	Currency     string          `json:"currency"`
	Sourced
}

// NotOffered says a platform does not rent a GPU model.
type NotOffered struct {
	Provider string `json:"provider"`
	GPUModel string `json:"gpu_model"`
	Sourced
}

// Equivalent names a GPU class that stands in for another where a
// platform lacks it (report replay --allow-equivalent).
type Equivalent struct {
	GPUModel   string `json:"gpu_model"`
	Equivalent string `json:"equivalent"`
	NoteZH     string `json:"note_zh"`
	NoteEN     string `json:"note_en"`
	Sourced
}

// RateCatalog is the parsed rates.json.
type RateCatalog struct {
	GPUPrices   []GPUPrice   `json:"gpu_prices"`
	Rates       []Rate       `json:"rates"`
	Terms       []Term       `json:"terms"`
	NotOffered  []NotOffered `json:"not_offered"`
	Equivalents []Equivalent `json:"equivalents"`
}

//go:embed rates.json
var ratesJSON []byte

var defaultRates = sync.OnceValues(func() (*RateCatalog, error) { return ParseRates(ratesJSON) })

// Rates returns the embedded replay catalog.
func Rates() (*RateCatalog, error) { return defaultRates() }

// ParseRates reads a catalog in the format of rates.json. Unknown fields
// are errors; every entry needs a provider, a source, a date seen and a
// known confidence.
func ParseRates(b []byte) (*RateCatalog, error) {
	var doc struct {
		Comment string `json:"comment"`
		RateCatalog
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("billing: rates: %w", err)
	}
	c := &doc.RateCatalog
	check := func(kind string, i int, provider string, s Sourced) error {
		if strings.TrimSpace(provider) == "" {
			return fmt.Errorf("billing: rates: %s entry %d: no provider", kind, i+1)
		}
		if strings.TrimSpace(s.Source) == "" {
			return fmt.Errorf("billing: rates: %s entry %d (%s): no source", kind, i+1, provider)
		}
		if _, err := time.Parse("2006-01-02", s.Seen); err != nil {
			return fmt.Errorf("billing: rates: %s entry %d (%s): seen %q is not a date (YYYY-MM-DD)", kind, i+1, provider, s.Seen)
		}
		switch s.Confidence {
		case ConfidenceVendor, ConfidenceUser, ConfidenceGuess:
		default:
			return fmt.Errorf("billing: rates: %s entry %d (%s): confidence %q is not vendor, user report or guess", kind, i+1, provider, s.Confidence)
		}
		return nil
	}
	for i := range c.GPUPrices {
		p := &c.GPUPrices[i]
		if err := check("gpu_prices", i, p.Provider, p.Sourced); err != nil {
			return nil, err
		}
		if !p.PerHour.IsPositive() {
			return nil, fmt.Errorf("billing: rates: gpu_prices entry %d (%s): price_per_hour must be positive", i+1, p.Provider)
		}
		if p.PricingModel == "" {
			p.PricingModel = "on_demand"
		}
		p.Currency = currencyOrCNY(p.Currency)
	}
	for i := range c.Rates {
		r := &c.Rates[i]
		if err := check("rates", i, r.Provider, r.Sourced); err != nil {
			return nil, err
		}
		switch r.What {
		case RateStorage, RateImage, RateTraffic, RateSeat:
		default:
			return nil, fmt.Errorf("billing: rates: rates entry %d (%s): what %q is not %s, %s, %s or %s", i+1, r.Provider, r.What,
				RateStorage, RateImage, RateTraffic, RateSeat)
		}
		if r.Price.IsNegative() || r.FreeGB.IsNegative() {
			return nil, fmt.Errorf("billing: rates: rates entry %d (%s): negative price or free_gb", i+1, r.Provider)
		}
		r.Currency = currencyOrCNY(r.Currency)
	}
	for i := range c.Terms {
		t := &c.Terms[i]
		if err := check("terms", i, t.Provider, t.Sourced); err != nil {
			return nil, err
		}
		if t.PricingModel != "package" && t.PricingModel != "spot" {
			return nil, fmt.Errorf("billing: rates: terms entry %d (%s): pricing_model %q is not package or spot", i+1, t.Provider, t.PricingModel)
		}
		if t.PricingModel == "package" && t.PeriodDuration() == 0 {
			return nil, fmt.Errorf("billing: rates: terms entry %d (%s): a package needs a period (day, week, month)", i+1, t.Provider)
		}
		if !t.Factor.IsPositive() {
			return nil, fmt.Errorf("billing: rates: terms entry %d (%s): factor must be positive", i+1, t.Provider)
		}
	}
	for i, n := range c.NotOffered {
		if err := check("not_offered", i, n.Provider, n.Sourced); err != nil {
			return nil, err
		}
	}
	for i, e := range c.Equivalents {
		if err := check("equivalents", i, e.GPUModel, e.Sourced); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func currencyOrCNY(s string) string {
	if s = strings.ToUpper(strings.TrimSpace(s)); s == "" {
		return "CNY"
	}
	return s
}

// Rate returns provider's rate for what, if the catalog has one.
func (c *RateCatalog) Rate(provider, what string) (Rate, bool) {
	for _, r := range c.Rates {
		if r.Provider == provider && r.What == what {
			return r, true
		}
	}
	return Rate{}, false
}

// Term returns provider's term for pricingModel, if the catalog has one.
func (c *RateCatalog) Term(provider, pricingModel string) (Term, bool) {
	for _, t := range c.Terms {
		if t.Provider == provider && t.PricingModel == pricingModel {
			return t, true
		}
	}
	return Term{}, false
}

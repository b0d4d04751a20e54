package billing

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

func TestNormalizeGPUModel(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		count          int
	}{
		{"rtx_4090", "RTX 4090", "RTX4090", 0},
		{"a_letter_after_the_number_is_the_name", "A10G", "A10G", 0}, // AWS g5, not an A with 10 GB
		{"t4g", "NVIDIA T4G", "T4G", 0},
		{"a10g_with_memory", "A10G 24GB", "A10G", 0},
		{"bare_number", "4090", "RTX4090", 0},
		{"geforce_with_memory", "GeForce RTX 4090 24G", "RTX4090", 0},
		{"nvidia_smi_name", "NVIDIA GeForce RTX 4090", "RTX4090", 0},
		{"full_width", "ＲＴＸ　４０９０", "RTX4090", 0},
		{"memory_in_parentheses", "RTX4090(24GB)", "RTX4090", 0},
		{"gpu_memory_word", "4090 24G显存", "RTX4090", 0},
		{"modded_48g_is_another_card", "RTX 4090 48G", "RTX4090-48G", 0},
		{"4090d_is_another_card", "RTX 4090D", "RTX4090D", 0},
		{"4090_d_spaced", "GeForce RTX 4090 D 24GB", "RTX4090D", 0},
		{"3080_ti", "RTX 3080 Ti", "RTX3080TI", 0},
		{"gtx_1080ti", "1080Ti", "GTX1080TI", 0},
		{"a100_80g", "A100 80G", "A100-80G", 0},
		{"a100_dash_80gb", "A100-80GB", "A100-80G", 0},
		{"a100_80gb", "A100 80GB", "A100-80G", 0},
		{"a100_sxm4", "NVIDIA A100-SXM4-80GB", "A100-80G", 0},
		{"a100_40g_differs", "A100 40G", "A100-40G", 0},
		{"a100_pcie_40gb", "A100-PCIE-40GB", "A100-40G", 0},
		{"a100_without_memory", "A100", "A100", 0},
		{"v100_tesla", "Tesla V100-SXM2-32GB", "V100-32G", 0},
		{"h100_standard_memory", "NVIDIA H100 80GB HBM3", "H100", 0},
		{"workstation", "RTX A6000", "RTXA6000", 0},
		{"workstation_bare", "A6000 48G", "RTXA6000", 0},
		{"l40s", "L40S", "L40S", 0},
		{"ascend", "昇腾910B", "昇腾910B", 0},
		{"count_suffix", "RTX 4090 * 2", "RTX4090", 2},
		{"count_times_sign", "4090×8", "RTX4090", 8},
		{"count_prefix", "2x RTX 4090", "RTX4090", 2},
		{"count_cards", "A100 80G 8卡", "A100-80G", 8},
		{"count_prefix_cards", "8卡 A100-80GB", "A100-80G", 8},
		{"counts_repeated", "1x1x1x1x1x1x A100", "A100", 1},
		{"longer_than_a_name", "A100 " + strings.Repeat("说明", 50), "", 0},
		{"system_memory_ignored", "RTX 4090 24G 内存 120GB", "RTX4090", 0},
		{"ram_before_gpu_memory", "内存120G RTX 4090", "RTX4090", 0},
		{"empty", "", "", 0},
		{"dash", "-", "", 0},
		{"none_word", "无", "", 0},
		{"noise_only", "NVIDIA GPU", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := ParseGPUModel(tc.in)
			if got := m.Key(); got != tc.want || m.count != tc.count {
				t.Errorf("ParseGPUModel(%q): got %q count %d, want %q count %d", tc.in, got, m.count, tc.want, tc.count)
			}
			if got := NormalizeGPUModel(tc.in); got != tc.want {
				t.Errorf("NormalizeGPUModel(%q): got %q, want %q", tc.in, got, tc.want)
			}
			if again := NormalizeGPUModel(tc.want); again != tc.want {
				t.Errorf("NormalizeGPUModel(%q) is not idempotent: got %q", tc.want, again)
			}
		})
	}
}

// FuzzNormalizeGPUModel checks that no input panics and that the result
// normalises to itself.
func FuzzNormalizeGPUModel(f *testing.F) {
	for _, s := range []string{"RTX 4090", "A100-80GB", "8卡 A100", "4090×2", "内存120G", "ＲＴＸ", "x9", "*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := NormalizeGPUModel(s)
		if again := NormalizeGPUModel(k); again != k {
			t.Errorf("NormalizeGPUModel(%q) = %q, which normalises to %q", s, k, again)
		}
	})
}

func TestPriceCatalog(t *testing.T) {
	entries := DefaultPrices().Entries()
	if len(entries) == 0 {
		t.Fatal("embedded price catalog is empty")
	}
	seen := map[PriceKey]int{}
	for i, p := range entries {
		if p.Source == "" || p.Seen == "" {
			t.Errorf("entry %d (%s %s): got source %q seen %q, want both set", i+1, p.Provider, p.GPUModelText, p.Source, p.Seen)
		}
		if j, dup := seen[p.Key()]; dup {
			t.Errorf("entry %d (%s %s) has the key of entry %d", i+1, p.Provider, p.GPUModelText, j+1)
		}
		seen[p.Key()] = i
		if _, ok := platform.Parse(p.Provider); !ok {
			t.Errorf("entry %d: provider %q is no provider slug", i+1, p.Provider)
		}
		if !p.PerHour.IsPositive() {
			t.Errorf("entry %d (%s %s): got price %s, want > 0", i+1, p.Provider, p.GPUModelText, p.PerHour)
		}
	}
	// FORMATS.md "Reference prices seen in Oct–Nov 2026".
	for _, tc := range []struct{ provider, model, price string }{
		{"autodl", "RTX 4090", "1.9"},
		{"autodl", "A100 80G", "8"},
		{"gpushare", "4090", "2.2"},
		{"matpool", "GeForce RTX 4090 24G", "2.0"},
		{"gpugeek", "RTX 4090", "2.5"},
		{"aliyun", "V100", "8"},
		{"tencentcloud", "RTX 4090", "5"},
		{"luchen", "A100-80GB", "10"},
	} {
		p, ok := DefaultPrices().Lookup(tc.provider, tc.model, ledger.PricingOnDemand, "CNY")
		if !ok || !p.PerHour.Equal(decimal.RequireFromString(tc.price)) {
			t.Errorf("%s %s: got %v %s, want ¥%s/h", tc.provider, tc.model, ok, p.PerHour, tc.price)
		}
	}
	if len(entries) != 8 {
		t.Errorf("got %d catalog entries, want the 8 of FORMATS.md", len(entries))
	}
}

func TestPriceLookup(t *testing.T) {
	c := DefaultPrices()
	for _, tc := range []struct {
		name, provider, model, pricing, currency string
		want                                     string // "" = no price
	}{
		{"exact", "autodl", "RTX 4090", ledger.PricingOnDemand, "CNY", "1.9"},
		{"a100_40g_is_not_80g", "autodl", "A100 40G", ledger.PricingOnDemand, "CNY", ""},
		{"a100_unknown_memory_is_not_80g", "autodl", "A100", ledger.PricingOnDemand, "CNY", ""},
		{"memory_falls_back_to_model_without", "aliyun", "V100 32G", ledger.PricingOnDemand, "CNY", "8"},
		{"modded_4090_is_not_4090", "autodl", "RTX 4090 48G", ledger.PricingOnDemand, "CNY", ""},
		{"package_is_not_on_demand", "autodl", "RTX 4090", ledger.PricingPackage, "CNY", ""},
		{"other_currency", "autodl", "RTX 4090", ledger.PricingOnDemand, "USD", ""},
		{"other_provider", "lanrui", "RTX 4090", ledger.PricingOnDemand, "CNY", ""},
		{"no_model", "autodl", "", ledger.PricingOnDemand, "CNY", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := c.Lookup(tc.provider, tc.model, tc.pricing, tc.currency)
			got := ""
			if ok {
				got = p.PerHour.String()
			}
			if got != tc.want {
				t.Errorf("got price %q, want %q", got, tc.want)
			}
		})
	}
	var nilCat *PriceCatalog
	if _, ok := nilCat.Lookup("autodl", "RTX 4090", ledger.PricingOnDemand, "CNY"); ok || nilCat.Len() != 0 {
		t.Errorf("nil catalog: got a price or %d entries, want none", nilCat.Len())
	}
}

func TestParsePrices(t *testing.T) {
	c, err := ParsePrices([]byte(`{"prices":[
		{"provider":"恒源云","gpu_model":"GeForce RTX 4090","price_per_hour":2.35,"source":"my order page","seen":"2026-12-01"},
		{"provider":"AWS","gpu_model":"A100 40GB","pricing_model":"spot","price_per_hour":"1.10","currency":"usd"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e := c.Entries()
	if len(e) != 2 {
		t.Fatalf("got %d entries, want 2", len(e))
	}
	if got := e[0]; got.Provider != "gpushare" || got.GPUModel != "RTX4090" || got.PricingModel != ledger.PricingOnDemand ||
		got.Currency != "CNY" || got.PerHour.String() != "2.35" || got.GPUModelText != "GeForce RTX 4090" {
		t.Errorf("entry 1: got %+v, want gpushare RTX4090 on_demand CNY 2.35", got)
	}
	if got := e[1]; got.Provider != "aws" || got.GPUModel != "A100-40G" || got.PricingModel != ledger.PricingSpot ||
		got.Currency != "USD" || got.PerHour.String() != "1.1" || got.PerHour.Exponent() != -2 {
		t.Errorf("entry 2: got %+v, want aws A100-40G spot USD 1.10", got)
	}
	over := c.Overlay(nil)
	merged := DefaultPrices().Overlay(c)
	if over.Len() != 2 || merged.Len() != DefaultPrices().Len()+1 {
		t.Errorf("Overlay: got %d and %d entries, want 2 and %d", over.Len(), merged.Len(), DefaultPrices().Len()+1)
	}
	if p, _ := merged.Lookup("gpushare", "4090", ledger.PricingOnDemand, "CNY"); p.PerHour.String() != "2.35" {
		t.Errorf("Overlay: got gpushare 4090 at %s, want the override 2.35", p.PerHour)
	}
	if p, _ := DefaultPrices().Lookup("gpushare", "4090", ledger.PricingOnDemand, "CNY"); p.PerHour.String() != "2.2" {
		t.Errorf("Overlay changed the default catalog: gpushare 4090 at %s, want 2.2", p.PerHour)
	}
}

func TestParsePricesErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"not_json", `{`, "billing: prices:"},
		{"unknown_field", `{"prices":[{"provider":"autodl","gpu_model":"4090","price":"1.9"}]}`, `unknown field "price"`},
		{"no_provider", `{"prices":[{"gpu_model":"4090","price_per_hour":"1.9"}]}`, "entry 1 ( 4090): no provider"},
		{"no_model", `{"prices":[{"provider":"autodl","gpu_model":"GPU","price_per_hour":"1.9"}]}`, `gpu_model: "GPU" names no GPU model`},
		{"bad_pricing", `{"prices":[{"provider":"autodl","gpu_model":"4090","pricing_model":"按量","price_per_hour":"1.9"}]}`, `pricing_model: "按量" is not one of`},
		{"no_price", `{"prices":[{"provider":"autodl","gpu_model":"4090"}]}`, "price_per_hour: missing"},
		{"bad_price", `{"prices":[{"provider":"autodl","gpu_model":"4090","price_per_hour":"¥1.9"}]}`, `price_per_hour: "¥1.9" is not a positive amount`},
		{"zero_price", `{"prices":[{"provider":"autodl","gpu_model":"4090","price_per_hour":0}]}`, `"0" is not a positive amount`},
		{"bad_seen", `{"prices":[{"provider":"autodl","gpu_model":"4090","price_per_hour":"1.9","seen":"Nov 2026"}]}`, `seen: "Nov 2026" is not a month`},
		{"duplicate_spelling", `{"prices":[{"provider":"autodl","gpu_model":"RTX 4090","price_per_hour":"1.9"},
			{"provider":"AutoDL","gpu_model":"GeForce 4090 24G","price_per_hour":"2"}]}`, "entry 2 (autodl GeForce 4090 24G on_demand CNY) repeats entry 1 (RTX 4090)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePrices([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

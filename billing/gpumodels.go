package billing

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

//go:embed gpumodels.json
var gpuModelsJSON []byte

// GPUFamily is one entry of the table: an instance family of a provider
// and the GPU it carries, with the page that says so.
type GPUFamily struct {
	Provider string `json:"provider"`
	Family   string `json:"family"`
	GPUModel string `json:"gpu_model"`
	Source   string `json:"source"`
	Seen     string `json:"seen"`
	Checked  string `json:"checked"`
}

var families = sync.OnceValues(func() (map[string]map[string]GPUFamily, error) {
	var doc struct {
		Families []GPUFamily `json:"families"`
	}
	if err := json.Unmarshal(gpuModelsJSON, &doc); err != nil {
		return nil, fmt.Errorf("billing: gpumodels.json: %w", err)
	}
	out := map[string]map[string]GPUFamily{}
	for i, f := range doc.Families {
		if f.Provider == "" || f.Family == "" || f.GPUModel == "" || !strings.HasPrefix(f.Source, "https://") {
			return nil, fmt.Errorf("billing: gpumodels.json: entry %d: provider, family, gpu_model and an https source are required", i+1)
		}
		if out[f.Provider] == nil {
			out[f.Provider] = map[string]GPUFamily{}
		}
		out[f.Provider][strings.ToLower(f.Family)] = f
	}
	return out, nil
})

// GPUFamilies lists the table (for tests and documentation).
func GPUFamilies() ([]GPUFamily, error) {
	m, err := families()
	if err != nil {
		return nil, err
	}
	var out []GPUFamily
	for _, fs := range m {
		for _, f := range fs {
			out = append(out, f)
		}
	}
	return out, nil
}

var (
	// a GPU named in the text, with an optional count before it ("1*NVIDIA A10",
	// "2 x A100") or after it ("A100*8", "4090 x2"), and its memory
	// ("A100 80GB", "A100-SXM4-80GB", "A100 PCIe 40G"). Longer names first.
	gpuNamed = regexp.MustCompile(`(?i)(?:^|[^a-z0-9])(?:(\d{1,2})\s*[*x×]\s*)?(?:nvidia\s*|geforce\s*|tesla\s*)?` +
		`(H800|H200|H100|H20|A800|A100|A6000|A30|A40|A10G|A10|V100|T4|P100|P40|P4|L40S|L40|L20|L4|(?:RTX\s*)?4090D?|(?:RTX\s*)?3090|910B)` +
		`(?:[\s-]*(?:(?:SXM\d?|PCIe)[\s-]*)?(\d{2,3})\s*G(?:B|iB)?)?(?:\s*[*x×]\s*(\d{1,2}))?(?:[^a-z0-9]|$)`)
	// the ASCII words of a text: instance families are among them
	asciiWord = regexp.MustCompile(`[a-z0-9]+`)
)

// GPUModelOf is the GPU that a compute line of provider carries, read
// from its instance type, spec or name text: a GPU named in the text
// ("GPU计算型 4090 24G", "1*NVIDIA A10", "A100-SXM4-80GB" → "A100 80G"),
// else the GPU of an instance family of the provider in the table
// (ecs.gn7i-c8g1.2xlarge → A10, GN7.2XLARGE32 → T4). count is the number of GPUs where the text states
// it, else 0 (unknown). ok is false when neither tells.
func GPUModelOf(provider, text string) (model string, count int, ok bool) {
	if m := gpuNamed.FindStringSubmatch(text); m != nil {
		model = strings.ToUpper(strings.Join(strings.Fields(m[2]), " "))
		switch {
		case strings.HasPrefix(model, "RTX"):
			model = "RTX " + strings.TrimSpace(strings.TrimPrefix(model, "RTX"))
		case strings.HasPrefix(model, "4090") || strings.HasPrefix(model, "3090"):
			model = "RTX " + model
		case model == "910B":
			model = "Ascend 910B"
		}
		// The memory stays in the name where it tells variants apart, as
		// the price catalog's "A100 40G" and "A100 80G" do; a model's
		// standard memory ("RTX 4090 24G", "H100 80GB") is dropped.
		if m[3] != "" && ParseGPUModel(model+" "+m[3]+"G").mem > 0 {
			model += " " + m[3] + "G"
		}
		for _, c := range []string{m[1], m[4]} {
			if n, err := strconv.Atoi(c); err == nil && n > 0 {
				count = n
			}
		}
		return model, count, true
	}
	fs, err := families()
	if err != nil || fs[provider] == nil {
		return "", 0, false
	}
	for _, w := range asciiWord.FindAllString(strings.ToLower(text), -1) {
		if f, found := fs[provider][w]; found {
			return f.GPUModel, 0, true
		}
	}
	return "", 0, false
}

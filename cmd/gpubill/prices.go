package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/reports"
)

func (a *app) pricesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prices",
		Short: "List the price catalog with its sources and age / 列出价目表、来源与时效",
		Long: `List the reference catalog that report replay and the price_deviation rule use: GPU-hour
prices (the built-in ones and the [[price]] entries of the config file), storage, traffic
and seat rates, package and spot terms, GPUs not offered and GPU equivalents. Each entry
shows its source, the date it was seen, its age, and whether it is stale (older than 90
days), and its confidence (vendor, user report, guess).

列出 report replay 与 price_deviation 规则使用的参考价目：GPU 每小时单价（内置及配置文件
[[price]]）、存储/流量/占用费、包时与竞价条款、不提供的型号与等效型号；每条显示来源、
查看日期、天数、是否过期（超过 90 天）和可信度。`,
		Example: `  gpubill prices
  gpubill prices --format json
  gpubill prices import today.csv >> ~/.config/gpubill/config.toml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.ruleConfig(nil)
			if err != nil {
				return err
			}
			rep, err := reports.Prices(reports.PricesOptions{Config: replayConfig(cfg)})
			if err != nil {
				return err
			}
			return a.writeReport(rep)
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "import FILE",
		Short: "Check today's GPU-hour prices (CSV or JSON) and print them as config [[price]] entries / 导入价格",
		Long: `Reads GPU-hour prices you saw today, as CSV (header: provider, gpu_model, pricing_model,
price_per_hour, currency, source, seen, note_zh, note_en; pricing_model and currency may be
left empty: on_demand, CNY) or in the format of the built-in catalog ({"prices": [...]}),
checks every entry (a source and the date seen are required) and prints them as [[price]]
entries for the config file, where they replace the built-in price of the same provider,
GPU model, pricing model and currency. Nothing is written but the output.

读取今天看到的 GPU 单价（CSV 或内置价目表的 JSON 格式），逐条检查（必须有来源与查看日期），
输出为配置文件的 [[price]] 条目；追加到配置文件后覆盖同一平台、型号、计费方式、币种的内置价格。`,
		Example: `  gpubill prices import today.csv >> ~/.config/gpubill/config.toml`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			entries, err := readPriceFile(args[0])
			if err != nil {
				return err
			}
			return a.writeOut(func(w io.Writer) error { return writePriceTOML(w, args[0], entries) })
		},
	})
	return cmd
}

// priceFields are the columns of a price file, in prices.json's names.
var priceFields = []string{"provider", "gpu_model", "pricing_model", "price_per_hour", "currency", "source", "seen", "note_zh", "note_en"}

// readPriceFile reads and checks a CSV or JSON price file: every entry
// parses as an entry of the built-in catalog and names its source and the
// date it was seen. Errors name the file and the row (CSV) or entry (JSON).
func readPriceFile(path string) ([]map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var entries []map[string]string
	where := func(i int) string { return fmt.Sprintf("%s: entry %d", path, i+1) }
	if strings.EqualFold(filepath.Ext(path), ".json") {
		var doc struct {
			Prices []map[string]any `json:"prices"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for i, p := range doc.Prices {
			e := map[string]string{}
			for k, v := range p {
				if !containsField(k) {
					return nil, fmt.Errorf("%s: unknown field %q (known: %s)", where(i), k, strings.Join(priceFields, ", "))
				}
				e[k] = strings.TrimSpace(fmt.Sprint(v))
			}
			entries = append(entries, e)
		}
	} else {
		r := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(b), "\ufeff")))
		r.FieldsPerRecord = -1
		header, err := r.Read()
		if err != nil {
			return nil, fmt.Errorf("%s: no header: %w", path, err)
		}
		for i, h := range header {
			header[i] = strings.ToLower(strings.TrimSpace(h))
			if !containsField(header[i]) {
				return nil, fmt.Errorf("%s:1:%d: unknown column %q (known: %s)", path, i+1, h, strings.Join(priceFields, ", "))
			}
		}
		for row := 1; ; row++ {
			rec, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			e := map[string]string{}
			for i, v := range rec {
				if i < len(header) {
					e[header[i]] = strings.TrimSpace(v)
				}
			}
			entries = append(entries, e)
		}
		// a record's number: the header is record 0
		where = func(i int) string { return fmt.Sprintf("%s: row %d", path, i+1) }
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s: no prices", path)
	}
	for i, e := range entries {
		if e["source"] == "" || e["seen"] == "" {
			return nil, fmt.Errorf("%s: a price needs its source and the date it was seen (seen = YYYY-MM-DD)", where(i))
		}
		one, _ := json.Marshal(map[string][]map[string]string{"prices": {e}})
		if _, err := billing.ParsePrices(one); err != nil {
			return nil, fmt.Errorf("%s: %s", where(i), strings.TrimPrefix(err.Error(), "rules: prices: entry 1 "))
		}
	}
	all, _ := json.Marshal(map[string][]map[string]string{"prices": entries})
	if _, err := billing.ParsePrices(all); err != nil {
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "rules: prices: "))
	}
	return entries, nil
}

func containsField(k string) bool {
	for _, f := range priceFields {
		if f == k {
			return true
		}
	}
	return false
}

// writePriceTOML writes entries as [[price]] tables of the config file.
func writePriceTOML(w io.Writer, from string, entries []map[string]string) error {
	if _, err := fmt.Fprintf(w, "# prices imported from %s\n", tomlString(from)); err != nil {
		return err
	}
	for _, e := range entries {
		if _, err := fmt.Fprintln(w, "[[price]]"); err != nil {
			return err
		}
		for _, f := range priceFields {
			if v := e[f]; v != "" {
				if _, err := fmt.Fprintf(w, "%s = %s\n", f, tomlString(v)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

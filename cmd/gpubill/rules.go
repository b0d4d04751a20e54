package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/rules"
)

func (a *app) rulesCommand() *cobra.Command {
	var set []string
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the audit rules, their parameters and current values / 列出审计规则及参数",
		Long: `List every audit rule with what it looks for, its parameters, their defaults and the
values in effect (after --set). Change a value for one run with
  gpubill audit --set RULE.PARAM=VALUE

列出每条审计规则、检查内容、参数、默认值和当前值。`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.ruleConfig(set)
			if err != nil {
				return err
			}
			w, closeOut, err := a.out()
			if err != nil {
				return err
			}
			infos := rules.Describe(cfg)
			if a.format == "json" {
				err = writeRulesJSON(w, infos)
			} else {
				err = a.writeRulesText(w, infos)
			}
			if cerr := closeOut(); err == nil {
				err = cerr
			}
			return err
		},
	}
	cmd.Flags().StringArrayVar(&set, "set", nil, "show values as if RULE.PARAM=VALUE were given to audit")
	return cmd
}

func (a *app) writeRulesText(w io.Writer, infos []rules.Info) error {
	for _, in := range infos {
		title, desc := in.TitleEN, in.DescriptionEN
		if a.lang == "zh" {
			title, desc = in.TitleZH, in.DescriptionZH
		}
		fmt.Fprintf(w, "%s — %s\n  %s\n", in.ID, title, desc)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, p := range in.Params {
			help := p.HelpEN
			if a.lang == "zh" {
				help = p.HelpZH
			}
			fmt.Fprintf(tw, "  %s.%s\t= %s\t(default %s)\t%s\n", in.ID, p.Name, p.Value, p.Default, help)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	return nil
}

type ruleJSON struct {
	ID            string      `json:"id"`
	TitleZH       string      `json:"title_zh"`
	TitleEN       string      `json:"title_en"`
	DescriptionZH string      `json:"description_zh"`
	DescriptionEN string      `json:"description_en"`
	Params        []paramJSON `json:"params"`
}

type paramJSON struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Default string `json:"default"`
	Value   string `json:"value"`
	HelpZH  string `json:"help_zh"`
	HelpEN  string `json:"help_en"`
}

func writeRulesJSON(w io.Writer, infos []rules.Info) error {
	out := make([]ruleJSON, 0, len(infos))
	for _, in := range infos {
		r := ruleJSON{ID: in.ID, TitleZH: in.TitleZH, TitleEN: in.TitleEN, DescriptionZH: in.DescriptionZH, DescriptionEN: in.DescriptionEN, Params: []paramJSON{}}
		for _, p := range in.Params {
			r.Params = append(r.Params, paramJSON{p.Name, p.Type, p.Default, p.Value, p.HelpZH, p.HelpEN})
		}
		out = append(out, r)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"rules": out})
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/money"
	"github.com/gpubill/gpubill/rules"
)

func (a *app) rulesCommand() *cobra.Command {
	var set []string
	cmd := &cobra.Command{
		Annotations: map[string]string{textOrJSON: "yes"},
		Use:         "rules",
		Short:       "List the audit rules, their parameters and current values / 列出审计规则及参数",
		Long: `List every audit rule with what it looks for, its parameters, their defaults and the
values in effect (config file, then --set), then the user SQL rules of the rules folder
and the policy and price overrides of the config file. Change a value for one run with
  gpubill audit --set RULE.PARAM=VALUE
or for good in the config file (--config, default $XDG_CONFIG_HOME/gpubill/config.toml):
  [params]
  "forgotten_instance.limit" = "6h"
An expected long run is exempted from forgotten_instance until a date, per resource,
project or tag (tag = "key" or "key=value"):
  [[exempt]]
  resource = "i-train"
  until = "2026-12-31"
  reason = "monthly 36-hour fine-tune"

列出每条审计规则、检查内容、参数、默认值和当前值（配置文件与 --set 生效后），
以及规则目录中的用户 SQL 规则、配置文件中的平台政策与参考价格覆盖。
配置文件的 [[exempt]]（resource / project / tag 之一，until 为到期日）可让预期中的长时间运行
在到期前不再被 forgotten_instance 报告。`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.ruleConfig(set)
			if err != nil {
				return err
			}
			infos := rules.Describe(cfg)
			var user []rules.UserRule
			if cfg.RulesDir != "" {
				var warns []rules.Warning
				user, warns, err = rules.LoadUserRules(cfg.RulesDir)
				if err != nil {
					return err
				}
				for _, w := range warns {
					a.say("警告：%v", "warning: %v", w)
				}
			}
			w, closeOut, err := a.out()
			if err != nil {
				return err
			}
			if a.format == "json" {
				err = writeRulesJSON(w, cfg, infos, user)
			} else {
				err = a.writeRulesText(w, cfg, infos, user)
			}
			if cerr := closeOut(); err == nil {
				err = cerr
			}
			return err
		},
	}
	cmd.Flags().StringArrayVar(&set, "set", nil, "show values as if RULE.PARAM=VALUE were given to audit")
	cmd.Flags().StringVar(&a.rulesDir, "rules-dir", "", "folder of user SQL rules (default: rules_dir of the config file)")
	return cmd
}

func (a *app) pick(zh, en string) string {
	if a.lang == "zh" {
		return zh
	}
	return en
}

func (a *app) writeRulesText(w io.Writer, cfg rules.Config, infos []rules.Info, user []rules.UserRule) error {
	for _, in := range infos {
		fmt.Fprintf(w, "%s — %s\n  %s\n", in.ID, a.pick(in.TitleZH, in.TitleEN), a.pick(in.DescriptionZH, in.DescriptionEN))
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, p := range in.Params {
			fmt.Fprintf(tw, "  %s.%s\t= %s\t(default %s)\t%s\n", in.ID, p.Name, p.Value, p.Default, a.pick(p.HelpZH, p.HelpEN))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if cfg.RulesDir != "" {
		fmt.Fprintf(w, "%s %s (%s %s)\n", a.pick("用户规则目录", "User rules in"), cfg.RulesDir,
			a.pick("每条限时", "time limit each"), timeoutOf(cfg))
		if len(user) == 0 {
			fmt.Fprintf(w, "  %s\n", a.pick("（没有 .sql 文件）", "(no .sql files)"))
		}
		for _, u := range user {
			in := u.Info()
			fmt.Fprintf(w, "  %s — %s\n", u.ID, a.pick(in.TitleZH, in.TitleEN))
		}
		fmt.Fprintln(w)
	}
	for _, p := range overriddenPolicies(cfg) {
		fmt.Fprintf(w, "%s %s: billing_step=%s minimum_billed=%s release_days=%d charged_while_stopped=%v\n",
			a.pick("平台政策（配置覆盖）", "Policy (from config)"), p.Provider, p.BillingStep, p.MinimumBilled, p.ReleaseDays, p.ChargedWhileStopped)
	}
	for _, p := range cfg.Prices.Entries() {
		fmt.Fprintf(w, "%s %s %s %s: %s %s/h\n", a.pick("参考价格（配置覆盖）", "Reference price (from config)"),
			p.Provider, p.GPUModelText, p.PricingModel, money.String(p.PerHour), p.Currency)
	}
	for _, e := range cfg.Exemptions {
		fmt.Fprintf(w, "%s %s: %s %s %s", a.pick("豁免（配置）", "Exemption (from config)"), e.RuleID, e.What(),
			a.pick("至", "until"), e.Until)
		if e.Reason != "" {
			fmt.Fprintf(w, " (%s)", e.Reason)
		}
		fmt.Fprintln(w)
	}
	src := cfg.Source
	if src == "" {
		src = a.pick("无（全部为默认值）", "none (all defaults)")
	}
	fmt.Fprintf(w, "%s: %s\n", a.pick("配置文件", "Config file"), src)
	return nil
}

func timeoutOf(cfg rules.Config) string {
	if cfg.UserRuleTimeout > 0 {
		return cfg.UserRuleTimeout.String()
	}
	return rules.DefaultUserRuleTimeout.String()
}

func overriddenPolicies(cfg rules.Config) []billing.Policy {
	out := make([]billing.Policy, 0, len(cfg.Policies))
	for _, p := range cfg.Policies {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Provider < out[j].Provider })
	return out
}

type ruleJSON struct {
	ID            string      `json:"id"`
	TitleZH       string      `json:"title_zh"`
	TitleEN       string      `json:"title_en"`
	DescriptionZH string      `json:"description_zh"`
	DescriptionEN string      `json:"description_en"`
	File          string      `json:"file,omitempty"` // user rules only
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

type policyOverrideJSON struct {
	Provider            string   `json:"provider"`
	BillingStep         string   `json:"billing_step"`
	MinimumBilled       string   `json:"minimum_billed"`
	ReleaseDays         int      `json:"release_days"`
	ChargedWhileStopped []string `json:"charged_while_stopped"`
}

type priceOverrideJSON struct {
	Provider     string `json:"provider"`
	GPUModel     string `json:"gpu_model"`
	PricingModel string `json:"pricing_model"`
	PricePerHour string `json:"price_per_hour"`
	Currency     string `json:"currency"`
}

func writeRulesJSON(w io.Writer, cfg rules.Config, infos []rules.Info, user []rules.UserRule) error {
	out := make([]ruleJSON, 0, len(infos)+len(user))
	add := func(in rules.Info, file string) {
		r := ruleJSON{ID: in.ID, TitleZH: in.TitleZH, TitleEN: in.TitleEN, DescriptionZH: in.DescriptionZH,
			DescriptionEN: in.DescriptionEN, File: file, Params: []paramJSON{}}
		for _, p := range in.Params {
			r.Params = append(r.Params, paramJSON{p.Name, p.Type, p.Default, p.Value, p.HelpZH, p.HelpEN})
		}
		out = append(out, r)
	}
	for _, in := range infos {
		add(in, "")
	}
	for _, u := range user {
		add(u.Info(), u.File)
	}
	policies := []policyOverrideJSON{}
	for _, p := range overriddenPolicies(cfg) {
		policies = append(policies, policyOverrideJSON{p.Provider, p.BillingStep.String(), p.MinimumBilled.String(),
			p.ReleaseDays, p.ChargedWhileStopped})
	}
	prices := []priceOverrideJSON{}
	for _, p := range cfg.Prices.Entries() {
		prices = append(prices, priceOverrideJSON{p.Provider, p.GPUModelText, p.PricingModel, money.String(p.PerHour), p.Currency})
	}
	exempts := []exemptionJSON{}
	for _, e := range cfg.Exemptions {
		exempts = append(exempts, exemptionJSON{e.RuleID, e.Provider, e.Resource, e.Project, e.Tag, e.Until, e.Reason})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"rules": out, "config": cfg.Source, "rules_dir": cfg.RulesDir,
		"policy_overrides": policies, "price_overrides": prices, "exemptions": exempts})
}

// exemptionJSON is an element of "exemptions" in rules --format json.
type exemptionJSON struct {
	RuleID   string `json:"rule_id"`
	Provider string `json:"provider,omitempty"`
	Resource string `json:"resource,omitempty"`
	Project  string `json:"project,omitempty"`
	Tag      string `json:"tag,omitempty"`
	Until    string `json:"until"`
	Reason   string `json:"reason,omitempty"`
}

package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reports"
	"github.com/gpubill/gpubill/rules"
)

type auditOptions struct {
	failOn string
	set    []string
}

func (a *app) auditCommand() *cobra.Command {
	var o auditOptions
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Run the rules on a month and list the findings / 审计账单，列出可疑收费",
		Long: `Run every rule on the month's line items, store the findings in the ledger (rerunning
does not duplicate them) and print them with the money at risk and the evidence rows.

对一个月的账单运行全部规则，保存并打印发现的问题（涉及金额、证据行、建议）。
重复运行不会产生重复的发现。`,
		Example: `  gpubill audit --month 2026-10
  gpubill audit --set forgotten_instance.limit=6h --fail-on high
  gpubill audit ack 3f9c0e1a2b4d5e6f`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runAudit(cmd, o)
		},
	}
	cmd.Flags().StringVar(&o.failOn, "fail-on", "", "exit 3 when a finding at or above this severity exists (info|low|medium|high)")
	cmd.Flags().StringArrayVar(&o.set, "set", nil, "override a rule parameter, e.g. forgotten_instance.limit=6h (repeatable)")
	for _, s := range []struct{ use, state, zh, en string }{
		{"ack", "acknowledged", "标记为已知悉", "mark a finding acknowledged"},
		{"resolve", "resolved", "标记为已解决", "mark a finding resolved"},
		{"reopen", "open", "重新打开", "open a finding again"},
	} {
		s := s
		cmd.AddCommand(&cobra.Command{
			Use:   s.use + " FINGERPRINT…",
			Short: s.en + " / " + s.zh,
			Args:  cobra.MinimumNArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				db, err := a.openLedger(cmd.Context())
				if err != nil {
					return err
				}
				defer db.Close()
				for _, fp := range args {
					if err := db.SetFindingState(cmd.Context(), fp, s.state); err != nil {
						return err
					}
					a.say("%s → %s", "%s → %s", fp, s.state)
				}
				return nil
			},
		})
	}
	return cmd
}

// ruleConfig builds the rules configuration from the flags.
func (a *app) ruleConfig(set []string) (rules.Config, error) {
	cfg := rules.DefaultConfig()
	cfg.TZ = a.loc
	for _, kv := range set {
		if err := cfg.Set(kv); err != nil {
			return cfg, fmt.Errorf("--set %q: %w", kv, err)
		}
	}
	return cfg, nil
}

func (a *app) runAudit(cmd *cobra.Command, o auditOptions) error {
	ctx := cmd.Context()
	if o.failOn != "" && ledger.SeverityRank(o.failOn) < 0 {
		return fmt.Errorf("--fail-on %q: want info, low, medium or high", o.failOn)
	}
	cfg, err := a.ruleConfig(o.set)
	if err != nil {
		return err
	}
	return a.withMonth(ctx, func(db *ledger.DB, month string) error {
		findings, err := a.audit(ctx, db, month, cfg)
		if err != nil {
			return err
		}
		if err := a.writeFindings(cmd, db, month); err != nil {
			return err
		}
		if o.failOn != "" {
			for _, f := range findings {
				if ledger.SeverityRank(f.Severity) >= ledger.SeverityRank(o.failOn) {
					return &exitError{code: exitFindings}
				}
			}
		}
		return nil
	})
}

// audit runs the rules on month and stores the findings.
func (a *app) audit(ctx context.Context, db *ledger.DB, month string, cfg rules.Config) ([]ledger.Finding, error) {
	findings, err := rules.Run(ctx, db, month, cfg)
	if err != nil {
		return nil, internal(err)
	}
	if _, err := db.SaveAudit(ctx, month, a.loc.String(), cfg.ParamsJSON(), findings); err != nil {
		return nil, internal(err)
	}
	return findings, nil
}

// writeFindings prints the stored findings of month in the chosen format.
func (a *app) writeFindings(cmd *cobra.Command, db *ledger.DB, month string) error {
	rep, err := reports.Findings(cmd.Context(), db, month)
	if err != nil {
		return internal(err)
	}
	return a.writeReport(rep)
}

// reportWriter is what every report offers.
type reportWriter interface {
	Write(w io.Writer, opts reports.WriteOptions) error
}

func (a *app) writeReport(rep reportWriter) error {
	w, closeOut, err := a.out()
	if err != nil {
		return err
	}
	err = rep.Write(w, reports.WriteOptions{Format: a.textFormat(), Lang: a.lang, TZ: a.loc})
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return err
}

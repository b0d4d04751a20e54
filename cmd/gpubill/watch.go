package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/fetch"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
	"github.com/gpubill/gpubill/watch"
)

type watchOptions struct {
	account, endpoint, region string
	once, dryRun              bool
	interval, timeout         time.Duration
	releaseWarn               time.Duration
	failOn, exec, now         string
	set                       []string
	idleStorageDays           int
	runwayDays                int
	balanceBelow              string
}

func (a *app) watchCommand() *cobra.Command {
	var o watchOptions
	cmd := &cobra.Command{
		Use:   "watch [PROVIDER…]",
		Short: "Alert on forgotten instances, idle storage, low balances and budgets, the same day / 当天提醒忘关机、闲置存储、余额与预算",
		Long: `Poll the clouds' instance APIs and the ledger, and alert within minutes instead of a month later.
From the instance APIs:

  running_too_long  an on-demand instance running past forgotten_instance.limit (default 8 h),
                    with the same night window and severity thresholds as the audit rule; the
                    money beyond the limit so far and what another 24 hours add, at the
                    reference catalog's price (the instance APIs give none; marked as such)
  release_soon      a stopped instance within --release-warn of the day the platform releases
                    it (release_days of the policies, or the config's [[policy]]), with the date

From the ledger (the bill lines fetched or imported so far, the money flow; for every platform,
the GPU platforms without an instance API too; each alert states how old its data is):

  idle_storage      storage, images or snapshots still billing for an instance that ran no
                    compute for --idle-storage-days (stopped, or gone while its disk stayed): the
                    money since, and 30 more days at that rate
  low_balance       a balance (reconcile's, less the bill lines charged since the money flow's
                    last row) below --balance-below, or lasting fewer than --runway-days at this
                    month's burn rate: when it runs out, the balance at the month's end
  budget            a [[budget]] of the config (project, provider and/or account, amount per
                    month, currency) crossed 50, 80 and 100% this month: the spend so far and at
                    the month's end

  tencentcloud  CVM DescribeInstances  (live; no start time in the API: the first poll that saw it running counts)
  aliyun        ECS DescribeInstances  (live; the API's StartTime)
  volcengine    ECS DescribeInstances  (live; no start time, no GPU model: the price stays unknown)
  huaweicloud   ECS ListServersDetails (live; no last start time: the first poll that saw it running
                counts; needs the region's project ID, HUAWEICLOUD_SDK_PROJECT_ID or project_id)

Keys and --endpoint as for gpubill fetch; an [[account]] may name its region. Each alert is
sent once, again only when it escalates (severity up, or at high each further severity_high of
money); escalations during the night are held until the night's end. An alert clears when its
condition ends. The state is in the ledger, under its write lock: two watchers never send the
same alert. Notifiers: --exec CMD (the alert as JSON on stdin) and the config's [[notify]]
tables (kind = wecom | feishu | dingtalk, url, secret; or kind = smtp, url = smtp://user@host:587,
secret = the password, from, to); the file must then be mode 0600.
Alerts sent are also printed (stdout): without a notifier, that is the notification (cron
mails it). --dry-run prints what would be sent and records nothing.

轮询云厂商实例接口，按 forgotten_instance 的参数实时提醒：超时运行（夜间感知）与关机即将被释放；
并根据账本中已有的账单与收支明细提醒：关机或释放后仍在计费的存储与镜像、余额不足或可用天数不足、
预算越过 50/80/100%。没有可轮询的账号时只检查账本。每条提醒只发一次，升级时再发；夜间的升级留到夜间结束时发送。在实例上运行的守护见 gpubill guard。`,
		Example: `  gpubill watch --once --dry-run
  gpubill watch --interval 5m --exec 'jq -r .message_zh | mail -s gpubill me@example.com'
  gpubill watch aliyun --region cn-beijing --once --fail-on high`,
		RunE: func(cmd *cobra.Command, args []string) error { return a.runWatch(cmd.Context(), o, args) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.once, "once", false, "poll once and exit (for cron; the default without --interval)")
	f.DurationVar(&o.interval, "interval", 0, "poll every DURATION until interrupted (e.g. 5m)")
	f.StringVar(&o.account, "account", "", "account NAME of the config's [[account]] tables")
	f.StringVar(&o.endpoint, "endpoint", "", "API endpoint URL for every account polled (tests, private endpoints)")
	f.StringVar(&o.region, "region", "", "region to list (default: the account's region, else ap-guangzhou / cn-hangzhou / cn-beijing)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print what would be sent; send and record nothing")
	f.StringVar(&o.failOn, "fail-on", "", "with --once: exit 3 when an alert at or above this severity is open (info|low|medium|high)")
	f.StringVar(&o.exec, "exec", "", "run CMD (sh -c) for each alert sent, the alert as JSON on its stdin")
	f.DurationVar(&o.releaseWarn, "release-warn", 72*time.Hour, "warn this long before a stopped instance is released")
	f.IntVar(&o.idleStorageDays, "idle-storage-days", 3, "alert on storage and images billing for an instance idle this many days (0: off)")
	f.StringVar(&o.balanceBelow, "balance-below", "", "alert when a platform balance is below AMOUNT (in its currency)")
	f.IntVar(&o.runwayDays, "runway-days", 3, "alert when a balance lasts fewer than N days at this month's burn rate (0: off)")
	f.StringArrayVar(&o.set, "set", nil, "override a rule parameter, e.g. forgotten_instance.limit=6h (repeatable)")
	f.DurationVar(&o.timeout, "timeout", 30*time.Second, "time limit of one API request")
	f.StringVar(&o.now, "now", "", "judge as if it were this RFC 3339 time (tests and replays)")
	_ = f.MarkHidden("now")
	return cmd
}

// watchAccounts are the accounts to poll: those of the named providers
// (as fetch resolves one), else every instance-capable account of the
// config and of the environment.
func (a *app) watchAccounts(o watchOptions, args []string, ledgerOnly bool) ([]fetch.Account, error) {
	fo := fetchOptions{account: o.account, endpoint: o.endpoint}
	var out []fetch.Account
	if len(args) > 0 {
		for _, p := range args {
			accts, err := a.fetchAccounts(fo, []string{p})
			if err != nil {
				return nil, err
			}
			if !slices.Contains(fetch.InstanceProviders(), accts[0].Provider) {
				return nil, a.fetchUsage("watch 暂不支持 %s（可用：%s）", "watch does not list %s instances yet (%s)", p, strings.Join(fetch.InstanceProviders(), ", "))
			}
			out = append(out, accts...)
		}
		return out, nil
	}
	if p := a.configPath(); p != "" {
		cfg, err := fetch.LoadAccounts(p, os.Getenv)
		if err != nil {
			return nil, a.fetchError(err)
		}
		for _, c := range cfg {
			if slices.Contains(fetch.InstanceProviders(), c.Provider) && (o.account == "" || c.Name == o.account) {
				out = append(out, c)
			}
		}
	}
	for _, p := range fetch.InstanceProviders() {
		if slices.ContainsFunc(out, func(c fetch.Account) bool { return c.Provider == p }) || o.account != "" {
			continue
		}
		if env, ok := fetch.FromEnv(p, os.Getenv); ok {
			out = append(out, env)
		}
	}
	if len(out) == 0 {
		if o.account != "" || !ledgerOnly {
			return nil, a.fetchUsage("没有可轮询的账号：请设置 TENCENTCLOUD_SECRET_ID/KEY、ALIBABA_CLOUD_ACCESS_KEY_ID/SECRET 或 VOLCENGINE_ACCESS_KEY/SECRET_KEY，或在配置文件中添加 [[account]]",
				"no account to poll: set TENCENTCLOUD_SECRET_ID/KEY, ALIBABA_CLOUD_ACCESS_KEY_ID/SECRET or VOLCENGINE_ACCESS_KEY/SECRET_KEY, or add an [[account]] to the config file")
		}
		a.say("没有可轮询实例接口的账号：只检查账本（账单、收支明细与预算）", "no account to poll an instance API of: judging the ledger only (bills, money flow, budgets)")
	}
	if o.endpoint != "" {
		for i := range out {
			out[i].Endpoint = o.endpoint
		}
	}
	return out, nil
}

func (a *app) runWatch(ctx context.Context, o watchOptions, args []string) error {
	if o.failOn != "" && ledger.SeverityRank(o.failOn) < 0 {
		return fmt.Errorf("--fail-on %q: want info, low, medium or high", o.failOn)
	}
	if o.interval != 0 && (o.once || o.interval < 10*time.Second) {
		return a.fetchUsage("--interval 需不少于 10s，且不能与 --once 同用", "--interval must be at least 10s and cannot go with --once")
	}
	var fixed time.Time
	if o.now != "" {
		t, err := time.Parse(time.RFC3339, o.now)
		if err != nil {
			return fmt.Errorf("--now %q: want an RFC 3339 time", o.now)
		}
		fixed = t
	}
	if o.idleStorageDays < 0 || o.runwayDays < 0 {
		return a.fetchUsage("--idle-storage-days 与 --runway-days 不能为负", "--idle-storage-days and --runway-days cannot be negative")
	}
	var below decimal.NullDecimal
	if o.balanceBelow != "" {
		d, err := decimal.NewFromString(o.balanceBelow)
		if err != nil || d.IsNegative() {
			return a.fetchUsage("--balance-below %q 不是金额", "--balance-below %q: want an amount", o.balanceBelow)
		}
		below = decimal.NullDecimal{Decimal: d, Valid: true}
	}
	var budgets []watch.Budget
	if p := a.configPath(); p != "" {
		var err error
		if budgets, err = watch.LoadBudgets(p); err != nil {
			return err
		}
	}
	ledgerOnly := o.idleStorageDays > 0 || below.Valid || o.runwayDays > 0 || len(budgets) > 0
	accts, err := a.watchAccounts(o, args, ledgerOnly)
	if err != nil {
		return err
	}
	cfg, err := a.ruleConfig(o.set)
	if err != nil {
		return err
	}
	fp, err := cfg.Forgotten()
	if err != nil {
		return err
	}
	ns, err := a.notifiers(o.exec)
	if err != nil {
		return err
	}
	db, err := a.openLedger(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	lang := a.lang
	if lang != "zh" {
		lang = "en"
	}
	// Without a notifier the printed alerts are the notification (cron
	// mails them): they are recorded all the same, so a re-run is quiet.
	req := watch.Request{Accounts: accts, Region: o.region, Notifiers: ns, DryRun: o.dryRun,
		Judge: watch.Judge{Forgotten: fp, Config: cfg, ReleaseWarn: o.releaseWarn, Lang: lang,
			IdleStorageDays: o.idleStorageDays, BalanceBelow: below, RunwayDays: o.runwayDays, Budgets: budgets},
		Options: fetch.Options{Timeout: o.timeout}}
	if !fixed.IsZero() {
		req.Now = func() time.Time { return fixed }
	}
	if o.interval == 0 {
		out, err := watch.Run(ctx, db, req)
		if err != nil {
			return err
		}
		failed, werr := a.writeWatch(out, req.DryRun)
		if werr != nil {
			return werr
		}
		if failed {
			return &exitError{code: exitInput}
		}
		if o.failOn != "" {
			for _, al := range out.Open {
				if ledger.SeverityRank(al.Severity) >= ledger.SeverityRank(o.failOn) {
					return &exitError{code: exitFindings}
				}
			}
		}
		return nil
	}
	tick := time.NewTicker(o.interval)
	defer tick.Stop()
	for {
		out, err := watch.Run(ctx, db, req)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil
			}
			fmt.Fprintf(a.stderr, "gpubill: watch: %v\n", err)
		} else if _, err := a.writeWatch(out, req.DryRun); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// writeWatch prints one poll: the sources with their delay and errors
// (stderr), the alerts sent (stdout). failed reports a source or a
// notifier that failed.
func (a *app) writeWatch(out watch.Outcome, dry bool) (failed bool, err error) {
	type source struct {
		Provider  string `json:"provider"`
		Account   string `json:"account"`
		Instances int    `json:"instances"`
		Delay     string `json:"delay"`
		Error     string `json:"error,omitempty"`
	}
	var srcs []source
	for _, s := range out.Sources {
		r := source{Provider: s.Provider, Account: s.Account, Instances: s.Instances, Delay: s.Delay}
		if s.Err != nil {
			failed = true
			r.Error = a.fetchError(s.Err).Error()
			fmt.Fprintf(a.stderr, "gpubill: %s\n", r.Error)
		} else if a.format != "json" {
			n := a.pick(strconv.Itoa(s.Instances)+" 台实例", countEN(s.Instances, "instance"))
			a.say("%s %s：%s（延迟：%s）", "%s %s: %s (delay: %s)", platform.Name(s.Provider, a.lang), s.Account, n, s.Delay)
		}
		srcs = append(srcs, r)
	}
	for _, s := range out.LedgerSources {
		if a.format != "json" {
			a.say("%s：%s", "%s: %s", platform.Name(s.Provider, a.lang), s.Delay)
		}
	}
	var sendErrs []string
	for _, e := range out.SendErrors {
		failed = true
		sendErrs = append(sendErrs, e.Error())
		fmt.Fprintf(a.stderr, "gpubill: %v\n", e)
	}
	w, closeOut, err := a.out()
	if err != nil {
		return failed, err
	}
	if a.format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(map[string]any{"dry_run": dry, "sources": srcs, "ledger_sources": nonNilL(out.LedgerSources), "sent": nonNil(out.Sent), "held": nonNil(out.Held),
			"open": nonNil(out.Open), "cleared": nonNilS(out.Cleared), "send_errors": nonNilS(sendErrs)})
	} else {
		verb := map[bool][2]string{false: {"已发送", "sent"}, true: {"将发送", "would send"}}[dry]
		for _, al := range out.Sent {
			v := verb[1]
			if a.lang == "zh" {
				v = verb[0]
			}
			if _, err = fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", v, al.Event, al.Severity, al.Kind, al.Subject(), al.Message(a.lang)); err != nil {
				break
			}
		}
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return failed, err
}

func nonNil(a []watch.Alert) []watch.Alert {
	if a == nil {
		return []watch.Alert{}
	}
	return a
}

func nonNilS(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

func nonNilL(a []watch.LedgerSource) []watch.LedgerSource {
	if a == nil {
		return []watch.LedgerSource{}
	}
	return a
}

// notifiers are the --exec command, if any, then the config's notifiers.
func (a *app) notifiers(exec string) ([]watch.Notifier, error) {
	var ns []watch.Notifier
	if exec != "" {
		ns = append(ns, watch.Exec{Command: exec})
	}
	if p := a.configPath(); p != "" {
		more, err := watch.LoadNotifiers(p)
		if err != nil {
			return nil, err
		}
		ns = append(ns, more...)
	}
	return ns, nil
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/fetch"
	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/platform"
)

type fetchOptions struct {
	account  string
	endpoint string
	dryRun   bool
	all      bool
	timeout  time.Duration
}

func (a *app) fetchCommand() *cobra.Command {
	var o fetchOptions
	cmd := &cobra.Command{
		Use:   "fetch PROVIDER | fetch --all",
		Short: "Pull a month of bill lines by API (腾讯云, 阿里云, 火山引擎, 华为云) / 通过 API 拉取账单",
		Long: `Pull a month of bill detail lines from a cloud's billing API into the ledger, through the
same mapping as that cloud's exported CSV: fetching a month and importing its CSV store each
line once. One transaction per month and account: a failure on any page writes nothing, and
a re-run adds nothing. A month whose bill is not final yet (before the 4th of the next month)
(华为云: 10:00 on the 4th) is stored as provisional and replaced by the next fetch of it.

  tencentcloud  DescribeBillDetail    keys: TENCENTCLOUD_SECRET_ID, TENCENTCLOUD_SECRET_KEY
  aliyun        DescribeInstanceBill  keys: ALIBABA_CLOUD_ACCESS_KEY_ID, ALIBABA_CLOUD_ACCESS_KEY_SECRET
  volcengine    ListBillDetail        keys: VOLCENGINE_ACCESS_KEY, VOLCENGINE_SECRET_KEY
  huaweicloud   ListCustomerselfResourceRecords
                                      keys: HUAWEICLOUD_SDK_AK, HUAWEICLOUD_SDK_SK
                                      (and HUAWEICLOUD_SDK_DOMAIN_ID, the account ID, sent as X-Domain-Id)

Keys come from those variables, or from [[account]] tables of the config file (name,
provider, key_id, secret, endpoint; 华为云 also domain_id, project_id); a config file that holds a secret must be mode 0600.
Secrets are never printed, logged or stored. --month defaults to the previous month.

通过云厂商账单 API 拉取一个月的明细账单，映射与导入该厂商 CSV 相同（两种方式不会重复记账）；
每个账号每月一个事务，出错不写入任何数据；账单未出终版时标记为临时，下次拉取时替换。`,
		Example: `  TENCENTCLOUD_SECRET_ID=… TENCENTCLOUD_SECRET_KEY=… gpubill fetch tencentcloud --month 2026-11
  gpubill fetch aliyun --account prod --month 2026-11 --dry-run
  gpubill fetch --all --month 2026-11`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runFetch(cmd.Context(), o, args)
		},
	}
	cmd.Flags().StringVar(&o.account, "account", "", "account NAME of the config's [[account]] tables")
	cmd.Flags().StringVar(&o.endpoint, "endpoint", "", "API endpoint URL: replaces scheme and host, keeps the API's path (tests, private or regional endpoints)")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "fetch and map, but write nothing")
	cmd.Flags().BoolVar(&o.all, "all", false, "fetch every account of the config file")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 30*time.Second, "time limit of one API request")
	return cmd
}

// fetchUsage is a usage error in the chosen language.
func (a *app) fetchUsage(zh, en string, args ...any) error {
	if a.lang == "zh" {
		return fmt.Errorf(zh, args...)
	}
	return fmt.Errorf(en, args...)
}

// accounts resolves which accounts to fetch.
func (a *app) fetchAccounts(o fetchOptions, args []string) ([]fetch.Account, error) {
	var cfg []fetch.Account
	cfgPath := a.configPath()
	if cfgPath != "" {
		var err error
		if cfg, err = fetch.LoadAccounts(cfgPath, os.Getenv); err != nil {
			return nil, a.fetchError(err)
		}
	}
	if o.all {
		if len(args) > 0 || o.account != "" || o.endpoint != "" {
			return nil, a.fetchUsage("--all 不能与 PROVIDER、--account 或 --endpoint 同用", "--all takes no PROVIDER, --account or --endpoint")
		}
		if len(cfg) == 0 {
			return nil, a.fetchUsage("--all：配置文件 %s 中没有 [[account]]", "--all: no [[account]] tables in the config file %s", orNone(cfgPath))
		}
		return cfg, nil
	}
	if len(args) == 0 {
		return nil, a.fetchUsage("请指定平台（%s）或 --all", "name a provider (%s) or give --all", strings.Join(fetch.Providers(), ", "))
	}
	provider, ok := platform.Parse(args[0])
	if !ok || !slices.Contains(fetch.Providers(), provider) {
		return nil, a.fetchUsage("不支持通过 API 拉取 %q：可用 %s", "cannot fetch %q by API: want %s", args[0], strings.Join(fetch.Providers(), ", "))
	}
	var acct fetch.Account
	switch {
	case o.account != "":
		found := false
		for _, c := range cfg {
			if c.Name == o.account {
				acct, found = c, true
			}
		}
		if !found {
			return nil, a.fetchUsage("配置文件 %s 中没有名为 %s 的 [[account]]", "no [[account]] named %s in the config file %s", o.account, orNone(cfgPath))
		}
		if acct.Provider != provider {
			return nil, a.fetchUsage("账号 %s 属于 %s，不是 %s", "account %s is a %s account, not %s", o.account, acct.Provider, provider)
		}
	default:
		if env, ok := fetch.FromEnv(provider, os.Getenv); ok {
			acct = env
			break
		}
		var mine []string
		for _, c := range cfg {
			if c.Provider == provider {
				acct = c
				mine = append(mine, c.Name)
			}
		}
		switch len(mine) {
		case 0:
			id, secret := fetch.EnvNames(provider)
			return nil, a.fetchUsage("没有 %s 的密钥：请设置 %s 和 %s，或在配置文件中添加 [[account]]",
				"no keys for %s: set %s and %s, or add an [[account]] to the config file", provider, id, secret)
		case 1:
		default:
			return nil, a.fetchUsage("配置文件中有多个 %s 账号（%s）：请用 --account 指定", "several %s accounts in the config (%s): choose one with --account",
				provider, strings.Join(mine, ", "))
		}
	}
	if o.endpoint != "" {
		acct.Endpoint = o.endpoint
	}
	return []fetch.Account{acct}, nil
}

func orNone(p string) string {
	if p == "" {
		return "(none)"
	}
	return p
}

// fetchError renders a fetch error in the chosen language (exit 1).
func (a *app) fetchError(err error) error {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return errors.New(fe.Text(a.lang))
	}
	return err
}

func (a *app) runFetch(ctx context.Context, o fetchOptions, args []string) error {
	accts, err := a.fetchAccounts(o, args)
	if err != nil {
		return err
	}
	month := a.month
	if month == "" {
		now := time.Now().In(a.loc)
		month = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, a.loc).AddDate(0, -1, 0).Format("2006-01")
		a.say("未指定 --month，拉取上个月 %s", "no --month given: fetching the previous month, %s", month)
	}
	db, err := a.openLedger(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	type row struct {
		Provider    string `json:"provider"`
		Account     string `json:"account"`
		Month       string `json:"month"`
		Source      string `json:"source"`
		Pages       int    `json:"pages"`
		Lines       int    `json:"lines"`
		New         int    `json:"rows_new"`
		Duplicate   int    `json:"rows_duplicate"`
		Provisional bool   `json:"provisional"`
		Replaced    int    `json:"replaced_imports"`
		Status      string `json:"status"`
		Error       string `json:"error,omitempty"`
	}
	var rows []row
	failed, broken := 0, false
	for _, acct := range accts {
		progress, stop := a.fetchProgress(acct, month)
		out, err := fetch.Fetch(ctx, db, fetch.Request{Account: acct, Month: month, DryRun: o.dryRun, TZ: a.loc,
			Options: fetch.Options{Timeout: o.timeout, OnPage: progress}})
		stop()
		r := row{Provider: acct.Provider, Account: acct.Name, Month: month, Source: out.Name, Pages: out.Pages, Lines: out.Lines,
			New: out.Result.New, Duplicate: out.Result.Duplicate, Provisional: out.Provisional, Replaced: out.Replaced, Status: out.Result.Status}
		if err != nil {
			failed++
			var fe *fetch.Error
			var ie *ingest.InputError
			if !errors.As(err, &fe) && !errors.As(err, &ie) && !errors.Is(err, context.Canceled) {
				broken = true // the ledger, not the cloud: exit 2
			}
			r.Status, r.Error = "failed", a.fetchError(err).Error()
			if a.format != "json" {
				fmt.Fprintf(a.stderr, "gpubill: %s\n", r.Error)
			}
		}
		rows = append(rows, r)
	}
	w, closeOut, err := a.out()
	if err != nil {
		return err
	}
	if a.format == "json" {
		// Not writeJSON: the source's "&" stays as written.
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(map[string]any{"fetches": rows})
	} else {
		for _, r := range rows {
			if r.Status == "failed" {
				continue
			}
			name := platform.Name(r.Provider, a.lang)
			var line string
			if a.lang == "zh" {
				line = fmt.Sprintf("%s %s %s：%d 页，%d 行；新增 %d 行，已在账本中 %d 行", name, r.Account, r.Month, r.Pages, r.Lines, r.New, r.Duplicate)
				if r.Provisional {
					line += "（账单尚未出终版，已标记为临时；4 日后再次拉取将替换）"
				}
				if r.Replaced > 0 {
					line += "（替换了此前的临时拉取）"
				}
				if r.Status == "dry-run" {
					line += "（试运行，未写入）"
				}
			} else {
				line = fmt.Sprintf("%s %s %s: %s, %s; %d new, %d already in the ledger", name, r.Account, r.Month,
					countEN(r.Pages, "page"), countEN(r.Lines, "line"), r.New, r.Duplicate)
				if r.Provisional {
					line += " (the bill is not final yet: stored as provisional; a fetch after the 3rd of next month replaces it)"
				}
				if r.Replaced > 0 {
					line += " (replacing the earlier provisional fetch)"
				}
				if r.Status == "dry-run" {
					line += " (dry run: nothing written)"
				}
			}
			if _, err = fmt.Fprintln(w, line); err != nil {
				break
			}
		}
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if failed > 0 {
		if len(rows) > 1 {
			a.say("%d 个账号拉取失败，其余已处理。", "%d account(s) failed; the others were processed.", failed)
		}
		if broken {
			return &exitError{code: exitInternal}
		}
		return &exitError{code: exitInput}
	}
	return nil
}

// fetchProgress draws "fetching … page N · M lines" on a terminal.
func (a *app) fetchProgress(acct fetch.Account, month string) (func(pages, lines int), func()) {
	if !isTerminal(a.stderr) {
		return nil, func() {}
	}
	drawn := false
	return func(pages, lines int) {
			if a.lang == "zh" {
				fmt.Fprintf(a.stderr, "\r\x1b[K正在拉取 %s %s %s：第 %d 页 · %s 行", acct.Provider, acct.Name, month, pages, groupDigits(int64(lines)))
			} else {
				fmt.Fprintf(a.stderr, "\r\x1b[Kfetching %s %s %s: page %d · %s lines", acct.Provider, acct.Name, month, pages, groupDigits(int64(lines)))
			}
			drawn = true
		}, func() {
			if drawn {
				fmt.Fprint(a.stderr, "\r\x1b[K")
			}
		}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/adrg/xdg"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reports"
	"github.com/gpubill/gpubill/rules"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Exit codes (documented under EXIT STATUS in the help).
const (
	exitOK       = 0
	exitInput    = 1 // usage or input error
	exitInternal = 2
	exitFindings = 3 // audit --fail-on found findings at or above the severity
)

// exitError carries an exit code other than the default for errors (1).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// internal marks err as an internal error (exit 2).
func internal(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitInternal, err: err}
}

// app holds what every command shares: the streams and the global flags.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	dbPath   string
	month    string
	tz       string
	format   string
	output   string
	lang     string
	config   string
	rulesDir string          // --rules-dir of audit and rules
	warnings []rules.Warning // user rules that failed in the last audit
	loc      *time.Location
	formatOn bool // --format given explicitly
}

const helpTail = `
EXIT STATUS
  0  success
  1  usage or input error (a bad file, a bad flag)
  2  internal error
  3  audit --fail-on SEVERITY found findings at or above it

ENVIRONMENT
  GPUBILL_DB  the ledger file (default: $XDG_DATA_HOME/gpubill/ledger.db)
  LANG        zh_* selects Chinese output unless --lang is given
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) && ee.err == nil {
		return ee.code // already reported
	}
	fmt.Fprintf(stderr, "gpubill: %s\n", errText(err, a.lang))
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitInput
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "gpubill",
		Short: "Audit GPU rental and cloud bills: hidden charges, real cost, refunds / 审计GPU租赁与云账单",
		Long: `gpubill imports a month of exported bills (GPU platforms, 阿里云, 腾讯云, 华为云, 火山引擎,
FOCUS, Alipay / WeChat Pay; CSV, XLSX, JSON, Parquet, ZIP) into a SQLite ledger, flags every
hidden charge with the money at stake and the evidence rows, and prints spend and
findings reports.

gpubill 把一个月的账单导入本地 SQLite 账本，找出隐藏收费（关机存储、计费取整、
忘关的实例……），给出涉及金额、证据行和处理建议。

Start with:  gpubill demo` + "\n" + helpTail,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return a.setup(cmd, args)
		},
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		fmt.Fprintln(a.stderr, cmd.UsageString())
		return err
	})
	pf := root.PersistentFlags()
	pf.StringVar(&a.dbPath, "db", "", "ledger file (default $GPUBILL_DB, else the user data dir)")
	pf.StringVar(&a.month, "month", "", "billing month YYYY-MM (default: the last complete month that holds the bulk of the ledger's data, named on stderr)")
	pf.StringVar(&a.tz, "tz", "Asia/Shanghai", "time zone for days, nights and months")
	pf.StringVar(&a.format, "format", "table", "output format: table|md|csv|tsv|json, and for reports xlsx|html (xlsx is binary: -o FILE or a pipe; with -o FILE.xlsx or FILE.html the format follows the name)")
	pf.StringVarP(&a.output, "output", "o", "", "write output to FILE instead of stdout")
	pf.StringVar(&a.lang, "lang", "", "output language zh|en (default from LANG)")
	pf.StringVar(&a.config, "config", "", "config file: rule parameters, policy and price overrides, user rules (default $XDG_CONFIG_HOME/gpubill/config.toml)")

	root.AddCommand(
		a.importCommand(),
		a.fetchCommand(),
		a.watchCommand(),
		a.guardCommand(),
		a.importsCommand(),
		a.auditCommand(),
		a.reportCommand(),
		a.templateCommand(),
		a.formatsCommand(),
		a.rulesCommand(),
		a.pricesCommand(),
		a.demoCommand(),
		a.reconcileCommand(),
		a.invoiceCommand(),
		a.packetCommand(),
		a.doctorCommand(),
		a.backupCommand(),
		a.exportCommand(),
	)
	return root
}

// setup validates the global flags once, before any command runs; args are
// the command's arguments (for an import, the files it reads).
func (a *app) setup(cmd *cobra.Command, args []string) error {
	loc, err := time.LoadLocation(a.tz)
	if err != nil {
		return fmt.Errorf("--tz %q: %w", a.tz, err)
	}
	a.loc = loc
	if a.lang == "" {
		a.lang = langFromEnv()
	}
	if a.lang != "zh" && a.lang != "en" {
		return fmt.Errorf("--lang %q: want zh or en", a.lang)
	}
	if a.month != "" {
		if _, err := time.Parse("2006-01", a.month); err != nil {
			return fmt.Errorf("--month %q: want YYYY-MM", a.month)
		}
	}
	if f := cmd.Flags().Lookup("format"); f != nil {
		a.formatOn = f.Changed
	}
	var inputs []string
	if cmd.Name() == "import" { // gpubill import, gpubill invoice import
		inputs = args
	}
	if err := a.checkOutputPath("-o", a.output, inputs); err != nil {
		return err
	}
	return a.checkFormat(cmd)
}

// textOrJSON annotates a command that writes only its text or JSON, so that
// --format md, csv or tsv is refused rather than ignored.
const textOrJSON = "gpubill/text-or-json"

// checkFormat rejects an unknown --format, and xlsx or html for a command
// that writes neither (only reports and audit do; template and packet
// check their own --format), instead of silently printing a table.
func (a *app) checkFormat(cmd *cobra.Command) error {
	if n := cmd.Name(); n == "template" || n == "packet" || n == "export" {
		return nil // their --format names the file they write, checked by them
	}
	if cmd.Annotations[textOrJSON] != "" && a.format != reports.FormatTable && a.format != reports.FormatJSON {
		return fmt.Errorf("--format %s: %s writes table or json", a.format, cmd.CommandPath())
	}
	switch a.format {
	case reports.FormatTable, reports.FormatTSV, reports.FormatMarkdown, reports.FormatCSV, reports.FormatJSON:
		return nil
	case reports.FormatXLSX, reports.FormatHTML:
	default:
		return fmt.Errorf("--format %q: want table, tsv, md, csv, json, xlsx or html", a.format)
	}
	for c := cmd; c != nil; c = c.Parent() {
		switch c.Name() {
		case "report", "audit":
			return nil
		}
	}
	return fmt.Errorf("--format %s: %s writes table, tsv, md, csv or json (xlsx and html are for reports and audit)", a.format, cmd.CommandPath())
}

func langFromEnv() string {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := os.Getenv(k); v != "" {
			if strings.HasPrefix(strings.ToLower(v), "zh") {
				return "zh"
			}
			return "en"
		}
	}
	return "en"
}

// ledgerPath resolves the ledger file: --db, then GPUBILL_DB, then the user
// data directory.
func (a *app) ledgerPath() (string, error) {
	if a.dbPath != "" {
		return a.dbPath, nil
	}
	if p := os.Getenv("GPUBILL_DB"); p != "" {
		return p, nil
	}
	xdg.Reload()
	if xdg.DataHome == "" {
		return "", errors.New("cannot find a data directory: give --db or set GPUBILL_DB")
	}
	return filepath.Join(xdg.DataHome, "gpubill", "ledger.db"), nil
}

func (a *app) openLedger(ctx context.Context) (*ledger.DB, error) {
	p, err := a.ledgerPath()
	if err != nil {
		return nil, err
	}
	if err := a.checkLedgerPath(p); err != nil {
		return nil, err
	}
	// A second gpubill waits for the first to finish writing, however long
	// it takes, and says so once on a terminal.
	var opts ledger.Options
	if isTerminal(a.stderr) {
		opts.OnWait = func() {
			a.say("等待另一个 gpubill 进程完成…", "waiting for another gpubill to finish…")
		}
	}
	db, err := ledger.OpenWith(ctx, p, opts)
	if err != nil {
		// A --db that is not a ledger, or a path that cannot be opened, is
		// the user's to fix (exit 1); anything else is gpubill's (exit 2).
		var pe *fs.PathError
		if c := ledger.ResultCode(err); c == 26 || c == 14 || errors.As(err, &pe) {
			return nil, err
		}
		return nil, internal(err)
	}
	return db, nil
}

// withMonth opens the ledger, resolves the month and runs fn with both.
func (a *app) withMonth(ctx context.Context, fn func(db *ledger.DB, month string) error) error {
	db, err := a.openLedger(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	month, err := a.resolveMonth(ctx, db)
	if err != nil {
		return err
	}
	return fn(db, month)
}

// resolveMonth returns --month or the ledger's default month.
func (a *app) resolveMonth(ctx context.Context, db *ledger.DB) (string, error) {
	if a.month != "" {
		return a.month, nil
	}
	m, err := db.DefaultMonth(ctx, time.Now().In(a.loc))
	if err != nil {
		return "", internal(err)
	}
	if m == "" {
		if a.lang == "zh" {
			return "", fmt.Errorf("账本 %s 还没有账单：先运行 gpubill import 文件…（或 gpubill demo）", db.Path())
		}
		return "", fmt.Errorf("the ledger %s holds no bills yet: run gpubill import FILES (or gpubill demo)", db.Path())
	}
	a.sayMonth(m)
	return m, nil
}

// sayMonth tells on stderr which month was chosen without --month
// (ledger.DB.DefaultMonth), so that a user who expected another sees why.
func (a *app) sayMonth(m string) {
	a.say("未指定 --month，使用 %s（数据主体所在的最近月份；其他月份请用 --month YYYY-MM）",
		"no --month given: using %s (the latest month that holds the bulk of the data; --month YYYY-MM for another)", m)
}

// outputMode is the mode of the files gpubill writes for -o (reports,
// findings, packets, attachments): they hold ledger data, and are as
// private as the ledger and its backups (0600). A file that exists keeps
// its mode: the user chose it.
const outputMode = 0o600

// out opens the destination of a command's data: -o FILE or stdout.
// The returned close function must be called (it reports write errors).
func (a *app) out() (io.Writer, func() error, error) {
	if a.output == "" || a.output == "-" {
		return a.stdout, func() error { return nil }, nil
	}
	f, err := os.OpenFile(a.output, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, outputMode)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// textFormat is the format for tabular output: "table" on a terminal, "tsv"
// when the user did not ask for a format and stdout is piped; without
// --format, -o FILE.xlsx or FILE.html (.htm) selects xlsx or html.
func (a *app) textFormat() string {
	if !a.formatOn {
		switch strings.ToLower(filepath.Ext(a.output)) {
		case ".xlsx":
			return reports.FormatXLSX
		case ".html", ".htm":
			return reports.FormatHTML
		}
	}
	if a.format == "table" && !a.formatOn && (a.output != "" || !isTerminal(a.stdout)) {
		return "tsv"
	}
	return a.format
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// column is a table column whose title is its key in English and titleZH in
// Chinese (CLI tables that are not reports of their own).
func (a *app) column(key, titleZH string, numeric bool) reports.Column {
	title := key
	if a.lang == "zh" {
		title = titleZH
	}
	return reports.Column{Key: key, Title: title, Numeric: numeric}
}

// say prints a message for people (never data) to stderr, in the chosen language.
func (a *app) say(zh, en string, args ...any) {
	msg := en
	if a.lang == "zh" {
		msg = zh
	}
	fmt.Fprintf(a.stderr, msg+"\n", args...)
}

// countEN is n and the English noun, plural unless n is 1: "1 page",
// "2 pages".
func countEN(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

package rules

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/sync/errgroup"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

// Rule is one audit rule. Run reads in and returns its findings; the engine
// fills RuleID (when empty), Fingerprint and State, and sorts the evidence.
type Rule interface {
	ID() string
	Info() Info
	Run(ctx context.Context, in *Input) ([]ledger.Finding, error)
}

// Info describes a rule for `gpubill rules`.
type Info struct {
	ID            string
	TitleZH       string
	TitleEN       string
	DescriptionZH string
	DescriptionEN string
	Params        []Param
	// Columns are the line_items columns the rule reads beyond
	// baseColumns (context.go): a rule that reads Region lists "region".
	// The audit loads only the columns some enabled rule reads.
	Columns []string
}

// Param is one configurable threshold of a rule, set as "rule_id.name=value".
type Param struct {
	Name    string
	Type    string // duration | amount | clock | bool
	Default string
	Value   string // the value in effect (Describe fills it)
	HelpZH  string
	HelpEN  string
}

// Parameter types.
const (
	ParamDuration = "duration" // Go duration: 8h, 90m
	ParamAmount   = "amount"   // non-negative decimal, in the finding's currency
	ParamClock    = "clock"    // HH:MM in --tz
	ParamBool     = "bool"     // true | false
)

// enabledParam is added to every rule by the engine.
var enabledParam = Param{Name: "enabled", Type: ParamBool, Default: "true",
	HelpZH: "是否运行此规则", HelpEN: "whether the rule runs"}

// registry holds the rules in ledger.RuleIDs order. Adding a rule = one file whose
// init calls register.
var registry []Rule

// register adds a rule at its place in ledger.RuleIDs (a rule missing from
// it goes last). It is called from the rule files' init functions.
func register(r Rule) {
	registry = append(registry, r)
	slices.SortStableFunc(registry, func(a, b Rule) int {
		if c := cmp.Compare(ledger.RuleRank(a.ID()), ledger.RuleRank(b.ID())); c != 0 {
			return c
		}
		return strings.Compare(a.ID(), b.ID())
	})
}

// Config is what an audit runs with.
type Config struct {
	// TZ cuts days and nights (default Asia/Shanghai).
	TZ *time.Location
	// Params overrides rule parameters, keyed "rule_id.param" (see Describe).
	Params map[string]string
	// Policies overrides entries of the embedded platform policy table,
	// keyed by provider slug.
	Policies map[string]billing.Policy
	// Prices overlays the embedded reference price catalog: an entry
	// replaces the embedded one of the same key, others are added (nil =
	// the embedded catalog alone).
	Prices *billing.PriceCatalog
	// RulesDir is the folder of user SQL rules ("" = none): every *.sql file
	// in it is the rule "user.<file name without .sql>" (userrules.go).
	RulesDir string
	// UserRuleTimeout limits each user rule (0 = DefaultUserRuleTimeout).
	UserRuleTimeout time.Duration
	// Exemptions keep a rule quiet about expected sessions until a date
	// (config [[exempt]], exempt.go).
	Exemptions []Exemption
	// Source is the config file the values were read from ("" = defaults).
	Source string
	// GuardStops are the shutdowns of gpubill guard marker files (audit
	// --guard, guard_marker.go): forgotten_instance cites them.
	GuardStops []GuardStop
}

// DefaultTZ is the zone used when Config.TZ is nil.
const DefaultTZ = ledger.DefaultTZName

// DefaultConfig returns the configuration with every default: Asia/Shanghai,
// no parameter or policy overrides.
func DefaultConfig() Config {
	return Config{TZ: ledger.DefaultTZ(), Params: map[string]string{}, Policies: map[string]billing.Policy{}}
}

func (c Config) userRuleTimeout() time.Duration {
	if c.UserRuleTimeout > 0 {
		return c.UserRuleTimeout
	}
	return DefaultUserRuleTimeout
}

func (c Config) tz() *time.Location {
	if c.TZ != nil {
		return c.TZ
	}
	return DefaultConfig().TZ
}

// Set applies one "rule_id.param=value" assignment (the CLI's --set flag),
// checking that the parameter exists and the value parses.
func (c *Config) Set(assignment string) error {
	key, value, ok := strings.Cut(assignment, "=")
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	if !ok || key == "" {
		return fmt.Errorf("rule parameter %q: want rule_id.param=value, e.g. forgotten_instance.limit=6h", assignment)
	}
	p, err := lookupParam(key)
	if err != nil {
		return err
	}
	if err := checkParam(key, p.Type, value); err != nil {
		return err
	}
	if c.Params == nil {
		c.Params = map[string]string{}
	}
	c.Params[key] = value
	return nil
}

// Validate checks every parameter override: known key, parsable value.
func (c Config) Validate() error {
	keys := make([]string, 0, len(c.Params))
	for k := range c.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, err := lookupParam(k)
		if err != nil {
			return err
		}
		if err := checkParam(k, p.Type, c.Params[k]); err != nil {
			return err
		}
	}
	for i, e := range c.Exemptions {
		if err := e.check(); err != nil {
			return fmt.Errorf("exemption %d (%s): %w", i+1, e.What(), err)
		}
	}
	return nil
}

func ruleParams(r Rule) []Param {
	return append(append([]Param(nil), r.Info().Params...), enabledParam)
}

func lookupParam(key string) (Param, error) {
	ruleID, name, ok := strings.Cut(key, ".")
	if ok {
		for _, r := range registry {
			if r.ID() != ruleID {
				continue
			}
			for _, p := range ruleParams(r) {
				if p.Name == name {
					return p, nil
				}
			}
		}
	}
	return Param{}, fmt.Errorf("unknown rule parameter %q (未知规则参数; `gpubill rules` lists them)", key)
}

func checkParam(key, typ, value string) error {
	var err error
	switch typ {
	case ParamDuration:
		_, err = parseDurationParam(value)
	case ParamAmount:
		_, err = parseAmountParam(value)
	case ParamClock:
		_, err = parseClockParam(value)
	case ParamBool:
		_, err = strconv.ParseBool(value)
		if err != nil {
			err = fmt.Errorf("%q is not true or false", value)
		}
	}
	if err != nil {
		return fmt.Errorf("rule parameter %s: %w", key, err)
	}
	return nil
}

func parseDurationParam(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration such as 8h or 90m", s)
	}
	return d, nil
}

func parseAmountParam(s string) (decimal.Decimal, error) {
	d, err := decimal.NewFromString(s)
	if err != nil || d.IsNegative() {
		return decimal.Decimal{}, fmt.Errorf("%q is not a non-negative amount such as 10 or 0.01", s)
	}
	return d, nil
}

// parseClockParam reads HH:MM (00:00 … 24:00) as the offset from midnight.
func parseClockParam(s string) (time.Duration, error) {
	h, m, ok := strings.Cut(s, ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil || hh < 0 || mm < 0 || mm > 59 || hh > 24 || (hh == 24 && mm != 0) {
		return 0, fmt.Errorf("%q is not a time of day such as 07:00", s)
	}
	return time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute, nil
}

// param returns the value in effect for rule.name.
func (c Config) param(ruleID, name string) string {
	if v, ok := c.Params[ruleID+"."+name]; ok {
		return v
	}
	for _, r := range registry {
		if r.ID() == ruleID {
			for _, p := range ruleParams(r) {
				if p.Name == name {
					return p.Default
				}
			}
		}
	}
	return ""
}

func (c Config) enabled(ruleID string) bool {
	b, err := strconv.ParseBool(c.param(ruleID, "enabled"))
	return err != nil || b
}

// ParamsJSON renders every parameter in effect (defaults and overrides,
// keyed "rule_id.param") and every policy override ("policy.slug.field"),
// for the audit_runs record. Keys are sorted, so equal configs give equal text.
func (c Config) ParamsJSON() string {
	m := map[string]string{}
	for _, r := range registry {
		for _, p := range ruleParams(r) {
			m[r.ID()+"."+p.Name] = c.param(r.ID(), p.Name)
		}
	}
	for slug, p := range c.Policies {
		pre := "policy." + slug + "."
		m[pre+"billing_step"] = p.BillingStep.String()
		m[pre+"minimum_billed"] = p.MinimumBilled.String()
		m[pre+"release_days"] = strconv.Itoa(p.ReleaseDays)
		m[pre+"charged_while_stopped"] = strings.Join(p.ChargedWhileStopped, ",")
		if p.MinimumCharge.Valid {
			m[pre+"minimum_charge"] = p.MinimumCharge.Decimal.String()
		}
	}
	for _, p := range c.Prices.Entries() {
		m["price."+p.Provider+"."+p.GPUModel+"."+p.PricingModel+"."+p.Currency] = money.String(p.PerHour)
	}
	for i, e := range c.Exemptions {
		m[fmt.Sprintf("exempt.%d", i+1)] = e.RuleID + " " + e.What() + " until " + e.Until
	}
	if c.Source != "" {
		m["config.file"] = c.Source
	}
	if c.RulesDir != "" {
		m["user_rules.dir"] = c.RulesDir
		m["user_rules.timeout"] = c.userRuleTimeout().String()
	}
	b, _ := json.Marshal(m) // a map of strings always marshals
	return string(b)
}

// Describe lists every rule with its parameters and the values in effect
// under cfg, for `gpubill rules`.
func Describe(cfg Config) []Info {
	out := make([]Info, 0, len(registry))
	for _, r := range registry {
		info := r.Info()
		info.Params = ruleParams(r)
		for i := range info.Params {
			info.Params[i].Value = cfg.param(r.ID(), info.Params[i].Name)
		}
		out = append(out, info)
	}
	return out
}

// Input is what a rule reads: the month's line items with their context.
type Input struct {
	Month string
	// MonthStart and MonthEnd bound the calendar month in TZ (half-open).
	MonthStart, MonthEnd time.Time
	TZ                   *time.Location
	// Items are the line items whose billing period is Month. Raw cells are
	// not loaded.
	Items []*ledger.LineItem
	// Context are compute line items of the previous billing period, and
	// of the next one up to where they can meet the month's items
	// (context.go): they complete sessions and idle days at the month's
	// edges. Rules never report them on their own.
	Context []*ledger.LineItem
	// DataEnd is, per provider, the latest charge period end in the whole
	// ledger, or the end of the latest billing period its monthly bills
	// cover where that is later (billing.DataEndsCovered): a session
	// ending there is still running as far as we know.
	DataEnd map[string]time.Time

	cfg    Config
	ruleID string
	// exempt are the forgotten_instance exemptions, matched against the
	// ledger (matchExemptions); nil where Input was built by hand, then
	// the rule takes them from cfg (by resource only).
	exempt []Exemption
	shared *caches
	// columns are the columns loaded (loadColumns; nil: all but raw).
	columns []string
	later   laterCompute // who ran compute in the next month past Context (context.go)
	// latestEnd is the latest end of Items in Unix seconds, as the load
	// noted it (nextMonthEdge).
	latestEnd *atomic.Int64
}

// caches are what several rules derive from the same items, each built once,
// by the first rule that asks for it, while the others that ask wait. Rules
// run side by side on copies of the Input, which share this.
type caches struct {
	sessions struct {
		once sync.Once
		list []billing.Session
	}
	lone struct { // ids of the items that are a session on their own
		once sync.Once
		ids  map[int64]bool
	}
	cover struct {
		once sync.Once
		c    *coverage
	}
	acctCover struct {
		once sync.Once
		m    map[acctKey][]secSpan
	}
	dup struct {
		once   sync.Once
		groups [][]*ledger.LineItem
	}
}

// cache returns the input's caches (an Input built by hand, as tests do,
// gets its own on first use; load shares one among the rules).
func (in *Input) cache() *caches {
	if in.shared == nil {
		in.shared = &caches{}
	}
	return in.shared
}

// Param returns the value in effect of the running rule's parameter name.
func (in *Input) Param(name string) string { return in.cfg.param(in.ruleID, name) }

func (in *Input) durationParam(name string) (time.Duration, error) {
	d, err := parseDurationParam(in.Param(name))
	if err != nil {
		return 0, fmt.Errorf("rule parameter %s.%s: %w", in.ruleID, name, err)
	}
	return d, nil
}

func (in *Input) amountParam(name string) (decimal.Decimal, error) {
	d, err := parseAmountParam(in.Param(name))
	if err != nil {
		return d, fmt.Errorf("rule parameter %s.%s: %w", in.ruleID, name, err)
	}
	return d, nil
}

func (in *Input) clockParam(name string) (time.Duration, error) {
	d, err := parseClockParam(in.Param(name))
	if err != nil {
		return 0, fmt.Errorf("rule parameter %s.%s: %w", in.ruleID, name, err)
	}
	return d, nil
}

// Policy returns the platform policy of provider (override or embedded).
func (in *Input) Policy(provider string) (billing.Policy, bool) { return in.cfg.policyFor(provider) }

// itemsAndContext yields Items and then Context, each with its index in
// the two as one list (i < len(Items): of the month): the walk of every
// rule that reads both the same way, without a joined copy.
func (in *Input) itemsAndContext() iter.Seq2[int, *ledger.LineItem] {
	return func(yield func(int, *ledger.LineItem) bool) {
		for i, li := range in.Items {
			if !yield(i, li) {
				return
			}
		}
		for i, li := range in.Context {
			if !yield(len(in.Items)+i, li) {
				return
			}
		}
	}
}

// InMonth reports whether li belongs to the audited month (not context).
func (in *Input) InMonth(li *ledger.LineItem) bool { return li.BillingPeriod == in.Month }

// Result is what an audit produced.
type Result struct {
	Findings []ledger.Finding
	// Warnings name the user rules that failed (and produced no finding).
	Warnings []Warning
	// UserRules are the user rules that were read from Config.RulesDir.
	UserRules []UserRule
	// Params is Config.ParamsJSON with the SHA-256 of every user rule file
	// ("user.ID.sha256"), for the audit_runs record.
	Params string
	// RunID is the stored run (AuditAndSave; 0 when nothing was stored).
	RunID int64
}

// Run audits month: it loads the month's line items (and the compute items
// of the neighbouring months as context), runs every enabled rule, then the
// user SQL rules of cfg.RulesDir, and returns the findings sorted by
// severity (most severe first), rule order, provider, resource and period.
// It stores nothing. A failing user rule is no error: Audit reports it as a
// warning, Run drops it.
func Run(ctx context.Context, db *ledger.DB, month string, cfg Config) ([]ledger.Finding, error) {
	res, err := Audit(ctx, db, month, cfg)
	if err != nil {
		return nil, err
	}
	return res.Findings, nil
}

// Audit is Run with the warnings about failed user rules and the parameters
// to record.
func Audit(ctx context.Context, db *ledger.DB, month string, cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	in, err := load(ctx, db, month, cfg)
	if err != nil {
		return nil, err
	}
	return runRules(ctx, db, in, nil)
}

// AuditAndSave is Audit followed by ledger.DB.SaveAudit (tz names the zone
// of the run), in less time: the findings of each rule are stored while the
// rules after it still run. The stored run is the same; the findings
// returned have their ID and RunID set, as SaveAudit sets them.
func AuditAndSave(ctx context.Context, db *ledger.DB, month, tz string, cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// The run's write transaction first, then the month: holding the write
	// lock, the audit reads the data no writer can change before it stores
	// what it found there. Loaded first, an audit that waited for an import
	// stored the findings of the ledger before it.
	w, err := db.BeginAudit(ctx, month, tz)
	if err != nil {
		return nil, err
	}
	defer w.Rollback()
	in, err := load(ctx, db, month, cfg)
	if err != nil {
		return nil, err
	}
	res, err := runRules(ctx, db, in, w)
	if err != nil {
		return nil, err
	}
	if res.RunID, err = w.Commit(ctx, res.Params); err != nil {
		return nil, err
	}
	return res, nil
}

func load(ctx context.Context, db *ledger.DB, month string, cfg Config) (*Input, error) {
	loc := cfg.tz()
	start, end, err := ledger.MonthRange(month, loc)
	if err != nil {
		return nil, err
	}
	in := &Input{Month: month, MonthStart: start, MonthEnd: end, TZ: loc, cfg: cfg, shared: &caches{}}
	in.latestEnd = new(atomic.Int64)
	in.columns = loadColumns(cfg)
	if in.Items, err = db.LoadColumns(ctx, ledger.Filter{Month: month}, in.columns); err != nil {
		return nil, fmt.Errorf("rules: load %s: %w", month, err)
	}
	note := noteEnds(in.latestEnd)
	for _, li := range in.Items {
		note(li)
	}
	if err := loadContext(ctx, db, in); err != nil {
		return nil, err
	}
	if in.DataEnd, err = billing.DataEndsCovered(ctx, db, loc); err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	in.exempt = cfg.exemptions("forgotten_instance", loc)
	if err := matchExemptions(ctx, db, month, in.exempt); err != nil {
		return nil, err
	}
	return in, nil
}

// runBuiltins runs the enabled built-in rules under an errgroup, at most
// GOMAXPROCS at once, started in registry order, and hands each rule's
// completed findings to add in registry order too: a rule's as soon as it
// and the rules before it are done, so that they are stored while later
// rules still run, and the outcome does not depend on which finished first.
// A rule's error, add's, or the cancellation of ctx stops the rules still
// to run; the error returned names the rule. Rules only read their Input;
// each gets a copy that knows its own id (for Param).
func runBuiltins(ctx context.Context, in *Input, add func(ruleID string, fs []ledger.Finding) error) error {
	var rules []Rule
	for _, r := range registry {
		if in.cfg.enabled(r.ID()) {
			rules = append(rules, r)
		}
	}
	ctx, cancel := context.WithCancel(ctx) // add's error stops the rules too
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	found := make([][]ledger.Finding, len(rules))
	errs := make([]error, len(rules))
	done := make([]chan struct{}, len(rules))
	for i := range done {
		done[i] = make(chan struct{})
	}
	// g.Go waits for a free slot: the rules are started from a goroutine
	// of their own, so that this one can store the findings meanwhile.
	started := make(chan struct{})
	go func() {
		defer close(started)
		for i, r := range rules {
			g.Go(func() error {
				defer close(done[i])
				found[i], errs[i] = runRule(gctx, in, r)
				return errs[i]
			})
		}
	}()
	var addErr error
	for i, r := range rules {
		if <-done[i]; errs[i] != nil {
			break // g.Wait returns the first error, that of the rule that failed
		}
		if err := add(r.ID(), found[i]); err != nil {
			addErr = fmt.Errorf("rules: %s: %w", r.ID(), err)
			cancel()
			break
		}
	}
	<-started
	if err := g.Wait(); err != nil && addErr == nil {
		return err
	}
	return addErr
}

// runRule runs one built-in rule on its own copy of in and completes its
// findings; its error names it.
func runRule(ctx context.Context, in *Input, r Rule) ([]ledger.Finding, error) {
	if err := ctx.Err(); err != nil { // cancelled before its turn
		return nil, fmt.Errorf("rules: %s: %w", r.ID(), err)
	}
	own := *in
	own.ruleID = r.ID()
	fs, err := r.Run(ctx, &own)
	if err == nil {
		err = complete(in, r.ID(), fs, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("rules: %s: %w", r.ID(), err)
	}
	return fs, nil
}

// complete fills in what the engine owns in the findings of one rule: the
// rule id (when empty), the state (open), the month, the evidence order and
// the fingerprint. keys maps line item ids to row keys for evidence that
// does not carry its own (ledger.Evidence.RowKey).
func complete(in *Input, ruleID string, fs []ledger.Finding, keys map[int64]string) error {
	var fp fingerprinter
	for i := range fs {
		f := &fs[i]
		if f.RuleID == "" {
			f.RuleID = ruleID
		}
		if ledger.SeverityRank(f.Severity) < 0 {
			return fmt.Errorf("unknown severity %q", f.Severity)
		}
		if f.State == "" {
			f.State = "open"
		}
		f.Month = in.Month
		sortEvidence(f.Evidence)
		for _, e := range f.Evidence {
			if e.RowKey == "" && keys == nil {
				keys = in.rowKeys()
				break
			}
		}
		f.Fingerprint = fp.of(f, keys)
	}
	return nil
}

// rowKeys maps the ids of the input's items to their row keys.
func (in *Input) rowKeys() map[int64]string {
	keys := make(map[int64]string, len(in.Items)+len(in.Context))
	for _, li := range in.itemsAndContext() {
		keys[li.ID] = li.RowKey
	}
	return keys
}

// runRules runs the built-in rules, then the user rules, and returns their
// findings sorted (SortFindings). With w, each rule's findings are stored,
// sorted within the rule, in registry order (runBuiltins): their ids follow
// that order, whichever rule finished first.
func runRules(ctx context.Context, db *ledger.DB, in *Input, w *ledger.AuditWriter) (*Result, error) {
	var found [][]ledger.Finding // each rule's, joined once at the end
	seen := map[string]string{}
	// add adds the completed findings of a rule, unless two share a
	// fingerprint (an error ends the audit).
	add := func(ruleID string, fs []ledger.Finding) error {
		for i := range fs {
			fp := fs[i].Fingerprint
			if prev, dup := seen[fp]; dup {
				return fmt.Errorf("two findings with fingerprint %s (also from %s): same resource, period and evidence", fp, prev)
			}
			seen[fp] = ruleID
		}
		if w != nil {
			SortFindings(fs)
			if err := w.Add(ctx, fs); err != nil {
				return err
			}
		}
		found = append(found, fs)
		return nil
	}
	if err := runBuiltins(ctx, in, add); err != nil {
		return nil, err
	}
	res := &Result{}
	if in.cfg.RulesDir != "" {
		finish := func(ruleID string, fs []ledger.Finding, keys map[int64]string) error {
			if err := complete(in, ruleID, fs, keys); err != nil {
				return err
			}
			return add(ruleID, fs)
		}
		var err error
		res.UserRules, res.Warnings, err = runUserRules(ctx, db, in, finish)
		if err != nil {
			return nil, fmt.Errorf("rules: %w", err)
		}
	}
	all := slices.Concat(found...)
	SortFindings(all)
	res.Findings = all
	res.Params = in.cfg.ParamsJSON()
	if len(res.UserRules) > 0 {
		var m map[string]string
		if err := json.Unmarshal([]byte(res.Params), &m); err == nil {
			for _, u := range res.UserRules {
				m[u.ID+".sha256"] = u.SHA256
			}
			b, _ := json.Marshal(m)
			res.Params = string(b)
		}
	}
	return res, nil
}

// sortEvidence puts evidence in ledger.CompareEvidence order. A rule's
// evidence mostly comes in it already (a resource's items by time are its
// file's rows in order): checked first, it is sorted only when it is not.
func sortEvidence(ev []ledger.Evidence) {
	if !slices.IsSortedFunc(ev, ledger.CompareEvidence) {
		slices.SortFunc(ev, ledger.CompareEvidence)
	}
}

// Fingerprint identifies a finding across reruns: the first 16 hex digits of
// the SHA-256 of its rule, provider, resource, period and the sorted row keys
// (dedupe keys, not database ids) of its evidence. The row key of an
// evidence row is its RowKey, else rowKeys' entry for its line item id, else
// "id:N".
func Fingerprint(f *ledger.Finding, rowKeys map[int64]string) string {
	var fp fingerprinter
	return fp.of(f, rowKeys)
}

// fingerprinter computes Fingerprint, reusing its buffers from one finding
// to the next: a rule's findings together cite most items of a big month.
type fingerprinter struct {
	keys []string
	b    []byte // what is hashed, built whole: no conversion of each text
}

func (fp *fingerprinter) of(f *ledger.Finding, rowKeys map[int64]string) string {
	keys := fp.keys[:0]
	for _, e := range f.Evidence {
		k, ok := e.RowKey, e.RowKey != ""
		if !ok {
			k, ok = rowKeys[e.LineItemID]
		}
		if !ok {
			k = "id:" + strconv.FormatInt(e.LineItemID, 10)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b := fp.b[:0]
	for _, s := range [...]string{f.RuleID, f.Provider, f.ResourceID} {
		b = append(append(b, s...), 0)
	}
	b = append(ledger.AppendTime(b, f.PeriodStart), 0)
	b = append(ledger.AppendTime(b, f.PeriodEnd), 0)
	for _, k := range keys {
		b = append(append(b, k...), 0)
	}
	sum := sha256.Sum256(b)
	clear(keys) // hold no row key past the call
	fp.keys, fp.b = keys, b
	return hex.EncodeToString(sum[:8])
}

// SortFindings orders findings deterministically: most severe first, then
// rule order, provider, resource, period, fingerprint.
func SortFindings(fs []ledger.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := &fs[i], &fs[j]
		if ra, rb := ledger.SeverityRank(a.Severity), ledger.SeverityRank(b.Severity); ra != rb {
			return ra > rb
		}
		if ia, ib := ledger.RuleRank(a.RuleID), ledger.RuleRank(b.RuleID); ia != ib {
			return ia < ib
		}
		if a.RuleID != b.RuleID {
			return a.RuleID < b.RuleID
		}
		if a.Provider != b.Provider {
			return a.Provider < b.Provider
		}
		if a.ResourceID != b.ResourceID {
			return a.ResourceID < b.ResourceID
		}
		if !a.PeriodStart.Equal(b.PeriodStart) {
			return a.PeriodStart.Before(b.PeriodStart)
		}
		if !a.PeriodEnd.Equal(b.PeriodEnd) {
			return a.PeriodEnd.Before(b.PeriodEnd)
		}
		return a.Fingerprint < b.Fingerprint
	})
}

package watch

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
	"github.com/gpubill/gpubill/rules"
)

// budget: a [[budget]] of the config file crossed 50, 80 or 100% in the
// current month; each step is sent once (an escalation), and the alert
// clears with the month's end or when the spend falls below 50% (a budget
// raised, a refund). Spend is the billed cost of the month's bill lines
// (billing_period, credits included, as report spend totals it) in the
// budget's currency; projection: the spend at the month's end at the rate
// of the days billed so far.

// Budget is one [[budget]] table:
//
//	[[budget]]
//	name = "lab"          # default: the project, else provider/account
//	project = "lab"       # sub_account (项目); and/or
//	provider = "autodl"   # a provider, optionally one account of it
//	account = "main"
//	amount = "3000"       # per month, a string or an integer
//	currency = "CNY"      # default CNY
type Budget struct {
	Name, Project, Provider, Account string
	Amount                           decimal.Decimal
	Currency                         string
}

// budgetSteps are the shares that alert, in percent.
var budgetSteps = []int64{50, 80, 100}

var budgetKeys = []string{"name", "project", "provider", "account", "amount", "currency"}

// LoadBudgets reads the [[budget]] tables of the config file at path.
func LoadBudgets(path string) ([]Budget, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	var doc struct {
		Budget []map[string]any `toml:"budget"`
	}
	if _, err := toml.Decode(string(b), &doc); err != nil {
		return nil, fmt.Errorf("config %s: not valid TOML", path)
	}
	var out []Budget
	for i, e := range doc.Budget {
		where := fmt.Sprintf("config %s: [[budget]] %d", path, i+1)
		var bu Budget
		var amount string
		for k, v := range e {
			var s string
			switch x := v.(type) {
			case string:
				s = strings.TrimSpace(x)
			case int64:
				s = strconv.FormatInt(x, 10)
			default:
				return nil, fmt.Errorf("%s: %s must be a string (amounts may be integers; a TOML float would not stay exact)", where, k)
			}
			switch k {
			case "name":
				bu.Name = s
			case "project":
				bu.Project = s
			case "provider":
				bu.Provider = s
			case "account":
				bu.Account = s
			case "amount":
				amount = s
			case "currency":
				bu.Currency = strings.ToUpper(s)
			default:
				return nil, fmt.Errorf("%s: unknown key %s (known: %s)", where, k, strings.Join(budgetKeys, ", "))
			}
		}
		if bu.Amount, err = decimal.NewFromString(amount); err != nil || !bu.Amount.IsPositive() {
			return nil, fmt.Errorf("%s: amount %q: want a positive amount per month", where, amount)
		}
		if bu.Project == "" && bu.Provider == "" {
			return nil, fmt.Errorf("%s: name a project, a provider, or both", where)
		}
		if bu.Account != "" && bu.Provider == "" {
			return nil, fmt.Errorf("%s: account needs a provider", where)
		}
		if bu.Currency == "" {
			bu.Currency = "CNY"
		}
		if bu.Name == "" {
			parts := []string{}
			for _, p := range []string{bu.Project, bu.Provider, bu.Account} {
				if p != "" {
					parts = append(parts, p)
				}
			}
			bu.Name = strings.Join(parts, "/")
		}
		out = append(out, bu)
	}
	return out, nil
}

func (j Judge) budgets(ctx context.Context, db *ledger.DB, now time.Time, srcs []LedgerSource) ([]Alert, error) {
	loc := j.tz()
	ms := monthStart(now, loc)
	month := ms.Format("2006-01")
	var out []Alert
	for _, bu := range j.Budgets {
		where := []string{"billing_period = ?", "currency = ?"}
		args := []any{month, bu.Currency}
		if bu.Project != "" {
			where, args = append(where, "sub_account = ?"), append(args, bu.Project)
		}
		if bu.Provider != "" {
			where, args = append(where, "provider = ?"), append(args, bu.Provider)
		}
		if bu.Account != "" {
			where, args = append(where, "billing_account_id = ?"), append(args, bu.Account)
		}
		spent, through, ok, err := billTotal(ctx, db, strings.Join(where, " AND "), args...)
		if err != nil {
			return nil, err
		}
		if !ok || through.IsZero() {
			continue
		}
		pct := spent.Mul(decimal.NewFromInt(100)).Div(bu.Amount)
		step := int64(0)
		for _, st := range budgetSteps {
			if pct.GreaterThanOrEqual(decimal.NewFromInt(st)) {
				step = st
			}
		}
		if step == 0 {
			continue
		}
		monthEnd := ms.AddDate(0, 1, 0)
		span := through.Sub(ms)
		proj := spent
		if span > 0 && through.Before(monthEnd) {
			if span < 24*time.Hour {
				span = 24 * time.Hour
			}
			proj = spent.Mul(decimal.NewFromInt(int64(monthEnd.Sub(ms) / time.Second))).Div(decimal.NewFromInt(int64(span / time.Second)))
		}
		a := Alert{Kind: KindBudget, Provider: bu.Provider, Account: bu.Account, Budget: bu.Name, State: "budget", Since: ms,
			SinceKnown: true, SinceSource: "bill", Now: now, Currency: bu.Currency, PriceSource: "bill",
			AmountSoFar: spent.StringFixed(2), Projection: proj.StringFixed(2), ProjectionAt: timePtr(monthEnd),
			Limit: bu.Amount.String(), Percent: pct.StringFixed(1), Source: "bill lines (ledger)",
			Key: strings.Join([]string{KindBudget, bu.Name, bu.Currency, month}, "|")}
		a.amount = decimal.NullDecimal{Decimal: spent, Valid: true}
		var delays []string
		for _, src := range srcs {
			if src.What == "bill" && (bu.Provider == "" || src.Provider == bu.Provider) {
				delays = append(delays, platform.Name(src.Provider, j.Lang)+": "+src.Delay)
			}
		}
		a.SourceDelay = strings.Join(delays, "; ")
		switch step {
		case 100:
			a.Severity = ledger.SeverityHigh
		case 80:
			a.Severity = ledger.SeverityMedium
		default:
			a.Severity = ledger.SeverityLow
		}
		a.step = int(step)
		over, overEN := "", ""
		if proj.GreaterThan(bu.Amount) && step < 100 {
			over, overEN = "，将超出预算", ", over the budget"
		}
		a.MessageZH = fmt.Sprintf("【%s】预算 %s 本月（%s）已用 %s，为 %s 的 %s%%（越过 %d%%）；按目前速度月底约 %s%s（账单数据截至 %s）。",
			a.Severity, bu.Name, month, rules.FormatMoney(spent, bu.Currency), rules.FormatMoney(bu.Amount, bu.Currency), a.Percent, step,
			rules.FormatMoney(proj, bu.Currency), over, through.In(loc).Format("01-02 15:04"))
		a.MessageEN = fmt.Sprintf("[%s] budget %s: %s spent this month (%s), %s%% of %s (past %d%%); at this rate about %s by the month's end%s (bill lines to %s).",
			a.Severity, bu.Name, rules.FormatMoney(spent, bu.Currency), month, a.Percent, rules.FormatMoney(bu.Amount, bu.Currency), step,
			rules.FormatMoney(proj, bu.Currency), overEN, through.In(loc).Format("01-02 15:04"))
		out = append(out, a)
	}
	return out, nil
}

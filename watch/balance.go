package watch

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
	"github.com/gpubill/gpubill/reconcile"
	"github.com/gpubill/gpubill/rules"
)

// low_balance: a platform balance below BalanceBelow, or fewer than
// RunwayDays days of runway at the month's burn rate. The balance is
// reconcile's closing balance of the money flow (the last one shown,
// carried forward), less the bill lines charged after the flow's last row
// (bills are often fetched later than the flow is exported). The burn
// rate is this month's bill charges (credits left out) over the days they
// cover, at least one; before a day of this month is billed, last month's.
// Without bill lines, the flow's own charges of the month. Per provider
// and currency, as reconcile matches flows and bills.

type flowEnd struct {
	provider, account, currency string
	last                        time.Time
}

func (j Judge) lowBalance(ctx context.Context, db *ledger.DB, now time.Time, srcs []LedgerSource) ([]Alert, []LedgerSource, error) {
	rows, err := db.SQL().QueryContext(ctx, `SELECT provider, account, currency, max(time) FROM transactions GROUP BY provider, account, currency`)
	if err != nil {
		return nil, nil, err
	}
	var ends []flowEnd
	for rows.Next() {
		var e flowEnd
		var t string
		if err := rows.Scan(&e.provider, &e.account, &e.currency, &t); err != nil {
			rows.Close()
			return nil, nil, err
		}
		if e.last, err = ledger.ParseTime(t); err == nil {
			ends = append(ends, e)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	loc := j.tz()
	balances := map[string][]reconcile.Balance{} // by month
	var out []Alert
	var flows []LedgerSource
	for _, e := range ends {
		month := e.last.In(loc).Format("2006-01")
		if _, ok := balances[month]; !ok {
			bs, err := reconcile.Balances(ctx, db, month, loc)
			if err != nil {
				return nil, nil, err
			}
			balances[month] = bs
		}
		var b *reconcile.Balance
		for i, x := range balances[month] {
			if x.Provider == e.provider && x.Account == e.account && x.Currency == e.currency {
				b = &balances[month][i]
			}
		}
		if b == nil || !b.Closing.Valid {
			continue // the export shows no balance
		}
		fs := LedgerSource{Provider: e.provider, What: "flow", Through: e.last, Via: "import"}
		fs.Delay = j.delayText(fs, now)
		flows = append(flows, fs)
		a, ok, err := j.balanceAlert(ctx, db, now, e, b, fs, srcs)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Key < out[b].Key })
	return out, flows, nil
}

func (j Judge) balanceAlert(ctx context.Context, db *ledger.DB, now time.Time, e flowEnd, b *reconcile.Balance, fs LedgerSource, srcs []LedgerSource) (Alert, bool, error) {
	loc := j.tz()
	// Bill charges after the flow's last row.
	var after decimal.Decimal
	asOf := e.last
	var err error
	if after, err = billSum(ctx, db, `provider = ? AND currency = ? AND kind <> ? AND charge_period_end > ? AND billing_period >= ?`,
		e.provider, e.currency, ledger.KindCredit, ledger.FormatTime(e.last), e.last.In(loc).Format("2006-01")); err != nil {
		return Alert{}, false, err
	}
	bill, hasBill := sourceOf(srcs, e.provider, "bill")
	if hasBill && bill.Through.After(asOf) {
		asOf = bill.Through
	}
	balance := b.Closing.Decimal.Sub(after)
	// The month's burn rate.
	ms := monthStart(now, loc)
	spent, span, err := billSpan(ctx, db, e.provider, e.currency, ms.Format("2006-01"), ms)
	if err != nil {
		return Alert{}, false, err
	}
	if span < 24*time.Hour {
		prev := ms.AddDate(0, -1, 0)
		if ps, pspan, err := billSpan(ctx, db, e.provider, e.currency, prev.Format("2006-01"), prev); err != nil {
			return Alert{}, false, err
		} else if pspan > 0 {
			spent, span = ps, pspan
		}
	}
	rateSource, rateSourceEN := "账单", "the bills"
	if span == 0 && e.last.In(loc).Format("2006-01") == ms.Format("2006-01") {
		spent, span, rateSource, rateSourceEN = b.Charges, e.last.Sub(ms), "收支明细", "the money flow"
	}
	rate := decimal.Zero
	if span > 0 {
		rate = perDay(spent, span)
	}
	below := j.BalanceBelow.Valid && balance.LessThan(j.BalanceBelow.Decimal)
	var runway time.Duration
	short := false
	if rate.IsPositive() {
		secs := balance.Mul(decimal.NewFromInt(int64(24 * time.Hour / time.Second))).Div(rate).IntPart()
		runway = time.Duration(secs) * time.Second
		short = j.RunwayDays > 0 && runway < time.Duration(j.RunwayDays)*24*time.Hour
	}
	if !below && !short && balance.IsPositive() {
		return Alert{}, false, nil
	}
	if !below && !short && !j.BalanceBelow.Valid && !rate.IsPositive() {
		return Alert{}, false, nil // zero or less, but nothing is spent: no account in use
	}
	a := Alert{Kind: KindLowBalance, Provider: e.provider, Account: e.account, State: "balance", Since: asOf, SinceKnown: true,
		SinceSource: "flow", Now: now, Currency: e.currency, PriceSource: "bill", Balance: balance.StringFixed(2),
		AmountSoFar: spent.StringFixed(2), Source: "money flow and bill lines (ledger)", SourceDelay: fs.Delay,
		Key: strings.Join([]string{KindLowBalance, e.provider, e.account, e.currency}, "|")}
	if hasBill {
		a.SourceDelay += "; " + bill.Delay
	}
	a.amount = decimal.NullDecimal{Decimal: balance, Valid: true}
	if j.BalanceBelow.Valid {
		a.Limit = j.BalanceBelow.Decimal.String()
	}
	monthEnd := ms.AddDate(0, 1, 0)
	left := monthEnd.Sub(asOf)
	if left < 0 {
		left = 0
	}
	proj := balance.Sub(rate.Mul(decimal.NewFromInt(int64(left / time.Second))).Div(decimal.NewFromInt(int64(24 * time.Hour / time.Second))))
	a.Projection, a.ProjectionAt = proj.StringFixed(2), timePtr(monthEnd)
	if rate.IsPositive() {
		a.RunsOutAt = timePtr(asOf.Add(runway))
	}
	switch {
	case !balance.IsPositive() || (rate.IsPositive() && runway < 24*time.Hour):
		a.Severity = ledger.SeverityHigh
	case short:
		a.Severity = ledger.SeverityMedium
	default:
		a.Severity = ledger.SeverityLow
	}
	a.step = ledger.SeverityRank(a.Severity) * 1000
	name, nameEN := platform.Name(e.provider, "zh"), platform.Name(e.provider, "en")
	if e.account != "" {
		name, nameEN = name+" 账号 "+e.account, nameEN+" account "+e.account
	}
	zh := fmt.Sprintf("【%s】%s 余额约 %s（截至 %s）", a.Severity, name, rules.FormatMoney(balance, e.currency), asOf.In(loc).Format("01-02 15:04"))
	en := fmt.Sprintf("[%s] the %s balance is about %s (as of %s)", a.Severity, nameEN, rules.FormatMoney(balance, e.currency), asOf.In(loc).Format("01-02 15:04"))
	if below {
		zh += fmt.Sprintf("，低于 %s", rules.FormatMoney(j.BalanceBelow.Decimal, e.currency))
		en += fmt.Sprintf(", below %s", rules.FormatMoney(j.BalanceBelow.Decimal, e.currency))
	}
	if rate.IsPositive() {
		days := runway.Hours() / 24
		zh += fmt.Sprintf("；按本月消费速度（每天约 %s，来自%s）约 %.1f 天后（%s）用完，月底余额约 %s", rules.FormatMoney(rate, e.currency), rateSource, days, a.RunsOutAt.In(loc).Format("01-02 15:04"), rules.FormatMoney(proj, e.currency))
		en += fmt.Sprintf("; at the month's burn rate (about %s a day, from %s) it runs out in about %.1f days (%s), %s at the month's end", rules.FormatMoney(rate, e.currency), rateSourceEN, days, a.RunsOutAt.In(loc).Format("01-02 15:04"), rules.FormatMoney(proj, e.currency))
	}
	zh += "。欠费后平台会停机，到期还会释放实例并删除数据：请及时充值。"
	en += ". In arrears the platform stops instances, and later releases them with their data: top up in time."
	a.MessageZH, a.MessageEN = zh, en
	return a, true, nil
}

// billTotal is the billed cost of the line items matching where and the
// newest charge period end among them (zero if it does not parse); ok is
// false when no line matches.
func billTotal(ctx context.Context, db *ledger.DB, where string, args ...any) (sum decimal.Decimal, through time.Time, ok bool, err error) {
	var s, end *string
	if err := db.SQL().QueryRowContext(ctx, `SELECT dsum(billed_cost), max(charge_period_end) FROM line_items WHERE `+where, args...).Scan(&s, &end); err != nil || s == nil || end == nil {
		return decimal.Zero, time.Time{}, false, err
	}
	if sum, err = dec(*s); err != nil {
		return sum, time.Time{}, false, err
	}
	through, _ = ledger.ParseTime(*end)
	return sum, through, true, nil
}

// billSum is the billed cost of the line items matching where.
func billSum(ctx context.Context, db *ledger.DB, where string, args ...any) (decimal.Decimal, error) {
	sum, _, _, err := billTotal(ctx, db, where, args...)
	return sum, err
}

// billSpan is the billed cost (credits left out) of provider's lines of a
// billing period in currency, and the time they cover from the month's
// start to the end of the newest line.
func billSpan(ctx context.Context, db *ledger.DB, provider, currency, period string, start time.Time) (decimal.Decimal, time.Duration, error) {
	d, t, ok, err := billTotal(ctx, db, `billing_period = ? AND provider = ? AND currency = ? AND kind <> ?`, period, provider, currency, ledger.KindCredit)
	if !ok || t.IsZero() {
		return d, 0, err
	}
	return d, max(t.Sub(start), 0), nil
}

package watch

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
	"github.com/gpubill/gpubill/rules"
)

// idle_storage: storage, image or snapshot lines still billing for an
// instance that ran no compute for IdleStorageDays or more (stopped, or
// gone: released while its disk or image stayed). The instance a line
// serves is its parent_resource_id, else its own resource_id (as
// stopped_storage judges it); a line with neither a parent nor compute of
// its own (an account's network disk) serves no instance and is left out.
// Still billing: its last line ends within two days of the provider's
// newest bill line. Money at stake: the lines since the instance's last
// compute (within the window); projection: 30 more days at that rate.

type servedKey struct{ provider, account, instance, currency string }

type served struct {
	servedKey
	kinds       map[string]bool
	named       bool // a line names the instance as its parent
	first, last time.Time
	lines       []storageLine
	lastCompute time.Time
	hasCompute  bool
}

type storageLine struct {
	start, end time.Time
	cost       decimal.Decimal
}

func (j Judge) idleStorage(ctx context.Context, db *ledger.DB, now time.Time, srcs []LedgerSource) ([]Alert, error) {
	rows, err := db.SQL().QueryContext(ctx, `SELECT provider, billing_account_id, parent_resource_id, resource_id, kind,
			charge_period_start, charge_period_end, billed_cost, currency
		FROM line_items WHERE billing_period >= ? AND kind IN (?, ?, ?)`, window(now, j.tz()),
		ledger.KindStorage, ledger.KindImage, ledger.KindSnapshot)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	groups := map[servedKey]*served{}
	for rows.Next() {
		var p, acct, parent, res, kind, start, end, cost, cur string
		if err := rows.Scan(&p, &acct, &parent, &res, &kind, &start, &end, &cost, &cur); err != nil {
			return nil, err
		}
		inst := parent
		if inst == "" {
			inst = res
		}
		if inst == "" {
			continue
		}
		st, err1 := ledger.ParseTime(start)
		en, err2 := ledger.ParseTime(end)
		c, err3 := dec(cost)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		k := servedKey{p, acct, inst, cur}
		g := groups[k]
		if g == nil {
			g = &served{servedKey: k, kinds: map[string]bool{}, first: st, last: en}
			groups[k] = g
		}
		g.kinds[kind] = true
		g.named = g.named || parent != ""
		if st.Before(g.first) {
			g.first = st
		}
		if en.After(g.last) {
			g.last = en
		}
		g.lines = append(g.lines, storageLine{st, en, c})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	running, err := runningNow(ctx, db)
	if err != nil {
		return nil, err
	}
	min := time.Duration(j.IdleStorageDays) * 24 * time.Hour
	var out []Alert
	for _, g := range groups {
		src, ok := sourceOf(srcs, g.provider, "bill")
		if !ok || g.last.Before(src.Through.Add(-48*time.Hour)) {
			continue // no longer billing: released
		}
		if running[[2]string{g.provider, g.instance}] {
			continue // the instance API sees it running: the bills lag
		}
		if err := lastCompute(ctx, db, g); err != nil {
			return nil, err
		}
		if !g.hasCompute && !g.named {
			continue
		}
		since, known := g.lastCompute, true
		if !g.hasCompute {
			since, known = g.first, false // gone before the window: a lower bound
		}
		idle := g.last.Sub(since)
		if idle < min {
			continue
		}
		out = append(out, j.idleStorageAlert(g, since, known, idle, now, src))
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Key < out[b].Key })
	return out, nil
}

func (j Judge) idleStorageAlert(g *served, since time.Time, known bool, idle time.Duration, now time.Time, src LedgerSource) Alert {
	amount := decimal.Zero
	from := g.last
	for _, l := range g.lines {
		if !l.start.Before(since) {
			amount = amount.Add(l.cost)
			if l.start.Before(from) {
				from = l.start
			}
		}
	}
	rate := perDay(amount, g.last.Sub(from))
	proj := amount.Add(rate.Mul(decimal.NewFromInt(30)))
	days := int(idle / (24 * time.Hour))
	a := Alert{Kind: KindIdleStorage, Provider: g.provider, Account: g.account, InstanceID: g.instance, State: "idle",
		Since: since, SinceKnown: known, SinceSource: "bill", Now: now, Currency: g.currency, PriceSource: "bill",
		AmountSoFar: amount.StringFixed(2), Projection: proj.StringFixed(2), ProjectionAt: timePtr(now.AddDate(0, 0, 30)),
		Source: "bill lines (ledger)", SourceDelay: src.Delay,
		Key: strings.Join([]string{KindIdleStorage, g.provider, g.account, g.instance, g.currency, since.UTC().Format(time.RFC3339)}, "|")}
	a.amount = decimal.NullDecimal{Decimal: amount, Valid: true}
	switch {
	case days >= 30:
		a.Severity = ledger.SeverityHigh
	case days >= 7:
		a.Severity = ledger.SeverityMedium
	default:
		a.Severity = ledger.SeverityLow
	}
	a.step = ledger.SeverityRank(a.Severity) * 1000
	var kz, ke []string
	for _, k := range []string{ledger.KindStorage, ledger.KindImage, ledger.KindSnapshot} {
		if g.kinds[k] {
			kz = append(kz, map[string]string{ledger.KindStorage: "存储", ledger.KindImage: "镜像", ledger.KindSnapshot: "快照"}[k])
			ke = append(ke, k)
		}
	}
	loc := j.tz()
	what, whatEN := "已关机或已释放", "stopped or gone"
	if !known {
		what, whatEN = "在账单窗口内没有计算费用（已释放或更早关机）", "without compute in the bills read (gone, or stopped earlier)"
	}
	sinceText := since.In(loc).Format("01-02 15:04")
	least, leastEN := "", ""
	if !known {
		least, leastEN = "至少", "at least "
	}
	a.MessageZH = fmt.Sprintf("【%s】%s 实例 %s %s，%s%d 天（自 %s 起）仍在收取%s费用：至今 %s，按此速度再 30 天合计约 %s（账单数据）。如不再需要，请删除数据盘、镜像或快照。",
		a.Severity, platform.Name(g.provider, "zh"), g.instance, what, least, days, sinceText, strings.Join(kz, "、"),
		rules.FormatMoney(amount, g.currency), rules.FormatMoney(proj, g.currency))
	a.MessageEN = fmt.Sprintf("[%s] %s instance %s is %s for %s%d days (since %s), and its %s still bill: %s so far, about %s after 30 more days at this rate (from the bills). Delete the disks, images or snapshots if they are no longer needed.",
		a.Severity, platform.Name(g.provider, "en"), g.instance, whatEN, leastEN, days, sinceText, strings.Join(ke, ", "),
		rules.FormatMoney(amount, g.currency), rules.FormatMoney(proj, g.currency))
	return a
}

// lastCompute finds the end of the instance's last compute line, over the
// whole ledger (the resource index).
func lastCompute(ctx context.Context, db *ledger.DB, g *served) error {
	var end sql.NullString
	err := db.SQL().QueryRowContext(ctx, `SELECT max(coalesce(usage_end, charge_period_end)) FROM line_items
		WHERE provider = ? AND resource_id = ? AND kind = ?`, g.provider, g.instance, ledger.KindCompute).Scan(&end)
	if err != nil || !end.Valid {
		return err
	}
	if t, err := ledger.ParseTime(end.String); err == nil {
		g.lastCompute, g.hasCompute = t, true
	}
	return nil
}

// runningNow are the instances the last poll of an instance API saw
// running.
func runningNow(ctx context.Context, db *ledger.DB) (map[[2]string]bool, error) {
	rows, err := db.SQL().QueryContext(ctx, `SELECT provider, instance_id FROM watch_instances WHERE state = 'running'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[[2]string]bool{}
	for rows.Next() {
		var p, id string
		if err := rows.Scan(&p, &id); err != nil {
			return nil, err
		}
		out[[2]string{p, id}] = true
	}
	return out, rows.Err()
}

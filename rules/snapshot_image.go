package rules

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

func init() { register(snapshotImage{}) }

// snapshotImage flags billed image and snapshot storage (DESIGN.md
// "snapshot_image"): saved images and snapshots above the free quota, and
// above all those whose instance looks gone.
//
// Every image or snapshot line item with a positive billed cost counts (a
// zero-cost item is inside the free quota). One finding per (provider,
// image/snapshot resource, currency) and month; money at risk = the billed
// cost of its items; severity by amount, raised one step when the instance
// the items serve (coverage.go servedBy; fallback: the account as a whole)
// ran no compute for gone_after (default 7 days) or more before the end of
// the group's last charge, and none after it in the data loaded (the
// neighbouring months' compute is context). When the served instance has no
// compute at all in the loaded data, its idle time is counted from the
// earliest charge of that provider in the loaded data: nothing older is
// known. With several served instances, all of them must look gone.
type snapshotImage struct{}

func (snapshotImage) ID() string { return "snapshot_image" }

func (snapshotImage) Info() Info {
	return Info{
		ID:            "snapshot_image",
		TitleZH:       "镜像与快照费用",
		TitleEN:       "Image and snapshot charges",
		DescriptionZH: "计费的自定义镜像与快照（免费额度内、金额为 0 的不报告）。风险金额 = 这些记录的应付金额；所服务的实例（未注明时按整个账号）连续 7 天以上没有计算记录、看起来已不存在时，提高严重程度。",
		DescriptionEN: "Billed custom images and snapshots (zero-cost ones inside the free quota are not reported). Money at risk = their billed cost; severity is raised when the instance they serve (or the account, when none is named) ran no compute for 7 days or more and looks gone.",
		Params: append([]Param{
			{Name: "gone_after", Type: ParamDuration, Default: "168h",
				HelpZH: "所服务实例连续这么久没有计算记录即视为已不存在，提高严重程度（默认 7 天）",
				HelpEN: "an instance with no compute for this long looks gone and raises severity (default 7 days)"},
			minAmountParam,
		}, severityParams("1", "10", "50")...),
	}
}

type snapshotImageKey struct{ provider, resource, currency string }

type snapshotImageGroup struct {
	charges
	key    snapshotImageKey
	kinds  map[string]bool
	served map[served]bool
}

// snapshotImageIdle is how long one served instance (or account) had been
// without compute at the end of a group.
type snapshotImageIdle struct {
	sv      served
	since   time.Time // last compute end, or the start of the known data
	lastRun bool      // since is a last compute end (else: no compute known)
	gone    bool
}

func (r snapshotImage) Run(ctx context.Context, in *Input) ([]ledger.Finding, error) {
	goneAfter, err := in.durationParam("gone_after")
	if err != nil {
		return nil, err
	}
	minAmount, th, err := in.amountLimits()
	if err != nil {
		return nil, err
	}
	groups := map[snapshotImageKey]*snapshotImageGroup{}
	for _, li := range in.Items {
		if (li.Kind != ledger.KindImage && li.Kind != ledger.KindSnapshot) || !isUsage(li) {
			continue
		}
		k := snapshotImageKey{li.Provider, li.ResourceID, li.Currency}
		g := groups[k]
		if g == nil {
			g = &snapshotImageGroup{key: k, kinds: map[string]bool{}, served: map[served]bool{}}
			groups[k] = g
		}
		g.addItem(li)
		g.kinds[li.Kind] = true
		g.served[in.servedBy(li)] = true
	}
	if len(groups) == 0 {
		return nil, nil
	}
	dataStart := in.snapshotImageDataStart()
	var out []ledger.Finding
	for _, g := range groups {
		if g.amount.Cmp(minAmount) < 0 {
			continue
		}
		var idles []snapshotImageIdle
		for sv := range g.served {
			idles = append(idles, in.snapshotImageIdleAt(sv, g.end, dataStart[sv.provider], goneAfter))
		}
		sort.Slice(idles, func(i, j int) bool {
			if idles[i].sv.how != idles[j].sv.how {
				return idles[i].sv.how < idles[j].sv.how
			}
			return idles[i].sv.id < idles[j].sv.id
		})
		out = append(out, r.finding(in, g, idles, goneAfter, th))
	}
	return out, nil
}

// snapshotImageDataStart is, per provider, the earliest charge start among
// the loaded items (month and context): the start of what is known.
func (in *Input) snapshotImageDataStart() map[string]time.Time {
	m := map[string]time.Time{}
	for _, li := range in.itemsAndContext() {
		if t, ok := m[li.Provider]; !ok || li.ChargePeriodStart.Before(t) {
			m[li.Provider] = li.ChargePeriodStart
		}
	}
	return m
}

// snapshotImageIdleAt judges whether the served instance (or account) looks
// gone at end: no compute in the goneAfter before end, nor after end.
func (in *Input) snapshotImageIdleAt(sv served, end, dataStart time.Time, goneAfter time.Duration) snapshotImageIdle {
	var ivs []secSpan
	if sv.how == servedAccount {
		ivs = in.accountCoverage()[acctKey{sv.provider, sv.id}]
	} else {
		ivs = in.coverage().byInstance[instKey{sv.provider, sv.id}]
	}
	idle := snapshotImageIdle{sv: sv, since: dataStart}
	// the intervals are merged and sorted, so their ends increase
	i := sort.Search(len(ivs), func(i int) bool { return !secTime(ivs[i].end).Before(end) })
	if i < len(ivs) { // running at the end or later: not gone
		idle.since, idle.lastRun = billing.Earlier(secTime(ivs[i].end), end), true
		return idle
	}
	if in.ranLater(sv) { // later still, past the loaded context
		idle.since, idle.lastRun = end, true
		return idle
	}
	if len(ivs) > 0 {
		idle.since, idle.lastRun = secTime(ivs[len(ivs)-1].end), true
	}
	idle.gone = !idle.since.IsZero() && end.Sub(idle.since) >= goneAfter
	return idle
}

func (r snapshotImage) finding(in *Input, g *snapshotImageGroup, idles []snapshotImageIdle, goneAfter time.Duration, th thresholds) ledger.Finding {
	sort.Slice(g.items, func(i, j int) bool { return g.items[i].ID < g.items[j].ID })
	k := g.key
	cur := k.currency
	amount := FormatMoney(g.amount, cur)
	n := len(g.items)
	whatZH, whatEN := "镜像/快照", "image/snapshot"
	switch {
	case g.kinds[ledger.KindImage] && !g.kinds[ledger.KindSnapshot]:
		whatZH, whatEN = "镜像", "image"
	case g.kinds[ledger.KindSnapshot] && !g.kinds[ledger.KindImage]:
		whatZH, whatEN = "快照", "snapshot"
	}
	nameZH, nameEN := k.resource, k.resource
	if k.resource == "" {
		nameZH, nameEN = "（未注明资源）", "(unnamed)"
	}
	gone := len(idles) > 0
	for _, id := range idles {
		gone = gone && id.gone
	}
	reasonZH := fmt.Sprintf("%s %s 本月计费 %s（%d 条记录，%s 至 %s）。", whatZH, nameZH, amount, n,
		formatTime(g.start, in.TZ), formatTime(g.end, in.TZ))
	reasonEN := fmt.Sprintf("The %s %s was billed %s this month (%s, %s to %s).", whatEN, nameEN, amount,
		plural(n, "line item"), formatTime(g.start, in.TZ), formatTime(g.end, in.TZ))
	if gone {
		var zh, en []string
		for _, id := range idles {
			z, e := snapshotImageIdleText(in, id, g.end)
			zh = append(zh, z)
			en = append(en, e)
		}
		reasonZH += strings.Join(zh, "；") + fmt.Sprintf("，不少于 %s，看起来已不存在。", formatDurationZH(goneAfter))
		reasonEN += " " + strings.Join(en, "; ") + fmt.Sprintf(", %s or more: it looks gone.", formatDuration(goneAfter))
	}
	adviceZH := "确认是否还需要它：不需要就删除；需要保留的话清理旧版本，尽量控制在平台免费额度内。"
	adviceEN := "Check whether you still need it: delete it if not; if you do, remove old versions and keep within the platform's free quota."
	if gone {
		whoZH, whoEN := "所服务的实例看起来已不存在", "The instance it serves looks gone"
		if idles[0].sv.how == servedAccount && len(idles) == 1 {
			whoZH, whoEN = "该账号看起来已不再使用", "The account looks no longer used"
		}
		adviceZH = whoZH + "：确认不再需要后删除该" + whatZH + "，需要保留的话下载到本地后删除。"
		adviceEN = whoEN + ": once you are sure it is no longer needed, delete the " + whatEN + ", or download it and then delete it."
	}
	terms := make([]decimal.Decimal, 0, n)
	for _, li := range g.items {
		terms = append(terms, li.BilledCost)
	}
	basis := "billed cost of " + whatEN + " line items: " + sumText(terms, g.amount, cur)
	sev := th.severity(g.amount)
	if gone {
		sev = raise(sev)
		basis += fmt.Sprintf("; severity raised: no compute of what it serves for %s or more", formatDuration(goneAfter))
	}
	return ledger.Finding{
		Severity:     sev,
		Provider:     k.provider,
		ResourceID:   k.resource,
		PeriodStart:  g.start,
		PeriodEnd:    g.end,
		AmountAtRisk: valid(g.amount),
		Currency:     cur,
		Basis:        basis,
		ReasonZH:     reasonZH,
		ReasonEN:     reasonEN,
		AdviceZH:     adviceZH,
		AdviceEN:     adviceEN,
		Evidence:     evidenceOf(g.items),
	}
}

// snapshotImageIdleText says, in zh and en, since when a served instance
// (or the account, as a fallback) ran no compute.
func snapshotImageIdleText(in *Input, id snapshotImageIdle, end time.Time) (zh, en string) {
	idleFor := end.Sub(id.since).Truncate(time.Hour)
	idle, idleZH := formatDuration(idleFor), formatDurationZH(idleFor)
	since := formatTime(id.since, in.TZ)
	if id.sv.how == servedAccount {
		acctZH, acctEN := id.sv.id, id.sv.id
		if acctZH == "" {
			acctZH, acctEN = platform.Name(id.sv.provider, "zh"), platform.Name(id.sv.provider, "en")
		}
		if id.lastRun {
			return fmt.Sprintf("它未注明所属实例，按账号 %s 整体判断（兜底）：该账号自 %s 起没有任何计算记录（%s）", acctZH, since, idleZH),
				fmt.Sprintf("It names no instance, so account %s was judged as a whole (fallback): the account ran no compute since %s (%s)", acctEN, since, idle)
		}
		return fmt.Sprintf("它未注明所属实例，按账号 %s 整体判断（兜底）：自数据开始（%s）该账号没有任何计算记录（%s）", acctZH, since, idleZH),
			fmt.Sprintf("It names no instance, so account %s was judged as a whole (fallback): the account ran no compute since the data begins (%s, %s)", acctEN, since, idle)
	}
	if id.lastRun {
		return fmt.Sprintf("它所服务的实例 %s 自 %s 起没有计算记录（%s）", id.sv.id, since, idleZH),
			fmt.Sprintf("Instance %s, which it serves, ran no compute since %s (%s)", id.sv.id, since, idle)
	}
	return fmt.Sprintf("它所服务的实例 %s 自数据开始（%s）没有任何计算记录（%s）", id.sv.id, since, idleZH),
		fmt.Sprintf("Instance %s, which it serves, ran no compute since the data begins (%s, %s)", id.sv.id, since, idle)
}

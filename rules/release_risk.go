package rules

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

func init() { register(releaseRisk{}) }

// releaseRisk flags an instance that its platform will release (delete with
// its data) soon after the end of the data, or already has (DESIGN.md
// "release_risk"): its last compute ended long enough ago that the policy's
// release rule (Policy.ReleaseDays: AutoDL 15 days, 恒源云 10 days) falls
// within `window` of the end of the data (Input.DataEnd of its provider) or
// before it. Platforms without a release rule are skipped.
//
// An instance is a resource with running compute (prepaid included: a
// package runs whether on or off) in the month or its context; its last
// compute ends where its latest active span ends (usage_end wins over the
// charge period). Storage, seat and other charges of the instance after that
// (its own resource id, or naming it as parent) show it still existed; they
// are evidence, not a condition: an instance with no later charges at all is
// judged the same way. Money at risk is unknown (the data, not a charge, is
// at stake); severity is high: the finding exists only when the release is
// past or within the window.
//
// An instance is reported by a month when its last compute lies in that
// month, or lies in the previous month and the instance was still there in
// this one (released during or after it, or charged in it after its last
// compute); an instance that ran again in the next month is left to that
// month. Compute beyond the next month is not loaded, so a release date after
// the end of the next month is not judged while data goes on beyond it.
type releaseRisk struct{}

func (releaseRisk) ID() string { return "release_risk" }

func (releaseRisk) Info() Info {
	return Info{
		ID:            "release_risk",
		TitleZH:       "实例即将被释放",
		TitleEN:       "Instance about to be released",
		DescriptionZH: "实例最后一次运行结束已久，按平台“连续关机 N 天释放实例并删除数据”的规则（AutoDL 15 天，恒源云 10 天，见平台规则表），将在数据末尾之后的窗口期（默认 3 天）内被释放，或已被释放。没有释放规则的平台不判断。风险金额未知（有风险的是数据），原因中给出释放日期。",
		DescriptionEN: "An instance whose last compute ended long enough ago that its platform's release rule (AutoDL 15 days, 恒源云 10 days, per the policy table) will delete it and its data within the window (default 3 days) after the end of the data, or already has. Platforms without a release rule are skipped. Money at risk is unknown (the data is at stake); the reason gives the release date.",
		Params: []Param{
			{Name: "window", Type: ParamDuration, Default: "72h",
				HelpZH: "在数据末尾之后此时长内将被释放的实例即报告", HelpEN: "instances to be released within this long after the end of the data are reported"},
		},
	}
}

// releaseInstance is one instance's compute as far as the input shows.
type releaseInstance struct {
	provider, resource string
	last               *ledger.LineItem
	lastEnd            time.Time
}

func (r releaseRisk) Run(ctx context.Context, in *Input) ([]ledger.Finding, error) {
	window, err := in.durationParam("window")
	if err != nil {
		return nil, err
	}
	insts := map[instKey]*releaseInstance{}
	var ri *releaseInstance // the previous item's instance: consecutive rows often share one
	// month items and context are disjoint (different billing periods)
	for _, li := range in.itemsAndContext() {
		if !billing.IsRunning(li) || li.ResourceID == "" {
			continue
		}
		if ri == nil || li.ResourceID != ri.resource || li.Provider != ri.provider {
			k := instKey{li.Provider, li.ResourceID}
			if ri = insts[k]; ri == nil {
				ri = &releaseInstance{provider: li.Provider, resource: li.ResourceID}
				insts[k] = ri
			}
		}
		_, e := billing.ActiveSpan(li)
		if ri.last == nil || e.After(ri.lastEnd) || (e.Equal(ri.lastEnd) && li.ID > ri.last.ID) {
			ri.last, ri.lastEnd = li, e
		}
	}
	// the month's other charges, by the instance they name
	others := map[instKey][]*ledger.LineItem{}
	for _, li := range in.Items {
		if li.Kind == ledger.KindCompute || !isUsage(li) {
			continue
		}
		id := li.ParentResourceID
		if id == "" {
			id = li.ResourceID
		}
		if id != "" {
			k := instKey{li.Provider, id}
			others[k] = append(others[k], li)
		}
	}
	// the end of what the input shows: compute of the next billing period
	horizon := in.MonthEnd.AddDate(0, 1, 0)
	var out []ledger.Finding
	for k, ri := range insts {
		p, ok := in.Policy(k.provider)
		if !ok || p.ReleaseDays <= 0 {
			continue
		}
		dataEnd, ok := in.DataEnd[k.provider]
		if !ok {
			continue
		}
		if ri.last.BillingPeriod > in.Month || in.later.inst[k] {
			continue // it ran again later: that month judges it
		}
		releaseAt := ri.lastEnd.In(in.TZ).AddDate(0, 0, p.ReleaseDays)
		if releaseAt.After(dataEnd.Add(window)) {
			continue
		}
		if releaseAt.After(horizon) && horizon.Before(dataEnd) {
			continue // compute after the horizon is not loaded: it may have run again
		}
		later := releaseLaterCharges(others[k], ri.lastEnd)
		if !in.InMonth(ri.last) && releaseAt.Before(in.MonthStart) && len(later) == 0 {
			continue // gone before this month, and nothing of it in this month
		}
		out = append(out, r.finding(in, p, ri, releaseAt, dataEnd, window, later))
	}
	return out, nil
}

// releaseLaterCharges lists the charges of an instance (the month's
// ordinary non-compute charges naming it as parent, or with its resource id
// and no parent) that end after its last compute.
func releaseLaterCharges(charges []*ledger.LineItem, lastEnd time.Time) []*ledger.LineItem {
	var out []*ledger.LineItem
	for _, li := range charges {
		if li.ChargePeriodEnd.After(lastEnd) {
			out = append(out, li)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (releaseRisk) finding(in *Input, p billing.Policy, ri *releaseInstance, releaseAt, dataEnd time.Time, window time.Duration, later []*ledger.LineItem) ledger.Finding {
	loc := in.TZ
	nameZH, nameEN := platform.Name(ri.provider, "zh"), platform.Name(ri.provider, "en")
	lastText, relText, endText := formatTime(ri.lastEnd, loc), formatTime(releaseAt, loc), formatTime(dataEnd, loc)
	past := !releaseAt.After(dataEnd)

	var laterZH, laterEN string
	billedAfter := false // charged after the release date
	if len(later) > 0 {
		kinds := map[string]bool{}
		var until time.Time
		for _, li := range later {
			kinds[li.Kind] = true
			if li.ChargePeriodEnd.After(until) {
				until = li.ChargePeriodEnd
			}
		}
		billedAfter = until.After(releaseAt)
		var ks []string
		for k := range kinds {
			ks = append(ks, k)
		}
		sort.Slice(ks, func(i, j int) bool { return slices.Index(ledger.Kinds, ks[i]) < slices.Index(ledger.Kinds, ks[j]) })
		zh := make([]string, len(ks))
		for i, k := range ks {
			zh[i] = duplicateKindName(k, "zh")
		}
		kindsZH, kindsEN, untilText := strings.Join(zh, "、"), strings.Join(ks, " and "), formatTime(until, loc)
		if billedAfter && !releaseAt.After(dataEnd) {
			laterZH = fmt.Sprintf("；但停机后仍有 %d 条%s费用，直到 %s，说明释放日之后实例仍然存在", len(later), kindsZH, untilText)
			laterEN = fmt.Sprintf("; yet %d %s charges after it stopped, until %s, show it still existed after that date", len(later), kindsEN, untilText)
		} else {
			laterZH = fmt.Sprintf("；停机后仍有 %d 条%s费用（至 %s），说明实例仍然存在", len(later), kindsZH, untilText)
			laterEN = fmt.Sprintf("; %d %s charges after it stopped (until %s) show it still existed", len(later), kindsEN, untilText)
		}
	}

	var reasonZH, reasonEN, adviceZH, adviceEN string
	switch {
	case past && billedAfter:
		ago := formatDuration(dataEnd.Sub(releaseAt))
		reasonZH = fmt.Sprintf("实例 %s 最后一次运行结束于 %s，%s会释放连续关机 %d 天的实例并删除数据，因此它应已于约 %s 被释放（数据末尾 %s 之前 %s）%s。",
			ri.resource, lastText, nameZH, p.ReleaseDays, relText, endText, formatDurationZH(dataEnd.Sub(releaseAt)), laterZH)
		reasonEN = fmt.Sprintf("Instance %s last ran until %s and %s releases an instance shut down for %d days with its data, so it was due for release around %s, %s before the end of the data (%s)%s.",
			ri.resource, lastText, nameEN, p.ReleaseDays, relText, ago, endText, laterEN)
		adviceZH = "向客服确认该实例和数据是否还在：还在就备份需要的数据或主动释放；已释放就凭这些记录申请退还释放日之后的费用。"
		adviceEN = "Ask support whether the instance and its data still exist: if so, back up what you need or release it; if it was released, ask for a refund of the charges after the release date with these rows."
	case past:
		ago := formatDuration(dataEnd.Sub(releaseAt))
		reasonZH = fmt.Sprintf("实例 %s 最后一次运行结束于 %s，%s会释放连续关机 %d 天的实例并删除数据，因此它约在 %s 已被释放（数据末尾 %s 之前 %s）%s。",
			ri.resource, lastText, nameZH, p.ReleaseDays, relText, endText, formatDurationZH(dataEnd.Sub(releaseAt)), laterZH)
		reasonEN = fmt.Sprintf("Instance %s last ran until %s and %s releases an instance shut down for %d days with its data, so it was released around %s, %s before the end of the data (%s)%s.",
			ri.resource, lastText, nameEN, p.ReleaseDays, relText, ago, endText, laterEN)
		adviceZH = "按平台规则其数据应已删除：若仍需要，尽快联系客服确认能否恢复。"
		adviceEN = "By the platform's rule its data is gone: if you still need it, ask support at once whether it can be recovered."
	default:
		left := formatDuration(releaseAt.Sub(dataEnd))
		reasonZH = fmt.Sprintf("实例 %s 最后一次运行结束于 %s，%s会释放连续关机 %d 天的实例并删除数据，因此它将在约 %s 被释放（数据末尾 %s 之后 %s）%s。",
			ri.resource, lastText, nameZH, p.ReleaseDays, relText, endText, formatDurationZH(releaseAt.Sub(dataEnd)), laterZH)
		reasonEN = fmt.Sprintf("Instance %s last ran until %s and %s releases an instance shut down for %d days with its data, so it will be released around %s, %s after the end of the data (%s)%s.",
			ri.resource, lastText, nameEN, p.ReleaseDays, relText, left, endText, laterEN)
		adviceZH = fmt.Sprintf("若还需要其中的数据，在 %s 之前开机一次或先备份下载；不再需要就主动释放，免得继续为存储付费。", relText)
		adviceEN = fmt.Sprintf("If you still need its data, start it once or back it up before %s; if not, release it yourself and stop paying for its storage.", relText)
	}
	guess := ""
	if p.IsGuess("release_days") {
		guess = ", a guess"
	}
	seen := ""
	if p.Seen != "" {
		seen = ", seen " + p.Seen
	}
	basis := fmt.Sprintf("release rule %d days (policy table%s%s): last compute ended %s + %d days = %s; end of data %s; window %s; no amount (the data is at stake)",
		p.ReleaseDays, seen, guess, lastText, p.ReleaseDays, relText, endText, formatDuration(window))
	items := append([]*ledger.LineItem{ri.last}, later...)
	return ledger.Finding{
		Severity:    ledger.SeverityHigh,
		Provider:    ri.provider,
		ResourceID:  ri.resource,
		PeriodStart: ri.lastEnd,
		PeriodEnd:   releaseAt,
		Currency:    ri.last.Currency,
		Basis:       basis,
		ReasonZH:    reasonZH,
		ReasonEN:    reasonEN,
		AdviceZH:    adviceZH,
		AdviceEN:    adviceEN,
		Evidence:    evidenceOf(items),
	}
}

package rules

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

func init() { register(forgottenInstance{}) }

// forgottenInstance flags on-demand sessions longer than the limit, and
// sessions still running at the end of the data (DESIGN.md
// "forgotten_instance").
//
// Money at risk = the cost of the session beyond the limit: each item's
// billed cost pro rata by the part of its active span after start + limit
// (8 decimals). A short session still running has 0 at risk and severity
// info. Otherwise severity follows the amount; a session that crosses the
// night (night_start–night_end in --tz) is raised one step, but the night
// alone triggers nothing, since overnight training is normal.
//
// A session is reported by the month that holds its last item (by charge
// end), so a session across a month's edge is reported once, with its whole
// length; its evidence includes the items of the other month. "Still running"
// means its last item ends at the latest charge end of that provider in the
// whole ledger.
type forgottenInstance struct{}

func (forgottenInstance) ID() string { return "forgotten_instance" }

func (forgottenInstance) Info() Info {
	return Info{
		ID:            "forgotten_instance",
		TitleZH:       "忘记关机的实例",
		TitleEN:       "Forgotten instance",
		DescriptionZH: "按量实例连续运行超过上限（默认 8 小时），或到数据末尾仍在运行。风险金额 = 超过上限部分的费用（按时间比例）；仍在运行但未超上限的记 info、金额 0。跨越夜间会提高严重程度，但夜间本身不触发。包年包月实例不计。配置文件的 [[exempt]]（按资源、项目或标签，带到期日）可豁免预期中的长时间运行。",
		DescriptionEN: "An on-demand session longer than the limit (default 8 h), or still running at the end of the data. Money at risk = the cost beyond the limit (pro rata by time); a short session still running is info with 0 at risk. Crossing the night raises severity but never triggers alone. Prepaid instances are not judged. Expected long runs can be exempted per resource, project or tag, with an expiry, in the config's [[exempt]].",
		Params: append([]Param{
			{Name: "limit", Type: ParamDuration, Default: "8h",
				HelpZH: "连续运行超过此时长即报告", HelpEN: "sessions longer than this are reported"},
			{Name: "night_start", Type: ParamClock, Default: "00:00",
				HelpZH: "夜间开始（--tz 时区）", HelpEN: "start of the night (in --tz)"},
			{Name: "night_end", Type: ParamClock, Default: "07:00",
				HelpZH: "夜间结束（--tz 时区）", HelpEN: "end of the night (in --tz)"},
		}, severityParams("1", "20", "100")...),
	}
}

// Run gives a finding per forgotten session, in the order of the sessions.
func (r forgottenInstance) Run(ctx context.Context, in *Input) ([]ledger.Finding, error) {
	limit, err := in.durationParam("limit")
	if err != nil {
		return nil, err
	}
	nightStart, err := in.clockParam("night_start")
	if err != nil {
		return nil, err
	}
	nightEnd, err := in.clockParam("night_end")
	if err != nil {
		return nil, err
	}
	th, err := in.thresholds()
	if err != nil {
		return nil, err
	}
	// Texts every finding shares, built once (a million-item month gives
	// tens of thousands of findings).
	limitText, limitZH := formatDuration(limit), formatDurationZH(limit)
	nightZH := fmt.Sprintf("期间跨越夜间（%s–%s）。", clockText(nightStart), clockText(nightEnd))
	nightEN := fmt.Sprintf("It ran through the night (%s–%s).", clockText(nightStart), clockText(nightEnd))
	var out []ledger.Finding
	exempt := in.exempt
	if exempt == nil {
		exempt = in.cfg.exemptions("forgotten_instance", in.TZ)
	}
	sessions := in.Sessions()
	for i := range sessions {
		s := &sessions[i]
		last := s.LastItem()
		if !in.InMonth(last) {
			continue
		}
		dataEnd, ok := in.DataEnd[s.Provider()]
		// still running: the last item reaches the end of the data, the bill
		// does not say the instance ran less than its charge period (a usage
		// end before it, or less time billed than the period holds: the
		// item's ActiveSpan ends before the period does), and the last item
		// is not a shorter settlement row than the ones before it (platforms
		// that bill hourly rows add a partial one at shutdown).
		_, activeEnd := billing.ActiveSpan(last)
		running := ok && !last.ChargePeriodEnd.Before(dataEnd) && !activeEnd.Before(last.ChargePeriodEnd) &&
			!endsWithPartialItem(s)
		dur := s.End.Sub(s.Start)
		over := dur > limit
		var g *GuardStop
		if len(in.cfg.GuardStops) > 0 {
			g = in.guardStopFor(s, sessions)
		}
		if !over && !running && g == nil || slices.ContainsFunc(exempt, func(e Exemption) bool { return e.exempts(s.Provider(), s.Start, s.Items) }) {
			continue
		}
		night := crossesNight(s.Start, s.End, in.TZ, nightStart, nightEnd)
		f := ledger.Finding{
			Provider:    s.Provider(),
			ResourceID:  s.ResourceID(),
			PeriodStart: s.Start,
			PeriodEnd:   s.End,
			Currency:    s.Currency(),
			AdviceZH:    "确认该实例是否仍在使用；训练结束后及时关机，或在平台上设置定时关机。",
			AdviceEN:    "Check whether the instance is still needed; shut it down when training ends, or set an automatic shutdown on the platform.",
			Evidence:    evidenceOf(s.Items),
		}
		if g != nil { // billed past a stop that gpubill guard ran: the stronger claim
			guardFinding(&f, s, g, in.TZ, th)
			out = append(out, f)
			continue
		}
		startText := formatTime(s.Start, in.TZ)
		endText := formatTime(s.End, in.TZ)
		durText, durZH := formatDuration(dur), formatDurationZH(dur)
		if !over {
			f.Severity = ledger.SeverityInfo
			f.AmountAtRisk = valid(decimal.Zero)
			f.Basis = fmt.Sprintf("session of %s, within the %s limit: nothing beyond it yet", durText, limitText)
			f.ReasonZH = fmt.Sprintf("实例 %s 自 %s 起已运行 %s，到数据末尾（%s）仍在运行；尚未超过 %s 的上限，请确认是否忘记关机。",
				s.ResourceID(), startText, durZH, formatTime(dataEnd, in.TZ), limitZH)
			f.ReasonEN = fmt.Sprintf("Instance %s has run for %s since %s and was still running at the end of the data (%s); within the %s limit so far, check that it was not forgotten.",
				s.ResourceID(), durText, startText, formatTime(dataEnd, in.TZ), limitText)
			out = append(out, f)
			continue
		}
		cutoff := s.Start.Add(limit)
		amount, beyond := costBeyond(s.Items, cutoff)
		f.AmountAtRisk = valid(amount)
		f.Severity = th.severity(amount)
		if night {
			f.Severity = raise(f.Severity)
		}
		money := FormatMoney(amount, s.Currency())
		f.Basis = fmt.Sprintf("cost of the session after the first %s (from %s): %d of %d line items, pro rata by time = %s",
			limitText, formatTime(cutoff, in.TZ), beyond, len(s.Items), money)
		var zh, en []string
		zh = append(zh, fmt.Sprintf("实例 %s 连续运行 %s（%s 至 %s），超过 %s 的上限，超出部分费用约 %s。",
			s.ResourceID(), durZH, startText, endText, limitZH, money))
		en = append(en, fmt.Sprintf("Instance %s ran for %s without a break (%s to %s), beyond the %s limit; the time beyond it cost about %s.",
			s.ResourceID(), durText, startText, endText, limitText, money))
		if night {
			zh = append(zh, nightZH)
			en = append(en, nightEN)
		}
		if running {
			zh = append(zh, "到数据末尾仍在运行。")
			en = append(en, "It was still running at the end of the data.")
		}
		f.ReasonZH = strings.Join(zh, "")
		f.ReasonEN = strings.Join(en, " ")
		out = append(out, f)
	}
	return out, nil
}

// costBeyond sums the items' billed cost after cutoff, each pro rata by the
// part of its active span after cutoff; n counts the items that contribute.
func costBeyond(items []*ledger.LineItem, cutoff time.Time) (sum decimal.Decimal, n int) {
	var total money.Sum // exactly decimal.Decimal.Add, without math/big while it fits an int64
	for _, li := range items {
		if billing.AddCostBeyond(&total, li, cutoff) {
			n++
		}
	}
	return total.Decimal(), n
}

// crossesNight reports whether [start, end) overlaps the night window
// [from, to) of any day in loc; a window with to ≤ from wraps past midnight.
func crossesNight(start, end time.Time, loc *time.Location, from, to time.Duration) bool {
	if from == to {
		return false
	}
	for d := dayStart(start, loc).AddDate(0, 0, -1); d.Before(end); d = nextDay(d) {
		ws := d.Add(from)
		we := d.Add(to)
		if to < from {
			we = nextDay(d).Add(to)
		}
		if ws.Before(end) && start.Before(we) {
			return true
		}
	}
	return false
}

func clockText(d time.Duration) string {
	return fmt.Sprintf("%02d:%02d", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// endsWithPartialItem reports whether the session's last item covers less
// time than the longest item before it: the settlement row that hourly
// platforms write when an instance is shut down mid-hour.
func endsWithPartialItem(s *billing.Session) bool {
	n := len(s.Items)
	if n < 2 {
		return false
	}
	var longest time.Duration
	for _, li := range s.Items[:n-1] {
		longest = max(longest, li.ChargePeriodEnd.Sub(li.ChargePeriodStart))
	}
	last := s.Items[n-1]
	return last.ChargePeriodEnd.Sub(last.ChargePeriodStart) < longest
}

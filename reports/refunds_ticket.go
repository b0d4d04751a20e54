package reports

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/export"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// The words of the refund checklist: its translations, the sentence that
// describes each claim, the support ticket text and the steps to take.

func init() {
	addMessages(map[string][2]string{
		"refund.title":                    {"退款清单", "Refund checklist"},
		"refund.none":                     {"本月没有可申请退款的费用，也没有账户余额记录。", "Nothing to claim this month, and no account balance on record."},
		"refund.claims":                   {"可申请退款的费用", "Disputable charges"},
		"refund.no_claims":                {"没有可申请退款的费用。", "No disputable charges."},
		"refund.to_claim":                 {"可申请退款", "To claim"},
		"refund.balance":                  {"账户余额", "Balance"},
		"refund.no_balance":               {"账单中没有余额记录", "no balance in the money flow"},
		"refund.balance_at":               {"%s（%s）", "%s (as of %s)"},
		"refund.balance_later":            {"；此后还有 %d 笔收支未显示余额，以控制台为准", "; %d later movements show no balance, check the console"},
		"refund.balance_carried":          {"；按这些收支推算为 %s", "; carried forward over them: %s"},
		"refund.balance_carried_vouchers": {"（其中代金券 %s 不可退）", " (of which %s vouchers, not refundable)"},
		"refund.balance_incomplete":       {"；收支明细没有本月的消费记录（账单明细本月消费 %s），余额无法推算", "; the money flow records none of the month's charges (%s on the bill), so no balance is carried forward"},
		"refund.balance_lower":            {"；收支明细没有本月的消费记录（账单明细本月消费 %s），余额可能已更低", "; the money flow records none of the month's charges (%s on the bill): the balance may since be lower"},
		"refund.refund_rule":              {"退款规则", "Refund rule"},
		"refund.invoice_rule":             {"开票规则", "Invoice rule"},
		"refund.no_policy":                {"平台规则表中没有该平台", "not in the policy table"},
		"refund.guess":                    {"（推定，未经平台确认）", " (a guess, not confirmed by the platform)"},
		"refund.steps":                    {"步骤", "Steps"},
		"refund.ticket":                   {"工单文本", "Support ticket"},
		"refund.ticket_for":               {"工单文本（账号 %s，%s）", "Support ticket (account %s, %s)"},
		"refund.totals":                   {"合计", "Totals"},
		"refund.evidence":                 {"证据：", "Evidence: "},
		"refund.fingerprint":              {"指纹", "fingerprint"},
		"refund.computed":                 {"由 gpubill 按平台释放规则计算", "computed by gpubill from the release rule"},
		"refund.note.count": {"同一费用行被多项引用时，合计只计一次（严重程度高者优先）。已标记为“已解决”的发现不列入；“已确认”的仍列入。",
			"A line item cited by several claims counts once in the totals (the most severe first). Findings marked resolved are left out; acknowledged ones stay in."},
		"refund.col.platform":        {"平台", "Provider"},
		"refund.col.account":         {"账号", "Account"},
		"refund.col.claim":           {"类型", "Claim"},
		"refund.col.resource":        {"实例/资源", "Resource"},
		"refund.col.period":          {"时段", "Period"},
		"refund.col.amount":          {"涉及金额", "At stake"},
		"refund.col.counted":         {"计入合计", "Counted"},
		"refund.col.claims":          {"项数", "Claims"},
		"refund.col.balance_time":    {"余额时间", "Balance as of"},
		"refund.col.step":            {"步骤", "Step"},
		"refund.col.text":            {"内容", "Text"},
		"rule.charged_after_release": {"释放期限后仍收费", "Charged after the release date"},
		"claim.guard_stop":           {"guard 关机后仍计费", "Billed after a guard shutdown"},
	})
}

// claimTitle is a claim's rule title in lang.
func claimTitle(lang, rule string) string { return tr(lang, "rule."+rule) }

// claimTitleOf is c's title in lang: its Claim's where it has one (a
// forgotten instance billed after a guard stop is claimed as that).
func claimTitleOf(lang string, c *RefundClaim) string {
	if c.Claim != "" {
		return trOr(lang, "claim.", c.Claim)
	}
	return claimTitle(lang, c.RuleID)
}

// guardStopText is a guard stop as a ClaimGuardStop finding's basis states
// it (rules/guard_marker.go guardFinding writes "… after gpubill guard ran
// its shutdown command at T (FILE line N): K of M line items, …"); empty
// where it does not. items is K, the session's last line items, billed
// after the stop.
type guardStopText struct {
	at, file    string
	line, items int
}

var guardBasis = regexp.MustCompile(`after gpubill guard ran its shutdown command at ([0-9-]+ [0-9:]+) \((.+) line ([0-9]+)\): ([0-9]+) of [0-9]+ line items`)

func parseGuardBasis(basis string) guardStopText {
	m := guardBasis.FindStringSubmatch(basis)
	if m == nil {
		return guardStopText{}
	}
	n, _ := strconv.Atoi(m[3])
	k, _ := strconv.Atoi(m[4])
	return guardStopText{at: m[1], file: m[2], line: n, items: k}
}

// keepAfterStop narrows a guard stop claim's evidence to the line items
// billed after the stop: the last c.guard.items of the session by charge
// period (the finding cites the whole session).
func (c *RefundClaim) keepAfterStop(items map[int64]*ledger.LineItem) {
	type pair struct {
		ev ledger.Evidence
		li *ledger.LineItem
	}
	var ps []pair
	for _, ev := range c.Evidence {
		if li := items[ev.LineItemID]; li != nil {
			ps = append(ps, pair{ev, li})
		}
	}
	k := c.guard.items
	if k <= 0 || k >= len(ps) {
		return
	}
	slices.SortStableFunc(ps, func(a, b pair) int { return a.li.ChargePeriodStart.Compare(b.li.ChargePeriodStart) })
	ps = ps[len(ps)-k:]
	slices.SortStableFunc(ps, func(a, b pair) int { return ledger.CompareEvidence(a.ev, b.ev) })
	c.Evidence, c.items = nil, nil
	for _, p := range ps {
		c.Evidence = append(c.Evidence, p.ev)
		c.items = append(c.items, p.li)
	}
}

// rowCite is one evidence row as a person opening the file sees it: the
// file's base name (the name the platform gave the export), the sheet of a
// workbook, and the spreadsheet row (title and header rows count); or, for
// an import that recorded no row mapping (made before migration 0011), the
// record number after the header, labelled as such.
//
// A fetched line (an api: import) is cited by the vendor's own line id
// (line), with file holding the import's API name.
type rowCite struct {
	file, sheet string
	row         int
	record      bool
	line        string
}

// citeRows fills c.cites from its evidence and c.template, from the imports
// of its line items and, for fetched lines, their raw cells (the line id).
// A line imported from gpubill's own FOCUS export is cited by the vendor's
// file, sheet and row the export carried (export.LineSource), not by
// the export's row, and is the template's when the export says it was.
func (c *RefundClaim) citeRows(items map[int64]*ledger.LineItem, imports map[int64]*ledger.Import, raw map[int64][]string) {
	c.cites = c.cites[:0]
	c.template = len(c.Evidence) > 0
	for _, e := range c.Evidence {
		rc := rowCite{file: filepath.Base(e.File), row: e.Row, record: true}
		var im *ledger.Import
		if li := items[e.LineItemID]; li != nil {
			im = imports[li.ImportID]
		}
		if _, _, ok := ledger.APIImport(e.File); ok && im != nil {
			if col := slices.Index(im.Header, ledger.LineIDColumn); col >= 0 && col < len(raw[e.LineItemID]) && raw[e.LineItemID][col] != "" {
				rc = rowCite{file: e.File, line: raw[e.LineItemID][col]}
				c.template = false
				c.cites = append(c.cites, rc)
				continue
			}
		}
		format := ""
		if im != nil {
			format = im.Format
			if src, ok := export.LineSource(im.Header, raw[e.LineItemID]); ok {
				rc = rowCite{file: filepath.Base(src.File), sheet: src.Sheet, row: src.Row}
				format = src.Format
			} else if row, ok := im.RowOf(e.Row); ok {
				rc.row, rc.sheet, rc.record = row, im.Sheet, false
			}
		}
		if format != templateFormat {
			c.template = false
		}
		c.cites = append(c.cites, rc)
	}
}

// templateFormat is the format id of the gpubill template (ingest): a bill
// the user filled in, not a file the platform exported.
const templateFormat = "gpubill-bill"

// ticketRows renders a claim's evidence for a ticket: per file its rows as
// ranges, "autodl.csv 第 3–5 行" / "rows 3–5", a workbook's as Sheet!row
// ("bill.xlsx 账单!4–6"), and those known by record number only as such.
func ticketRows(c *RefundClaim, lang string) string {
	type key struct {
		file, sheet string
		record, api bool
	}
	var keys []key
	rows := map[key][]int{}
	lines := map[key][]string{}
	cites := c.cites
	if len(cites) == 0 && len(c.Evidence) > 0 { // not filled by Refunds (tests)
		for _, e := range c.Evidence {
			cites = append(cites, rowCite{file: filepath.Base(e.File), row: e.Row, record: true})
		}
	}
	for _, rc := range cites {
		k := key{rc.file, rc.sheet, rc.record, rc.line != ""}
		_, seen := rows[k]
		if _, ok := lines[k]; !ok && !seen {
			keys = append(keys, k)
		}
		if k.api {
			if !slices.Contains(lines[k], rc.line) {
				lines[k] = append(lines[k], rc.line)
			}
			continue
		}
		rows[k] = append(rows[k], rc.row)
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		if k.api {
			provider, api, _ := ledger.APIImport(k.file)
			ls := lines[k]
			if len(ls) == 1 {
				parts[i] = fmt.Sprintf(tr(lang, "find.api_line"), platform.Name(provider, lang), api, ls[0])
			} else {
				parts[i] = fmt.Sprintf(tr(lang, "find.api_lines"), platform.Name(provider, lang), api,
					strings.Join(ls, pick(lang, "、", ", ")), len(ls))
			}
			continue
		}
		text, n := compressRows(rows[k], 0)
		var format string
		switch {
		case k.record:
			format = pick(lang, "表头后第 %s 条记录", "records %s after the header")
			if n == 1 {
				format = pick(lang, "表头后第 %s 条记录", "record %s after the header")
			}
		case k.sheet != "":
			ranges := strings.Split(text, ", ")
			for j := range ranges {
				ranges[j] = k.sheet + "!" + ranges[j]
			}
			format, text = "%s", strings.Join(ranges, ", ")
		default:
			format = pick(lang, "第 %s 行", "rows %s")
			if n == 1 {
				format = pick(lang, "第 %s 行", "row %s")
			}
		}
		parts[i] = k.file + " " + fmt.Sprintf(format, text)
	}
	return strings.Join(parts, pick(lang, "，", ", "))
}

// unitText names a pricing unit in lang (ingest normalises time units to
// English slugs).
func refundUnit(lang, unit string) string {
	if lang != "zh" {
		return unit
	}
	switch unit {
	case "hour":
		return "小时"
	case "minute":
		return "分钟"
	case "second":
		return "秒"
	case "day":
		return "天"
	}
	return unit
}

// stepText describes a billing step: "按秒" / "by the second".
func stepText(lang string, d time.Duration) string {
	switch d {
	case time.Second:
		return pick(lang, "按秒", "by the second")
	case time.Minute:
		return pick(lang, "按分钟", "by the minute")
	case time.Hour:
		return pick(lang, "按小时", "by the hour")
	}
	return pick(lang, "按 "+d.String(), "in steps of "+d.String())
}

// ruleIntro introduces a platform rule. A field of the policy entry that is
// a guess is written as one, with the entry's source and the date it was
// seen, so that support can tell what the claim rests on.
func ruleIntro(lang string, pol billing.Policy, field string) string {
	if !pol.IsGuess(field) {
		return pick(lang, "贵平台", "Your platform")
	}
	src := ""
	switch {
	case pol.Source != "" && pol.Seen != "":
		src = fmt.Sprintf(pick(lang, "（依据：%s，%s 查阅）", " (source: %s, seen %s)"), pol.Source, pol.Seen)
	case pol.Source != "":
		src = fmt.Sprintf(pick(lang, "（依据：%s）", " (source: %s)"), pol.Source)
	}
	return pick(lang, "我推测（未经贵平台确认）"+src+"贵平台", "I assume, without your confirmation"+src+", that your platform")
}

// claimSentence is one numbered item of a ticket.
func (p *RefundPlatform) claimSentence(lang string, c *RefundClaim, loc *time.Location) string {
	amt := moneyWithCurrency(known(c.Amount), c.Currency)
	period := blockPeriod(c.PeriodStart, c.PeriodEnd, loc)
	rows := ticketRows(c, lang)
	if ids := idsText(c, lang); ids != "" {
		rows += pick(lang, "；", "; ") + ids
	}
	res := orDash(c.ResourceID)
	n := len(c.Evidence)
	if c.Claim == ledger.ClaimGuardStop {
		stop := pick(lang, "执行了关机命令", "ran its shutdown command")
		if g := c.guard; g.at != "" {
			stop = fmt.Sprintf(pick(lang, "于 %s 执行了关机命令（见 guard 标记文件 %s 第 %d 行）", "ran its shutdown command at %s (guard marker file %s, line %d)"),
				g.at, filepath.Base(g.file), g.line)
		}
		return fmt.Sprintf(pick(lang,
			"关机后仍计费：实例 %s 上的 gpubill guard %s，但计费一直持续到 %s（%s），关机后的费用约 %s。实例关机后不应再计费，请退还关机后的费用。",
			"Billed after the shutdown: on instance %s, gpubill guard %s, yet billing went on until %s (%s); the charges after the stop come to about %s. A stopped instance should not be billed: please refund the charges after the stop."),
			res, stop, instHumanTime(c.PeriodEnd, loc), rows, amt)
	}
	switch c.RuleID {
	case "duplicate_charge":
		return fmt.Sprintf(pick(lang,
			"重复扣费：资源 %s 在 %s 的同一笔费用被重复扣取（%s），多扣 %s。同一时段的使用只应计费一次。",
			"Duplicate charge: resource %s was charged more than once for the same use during %s (%s), %s too much. The same time should be billed once."),
			res, period, rows, amt)
	case "overlapping_charge":
		return fmt.Sprintf(pick(lang,
			"重叠扣费：资源 %s 有 %v 条计费记录的时段互相重叠（%s；%s），重叠部分被计费两次，约 %s。同一时段的使用只应计费一次。",
			"Overlapping charges: resource %s has %s whose periods overlap (%s; %s), so that time was billed twice, about %s. The same time should be billed once."),
			res, refundCount(lang, n, "line item"), period, rows, amt)
	case "min_duration_rounding":
		rule := ""
		if p.HasPolicy {
			rule = ruleIntro(lang, p.Policy, "billing_step") + pick(lang, stepText(lang, p.Policy.BillingStep)+"计费", " bills "+stepText(lang, p.Policy.BillingStep))
			if p.Policy.MinimumBilled > 0 {
				rule += fmt.Sprintf(pick(lang, "、最低计费 %s", ", with a minimum of %s"), p.Policy.MinimumBilled)
			}
		}
		return fmt.Sprintf(pick(lang,
			"计费时长超出规则：资源 %s 在 %s 的 %d 条计算费用（%s）计费时长多于实际使用时长。%s，即使按此取整，仍多计约 %s。",
			"Billed beyond the billing rule: %s of resource %s during %s (%s) billed more time than was used. %s; even rounded that way, about %s too much was billed."),
			refundArgs(lang, []any{res, period, n, rows, rule, amt}, []any{refundPlural(n, "compute line item"), res, period, rows, rule, amt})...)
	case "price_deviation":
		if e := c.earlier; e != nil && len(c.items) > 0 && c.items[0].ListUnitPrice.Valid {
			// The bill's own evidence first: the same resource, billed
			// lower before or after, then the catalog.
			li := c.items[0]
			unit := orDash(refundUnit(lang, li.PricingUnit))
			low := moneyWithCurrency(e.ListUnitPrice, c.Currency) + "/" + unit
			high := moneyWithCurrency(li.ListUnitPrice, c.Currency) + "/" + unit
			where := ticketRows(&RefundClaim{cites: []rowCite{c.earlierRow}}, lang)
			return fmt.Sprintf(pick(lang,
				"单价前后不一：贵平台账单对资源 %s 在 %s 按 %s 计费（%s），在 %s 却按 %s 计费（%s），也高于贵平台该型号公布的价格，多收约 %s。请按 %s 或订购时公布的价格计费。",
				"Price raised for the same resource: your bill charged resource %s %s at %s (%s), then %s at %s (%s), which is also above your published price for this GPU, about %s too much. Please bill at %s or at the price published when it was ordered."),
				refundArgs(lang,
					[]any{res, instHumanTime(e.ChargePeriodStart, loc), low, where, period, high, rows, amt, low},
					[]any{res, low, instHumanTime(e.ChargePeriodStart, loc), where, high, period, rows, amt, low})...)
		}
		price := ""
		if len(c.items) > 0 && c.items[0].ListUnitPrice.Valid {
			li := c.items[0]
			price = fmt.Sprintf(pick(lang, "（单价 %s/%s）", " (unit price %s per %s)"),
				moneyWithCurrency(li.ListUnitPrice, c.Currency), orDash(refundUnit(lang, li.PricingUnit)))
		}
		return fmt.Sprintf(pick(lang,
			"单价偏高：资源 %s 在 %s 的计算费用%s高于贵平台该型号公布的价格（%s），多收约 %s。请按订购时公布的价格计费。",
			"Price above the published one: the compute of resource %s during %s%s was billed above your published price for this GPU (%s), about %s too much. Please bill at the price published when it was ordered."),
			res, period, price, rows, amt)
	case RuleChargedAfterRelease:
		kinds := map[string]bool{}
		for _, li := range c.items {
			kinds[li.Kind] = true
		}
		var ks []string
		for _, k := range ledger.Kinds {
			if kinds[k] {
				ks = append(ks, trOr(lang, "kind.", k))
			}
		}
		_, until := refundItemsPeriod(c.items)
		rule := ruleIntro(lang, p.Policy, "release_days") +
			fmt.Sprintf(pick(lang, "会释放连续关机 %d 天的实例并删除数据", " releases an instance shut down for %d days and deletes its data"), c.releaseDays)
		return fmt.Sprintf(pick(lang,
			"释放期限后仍收费：实例 %s 最后一次运行结束于 %s。%s，因此它应于 %s 释放，但此后仍收取了 %v 条费用（%s，至 %s；%s），共 %s。",
			"Charged after the release date: instance %s last ran until %s. %s, so it was due for release on %s, yet %v followed (%s, until %s; %s), %s in all."),
			res, instHumanTime(c.lastCompute, loc), rule, instHumanTime(c.releaseAt, loc), refundCount(lang, n, "charge"),
			strings.Join(ks, pick(lang, "、", " and ")), instHumanTime(until, loc), rows, amt)
	}
	return fmt.Sprintf("%s: %s %s (%s) %s", c.RuleID, res, period, rows, amt)
}

// countArg is n for a Chinese sentence ("%d 条"), "n things" for English.
func refundCount(lang string, n int, thing string) any {
	if lang == "zh" {
		return n
	}
	return refundPlural(n, thing)
}

// plural writes "1 charge", "2 charges".
func refundPlural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// orderArgs picks the argument order of a sentence per language.
func refundArgs(lang string, zh, en []any) []any {
	if lang == "zh" {
		return zh
	}
	return en
}

// ticket writes the support ticket of one account and currency.
func (p *RefundPlatform) ticket(lang, month, account, currency string, amount decimal.Decimal, cs []*RefundClaim, loc *time.Location) string {
	name := providerName(p.Provider, lang)
	var b strings.Builder
	if lang == "zh" {
		b.WriteString("您好！\n\n")
		if account != "" {
			fmt.Fprintf(&b, "我是%s账号 %s 的用户，核对 %s 的账单时", name, account, month)
		} else {
			fmt.Fprintf(&b, "核对我的%s账号 %s 的账单时", name, month)
		}
		fmt.Fprintf(&b, "，发现以下 %d 项费用与贵平台的计费规则不符：\n\n", len(cs))
	} else {
		b.WriteString("Hello,\n\n")
		who := "my " + name + " account"
		if account != "" {
			who += " " + account
		}
		verb := "do"
		if len(cs) == 1 {
			verb = "does"
		}
		fmt.Fprintf(&b, "Checking the %s bill of %s, I found %s that %s not follow your billing rules:\n\n", month, who,
			refundPlural(len(cs), "charge"), verb)
	}
	for i, c := range cs {
		fmt.Fprintf(&b, "%d. %s\n", i+1, p.claimSentence(lang, c, loc))
	}
	// The total is the sum of the amounts as the sentences print them
	// (each at the minor unit), so that the ticket foots; a line item
	// cited by two claims counts once (Counted).
	printed := decimal.Zero
	for _, c := range cs {
		printed = printed.Add(RoundMoney(c.Counted, currency))
	}
	total := moneyWithCurrency(known(printed), currency)
	// Where the rows come from: a bill exported by the platform, or the
	// gpubill template the user filled in from the console pages.
	template, exported := 0, 0
	for _, c := range cs {
		if c.template {
			template++
		} else {
			exported++
		}
	}
	var source string
	switch {
	case exported == 0:
		source = pick(lang, "所列行号为我根据贵平台控制台账单页面整理的表格（gpubill 账单模板，附后）中的行，并非贵平台导出的文件。",
			"The row numbers refer to the spreadsheet I filled in from the bill pages of your console (the gpubill bill template, attached), not to a file exported by your platform.")
	case template == 0:
		source = pick(lang, "所列行号为贵平台导出账单在 Excel 中打开时的行号（明细附后）。",
			"The row numbers are those of the bills exported from your console, as opened in Excel (details attached).")
	default:
		source = pick(lang, "所列行号为附件中各文件在 Excel 中打开时的行号；其中部分为我根据控制台页面整理的表格（gpubill 账单模板），并非贵平台导出的文件。",
			"The row numbers are those of the attached files as opened in Excel; some of them are a spreadsheet I filled in from your console pages (the gpubill bill template), not files exported by your platform.")
	}
	if lang == "zh" {
		fmt.Fprintf(&b, "\n以上合计 %s。请核实，并将多扣的费用退回我的账户余额。%s\n\n谢谢！\n", total, source)
	} else {
		fmt.Fprintf(&b, "\nIn all %s. Please check these charges and refund the excess to my account balance. %s\n\nThank you.\n", total, source)
	}
	return b.String()
}

// steps lists what to do, in lang.
func (p *RefundPlatform) steps(lang, month string) []string {
	name := providerName(p.Provider, lang)
	var out []string
	if len(p.Claims) > 0 {
		out = append(out,
			fmt.Sprintf(pick(lang, "登录%s控制台提交工单（没有工单入口就联系在线客服），问题类型选“费用/账单”。",
				"Open a support ticket in the %s console (or contact online support if there is no ticket form), category billing."), name),
			pick(lang, "粘贴下面的工单文本（每个账号一份），核对后提交。",
				"Paste the ticket text below (one per account), check it and send it."),
			fmt.Sprintf(pick(lang, "附上证据：原始账单文件中列出的行，以及 gpubill report refunds --month %s --lang zh --attachment refunds-%s.csv 导出的清单。",
				"Attach the evidence: the rows listed, from the original bill files, and the list exported by gpubill report refunds --month %s --lang en --attachment refunds-%s.csv."), month, month),
			pick(lang, "请求退回到账户余额，记下工单号；处理后用 gpubill audit resolve 指纹 把对应发现标为已解决。",
				"Ask for the refund to your balance and note the ticket number; once settled, mark the findings with gpubill audit resolve FINGERPRINT."))
	}
	for _, bal := range p.Balances {
		if !bal.Balance.IsPositive() {
			continue
		}
		rule := pick(lang, "平台规则表中没有退款规则", "the policy table has no refund rule")
		if p.HasPolicy {
			if r := pick(lang, p.Policy.RefundZH, p.Policy.RefundEN); r != "" {
				rule = strings.TrimRight(r, "。.")
			}
		}
		shown := moneyWithCurrency(known(bal.Balance), bal.Currency)
		switch {
		case bal.Later > 0:
			// The balance shown is older than the last movements.
			out = append(out, fmt.Sprintf(pick(lang, "若不再使用该平台，可申请退回余额，以控制台显示为准（导出的最后余额 %s 早于此后的 %d 笔收支）（%s）。",
				"If you no longer use the platform, ask for the balance back, as the console shows it (the export's last balance, %s, predates %d later movements) (%s)."),
				shown, bal.Later, rule))
			if bal.Later == 1 && lang != "zh" {
				out[len(out)-1] = strings.Replace(out[len(out)-1], "later movements", "later movement", 1)
			}
		case bal.FlowIncomplete:
			out = append(out, fmt.Sprintf(pick(lang, "若不再使用该平台，可申请退回余额，以控制台显示为准（导出的最后余额 %s 未扣本月账单的消费）（%s）。",
				"If you no longer use the platform, ask for the balance back, as the console shows it (the export's last balance, %s, leaves out the month's charges on the bill) (%s)."),
				shown, rule))
		default:
			out = append(out, fmt.Sprintf(pick(lang, "若不再使用该平台，可申请退回余额 %s（%s）。",
				"If you no longer use the platform, ask for the balance of %s back (%s)."), shown, rule))
		}
		break
	}
	return out
}

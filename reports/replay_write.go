package reports

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ledger"
)

// How the replay report is laid out in each format. Human formats (table,
// md, html) show one table per group (provider × GPU model) ranked by
// all-in cost; exact formats (csv, tsv, xlsx) one flat table of every row
// first. Then the calibration (self-replay), the break-evens and the
// assumptions with their sources. JSON is the contract of docs/json.md.

func init() {
	addMessages(map[string][2]string{
		"replay.title":                         {"跨平台重放", "Replay"},
		"replay.group":                         {"%s · 在%s运行 · %d 个会话 · %s GPU·小时", "%s · ran on %s · %d session(s) · %s GPU-hours"},
		"replay.col.target":                    {"目标平台", "Target"},
		"replay.col.gpu_model":                 {"GPU型号", "GPU model"},
		"replay.col.target_gpu":                {"计价GPU", "GPU priced"},
		"replay.col.pricing":                   {"计费方式", "Pricing"},
		"replay.col.status":                    {"状态", "Status"},
		"replay.col.gpu_hours":                 {"计费GPU·小时", "GPU-hours billed"},
		"replay.col.compute":                   {"计算", "Compute"},
		"replay.col.storage":                   {"存储", "Storage"},
		"replay.col.network":                   {"网络", "Network"},
		"replay.col.other":                     {"其他", "Other"},
		"replay.col.all_in":                    {"合计", "All-in"},
		"replay.col.actual":                    {"实际合计", "Actual all-in"},
		"replay.col.difference":                {"差额", "Difference"},
		"replay.col.billed":                    {"账单计算费", "Billed compute"},
		"replay.col.replayed":                  {"重放计算费", "Replayed compute"},
		"replay.col.resource":                  {"实例", "Resource"},
		"replay.col.reason":                    {"原因", "Reason"},
		"replay.col.amount":                    {"金额", "Amount"},
		"replay.col.items":                     {"账单行", "Line items"},
		"replay.col.kind":                      {"类型", "Kind"},
		"replay.col.threshold":                 {"盈亏点", "Break-even"},
		"replay.col.this_month":                {"本月", "This month"},
		"replay.col.verdict":                   {"结论", "Verdict"},
		"replay.col.what":                      {"假设", "Assumption"},
		"replay.col.value":                     {"取值", "Value"},
		"replay.col.source":                    {"来源", "Source"},
		"replay.col.seen":                      {"查看日期", "Seen"},
		"replay.col.confidence":                {"可信度", "Confidence"},
		"replay.self":                          {"%s（实际）", "%s (actual)"},
		"replay.equivalent":                    {"%s（以 %s 代替）", "%s (%s as equivalent)"},
		"replay.status.priced":                 {"已计价", "priced"},
		"replay.status.self":                   {"自身重放", "self-replay"},
		"replay.status.no_price":               {"无已知价格", "no price known"},
		"replay.status.not_offered":            {"不提供", "not offered"},
		"replay.reason.billed_twice":           {"重复计费（计费时段重叠）", "billed twice (charge periods overlap)"},
		"replay.reason.rounding_beyond_policy": {"取整超出平台规则", "rounding beyond the stated policy"},
		"replay.reason.billed_below_policy":    {"低于平台规则应计", "billed below the policy"},
		"replay.section.rows":                  {"重放", "Replay"},
		"replay.section.calibration":           {"校准：按账单单价重放到原平台", "Calibration: replayed onto itself with the bill's own prices"},
		"replay.section.attribution":           {"校准差额的归因", "What the self-replay does not reproduce"},
		"replay.section.jobs":                  {"逐个会话：最便宜的平台（仅计算费）", "Each session and its cheapest platform (compute only)"},
		"replay.col.start":                     {"开始", "Start"},
		"replay.col.run_hours":                 {"运行GPU·小时", "GPU-hours run"},
		"replay.col.cheapest":                  {"最便宜平台", "Cheapest"},
		"replay.col.cheapest_cost":             {"该平台计算费", "Its compute"},
		"replay.col.saving":                    {"可省", "Saving"},
		"replay.col.data_gb":                   {"数据GB", "Data GB"},
		"replay.col.upload_hours":              {"上传小时", "Upload hours"},
		"replay.col.upload_cost":               {"上传期间费用", "Cost while uploading"},
		"replay.col.note":                      {"说明", "Note"},
		"replay.jobs.eats":                     {"搬数据的费用吃掉了节省", "moving the data eats the saving"},
		"replay.note.jobs":                     {"逐个会话：数据量取实例最大的磁盘；上传速度按种子作者实测（70GB 约 6 小时，用户报告），上传期间目标平台实例按 GPU 单价计费（推定）。", "Each session: the data is the instance's largest disk; uploaded at the rate the seed's author measured (70 GB in about 6 hours, user report), the target instance billed at its GPU price meanwhile (a guess)."},
		"replay.section.breakeven":             {"盈亏点", "Break-evens"},
		"replay.section.assumptions":           {"假设与来源", "Assumptions and sources"},
		"replay.breakeven.package":             {"包%s：每%s运行超过 %s 小时才划算", "a %s package pays off above %s h a %s"},
		"replay.breakeven.spot":                {"竞价折扣至少 %s 才比本月实际便宜", "spot beats this month's actual cost at %s off or more"},
		"replay.breakeven.spot_never":          {"竞价无论折扣多少都不比本月实际便宜", "spot never beats this month's actual cost"},
		"replay.breakeven.spot_any":            {"按量价已比本月实际便宜，竞价任何折扣都更便宜", "on demand already beats this month's actual cost; spot at any discount does too"},
		"replay.breakeven.run":                 {"平均每%s %s 小时", "%s h a %s on average"},
		"replay.breakeven.offered":             {"已知折扣 %s", "known discount %s"},
		"replay.confidence.vendor":             {"厂商说明", "vendor"},
		"replay.confidence.user report":        {"用户报告", "user report"},
		"replay.confidence.guess":              {"猜测", "guess"},
		"replay.pays":                          {"划算", "pays off"},
		"replay.not_pays":                      {"不划算", "does not pay off"},
		"replay.period.day":                    {"天", "day"},
		"replay.period.week":                   {"周", "week"},
		"replay.period.month":                  {"月", "month"},
		"replay.none":                          {"本月没有可重放的计算会话。", "No compute sessions in the month to replay."},
		"replay.note.method":                   {"重放：每个会话按目标平台的计费步长向上取整、不低于最短计费时长，乘以目标平台每 GPU·小时单价和 GPU 数；存储按 GB·天、流量按 GB 以目标平台价格计；目标平台无已知价格或账单无用量的存储、流量按原费用计入（标为“猜测”）。自身重放使用账单自己的单价，预付费按原价计。", "Replay: each session's run time rounded up to the target's billing step, at least its minimum billed duration, × the target's price per GPU-hour × GPUs; storage by GB-day and traffic by GB at the target's prices; storage and traffic with no known target price or no quantity in the bill are carried as billed (marked guess). The self row uses the bill's own unit prices; prepaid items stay as billed."},
		"replay.note.no_price":                 {"“无已知价格”表示价目表里没有该平台该型号的价格（不等于不提供）；“不提供”只在有来源说明时出现。", "\"no price known\" means the catalog has no price of that GPU on that platform (it may well be offered); \"not offered\" appears only where a source says so."},
		"replay.note.catalog":                  {"价目表最早条目查看于 %s（%d 天前）。", "The catalog's oldest entry used was seen on %s (%d days ago)."},
		"replay.note.stale":                    {"价目表已过期（超过 90 天）：%s。可用 gpubill prices 查看，用配置文件覆盖。", "The catalog is stale (older than 90 days): %s. See gpubill prices; override prices in the config file."},
		"replay.note.catalog_stale":            {"价目表中有 %d 条超过 90 天（gpubill prices 列出）。", "%d entries of the catalog are older than 90 days (gpubill prices lists them)."},
		"replay.note.foreign":                  {"以下账单不是人民币，只做自身重放（gpubill 不做币种换算）：%s。", "Not in CNY, replayed onto themselves only (gpubill converts no currency): %s."},
		"replay.note.left_out":                 {"未计入重放的费用：%s。", "Not replayed: %s."},
		"replay.note.calibrated":               {"自身重放与账单计算费在分位上一致：%s。", "Self-replay reproduces the billed compute to the fen: %s."},
	})
}

// Write encodes the report (see WriteOptions).
func (r *ReplayReport) Write(w io.Writer, opts WriteOptions) error {
	return writeReport(w, opts, func(_ WriteOptions) any { return r.json() }, r.document)
}

func (r *ReplayReport) targetText(g *ReplayGroup, row *ReplayRow, lang string, exact bool) string {
	if exact {
		return row.Target
	}
	name := providerName(row.Target, lang)
	switch {
	case row.Status == ReplaySelf:
		return fmt.Sprintf(tr(lang, "replay.self"), name)
	case row.Equivalent:
		return fmt.Sprintf(tr(lang, "replay.equivalent"), name, row.TargetGPU)
	}
	return name
}

func gpuText(g *ReplayGroup) string {
	if g.GPUModel == "" {
		return unknownDisplay
	}
	return g.GPUModel
}

func (r *ReplayReport) document(opts WriteOptions) *document {
	exact, lang := opts.exact(), opts.Lang
	doc := &document{key: "replay", title: tr(lang, "replay.title") + " " + r.Month}
	money := func(d decimal.NullDecimal, cur string) string { return FormatNullMoney(d, cur, exact) }
	if exact {
		g := &grid{cols: []column{
			textCol("provider", tr(lang, "col.provider")), textCol("gpu_model", tr(lang, "replay.col.gpu_model")),
			textCol("currency", tr(lang, "col.currency")), textCol("target_provider", tr(lang, "replay.col.target")),
			textCol("target_gpu_model", tr(lang, "replay.col.target_gpu")), textCol("pricing_model", tr(lang, "replay.col.pricing")),
			textCol("status", tr(lang, "replay.col.status")), qtyCol("gpu_hours_billed", tr(lang, "replay.col.gpu_hours")),
			moneyCol("compute_cost", tr(lang, "replay.col.compute")), moneyCol("storage_cost", tr(lang, "replay.col.storage")),
			moneyCol("network_cost", tr(lang, "replay.col.network")), moneyCol("other_cost", tr(lang, "replay.col.other")),
			moneyCol("all_in_cost", tr(lang, "replay.col.all_in")), moneyCol("actual_all_in_cost", tr(lang, "replay.col.actual")),
			moneyCol("difference", tr(lang, "replay.col.difference")),
		}}
		for i := range r.Groups {
			gr := &r.Groups[i]
			for j := range gr.Rows {
				row := &gr.Rows[j]
				hours := ""
				if row.GPUHours.Valid {
					hours = row.GPUHours.Decimal.String()
				}
				g.add(gr.Provider, gr.GPUModel, gr.Currency, row.Target, row.TargetGPU, row.PricingModel, row.Status, hours,
					money(row.Compute, gr.Currency), money(row.Storage, gr.Currency), money(row.Network, gr.Currency),
					money(row.Other, gr.Currency), money(row.AllIn, gr.Currency), FormatMoney(gr.ActualAllIn, gr.Currency, true),
					money(row.Difference, gr.Currency))
			}
		}
		doc.sections = append(doc.sections, section{key: "replay", title: tr(lang, "replay.section.rows"), grid: g, empty: tr(lang, "replay.none")})
	} else {
		if len(r.Groups) == 0 {
			doc.sections = append(doc.sections, section{key: "replay", grid: &grid{cols: []column{textCol("target", "")}}, empty: tr(lang, "replay.none")})
		}
		for i := range r.Groups {
			gr := &r.Groups[i]
			g := &grid{cols: []column{
				textCol("target_provider", tr(lang, "replay.col.target")), textCol("status", tr(lang, "replay.col.status")),
				qtyCol("gpu_hours_billed", tr(lang, "replay.col.gpu_hours")),
				moneyCol("compute_cost", tr(lang, "replay.col.compute")), moneyCol("storage_cost", tr(lang, "replay.col.storage")),
				moneyCol("network_cost", tr(lang, "replay.col.network")), moneyCol("other_cost", tr(lang, "replay.col.other")),
				moneyCol("all_in_cost", tr(lang, "replay.col.all_in")), moneyCol("difference", tr(lang, "replay.col.difference")),
			}}
			for j := range gr.Rows {
				row := &gr.Rows[j]
				hours := unknownDisplay
				if row.GPUHours.Valid {
					hours = row.GPUHours.Decimal.StringFixed(2)
				}
				g.add(r.targetText(gr, row, lang, false), tr(lang, "replay.status."+row.Status), hours,
					money(row.Compute, gr.Currency), money(row.Storage, gr.Currency), money(row.Network, gr.Currency),
					money(row.Other, gr.Currency), money(row.AllIn, gr.Currency), money(row.Difference, gr.Currency))
			}
			title := fmt.Sprintf(tr(lang, "replay.group"), gpuText(gr), providerName(gr.Provider, lang), gr.Sessions, gr.RunHours.StringFixed(2)) +
				" · " + tr(lang, "replay.col.actual") + " " + FormatMoney(gr.ActualAllIn, gr.Currency, false) + " " + gr.Currency
			doc.sections = append(doc.sections, section{key: "replay_" + strconv.Itoa(i+1), title: title, grid: g, currency: gr.Currency})
			doc.charts = append(doc.charts, replayChart(gr, r, lang))
		}
	}
	if r.JobsAsked {
		doc.sections = append(doc.sections, r.jobsSection(lang, exact))
	}
	doc.sections = append(doc.sections, r.calibrationSections(lang, exact)...)
	if s, ok := r.breakEvenSection(lang, exact); ok {
		doc.sections = append(doc.sections, s)
	}
	doc.sections = append(doc.sections, r.assumptionSection(lang))
	doc.notes = r.notes(lang)
	return doc
}

// replayChart draws a group's all-in cost by target (priced rows only).
func replayChart(gr *ReplayGroup, r *ReplayReport, lang string) chart {
	c := chart{key: "replay_" + strings.ToLower(gr.Provider+"_"+strings.ReplaceAll(gr.ModelKey, " ", "")), kind: "bar", currency: gr.Currency,
		title: fmt.Sprintf("%s · %s · %s (%s)", gpuText(gr), providerName(gr.Provider, lang), tr(lang, "replay.col.all_in"), gr.Currency)}
	s := chartSeries{}
	for j := range gr.Rows {
		row := &gr.Rows[j]
		if !row.AllIn.Valid {
			continue
		}
		c.labels = append(c.labels, r.targetText(gr, row, lang, false))
		s.values = append(s.values, row.AllIn.Decimal)
	}
	c.series = []chartSeries{s}
	return c
}

func (r *ReplayReport) jobsSection(lang string, exact bool) section {
	g := &grid{cols: []column{
		textCol("provider", tr(lang, "col.provider")), textCol("resource_id", tr(lang, "replay.col.resource")),
		textCol("gpu_model", tr(lang, "replay.col.gpu_model")), timeCol("start", tr(lang, "replay.col.start")),
		qtyCol("gpu_hours", tr(lang, "replay.col.run_hours")), textCol("currency", tr(lang, "col.currency")),
		moneyCol("actual_compute", tr(lang, "replay.col.billed")), moneyCol("replayed_compute", tr(lang, "replay.col.replayed")),
		textCol("cheapest", tr(lang, "replay.col.cheapest")),
		moneyCol("cheapest_compute", tr(lang, "replay.col.cheapest_cost")), moneyCol("saving", tr(lang, "replay.col.saving")),
		qtyCol("data_gb", tr(lang, "replay.col.data_gb")), qtyCol("upload_hours", tr(lang, "replay.col.upload_hours")),
		moneyCol("upload_cost", tr(lang, "replay.col.upload_cost")), textCol("note", tr(lang, "replay.col.note")),
	}}
	for _, j := range r.Jobs {
		start := j.Start.Format("2006-01-02T15:04:05Z07:00")
		if !exact {
			start = j.Start.In(r.tz()).Format("2006-01-02 15:04")
		}
		note := ""
		if j.MoveEatsSaving {
			note = tr(lang, "replay.jobs.eats")
		}
		qty := func(d decimal.NullDecimal) string {
			if !d.Valid {
				if exact {
					return ""
				}
				return unknownDisplay
			}
			return d.Decimal.String()
		}
		g.add(dimText(ByProvider, j.Provider, lang, exact), j.Resource, j.GPUModel, start, j.RunHours.String(), j.Currency,
			FormatMoney(j.Actual, j.Currency, exact), FormatMoney(j.Replayed, j.Currency, exact), dimText(ByProvider, j.Cheapest, lang, exact),
			FormatMoney(j.CheapestCost, j.Currency, exact), FormatMoney(j.Saving, j.Currency, exact),
			qty(j.DataGB), qty(j.UploadHours), FormatNullMoney(j.UploadCost, j.Currency, exact), note)
	}
	return section{key: "jobs", title: tr(lang, "replay.section.jobs"), grid: g, empty: tr(lang, "replay.none")}
}

// tz is the zone the report's times are shown in.
func (r *ReplayReport) tz() *time.Location {
	if r.TZ != nil {
		return r.TZ
	}
	return time.UTC
}

func (r *ReplayReport) calibrationSections(lang string, exact bool) []section {
	cal := &grid{cols: []column{
		textCol("provider", tr(lang, "col.provider")), textCol("gpu_model", tr(lang, "replay.col.gpu_model")),
		textCol("currency", tr(lang, "col.currency")), moneyCol("billed_compute", tr(lang, "replay.col.billed")),
		moneyCol("replayed_compute", tr(lang, "replay.col.replayed")), moneyCol("difference", tr(lang, "replay.col.difference")),
	}}
	att := &grid{cols: []column{
		textCol("provider", tr(lang, "col.provider")), textCol("resource_id", tr(lang, "replay.col.resource")),
		textCol("currency", tr(lang, "col.currency")), textCol("reason", tr(lang, "replay.col.reason")),
		moneyCol("amount", tr(lang, "replay.col.amount")), textCol("line_item_ids", tr(lang, "replay.col.items")),
	}}
	for i := range r.Groups {
		gr := &r.Groups[i]
		prov := dimText(ByProvider, gr.Provider, lang, exact)
		model := gr.GPUModel
		if !exact {
			model = gpuText(gr)
		}
		cal.add(prov, model, gr.Currency, FormatMoney(gr.ActualCompute, gr.Currency, exact), FormatMoney(gr.Replayed, gr.Currency, exact),
			FormatMoney(gr.ActualCompute.Sub(gr.Replayed), gr.Currency, exact))
		for _, a := range gr.Attributions {
			reason := a.Reason
			if !exact {
				reason = tr(lang, "replay.reason."+a.Reason)
			}
			ids := make([]string, len(a.LineItemIDs))
			for k, id := range a.LineItemIDs {
				ids[k] = strconv.FormatInt(id, 10)
			}
			att.add(prov, a.Resource, gr.Currency, reason, FormatMoney(a.Amount, gr.Currency, exact), strings.Join(ids, ","))
		}
	}
	out := []section{{key: "calibration", title: tr(lang, "replay.section.calibration"), grid: cal}}
	if len(att.rows) > 0 {
		out = append(out, section{key: "attribution", title: tr(lang, "replay.section.attribution"), grid: att})
	}
	return out
}

func (r *ReplayReport) breakEvenSection(lang string, exact bool) (section, bool) {
	g := &grid{cols: []column{
		textCol("provider", tr(lang, "col.provider")), textCol("gpu_model", tr(lang, "replay.col.gpu_model")),
		textCol("target_provider", tr(lang, "replay.col.target")), textCol("kind", tr(lang, "replay.col.kind")),
		textCol("break_even", tr(lang, "replay.col.threshold")), textCol("this_month", tr(lang, "replay.col.this_month")),
		textCol("verdict", tr(lang, "replay.col.verdict")), textCol("confidence", tr(lang, "replay.col.confidence")),
	}}
	for i := range r.Groups {
		gr := &r.Groups[i]
		for _, b := range gr.BreakEvens {
			var threshold, month, verdict string
			switch b.Kind {
			case ledger.PricingPackage:
				per := tr(lang, "replay.period."+b.Period)
				if lang == "zh" {
					threshold = fmt.Sprintf(tr(lang, "replay.breakeven.package"), per, per, b.Hours.Decimal.String())
					month = fmt.Sprintf(tr(lang, "replay.breakeven.run"), per, b.RunHours.String())
				} else {
					threshold = fmt.Sprintf(tr(lang, "replay.breakeven.package"), per+"ly", b.Hours.Decimal.String(), per)
					month = fmt.Sprintf(tr(lang, "replay.breakeven.run"), b.RunHours.String(), per)
				}
				if exact {
					threshold, month = b.Hours.Decimal.String(), b.RunHours.String()
				}
				verdict = tr(lang, "replay.not_pays")
				if b.Pays {
					verdict = tr(lang, "replay.pays")
				}
			case ledger.PricingSpot:
				switch {
				case !b.Discount.Valid:
					threshold = tr(lang, "replay.breakeven.spot_never")
				case b.Discount.Decimal.IsZero() && !exact:
					threshold = tr(lang, "replay.breakeven.spot_any")
				case exact:
					threshold = b.Discount.Decimal.String()
				default:
					threshold = fmt.Sprintf(tr(lang, "replay.breakeven.spot"), percent(b.Discount.Decimal))
				}
				if b.OfferedSpot.Valid {
					month = fmt.Sprintf(tr(lang, "replay.breakeven.offered"), percent(b.OfferedSpot.Decimal))
					if exact {
						month = b.OfferedSpot.Decimal.String()
					}
					verdict = tr(lang, "replay.not_pays")
					if b.Pays {
						verdict = tr(lang, "replay.pays")
					}
				}
			}
			kind := b.Kind
			if !exact {
				kind = trOr(lang, "pricing.", b.Kind)
			}
			g.add(dimText(ByProvider, gr.Provider, lang, exact), gr.GPUModel, dimText(ByProvider, b.Target, lang, exact), kind,
				threshold, month, verdict, confidenceText(b.Confidence, lang))
		}
	}
	return section{key: "break_even", title: tr(lang, "replay.section.breakeven"), grid: g}, len(g.rows) > 0
}

// confidenceText is a confidence level in lang.
func confidenceText(c, lang string) string { return trOr(lang, "replay.confidence.", c) }

func percent(d decimal.Decimal) string { return d.Mul(decimal.NewFromInt(100)).Round(1).String() + "%" }

// assumptionSection lists every assumption once, with the targets it is
// made for.
func (r *ReplayReport) assumptionSection(lang string) section {
	g := &grid{cols: []column{
		textCol("what", tr(lang, "replay.col.what")), textCol("value", tr(lang, "replay.col.value")),
		textCol("confidence", tr(lang, "replay.col.confidence")), textCol("seen", tr(lang, "replay.col.seen")),
		textCol("source", tr(lang, "replay.col.source")),
	}}
	seen := map[ReplayAssumption]bool{}
	var list []ReplayAssumption
	for i := range r.Groups {
		for j := range r.Groups[i].Rows {
			for _, a := range r.Groups[i].Rows[j].Assumptions {
				if !seen[a] {
					seen[a] = true
					list = append(list, a)
				}
			}
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].What < list[j].What })
	for _, a := range list {
		g.add(replayWhatText(a.What, lang), replayValueText(a.Value, lang), confidenceText(a.Confidence, lang), a.Seen, a.Source)
	}
	return section{key: "assumptions", title: tr(lang, "replay.section.assumptions"), grid: g}
}

func (r *ReplayReport) notes(lang string) []string {
	notes := []string{tr(lang, "replay.note.method"), tr(lang, "replay.note.no_price")}
	if r.CatalogSeen != "" {
		notes = append(notes, fmt.Sprintf(tr(lang, "replay.note.catalog"), r.CatalogSeen, r.CatalogAgeDays))
	}
	if len(r.Stale) > 0 {
		var names []string
		for _, a := range r.Stale {
			names = append(names, a.What+" ("+a.Seen+")")
		}
		notes = append(notes, fmt.Sprintf(tr(lang, "replay.note.stale"), strings.Join(names, "; ")))
	}
	if r.CatalogStale > 0 {
		notes = append(notes, fmt.Sprintf(tr(lang, "replay.note.catalog_stale"), r.CatalogStale))
	}
	var exact []string
	for i := range r.Groups {
		gr := &r.Groups[i]
		if RoundMoney(gr.ActualCompute, gr.Currency).Equal(RoundMoney(gr.Replayed, gr.Currency)) {
			exact = append(exact, providerName(gr.Provider, lang)+" "+gpuText(gr))
		}
	}
	if len(exact) > 0 {
		notes = append(notes, fmt.Sprintf(tr(lang, "replay.note.calibrated"), strings.Join(exact, ", ")))
	}
	if r.JobsAsked {
		notes = append(notes, tr(lang, "replay.note.jobs"))
	}
	if len(r.Foreign) > 0 {
		notes = append(notes, fmt.Sprintf(tr(lang, "replay.note.foreign"), strings.Join(r.Foreign, ", ")))
	}
	if len(r.LeftOut) > 0 {
		var parts []string
		for _, l := range r.LeftOut {
			parts = append(parts, fmt.Sprintf("%s %s %s %s", providerName(l.Provider, lang), trOr(lang, "kind.", l.Kind),
				FormatMoney(l.Cost, l.Currency, false), l.Currency))
		}
		notes = append(notes, fmt.Sprintf(tr(lang, "replay.note.left_out"), strings.Join(parts, "; ")))
	}
	return notes
}

// JSON contract (docs/json.md "report replay").

type replayJSON struct {
	Month           string                `json:"month"`
	As              string                `json:"as"`
	AllowEquivalent bool                  `json:"allow_equivalent"`
	Targets         []string              `json:"targets"`
	CatalogSeen     *string               `json:"catalog_seen"`
	CatalogAgeDays  int                   `json:"catalog_age_days"`
	CatalogStale    int                   `json:"catalog_stale_entries"`
	Stale           []replayAssumeJSON    `json:"stale"`
	Rows            []replayRowJSON       `json:"rows"`
	Calibration     []replayCalJSON       `json:"calibration"`
	BreakEvens      []replayBreakEvenJSON `json:"break_evens"`
	LeftOut         []replayLeftOutJSON   `json:"left_out"`
	Jobs            []replayJobJSON       `json:"jobs,omitempty"`
}

type replayJobJSON struct {
	Provider        string  `json:"provider"`
	ResourceID      string  `json:"resource_id"`
	GPUModel        string  `json:"gpu_model"`
	Start           string  `json:"start"`
	End             string  `json:"end"`
	GPUHours        string  `json:"gpu_hours"`
	Currency        string  `json:"currency"`
	ActualCompute   *string `json:"actual_compute"`
	ReplayedCompute *string `json:"replayed_compute"`
	Cheapest        string  `json:"cheapest_provider"`
	CheapestCompute *string `json:"cheapest_compute"`
	Saving          *string `json:"saving"`
	DataGB          *string `json:"data_gb"`
	UploadHours     *string `json:"upload_hours"`
	UploadCost      *string `json:"upload_cost"`
	MoveEatsSaving  bool    `json:"move_eats_saving"`
}

type replayAssumeJSON struct {
	What       string `json:"what"`
	Value      string `json:"value"`
	Source     string `json:"source"`
	Seen       string `json:"seen"`
	Confidence string `json:"confidence"`
}

type replayRowJSON struct {
	Provider        string             `json:"provider"`
	GPUModel        string             `json:"gpu_model"`
	TargetProvider  string             `json:"target_provider"`
	TargetGPUModel  string             `json:"target_gpu_model"`
	Equivalent      bool               `json:"equivalent"`
	PricingModel    string             `json:"pricing_model"`
	Status          string             `json:"status"`
	Currency        string             `json:"currency"`
	GPUHoursBilled  *string            `json:"gpu_hours_billed"`
	ComputeCost     *string            `json:"compute_cost"`
	StorageCost     *string            `json:"storage_cost"`
	NetworkCost     *string            `json:"network_cost"`
	OtherCost       *string            `json:"other_cost"`
	AllInCost       *string            `json:"all_in_cost"`
	ActualAllInCost *string            `json:"actual_all_in_cost"`
	Difference      *string            `json:"difference"`
	Offered         bool               `json:"offered"`
	Assumptions     []replayAssumeJSON `json:"assumptions"`
}

type replayCalJSON struct {
	Provider        string             `json:"provider"`
	GPUModel        string             `json:"gpu_model"`
	Currency        string             `json:"currency"`
	BilledCompute   *string            `json:"billed_compute"`
	ReplayedCompute *string            `json:"replayed_compute"`
	Difference      *string            `json:"difference"`
	Attributions    []replayAttribJSON `json:"attributions"`
}

type replayAttribJSON struct {
	Reason      string  `json:"reason"`
	ResourceID  string  `json:"resource_id"`
	Amount      *string `json:"amount"`
	LineItemIDs []int64 `json:"line_item_ids"`
}

type replayBreakEvenJSON struct {
	Provider        string  `json:"provider"`
	GPUModel        string  `json:"gpu_model"`
	TargetProvider  string  `json:"target_provider"`
	Kind            string  `json:"kind"`
	Period          string  `json:"period,omitempty"`
	HoursPerPeriod  *string `json:"hours_per_period,omitempty"`
	RunHours        *string `json:"run_hours_per_period,omitempty"`
	Discount        *string `json:"discount,omitempty"`
	OfferedDiscount *string `json:"offered_discount,omitempty"`
	PaysOff         bool    `json:"pays_off"`
	Source          string  `json:"source"`
	Seen            string  `json:"seen"`
	Confidence      string  `json:"confidence"`
}

type replayLeftOutJSON struct {
	Provider string  `json:"provider"`
	Currency string  `json:"currency"`
	Kind     string  `json:"kind"`
	Items    int     `json:"items"`
	Cost     *string `json:"cost"`
}

func assumptionsJSON(as []ReplayAssumption) []replayAssumeJSON {
	out := []replayAssumeJSON{}
	for _, a := range as {
		out = append(out, replayAssumeJSON{What: a.What, Value: a.Value, Source: a.Source, Seen: a.Seen, Confidence: a.Confidence})
	}
	return out
}

func qtyJSON(d decimal.NullDecimal) *string {
	if !d.Valid {
		return nil
	}
	s := d.Decimal.String()
	return &s
}

func (r *ReplayReport) json() replayJSON {
	out := replayJSON{Month: r.Month, As: r.As, AllowEquivalent: r.AllowEquivalent, Targets: r.Targets,
		CatalogAgeDays: r.CatalogAgeDays, CatalogStale: r.CatalogStale, Stale: assumptionsJSON(r.Stale), Rows: []replayRowJSON{},
		Calibration: []replayCalJSON{}, BreakEvens: []replayBreakEvenJSON{}, LeftOut: []replayLeftOutJSON{}}
	if r.CatalogSeen != "" {
		out.CatalogSeen = &r.CatalogSeen
	}
	for i := range r.Groups {
		gr := &r.Groups[i]
		for j := range gr.Rows {
			row := &gr.Rows[j]
			out.Rows = append(out.Rows, replayRowJSON{Provider: gr.Provider, GPUModel: gr.GPUModel, TargetProvider: row.Target,
				TargetGPUModel: row.TargetGPU, Equivalent: row.Equivalent, PricingModel: row.PricingModel, Status: row.Status,
				Currency: gr.Currency, GPUHoursBilled: qtyJSON(row.GPUHours), ComputeCost: jsonMoney(row.Compute),
				StorageCost: jsonMoney(row.Storage), NetworkCost: jsonMoney(row.Network), OtherCost: jsonMoney(row.Other),
				AllInCost: jsonMoney(row.AllIn), ActualAllInCost: jsonMoney(known(gr.ActualAllIn)), Difference: jsonMoney(row.Difference),
				Offered: row.Offered(), Assumptions: assumptionsJSON(row.Assumptions)})
		}
		cal := replayCalJSON{Provider: gr.Provider, GPUModel: gr.GPUModel, Currency: gr.Currency,
			BilledCompute: jsonMoney(known(gr.ActualCompute)), ReplayedCompute: jsonMoney(known(gr.Replayed)),
			Difference: jsonMoney(known(gr.ActualCompute.Sub(gr.Replayed))), Attributions: []replayAttribJSON{}}
		for _, a := range gr.Attributions {
			cal.Attributions = append(cal.Attributions, replayAttribJSON{Reason: a.Reason, ResourceID: a.Resource,
				Amount: jsonMoney(known(a.Amount)), LineItemIDs: a.LineItemIDs})
		}
		out.Calibration = append(out.Calibration, cal)
		for _, b := range gr.BreakEvens {
			bj := replayBreakEvenJSON{Provider: gr.Provider, GPUModel: gr.GPUModel, TargetProvider: b.Target, Kind: b.Kind,
				Period: b.Period, PaysOff: b.Pays, Source: b.Source, Seen: b.Seen, Confidence: b.Confidence}
			if b.Kind == ledger.PricingPackage {
				bj.HoursPerPeriod = qtyJSON(b.Hours)
				bj.RunHours = qtyJSON(known(b.RunHours))
			} else {
				bj.Discount = qtyJSON(b.Discount)
				bj.OfferedDiscount = qtyJSON(b.OfferedSpot)
			}
			out.BreakEvens = append(out.BreakEvens, bj)
		}
	}
	if r.JobsAsked {
		out.Jobs = []replayJobJSON{}
	}
	for _, j := range r.Jobs {
		out.Jobs = append(out.Jobs, replayJobJSON{Provider: j.Provider, ResourceID: j.Resource, GPUModel: j.GPUModel,
			Start: j.Start.In(r.tz()).Format(time.RFC3339), End: j.End.In(r.tz()).Format(time.RFC3339), GPUHours: j.RunHours.String(),
			Currency: j.Currency, ActualCompute: jsonMoney(known(j.Actual)), ReplayedCompute: jsonMoney(known(j.Replayed)), Cheapest: j.Cheapest,
			CheapestCompute: jsonMoney(known(j.CheapestCost)), Saving: jsonMoney(known(j.Saving)), DataGB: qtyJSON(j.DataGB),
			UploadHours: qtyJSON(j.UploadHours), UploadCost: jsonMoney(j.UploadCost), MoveEatsSaving: j.MoveEatsSaving})
	}
	for _, l := range r.LeftOut {
		out.LeftOut = append(out.LeftOut, replayLeftOutJSON{Provider: l.Provider, Currency: l.Currency, Kind: l.Kind,
			Items: l.Items, Cost: jsonMoney(known(l.Cost))})
	}
	return out
}

package reports

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/rules"
)

// replayNow is the frozen "today" of the replay tests (the catalog's age).
var replayNow = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)

// replayLedger imports the files matching glob into a fresh ledger.
func replayLedger(t *testing.T, glob string) *ledger.DB {
	t.Helper()
	db := testkit.OpenLedger(t)
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: %v %v", glob, files, err)
	}
	if _, err := ingest.ImportPaths(context.Background(), db, files, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	return db
}

func runReplay(t *testing.T, db *ledger.DB, opts ReplayOptions) *ReplayReport {
	t.Helper()
	if opts.Month == "" {
		opts.Month = "2026-10"
	}
	if opts.Now.IsZero() {
		opts.Now = replayNow
	}
	rep, err := replayOn(db, rules.DefaultConfig(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func fen(d decimal.Decimal) string { return d.Round(2).StringFixed(2) }

// TestReplayCalibration replays the demo and the scenario month onto the
// platforms they ran on, with the bills' own unit prices: every group's
// billed compute is reproduced to the fen, but for the charges planted
// against the platforms' policies, which are attributed (see
// testdata/demo-src/README.md and testdata/scenario/README.md):
//   - demo, AutoDL autodl-4090-a: the 10-08 09:00 hour charged twice (1.88)
//     and a 关机结算 row inside an hour row (0.94);
//   - scenario: AutoDL ad-4090-d's settlement inside an hour (0.94);
//     恒源云 hy-4090-a, per-second billing, a 12-minute job billed 1 h
//     (2.20 − 0.44 = 1.76) and a 1 h 05 job billed 2 h (4.40 − 2.38 3̅ =
//     2.016 6̅); 阿里云 i-bp1t4infer's 2 hours billed twice (15.24); 华为云
//     ecs-infer-h2's 10:00–11:00 and 10:30–11:30 (half of 8.22 = 4.11);
//     火山引擎 i-volca10-02's 2 hours billed twice (15.00).
func TestReplayCalibration(t *testing.T) {
	type att struct{ provider, resource, reason, amount string }
	for _, tc := range []struct {
		name, glob string
		inexact    map[string]string // provider/model → billed − replayed at the fen
		atts       []att
	}{
		{"demo", "../testdata/demo/*", map[string]string{"autodl/RTX4090": "2.82"}, []att{
			{"autodl", "autodl-4090-a", ReplayBilledTwice, "1.88"},
			{"autodl", "autodl-4090-a", ReplayBilledTwice, "0.94"},
		}},
		{"scenario", "../testdata/scenario/2026-10/*.csv", map[string]string{
			"autodl/RTX4090": "0.94", "gpushare/RTX4090": "3.78", "aliyun/T4": "15.24", "huaweicloud/T4": "4.11", "volcengine/A10": "15.00",
		}, []att{
			{"autodl", "ad-4090-d", ReplayBilledTwice, "0.94"},
			{"gpushare", "hy-4090-a", ReplayRoundingBeyond, "1.76"},
			{"gpushare", "hy-4090-a", ReplayRoundingBeyond, "2.02"},
			{"aliyun", "i-bp1t4infer", ReplayBilledTwice, "15.24"},
			{"huaweicloud", "4f6a2d0c-0000-4c3d-9e8f-000000000002", ReplayBilledTwice, "4.11"},
			{"volcengine", "i-volca10-02", ReplayBilledTwice, "15.00"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := runReplay(t, replayLedger(t, tc.glob), ReplayOptions{})
			var gotAtts []att
			for _, g := range rep.Groups {
				k := g.Provider + "/" + g.ModelKey
				diff := g.ActualCompute.Sub(g.Replayed)
				want, planted := tc.inexact[k]
				if !planted {
					want = "0.00"
				}
				if fen(diff) != want {
					t.Errorf("%s: billed %s − replayed %s = %s; want %s", k, g.ActualCompute, g.Replayed, fen(diff), want)
				}
				sum := decimal.Zero
				for _, a := range g.Attributions {
					sum = sum.Add(a.Amount)
					gotAtts = append(gotAtts, att{g.Provider, a.Resource, a.Reason, fen(a.Amount)})
				}
				if !sum.Equal(diff) {
					t.Errorf("%s: attributions add up to %s, the difference is %s", k, sum, diff)
				}
				self := g.Rows[0]
				for _, r := range g.Rows {
					if r.Status == ReplaySelf {
						self = r
					}
				}
				if self.Status != ReplaySelf || self.Target != g.Provider {
					t.Errorf("%s: no self row", k)
				}
				if !self.Difference.Decimal.Equal(diff.Neg()) {
					t.Errorf("%s: self row differs from actual by %s, want %s (only compute may differ)", k, self.Difference.Decimal, diff.Neg())
				}
			}
			if fmt.Sprint(gotAtts) != fmt.Sprint(tc.atts) {
				t.Errorf("attributions:\ngot  %v\nwant %v", gotAtts, tc.atts)
			}
		})
	}
}

// TestReplayActualFoots: the groups' actual all-in costs and what is left
// out add up to the month's billed cost, per currency (nothing counted twice
// or lost).
func TestReplayActualFoots(t *testing.T) {
	for _, glob := range []string{"../testdata/demo/*", "../testdata/scenario/2026-10/*.csv"} {
		db := replayLedger(t, glob)
		rep := runReplay(t, db, ReplayOptions{})
		got := map[string]decimal.Decimal{}
		for _, g := range rep.Groups {
			got[g.Currency] = got[g.Currency].Add(g.ActualAllIn)
		}
		for _, l := range rep.LeftOut {
			got[l.Currency] = got[l.Currency].Add(l.Cost)
		}
		spend, err := Spend(context.Background(), db, SpendOptions{Month: "2026-10", By: []string{ByProvider}})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]decimal.Decimal{}
		for _, r := range spend.Rows {
			want[r.Currency] = want[r.Currency].Add(r.BilledCost)
		}
		for cur, w := range want {
			if !got[cur].Equal(w) {
				t.Errorf("%s %s: groups + left out = %s, spend = %s", glob, cur, got[cur], w)
			}
		}
	}
}

// A synthetic month for the properties: sessions of given run times on one
// provider, priced onto targets whose policy and price the test sets.

func synthInput(runs []time.Duration, gpuModel string) *replayInput {
	start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	in := &replayInput{Month: "2026-10", MonthStart: start, MonthEnd: start.AddDate(0, 1, 0), TZ: time.UTC,
		Policies: map[string]replayPolicy{}, NormalizeGPU: billing.NormalizeGPUModel}
	at := start
	for i, d := range runs {
		p := replayPart{ID: int64(i + 1), Start: at, End: at.Add(d), ChargeStart: at, ChargeEnd: at.Add(d),
			BilledSeconds: decimal.NewFromInt(int64(d / time.Second)), Cost: decimal.NewFromInt(int64(d / time.Second)).Mul(decimal.RequireFromString("1.88")).Div(decimal.NewFromInt(3600)),
			GPUModel: gpuModel, GPUCount: 1}
		in.Sessions = append(in.Sessions, replaySession{Provider: "autodl", Resource: fmt.Sprintf("i-%d", i), Currency: "CNY",
			PricingModel: ledger.PricingOnDemand, Parts: []replayPart{p}, Cost: p.Cost})
		at = at.Add(d + 3*time.Hour)
	}
	in.Policies["autodl"] = replayPolicy{Provider: "autodl", Step: time.Second, Source: "test", Seen: "2026-11-29"}
	return in
}

// computeOn replays in onto target with policy pol and price perHour, and
// returns the target row's compute cost.
func computeOn(t *testing.T, in *replayInput, pol replayPolicy, perHour string, rates *billing.RateCatalog) decimal.Decimal {
	t.Helper()
	pol.Provider = "lanrui"
	in.Policies["lanrui"] = pol
	in.Prices = []replayGPUPrice{{Provider: "lanrui", GPUModel: "RTX4090", GPUModelText: "RTX 4090", PricingModel: ledger.PricingOnDemand,
		Currency: "CNY", PerHour: decimal.RequireFromString(perHour), Source: "test", Seen: "2026-11-29"}}
	if rates == nil {
		rates = &billing.RateCatalog{}
	}
	rep, err := replayOf(in, ReplayOptions{To: []string{"lanrui"}, Now: replayNow, Rates: rates})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Groups[0].Rows {
		if r.Target == "lanrui" {
			if !r.Compute.Valid {
				t.Fatalf("lanrui row not priced: %+v", r)
			}
			return r.Compute.Decimal
		}
	}
	t.Fatal("no lanrui row")
	return decimal.Zero
}

// TestReplayTwelveMinutes is the example: a 12-minute job costs
// ¥0.38 on a per-second ¥1.88/h platform and ¥1.88 under a one-hour minimum.
func TestReplayTwelveMinutes(t *testing.T) {
	in := synthInput([]time.Duration{12 * time.Minute}, "RTX 4090")
	if got := computeOn(t, in, replayPolicy{Step: time.Second}, "1.88", nil); fen(got) != "0.38" {
		t.Errorf("per second: %s, want 0.38", got)
	}
	if got := computeOn(t, in, replayPolicy{Step: time.Hour, Minimum: time.Hour}, "1.88", nil); fen(got) != "1.88" {
		t.Errorf("one-hour minimum: %s, want 1.88", got)
	}
	if got := computeOn(t, in, replayPolicy{Step: time.Second, Minimum: time.Hour}, "1.88", nil); fen(got) != "1.88" {
		t.Errorf("per second with a one-hour minimum: %s, want 1.88", got)
	}
}

// durations of the property tests: short, odd and long runs.
var replayRunSets = [][]time.Duration{
	{12 * time.Minute},
	{59*time.Second + time.Second, 61 * time.Second, 3599 * time.Second},
	{time.Second, 90 * time.Minute, 37*time.Hour + 17*time.Second},
	{7 * time.Minute, 7 * time.Minute, 7 * time.Minute, 7 * time.Minute},
	{time.Hour, 2 * time.Hour},
}

// TestReplayGranularityOrder: the same usage never costs less per hour than
// per minute, nor per minute than per second; nor less with a minimum.
func TestReplayGranularityOrder(t *testing.T) {
	for i, runs := range replayRunSets {
		in := synthInput(runs, "RTX 4090")
		sec := computeOn(t, in, replayPolicy{Step: time.Second}, "1.88", nil)
		minute := computeOn(t, in, replayPolicy{Step: time.Minute}, "1.88", nil)
		hour := computeOn(t, in, replayPolicy{Step: time.Hour}, "1.88", nil)
		minHour := computeOn(t, in, replayPolicy{Step: time.Second, Minimum: time.Hour}, "1.88", nil)
		if sec.GreaterThan(minute) || minute.GreaterThan(hour) || sec.GreaterThan(minHour) {
			t.Errorf("runs %d %v: second %s, minute %s, hour %s, 1 h minimum %s: not ordered", i, runs, sec, minute, hour, minHour)
		}
	}
}

// TestReplayMonotoneInPrice: raising any price (GPU-hour, storage per
// GB-day, traffic per GB) never lowers the all-in cost.
func TestReplayMonotoneInPrice(t *testing.T) {
	for i, runs := range replayRunSets {
		for _, step := range []time.Duration{time.Second, time.Minute, time.Hour} {
			prev := decimal.Zero
			for j, price := range []string{"0.5", "1.88", "1.89", "7.5", "100"} {
				got := computeOn(t, synthInput(runs, "RTX 4090"), replayPolicy{Step: step}, price, nil)
				if j > 0 && got.LessThan(prev) {
					t.Errorf("runs %d step %s: price %s costs %s, less than %s at a lower price", i, step, price, got, prev)
				}
				prev = got
			}
		}
	}
	// storage and traffic
	allIn := func(storage, traffic string) decimal.Decimal {
		in := synthInput([]time.Duration{time.Hour}, "RTX 4090")
		day := in.MonthStart
		in.Charges = []replayCharge{
			{ID: 100, Provider: "autodl", Currency: "CNY", Kind: ledger.KindStorage, Cost: decimal.RequireFromString("0.50"),
				Quantity: decimal.NewNullDecimal(decimal.NewFromInt(100)), Unit: "GB-day", ChargeStart: day, ChargeEnd: day.AddDate(0, 0, 1), Instance: "i-0", InstanceRan: true},
			{ID: 101, Provider: "autodl", Currency: "CNY", Kind: ledger.KindNetwork, Cost: decimal.RequireFromString("1.30"),
				Quantity: decimal.NewNullDecimal(decimal.NewFromInt(10)), Unit: "GB", ChargeStart: day, ChargeEnd: day.Add(time.Hour), Instance: "i-0", InstanceRan: true},
		}
		in.Policies["lanrui"] = replayPolicy{Provider: "lanrui", Step: time.Second}
		in.Prices = []replayGPUPrice{{Provider: "lanrui", GPUModel: "RTX4090", PricingModel: ledger.PricingOnDemand, Currency: "CNY",
			PerHour: decimal.RequireFromString("2"), Source: "test", Seen: "2026-11-29"}}
		src := billing.Sourced{Source: "test", Seen: "2026-11-29", Confidence: billing.ConfidenceGuess}
		rates := &billing.RateCatalog{Rates: []billing.Rate{
			{Provider: "lanrui", What: billing.RateStorage, Price: decimal.RequireFromString(storage), FreeGB: decimal.NewFromInt(20), Sourced: src},
			{Provider: "lanrui", What: billing.RateTraffic, Price: decimal.RequireFromString(traffic), Sourced: src},
		}}
		rep, err := replayOf(in, ReplayOptions{To: []string{"lanrui"}, Now: replayNow, Rates: rates})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Groups[0].Rows {
			if r.Target == "lanrui" {
				return r.AllIn.Decimal
			}
		}
		t.Fatal("no lanrui row")
		return decimal.Zero
	}
	base := allIn("0.01", "0.1")
	// 2 GPU-hour price + (100 − 20 free) GB × 0.01 + 10 GB × 0.1
	if base.String() != "3.8" {
		t.Errorf("storage and traffic priced: all-in %s, want 3.8 (2 + 80 × 0.01 + 10 × 0.1)", base)
	}
	if s := allIn("0.02", "0.1"); !s.GreaterThan(base) {
		t.Errorf("dearer storage: %s, not above %s", s, base)
	}
	if s := allIn("0.01", "0.2"); !s.GreaterThan(base) {
		t.Errorf("dearer traffic: %s, not above %s", s, base)
	}
}

// TestReplayStatuses: a GPU the catalog lacks on a target is "no price
// known", one a source says the target does not rent is "not offered",
// and --allow-equivalent prices the nearest class, named as such.
func TestReplayStatuses(t *testing.T) {
	src := billing.Sourced{Source: "test", Seen: "2026-11-29", Confidence: billing.ConfidenceGuess}
	rates := &billing.RateCatalog{
		NotOffered:  []billing.NotOffered{{Provider: "luchen", GPUModel: "A800", Sourced: src}},
		Equivalents: []billing.Equivalent{{GPUModel: "A800", Equivalent: "A100 80G", Sourced: src}},
	}
	for _, eq := range []bool{false, true} {
		in := synthInput([]time.Duration{time.Hour}, "A800")
		in.Policies["lanrui"] = replayPolicy{Provider: "lanrui", Step: time.Hour}
		in.Prices = []replayGPUPrice{{Provider: "lanrui", GPUModel: "A100-80G", GPUModelText: "A100 80G", PricingModel: ledger.PricingOnDemand,
			Currency: "CNY", PerHour: decimal.NewFromInt(8), Source: "test", Seen: "2026-11-29"}}
		rep, err := replayOf(in, ReplayOptions{To: []string{"lanrui", "luchen", "matpool"}, AllowEquivalent: eq, Now: replayNow, Rates: rates})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, r := range rep.Groups[0].Rows {
			got[r.Target] = r.Status
			if r.Target == "lanrui" && eq && (!r.Equivalent || r.TargetGPU != "A100 80G" || r.Compute.Decimal.String() != "8") {
				t.Errorf("equivalent row: %+v", r)
			}
			if r.Target == "luchen" && r.Offered() {
				t.Errorf("luchen offered: %+v", r)
			}
		}
		want := map[string]string{"autodl": ReplaySelf, "lanrui": ReplayNoPrice, "luchen": ReplayNotOffered, "matpool": ReplayNoPrice}
		if eq {
			want["lanrui"] = ReplayPriced
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("allow-equivalent %v: statuses %v, want %v", eq, got, want)
		}
		if last := rep.Groups[0].Rows[len(rep.Groups[0].Rows)-1]; last.Status != ReplayNotOffered {
			t.Errorf("not offered is not ranked last: %+v", last)
		}
	}
}

// TestReplayPackage: a weekly package covers an instance's sessions with
// whole weeks; its break-even is factor × 168 hours a week.
func TestReplayPackage(t *testing.T) {
	in := synthInput([]time.Duration{10 * time.Hour, 10 * time.Hour}, "RTX 4090")
	for i := range in.Sessions {
		in.Sessions[i].Resource = "i-same"
	}
	in.Policies["lanrui"] = replayPolicy{Provider: "lanrui", Step: time.Second}
	in.Prices = []replayGPUPrice{{Provider: "lanrui", GPUModel: "RTX4090", PricingModel: ledger.PricingOnDemand, Currency: "CNY",
		PerHour: decimal.NewFromInt(2), Source: "test", Seen: "2026-11-29"}}
	src := billing.Sourced{Source: "test", Seen: "2026-11-29", Confidence: billing.ConfidenceGuess}
	rates := &billing.RateCatalog{Terms: []billing.Term{{Provider: "lanrui", PricingModel: ledger.PricingPackage, Period: "week",
		Factor: decimal.RequireFromString("0.75"), Sourced: src}}}
	rep, err := replayOf(in, ReplayOptions{To: []string{"lanrui"}, As: ledger.PricingPackage, Now: replayNow, Rates: rates})
	if err != nil {
		t.Fatal(err)
	}
	g := rep.Groups[0]
	for _, r := range g.Rows {
		if r.Target != "lanrui" {
			continue
		}
		// both sessions (23 h apart) in one week: 168 h × 2 × 0.75
		if r.Compute.Decimal.String() != "252" || r.GPUHours.Decimal.String() != "168" {
			t.Errorf("package: compute %s for %s GPU-hours; want 252 for 168", r.Compute.Decimal, r.GPUHours.Decimal)
		}
	}
	var be *ReplayBreakEven
	for i := range g.BreakEvens {
		if g.BreakEvens[i].Kind == ledger.PricingPackage {
			be = &g.BreakEvens[i]
		}
	}
	if be == nil || be.Hours.Decimal.String() != "126" || be.Pays {
		t.Errorf("package break-even: %+v, want 126 h a week, not paying off for 20 h in a month", be)
	}
}

// TestReplayGolden renders the demo month with a frozen catalog (the
// GPU-hour prices and rates of testdata/TestReplayGolden/catalog.json) in
// every text format, so that a change of the embedded catalog does not
// move it.
func TestReplayGolden(t *testing.T) {
	db := replayLedger(t, "../testdata/demo/*")
	month, err := rules.LoadInput(context.Background(), db, "2026-10", rules.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	in := loadReplayInput(month, "2026-10", replayConfigOf(rules.DefaultConfig()))
	dir := filepath.Join("testdata", "TestReplayGolden")
	b, err := os.ReadFile(filepath.Join(dir, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	rates, err := billing.ParseRates(b)
	if err != nil {
		t.Fatal(err)
	}
	in.Prices = nil // the frozen catalog's GPU prices only
	rep, err := replayOf(in, ReplayOptions{Now: replayNow, Rates: rates})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ format, lang, file string }{
		{FormatJSON, "en", "demo.json"}, {FormatTable, "en", "demo.en.txt"}, {FormatTable, "zh", "demo.zh.txt"},
		{FormatMarkdown, "en", "demo.md"}, {FormatCSV, "en", "demo.csv"},
	} {
		var buf bytes.Buffer
		if err := rep.Write(&buf, WriteOptions{Format: f.format, Lang: f.lang}); err != nil {
			t.Fatal(err)
		}
		testkit.Golden(t, filepath.Join(dir, f.file), buf.Bytes(), *update)
	}
	// The frozen catalog is older than 90 days on a later "today": named stale.
	rep, err = replayOf(in, ReplayOptions{Now: replayNow.AddDate(0, 4, 0), Rates: rates})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf, WriteOptions{Format: FormatTable, Lang: "en"}); err != nil {
		t.Fatal(err)
	}
	if len(rep.Stale) == 0 || !strings.Contains(buf.String(), "The catalog is stale") ||
		rep.CatalogStale != len(rates.GPUPrices)+len(rates.Rates)+len(rates.Terms)+len(rates.Equivalents)+len(rates.NotOffered) {
		t.Errorf("a catalog seen 2026-11 is not named stale on %s:\n%s", replayNow.AddDate(0, 4, 0).Format("2006-01-02"), buf.String())
	}
}

// TestPricesAge: every entry's age is counted from "today", and an entry
// seen more than 90 days before is stale.
func TestPricesAge(t *testing.T) {
	for _, tc := range []struct {
		now   time.Time
		stale bool
	}{{replayNow, false}, {time.Date(2027, 4, 1, 0, 0, 0, 0, time.UTC), true}} {
		rep, err := Prices(PricesOptions{Config: replayConfigOf(rules.DefaultConfig()), Now: tc.now})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Entries) == 0 {
			t.Fatal("empty catalog")
		}
		for _, e := range rep.Entries {
			if e.AgeDays < 0 || e.Stale != tc.stale || e.Source == "" || e.Confidence == "" {
				t.Errorf("%s: %+v: want stale %v, an age, a source and a confidence", tc.now.Format("2006-01-02"), e, tc.stale)
			}
		}
		if tc.stale && rep.Stale != len(rep.Entries) {
			t.Errorf("stale %d of %d", rep.Stale, len(rep.Entries))
		}
	}
}

// TestReplayJobs: on the demo, 揽睿星舟's 12-minute job (billed an hour,
// ¥7.50) would cost ¥1.60 on AutoDL (0.2 h × ¥8), but uploading its
// 100 GB disk (≈ 8.57 h at the seed's 70 GB in 6 h) on an ¥8/h instance
// costs more than the ¥5.90 saved; AutoDL's hour charged twice is no
// saving of another platform (its replayed compute is 5.64, the cheapest).
func TestReplayJobs(t *testing.T) {
	rep := runReplay(t, replayLedger(t, "../testdata/demo/*"), ReplayOptions{Jobs: true})
	var found int
	for _, j := range rep.Jobs {
		switch {
		case j.Resource == "lr-a100-01" && j.Actual.String() == "7.5":
			found++
			if j.Cheapest != "autodl" || j.CheapestCost.String() != "1.6" || j.Saving.String() != "5.9" ||
				j.UploadHours.Decimal.String() != "8.57" || !j.MoveEatsSaving {
				t.Errorf("12-minute job: %+v", j)
			}
		case j.Resource == "autodl-4090-a" && j.Actual.String() == "7.52":
			found++
			if j.Cheapest != "autodl" || j.Replayed.String() != "5.64" || !j.Saving.IsZero() {
				t.Errorf("duplicate-hour session: %+v", j)
			}
		}
	}
	if found != 2 {
		t.Errorf("found %d of the 2 sessions in %d jobs", found, len(rep.Jobs))
	}
}

// TestReplayHTMLChart: the html page draws one chart per group, of the
// all-in cost of each priced target, its total the exact sum of the rows.
func TestReplayHTMLChart(t *testing.T) {
	rep := runReplay(t, replayLedger(t, "../testdata/demo/*"), ReplayOptions{})
	var buf bytes.Buffer
	if err := rep.Write(&buf, WriteOptions{Format: FormatHTML, Lang: "en"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, g := range rep.Groups {
		if g.ModelKey != "A100-80G" || g.Provider != "lanrui" {
			continue
		}
		sum := decimal.Zero
		n := 0
		for _, r := range g.Rows {
			if r.AllIn.Valid {
				sum = sum.Add(r.AllIn.Decimal)
				n++
			}
		}
		m := regexp.MustCompile(`id="chart-replay_lanrui_a100-80g" data-kind="bar" data-currency="CNY" data-total="([0-9.]+)" data-points="(\d+)"`).FindStringSubmatch(page)
		if m == nil {
			t.Fatal("no chart of the lanrui A100 80G group in the page")
		}
		if total := decimal.RequireFromString(m[1]); !total.Equal(sum) || m[2] != fmt.Sprint(n) {
			t.Errorf("chart total %s over %s points, want %s over %d", m[1], m[2], sum, n)
		}
		return
	}
	t.Error("no lanrui A100 80G group")
}

// TestReplayGPUCount: a 2-GPU session bills twice the GPU-hours and twice
// the price everywhere, its own platform included.
func TestReplayGPUCount(t *testing.T) {
	in := synthInput([]time.Duration{90 * time.Minute}, "RTX 4090")
	in.Sessions[0].Parts[0].GPUCount = 2
	in.Sessions[0].Parts[0].Cost = decimal.RequireFromString("5.64") // 1.5 h × 2 × 1.88
	got := computeOn(t, in, replayPolicy{Step: time.Hour}, "2", nil)
	if got.String() != "8" { // 2 h × 2 GPUs × ¥2
		t.Errorf("2 GPUs, hourly: %s, want 8", got)
	}
	rep, err := replayOf(in, ReplayOptions{To: []string{"lanrui"}, Now: replayNow, Rates: &billing.RateCatalog{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Groups[0].Rows {
		want := map[string]string{"autodl": "3", "lanrui": "4"}[r.Target]
		if r.GPUHours.Decimal.String() != want {
			t.Errorf("%s: %s GPU-hours, want %s", r.Target, r.GPUHours.Decimal, want)
		}
	}
}

// TestTrimZeros checks trimZeros against the form a printed and parsed
// value takes, for values of every sign, size and exponent.
func TestTrimZeros(t *testing.T) {
	var ds []decimal.Decimal
	for _, s := range []string{"0", "0.00000000", "-0.00000000", "87.42000000", "87.00000000", "-87.00000000", "1500", "0.1",
		"-0.00000001", "123456789012345678901234567890.10000000", "99999999999999999999.00000000"} {
		ds = append(ds, decimal.RequireFromString(s))
	}
	ds = append(ds, decimal.New(15, 2), decimal.New(-7, 3), decimal.New(0, 4))
	for i := int64(-2000); i <= 2000; i += 7 {
		ds = append(ds, decimal.NewFromInt(i).DivRound(decimal.NewFromInt(3600), 8), decimal.New(i*1000, -8))
	}
	for _, d := range ds {
		want, got := decimal.RequireFromString(d.String()), trimZeros(d)
		if got.Exponent() != want.Exponent() || got.Coefficient().Cmp(want.Coefficient()) != 0 {
			t.Errorf("trimZeros(%s) = %s×10^%d, want %s×10^%d", d, got.Coefficient(), got.Exponent(), want.Coefficient(), want.Exponent())
		}
	}
}

// TestHourPricer checks hourPricer.cost against computeCost, value and
// form, for prices of several precisions and run times around whole hours.
func TestHourPricer(t *testing.T) {
	for _, price := range []string{"1.9", "2.2", "0.0001", "26.46", "7.123456789", "0.00000001", "12", "3.14159265358979", "0"} {
		h := newHourPricer(decimal.RequireFromString(price))
		for _, gpus := range []int{1, 2, 3, 8} {
			for secs := int64(0); secs < 4*3600; secs += 97 {
				for _, b := range []int64{secs, secs + 3599, secs * 3600} {
					want, got := computeCost(b, h.perHour, gpus), h.cost(b, gpus)
					if got.Exponent() != want.Exponent() || got.Coefficient().Cmp(want.Coefficient()) != 0 {
						t.Fatalf("%s/GPU-hour, %d s × %d GPUs: %s (exp %d), want %s (exp %d)", price, b, gpus, got, got.Exponent(), want, want.Exponent())
					}
				}
			}
		}
	}
}

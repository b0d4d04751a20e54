package reports

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/rules"
)

// whatIfSample is a month whose savings are computed by hand in
// TestWhatIfHandComputed:
//
//	lanrui per_second: an hour billed 7.50 that ran 12 minutes → 1.50
//	  (saving 6.00); an hour without usage data stays as billed.
//	autodl auto_shutdown: a session of 10 hourly rows of 1.00 from 10-03
//	  00:00; cut after 8 h → the last 2 rows are saved (2.00).
//	gpushare release_idle_storage: instance g-1 ran 10-01 01:00–02:00; its
//	  disk is billed 0.50 a day for 10-01 … 10-06. Idle from 10-01 02:00,
//	  released 3 days later (10-04 02:00): 10-04 counts 22/24 × 0.50 =
//	  0.45833333, 10-05 and 10-06 whole → 1.45833333. An account-level
//	  snapshot stays as billed (no instance).
func whatIfSample(t *testing.T) (*ledger.DB, []ledger.LineItem) {
	t.Helper()
	db := testkit.OpenLedger(t)
	var items []ledger.LineItem
	items = append(items,
		ledger.LineItem{Provider: "lanrui", Kind: ledger.KindCompute,
			ResourceID: "lr-1", GPUModel: "A100 80G", ChargePeriodStart: bj("2026-10-05 10:00"),
			ChargePeriodEnd: bj("2026-10-05 11:00"), UsageStart: bj("2026-10-05 10:00"),
			UsageEnd: bj("2026-10-05 10:12"), PricingQuantity: nd(t, "1"), PricingUnit: "hour",
			ListUnitPrice: nd(t, "7.50"), BilledCost: dec(t, "7.50")},
		ledger.LineItem{Provider: "lanrui", Kind: ledger.KindCompute,
			ResourceID: "lr-1", GPUModel: "A100 80G", ChargePeriodStart: bj("2026-10-09 10:00"),
			ChargePeriodEnd: bj("2026-10-09 11:00"), PricingQuantity: nd(t, "1"), PricingUnit: "hour",
			ListUnitPrice: nd(t, "7.50"), BilledCost: dec(t, "7.50")},
	)
	for h := range 10 {
		items = append(items, ledger.LineItem{Provider: "autodl",
			Kind: ledger.KindCompute, ResourceID: "a-1", GPUModel: "RTX 4090",
			ChargePeriodStart: bj(fmt.Sprintf("2026-10-03 %02d:00", h)),
			ChargePeriodEnd:   bj(fmt.Sprintf("2026-10-03 %02d:00", h+1)), PricingQuantity: nd(t, "1"),
			PricingUnit: "hour", BilledCost: dec(t, "1.00")})
	}
	items = append(items, ledger.LineItem{Provider: "gpushare",
		Kind: ledger.KindCompute, ResourceID: "g-1", GPUModel: "RTX 4090",
		ChargePeriodStart: bj("2026-10-01 01:00"), ChargePeriodEnd: bj("2026-10-01 02:00"),
		PricingQuantity: nd(t, "1"), PricingUnit: "hour", BilledCost: dec(t, "2.20")})
	for d := 1; d <= 6; d++ {
		items = append(items, ledger.LineItem{Provider: "gpushare",
			Kind: ledger.KindStorage, ResourceID: "g-1-disk", ParentResourceID: "g-1",
			ChargePeriodStart: bj(fmt.Sprintf("2026-10-%02d 00:00", d)),
			ChargePeriodEnd:   bj(fmt.Sprintf("2026-10-%02d 00:00", d+1)), BilledCost: dec(t, "0.50")})
	}
	items = append(items, ledger.LineItem{Provider: "gpushare",
		Kind: ledger.KindSnapshot, ResourceID: "",
		ChargePeriodStart: bj("2026-10-06 00:00"), ChargePeriodEnd: bj("2026-10-07 00:00"),
		BilledCost: dec(t, "0.30")})
	for i := range items {
		items[i].BillingPeriod = "2026-10"
	}
	return db, testkit.ImportItems(t, db, "bills/whatif.csv", items)
}

// whatIfOn runs the what-if on db as the CLI does: on the month as an
// audit loads it (rules.LoadInput, under the default config).
func whatIfOn(db *ledger.DB, opts WhatIfOptions) (*WhatIfReport, error) {
	in, err := rules.LoadInput(context.Background(), db, opts.Month, rules.DefaultConfig())
	if err != nil {
		return nil, err
	}
	return WhatIf(in, opts)
}

// replayOn runs the replay on db as the CLI does (cmd/gpubill's
// replayConfig): on the month as an audit loads it, priced with cfg's
// policies and prices.
func replayOn(db *ledger.DB, cfg rules.Config, opts ReplayOptions) (*ReplayReport, error) {
	in, err := rules.LoadInput(context.Background(), db, opts.Month, cfg)
	if err != nil {
		return nil, err
	}
	opts.Config = replayConfigOf(cfg)
	return Replay(in, opts)
}

func replayConfigOf(cfg rules.Config) ReplayConfig {
	return ReplayConfig{Policies: cfg.PolicyFor, Prices: cfg.ReferencePrices(), User: cfg.Prices}
}

func whatIfReport(t *testing.T, db *ledger.DB) *WhatIfReport {
	t.Helper()
	rep, err := whatIfOn(db, WhatIfOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestWhatIfHandComputed(t *testing.T) {
	db, _ := whatIfSample(t)
	rep := whatIfReport(t, db)
	type want struct {
		items, changed, unknown int
		actual, saving          string
	}
	wants := map[string]want{
		"per_second/lanrui":             {2, 1, 1, "15.00", "6.00"},
		"per_second/autodl":             {10, 0, 10, "10.00", "0"},
		"per_second/gpushare":           {1, 0, 1, "2.20", "0"},
		"auto_shutdown/autodl":          {10, 2, 0, "10.00", "2.00"},
		"auto_shutdown/lanrui":          {2, 0, 0, "15.00", "0"},
		"auto_shutdown/gpushare":        {1, 0, 0, "2.20", "0"},
		"release_idle_storage/gpushare": {7, 3, 1, "3.30", "1.45833333"},
	}
	got := map[string]bool{}
	for _, r := range rep.Rows {
		name := r.Scenario + "/" + r.Provider
		got[name] = true
		w, ok := wants[name]
		if !ok {
			t.Errorf("unexpected row %s", name)
			continue
		}
		if r.Items != w.items || r.Changed != w.changed || r.Unknown != w.unknown {
			t.Errorf("%s counts: got items %d changed %d unknown %d want %d %d %d", name, r.Items, r.Changed, r.Unknown,
				w.items, w.changed, w.unknown)
		}
		if !r.ActualCost.Equal(dec(t, w.actual)) || !r.Saving.Equal(dec(t, w.saving)) {
			t.Errorf("%s: got actual %s saving %s want %s %s", name, r.ActualCost, r.Saving, w.actual, w.saving)
		}
		if !r.ScenarioCost.Add(r.Saving).Equal(r.ActualCost) {
			t.Errorf("%s: scenario %s + saving %s != actual %s", name, r.ScenarioCost, r.Saving, r.ActualCost)
		}
		if len(r.LineItemIDs) != r.Changed {
			t.Errorf("%s: got %d line item ids want %d", name, len(r.LineItemIDs), r.Changed)
		}
	}
	for name := range wants {
		if !got[name] {
			t.Errorf("missing row %s", name)
		}
	}
}

// TestWhatIfExact: each scenario's actual cost is the exact sum of the line
// items it looks at.
func TestWhatIfExact(t *testing.T) {
	db, items := whatIfSample(t)
	rep := whatIfReport(t, db)
	sum := map[string]decimal.Decimal{}
	for _, li := range items {
		switch li.Kind {
		case ledger.KindCompute:
			sum[WhatIfPerSecond] = sum[WhatIfPerSecond].Add(li.BilledCost)
			sum[WhatIfAutoShutdown] = sum[WhatIfAutoShutdown].Add(li.BilledCost)
		case ledger.KindStorage, ledger.KindSnapshot, ledger.KindImage:
			sum[WhatIfReleaseIdle] = sum[WhatIfReleaseIdle].Add(li.BilledCost)
		}
	}
	got := map[string]decimal.Decimal{}
	for _, r := range rep.Rows {
		got[r.Scenario] = got[r.Scenario].Add(r.ActualCost)
	}
	for _, s := range WhatIfScenarios {
		if !got[s].Equal(sum[s]) {
			t.Errorf("%s actual: got %s want %s", s, got[s], sum[s])
		}
	}
}

func TestWhatIfThresholds(t *testing.T) {
	db, _ := whatIfSample(t)
	for _, tc := range []struct {
		name              string
		shutdown, release time.Duration
		scenario          string
		wantSaving        string
	}{
		{"shutdown after 4h", 4 * time.Hour, 0, WhatIfAutoShutdown, "6.00"},
		{"shutdown after 10h saves nothing", 10 * time.Hour, 0, WhatIfAutoShutdown, "0"},
		{"shutdown after 7h30m", 7*time.Hour + 30*time.Minute, 0, WhatIfAutoShutdown, "2.50"},
		{"release after 1d", 0, 24 * time.Hour, WhatIfReleaseIdle, "2.45833333"},
		{"release after 10d", 0, 240 * time.Hour, WhatIfReleaseIdle, "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := whatIfOn(db, WhatIfOptions{Month: "2026-10", ShutdownAfter: tc.shutdown,
				ReleaseAfter: tc.release})
			if err != nil {
				t.Fatal(err)
			}
			total := decimal.Zero
			for _, r := range rep.Rows {
				if r.Scenario == tc.scenario {
					total = total.Add(r.Saving)
				}
			}
			if !total.Equal(dec(t, tc.wantSaving)) {
				t.Errorf("saving: got %s want %s", total, tc.wantSaving)
			}
		})
	}
}

func TestParseWhatIfDuration(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"8h", 8 * time.Hour, false},
		{"90m", 90 * time.Minute, false},
		{"3d", 72 * time.Hour, false},
		{" 1d ", 24 * time.Hour, false},
		{"0h", 0, true},
		{"-2h", 0, true},
		{"0d", 0, true},
		{"1.5d", 0, true},
		{"soon", 0, true},
		{"", 0, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseWhatIfDuration(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error: got %v want error %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("got %v want %v", got, tc.want)
			}
		})
	}
}

func TestWhatIfGolden(t *testing.T) {
	db, _ := whatIfSample(t)
	rep := whatIfReport(t, db)
	for _, fc := range formatCases {
		t.Run(fc.name, func(t *testing.T) {
			got := render(t, rep, fc.opts)
			checkGolden(t, fc.name, got)
			if fc.opts.Format == FormatJSON && !strings.Contains(string(got), `"line_item_ids": [`) {
				t.Errorf("json lacks line_item_ids:\n%s", got)
			}
		})
	}
}

package reports

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/internal/testkit"
)

// TestGPUHoursScenario checks report gpuhour on the labelled month of
// testdata/scenario/2026-10 against figures worked out by hand from its
// CSV files (times are Beijing time, as the bills write them):
//
// Every compute line is in a row. The bills hold 81 compute rows: 阿里云 4
// (train-a10 6 h 71.76; infer-t4 twice 15.24; v100-month 5600.00), AutoDL 29
// (old-a100 4 × 8.00, pkg-a100 3000.00, idle-3090 2 × 1.32, train-a 14 ×
// 1.88, train-b 3 × 2.58, train-c 2 × 2.18, train-d 1.88 + 1.88 + 0.94), AWS
// 7 (5 × 1.006 USD, 2 × 0.526 USD), 恒源云 8 (hy-old 3 × 1.50, hy-a 2.20 +
// 4.40 + 2.20 + 2.20, hy-pkg 280.00), 华为云 17 (16 × 8.22, the p2s month
// 4445.50), 揽睿星舟 4 × 1.80, 腾讯云 9 (sd-4090: 3 hours, each billed as a
// GPU part 6.5, a CPU part 0.96 and a memory part 0.96), 火山引擎 3 (30.00,
// 15.00, 15.00). Compute per currency: CNY 5702.24 + 3077.76 + 295.50 +
// 4577.02 + 7.20 + 25.26 + 60.00 = 13744.98; USD 5.03 + 1.052 = 6.082.
//
// 腾讯云's CPU and memory parts name no GPU: they join the RTX 4090 of the
// same instance, 9 items, 25.26, 3 GPU-hours (the GPU part's hours).
// 火山引擎 writes ecs.gni2 (A10).
//
// GPU-hours are the union of each instance's billed intervals:
//   - 阿里云 T4: infer-t4 is billed 10-14 10:00–12:00 twice: 2 GPU-hours, 2
//     billed twice, the second row's 15.24.
//   - 火山引擎 A10: sd-a10-1 4 h (10-12 09:00–13:00); sd-a10-2 billed
//     10-13 14:00–16:00 twice: 4 + 2 = 6 GPU-hours, 2 billed twice, 15.00.
//   - 华为云 T4: ecs-train-h1 12 touching hours (10-18 21:00 – 10-19 09:00),
//     ecs-infer-h2 10:00–11:00 and 10:30–11:30 (1.5 h), ecs-job-h3 2 h:
//     15.5 GPU-hours, 0.5 billed twice = 16.44 × 0.5 ÷ 2 = 4.11.
//   - AutoDL RTX 4090: train-a 2 + 12, train-b 3, train-c 2, train-d
//     09:00–11:00 with a settlement 10:30–11:00 inside it: 21 GPU-hours,
//     0.5 billed twice = 4.70 × 0.5 ÷ 2.5 = 0.94.
//
// Left out are the two charges of kind other (阿里云 0.45, 腾讯云 1.665);
// the rows' all-in costs and left_out add up to what report spend --format
// json gives as the month's billed cost, per currency.
func TestGPUHoursScenario(t *testing.T) {
	ctx := context.Background()
	db := testkit.OpenLedger(t)
	bills, err := filepath.Glob("../testdata/scenario/2026-10/*.csv")
	if err != nil || len(bills) < 6 {
		t.Fatalf("scenario bills: %v %v", bills, err)
	}
	if _, err := ingest.ImportPaths(ctx, db, bills, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	rep, err := GPUHours(ctx, db, GPUHourOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}

	items := 0
	compute := map[string]decimal.Decimal{}
	allIn := map[string]decimal.Decimal{}
	rows := map[string]*GPUHourRow{}
	for i := range rep.Rows {
		g := &rep.Rows[i]
		items += g.ComputeItems
		compute[g.Currency] = compute[g.Currency].Add(g.ComputeCost)
		allIn[g.Currency] = allIn[g.Currency].Add(g.AllInCost)
		rows[g.Provider+"/"+g.ModelKey+"/"+g.PricingModel] = g
	}
	if items != 81 {
		t.Errorf("compute items in rows: got %d want 81", items)
	}
	for cur, want := range map[string]string{"CNY": "13744.98", "USD": "6.082"} {
		if !compute[cur].Equal(dec(t, want)) {
			t.Errorf("%s compute: got %s want %s", cur, compute[cur], want)
		}
	}

	for _, w := range []struct {
		row                string
		items              int
		compute, hours     string
		double, doubleCost string
		doubleResources    []string
	}{
		{"tencentcloud/RTX4090/on_demand", 9, "25.26", "3", "0", "0", nil},
		{"aliyun/T4/on_demand", 2, "30.48", "2", "2", "15.24", []string{"i-bp1t4infer"}},
		{"volcengine/A10/on_demand", 3, "60.00", "6", "2", "15.00", []string{"i-volca10-02"}},
		{"huaweicloud/T4/on_demand", 16, "131.52", "15.5", "0.5", "4.11", []string{"4f6a2d0c-0000-4c3d-9e8f-000000000002"}},
		{"autodl/RTX4090/on_demand", 22, "43.12", "21", "0.5", "0.94", []string{"ad-4090-d"}},
	} {
		g := rows[w.row]
		if g == nil {
			t.Errorf("%s: no row", w.row)
			continue
		}
		for _, c := range []struct{ field, got, want string }{
			{"compute", g.ComputeCost.String(), w.compute},
			{"gpu hours", g.GPUHours().String(), w.hours},
			{"billed twice", secondsToHours(g.DoubleSeconds).String(), w.double},
			{"billed twice cost", g.DoubleCost.String(), w.doubleCost},
		} {
			if !decEqualOrSame(c.got, c.want) {
				t.Errorf("%s %s: got %s want %s", w.row, c.field, c.got, c.want)
			}
		}
		if g.ComputeItems != w.items {
			t.Errorf("%s items: got %d want %d", w.row, g.ComputeItems, w.items)
		}
		if join(g.DoubleResources) != join(w.doubleResources) {
			t.Errorf("%s billed twice on: got %v want %v", w.row, g.DoubleResources, w.doubleResources)
		}
	}

	left := map[string]decimal.Decimal{}
	var leftNames []string
	for _, lo := range rep.LeftOut {
		left[lo.Currency] = left[lo.Currency].Add(lo.Cost)
		leftNames = append(leftNames, lo.Provider+"/"+lo.Reason+"/"+lo.Kind+"/"+lo.Cost.String())
		if len(lo.IDs) != lo.Items {
			t.Errorf("%s/%s: %d ids for %d items", lo.Provider, lo.Kind, len(lo.IDs), lo.Items)
		}
	}
	if got, want := join(leftNames), "aliyun/not_gpu_cost/other/0.45 tencentcloud/not_gpu_cost/other/1.665"; got != want {
		t.Errorf("left out: got %s want %s", got, want)
	}

	// report spend --format json: the month's billed cost per currency.
	sp, err := Spend(ctx, db, SpendOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Totals []struct {
			Currency string `json:"currency"`
			Billed   string `json:"billed_cost"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(render(t, sp, WriteOptions{Format: FormatJSON}), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Totals) != 2 {
		t.Fatalf("spend totals: got %+v want CNY and USD", doc.Totals)
	}
	for _, tot := range doc.Totals {
		if got := allIn[tot.Currency].Add(left[tot.Currency]); !got.Equal(dec(t, tot.Billed)) {
			t.Errorf("%s: all-in %s + left out %s = %s, spend says %s", tot.Currency, allIn[tot.Currency],
				left[tot.Currency], got, tot.Billed)
		}
	}
}

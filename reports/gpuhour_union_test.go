package reports

import (
	"context"
	"testing"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

// TestGPUHoursFamiliesPricingUnion, by hand:
//   - 腾讯云 ins-1 names no GPU model; its SKU "GPU计算型 4090 24G" is an
//     RTX 4090: 1 h, 3.00.
//   - 阿里云 ecs.gn7i (A10): on-demand i-od 1 h 4.00 and spot i-spot 1 h
//     1.00 are two rows.
//   - 阿里云 T4 i-day, daily rows without run times on 10-05: 6 h, 6 h and
//     20 h (6.00, 6.00, 20.00): 32 h billed in a 24-hour day, so 24
//     GPU-hours and 8 billed twice, 32.00 × 8 ÷ 32 = 8.00.
//   - AutoDL A100 package p-1 reserves 10-01..10-08 (168 h) for 168.00 and
//     was used 10 h (usage times): 1.0000 per reserved GPU-hour, 16.8000
//     per GPU-hour used.
func TestGPUHoursFamiliesPricingUnion(t *testing.T) {
	db := testkit.OpenLedger(t)
	hour := func(li ledger.LineItem, q, cost string) ledger.LineItem {
		li.Kind = ledger.KindCompute
		li.PricingQuantity, li.PricingUnit, li.BilledCost = nd(t, q), "hour", dec(t, cost)
		if li.ChargePeriodStart.IsZero() {
			li.ChargePeriodStart, li.ChargePeriodEnd = bj("2026-10-03 10:00"), bj("2026-10-03 11:00")
		}
		if li.PricingModel == "" {
			li.PricingModel = ledger.PricingOnDemand
		}
		return li
	}
	day := func(q, cost string) ledger.LineItem {
		return hour(ledger.LineItem{Provider: "aliyun", ResourceID: "i-day", GPUModel: "T4",
			ChargePeriodStart: bj("2026-10-05 00:00"), ChargePeriodEnd: bj("2026-10-06 00:00")}, q, cost)
	}
	pkg := hour(ledger.LineItem{Provider: "autodl", ResourceID: "p-1", GPUModel: "A100", PricingModel: ledger.PricingPackage,
		ChargeCategory: ledger.CategoryPurchase, ChargePeriodStart: bj("2026-10-01 00:00"), ChargePeriodEnd: bj("2026-10-08 00:00"),
		UsageStart: bj("2026-10-01 00:00"), UsageEnd: bj("2026-10-01 10:00")}, "1", "168.00")
	pkg.PricingUnit = "week"
	items := []ledger.LineItem{
		hour(ledger.LineItem{Provider: "tencentcloud", ResourceID: "ins-1", SKU: "GPU计算型 4090 24G"}, "1", "3.00"),
		hour(ledger.LineItem{Provider: "aliyun", ResourceID: "i-od", SKU: "ecs.gn7i-c8g1.2xlarge"}, "1", "4.00"),
		hour(ledger.LineItem{Provider: "aliyun", ResourceID: "i-spot", SKU: "ecs.gn7i-c8g1.2xlarge", PricingModel: ledger.PricingSpot}, "1", "1.00"),
		day("6", "6.00"), day("6", "6.00"), day("20", "20.00"),
		pkg,
	}
	for i := range items {
		items[i].BillingPeriod = "2026-10"
	}
	testkit.ImportItems(t, db, "bills/union.csv", items)
	rep, err := GPUHours(context.Background(), db, GPUHourOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	type want struct{ hours, compute, double, doubleCost, used, usedPrice, real string }
	wants := map[string]want{
		"tencentcloud/RTX4090/on_demand": {"1", "3.00", "0", "0", "", "", "3"},
		"aliyun/A10/on_demand":           {"1", "4.00", "0", "0", "", "", "4"},
		"aliyun/A10/spot":                {"1", "1.00", "0", "0", "", "", "1"},
		"aliyun/T4/on_demand":            {"24", "32.00", "8", "8", "", "", "1.3333"},
		"autodl/A100/package":            {"168", "168.00", "0", "0", "10", "16.8", "1"},
	}
	if len(rep.Rows) != len(wants) {
		t.Errorf("got %d rows want %d", len(rep.Rows), len(wants))
	}
	for _, g := range rep.Rows {
		name := g.Provider + "/" + g.ModelKey + "/" + g.PricingModel
		w, ok := wants[name]
		if !ok {
			t.Errorf("unexpected row %s", name)
			continue
		}
		used, usedPrice := "", ""
		if g.UsedSeconds.Valid {
			used = secondsToHours(g.UsedSeconds.Decimal).String()
		}
		if g.UsedPrice.Valid {
			usedPrice = g.UsedPrice.Decimal.String()
		}
		for _, c := range []struct{ field, got, want string }{
			{"gpu hours", g.GPUHours().String(), w.hours},
			{"compute", g.ComputeCost.String(), w.compute},
			{"billed twice", secondsToHours(g.DoubleSeconds).String(), w.double},
			{"billed twice cost", g.DoubleCost.String(), w.doubleCost},
			{"used hours", used, w.used},
			{"price per hour used", usedPrice, w.usedPrice},
			{"real price", g.RealPrice.Decimal.String(), w.real},
		} {
			if !decEqualOrSame(c.got, c.want) {
				t.Errorf("%s %s: got %s want %s", name, c.field, c.got, c.want)
			}
		}
	}
}

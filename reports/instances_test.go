package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// instSample is the ledger behind the instances and refunds tests: one
// instance in every state, an instance that last ran in the month before,
// disks and images attached by parent, charges after a release date,
// rounding within and beyond the platforms' rules, an account-level credit
// and a USD provider.
type instSample struct {
	db    *ledger.DB
	items map[string][]ledger.LineItem // by resource id, in file order
}

func (s *instSample) ev(t *testing.T, resource string, idx ...int) []ledger.Evidence {
	t.Helper()
	var out []ledger.Evidence
	for _, i := range idx {
		li := s.items[resource][i]
		out = append(out, ledger.Evidence{LineItemID: li.ID, File: li.File, Row: li.SourceRow})
	}
	return out
}

func newInstSample(t *testing.T) *instSample {
	t.Helper()
	db := testkit.OpenLedger(t)
	s := &instSample{db: db, items: map[string][]ledger.LineItem{}}
	compute := func(provider, id, name, start, end, qty, price, billed string) ledger.LineItem {
		return ledger.LineItem{Provider: provider, BillingAccountID: "acct-" + provider,
			BillingPeriod: start[:7], ChargePeriodStart: bj(start), ChargePeriodEnd: bj(end),
			Kind: ledger.KindCompute, ResourceID: id, GPUModel: "RTX 4090",
			GPUCount: 1, PricingQuantity: nd(t, qty), PricingUnit: "hour",
			ListUnitPrice: nd(t, price), BilledCost: dec(t, billed), ResourceName: name}
	}
	daily := func(provider, id, parent, kind string, from, to int, billed string) []ledger.LineItem {
		var out []ledger.LineItem
		for d := from; d <= to; d++ {
			start := bj(fmt.Sprintf("2026-10-%02d 00:00", d))
			out = append(out, ledger.LineItem{Provider: provider,
				BillingAccountID: "acct-" + provider, BillingPeriod: "2026-10", ChargePeriodStart: start,
				ChargePeriodEnd: start.AddDate(0, 0, 1), Kind: kind, ResourceID: id,
				ParentResourceID: parent, BilledCost: dec(t, billed), ResourceName: id})
		}
		return out
	}
	a1 := compute("autodl", "a1", "train", "2026-10-03 14:00", "2026-10-03 15:00", "1", "1.88", "1.88")
	a1.UsageStart, a1.UsageEnd = bj("2026-10-03 14:00"), bj("2026-10-03 14:20")
	autodl := []ledger.LineItem{
		a1,
		compute("autodl", "a1", "train", "2026-10-05 09:00", "2026-10-05 10:00", "1", "1.88", "1.88"),
		compute("autodl", "a1", "train", "2026-10-05 09:00", "2026-10-05 10:00", "1", "1.88", "1.88"),
		compute("autodl", "a2", "eval", "2026-10-25 08:00", "2026-10-25 09:00", "1", "2", "2.00"),
		compute("autodl", "a3", "=cmd|' /C calc'!A0", "2026-10-31 22:00", "2026-10-31 23:00", "1", "1.88", "1.88"),
		compute("autodl", "a3", "=cmd|' /C calc'!A0", "2026-10-31 23:00", "2026-11-01 00:00", "1", "1.88", "1.88000001"),
		{Provider: "autodl", BillingAccountID: "acct-autodl",
			BillingPeriod: "2026-10", ChargeCategory: ledger.CategoryCredit,
			ChargePeriodStart: bj("2026-10-01 00:00"), ChargePeriodEnd: bj("2026-10-01 00:00"),
			Kind: ledger.KindCredit, BilledCost: dec(t, "-10.00"),
			Description: "代金券"},
	}
	autodl = append(autodl, daily("autodl", "a1-disk", "a1", ledger.KindStorage, 29, 31, "0.33")...)
	autodl = append(autodl, daily("autodl", "a2-disk", "a2", ledger.KindStorage, 25, 31, "0.10")...)
	autodl = append(autodl, daily("autodl", "a4-img", "a4", ledger.KindImage, 1, 3, "0.05")...)
	september := []ledger.LineItem{
		compute("autodl", "a4", "old-run", "2026-09-28 10:00", "2026-09-28 11:00", "1", "1.88", "1.88"),
	}
	g2 := compute("gpushare", "g2", "prep", "2026-10-01 08:00", "2026-10-01 09:00", "1", "2.50", "2.50")
	gpushare := []ledger.LineItem{
		compute("gpushare", "g1", "quick", "2026-10-10 10:00", "2026-10-10 11:00", "1", "2.20", "2.20"), g2,
	}
	gpushare = append(gpushare, daily("gpushare", "g2", "", ledger.KindSeat, 2, 31, "0.5")...)
	l1 := compute("lanrui", "l1", "sft", "2026-10-28 10:00", "2026-10-28 12:00", "2", "7.50", "15.00")
	l1.UsageStart, l1.UsageEnd = bj("2026-10-28 10:00"), bj("2026-10-28 11:05")
	lanrui := append([]ledger.LineItem{l1}, daily("lanrui", "l1-data", "l1", ledger.KindStorage, 28, 31, "0.48")...)
	m2 := compute("matpool", "m2", "sd", "2026-10-31 20:00", "2026-11-01 00:00", "4", "1.70", "6.80")
	pkg := compute("matpool", "m3", "weekly", "2026-10-16 10:00", "2026-10-23 10:00", "1", "399", "399.00")
	pkg.PricingModel, pkg.PricingUnit = ledger.PricingPackage, "week"
	matpool := []ledger.LineItem{
		compute("matpool", "m1", "once", "2026-10-05 10:00", "2026-10-05 11:00", "1", "1.70", "1.70"), m2, pkg,
	}
	aws := []ledger.LineItem{
		{Provider: "aws", BillingAccountID: "2109", BillingPeriod: "2026-10",
			ChargePeriodStart: bj("2026-10-05 08:00"), ChargePeriodEnd: bj("2026-10-05 09:00"),
			Kind: ledger.KindCompute, ResourceID: "i-0abc", GPUModel: "A100 80G",
			Currency: "USD", BilledCost: dec(t, "3.14159265358"), ResourceName: "gpu-box"},
		{Provider: "aws", BillingAccountID: "2109", BillingPeriod: "2026-10",
			ChargePeriodStart: bj("2026-10-31 00:00"), ChargePeriodEnd: bj("2026-11-01 00:00"),
			Kind: ledger.KindStorage, ResourceID: "vol-1", Currency: "USD",
			BilledCost: dec(t, "0.10000000001")},
	}
	for _, f := range []struct {
		path  string
		items []ledger.LineItem
	}{{"bills/autodl-2026-10.csv", autodl}, {"bills/autodl-2026-09.csv", september}, {"bills/gpushare.csv", gpushare},
		{"bills/揽睿星舟.csv", lanrui}, {"bills/matpool.xlsx", matpool}, {"bills/focus.csv", aws}} {
		for _, li := range testkit.ImportItems(t, db, f.path, f.items) {
			s.items[li.ResourceID] = append(s.items[li.ResourceID], li)
		}
	}
	return s
}

// saveInstFindings stores an audit of 2026-10 over the instances sample:
// one finding of every refundable rule and a few others, one acknowledged
// and one resolved.
func saveInstFindings(t *testing.T, s *instSample) {
	t.Helper()
	ctx := context.Background()
	f := func(fp, rule, sev, provider, res, amount string, ev []ledger.Evidence) ledger.Finding {
		start, end := time.Time{}, time.Time{}
		for _, e := range ev {
			for _, items := range s.items {
				for _, li := range items {
					if li.ID == e.LineItemID {
						if start.IsZero() || li.ChargePeriodStart.Before(start) {
							start = li.ChargePeriodStart
						}
						if li.ChargePeriodEnd.After(end) {
							end = li.ChargePeriodEnd
						}
					}
				}
			}
		}
		return ledger.Finding{Fingerprint: fp, RuleID: rule, Severity: sev, Provider: provider, ResourceID: res,
			PeriodStart: start, PeriodEnd: end, AmountAtRisk: nd(t, amount), Currency: "CNY",
			ReasonZH: rule, ReasonEN: rule, Evidence: ev}
	}
	fs := []ledger.Finding{
		f("fp-dup", "duplicate_charge", ledger.SeverityLow, "autodl", "a1", "1.88", s.ev(t, "a1", 1, 2)),
		f("fp-round-a1", "min_duration_rounding", ledger.SeverityLow, "autodl", "a1", "1.25333333", s.ev(t, "a1", 0)),
		f("fp-round-l1", "min_duration_rounding", ledger.SeverityMedium, "lanrui", "l1", "11.87500000", s.ev(t, "l1", 0)),
		f("fp-price", "price_deviation", ledger.SeverityLow, "gpushare", "g2", "0.30", s.ev(t, "g2", 0)),
		f("fp-overlap", "overlapping_charge", ledger.SeverityInfo, "autodl", "a3", "0.50", s.ev(t, "a3", 0, 1)),
		f("fp-stopped", "stopped_storage", ledger.SeverityMedium, "autodl", "a1-disk", "0.99", s.ev(t, "a1-disk", 0, 1, 2)),
		f("fp-egress", "egress", ledger.SeverityLow, "autodl", "", "", nil),
	}
	fs[6].AmountAtRisk = decimal.NullDecimal{}
	if _, err := s.db.SaveAudit(ctx, "2026-10", "Asia/Shanghai", "{}", fs); err != nil {
		t.Fatal(err)
	}
	if err := s.db.SetFindingState(ctx, "fp-price", "acknowledged"); err != nil {
		t.Fatal(err)
	}
	if err := s.db.SetFindingState(ctx, "fp-overlap", "resolved"); err != nil {
		t.Fatal(err)
	}
}

func TestInstancesGolden(t *testing.T) {
	s := newInstSample(t)
	saveInstFindings(t, s)
	rep, err := Instances(context.Background(), s.db, InstancesOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	for _, fc := range formatCases {
		t.Run(fc.name, func(t *testing.T) {
			got := render(t, rep, fc.opts)
			checkGolden(t, fc.name, got)
			if fc.opts.Format == FormatTSV || fc.opts.Format == FormatCSV || fc.opts.Format == FormatJSON {
				zh := fc.opts
				zh.Lang = "zh"
				if other := render(t, rep, zh); !bytes.Equal(other, got) {
					t.Errorf("%s output depends on the language", fc.opts.Format)
				}
			}
		})
	}
}

// TestInstancesStates checks each instance's state and deletion date
// independently of the golden files.
func TestInstancesStates(t *testing.T) {
	s := newInstSample(t)
	saveInstFindings(t, s)
	rep, err := Instances(context.Background(), s.db, InstancesOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]InstanceRow{}
	for _, r := range rep.Instances {
		got[r.Provider+"/"+r.ResourceID] = r
	}
	for _, tc := range []struct {
		name, key, state, deleteAt string // deleteAt "" = none
		findings                   int
		atRisk                     string // "" = unknown
	}{
		{"stopped, charged after its release date", "autodl/a1", StateStopped, "2026-10-20 10:00", 3, "4.12333333"},
		{"stopped, deletion ahead", "autodl/a2", StateStopped, "2026-11-09 09:00", 0, "0"},
		{"running to the end of the data", "autodl/a3", StateRunning, "", 0, "0"},
		{"last ran the month before, released", "autodl/a4", StateReleased, "2026-10-13 11:00", 0, "0"},
		{"nothing billed after, release passed", "gpushare/g1", StateReleased, "2026-10-20 11:00", 0, "0"},
		{"seat billed to the end", "gpushare/g2", StateStopped, "2026-10-11 09:00", 1, "0.30"},
		{"storage billed, no release rule", "lanrui/l1", StateStopped, "", 1, "11.875"},
		{"shut down, platform without release rule", "matpool/m1", StateUnknown, "", 0, "0"},
		{"expired package", "matpool/m3", StateUnknown, "", 0, "0"},
		{"running", "matpool/m2", StateRunning, "", 0, "0"},
		{"volume without instance, billed to the end", "aws/vol-1", StateStopped, "", 0, "0"},
		{"no policy", "aws/i-0abc", StateUnknown, "", 0, "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := got[tc.key]
			if !ok {
				t.Fatalf("no instance %s", tc.key)
			}
			if r.State != tc.state {
				t.Errorf("state: got %s want %s", r.State, tc.state)
			}
			del := ""
			if !r.DeleteAt.IsZero() {
				del = r.DeleteAt.In(ledger.DefaultTZ()).Format("2006-01-02 15:04")
			}
			if del != tc.deleteAt {
				t.Errorf("delete at: got %q want %q", del, tc.deleteAt)
			}
			if r.Findings != tc.findings {
				t.Errorf("findings: got %d want %d", r.Findings, tc.findings)
			}
			if want := nd(t, tc.atRisk); r.AtRisk.Valid != want.Valid || !r.AtRisk.Decimal.Equal(want.Decimal) {
				t.Errorf("at risk: got %v want %v", r.AtRisk, want)
			}
		})
	}
	if _, ok := got["autodl/"]; ok {
		t.Errorf("the account-level credit became an instance")
	}
	if _, ok := got["autodl/a1-disk"]; ok {
		t.Errorf("a disk with a parent instance became an instance of its own")
	}
	// most urgent deletion first: pending dates ascending, released ones after
	var order []string
	for _, r := range rep.Instances[:3] {
		order = append(order, r.ResourceID)
	}
	if fmt.Sprint(order) != "[g2 a1 a2]" {
		t.Errorf("first rows: got %v want [g2 a1 a2]", order)
	}
}

// TestInstancesTotalsExact: every total equals the exact sum of the line
// items of the month that belong to an instance, computed independently.
func TestInstancesTotalsExact(t *testing.T) {
	s := newInstSample(t)
	ctx := context.Background()
	rep, err := Instances(ctx, s.db, InstancesOptions{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	items, err := testkit.LineItems(ctx, s.db, ledger.Filter{Month: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*[3]decimal.Decimal{} // currency → compute, other, total
	for _, li := range items {
		if li.ResourceID == "" && li.ParentResourceID == "" {
			continue
		}
		w := want[li.Currency]
		if w == nil {
			w = &[3]decimal.Decimal{}
			want[li.Currency] = w
		}
		if li.Kind == ledger.KindCompute {
			w[0] = w[0].Add(li.BilledCost)
		} else {
			w[1] = w[1].Add(li.BilledCost)
		}
		w[2] = w[2].Add(li.BilledCost)
	}
	if len(rep.Totals) != len(want) {
		t.Fatalf("totals: got %d currencies want %d", len(rep.Totals), len(want))
	}
	for _, tot := range rep.Totals {
		w := want[tot.Currency]
		for i, got := range []decimal.Decimal{tot.ComputeCost, tot.OtherCost, tot.TotalCost} {
			if !got.Equal(w[i]) {
				t.Errorf("%s total %d: got %s want %s", tot.Currency, i, got, w[i])
			}
		}
		rows := decimal.Zero
		for _, r := range rep.Instances {
			if r.Currency == tot.Currency {
				rows = rows.Add(r.TotalCost)
			}
		}
		if !rows.Equal(tot.TotalCost) {
			t.Errorf("%s: rows add up to %s, total %s", tot.Currency, rows, tot.TotalCost)
		}
	}
	// exact digits survive into JSON
	var doc struct {
		Totals []struct {
			Currency  string `json:"currency"`
			TotalCost string `json:"total_cost"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(render(t, rep, WriteOptions{Format: FormatJSON}), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tot := range doc.Totals {
		if tot.Currency == "USD" && tot.TotalCost != "3.24159265359" {
			t.Errorf("USD total_cost: got %s want 3.24159265359", tot.TotalCost)
		}
	}
}

func TestInstancesNeedsMonth(t *testing.T) {
	db := testkit.OpenLedger(t)
	for _, tc := range []struct{ name, month string }{{"empty", ""}, {"malformed", "2026-13"}} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Instances(context.Background(), db, InstancesOptions{Month: tc.month}); err == nil {
				t.Errorf("month %q: got no error", tc.month)
			}
		})
	}
}

// TestInstancesIndependentOfStorageOrder: the instances report reads the
// month in no particular order, so the same line items stored in reverse
// give the same report. Names: the name on the compute that ended last
// (of those with one), else the name on the instance's own first other
// charge; a component belongs to the instance its latest charge names.
func TestInstancesIndependentOfStorageOrder(t *testing.T) {
	hour := func(res, name, start string, hours int, cost string) ledger.LineItem {
		s := bj(start)
		return ledger.LineItem{Provider: "autodl", BillingPeriod: "2026-10",
			ChargePeriodStart: s, ChargePeriodEnd: s.Add(time.Duration(hours) * time.Hour),
			Kind: ledger.KindCompute, ResourceID: res, GPUModel: "RTX 4090",
			BilledCost: dec(t, cost), ResourceName: name}
	}
	disk := func(res, parent, name, start, cost string) ledger.LineItem {
		s := bj(start)
		return ledger.LineItem{Provider: "autodl", BillingPeriod: "2026-10",
			ChargePeriodStart: s, ChargePeriodEnd: s.Add(24 * time.Hour), Kind: ledger.KindStorage,
			ResourceID: res, ParentResourceID: parent, BilledCost: dec(t, cost),
			ResourceName: name}
	}
	items := []ledger.LineItem{
		hour("i-1", "old-name", "2026-10-02 08:00", 1, "1.88"),
		hour("i-1", "", "2026-10-03 08:00", 5, "9.40"),         // ends last, no name
		hour("i-1", "new-name", "2026-10-03 09:00", 2, "3.76"), // the named compute that ends last
		hour("i-2", "", "2026-10-04 08:00", 1, "1.88"),         // no named compute:
		disk("i-2", "", "", "2026-10-01 00:00", "0.10"),
		disk("i-2", "", "disk-name-first", "2026-10-02 00:00", "0.10"), // its own first named other charge
		disk("i-2", "", "disk-name-later", "2026-10-05 00:00", "0.10"),
		disk("d-9", "i-1", "", "2026-10-02 00:00", "0.20"), // a component that moved:
		disk("d-9", "i-2", "", "2026-10-06 00:00", "0.20"), // its latest charge names i-2
	}
	for i := range items {
		items[i].RowKey, items[i].SourceRow = fmt.Sprintf("k%d", i), i+1
	}
	report := func(items []ledger.LineItem) []InstanceRow {
		db := testkit.OpenLedger(t)
		testkit.ImportItems(t, db, "bill.csv", items)
		rep, err := Instances(context.Background(), db, InstancesOptions{Month: "2026-10"})
		if err != nil {
			t.Fatal(err)
		}
		return rep.Instances
	}
	forward := report(items)
	back := slices.Clone(items)
	slices.Reverse(back)
	reversed := report(back)
	if !reflect.DeepEqual(forward, reversed) {
		t.Errorf("stored in reverse, the report differs:\nforward  %+v\nreversed %+v", forward, reversed)
	}
	names := map[string]string{}
	for _, r := range forward {
		names[r.ResourceID] = r.ResourceName
	}
	if names["i-1"] != "new-name" || names["i-2"] != "disk-name-first" {
		t.Errorf("names: %v; want i-1 new-name (the named compute that ended last), i-2 disk-name-first", names)
	}
}

package reports

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/money"
)

// instRefSet is the pass loadInstances made before its narrow scan: every
// line item built whole (ledger.EachLineItem) and gathered on one
// goroutine. scanInstances must gather the same.
func instRefSet(t *testing.T, db *ledger.DB, month string) *instanceSet {
	t.Helper()
	s := &instanceSet{month: month, byKey: map[instKey]*instance{}, items: map[int64]*ledger.LineItem{},
		comp: map[instKey]instKey{}, dataEnd: map[string]time.Time{}}
	compAt := map[instKey]rank{}
	err := db.EachLineItem(context.Background(), ledger.Filter{Month: month}, ledger.Read{NoRaw: true}, func(full *ledger.LineItem) error {
		li := full
		if li.ChargePeriodEnd.After(s.dataEnd[li.Provider]) {
			s.dataEnd[li.Provider] = li.ChargePeriodEnd
		}
		id := instOwnerID(li)
		if id == "" {
			return nil
		}
		k := instKey{li.Provider, id}
		in := s.byKey[k]
		if in == nil {
			in = &instance{key: k, pricing: map[string]bool{}}
			s.byKey[k] = in
			s.order = append(s.order, in)
		}
		var billed money.Sum
		billed.Add(li.BilledCost)
		in.sum(li.Currency).add(li.Kind, &billed)
		s.owner = append(s.owner, instOwner{li.ID, in})
		if li.ResourceID != "" && li.ResourceID != id {
			ck := instKey{li.Provider, li.ResourceID}
			if at, ok := compAt[ck]; !ok || at.before(li.ChargePeriodStart, li.ID) {
				s.comp[ck] = k
				compAt[ck] = rank{li.ChargePeriodStart, li.ID}
			}
		}
		if instPositiveUsage(li) && li.ChargePeriodEnd.After(in.lastCharge) {
			in.lastCharge = li.ChargePeriodEnd
		}
		if billing.IsRunning(li) {
			start, end := billing.ActiveSpan(li)
			if in.firstStart.IsZero() || start.Before(in.firstStart) {
				in.firstStart = start
			}
			in.seeCompute(li.ID, li.GPUModel, full.ResourceName, end)
			in.pricing[li.PricingModel] = true
		} else if full.ResourceName != "" && li.ResourceID == id {
			in.otherName.keep(full.ResourceName, li.ChargePeriodStart, li.ID, false)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// instEdgeLedger is a month of line items drawn at random among the cases
// loadInstances tells apart, and a month before it in which some of its
// instances last ran: compute and other charges by their own id, by a
// parent (components that move between instances, and a component whose id
// is its parent's), without any id; two currencies; credits, taxes and
// adjustments; zero and negative amounts; names on some charges only;
// usage times and billed quantities that cut the active span; ties of
// time between line items.
func instEdgeLedger(t *testing.T, n int) *ledger.DB {
	t.Helper()
	db := testkit.OpenLedger(t)
	rng := rand.New(rand.NewPCG(7, 8))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	month := func(period string, base time.Time, n int) []ledger.LineItem {
		var items []ledger.LineItem
		for i := range n {
			start := base.Add(time.Duration(rng.IntN(40)) * time.Hour) // ties on purpose
			li := ledger.LineItem{Provider: pick("autodl", "aliyun"),
				BillingPeriod: period, ChargePeriodStart: start,
				ChargePeriodEnd: start.Add(time.Duration(rng.IntN(3)) * time.Hour),
				Currency:        pick("CNY", "CNY", "USD"),
				BilledCost:      dec(t, pick("1.00", "0", "-0.50", "2.5", "0.01", "123456789.12345678901")),
				ChargeCategory: pick(ledger.CategoryUsage, ledger.CategoryUsage, ledger.CategoryPurchase, ledger.CategoryCredit,
					ledger.CategoryTax, ledger.CategoryAdjustment),
				PricingModel: pick("on_demand", "reserved", "vendor_x"), GPUModel: pick("RTX 4090", "A100", ""),
				ResourceName: pick("", "", "train", "eval", "big")}
			if rng.IntN(12) > 0 {
				li.ResourceID = fmt.Sprintf("i-%d", rng.IntN(20))
			}
			if rng.IntN(3) == 0 {
				li.Kind = ledger.KindCompute
				if period == "2026-10" && li.ResourceID >= "i-15" {
					li.ResourceID = "i-1" // i-15 … i-19 last ran in the month before
				}
				if rng.IntN(3) == 0 {
					li.ParentResourceID = "p-ignored" // compute belongs to its own id
				}
			} else {
				li.Kind = pick(ledger.KindStorage, ledger.KindImage, ledger.KindNetwork, ledger.KindCredit)
				switch rng.IntN(4) {
				case 0:
					li.ResourceID = fmt.Sprintf("d-%d", rng.IntN(6))
					li.ParentResourceID = fmt.Sprintf("i-%d", rng.IntN(20)) // moves between instances
				case 1:
					li.ParentResourceID = li.ResourceID // a component named as its parent
				}
			}
			switch rng.IntN(5) {
			case 0:
				li.UsageStart, li.UsageEnd = start.Add(10*time.Minute), start.Add(40*time.Minute)
			case 1:
				li.UsageEnd = start.Add(-time.Hour) // before its start
			case 2:
				li.PricingQuantity, li.PricingUnit = nd(t, pick("0.5", "1", "3", "0")), pick("hour", "minute", "GB")
			}
			li.RowKey = fmt.Sprintf("%s#%d", period, i)
			items = append(items, li)
		}
		// Instances that run up to the end of the data, in both providers.
		end := base.Add(45 * time.Hour)
		for i, prov := range []string{"autodl", "aliyun", "autodl", "aliyun"} {
			items = append(items, ledger.LineItem{Provider: prov, BillingPeriod: period,
				ChargePeriodStart: end.Add(-time.Hour), ChargePeriodEnd: end, Kind: ledger.KindCompute,
				ResourceID: fmt.Sprintf("i-%d", i), BilledCost: dec(t, "1.5"), Currency: "CNY",
				RowKey: fmt.Sprintf("%s#late%d", period, i), ResourceName: "late"})
		}
		return items
	}
	testkit.ImportItems(t, db, "september.csv", month("2026-09", bj("2026-09-10 00:00"), n/4))
	testkit.ImportItems(t, db, "october.csv", month("2026-10", bj("2026-10-10 00:00"), n))
	return db
}

// saveEdgeFindings stores findings of 2026-10 on the line items of
// instEdgeLedger, and returns the ids of the month's line items. Their
// evidence cites line items of the month (of an instance or of none), of the
// month before and one that is gone; their amounts at risk are the billed
// cost of their line items, a part of it, or unknown; they overlap, and one
// is resolved.
func saveEdgeFindings(t *testing.T, db *ledger.DB) map[int64]bool {
	t.Helper()
	ctx := context.Background()
	var month, before []*ledger.LineItem
	if err := db.EachLineItem(ctx, ledger.Filter{}, ledger.Read{NoRaw: true}, func(li *ledger.LineItem) error {
		if li.BillingPeriod == "2026-10" {
			month = append(month, li)
		} else {
			before = append(before, li)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	rules := []string{"duplicate_charge", "stopped_storage", "forgotten_instance", "egress"}
	sevs := []string{ledger.SeverityHigh, ledger.SeverityMedium, ledger.SeverityLow, ledger.SeverityInfo}
	var fs []ledger.Finding
	for i := range 40 {
		f := ledger.Finding{Fingerprint: fmt.Sprintf("fp-%d", i), RuleID: rules[i%len(rules)], Severity: sevs[rng.IntN(len(sevs))],
			Provider: "autodl", ResourceID: fmt.Sprintf("i-%d", rng.IntN(20)), Currency: "CNY",
			PeriodStart: bj("2026-10-10 00:00"), PeriodEnd: bj("2026-10-11 00:00"), ReasonZH: "z", ReasonEN: "e"}
		var billed money.Sum
		for range 1 + rng.IntN(12) {
			li := month[rng.IntN(min(len(month), 200))] // overlapping on purpose
			if rng.IntN(6) == 0 {
				li = before[rng.IntN(len(before))]
			}
			billed.Add(li.BilledCost)
			f.Evidence = append(f.Evidence, ledger.Evidence{LineItemID: li.ID, File: li.File, Row: li.SourceRow})
		}
		switch rng.IntN(4) {
		case 0, 1:
			f.AmountAtRisk = decimal.NullDecimal{Decimal: billed.Decimal(), Valid: true}
		case 2:
			f.AmountAtRisk = decimal.NullDecimal{Decimal: decimal.RequireFromString("0.01"), Valid: true}
		}
		if i == 7 {
			f.Evidence = append(f.Evidence, ledger.Evidence{LineItemID: month[len(month)-1].ID + 999, File: "gone.csv", Row: 1})
		}
		fs = append(fs, f)
	}
	if _, err := db.SaveAudit(ctx, "2026-10", "Asia/Shanghai", "{}", fs); err != nil {
		t.Fatal(err)
	}
	if err := db.SetFindingState(ctx, "fp-3", "resolved"); err != nil {
		t.Fatal(err)
	}
	ids := map[int64]bool{}
	for _, li := range month {
		ids[li.ID] = true
	}
	return ids
}

// instSetText is what loadInstances found, exactly, instance by instance.
func instSetText(s *instanceSet) string {
	var b strings.Builder
	for _, in := range s.order {
		fmt.Fprintf(&b, "%s/%s ran=%v last=%d@%s first=%s charge=%s name=%q gpu=%q pricing=%v state=%s release=%s",
			in.key.provider, in.key.id, in.ran, in.lastID, in.lastEnd, in.firstStart, in.lastCharge, in.name, in.gpu,
			in.pricing, in.state, in.releaseAt)
		sums := slices.Clone(in.sums)
		slices.SortFunc(sums, func(a, b instSum) int { return strings.Compare(a.currency, b.currency) })
		for _, x := range sums {
			fmt.Fprintf(&b, " %s:%d:%s:%s:%s", x.currency, x.items, money.String(x.compute.Decimal()),
				money.String(x.other.Decimal()), money.String(x.total.Decimal()))
		}
		b.WriteByte('\n')
	}
	for _, o := range s.owner {
		fmt.Fprintf(&b, "%d→%s/%s ", o.id, o.in.key.provider, o.in.key.id)
	}
	comps := make([]string, 0, len(s.comp))
	for ck, k := range s.comp {
		comps = append(comps, fmt.Sprintf("%s/%s→%s", ck.provider, ck.id, k.id))
	}
	slices.Sort(comps)
	fmt.Fprintf(&b, "\ncomponents %v\ndata ends %v\n", comps, s.dataEnd)
	return b.String()
}

// TestInstancesScanMatchesItems: the narrow scan, whole or split into
// parts merged afterwards, finds the instances that gathering whole line
// items found (each range's owners in chunks of 7), and the report is the
// same.
func TestInstancesScanMatchesItems(t *testing.T) {
	defer func(n int) { ownerChunk = n }(ownerChunk)
	ownerChunk = 7 // a range's owners in many chunks
	db := instEdgeLedger(t, 3000)
	ctx := context.Background()
	opts := InstancesOptions{Month: "2026-10", TZ: ledger.DefaultTZ()}
	monthIDs := saveEdgeFindings(t, db)
	ref := instRefSet(t, db, "2026-10")
	slices.SortFunc(ref.owner, func(a, b instOwner) int { return int(a.id - b.id) })
	if err := ref.finish(ctx, db, opts.TZ, nil); err != nil {
		t.Fatal(err)
	}
	want := instSetText(ref)
	states := map[string]int{}
	looked := 0
	for _, in := range ref.order {
		states[in.state]++
		if in.ran && in.firstStart.IsZero() {
			looked++ // its last compute is of the month before
		}
	}
	if len(ref.order) < 20 || len(ref.comp) == 0 || looked == 0 || states[StateRunning] == 0 || states[StateStopped] == 0 {
		t.Fatalf("the fixture gave %d instances, %d components, %d looked back, states %v: want more",
			len(ref.order), len(ref.comp), looked, states)
	}
	fs, err := db.Findings(ctx, "2026-10") // the billed costs of the evidence looked up by id
	if err != nil {
		t.Fatal(err)
	}
	fs = slices.DeleteFunc(fs, func(f ledger.Finding) bool { return f.State == "resolved" })
	wantRep := ref.report(opts, fs)
	wantJSON := string(render(t, wantRep, WriteOptions{Format: FormatJSON}))
	atRisk := 0
	for _, r := range wantRep.Instances {
		if r.AtRisk.Valid && !r.AtRisk.Decimal.IsZero() {
			atRisk++
		}
	}
	if atRisk < 5 {
		t.Fatalf("the fixture's findings put money at risk on %d instances: want more", atRisk)
	}

	wantIDs := evidenceIDs(fs)
	costsOf := slices.Sorted(maps.Keys(wantIDs))
	var wanted wantedCosts
	wanted.Store(&wantIDs)
	got, err := loadInstances(ctx, db, "2026-10", opts.TZ, nil, &wanted)
	if err != nil {
		t.Fatal(err)
	}
	costs, err := db.BilledCosts(ctx, costsOf)
	if err != nil {
		t.Fatal(err)
	}
	inMonth := 0
	for i, id := range costsOf {
		c, ok := got.costs[id]
		if ok != (got.ownerOf(id) != nil || monthIDs[id]) || ok && (c.Valid != costs[i].Valid || c.Decimal.String() != costs[i].Decimal.String()) {
			t.Errorf("line item %d: the scan's billed cost %v (%v), looked up %v", id, c, ok, costs[i])
		}
		if ok {
			inMonth++
		}
	}
	if inMonth == 0 || inMonth == len(costsOf) {
		t.Errorf("the scan read %d of the %d evidence line items' costs: want some of them", inMonth, len(costsOf))
	}
	if text := instSetText(got); text != want {
		t.Errorf("scanInstances differs from gathering whole items:\n got %s\nwant %s", text, want)
	}
	rep, err := Instances(ctx, db, opts)
	if err != nil {
		t.Fatal(err)
	}
	if j := string(render(t, rep, WriteOptions{Format: FormatJSON})); j != wantJSON {
		t.Errorf("the report differs:\n got %s\nwant %s", j, wantJSON)
	}
	scan := func(where string, args ...any) *instScan {
		p := newInstScan(&wanted)
		err := db.Scan(ctx, "SELECT "+selectList(instCols)+" FROM line_items li WHERE li.billing_period = '2026-10'"+where, args, itemRows(t, instCols, p.add))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Every order: the pass skips rows by what it has seen (outranked), which
	// must not depend on it; by time then id brings ties of time last.
	for i, split := range []int{2, 3, 7, 1, 2, 3} {
		order := [...]string{" ORDER BY li.id", " ORDER BY li.id DESC", " ORDER BY li.charge_period_end, li.id"}[i%3]
		s := &instanceSet{month: "2026-10", byKey: map[instKey]*instance{}, items: map[int64]*ledger.LineItem{},
			comp: map[instKey]instKey{}, dataEnd: map[string]time.Time{}, costs: map[int64]decimal.NullDecimal{}}
		compAt := map[instKey]rank{}
		for k := range split {
			s.merge(scan(" AND li.id % ? = ?"+order, split, k), compAt)
		}
		slices.SortFunc(s.owner, func(a, b instOwner) int { return int(a.id - b.id) })
		if err := s.finish(ctx, db, opts.TZ, nil); err != nil {
			t.Fatal(err)
		}
		if text := instSetText(s); text != want {
			t.Errorf("split in %d,%s: the merged scan differs:\n got %s\nwant %s", split, order, text, want)
		}
		if g, w := fmt.Sprint(s.costs), fmt.Sprint(got.costs); g != w {
			t.Errorf("split in %d: the merged costs differ:\n got %s\nwant %s", split, g, w)
		}
	}

	// The wanted line items known only once part of the month is read (the
	// findings are read alongside): the costs of the rows read before are
	// looked up, and the evidence gets the same costs.
	late := &instanceSet{costs: map[int64]decimal.NullDecimal{}, byKey: map[instKey]*instance{}, comp: map[instKey]instKey{},
		dataEnd: map[string]time.Time{}}
	var lateWant wantedCosts
	p := newInstScan(&lateWant)
	rows := 0
	add := itemRows(t, instCols, p.add)
	err = db.Scan(ctx, "SELECT "+selectList(instCols)+" FROM line_items li WHERE li.billing_period = '2026-10'", nil, func(r ledger.Row) error {
		if rows++; rows == 1000 {
			lateWant.Store(&wantIDs)
		}
		return add(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	late.merge(p, map[instKey]rank{})
	if len(late.costs) == 0 || len(late.costs) == len(got.costs) {
		t.Fatalf("a scan wanting costs from its 1000th row on kept %d of %d: want some", len(late.costs), len(got.costs))
	}
	lateFs, err := db.FindingsWithoutCosts(ctx, "2026-10")
	if err != nil {
		t.Fatal(err)
	}
	lateFs = slices.DeleteFunc(lateFs, func(f ledger.Finding) bool { return f.State == "resolved" })
	if err := db.AddEvidenceCosts(ctx, lateFs, late.costs); err != nil {
		t.Fatal(err)
	}
	if g, w := fmt.Sprint(lateFs), fmt.Sprint(fs); g != w {
		t.Errorf("findings with costs read late:\n got %.1000s\nwant %.1000s", g, w)
	}
}

// TestInstancesScanDescending: read from the highest id down, whole or in
// ranges, the pass gives each instance its currencies in the order an
// ascending read gave them (by the first id of each), and the rows it skips
// (outranked) are most of the running ones yet change nothing
// (TestInstancesScanMatchesItems compares the rest with whole line items).
func TestInstancesScanDescending(t *testing.T) {
	db := instEdgeLedger(t, 3000)
	ctx := context.Background()
	// The currencies of each instance by the first id of each.
	want := map[instKey][]string{}
	err := db.EachLineItem(ctx, ledger.Filter{Month: "2026-10"}, ledger.Read{NoRaw: true, Order: ledger.AnyOrder}, func(full *ledger.LineItem) error {
		li := full
		if id := instOwnerID(li); id != "" {
			k := instKey{li.Provider, id}
			if !slices.Contains(want[k], li.Currency) {
				want[k] = append(want[k], li.Currency)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mixed := 0
	for _, cs := range want {
		if len(cs) > 1 {
			mixed++
		}
	}
	if mixed < 5 {
		t.Fatalf("the fixture has %d instances of more than one currency: want more", mixed)
	}
	check := func(name string, s *instanceSet) {
		t.Helper()
		for _, in := range s.order {
			var got []string
			for _, x := range in.sums {
				got = append(got, x.currency)
			}
			if !slices.Equal(got, want[in.key]) {
				t.Errorf("%s: %v: currencies %v, want %v", name, in.key, got, want[in.key])
			}
		}
	}
	s, err := scanInstances(ctx, db, "2026-10", nil)
	if err != nil {
		t.Fatal(err)
	}
	check("scanInstances", s)
	for _, split := range []int{2, 5} {
		s := &instanceSet{month: "2026-10", byKey: map[instKey]*instance{}, comp: map[instKey]instKey{},
			dataEnd: map[string]time.Time{}, costs: map[int64]decimal.NullDecimal{}}
		compAt := map[instKey]rank{}
		rows, skipped := 0, 0
		for k := range split {
			p := newInstScan(nil)
			q := "SELECT " + selectList(instCols) + " FROM line_items li WHERE li.billing_period = '2026-10' AND li.id % ? = ? ORDER BY li.id DESC"
			add := itemRows(t, instCols, p.add)
			err := db.Scan(ctx, q, []any{split, k}, func(r ledger.Row) error {
				rows++
				return add(r)
			})
			if err != nil {
				t.Fatal(err)
			}
			skipped += p.skipped
			s.merge(p, compAt)
		}
		for _, in := range s.order {
			in.sortSums()
		}
		check(fmt.Sprintf("split in %d", split), s)
		if skipped*30 < rows { // the fixture's ids do not rise with time: fewer than a real month
			t.Errorf("split in %d: %d of %d rows outranked: want more", split, skipped, rows)
		}
	}
}

// TestInstancesScanOutrankedTies: a running row whose span ends when the
// instance's last compute ends, with a larger id, becomes its last compute
// (seeCompute's tie) whatever order the rows come in; a row that ends
// before it is skipped, and one with usage times is not.
func TestInstancesScanOutrankedTies(t *testing.T) {
	db := testkit.OpenLedger(t)
	start := bj("2026-10-10 00:00")
	item := func(key string, end time.Time, gpu string) ledger.LineItem {
		return ledger.LineItem{Provider: "autodl", BillingPeriod: "2026-10",
			Kind: ledger.KindCompute, ResourceID: "i-1",
			ChargeCategory: ledger.CategoryUsage, ChargePeriodStart: start, ChargePeriodEnd: end,
			BilledCost: dec(t, "1"), Currency: "CNY", GPUModel: gpu,
			RowKey: key}
	}
	early := item("c", start.Add(time.Hour), "early")
	used := item("d", start.Add(time.Hour), "used")
	used.UsageStart, used.UsageEnd = start, start.Add(3*time.Hour)
	testkit.ImportItems(t, db, "october.csv", []ledger.LineItem{item("a", start.Add(2*time.Hour), "first"),
		item("b", start.Add(2*time.Hour), "tie"), early, used})
	for _, order := range []string{"", " DESC"} {
		p := newInstScan(nil)
		err := db.Scan(context.Background(), "SELECT "+selectList(instCols)+" FROM line_items li ORDER BY li.charge_period_end"+order+", li.id",
			nil, itemRows(t, instCols, p.add))
		if err != nil {
			t.Fatal(err)
		}
		in := p.order[0]
		if in.gpu != "used" || !in.lastEnd.Equal(start.Add(3*time.Hour)) {
			t.Errorf("order%s: last compute %q ending %s, want the one with usage times", order, in.gpu, in.lastEnd)
		}
	}
	// Without the row with usage times: the tie goes to the larger id.
	db2 := testkit.OpenLedger(t)
	testkit.ImportItems(t, db2, "october.csv", []ledger.LineItem{item("a", start.Add(2*time.Hour), "first"),
		item("b", start.Add(2*time.Hour), "tie"), early})
	for _, order := range []string{"", " DESC"} {
		p := newInstScan(nil)
		err := db2.Scan(context.Background(), "SELECT "+selectList(instCols)+" FROM line_items li ORDER BY li.id"+order, nil, itemRows(t, instCols, p.add))
		if err != nil {
			t.Fatal(err)
		}
		if in := p.order[0]; in.gpu != "tie" {
			t.Errorf("id order%s: last compute %q, want the tie's larger id", order, in.gpu)
		}
		// Ascending, the early row comes after the others and is skipped.
		if want := map[string]int{"": 1, " DESC": 0}[order]; p.skipped != want {
			t.Errorf("id order%s: %d rows skipped, want %d", order, p.skipped, want)
		}
	}
}

// instOwnerID is the instance a line item belongs to ("" = none).
func instOwnerID(li *ledger.LineItem) string {
	if li.Kind != ledger.KindCompute && li.ParentResourceID != "" {
		return li.ParentResourceID
	}
	return li.ResourceID
}

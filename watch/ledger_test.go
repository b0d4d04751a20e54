package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/ingest"
)

const billHeader = "provider,account,project,resource_id,resource_name,parent_resource_id,kind,pricing_model,gpu_model,gpu_count,start,end,usage_start,usage_end,billed_quantity,unit,unit_price,list_cost,billed_cost,voucher_paid,cash_paid,description,currency"

// importCSV imports a gpubill template file of the given rows, as a user
// importing (or fetching) a little more every day does.
func (r *rig) importCSV(header string, rows ...string) {
	r.t.Helper()
	path := filepath.Join(r.t.TempDir(), "bill.csv")
	if err := os.WriteFile(path, []byte(header+"\n"+strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		r.t.Fatal(err)
	}
	if _, err := ingest.ImportFile(context.Background(), r.db, path, ingest.Options{}); err != nil {
		r.t.Fatal(err)
	}
}

// ledgerRequest polls no instance API: the ledger's alerts only.
func (r *rig) ledgerRequest(j func(*Judge)) Request {
	req := r.request()
	req.Accounts = nil
	j(&req.Judge)
	return req
}

func (r *rig) pollLedger(at time.Time, j func(*Judge)) Outcome {
	r.t.Helper()
	r.clk.set(at)
	out, err := Run(context.Background(), r.db, r.ledgerRequest(j))
	if err != nil {
		r.t.Fatal(err)
	}
	if len(out.SendErrors) > 0 {
		r.t.Fatalf("send: %v", out.SendErrors)
	}
	return out
}

// day is a day of storage (00:00 to the next 00:00) of disk, serving inst.
func storageDay(provider, disk, inst string, day int, cost string) string {
	return fmt.Sprintf("%s,main,,%s,,%s,storage,on_demand,,,2026-11-%02d 00:00:00,2026-11-%02d 00:00:00,,,1,day,%s,%s,%s,0,%s,,CNY",
		provider, disk, inst, day, day+1, cost, cost, cost, cost)
}

// An AutoDL instance (no instance API) ran on Nov 1 until 10:00 and was
// shut down; its data disk bills ¥0.50 a day. Imported day by day: nothing
// while it is stopped 2 days, one alert at 3 days with the money so far and
// a 30-day projection, nothing on re-runs, one escalation at 7 days, and
// the alert clears once the disk stops billing (deleted) while the bills
// go on.
func TestStorageOfStoppedInstanceAlertsAtThreeDays(t *testing.T) {
	r := newRig(t, at(3, 12, 0), nil, nil)
	judge := func(j *Judge) { j.IdleStorageDays = 3 }
	r.importCSV(billHeader,
		"autodl,main,,ad-4090,train,,compute,on_demand,RTX 4090,1,2026-11-01 08:00:00,2026-11-01 10:00:00,,,2,hour,1.98,3.96,3.96,0,3.96,,CNY",
		storageDay("autodl", "disk-50g", "ad-4090", 1, "0.5"), storageDay("autodl", "disk-50g", "ad-4090", 2, "0.5"))
	if out := r.pollLedger(at(3, 12, 0), judge); len(out.Sent) != 0 {
		t.Fatalf("stopped 2 days: %+v", out.Sent)
	}
	r.importCSV(billHeader, storageDay("autodl", "disk-50g", "ad-4090", 3, "0.5"), storageDay("autodl", "disk-50g", "ad-4090", 4, "0.5"))
	out := r.pollLedger(at(5, 9, 0), judge)
	if len(out.Sent) != 1 {
		t.Fatalf("stopped 3 days: sent %+v", out.Sent)
	}
	a := out.Sent[0]
	// Lines from Nov 2 00:00 (after the last compute, Nov 1 10:00) to Nov 5: ¥1.50 over 3 days, ¥0.50 a day.
	if a.Kind != KindIdleStorage || a.Event != EventNew || a.Severity != "low" || a.InstanceID != "ad-4090" ||
		a.AmountSoFar != "1.50" || a.Projection != "16.50" || !a.Since.Equal(at(1, 10, 0)) || a.SinceSource != "bill" {
		t.Errorf("alert: %+v", a)
	}
	if !strings.Contains(a.MessageEN, "AutoDL instance ad-4090 is stopped or gone for 3 days (since 11-01 10:00), and its storage still bill: ¥1.50 so far, about ¥16.50 after 30 more days") ||
		!strings.Contains(a.SourceDelay, "bill lines to 11-05 00:00 (9 h old, as of their last import)") {
		t.Errorf("message %q, delay %q", a.MessageEN, a.SourceDelay)
	}
	if out := r.pollLedger(at(5, 14, 0), judge); len(out.Sent) != 0 || len(out.Open) != 1 {
		t.Errorf("re-run: sent %v, open %d", out.Sent, len(out.Open))
	}
	for d := 5; d <= 8; d++ {
		r.importCSV(billHeader, storageDay("autodl", "disk-50g", "ad-4090", d, "0.5"))
	}
	out = r.pollLedger(at(9, 9, 0), judge)
	if len(out.Sent) != 1 || out.Sent[0].Event != EventEscalated || out.Sent[0].Severity != "medium" || out.Sent[0].AmountSoFar != "3.50" {
		t.Fatalf("7 days: %+v", out.Sent)
	}
	// The disk deleted on Nov 9; the account's other instance bills on.
	r.importCSV(billHeader, "autodl,main,,ad-3090,,,compute,on_demand,RTX 3090,1,2026-11-12 08:00:00,2026-11-12 10:00:00,,,2,hour,1.3,2.6,2.6,0,2.6,,CNY")
	out = r.pollLedger(at(12, 11, 0), judge)
	if len(out.Cleared) != 1 || !strings.HasPrefix(out.Cleared[0], "idle_storage|autodl|main|ad-4090|CNY|") || len(out.Sent) != 0 {
		t.Errorf("deleted: cleared %v, sent %v", out.Cleared, out.Sent)
	}
	if n := len(r.sink.Messages()); n != 6 { // two alerts, three robots
		t.Errorf("sink got %d messages, want 6", n)
	}
}

// Storage of a disk whose instance never shows compute and is named by no
// line (an account's network disk) is no alert; an image of a released
// instance (named as parent, no compute in the ledger) is, as "at least".
func TestStorageOfAGoneInstance(t *testing.T) {
	r := newRig(t, at(10, 12, 0), nil, nil)
	judge := func(j *Judge) { j.IdleStorageDays = 3 }
	var rows []string
	for d := 1; d <= 9; d++ {
		rows = append(rows, storageDay("autodl", "netdisk", "", d, "0.2"),
			strings.Replace(storageDay("autodl", "img-1", "ad-gone", d, "0.1"), ",storage,", ",image,", 1))
	}
	r.importCSV(billHeader, rows...)
	out := r.pollLedger(at(10, 12, 0), judge)
	if len(out.Sent) != 1 || out.Sent[0].InstanceID != "ad-gone" || out.Sent[0].SinceKnown || out.Sent[0].Severity != "medium" ||
		!strings.Contains(out.Sent[0].MessageEN, "without compute in the bills read (gone, or stopped earlier) for at least 9 days") ||
		!strings.Contains(out.Sent[0].MessageEN, "its image still bill: ¥0.90 so far") {
		t.Errorf("sent %+v", out.Sent)
	}
}

const flowHeader = "provider,account,time,type,amount,balance,reference,description"

func computeDay(day int, cost string) string {
	return fmt.Sprintf("autodl,main,,ad-4090,,,compute,on_demand,RTX 4090,1,2026-11-%02d 00:00:00,2026-11-%02d 00:00:00,,,24,hour,1.25,%s,%s,0,%s,,CNY",
		day, day+1, cost, cost, cost)
}

// A balance of ¥130 in the money flow at Nov 10, bills of ¥30 a day
// fetched later: the balance is the flow's less the bills since, the
// runway at the month's rate. Below 3 days: one alert with the date it
// runs out and the month's-end balance; less than a day: one escalation;
// a top-up: the alert clears.
func TestLowBalanceAlertsOnRunwayAndClearsOnTopUp(t *testing.T) {
	r := newRig(t, at(11, 9, 0), nil, nil)
	judge := func(j *Judge) {
		j.RunwayDays = 3
		j.BalanceBelow = decimal.NullDecimal{Decimal: decimal.NewFromInt(100), Valid: true}
	}
	r.importCSV(flowHeader, "autodl,main,2026-11-01 00:00:00,topup,400,400,T1,", "autodl,main,2026-11-10 00:00:00,charge,270,130,C1,")
	var days []string
	for d := 1; d <= 9; d++ {
		days = append(days, computeDay(d, "30"))
	}
	r.importCSV(billHeader, days...)
	if out := r.pollLedger(at(10, 9, 0), judge); len(out.Sent) != 0 {
		t.Fatalf("¥130, 4.3 days: %+v", out.Sent)
	}
	r.importCSV(billHeader, computeDay(10, "30"), computeDay(11, "30"))
	out := r.pollLedger(at(12, 9, 0), judge)
	if len(out.Sent) != 1 {
		t.Fatalf("¥70, 2.3 days: %+v", out.Sent)
	}
	a := out.Sent[0]
	if a.Kind != KindLowBalance || a.Severity != "medium" || a.Balance != "70.00" || a.Limit != "100" || a.AmountSoFar != "330.00" ||
		a.Projection != "-500.00" || a.RunsOutAt == nil || !a.RunsOutAt.Equal(at(14, 8, 0)) || a.Account != "main" {
		t.Errorf("alert: %+v", a)
	}
	if !strings.Contains(a.MessageEN, "the AutoDL account main balance is about ¥70.00 (as of 11-12 00:00), below ¥100.00; at the month's burn rate (about ¥30.00 a day, from the bills) it runs out in about 2.3 days (11-14 08:00), -¥500.00 at the month's end") ||
		!strings.Contains(a.SourceDelay, "money flow to 11-10 00:00") {
		t.Errorf("message %q delay %q", a.MessageEN, a.SourceDelay)
	}
	r.importCSV(billHeader, computeDay(12, "30"))
	if out := r.pollLedger(at(13, 9, 0), judge); len(out.Sent) != 0 {
		t.Errorf("¥40, 1.3 days, same severity: %+v", out.Sent)
	}
	r.importCSV(billHeader, computeDay(13, "30"))
	out = r.pollLedger(at(14, 1, 0), judge)
	if len(out.Sent) != 1 || out.Sent[0].Severity != "high" || out.Sent[0].Event != EventEscalated || out.Sent[0].Balance != "10.00" {
		t.Fatalf("¥10: %+v", out.Sent)
	}
	r.importCSV(flowHeader, "autodl,main,2026-11-13 12:00:00,charge,90,40,C2,", "autodl,main,2026-11-13 12:30:00,topup,500,540,T2,")
	out = r.pollLedger(at(14, 9, 0), judge)
	if len(out.Cleared) != 1 || out.Cleared[0] != "low_balance|autodl|main|CNY" || len(out.Open) != 0 {
		t.Errorf("topped up: cleared %v open %+v", out.Cleared, out.Open)
	}
}

// A ¥1000 budget of project lab: nothing at 40%, one alert at 50%, an
// escalation at 80% and at 100%, nothing on re-runs, and the alert clears
// with the month.
func TestBudgetAlertsAt50And80And100(t *testing.T) {
	r := newRig(t, at(5, 9, 0), nil, nil)
	judge := func(j *Judge) {
		j.Budgets = []Budget{{Name: "lab", Project: "lab", Amount: decimal.NewFromInt(1000), Currency: "CNY"}}
	}
	line := func(day int, cost string) string {
		return fmt.Sprintf("aliyun,acct,lab,i-lab%d,,,compute,on_demand,,,2026-11-%02d 00:00:00,2026-11-%02d 00:00:00,,,24,hour,,%s,%s,0,%s,,CNY", day, day, day+1, cost, cost, cost)
	}
	r.importCSV(billHeader, line(1, "200"), line(2, "200"), "aliyun,acct,other,i-x,,,compute,on_demand,,,2026-11-02 00:00:00,2026-11-03 00:00:00,,,24,hour,,900,900,0,900,,CNY")
	if out := r.pollLedger(at(3, 9, 0), judge); len(out.Sent) != 0 {
		t.Fatalf("40%%: %+v", out.Sent)
	}
	r.importCSV(billHeader, line(3, "150"))
	out := r.pollLedger(at(4, 9, 0), judge)
	if len(out.Sent) != 1 {
		t.Fatalf("55%%: %+v", out.Sent)
	}
	a := out.Sent[0]
	// ¥550 over 3 days: ¥5500 over the 30 days of November.
	if a.Kind != KindBudget || a.Event != EventNew || a.Severity != "low" || a.Percent != "55.0" || a.AmountSoFar != "550.00" ||
		a.Projection != "5500.00" || a.Budget != "lab" || !strings.Contains(a.MessageEN, "budget lab: ¥550.00 spent this month (2026-11), 55.0% of ¥1000.00 (past 50%); at this rate about ¥5500.00 by the month's end, over the budget") ||
		!strings.Contains(a.SourceDelay, "阿里云 documents up to 24 h") {
		t.Errorf("alert: %+v", a)
	}
	if out := r.pollLedger(at(4, 15, 0), judge); len(out.Sent) != 0 {
		t.Errorf("re-run: %+v", out.Sent)
	}
	r.importCSV(billHeader, line(4, "260"))
	if out := r.pollLedger(at(5, 9, 0), judge); len(out.Sent) != 1 || out.Sent[0].Severity != "medium" || out.Sent[0].Event != EventEscalated {
		t.Errorf("81%%: %+v", out.Sent)
	}
	r.importCSV(billHeader, line(5, "200"))
	if out := r.pollLedger(at(6, 9, 0), judge); len(out.Sent) != 1 || out.Sent[0].Severity != "high" || out.Sent[0].Percent != "101.0" {
		t.Errorf("101%%: %+v", out.Sent)
	}
	if out := r.pollLedger(at(6, 10, 0), judge); len(out.Sent) != 0 {
		t.Errorf("re-run at 101%%: %+v", out.Sent)
	}
	out = r.pollLedger(time.Date(2026, 12, 1, 9, 0, 0, 0, shanghai), judge)
	if len(out.Cleared) != 1 || out.Cleared[0] != "budget|lab|CNY|2026-11" || len(out.Sent) != 0 {
		t.Errorf("December: cleared %v sent %v", out.Cleared, out.Sent)
	}
}

func TestLoadBudgets(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"ok", "[[budget]]\nproject = \"lab\"\namount = 3000\n\n[[budget]]\nprovider = \"autodl\"\naccount = \"main\"\namount = \"500.5\"\ncurrency = \"cny\"\n", ""},
		{"float", "[[budget]]\nproject = \"lab\"\namount = 30.5\n", "[[budget]] 1: amount must be a string"},
		{"no scope", "[[budget]]\namount = \"30\"\n", "[[budget]] 1: name a project, a provider, or both"},
		{"bad amount", "[[budget]]\nproject = \"lab\"\namount = \"-3\"\n", `amount "-3": want a positive amount per month`},
		{"unknown", "[[budget]]\nproject = \"lab\"\namount = \"3\"\nlimit = \"4\"\n", "unknown key limit"},
	} {
		p := filepath.Join(dir, c.name+".toml")
		os.WriteFile(p, []byte(c.text), 0o644)
		bs, err := LoadBudgets(p)
		switch {
		case c.want == "" && (err != nil || len(bs) != 2 || bs[0].Name != "lab" || bs[1].Name != "autodl/main" || bs[1].Currency != "CNY" || bs[1].Amount.String() != "500.5"):
			t.Errorf("%s: %+v %v", c.name, bs, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

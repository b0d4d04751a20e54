package reports

import (
	"context"
	"reflect"
	"strings"

	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/export"
	"github.com/gpubill/gpubill/ledger"
)

// TestTicketGuessCitesSource: a platform rule that the policy table marks as
// a guess is written as one in the ticket, with the table's source and the
// date it was seen; a confirmed rule is stated plainly.
func TestTicketGuessCitesSource(t *testing.T) {
	loc := ledger.DefaultTZ()
	at := time.Date(2026, 10, 8, 13, 0, 0, 0, loc)
	item := &ledger.LineItem{Kind: ledger.KindSeat, ChargePeriodStart: at.AddDate(0, 0, 11), ChargePeriodEnd: at.AddDate(0, 0, 12)}
	c := &RefundClaim{RuleID: RuleChargedAfterRelease, ResourceID: "i-1", Currency: "CNY", items: []*ledger.LineItem{item},
		lastCompute: at, releaseAt: at.AddDate(0, 0, 10), releaseDays: 10}
	pol := billing.Policy{Guesses: []string{"release_days"}, Source: "the platform's help page on releases", Seen: "2026-11-02"}
	for _, tc := range []struct {
		lang, guess string
		pol         billing.Policy
		want        []string
	}{
		{"en", "guess", pol, []string{"I assume, without your confirmation (source: the platform's help page on releases, seen 2026-11-02), that your platform releases"}},
		{"zh", "guess", pol, []string{"我推测（未经贵平台确认）（依据：the platform's help page on releases，2026-11-02 查阅）贵平台会释放"}},
		{"en", "confirmed", billing.Policy{Source: "s", Seen: "2026-11-02"}, []string{"Your platform releases"}},
	} {
		p := &RefundPlatform{Provider: "lanrui", HasPolicy: true, Policy: tc.pol}
		got := p.claimSentence(tc.lang, c, loc)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %s: got %q, want it to contain %q", tc.lang, tc.guess, got, w)
			}
		}
		if tc.guess == "confirmed" && strings.Contains(got, "assume") {
			t.Errorf("confirmed rule written as a guess: %q", got)
		}
	}
}

// TestTicketRows: evidence is cited as the rows a person sees: header and
// title rows count, a workbook's rows as Sheet!row, and an import that
// recorded no row mapping by record number, said so.
func TestTicketRows(t *testing.T) {
	items := map[int64]*ledger.LineItem{1: {ImportID: 10}, 2: {ImportID: 10}, 3: {ImportID: 10}, 4: {ImportID: 20}, 5: {ImportID: 30}}
	imports := map[int64]*ledger.Import{
		10: {ID: 10, Path: "/home/u/bills/恒源云.xlsx", Sheet: "账单", HeaderRow: 2, RowMapped: true, Format: "gpubill-bill"},
		20: {ID: 20, Path: "/home/u/bills/aliyun.csv", HeaderRow: 1, RowMapped: true, RowMap: [][2]int{{3, 6}}, Format: "aliyun-detail"},
		30: {ID: 30, Path: "/home/u/bills/old.csv", HeaderRow: 1, Format: "aliyun-detail"}, // imported before 0011
	}
	ev := func(id int64, file string, row int) ledger.Evidence {
		return ledger.Evidence{LineItemID: id, File: file, Row: row}
	}
	for _, tc := range []struct {
		name     string
		evidence []ledger.Evidence
		lang     string
		want     string
		template bool
	}{
		{"sheet rows after a title", []ledger.Evidence{ev(1, "/home/u/bills/恒源云.xlsx", 1), ev(2, "/home/u/bills/恒源云.xlsx", 2), ev(3, "/home/u/bills/恒源云.xlsx", 4)},
			"en", "恒源云.xlsx 账单!3–4, 账单!6", true},
		{"csv after a multi-line cell", []ledger.Evidence{ev(4, "/home/u/bills/aliyun.csv", 3)}, "zh", "aliyun.csv 第 6 行", false},
		{"old import", []ledger.Evidence{ev(5, "/home/u/bills/old.csv", 9)}, "en", "old.csv record 9 after the header", false},
	} {
		c := &RefundClaim{Evidence: tc.evidence}
		c.citeRows(items, imports, nil)
		if got := ticketRows(c, tc.lang); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
		if c.template != tc.template {
			t.Errorf("%s: template %v, want %v", tc.name, c.template, tc.template)
		}
	}
}

// TestTicketPlatformIDs: a claim cites the platform's own identifiers kept
// in the raw cells of its rows (交易ID, 订单号, BillID …), each value once,
// and not the resource id the sentence names already.
func TestTicketPlatformIDs(t *testing.T) {
	items := map[int64]*ledger.LineItem{1: {ImportID: 1}, 2: {ImportID: 1}, 3: {ImportID: 1}}
	imports := map[int64]*ledger.Import{1: {ID: 1, Header: []string{"资源ID", "订单ID", "交易ID", "组件名称", "BillID"}}}
	raw := map[int64][]string{
		1: {"ins-1", "", "T1", "GPU", "B-9"},
		2: {"ins-1", "O-7", "T2", "GPU", "B-9"},
		3: {"ins-1", "O-7", "T3", "GPU", "--"},
	}
	c := &RefundClaim{ResourceID: "ins-1", Evidence: []ledger.Evidence{{LineItemID: 1}, {LineItemID: 2}, {LineItemID: 3}}}
	c.findPlatformIDs(items, imports, raw)
	if got, want := idsText(c, "zh"), "订单ID O-7；交易ID T1、T2、T3；BillID B-9"; got != want {
		t.Errorf("zh: got %q, want %q", got, want)
	}
	if got, want := idsText(c, "en"), "订单ID O-7; 交易ID T1, T2, T3; BillID B-9"; got != want {
		t.Errorf("en: got %q, want %q", got, want)
	}
	c.ResourceID, c.RuleID, c.Currency = "ins-1", "duplicate_charge", "CNY"
	p := &RefundPlatform{Provider: "tencentcloud"}
	if s := p.claimSentence("en", c, ledger.DefaultTZ()); !strings.Contains(s, "交易ID T1, T2, T3") {
		t.Errorf("ticket sentence %q lacks the transaction ids", s)
	}
}

// TestTicketTotalFoots: the ticket's total is the sum of the amounts its
// items print (each at the fen), not the exact sum rounded once.
func TestTicketTotalFoots(t *testing.T) {
	d := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	cs := []*RefundClaim{
		{RuleID: "duplicate_charge", ResourceID: "a", Currency: "CNY", Amount: d("1.005"), Counted: d("1.005")},
		{RuleID: "duplicate_charge", ResourceID: "b", Currency: "CNY", Amount: d("1.005"), Counted: d("1.005")},
	}
	p := &RefundPlatform{Provider: "autodl"}
	text := p.ticket("en", "2026-10", "lab", "CNY", d("2.01"), cs, ledger.DefaultTZ())
	if strings.Count(text, "¥1.01 too much") != 2 || !strings.Contains(text, "In all ¥2.02.") {
		t.Errorf("ticket %q: want two items of ¥1.01 and a total of ¥2.02", text)
	}
}

// TestTicketCitesAPILines: a ticket cites fetched lines by the cloud, the
// API and the vendor's line ids (each once), beside a file's rows; a
// fetched line without an id keeps its record number.
func TestTicketCitesAPILines(t *testing.T) {
	api := "api:tencentcloud/DescribeBillDetail?account=main&month=2026-10"
	items := map[int64]*ledger.LineItem{1: {ImportID: 1}, 2: {ImportID: 1}, 3: {ImportID: 1}, 4: {ImportID: 2}}
	imports := map[int64]*ledger.Import{
		1: {ID: 1, Path: api, Header: []string{"BillId", ledger.LineIDColumn}, RowMapped: true, HeaderRow: 1},
		2: {ID: 2, Path: "/b/tencent.csv", HeaderRow: 1, RowMapped: true},
	}
	raw := map[int64][]string{1: {"B1", "B1/GPU"}, 2: {"B2", "B2/GPU"}, 3: {"B2", "B2/GPU"}}
	ev := []ledger.Evidence{{LineItemID: 1, File: api, Row: 1}, {LineItemID: 2, File: api, Row: 2}, {LineItemID: 3, File: api, Row: 3},
		{LineItemID: 4, File: "/b/tencent.csv", Row: 5}}
	for _, tc := range []struct{ lang, want string }{
		{"zh", "腾讯云 API DescribeBillDetail · 明细 ID B1/GPU、B2/GPU（共 2 条），tencent.csv 第 6 行"},
		{"en", "Tencent Cloud API DescribeBillDetail · lines B1/GPU, B2/GPU (2 lines), tencent.csv row 6"},
	} {
		c := &RefundClaim{Evidence: ev}
		c.citeRows(items, imports, raw)
		if got := ticketRows(c, tc.lang); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.lang, got, tc.want)
		}
	}
	c := &RefundClaim{Evidence: ev[:1]}
	c.citeRows(items, imports, nil)
	if got, want := ticketRows(c, "en"), "DescribeBillDetail?account=main&month=2026-10 row 2"; got != want { // as before line ids
		t.Errorf("no line id: got %q, want %q", got, want)
	}
}

// TestRefundDocumentsCiteAPILines: the refunds report's CSV/TSV/XLSX/HTML
// evidence column and its JSON cite a fetched line by the API and its line
// id, as the findings report does; a file's row stays file:row.
func TestRefundDocumentsCiteAPILines(t *testing.T) {
	api := "api:tencentcloud/DescribeBillDetail?account=main&month=2026-10"
	items := map[int64]*ledger.LineItem{1: {ImportID: 1}, 4: {ImportID: 2}}
	imports := map[int64]*ledger.Import{
		1: {ID: 1, Path: api, Header: []string{"BillId", ledger.LineIDColumn}, RowMapped: true, HeaderRow: 1},
		2: {ID: 2, Path: "/b/tencent.csv", HeaderRow: 1, RowMapped: true},
	}
	raw := map[int64][]string{1: {"B1", "B1/GPU"}}
	c := &RefundClaim{Evidence: []ledger.Evidence{{LineItemID: 1, File: api, Row: 1}, {LineItemID: 4, File: "/b/tencent.csv", Row: 5}}}
	c.citeRows(items, imports, raw)
	if got, want := c.evidenceText(), api+"#B1/GPU;/b/tencent.csv:5"; got != want {
		t.Errorf("evidence %q, want %q", got, want)
	}
	if c.lineID(0) != "B1/GPU" || c.lineID(1) != "" {
		t.Errorf("line ids %q %q", c.lineID(0), c.lineID(1))
	}
}

// TestTicketOneChargeWording: a ticket of one claim says "1 charge that
// does not", and the Chinese opening without an account reads "核对我的…账号
// … 的账单时" (not "我的…账号的核对").
func TestTicketOneChargeWording(t *testing.T) {
	d := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	cs := []*RefundClaim{{RuleID: "duplicate_charge", ResourceID: "a", Currency: "CNY", Amount: d("1.00"), Counted: d("1.00")}}
	p := &RefundPlatform{Provider: "autodl"}
	en := p.ticket("en", "2026-10", "", "CNY", d("1.00"), cs, ledger.DefaultTZ())
	if !strings.Contains(en, "I found 1 charge that does not follow") {
		t.Errorf("en ticket %q: want \"I found 1 charge that does not follow\"", en)
	}
	zh := p.ticket("zh", "2026-10", "", "CNY", d("1.00"), cs, ledger.DefaultTZ())
	if !strings.Contains(zh, "核对我的AutoDL账号 2026-10 的账单时，发现以下 1 项费用") {
		t.Errorf("zh ticket %q: want the opening \"核对我的AutoDL账号 2026-10 的账单时，发现以下 1 项费用\"", zh)
	}
	two := p.ticket("en", "2026-10", "lab", "CNY", d("2.00"), append(cs, cs[0]), ledger.DefaultTZ())
	if !strings.Contains(two, "account lab, I found 2 charges that do not follow") {
		t.Errorf("en ticket %q: want \"I found 2 charges that do not follow\"", two)
	}
}

// TestTicketCells lists the cells a ticket reads of each import, and none
// of an import that has none of them.
func TestTicketCells(t *testing.T) {
	imports := map[int64]*ledger.Import{
		1: {ID: 1, Header: []string{"计费项", "交易ID", "金额", ledger.LineIDColumn}},
		2: {ID: 2, Header: []string{"BilledCost", export.SourceFileColumn, "x", export.SourceRowColumn, export.SourceSheetColumn,
			export.SourceFormatColumn, export.SourceIDsColumn}},
		3: {ID: 3, Header: []string{"金额", "备注"}},
	}
	got := ticketCells(imports)
	want := map[int64][]int{1: {1, 3}, 2: {1, 3, 4, 5, 6}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ticketCells: got %v, want %v", got, want)
	}
}

// TestTicketRaw reads the cells the tickets cite of every line item of
// the scenario's bills, each where the full row has it, the others empty.
func TestTicketRaw(t *testing.T) {
	db := replayLedger(t, "../testdata/scenario/2026-10/*.csv")
	ctx := context.Background()
	ims, err := db.Imports(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[int64]*ledger.Import{}
	for i := range ims {
		imports[ims[i].ID] = &ims[i]
	}
	items := map[int64]*ledger.LineItem{}
	var ids []int64
	if err := db.EachLineItem(ctx, ledger.Filter{}, ledger.Read{}, func(li *ledger.LineItem) error {
		items[li.ID], ids = li, append(ids, li.ID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	raw, err := ticketRaw(ctx, db, ids, items, imports)
	if err != nil {
		t.Fatal(err)
	}
	cells, cited := ticketCells(imports), 0
	for _, id := range ids {
		li, want := items[id], map[int]bool{}
		for _, c := range cells[li.ImportID] {
			want[c] = true
		}
		for c, v := range raw[id] {
			if full := li.Raw[c]; (want[c] && v != full) || (!want[c] && v != "") {
				t.Fatalf("line item %d, cell %d: %q, want %q (cited: %v)", id, c, v, full, want[c])
			}
			if v != "" {
				cited++
			}
		}
	}
	if cited == 0 {
		t.Fatal("no cell cited: the scenario checks nothing")
	}
}

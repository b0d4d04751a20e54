package packet

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/rules"
)

// TestPacketFoots is issue 27's by-hand check of the packets of the demo and
// of testdata/scenario: the workbook is read back with excelize and its
// printed cells are added up as a reviewer in finance would. Every amount is
// at the fen; every 明细 row foots (billed = not invoiceable + cash, claimed
// = cash − disputed − not invoiced); every total is the sum of the printed
// rows above it; each cover row is the sum of its platform's printed rows;
// 异常 adds up to the disputed column; 大写 is the 大写 of the printed
// claim; a 尾差 row is the exact total at the fen less the printed one.
func TestPacketFoots(t *testing.T) {
	scenario, err := filepath.Glob("../testdata/scenario/2026-10/*.csv")
	if err != nil || len(scenario) == 0 {
		t.Fatalf("scenario bills: %v %v", scenario, err)
	}
	for name, paths := range map[string][]string{"demo": {"../testdata/demo"}, "scenario": scenario} {
		db := testkit.OpenLedger(t)
		ctx := context.Background()
		if _, err := ingest.ImportPaths(ctx, db, paths, ingest.Options{TZ: shanghaiTZ}); err != nil {
			t.Fatalf("import %s: %v", name, err)
		}
		cfg := rules.DefaultConfig()
		cfg.TZ = shanghaiTZ
		if _, err := rules.AuditAndSave(ctx, db, "2026-10", "Asia/Shanghai", cfg); err != nil {
			t.Fatal(err)
		}
		for _, opts := range []Options{{}, {ClaimDisputed: true}, {InvoicedOnly: true}} {
			t.Run(fmt.Sprintf("%s/claim_disputed=%v/invoiced_only=%v", name, opts.ClaimDisputed, opts.InvoicedOnly), func(t *testing.T) {
				p := build(t, db, opts)
				f, _ := workbook(t, p)
				footPacket(t, f, p)
				if name == "demo" {
					// The demo's CSV bills have their header on line 1:
					// record n is spreadsheet row n+1, and 明细 and 异常
					// cite that row.
					i := -1
					err := p.EachLine(func(l *Line) error {
						i++
						if strings.HasSuffix(l.Item.File, ".csv") && (l.Row.Row != l.Item.SourceRow+1 || l.Row.Sheet != "") {
							t.Errorf("line %d (%s record %d): cited as %s, want row %d", l.Item.ID, l.Item.File, l.Item.SourceRow, l.Row, l.Item.SourceRow+1)
						}
						if got, want := cell(t, f, SheetLines, p.colClaimed()+4, i+2), fmt.Sprint(l.Row.Row); strings.HasSuffix(l.Item.File, ".csv") && got != want {
							t.Errorf("明细 row %d: 行 %q, want %s", i+2, got, want)
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
					for i, e := range p.Exceptions {
						if got, want := cell(t, f, SheetExceptions, 10, i+2), fmt.Sprint(e.Row+1); got != want {
							t.Errorf("异常 row %d (%s record %d): 行 %q, want %s", i+2, e.File, e.Row, got, want)
						}
					}
				}
				if name == "demo" && opts.InvoicedOnly {
					// No invoice is recorded: nothing is claimed, and no
					// 尾差 is made of the lines cut at the invoices.
					for _, c := range p.Claims {
						if !c.Claimed.IsZero() || !c.Rounding.IsZero() {
							t.Errorf("%s: claimed %s, 尾差 %s; want 0 and none", c.Currency, c.Claimed, c.Rounding)
						}
					}
				}
				if name == "demo" && !opts.InvoicedOnly {
					// The demo's AWS rows are 1.006 each: printed 1.01,
					// they add up to 0.18 more than the exact 42.90.
					for _, c := range p.Claims {
						if c.Currency == "USD" && (!c.Claimed.Equal(dec("43.08")) || !c.Rounding.Equal(dec("-0.18"))) {
							t.Errorf("USD claim %s, 尾差 %s; want 43.08 and -0.18", c.Claimed, c.Rounding)
						}
					}
				}
			})
		}
	}
}

// footPacket checks one workbook's arithmetic on its printed cells.
func footPacket(t *testing.T, f *excelize.File, p *Packet) {
	t.Helper()
	money := func(sheet string, col, row int) decimal.Decimal {
		t.Helper()
		s := cell(t, f, sheet, col, row)
		if s == "" {
			return decimal.Zero
		}
		d, err := decimal.NewFromString(s)
		if err != nil {
			t.Fatalf("%s col %d row %d: %q is no amount", sheet, col, row, s)
		}
		if !d.Equal(d.Round(2)) {
			t.Errorf("%s col %d row %d: %s is not at the fen", sheet, col, row, s)
		}
		return d
	}
	cols := p.moneyCols()
	claimedCol, cashCol, dispCol := p.colClaimed(), colCash, colDisputed
	statusCol := claimedCol + 1

	// 明细: the rows, then the totals.
	rows, err := f.GetRows(SheetLines)
	if err != nil {
		t.Fatal(err)
	}
	type pc struct{ provider, currency string }
	sums := map[pc]map[int]decimal.Decimal{}
	bycur := map[string]map[int]decimal.Decimal{}
	add := func(m map[int]decimal.Decimal, col int, d decimal.Decimal) { m[col] = m[col].Add(d) }
	r := 2
	for ; r <= len(rows) && len(rows[r-1]) > 0 && rows[r-1][0] != ""; r++ {
		prov, cur := cell(t, f, SheetLines, colProvider, r), cell(t, f, SheetLines, colCurrency, r)
		k := pc{prov, cur}
		if sums[k] == nil {
			sums[k] = map[int]decimal.Decimal{}
		}
		if bycur[cur] == nil {
			bycur[cur] = map[int]decimal.Decimal{}
		}
		v := map[int]decimal.Decimal{}
		for _, c := range cols {
			v[c] = money(SheetLines, c, r)
			add(sums[k], c, v[c])
			add(bycur[cur], c, v[c])
		}
		if got := v[colNotInv].Add(v[cashCol]); !got.Equal(v[colBilled]) {
			t.Errorf("明细 row %d: not invoiceable %s + cash %s ≠ billed %s", r, v[colNotInv], v[cashCol], v[colBilled])
		}
		want := v[cashCol].Sub(v[dispCol])
		if strings.HasPrefix(cell(t, f, SheetLines, statusCol, r), StatusNameZH(StatusClaimedDisputed)) {
			want = v[cashCol]
		}
		if c := p.colNotInvoiced(); c > 0 {
			want = want.Sub(v[c])
		}
		if !v[claimedCol].Equal(want) {
			t.Errorf("明细 row %d: claimed %s, want %s (cash %s − disputed %s …)", r, v[claimedCol], want, v[cashCol], v[dispCol])
		}
	}
	totals := 0
	for ; r <= len(rows); r++ {
		if len(rows[r-1]) == 0 || rows[r-1][0] != "合计 Total" {
			continue
		}
		totals++
		cur := cell(t, f, SheetLines, colCurrency, r)
		for _, c := range cols {
			if got := money(SheetLines, c, r); !got.Equal(bycur[cur][c]) {
				t.Errorf("明细 total %s col %d: %s, the printed rows add up to %s", cur, c, got, bycur[cur][c])
			}
		}
	}
	if totals != len(bycur) {
		t.Errorf("明细: %d total rows, want one per currency (%d)", totals, len(bycur))
	}

	// 封面: each platform row, the claim, 大写, 尾差.
	cover, err := f.GetRows(SheetCover)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for i, row := range cover {
		r := i + 1
		if len(row) < 2 {
			continue
		}
		if s, ok := sums[pc{row[0], row[1]}]; ok {
			seen++
			for j, c := range cols {
				if got := money(SheetCover, 3+j, r); !got.Equal(s[c]) {
					t.Errorf("封面 %s %s col %d: %s, 明细 adds up to %s", row[0], row[1], 3+j, got, s[c])
				}
			}
			continue
		}
		switch row[0] {
		case claimLabel:
			cur := row[1]
			claim := money(SheetCover, 3, r)
			if !claim.Equal(bycur[cur][claimedCol]) {
				t.Errorf("封面 claim %s: %s, 明细 adds up to %s", cur, claim, bycur[cur][claimedCol])
			}
			words := cell(t, f, SheetCover, 5, r)
			if cur == "CNY" {
				want, _ := CapitalCNY(claim)
				if words != "人民币"+want {
					t.Errorf("封面 大写 %q, want 人民币%s (of the printed %s)", words, want, claim)
				}
			}
		case "尾差 Rounding":
			cur := row[1]
			var exact decimal.Decimal
			for _, c := range p.Claims {
				if c.Currency == cur {
					exact = c.Exact
				}
			}
			got := money(SheetCover, 3, r)
			if want := exact.Round(2).Sub(bycur[cur][claimedCol]); got.IsZero() || !got.Equal(want) {
				t.Errorf("封面 尾差 %s: %s, want %s (exact %s − printed %s)", cur, got, want, exact, bycur[cur][claimedCol])
			}
		}
	}
	if seen != len(sums) {
		t.Errorf("封面: %d platform rows found, want %d", seen, len(sums))
	}
	for _, c := range p.Claims {
		if !c.Exact.Round(2).Equal(c.Claimed) && c.Rounding.IsZero() {
			t.Errorf("claim %s: exact %s, printed %s, and no 尾差", c.Currency, c.Exact, c.Claimed)
		}
	}

	// 异常: the disputed parts add up to 明细's disputed column.
	ex, err := f.GetRows(SheetExceptions)
	if err != nil {
		t.Fatal(err)
	}
	disp := map[string]decimal.Decimal{}
	for i := 1; i < len(ex) && len(p.Exceptions) > 0; i++ {
		if len(ex[i]) < 6 {
			continue
		}
		disp[ex[i][4]] = disp[ex[i][4]].Add(money(SheetExceptions, 6, i+1))
	}
	for cur, m := range bycur {
		if !disp[cur].Equal(m[dispCol]) {
			t.Errorf("异常 %s adds up to %s, 明细's disputed column to %s", cur, disp[cur], m[dispCol])
		}
	}
}

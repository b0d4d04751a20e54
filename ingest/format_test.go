package ingest

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/ledger"
	"github.com/xuri/excelize/v2"
)

// TestFormatsRegistry checks what `gpubill formats` relies on, and that no
// two columns of a format claim the same header spelling (a column would
// silently never match).
func TestFormatsRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Formats() {
		if f.ID == "" || f.Version == "" || f.NameZH == "" || f.NameEN == "" || f.DetectZH == "" || f.DetectEN == "" || f.DedupeKey == "" {
			t.Errorf("format %+v lacks a description field", f.ID)
		}
		if seen[f.ID] {
			t.Errorf("format id %s registered twice", f.ID)
		}
		seen[f.ID] = true
		switch f.Confidence {
		case ConfidenceDoc, ConfidenceParser, ConfidenceGuess, ConfidenceOurs:
		default:
			t.Errorf("format %s: confidence %q", f.ID, f.Confidence)
		}
		if f.Target != TargetLineItems && f.Target != TargetTransactions && f.Target != TargetPayments && f.Target != TargetInvoices {
			t.Errorf("format %s: target %q", f.ID, f.Target)
		}
		if len(f.RequiredHeaders) == 0 {
			t.Errorf("format %s has no required columns: any file would match", f.ID)
		}
		owner := map[string]string{}
		for _, c := range f.Columns {
			for _, h := range append([]string{c.Field}, c.Headers...) {
				n := normCol(h)
				if o, ok := owner[n]; ok && o != c.Field {
					t.Errorf("format %s: header %q belongs to both %s and %s", f.ID, h, o, c.Field)
				}
				owner[n] = c.Field
			}
		}
	}
	for _, f := range registered() {
		if (f.Target == TargetLineItems) != (f.lines != nil) || (f.Target == TargetTransactions) != (f.txs != nil) ||
			(f.Target == TargetPayments) != (f.pays != nil) {
			t.Errorf("format %s: mapper does not fit target %s", f.ID, f.Target)
		}
	}
}

func TestDetectHeader(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []string
		want   string // format id, "" = none
	}{
		{"template zh", []string{"平台", "费用类型", "开始时间", "结束时间", "应付金额"}, "gpubill-bill"},
		{"template en shuffled", []string{"billed_cost", "END", "Start", "kind", "provider"}, "gpubill-bill"},
		{"template mixed with markers and units", []string{"平台*", "kind", "开始时间", "end", "应付金额(元)"}, "gpubill-bill"},
		{"template full-width brackets", []string{"平台", "费用类型", "开始时间", "结束时间", "应付金额（元）"}, "gpubill-bill"},
		{"flow", []string{"平台", "时间", "类型", "金额"}, "gpubill-flow"},
		{"flow english", []string{"provider", "time", "type", "amount", "balance"}, "gpubill-flow"},
		{"focus", []string{"BilledCost", "ChargePeriodStart", "ProviderName"}, "focus"},
		{"focus with service only", []string{"BilledCost", "ChargePeriodStart", "ServiceName"}, "focus"},
		{"focus without provider or service", []string{"BilledCost", "ChargePeriodStart", "ChargePeriodEnd"}, ""},
		{"template without end", []string{"平台", "费用类型", "开始时间", "应付金额"}, ""},
		{"alipay", []string{"交易时间", "交易分类", "交易对方", "金额", "收/支"}, ""},
		{"empty", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := detectHeader(tc.header)
			got := ""
			if b != nil {
				got = b.format.ID
			}
			if got != tc.want {
				t.Errorf("detectHeader(%q) = %q, want %q", tc.header, got, tc.want)
			}
		})
	}
}

// TestBindPrefersCanonicalHeaders: "应付金额" takes billed_cost even when the
// alias "金额" stands before it; the alias column is then kept in raw only.
func TestBindPrefersCanonicalHeaders(t *testing.T) {
	b := bind(templateBillFormat, []string{"金额", "平台", "费用类型", "开始时间", "结束时间", "应付金额"})
	if got := b.idx("billed_cost"); got != 5 {
		t.Errorf("billed_cost bound to column %d, want 5", got)
	}
	if !reflect.DeepEqual(b.unknown, []int{0}) {
		t.Errorf("unknown columns %v, want [0]", b.unknown)
	}
}

func TestParseUnit(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"小时", "hour"}, {"秒", "second"}, {"分钟", "minute"}, {"天", "day"}, {"GB", "GB"},
		{"GB·天", "GB-day"}, {"GB/天", "GB-day"}, {"gb*天", "GB-day"}, {"GB·月", "GB-month"}, {"GB-month", "GB-month"},
		{"次", "count"}, {"hour", "hour"}, {"Hours", "hour"}, {"GB-day", "GB-day"}, {"月", "month"}, {"GB·小时", "GB-hour"},
		{" 小时 ", "hour"}, {"parsec", ""}, {"", ""},
	} {
		got, ok := ParseUnit(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("ParseUnit(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
	// Every code the template offers in its 单位 drop-down must be accepted.
	for _, c := range BillColumns {
		if c.Field != "unit" {
			continue
		}
		for _, code := range c.Codes {
			if _, ok := ParseUnit(code); !ok {
				t.Errorf("template unit code %q is not accepted by ParseUnit", code)
			}
		}
	}
}

func TestFocusKind(t *testing.T) {
	for _, tc := range []struct {
		name                                 string
		category, serviceCat, resType, descr string
		want                                 string
	}{
		{"gpu instance", "Usage", "Compute", "instance", "$1.624 per On Demand Linux g5.4xlarge Instance Hour", ledger.KindCompute},
		{"data transfer under compute", "Usage", "Compute", "NULL", "$0.085 per GB - next 40 TB / month data transfer out", ledger.KindNetwork},
		{"snapshot", "Usage", "Storage", "", "$0.05 per GB-Month of snapshot data stored - US West (Oregon)", ledger.KindSnapshot},
		{"ebs volume", "Usage", "Storage", "volume", "$0.08 per GB-month of General Purpose (gp3) provisioned storage", ledger.KindStorage},
		{"azure managed disk under compute", "Usage", "Compute", "Disk", "Premium SSD Managed Disks - P4 LRS - US East", ledger.KindStorage},
		{"public ip under ai", "Usage", "AI and Machine Learning", "", "IP Addresses - Standard IPv4 Static Public IP", ledger.KindNetwork},
		{"load balancer", "Usage", "Networking", "", "$0.0225 per Application LoadBalancer-hour", ledger.KindNetwork},
		{"queue service", "Usage", "Integration", "", "$0.40 per million Amazon SQS standard requests", ledger.KindService},
		{"other", "Usage", "Other", "", "AWS Fargate - vCPU", ledger.KindOther},
		{"no category", "Usage", "", "", "something", ledger.KindOther},
		{"credit", "Credit", "Compute", "", "", ledger.KindCredit},
		{"tax", "Tax", "", "", "", ledger.KindTax},
		{"adjustment", "Adjustment", "Compute", "instance", "Standard - A1", ledger.KindAdjustment},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := focusKind(tc.category, tc.serviceCat, tc.resType, tc.descr); got != tc.want {
				t.Errorf("focusKind = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGPUModelFromText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"$1.624 per On Demand Linux g5.4xlarge Instance Hour", "A10G"},
		{"$1.14 per On Demand Linux g3.4xlarge Instance Hour", "M60"},
		{"p4d.24xlarge", "A100"},
		{"$0.34 per On Demand Linux c5.2xlarge Instance Hour", ""},
		{"Virtual Machines NCads A100 v4 Series", "A100"},
		{"Virtual Machines NCv3 Series - NC6s v3", "V100"},
		{"Virtual Machines Dv2/DSv2 Series - D11 v2", ""},
		{"T4 mentioned without an N-series VM", ""},
	} {
		if got := gpuModelFromText(tc.in); got != tc.want {
			t.Errorf("gpuModelFromText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIsTotalRow(t *testing.T) {
	for _, tc := range []struct {
		rec  []string
		want bool
	}{
		{[]string{"合计", "", "5.5"}, true},
		{[]string{"", "总计：", "5.5"}, true},
		{[]string{"Total", "5.5"}, true},
		{[]string{"AutoDL", "合计"}, false},
		{[]string{"", ""}, false},
	} {
		if got := isTotalRow(tc.rec); got != tc.want {
			t.Errorf("isTotalRow(%q) = %v, want %v", tc.rec, got, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	res, err := Check(filepath.Join("testdata", "gpubill-bill", "bill_zh.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tables) != 1 {
		t.Fatalf("tables %d, want 1", len(res.Tables))
	}
	tb := res.Tables[0]
	if tb.Format.ID != "gpubill-bill" || tb.HeaderRow != 2 || res.Encoding != EncUTF8 || res.Delimiter != "," {
		t.Errorf("check = format %s, header row %d, encoding %s, delimiter %q; want gpubill-bill, 2 (after the title line), utf-8, comma",
			tb.Format.ID, tb.HeaderRow, res.Encoding, res.Delimiter)
	}
	if !reflect.DeepEqual(tb.Unknown, []string{"自定义备注"}) {
		t.Errorf("unknown columns %v, want [自定义备注]", tb.Unknown)
	}
	if len(tb.Mapped) != 23 || tb.Mapped[0] != (MappedColumn{Index: 1, Header: "平台", Field: "provider"}) {
		t.Errorf("mapped %d columns starting %+v, want 23 starting with 平台 → provider", len(tb.Mapped), tb.Mapped[0])
	}

	res, err = Check(filepath.Join("testdata", "focus", "focus_small.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Tables[0].Unknown; !reflect.DeepEqual(got, []string{"Id"}) {
		t.Errorf("FOCUS unknown columns %v, want [Id] (not in the spec, kept in raw)", got)
	}

	path := writeTemp(t, t.TempDir(), "x.csv", []byte("名称,数量\n苹果,3\n"))
	res, err = Check(path)
	if err == nil || !strings.Contains(err.Error(), `header candidates: "名称,数量"; "苹果,3"`) {
		t.Errorf("check of a non-bill: error %v, want one naming the first rows", err)
	}
}

// FuzzReadCSV feeds arbitrary bytes through detection, decoding, mapping and
// a dry-run import: nothing may panic, and a successful import's counts add
// up.
func FuzzReadCSV(f *testing.F) {
	for _, p := range []string{
		"gpubill-bill/bill_zh.csv", "gpubill-bill/bill_en.csv", "gpubill-bill/bad_quote.csv",
		"gpubill-flow/flow.csv", "focus/focus_small.csv",
	} {
		b, err := readTestdata(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("平台,费用类型,开始时间,结束时间,应付金额\nAutoDL,快照,20261003,20261004,\"(1.20)\"\n"))
	f.Add([]byte("\xff\xfe平\x00"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzScan(t, writeTemp(t, dir, "fuzz.csv", data))
	})
}

// fuzzScan is the body of the reader fuzz targets: detection and a full
// Scan (no ledger: SQLite under coverage instrumentation is too slow to
// fuzz through; the seeds are imported into real ledgers by other tests)
// must not panic or hang, and the counts must add up.
func fuzzScan(t *testing.T, path string) {
	t.Helper()
	Check(path)
	res, err := Scan(context.Background(), path, Options{TZ: shanghai, Preview: 2})
	if err == nil && (res.Read != res.New+res.Skipped || res.Duplicate != 0) {
		t.Fatalf("read %d != new %d + skipped %d (duplicate %d)", res.Read, res.New, res.Skipped, res.Duplicate)
	}
}

// FuzzReadXLSX does the same with workbooks, seeded with a small generated
// one (most mutations break the zip; some reach excelize's XML readers).
func FuzzReadXLSX(f *testing.F) {
	x := excelize.NewFile()
	x.SetSheetRow("Sheet1", "A1", &[]any{"平台", "实例ID", "费用类型", "开始时间", "结束时间", "应付金额"})
	x.SetSheetRow("Sheet1", "A2", &[]any{"AutoDL", "c1", "GPU计算", 46298.5, 46298.54, 1.88})
	var buf bytes.Buffer
	if err := x.Write(&buf); err != nil {
		f.Fatal(err)
	}
	x.Close()
	f.Add(buf.Bytes())
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzScan(t, writeTemp(t, dir, "fuzz.xlsx", data))
	})
}

package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/gpubill/gpubill/ledger"
)

// The hostile corpus: files a user or an attacker may drop into a bill
// folder. testdata/hostile/ holds the small ones (rewritten from
// hostileFiles with -update) and expect.txt their outcomes; the big ones
// (10 MB cells, a million columns, bombs) are made inside the test.

const hostileDir = "../testdata/hostile"

const templateHeader = "平台,实例ID,费用类型,开始时间,结束时间,应付金额\n"

var goodRows = "AutoDL,h-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88\n" +
	"AutoDL,h-1,GPU计算,2026-10-02 11:00,2026-10-02 12:00,1.88\n"

// minimalXLSX builds a workbook of one sheet from the sheet's XML rows (the
// content of <sheetData>), with extra parts (name → content) and the
// workbook's content type.
func minimalXLSX(t testing.TB, rows string, workbookType string, extra map[string]string) []byte {
	t.Helper()
	if workbookType == "" {
		workbookType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
	}
	parts := map[string]string{
		"[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/>
<Override PartName="/xl/workbook.xml" ContentType="` + workbookType + `"/>
<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
</Types>`,
		"_rels/.rels": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>
</Relationships>`,
		"xl/workbook.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<sheets><sheet name="账单" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>
</Relationships>`,
		"xl/worksheets/sheet1.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + rows + `</sheetData></worksheet>`,
	}
	for k, v := range extra {
		parts[k] = v
	}
	names := make([]string, 0, len(parts))
	for k := range parts {
		names = append(names, k)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(parts[n]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// xrow renders one sheet row of inline strings; a cell given as "=EXPR|v"
// is a formula with cached value v, "=EXPR|" one without a cached value.
func xrow(r int, cells ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<row r="%d">`, r)
	for i, c := range cells {
		ref := fmt.Sprintf("%c%d", 'A'+i, r)
		if strings.HasPrefix(c, "=") && strings.Contains(c, "|") {
			f, v, _ := strings.Cut(c[1:], "|")
			if v == "" {
				fmt.Fprintf(&b, `<c r="%s"><f>%s</f></c>`, ref, f)
			} else {
				fmt.Fprintf(&b, `<c r="%s"><f>%s</f><v>%s</v></c>`, ref, f, v)
			}
			continue
		}
		c = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(c)
		fmt.Fprintf(&b, `<c r="%s" t="inlineStr"><is><t>%s</t></is></c>`, ref, c)
	}
	b.WriteString(`</row>`)
	return b.String()
}

var xlsxHeader = []string{"平台", "实例ID", "费用类型", "开始时间", "结束时间", "应付金额"}

// zipOf builds a ZIP archive of the given members, in order.
func hzip(t testing.TB, members ...hzEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate}
		if m.mode != 0 {
			h.SetMode(m.mode)
		}
		h.Flags |= m.flags
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(m.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type hzEntry struct {
	name  string
	data  []byte
	mode  fs.FileMode
	flags uint16
}

func gbk(t testing.TB, s string) []byte {
	b, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func utf16le(s string, bom bool) []byte {
	var out []byte
	if bom {
		out = append(out, 0xFF, 0xFE)
	}
	for _, r := range s {
		if r > 0xFFFF {
			r = '?'
		}
		out = binary.LittleEndian.AppendUint16(out, uint16(r))
	}
	return out
}

func utf16be(s string) []byte {
	var out []byte
	for _, r := range s {
		out = binary.BigEndian.AppendUint16(out, uint16(r))
	}
	return out
}

// hostileFiles are the committed files of the corpus, by name.
func hostileFiles(t testing.TB) map[string][]byte {
	rng := rand.New(rand.NewPCG(8, 8))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	printable := make([]byte, 4096)
	for i := range printable {
		printable[i] = byte(' ' + rng.IntN(95))
		if i%97 == 96 {
			printable[i] = '\n'
		}
	}
	good := []byte(templateHeader + goodRows)
	goodXLSX := minimalXLSX(t, xrow(1, xlsxHeader...)+
		xrow(2, "AutoDL", "hx-1", "GPU计算", "2026-10-02 10:00", "2026-10-02 11:00", "1.88")+
		xrow(3, "AutoDL", "hx-1", "GPU计算", "2026-10-02 11:00", "2026-10-02 12:00", "1.88"), "", nil)
	// Late mixed encoding: valid UTF-8 for more than the 64 KiB sniffed,
	// then a row in GBK.
	var late strings.Builder
	late.WriteString(templateHeader)
	for i := 0; late.Len() < sniffSize+1024; i++ {
		fmt.Fprintf(&late, "AutoDL,late-%d,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.00\n", i)
	}
	lateMixed := append([]byte(late.String()), gbk(t, "AutoDL,late-x,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.00\n")...)

	files := map[string][]byte{
		// empty, truncated, random
		"empty.csv":              {},
		"bom_only.csv":           {0xEF, 0xBB, 0xBF},
		"blank_lines.csv":        []byte("\n\n   \n\t\n"),
		"random.csv":             random,
		"random_printable.csv":   printable,
		"nul_in_text.csv":        []byte(templateHeader + "AutoDL,h\x00-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88\n"),
		"truncated_mid_row.csv":  []byte(templateHeader + goodRows + "AutoDL,h-1,GPU计算,2026-10-02 12:00,2026-10-02 1"),
		"truncated_in_quote.csv": []byte(templateHeader + goodRows + "AutoDL,\"h-1,GPU计算,2026-10-02 12:00,2026-10-02 13:00,1.88\n"),
		"header_only.csv":        []byte(templateHeader),
		"truncated.xlsx":         goodXLSX[:len(goodXLSX)/2],
		"truncated_zip.zip":      hzip(t, hzEntry{name: "a.csv", data: good}, hzEntry{name: "b.csv", data: good})[:200],
		"cr_only_line_ends.csv":  []byte(strings.ReplaceAll(templateHeader+goodRows, "\n", "\r")),
		"crlf_line_ends.csv":     []byte(strings.ReplaceAll(templateHeader+goodRows, "\n", "\r\n")),
		// Lines ending LF, then CR alone (a Mac export appended): the rows
		// of the CR part run together into one line.
		"mixed_line_ends.csv": []byte(templateHeader + goodRows + strings.ReplaceAll(goodRows, "\n", "\r")),
		"cr_only_quoted_cell.csv": []byte(strings.ReplaceAll(strings.TrimSuffix(templateHeader, "\n")+",说明\n"+
			"AutoDL,h-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88,\"two\nlines\"\n", "\n", "\r")),
		"header_repeated_mid.csv": []byte(templateHeader + goodRows + templateHeader + goodRows),
		// quotes and ragged rows
		"unbalanced_quote_mid.csv": []byte(templateHeader + "AutoDL,h-1,GPU\"计算,2026-10-02 10:00,2026-10-02 11:00,1.88\n" +
			"AutoDL,\"h-2,GPU计算,2026-10-02 11:00,2026-10-02 12:00,1.88\n" + goodRows),
		"ragged_short_row.csv":           []byte(templateHeader + goodRows + "AutoDL,h-1,GPU计算\n"),
		"ragged_long_row.csv":            []byte(templateHeader + "AutoDL,h-9,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88,extra,cells,here\n"),
		"bad_amount.csv":                 []byte(templateHeader + "AutoDL,h-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,12,3O\n"),
		"bad_time.csv":                   []byte(templateHeader + "AutoDL,h-1,GPU计算,yesterday,2026-10-02 11:00,1.88\n"),
		"accounting_negative_signed.csv": []byte(templateHeader + goodRows + "AutoDL,h-1,GPU计算,2026-10-02 12:00,2026-10-02 13:00,(-1.20)\n"),
		// encodings
		"gbk.csv":                 gbk(t, templateHeader+goodRows),
		"utf16le_bom.csv":         utf16le(templateHeader+goodRows, true),
		"utf16be_no_bom.csv":      utf16be(templateHeader + goodRows),
		"mixed_utf8_gbk.csv":      append([]byte(templateHeader), gbk(t, goodRows)...),
		"mixed_encoding_late.csv": lateMixed,
		// A UTF-8 file with BOM and one row in GBK (a free-text cell: no
		// column check would catch it).
		"utf8_bom_gbk_row.csv": append(append([]byte("\xef\xbb\xbf"+strings.TrimSuffix(templateHeader, "\n")+",说明\n"+
			"AutoDL,h-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88,测试\n"),
			gbk(t, "AutoDL,h-1,GPU计算,2026-10-02 11:00,2026-10-02 12:00,1.88,测试\n")...),
			"AutoDL,h-1,GPU计算,2026-10-02 12:00,2026-10-02 13:00,1.88,x\n"...),
		// A GBK file with one row in UTF-8, in a free-text cell: GB18030
		// decodes it to noise without an error.
		"gbk_utf8_row.csv": append(append(gbk(t, strings.TrimSuffix(templateHeader, "\n")+",说明\n"+
			"AutoDL,h-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88,测试\n"),
			"AutoDL,h-1,compute,2026-10-02 11:00,2026-10-02 12:00,1.88,测试实例\n"...),
			gbk(t, "AutoDL,h-1,GPU计算,2026-10-02 12:00,2026-10-02 13:00,1.88,测试\n")...),
		// ASCII but for two bytes that are no text in any encoding read.
		"ascii_invalid_bytes.csv": []byte("provider,resource_id,kind,start,end,billed_cost,description\n" +
			"autodl,h-1,compute,2026-10-02 10:00,2026-10-02 11:00,1.88,ok\n" +
			"autodl,h-1,compute,2026-10-02 11:00,2026-10-02 12:00,1.88,a\xff\x80b\n"),
		// Valid UTF-8 holding U+FFFD: characters an earlier conversion lost.
		"utf8_replacement_char.csv": []byte(strings.TrimSuffix(templateHeader, "\n") + ",说明\n" +
			"AutoDL,h-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88,\ufffd\ufffd\n"),
		"shift_jis.csv": func() []byte {
			b, _ := japanese.ShiftJIS.NewEncoder().Bytes([]byte("プラットフォーム,インスタンス,種類,開始,終了,金額\nAutoDL,h-1,計算,2026-10-02 10:00,2026-10-02 11:00,1.88\n"))
			return b
		}(),
		// mislabelled
		"xlsx_named.csv":         goodXLSX,
		"html_named.xlsx":        []byte("<html><head><meta charset=\"utf-8\"></head><body><table><tr><td>平台</td><td>金额</td></tr><tr><td>AutoDL</td><td>1.88</td></tr></table></body></html>\n"),
		"html_doctype_named.xls": []byte("<!DOCTYPE html>\n<html><body><table><tr><th>账单</th></tr></table></body></html>\n"),
		"xml_spreadsheet_named.xls": []byte(`<?xml version="1.0"?>
<?mso-application progid="Excel.Sheet"?>
<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet">
<Worksheet ss:Name="账单"><Table><Row><Cell><Data ss:Type="String">平台</Data></Cell></Row></Table></Worksheet></Workbook>
`),
		"ole_named.xlsx": append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, random[:1024]...),
		"pdf_named.csv":  []byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n"),
		"zip_named.xlsx": hzip(t, hzEntry{name: "bill.csv", data: good}),
		"empty_zip.zip":  hzip(t),
		"png_named.csv":  append([]byte("\x89PNG\r\n\x1a\n"), random[:512]...),
		// zips
		"zip_slip.zip":      hzip(t, hzEntry{name: "../../evil.csv", data: good}),
		"zip_absolute.zip":  hzip(t, hzEntry{name: "/tmp/evil.csv", data: good}),
		"zip_backslash.zip": hzip(t, hzEntry{name: `..\..\evil.csv`, data: good}),
		"zip_drive.zip":     hzip(t, hzEntry{name: `C:/Windows/evil.csv`, data: good}),
		"zip_symlink.zip":   hzip(t, hzEntry{name: "link.csv", data: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777}),
		"zip_encrypted.zip": hzip(t, hzEntry{name: "secret.csv", data: good, flags: 0x1}),
		"zip_only_dirs.zip": hzip(t, hzEntry{name: "dir/", data: nil}, hzEntry{name: "__MACOSX/._a.csv", data: good}),
		"zip_mixed.zip": hzip(t, hzEntry{name: "good.csv", data: good},
			hzEntry{name: "bad.csv", data: []byte(templateHeader + "AutoDL,h-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,abc\n")}),
		"zip_nested_deep.zip": func() []byte {
			b := good
			name := "bill.csv"
			for i := 0; i < 4; i++ {
				b = hzip(t, hzEntry{name: name, data: b})
				name = fmt.Sprintf("level%d.zip", i+1)
			}
			return b
		}(),
		"zip_recursive.zip": func() []byte { // the same archive inside itself, as deep as it takes
			b := hzip(t, hzEntry{name: "zip_recursive.zip", data: nil})
			for i := 0; i < 6; i++ {
				b = hzip(t, hzEntry{name: "zip_recursive.zip", data: b})
			}
			return b
		}(),
		// formulas and macros
		"formula_cached.xlsx": minimalXLSX(t, xrow(1, xlsxHeader...)+
			xrow(2, "AutoDL", "hf-1", "GPU计算", "2026-10-02 10:00", "2026-10-02 11:00", "=0.94*2|1.88")+
			xrow(3, "AutoDL", "hf-1", "GPU计算", "2026-10-02 11:00", "2026-10-02 12:00", `=WEBSERVICE("http://example.invalid/x")|1.88`), "", nil),
		"formula_no_cache.xlsx": minimalXLSX(t, xrow(1, xlsxHeader...)+
			xrow(2, "AutoDL", "hf-2", "GPU计算", "2026-10-02 10:00", "2026-10-02 11:00", "1.88")+
			xrow(3, "AutoDL", "hf-2", "GPU计算", "2026-10-02 11:00", "2026-10-02 12:00", "=0.94*2|"), "", nil),
		"macro.xlsm": minimalXLSX(t, xrow(1, xlsxHeader...)+
			xrow(2, "AutoDL", "hm-1", "GPU计算", "2026-10-02 10:00", "2026-10-02 11:00", "1.88"),
			"application/vnd.ms-excel.sheet.macroEnabled.main+xml",
			map[string]string{"xl/vbaProject.bin": "\xd0\xcf\x11\xe0 Sub Auto_Open(): Shell \"calc\": End Sub"}),
		// injection: stored as text, never executed
		"injection.csv": []byte(templateHeader +
			"AutoDL,=HYPERLINK(\"http://evil.invalid\"),GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88\n" +
			"AutoDL,+cmd|' /C calc'!A0,GPU计算,2026-10-02 11:00,2026-10-02 12:00,1.88\n" +
			"AutoDL,@SUM(1+1),GPU计算,2026-10-02 12:00,2026-10-02 13:00,1.88\n" +
			"AutoDL,-2+3,GPU计算,2026-10-02 13:00,2026-10-02 14:00,-1.2\n"),
		"injection.xlsx": minimalXLSX(t, xrow(1, xlsxHeader...)+
			xrow(2, "AutoDL", "=1+1", "GPU计算", "2026-10-02 10:00", "2026-10-02 11:00", "1.88")+
			xrow(3, "AutoDL", "@cmd", "GPU计算", "2026-10-02 11:00", "2026-10-02 12:00", "1.88"), "", nil),
	}
	return files
}

// hostileExpect is one line of expect.txt.
type hostileExpect struct {
	file    string
	refused bool   // at least one result failed
	rows    int    // rows the file adds (members that import fine count)
	errSub  string // a substring of the errors ("" for none)
}

func readExpect(t *testing.T) []hostileExpect {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(hostileDir, "expect.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []hostileExpect
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("expect.txt:%d: want 4 tab-separated fields (file, ok|refused, rows, error), got %d", i+1, len(f))
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || (f[1] != "ok" && f[1] != "refused") {
			t.Fatalf("expect.txt:%d: bad outcome %q or rows %q", i+1, f[1], f[2])
		}
		out = append(out, hostileExpect{file: f[0], refused: f[1] == "refused", rows: n, errSub: f[3]})
	}
	return out
}

// ledgerCounts is the number of import records and of rows in a ledger.
func ledgerCounts(t testing.TB, db *ledger.DB) [2]int {
	t.Helper()
	return [2]int{countRows(t, db, "imports"), countRows(t, db, "line_items") + countRows(t, db, "transactions") + countRows(t, db, "payments")}
}

// checkHostile imports path into db and checks its outcome against want.
func checkHostile(t *testing.T, db *ledger.DB, path string, want hostileExpect, opts Options) {
	t.Helper()
	before := ledgerCounts(t, db)
	results, _ := ImportPaths(context.Background(), db, []string{path}, opts)
	after := ledgerCounts(t, db)
	var errs []string
	newRows := 0
	for _, r := range results {
		newRows += r.New
		if r.Err == nil {
			continue
		}
		msg := r.Err.Error()
		errs = append(errs, msg)
		if !strings.HasPrefix(msg, path) {
			t.Errorf("error %q does not start with the file's path %s", msg, path)
		}
		if r.Status != StatusFailed || r.New != 0 {
			t.Errorf("%s: a refused file has status %s and %d new rows, want failed and 0", r.Path, r.Status, r.New)
		}
	}
	if got := len(errs) > 0; got != want.refused {
		t.Errorf("refused: got %v (errors %q), want %v", got, errs, want.refused)
	}
	if want.errSub != "" && !strings.Contains(strings.Join(errs, "\n"), want.errSub) {
		t.Errorf("got errors %q, want one containing %q", errs, want.errSub)
	}
	if newRows != want.rows {
		t.Errorf("got %d new rows, want %d", newRows, want.rows)
	}
	// No partial rows: the ledger grew by exactly the rows reported new.
	if after[1]-before[1] != newRows {
		t.Errorf("the ledger grew by %d rows, the results report %d new", after[1]-before[1], newRows)
	}
	if newRows == 0 && after[0] != before[0] && want.refused {
		t.Errorf("a refused file left %d import record(s)", after[0]-before[0])
	}
}

func openHostileLedger(t *testing.T) *ledger.DB {
	t.Helper()
	db, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestHostileCorpus imports every file of testdata/hostile (each into a
// fresh ledger) and checks it against expect.txt: refused with an error
// that starts with the file's path (and names the row and column where
// there is one), or imported; either way the ledger holds exactly the rows
// reported new, and nothing panics.
func TestHostileCorpus(t *testing.T) {
	if *update {
		if err := os.MkdirAll(hostileDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range hostileFiles(t) {
			if err := os.WriteFile(filepath.Join(hostileDir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	expect := readExpect(t)
	listed := map[string]bool{}
	for _, e := range expect {
		listed[e.file] = true
	}
	entries, err := os.ReadDir(hostileDir)
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, e := range entries {
		if e.Name() == "expect.txt" || e.Name() == "README.md" {
			continue
		}
		files++
		if !listed[e.Name()] {
			t.Errorf("%s is not in expect.txt", e.Name())
		}
	}
	if files < 40 {
		t.Errorf("the corpus holds %d files, want at least 40", files)
	}
	for _, want := range expect {
		t.Run(want.file, func(t *testing.T) {
			// A copy in a temporary folder: the zip walk needs no writes,
			// but the path then does not depend on the working directory.
			src, err := os.ReadFile(filepath.Join(hostileDir, want.file))
			if err != nil {
				t.Fatal(err)
			}
			path := writeTemp(t, t.TempDir(), want.file, src)
			checkHostile(t, openHostileLedger(t), path, want, Options{TZ: shanghai})
		})
	}
}

// TestHostileGenerated covers what is too big to commit: made here, sized
// to prove each limit cheaply.
func TestHostileGenerated(t *testing.T) {
	dir := t.TempDir()
	bigCell := func() []byte {
		var b bytes.Buffer
		b.WriteString(templateHeader)
		b.WriteString("AutoDL,h-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88\n")
		b.WriteString("AutoDL,")
		b.Write(bytes.Repeat([]byte("x"), 10<<20))
		b.WriteString(",GPU计算,2026-10-02 11:00,2026-10-02 12:00,1.88\n")
		return b.Bytes()
	}
	manyColumns := func() []byte {
		var b bytes.Buffer
		b.WriteString(templateHeader)
		b.WriteString("AutoDL,h-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88")
		b.Write(bytes.Repeat([]byte(","), 1_000_000))
		b.WriteString("\n")
		return b.Bytes()
	}
	manyColumnsHeader := func() []byte {
		var b bytes.Buffer
		b.WriteString(strings.TrimSuffix(templateHeader, "\n"))
		for i := 0; i < 1_000_000; i++ {
			b.WriteString(",c")
			b.WriteString(strconv.Itoa(i))
		}
		b.WriteString("\n" + goodRows)
		return b.Bytes()
	}
	endlessLine := func() []byte { // 40 MB with no newline after the header
		var b bytes.Buffer
		b.WriteString(templateHeader)
		b.WriteString("AutoDL,")
		b.Write(bytes.Repeat([]byte("x"), 40<<20))
		return b.Bytes()
	}
	// 16 MiB of zeros deflate to about 16 KiB: a ratio of 1000:1, over the
	// default limit (200:1) and over a size limit set low for the test.
	const bombSize = 16 << 20
	bomb := deflated(t, bombSize)
	bombCRC := crc32.ChecksumIEEE(make([]byte, bombSize))
	zipBomb := func() []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		rawMember(t, zw, "bomb.csv", bomb, uint64(len(bomb)), bombSize, bombCRC)
		zw.Close()
		return buf.Bytes()
	}
	xlsxBomb := func(declared uint64) []byte {
		// A worksheet of 16 MiB of zeros (XML it is not: the limits refuse
		// it before anything parses it).
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		base := minimalXLSX(t, xrow(1, xlsxHeader...), "", nil)
		zr, _ := zip.NewReader(bytes.NewReader(base), int64(len(base)))
		for _, f := range zr.File {
			if f.Name == "xl/worksheets/sheet1.xml" {
				continue
			}
			w, _ := zw.Create(f.Name)
			rc, _ := f.Open()
			bb := new(bytes.Buffer)
			bb.ReadFrom(rc)
			rc.Close()
			w.Write(bb.Bytes())
		}
		rawMember(t, zw, "xl/worksheets/sheet1.xml", bomb, uint64(len(bomb)), declared, bombCRC)
		zw.Close()
		return buf.Bytes()
	}
	tests := []struct {
		name string
		data func() []byte
		opts Options
		want hostileExpect
	}{
		{"cell_10mb.csv", bigCell, Options{}, hostileExpect{refused: true, errSub: "cell_10mb.csv:3:2: "}},
		{"columns_1m.csv", manyColumns, Options{}, hostileExpect{refused: true, errSub: "columns_1m.csv:2: "}},
		{"line_40mb.csv", endlessLine, Options{}, hostileExpect{refused: true, errSub: "line_40mb.csv:2: a line longer than 32 MiB"}},
		{"header_1m_columns.csv", manyColumnsHeader, Options{}, hostileExpect{refused: true, errSub: "header_1m_columns.csv:1: "}},
		{"zip_bomb.zip", zipBomb, Options{}, hostileExpect{refused: true, errSub: "zip_bomb.zip/bomb.csv: declares a compression ratio over 200:1"}},
		{"zip_bomb_member_limit.zip", zipBomb, Options{Zip: ZipLimits{MemberSize: 1 << 20, Ratio: 1 << 20}},
			hostileExpect{refused: true, errSub: "over the limit of 1048576 per member: refused (possible zip bomb)"}},
		{"xlsx_bomb_ratio.xlsx", func() []byte { return xlsxBomb(bombSize) }, Options{},
			hostileExpect{refused: true, errSub: "xlsx_bomb_ratio.xlsx: workbook part xl/worksheets/sheet1.xml has a compression ratio over 200:1"}},
		{"xlsx_bomb_member_limit.xlsx", func() []byte { return xlsxBomb(bombSize) }, Options{Zip: ZipLimits{MemberSize: 8 << 20, Ratio: 1 << 20}},
			hostileExpect{refused: true, errSub: "declares 16777216 bytes uncompressed, over the limit of 8388608"}},
		{"xlsx_bomb_total_limit.xlsx", func() []byte { return xlsxBomb(bombSize) }, Options{Zip: ZipLimits{ArchiveSize: 8 << 20, Ratio: 1 << 20}},
			hostileExpect{refused: true, errSub: "the workbook's parts hold more than 8388608 bytes uncompressed (limit)"}},
		// A header that lies about the size: archive/zip stops at the
		// declared size, so the part cannot unpack beyond what was checked.
		{"xlsx_bomb_lying.xlsx", func() []byte { return xlsxBomb(1000) }, Options{},
			hostileExpect{refused: true, errSub: "xlsx_bomb_lying.xlsx: no known bill format recognised"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, dir, tt.name, tt.data())
			opts := tt.opts
			opts.TZ = shanghai
			checkHostile(t, openHostileLedger(t), path, tt.want, opts)
		})
	}
}

// TestHostileFolder imports the whole corpus as one folder beside a good
// bill: the good bill and every acceptable file are imported, every refused
// file is reported with its error, and the walk never stops early.
func TestHostileFolder(t *testing.T) {
	expect := readExpect(t)
	dir := t.TempDir()
	want := map[string]hostileExpect{}
	wantRows := 2
	for _, e := range expect {
		b, err := os.ReadFile(filepath.Join(hostileDir, e.file))
		if err != nil {
			t.Fatal(err)
		}
		writeTemp(t, dir, e.file, b)
		want[e.file] = e
	}
	writeTemp(t, dir, "zzz_good.csv", []byte(templateHeader+
		"AutoDL,last-1,GPU计算,2026-10-03 10:00,2026-10-03 11:00,1.88\nAutoDL,last-1,GPU计算,2026-10-03 11:00,2026-10-03 12:00,1.88\n"))
	db := openHostileLedger(t)
	results, err := ImportPaths(context.Background(), db, []string{dir}, Options{TZ: shanghai})
	if err == nil {
		t.Error("ImportPaths of the folder returned no error, want the refused files' errors joined")
	}
	refused := map[string]bool{}
	newRows := 0
	sawGood := false
	for _, r := range results {
		rel, _ := filepath.Rel(dir, r.Path)
		top := strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]
		if top == "zzz_good.csv" {
			sawGood = r.Status == StatusOK && r.New == 2
		}
		if r.Err != nil {
			refused[top] = true
		}
		newRows += r.New
	}
	if !sawGood {
		t.Error("the good bill after the hostile files was not imported")
	}
	for name, e := range want {
		if refused[name] != e.refused {
			t.Errorf("%s: refused %v in the folder, want %v", name, refused[name], e.refused)
		}
	}
	if got := ledgerCounts(t, db)[1]; got != newRows {
		t.Errorf("the ledger holds %d rows, the results report %d new", got, newRows)
	}
	// Rows of acceptable files may repeat between files (the same bill in
	// several encodings): the folder adds at least the good bill.
	if newRows < wantRows {
		t.Errorf("got %d new rows, want at least %d", newRows, wantRows)
	}
}

// TestHostileTextStaysText: formula-looking cells are stored verbatim as
// text (never evaluated), and amounts stay numbers; formulas of a workbook
// give their cached values.
func TestHostileTextStaysText(t *testing.T) {
	db := openHostileLedger(t)
	for _, name := range []string{"injection.csv", "injection.xlsx", "formula_cached.xlsx"} {
		b, err := os.ReadFile(filepath.Join(hostileDir, name))
		if err != nil {
			t.Fatal(err)
		}
		path := writeTemp(t, t.TempDir(), name, b)
		if _, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	rows, err := db.SQL().Query(`SELECT resource_id, billed_cost FROM line_items ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id, cost string
		rows.Scan(&id, &cost)
		got = append(got, id+" "+cost)
	}
	want := []string{
		`=HYPERLINK("http://evil.invalid") 1.88`, `+cmd|' /C calc'!A0 1.88`, `@SUM(1+1) 1.88`, `-2+3 -1.2`,
		`=1+1 1.88`, `@cmd 1.88`,
		`hf-1 1.88`, `hf-1 1.88`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCheckRefusesWorkbookBomb(t *testing.T) {
	const size = 16 << 20
	bomb := deflated(t, size)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("[Content_Types].xml")
	w.Write([]byte("<Types/>"))
	rawMember(t, zw, "xl/worksheets/sheet1.xml", bomb, uint64(len(bomb)), size, crc32.ChecksumIEEE(make([]byte, size)))
	zw.Close()
	path := writeTemp(t, t.TempDir(), "bomb.xlsx", buf.Bytes())
	_, err := Check(path)
	if err == nil || !strings.Contains(err.Error(), "possible zip bomb") {
		t.Errorf("Check of a workbook bomb: got %v, want a zip-bomb refusal", err)
	}
}

func TestSplitCellRef(t *testing.T) {
	tests := []struct {
		ref      string
		col, row int
	}{
		{"A1", 1, 1}, {"F12", 6, 12}, {"Z3", 26, 3}, {"AA10", 27, 10}, {"XFD1048576", 16384, 1048576},
		{"", 0, 0}, {"12", 0, 0}, {"A", 0, 0}, {"a1", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			col, row := splitCellRef(tt.ref)
			if col != tt.col || row != tt.row {
				t.Errorf("splitCellRef(%q) = %d, %d; want %d, %d", tt.ref, col, row, tt.col, tt.row)
			}
		})
	}
}

func TestLooksHTML(t *testing.T) {
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"doctype", "<!DOCTYPE html><html>", true},
		{"html after spaces", "\r\n  <HTML lang=zh>", true},
		{"bare table", "<table border=1><tr><td>平台</td>", true},
		{"csv", "平台,实例ID\n", false},
		{"csv mentioning html later", "description\n<html>\n", false},
		{"json", `[{"a":1}]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := looksHTML([]byte(tt.text)); got != tt.want {
				t.Errorf("looksHTML(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestExtraCellsAllowTrailingSeparators(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		wantErr string // "" = imported
	}{
		{"trailing empty cells", templateHeader + "AutoDL,t-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88,,\n", ""},
		{"unquoted thousands separator", templateHeader + "AutoDL,t-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1,234.56\n",
			"x.csv:2:7: row 2 has 7 cells, the header has 6: a value with an unquoted comma?"},
		{"quoted thousands separator", templateHeader + "AutoDL,t-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,\"1,234.56\"\n", ""},
		{"tab separated", strings.ReplaceAll(templateHeader, ",", "\t") + "AutoDL\tt-1\tGPU计算\t2026-10-02 10:00\t2026-10-02 11:00\t1.88\tx\n",
			"x.csv:2:7: row 2 has 7 cells, the header has 6: a value with an unquoted tab?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, t.TempDir(), "x.csv", []byte(tt.data))
			_, err := Scan(context.Background(), path, Options{TZ: shanghai})
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("got %v, want the row imported", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("got %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestRowLength checks that a row with fewer or more cells than the header
// is refused with the row a user sees (the file's line) and both counts,
// before any of its shifted cells is read as the wrong column; a row that
// only lacks optional trailing cells is read.
func TestRowLength(t *testing.T) {
	const tmpl23 = "provider,account,project,resource_id,resource_name,parent_resource_id,kind,pricing_model,gpu_model,gpu_count," +
		"start,end,usage_start,usage_end,billed_quantity,unit,unit_price,list_cost,billed_cost,voucher_paid,cash_paid,description,currency\n"
	tmplRow := func(cost, desc string) string {
		return "autodl,lab-a,p,i1,n,,compute,on_demand,RTX 4090,1,2026-10-03 10:00:00,2026-10-03 11:00:00,,,1,hour,1.88," +
			cost + "," + cost + ",0," + cost + "," + desc + ",CNY\n"
	}
	const header = "平台,实例ID,费用类型,开始时间,结束时间,应付金额,项目,说明\n"
	tests := []struct {
		name    string
		data    string
		wantErr string // "" = imported
	}{
		{"full rows", header + "AutoDL,r-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88,p,x\n", ""},
		{"optional trailing cells missing", header + "AutoDL,r-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88\n", ""},
		// A lost comma between 开始时间 and 结束时间: every later cell moves
		// left, and 结束时间 would read the amount.
		{"lost separator", "账单导出\n\n" + header +
			"AutoDL,r-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88,p,x\n" +
			"AutoDL,r-2,GPU计算,2026-10-02 10:002026-10-02 11:00,1.88\n",
			"x.csv:5: row 5 has 5 cells, the header has 8 (column 应付金额 is missing)"},
		{"extra cell", header + "AutoDL,r-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1,88,p,x\n",
			"x.csv:2:9: row 2 has 9 cells, the header has 8: a value with an unquoted comma?"},
		// The 23 columns of the template, 原价 lost in the middle of row 4:
		// 代金券's 0 would land in 应付金额 and the currency in 说明.
		{"gap in the middle", tmpl23 + tmplRow("1.88", "") + tmplRow("1.88", "") +
			"autodl,lab-a,p,i1,n,,compute,on_demand,RTX 4090,1,2026-10-03 12:00:00,2026-10-03 13:00:00,,,1,hour,1.88,1.88,0,1.88,,CNY\n",
			"x.csv:4: row 4 has 22 cells, the header has 23 (column currency is missing)"},
		// An 8-cell row is refused for its length, not for an empty time.
		{"8 of 23 cells", tmpl23 + tmplRow("1.88", "") + "autodl,lab-a,p,i1,n,,compute,on_demand\n",
			"x.csv:3: row 3 has 8 cells, the header has 23 (column start is missing)"},
		{"template without trailing description and currency", tmpl23 +
			"autodl,lab-a,p,i1,n,,compute,on_demand,RTX 4090,1,2026-10-03 12:00:00,2026-10-03 13:00:00,,,1,hour,1.88,1.88,1.88,0,1.88\n",
			"x.csv:2: row 2 has 21 cells, the header has 23 (column currency is missing)"},
		{"template without trailing description", strings.Replace(tmpl23, ",description,currency", ",currency,description", 1) +
			"autodl,lab-a,p,i1,n,,compute,on_demand,RTX 4090,1,2026-10-03 12:00:00,2026-10-03 13:00:00,,,1,hour,1.88,1.88,1.88,0,1.88,CNY\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, t.TempDir(), "x.csv", []byte(tt.data))
			_, err := Scan(context.Background(), path, Options{TZ: shanghai})
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("got %v, want the row imported", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("got %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

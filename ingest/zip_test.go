package ingest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/gpubill/gpubill/internal/testkit"
)

// zipEntry is one member of a test archive: data, or a folder when name ends
// in "/".
type zipEntry struct {
	name string
	data []byte
}

// makeZip builds an archive with archive/zip, members compressed.
func makeZip(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.Create(e.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// smallBill is a template bill with two rows that bill_zh.csv does not have.
var smallBill = []byte("平台,实例ID,费用类型,开始时间,结束时间,应付金额\n" +
	"AutoDL,zip-1,GPU计算,2026-10-02 10:00,2026-10-02 11:00,1.88\n" +
	"AutoDL,zip-1,GPU计算,2026-10-02 11:00,2026-10-02 12:00,1.88\n")

func hexSHA(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestImportZipFolder: a folder holding a bill and an archive that holds the
// same bill as CSV and XLSX, a nested archive with another bill, a folder
// entry and members to skip. Every bill member is a file of its own with its
// own Result and imports record (path and digest of the member); the copies
// add nothing, and importing the folder again adds nothing at all.
func TestImportZipFolder(t *testing.T) {
	ctx := context.Background()
	v := billVariants(t)
	csvBill, xlsxBill := v["utf8.csv"], v["workbook.xlsx"]
	dir := t.TempDir()
	root := filepath.Join(dir, "2026-10")
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTemp(t, root, "bill.csv", csvBill)
	inner := makeZip(t, zipEntry{"b.csv", smallBill})
	writeTemp(t, filepath.Join(root, "sub"), "month.zip", makeZip(t,
		zipEntry{"a/", nil},
		zipEntry{"a/bill.csv", csvBill},
		zipEntry{"a/book.xlsx", xlsxBill},
		zipEntry{"inner.zip", inner},
		zipEntry{"__MACOSX/a/._bill.csv", []byte("\x00\x05\x16\x07junk")},
		zipEntry{"a/.DS_Store", []byte("\x00\x00\x00\x01Bud1")},
		zipEntry{".hidden/x.csv", []byte("junk")},
	))
	db := testkit.OpenLedger(t)
	results, err := ImportPaths(ctx, db, []string{root}, Options{TZ: shanghai})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	zp := filepath.Join(root, "sub", "month.zip")
	type want struct {
		path, format string
		newRows      int
		dupNonZero   bool
	}
	wants := []want{
		{filepath.Join(root, "bill.csv"), "gpubill-bill", -1, false},
		{zp + "/a/bill.csv", "gpubill-bill", 0, true},
		{zp + "/a/book.xlsx", "gpubill-bill", 0, true},
		{zp + "/inner.zip/b.csv", "gpubill-bill", 2, false},
	}
	if len(results) != len(wants) {
		for _, r := range results {
			t.Logf("result %s %s new %d err %v", r.Path, r.Status, r.New, r.Err)
		}
		t.Fatalf("got %d results, want %d", len(results), len(wants))
	}
	for i, w := range wants {
		r := results[i]
		if r.Path != w.path || r.Format != w.format || r.Status != StatusOK {
			t.Errorf("result %d: got %s %s %s (%v), want %s %s ok", i, r.Path, r.Format, r.Status, r.Err, w.path, w.format)
		}
		if w.newRows >= 0 && r.New != w.newRows {
			t.Errorf("%s: got %d new rows, want %d", r.Path, r.New, w.newRows)
		}
		if w.dupNonZero && (r.Duplicate == 0 || r.Duplicate != r.Read-r.Skipped) {
			t.Errorf("%s: got %d duplicates of %d read (%d skipped), want all duplicate", r.Path, r.Duplicate, r.Read, r.Skipped)
		}
	}
	if results[0].New == 0 {
		t.Errorf("the plain bill added nothing")
	}
	items := countRows(t, db, "line_items")
	if want := results[0].New + 2; items != want {
		t.Errorf("got %d line items, want %d", items, want)
	}

	// the imports records carry the member's path, digest and size
	var sum string
	var size int64
	if err := db.SQL().QueryRow(`SELECT sha256, size FROM imports WHERE path = ?`, zp+"/a/bill.csv").Scan(&sum, &size); err != nil {
		t.Fatalf("imports record of the member: %v", err)
	}
	if sum != hexSHA(csvBill) || size != int64(len(csvBill)) {
		t.Errorf("member record: got sha256 %s size %d, want %s %d", sum, size, hexSHA(csvBill), len(csvBill))
	}
	var evidencePath string
	if err := db.SQL().QueryRow(`SELECT i.path FROM line_items l JOIN imports i ON i.id = l.import_id WHERE l.resource_id = 'zip-1' LIMIT 1`).Scan(&evidencePath); err != nil {
		t.Fatal(err)
	}
	if evidencePath != zp+"/inner.zip/b.csv" {
		t.Errorf("nested member rows point to %q, want %q", evidencePath, zp+"/inner.zip/b.csv")
	}

	// again: nothing new
	again, err := ImportPaths(ctx, db, []string{root}, Options{TZ: shanghai})
	if err != nil {
		t.Fatalf("re-import: %v", err)
	}
	added := 0
	for _, r := range again {
		added += r.New
	}
	if added != 0 || len(again) != len(wants) {
		t.Errorf("re-import: got %d new rows in %d results, want 0 in %d", added, len(again), len(wants))
	}
	if got := countRows(t, db, "line_items"); got != items {
		t.Errorf("re-import: got %d line items, want %d", got, items)
	}
}

// TestImportZipUnsafeNames: members whose names would leave a folder are
// refused by name; the other members import.
func TestImportZipUnsafeNames(t *testing.T) {
	dir := t.TempDir()
	zp := writeTemp(t, dir, "evil.zip", makeZip(t,
		zipEntry{"../escape.csv", smallBill},
		zipEntry{"/etc/abs.csv", smallBill},
		zipEntry{"C:/win.csv", smallBill},
		zipEntry{"ok/../../up.csv", smallBill},
		zipEntry{"ok/bill.csv", smallBill},
	))
	db := testkit.OpenLedger(t)
	results, err := ImportPaths(context.Background(), db, []string{zp}, Options{TZ: shanghai})
	if err == nil {
		t.Fatal("no error for unsafe members")
	}
	refused := map[string]bool{}
	ok := 0
	for _, r := range results {
		switch {
		case r.Status == StatusOK && r.Path == zp+"/ok/bill.csv" && r.New == 2:
			ok++
		case r.Status == StatusFailed && r.Path == zp && strings.Contains(r.Err.Error(), "unsafe name"):
			for _, n := range []string{"../escape.csv", "/etc/abs.csv", "C:/win.csv", "ok/../../up.csv"} {
				if strings.Contains(r.Err.Error(), `"`+n+`"`) {
					refused[n] = true
				}
			}
		default:
			t.Errorf("unexpected result %s %s new %d: %v", r.Path, r.Status, r.New, r.Err)
		}
	}
	if ok != 1 || len(refused) != 4 {
		t.Errorf("got %d imported and %d refused by name (%v), want 1 and 4", ok, len(refused), refused)
	}
	if _, err := os.Stat(filepath.Join(dir, "..", "escape.csv")); err == nil {
		t.Errorf("a member was written outside the folder")
	}
}

// TestSafeMemberName checks the name rules on their own.
func TestSafeMemberName(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"a/b.csv", "a/b.csv", true},
		{"./a//b.csv", "a/b.csv", true},
		{"a/../b.csv", "", false},
		{"..", "", false},
		{"/b.csv", "", false},
		{"c:b.csv", "", false},
		{"a\x00b.csv", "", false},
		{"", "", false},
		{"账单/十月.csv", "账单/十月.csv", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := safeMemberName(tc.name)
			if got != tc.want || ok != tc.ok {
				t.Errorf("got %q %v, want %q %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// deflated returns n zero bytes compressed with raw deflate.
func deflated(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	fw, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	zero := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, len(zero))
		fw.Write(zero[:k])
		n -= k
	}
	fw.Close()
	return buf.Bytes()
}

// rawMember adds a member whose compressed data and header sizes are given
// as they are (a header may lie).
func rawMember(t testing.TB, zw *zip.Writer, name string, comp []byte, declComp, declUncomp uint64, crc uint32) {
	t.Helper()
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate,
		CompressedSize64: declComp, UncompressedSize64: declUncomp, CRC32: crc})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(comp); err != nil {
		t.Fatal(err)
	}
}

// walkBytes walks an archive held in memory with walkZip, counting the bytes
// read from it, and returns the members (content discarded) and that count.
func walkBytes(t *testing.T, data []byte, lim ZipLimits) ([]zipMember, int64) {
	t.Helper()
	cr := &countingReaderAt{r: bytes.NewReader(data)}
	kind, za := sniffZip(cr, int64(len(data)))
	if kind != zipArchive {
		t.Fatalf("not recognised as an archive (kind %d)", kind)
	}
	var got []zipMember
	if err := walkZip(context.Background(), "t.zip", za, int64(len(data)), lim, func(m zipMember) {
		m.file = nil
		got = append(got, m)
	}); err != nil {
		t.Fatal(err)
	}
	return got, cr.n
}

// TestZipBombLimits: members over a limit are refused while the archive's
// other members are read, without decompressing the bomb.
func TestZipBombLimits(t *testing.T) {
	const bombSize = 64 << 20
	bomb := deflated(t, bombSize)
	crc := crc32.ChecksumIEEE(make([]byte, bombSize))
	random := make([]byte, 2<<20)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	t.Logf("bomb: %d bytes deflated to %d", bombSize, len(bomb))

	for _, tc := range []struct {
		name     string
		lim      ZipLimits
		build    func(zw *zip.Writer)
		wantErr  string // error of the member bomb.csv
		maxRead  int64  // bytes read from the archive at most
		wantOKs  int    // members read without error
		wantErrs int
	}{
		{
			// honest header over a small member limit: refused from the header
			name: "member size, declared",
			lim:  ZipLimits{MemberSize: 1 << 20},
			build: func(zw *zip.Writer) {
				rawMember(t, zw, "bomb.csv", bomb, uint64(len(bomb)), bombSize, crc)
				w, _ := zw.Create("ok.csv")
				w.Write(smallBill)
			},
			wantErr: "over the limit of 1048576 per member", maxRead: int64(len(bomb)) / 4, wantOKs: 1, wantErrs: 1,
		},
		{
			// a header that declares less than the data holds: reading stops
			// at the declared size (archive/zip), long before the end
			name: "member size, lying header",
			lim:  ZipLimits{MemberSize: 1 << 20},
			build: func(zw *zip.Writer) {
				rawMember(t, zw, "bomb.csv", bomb, uint64(len(bomb)), 1000, crc)
			},
			wantErr: "cannot read ZIP member", maxRead: int64(len(bomb)) / 4, wantErrs: 1,
		},
		{
			// a header that declares a plausible ratio (compressed size as
			// big as the padding after it): the ratio of the bytes really
			// consumed gives it away while reading
			name: "ratio, while reading",
			lim:  ZipLimits{},
			build: func(zw *zip.Writer) {
				rawMember(t, zw, "bomb.csv", bomb, uint64(len(random)), bombSize, crc)
				w, _ := zw.CreateHeader(&zip.FileHeader{Name: "__MACOSX/pad", Method: zip.Store})
				w.Write(random)
			},
			wantErr: "compression ratio over 200:1", maxRead: int64(len(bomb)) / 4, wantErrs: 1,
		},
		{
			name: "ratio, declared",
			lim:  ZipLimits{},
			build: func(zw *zip.Writer) {
				rawMember(t, zw, "bomb.csv", bomb, uint64(len(bomb)), bombSize, crc)
			},
			wantErr: "declares a compression ratio over 200:1", maxRead: int64(len(bomb)) / 4, wantErrs: 1,
		},
		{
			// the archive limit refuses the member that crosses it and the
			// rest of the archive
			name: "archive size",
			lim:  ZipLimits{ArchiveSize: 3 << 20},
			build: func(zw *zip.Writer) {
				for _, n := range []string{"a.bin", "b.bin", "bomb.csv", "c.bin"} {
					w, _ := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Store})
					w.Write(random[:1<<20+1])
				}
			},
			wantErr: "more than 3145728 bytes uncompressed", maxRead: 4 << 20, wantOKs: 2, wantErrs: 2,
		},
		{
			name: "member count",
			lim:  ZipLimits{Members: 2},
			build: func(zw *zip.Writer) {
				for _, n := range []string{"a.csv", "b.csv", "bomb.csv", "c.csv"} {
					w, _ := zw.Create(n)
					w.Write(smallBill)
				}
			},
			maxRead: 1 << 20, wantOKs: 0, wantErrs: 1, // refused whole, before any member is read
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			zw := zip.NewWriter(&buf)
			tc.build(zw)
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			members, read := walkBytes(t, buf.Bytes(), tc.lim)
			oks, errs := 0, 0
			for _, m := range members {
				if m.err == nil {
					oks++
					continue
				}
				errs++
				if strings.HasSuffix(m.path, "bomb.csv") && !strings.Contains(m.err.Error(), tc.wantErr) {
					t.Errorf("bomb refused with %q, want %q", m.err, tc.wantErr)
				}
				t.Logf("refused: %v", m.err)
			}
			if oks != tc.wantOKs || errs != tc.wantErrs {
				t.Errorf("got %d read and %d refused, want %d and %d", oks, errs, tc.wantOKs, tc.wantErrs)
			}
			if read > tc.maxRead {
				t.Errorf("read %d bytes of the archive, want at most %d", read, tc.maxRead)
			}
		})
	}
}

// TestZipDepth: archives nest to ZipLimits.Depth levels; one more is refused
// with a clear error, and its siblings still import.
func TestZipDepth(t *testing.T) {
	nest := func(levels int) []byte {
		data := makeZip(t, zipEntry{"deep.csv", smallBill})
		for i := 1; i < levels; i++ {
			data = makeZip(t, zipEntry{"level.zip", data})
		}
		return data
	}
	for _, tc := range []struct {
		name    string
		levels  int
		lim     ZipLimits
		wantErr string
	}{
		{"three levels, default limit", 3, ZipLimits{}, ""},
		{"four levels, default limit", 4, ZipLimits{}, "nested more than 3 levels deep"},
		{"two levels, limit 1", 2, ZipLimits{Depth: 1}, "nested more than 1 levels deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			zp := writeTemp(t, dir, "outer.zip", makeZip(t, zipEntry{"nest.zip", nest(tc.levels - 1)}, zipEntry{"z.csv", smallBill}))
			if tc.levels == 1 {
				t.Fatal("levels must be at least 2")
			}
			db := testkit.OpenLedger(t)
			results, _ := ImportPaths(context.Background(), db, []string{zp}, Options{TZ: shanghai, Zip: tc.lim})
			if len(results) != 2 {
				t.Fatalf("got %d results, want 2", len(results))
			}
			deep, sibling := results[0], results[1]
			if sibling.Status != StatusOK || sibling.Path != zp+"/z.csv" {
				t.Errorf("sibling: got %s %s %v", sibling.Path, sibling.Status, sibling.Err)
			}
			if tc.wantErr == "" {
				want := zp + "/nest.zip" + strings.Repeat("/level.zip", tc.levels-2) + "/deep.csv"
				if deep.Status != StatusOK || deep.Path != want {
					t.Errorf("deepest: got %s %s %v, want %s ok", deep.Path, deep.Status, deep.Err, want)
				}
				return
			}
			if deep.Err == nil || !strings.Contains(deep.Err.Error(), tc.wantErr) {
				t.Errorf("deepest: got %s %v, want an error with %q", deep.Path, deep.Err, tc.wantErr)
			}
		})
	}
}

// TestZipDamaged: a truncated archive, a damaged member and an archive with
// nothing to import each give a clear error naming the file; nothing is
// stored and nothing panics.
func TestZipDamaged(t *testing.T) {
	good := makeZip(t, zipEntry{"a.csv", smallBill}, zipEntry{"b.csv", smallBill})
	damaged := bytes.Clone(good)
	// flip bytes inside the first member's compressed data (after its local
	// header: 30 bytes + the name)
	for i := 30 + len("a.csv") + 2; i < 30+len("a.csv")+12; i++ {
		damaged[i] ^= 0x5a
	}
	for _, tc := range []struct {
		name, file string
		data       []byte
		wantErr    string
		wantOK     int
	}{
		{"truncated", "t.zip", good[:len(good)/2], "not a readable XLSX workbook or ZIP archive", 0},
		{"header only", "h.zip", good[:10], "not a readable XLSX workbook or ZIP archive", 0},
		{"damaged member", "d.zip", damaged, "d.zip/a.csv: cannot read ZIP member", 1},
		{"empty", "e.zip", makeZip(t), "an empty ZIP archive", 0},
		{"only skipped", "s.zip", makeZip(t, zipEntry{"dir/", nil}, zipEntry{"__MACOSX/._a.csv", []byte("x")}), "without files to import", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTemp(t, t.TempDir(), tc.file, tc.data)
			db := testkit.OpenLedger(t)
			results, err := ImportPaths(context.Background(), db, []string{path}, Options{TZ: shanghai})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), path) {
				t.Errorf("got error %v, want one naming %s with %q", err, path, tc.wantErr)
			}
			ok := 0
			for _, r := range results {
				if r.Status == StatusOK {
					ok++
				}
			}
			if ok != tc.wantOK {
				t.Errorf("got %d members imported, want %d", ok, tc.wantOK)
			}
			if n := countRows(t, db, "line_items"); n != 2*tc.wantOK {
				t.Errorf("got %d line items, want %d", n, 2*tc.wantOK)
			}
		})
	}
}

// TestCheckPathsZip: CheckPaths reports every member of an archive; Check
// refuses an archive and points to CheckPaths.
func TestCheckPathsZip(t *testing.T) {
	dir := t.TempDir()
	zp := writeTemp(t, dir, "m.zip", makeZip(t,
		zipEntry{"a.csv", smallBill},
		zipEntry{"notes.txt", []byte("nothing to bill\n")},
		zipEntry{"../x.csv", smallBill},
	))
	results, err := CheckPaths(context.Background(), []string{zp}, ZipLimits{})
	if err == nil {
		t.Errorf("no error for an unknown member")
	}
	got := map[string]string{}
	for _, r := range results {
		f := ""
		if len(r.Tables) > 0 {
			f = r.Tables[0].Format.ID
		}
		if r.Err != nil {
			f += "!" + r.Err.Error()
		}
		got[r.Path] = f
	}
	if got[zp+"/a.csv"] != "gpubill-bill" {
		t.Errorf("a.csv: got %q, want gpubill-bill", got[zp+"/a.csv"])
	}
	if !strings.Contains(got[zp+"/notes.txt"], "no known bill format") {
		t.Errorf("notes.txt: got %q, want no known bill format", got[zp+"/notes.txt"])
	}
	if !strings.Contains(got[zp], `member "../x.csv": unsafe name`) {
		t.Errorf("archive: got %q, want the unsafe member named", got[zp])
	}
	if _, err := Check(zp); err == nil || !strings.Contains(err.Error(), "CheckPaths") {
		t.Errorf("Check of an archive: got %v, want a pointer to CheckPaths", err)
	}
}

// FuzzReadZip reads arbitrary bytes as a .zip: CheckPaths (archive walk,
// limits, member sniffing and header detection) and a scan of every member
// without a ledger (see fuzzScan) must never panic or hang.
func FuzzReadZip(f *testing.F) {
	inner := makeZip(f, zipEntry{"b.csv", smallBill})
	f.Add(makeZip(f, zipEntry{"a.csv", smallBill}, zipEntry{"d/inner.zip", inner}, zipEntry{"../x.csv", []byte("x")}))
	f.Add(inner)
	f.Add(makeZip(f))
	f.Add([]byte("PK\x03\x04garbage"))
	dir := f.TempDir()
	lim := ZipLimits{MemberSize: 1 << 20, ArchiveSize: 4 << 20, Members: 50}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := writeTemp(t, dir, "fuzz.zip", data)
		results, _ := CheckPaths(context.Background(), []string{path}, lim)
		if len(results) == 0 {
			t.Fatalf("no result for %d bytes", len(data))
		}
		// nil ledger: scan every member as an import would (see fuzzScan)
		scanned, _ := ImportPaths(context.Background(), nil, []string{path}, Options{TZ: shanghai, Zip: lim})
		for _, r := range scanned {
			if r.Err == nil && (r.Read != r.New+r.Skipped || r.Duplicate != 0) {
				t.Fatalf("%s: read %d != new %d + skipped %d (duplicate %d)", r.Path, r.Read, r.New, r.Skipped, r.Duplicate)
			}
		}
	})
}

// TestZipGBKName: a member name written in GBK without the UTF-8 flag (as
// Chinese Windows tools write them) is shown decoded.
func TestZipGBKName(t *testing.T) {
	name, err := simplifiedchinese.GBK.NewEncoder().String("十月/阿里云账单.csv")
	if err != nil {
		t.Fatal(err)
	}
	zp := writeTemp(t, t.TempDir(), "gbk.zip", makeZip(t, zipEntry{name, smallBill}))
	results, err := ImportPaths(context.Background(), testkit.OpenLedger(t), []string{zp}, Options{TZ: shanghai})
	if err != nil {
		t.Fatal(err)
	}
	if want := zp + "/十月/阿里云账单.csv"; len(results) != 1 || results[0].Path != want || results[0].New != 2 {
		t.Errorf("got %+v, want one result %s with 2 new rows", results, want)
	}
}

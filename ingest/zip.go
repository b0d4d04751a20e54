package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/gpubill/gpubill/ledger"
)

// ZIP archives. Aliyun and Tencent deliver big bills as a ZIP of CSVs, and
// users zip a month of downloads. A file whose content starts with a ZIP
// local header (PK\x03\x04) and that is no XLSX workbook is an archive: it is
// walked like a folder and each member that is a file is imported as a file
// of its own, in its own transaction, shown and stored as
// "archive.zip/dir/member.csv". Nested archives are followed to
// ZipLimits.Depth levels.
//
// Member names never become file-system paths: a member is read through
// archive/zip into an anonymous temporary file (os.CreateTemp, removed after
// use), hashed on the way; names with ".." or absolute names are refused.
// Hidden members (a path element starting with "."), __MACOSX/ and
// .DS_Store are skipped. Every limit of ZipLimits is enforced on the bytes
// actually decompressed, not only on the sizes the archive declares.

// ZipLimits bound what reading one ZIP archive may cost (zip bombs). A zero
// field takes its default. The member count and the archive size count the
// members of nested archives (and the nested archives themselves) against the
// outermost archive.
type ZipLimits struct {
	MemberSize  int64 // uncompressed bytes of one member; default 1 GiB
	ArchiveSize int64 // uncompressed bytes of all members of an archive; default 4 GiB
	Ratio       int64 // uncompressed:compressed bytes of one member; default 200
	Members     int   // members (files) of an archive; default 10,000
	Depth       int   // archives inside archives, the outermost counting 1; default 3
}

// Default ZipLimits.
const (
	DefaultZipMemberSize  = 1 << 30
	DefaultZipArchiveSize = 4 << 30
	DefaultZipRatio       = 200
	DefaultZipMembers     = 10000
	DefaultZipDepth       = 3
)

// zipRatioFloor is how many bytes a member may decompress to before the
// ratio limit applies: a small member with a high ratio (a CSV of a thousand
// identical rows) costs nothing, and its ratio says little.
const zipRatioFloor = 1 << 20

func (l ZipLimits) withDefaults() ZipLimits {
	if l.MemberSize <= 0 {
		l.MemberSize = DefaultZipMemberSize
	}
	if l.ArchiveSize <= 0 {
		l.ArchiveSize = DefaultZipArchiveSize
	}
	if l.Ratio <= 0 {
		l.Ratio = DefaultZipRatio
	}
	if l.Members <= 0 {
		l.Members = DefaultZipMembers
	}
	if l.Depth <= 0 {
		l.Depth = DefaultZipDepth
	}
	return l
}

// zipKind is what sniffZip found.
type zipKind int

const (
	notZip      zipKind = iota // no ZIP signature, or a ZIP that cannot be read (left to openSource)
	zipWorkbook                // an XLSX workbook (a ZIP with [Content_Types].xml or xl/)
	zipArchive                 // an archive of files
)

// zipArc is an opened archive; read counts the bytes archive/zip has read
// from it, which tells how much compressed data a member really consumed.
type zipArc struct {
	*zip.Reader
	read *countingReaderAt
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.r.ReadAt(p, off)
	c.n += int64(k)
	return k, err
}

// sniffZip tells, by content, whether ra is a ZIP archive of files; for an
// archive it returns the opened reader.
func sniffZip(ra io.ReaderAt, size int64) (zipKind, *zipArc) {
	var head [4]byte
	if n, _ := ra.ReadAt(head[:], 0); n < len(head) || !bytes.Equal(head[:], magicZip) {
		return notZip, nil
	}
	cr := &countingReaderAt{r: ra}
	zr, err := zip.NewReader(cr, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // insecure names are refused one by one
		return notZip, nil
	}
	for _, f := range zr.File {
		if f.Name == "[Content_Types].xml" || strings.HasPrefix(f.Name, "xl/") {
			return zipWorkbook, nil
		}
	}
	return zipArchive, &zipArc{Reader: zr, read: cr}
}

// zipMember is a file found in an archive: its content in a temporary file
// (at offset 0), or the reason it was refused.
type zipMember struct {
	path string // archive path + "/" + the member's cleaned name
	file *os.File
	sum  string // SHA-256 (hex) of the content
	size int64
	err  error
}

// zipWalk is the walk of one outermost archive, nested archives included.
type zipWalk struct {
	ctx     context.Context
	lim     ZipLimits
	bytes   int64 // uncompressed bytes read so far
	members int   // members counted so far
	stop    error // set when the archive as a whole is over a limit
	visit   func(zipMember)
}

// walkZip calls visit for every member of the archive zr (shown as display,
// size bytes long) that is a file to read, and for every refused member; the
// member's temporary file is closed and removed when visit returns. It
// returns the context's error when that ends the walk.
func walkZip(ctx context.Context, display string, zr *zipArc, size int64, lim ZipLimits, visit func(zipMember)) error {
	w := &zipWalk{ctx: ctx, lim: lim.withDefaults(), visit: visit}
	if n := w.archive(display, zr, size, 1); n == 0 && w.stop == nil && ctx.Err() == nil {
		visit(zipMember{path: display, err: &InputError{File: display,
			Msg: "a ZIP archive without files to import (only folders, hidden files or __MACOSX)"}})
	}
	return ctx.Err()
}

// archive walks one (possibly nested) archive at the given depth and returns
// how many members it handed to visit.
func (w *zipWalk) archive(display string, zr *zipArc, size int64, depth int) int {
	files := make([]*zip.File, len(zr.File))
	copy(files, zr.File)
	sort.SliceStable(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	// Refused whole, before any member is read: too many members, or
	// members that share their data.
	if n := countFiles(files); w.members+n > w.lim.Members {
		w.stop = fmt.Errorf("the archive holds %d members, over the limit of %d", w.members+n, w.lim.Members)
		w.visit(zipMember{path: display, err: &InputError{File: display,
			Msg: "refused whole, no member read: unpack it and import the folder in parts", Err: w.stop}})
		return 1
	}
	if a, b, ok := overlapping(files); ok {
		w.stop = fmt.Errorf("members %q and %q share their compressed data", a, b)
		w.visit(zipMember{path: display, err: &InputError{File: display,
			Msg: "overlapping members (a zip bomb's trick, no archiver writes them): refused whole, no member read", Err: w.stop}})
		return 1
	}
	visited := 0
	for i, f := range files {
		if w.ctx.Err() != nil {
			return visited
		}
		if w.stop != nil {
			if rest := countFiles(files[i:]); rest > 0 {
				w.visit(zipMember{path: display, err: &InputError{File: display,
					Msg: fmt.Sprintf("%d more member(s) not read", rest), Err: w.stop}})
				visited++
			}
			return visited
		}
		name := memberName(f)
		if strings.HasSuffix(name, "/") || f.FileInfo().IsDir() || skipMember(name) {
			continue
		}
		w.members++
		if w.members > w.lim.Members {
			w.stop = fmt.Errorf("the archive holds more than %d members (limit)", w.lim.Members)
			w.visit(zipMember{path: display, err: &InputError{File: display,
				Msg: fmt.Sprintf("%d member(s) not read", countFiles(files[i:])), Err: w.stop}})
			return visited + 1
		}
		visited++
		clean, ok := safeMemberName(name)
		if !ok {
			w.visit(zipMember{path: display, err: &InputError{File: display,
				Msg: fmt.Sprintf("member %q: unsafe name (absolute, or with ..): refused", name)}})
			continue
		}
		mpath := display + "/" + clean
		if !f.Mode().IsRegular() {
			w.visit(zipMember{path: mpath, err: &InputError{File: mpath, Msg: "not a regular file (a link?): refused"}})
			continue
		}
		if f.Flags&0x1 != 0 {
			w.visit(zipMember{path: mpath, err: &InputError{File: mpath, Msg: "an encrypted ZIP member: unpack it yourself and import the files"}})
			continue
		}
		tmp, sum, n, err := w.extract(zr, f, mpath, size)
		if err != nil {
			w.visit(zipMember{path: mpath, err: err})
			continue
		}
		w.member(mpath, tmp, sum, n, depth)
		tmp.Close()
		os.Remove(tmp.Name())
	}
	return visited
}

// member hands one extracted member to visit, or walks it when it is an
// archive itself.
func (w *zipWalk) member(mpath string, tmp *os.File, sum string, n int64, depth int) {
	kind, zr := sniffZip(tmp, n)
	if kind != zipArchive {
		w.visit(zipMember{path: mpath, file: tmp, sum: sum, size: n})
		return
	}
	if depth >= w.lim.Depth {
		w.visit(zipMember{path: mpath, err: &InputError{File: mpath,
			Msg: fmt.Sprintf("a ZIP archive nested more than %d levels deep: refused", w.lim.Depth)}})
		return
	}
	w.archive(mpath, zr, n, depth+1)
}

// overlapping reports two members whose compressed data overlap in the
// archive (as in the "overlapping" zip bomb, where hundreds of entries
// point at one member's data), by their data offsets and compressed
// sizes. A member whose local header cannot be read is left to extract,
// which reports it.
func overlapping(files []*zip.File) (a, b string, ok bool) {
	type span struct {
		start, end int64
		name       string
	}
	spans := make([]span, 0, len(files))
	for _, f := range files {
		off, err := f.DataOffset()
		if err != nil || f.CompressedSize64 == 0 {
			continue
		}
		spans = append(spans, span{off, off + int64(f.CompressedSize64), f.Name})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end {
			return spans[i-1].name, spans[i].name, true
		}
	}
	return "", "", false
}

// countFiles counts the members of files that walkZip would read.
func countFiles(files []*zip.File) int {
	n := 0
	for _, f := range files {
		name := memberName(f)
		if !strings.HasSuffix(name, "/") && !f.FileInfo().IsDir() && !skipMember(name) {
			n++
		}
	}
	return n
}

// extract copies member f of the archive za (archiveSize bytes) into a new
// temporary file and returns it (at offset 0) with the SHA-256 and size of
// the content. The limits are checked against the declared sizes first and
// then while reading, on the bytes actually decompressed and (for the ratio)
// the compressed bytes actually consumed.
func (w *zipWalk) extract(za *zipArc, f *zip.File, mpath string, archiveSize int64) (tmp *os.File, sum string, n int64, err error) {
	refuse := func(format string, args ...any) (*os.File, string, int64, error) {
		return nil, "", 0, &InputError{File: mpath, Msg: fmt.Sprintf(format, args...)}
	}
	// The compressed data of a member lies inside the archive, whatever its
	// header says.
	comp := int64(f.CompressedSize64)
	if f.CompressedSize64 > uint64(archiveSize) {
		comp = archiveSize
	}
	overRatio := func(got, comp int64) bool {
		return got > zipRatioFloor && got/w.lim.Ratio >= comp+1
	}
	if f.UncompressedSize64 > uint64(w.lim.MemberSize) {
		return refuse("declares %d bytes uncompressed, over the limit of %d per member: refused (possible zip bomb)",
			f.UncompressedSize64, w.lim.MemberSize)
	}
	if decl := int64(f.UncompressedSize64); overRatio(decl, comp) {
		return refuse("declares a compression ratio over %d:1 (%d bytes from %d): refused (possible zip bomb)",
			w.lim.Ratio, decl, comp)
	}
	if w.bytes+int64(f.UncompressedSize64) > w.lim.ArchiveSize {
		w.stop = fmt.Errorf("the archive holds more than %d bytes uncompressed (limit)", w.lim.ArchiveSize)
		return nil, "", 0, &InputError{File: mpath, Msg: "not read", Err: w.stop}
	}
	start := za.read.n
	rc, err := f.Open()
	if err != nil {
		return nil, "", 0, &InputError{File: mpath, Msg: "cannot read ZIP member", Err: err}
	}
	defer rc.Close()
	out, err := os.CreateTemp("", "gpubill-zip-*")
	if err != nil {
		return nil, "", 0, fmt.Errorf("%s: temporary file: %w", mpath, err)
	}
	// Unlinked at once where the system allows it (Unix): the member is
	// read through out only, so an import killed meanwhile leaves no
	// extracted member behind. Elsewhere it is removed after use.
	os.Remove(out.Name())
	defer func() {
		if err != nil {
			out.Close()
			os.Remove(out.Name())
		}
	}()
	h := sha256.New()
	buf := make([]byte, 32<<10)
	for {
		if err := w.ctx.Err(); err != nil {
			return nil, "", 0, err
		}
		k, rerr := rc.Read(buf)
		if k > 0 {
			n += int64(k)
			w.bytes += int64(k)
			switch {
			case n > w.lim.MemberSize:
				return refuse("more than %d bytes uncompressed (limit per member): refused (possible zip bomb)", w.lim.MemberSize)
			case overRatio(n, za.read.n-start):
				return refuse("compression ratio over %d:1 (limit): refused (possible zip bomb)", w.lim.Ratio)
			case w.bytes > w.lim.ArchiveSize:
				w.stop = fmt.Errorf("the archive holds more than %d bytes uncompressed (limit)", w.lim.ArchiveSize)
				return nil, "", 0, &InputError{File: mpath, Msg: "not read", Err: w.stop}
			}
			h.Write(buf[:k])
			if _, werr := out.Write(buf[:k]); werr != nil {
				return nil, "", 0, fmt.Errorf("%s: temporary file: %w", mpath, werr)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, "", 0, &InputError{File: mpath, Msg: "cannot read ZIP member (truncated, damaged, or longer than its header says)", Err: rerr}
		}
	}
	if _, serr := out.Seek(0, io.SeekStart); serr != nil {
		return nil, "", 0, fmt.Errorf("%s: temporary file: %w", mpath, serr)
	}
	return out, hex.EncodeToString(h.Sum(nil)), n, nil
}

// memberName is the member's name with "/" separators, decoded from GBK
// when it is no UTF-8 (Chinese Windows tools write names in the ANSI code
// page without saying so).
func memberName(f *zip.File) string {
	name := f.Name
	if !utf8.ValidString(name) {
		if s, err := simplifiedchinese.GB18030.NewDecoder().String(name); err == nil {
			name = s
		}
	}
	return strings.ReplaceAll(name, `\`, "/")
}

// skipMember reports members that are no bills: hidden files and folders,
// macOS resource forks (__MACOSX/) and Finder's .DS_Store.
func skipMember(name string) bool {
	for _, el := range strings.Split(name, "/") {
		if strings.HasPrefix(el, ".") && el != "." && el != ".." || el == "__MACOSX" {
			return true
		}
	}
	return false
}

// safeMemberName returns the cleaned name of a member, and false for names
// that would leave a folder they were extracted to: absolute names, drive
// letters, ".." elements, and names with control characters.
func safeMemberName(name string) (string, bool) {
	if name == "" || strings.HasPrefix(name, "/") || len(name) >= 2 && name[1] == ':' {
		return "", false
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return "", false
		}
	}
	for _, el := range strings.Split(name, "/") {
		if el == ".." {
			return "", false
		}
	}
	clean := path.Clean(name)
	if clean == "." {
		return "", false
	}
	return clean, true
}

// importPath imports one file: a ZIP archive member by member, anything else
// as one file (ImportFile).
func importPath(ctx context.Context, db *ledger.DB, p string, opts Options) []Result {
	f, err := os.Open(p)
	if err != nil {
		r, _ := ImportFile(ctx, db, p, opts) // reports the error as ImportFile does
		return []Result{r}
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	kind, zr := sniffZip(f, size)
	if kind != zipArchive {
		f.Close()
		r, _ := ImportFile(ctx, db, p, opts)
		return []Result{r}
	}
	var out []Result
	err = walkZip(ctx, p, zr, size, opts.Zip, func(m zipMember) {
		if m.err != nil {
			out = append(out, Result{Path: m.path, Status: StatusFailed, Err: m.err})
			return
		}
		r, _ := importOne(m.path, opts.DryRun, func(res *Result) error {
			return importContent(ctx, db, m.path, m.sum, m.size, m.file, opts, res)
		})
		out = append(out, r)
	})
	if err != nil {
		out = append(out, Result{Path: p, Status: StatusFailed, Err: err})
	}
	return out
}

// CheckPaths is Check for files, folders and ZIP archives: a folder is
// walked as ImportPaths walks it, an archive member by member, and every
// file gets a CheckResult (Err set when it is refused or no format matched).
// The error joins the errors of the files.
func CheckPaths(ctx context.Context, paths []string, lim ZipLimits) ([]CheckResult, error) {
	var out []CheckResult
	var failed []error
	add := func(r CheckResult, err error) {
		if err != nil {
			r.Err, r.Error = err, err.Error()
			failed = append(failed, err)
		}
		out = append(out, r)
	}
	for _, e := range expandPaths(paths) {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if e.err != nil {
			add(CheckResult{Path: e.path}, e.err)
			continue
		}
		f, err := os.Open(e.path)
		if err != nil {
			add(CheckResult{Path: e.path}, err)
			continue
		}
		var size int64
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
		kind, zr := sniffZip(f, size)
		if kind != zipArchive {
			f.Close()
			add(Check(e.path))
			continue
		}
		err = walkZip(ctx, e.path, zr, size, lim, func(m zipMember) {
			if m.err != nil {
				add(CheckResult{Path: m.path}, m.err)
				return
			}
			add(checkContent(m.path, m.file))
		})
		f.Close()
		if err != nil {
			return out, err
		}
	}
	return out, errors.Join(failed...)
}

package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/platform"
)

// Options control an import.
type Options struct {
	DryRun   bool           // do everything inside the transaction, then roll it back
	Provider string         // --provider: the platform, for formats (or empty cells) that cannot tell
	TZ       *time.Location // zone of naive Chinese timestamps and of billing months; nil = Asia/Shanghai
	Preview  int            // how many mapped rows to keep in Result.Preview / PreviewTx / PreviewPay
	Zip      ZipLimits      // limits for reading ZIP archives (zero fields: defaults)
	Progress *Progress      // updated as the import goes, for a display; nil = none
	// Replace lists earlier imports whose rows this import replaces: they
	// are removed inside its transaction before its rows are written (a
	// provisional month fetched again, package fetch).
	Replace []int64
	// HiddenSheets reads a workbook's hidden and veryHidden sheets too
	// (readSheet); by default they are left out, with a warning.
	HiddenSheets bool
}

// Result is the outcome of importing one file.
type Result struct {
	Path     string
	Format   string // format id; several joined by "," when sheets differ
	Provider string // providers seen, sorted, joined by ","
	// Read counts the data records after the header (empty records at the
	// very end of a table are not counted); Read = New + Duplicate + Skipped.
	Read, New, Duplicate, Skipped int
	Status                        string // "ok", "dry-run" or "failed"
	Err                           error
	Preview                       []ledger.LineItem
	PreviewTx                     []ledger.Transaction
	PreviewPay                    []ledger.Payment
	// PreviewAt, PreviewTxAt and PreviewPayAt say where each previewed row
	// is, as a person opening the file sees it: a text file's line, or
	// "Sheet!row" in a workbook ("" for a file without rows: JSON, Parquet).
	PreviewAt, PreviewTxAt, PreviewPayAt []string
	Encoding                             string // EncUTF8 … for text files, "xlsx" for workbooks
	Tables                               int    // recognised tables (sheets) imported
	// Warnings are things the file says about itself that make the import
	// doubtful though not wrong (a saved web page that is one page of
	// several): the rows are imported, and the user is told.
	Warnings []Warning
}

// Warning is one doubt about an imported file, in Chinese and English.
type Warning struct {
	Row    int // 1-based line (a sheet's row) the warning is about; 0 = the whole file
	ZH, EN string
}

// Text is the warning in lang ("zh" or another: English).
func (w Warning) Text(lang string) string {
	if lang == "zh" {
		return w.ZH
	}
	return w.EN
}

// warner is a table that can tell, once read to its end, what it doubts.
type warner interface{ warnings() []Warning }

// Statuses of a Result.
const (
	StatusOK     = "ok"
	StatusDryRun = "dry-run"
	StatusFailed = "failed"
)

// batchSize is how many rows the parse goroutine hands to the inserter at a
// time. The four batches of a table's pipeline are most of an import's live
// heap besides the occurrence table (a wide 阿里云 row holds about 4 KB), and
// a small live heap keeps collections rare under main's memory limit.
const batchSize = 256

// ImportFile imports one file into the ledger in one transaction: every
// recognised table (an XLSX workbook may hold several) gets an imports
// record, and its rows are mapped, keyed and inserted in batches. Any error
// rolls the whole file back. With opts.DryRun the import runs to the end and
// is rolled back, so the counts are exact and nothing is stored.
//
// The returned Result is filled in either case; on failure its Status is
// "failed", its Err the returned error, and nothing of the file is stored.
// Errors in the user's file are *InputError.
func ImportFile(ctx context.Context, db *ledger.DB, path string, opts Options) (Result, error) {
	return importOne(path, opts.DryRun, func(res *Result) error { return importFile(ctx, db, path, opts, res) })
}

// importOne runs do, which imports one file or archive member, and fills in
// the Result's status; it is ImportFile for anything with a content.
func importOne(path string, dryRun bool, do func(res *Result) error) (Result, error) {
	res := Result{Path: path, Status: StatusFailed}
	err := do(&res)
	if err != nil {
		res.Err = err
		res.Status = StatusFailed
		res.New, res.Duplicate = 0, 0
		return res, err
	}
	res.Status = StatusOK
	if dryRun {
		res.Status = StatusDryRun
	}
	return res, nil
}

func importFile(ctx context.Context, db *ledger.DB, path string, opts Options, res *Result) error {
	sum, size, err := fileDigest(path)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	if kind, _ := sniffZip(f, size); kind == zipArchive {
		return &InputError{File: path, Msg: "a ZIP archive of bills, not one bill: import it like a folder (ImportPaths)"}
	}
	return importContent(ctx, db, path, sum, size, f, opts, res)
}

// store is where an import writes its rows: a ledger transaction
// (*ledger.ImportTx), or nowhere (Scan).
type store interface {
	AddImport(ctx context.Context, imp *ledger.Import) error
	FinishImport(ctx context.Context, imp *ledger.Import) error
	InsertLineItemRows(ctx context.Context, rows *ledger.LineItemRows) (int, error)
	InsertTransactions(ctx context.Context, txs []ledger.Transaction) (int, error)
	InsertPayments(ctx context.Context, ps []ledger.Payment) (int, error)
	Overlaps(ctx context.Context, format string, keys []ledger.PeriodKey) ([]ledger.Overlap, error)
	AddImportPeriods(ctx context.Context, importID int64, counts map[ledger.PeriodKey]int) error
	RaiseDataEnd(provider string, end time.Time)
	DropReExported(ctx context.Context, importID int64, keys []ledger.PeriodKey) (int, []int64, error)
}

// discardStore takes every row as new and keeps nothing.
type discardStore struct{}

func (discardStore) AddImport(context.Context, *ledger.Import) error { return nil }
func (discardStore) Overlaps(context.Context, string, []ledger.PeriodKey) ([]ledger.Overlap, error) {
	return nil, nil
}
func (discardStore) AddImportPeriods(context.Context, int64, map[ledger.PeriodKey]int) error {
	return nil
}
func (discardStore) FinishImport(context.Context, *ledger.Import) error { return nil }
func (discardStore) RaiseDataEnd(string, time.Time)                     {}
func (discardStore) DropReExported(context.Context, int64, []ledger.PeriodKey) (int, []int64, error) {
	return 0, nil, nil
}
func (discardStore) InsertLineItemRows(_ context.Context, rows *ledger.LineItemRows) (int, error) {
	return rows.Len(), nil
}
func (discardStore) InsertTransactions(_ context.Context, txs []ledger.Transaction) (int, error) {
	return len(txs), nil
}
func (discardStore) InsertPayments(_ context.Context, ps []ledger.Payment) (int, error) {
	return len(ps), nil
}

// Scan reads, maps and keys every row of the file at path as an import
// would, without a ledger: every valid row counts as new. It finds the
// errors an import would find (file, row, column), and it is what the
// fuzz targets drive, since SQLite under coverage instrumentation is too
// slow to fuzz through.
func Scan(ctx context.Context, path string, opts Options) (Result, error) {
	return ImportFile(ctx, nil, path, opts)
}

// importContent imports the content r of the file shown and stored as path,
// whose SHA-256 (hex) and size are sum and size, in one transaction.
func importContent(ctx context.Context, db *ledger.DB, path, sum string, size int64, r io.Reader, opts Options, res *Result) (err error) {
	if opts.TZ == nil {
		opts.TZ = ledger.DefaultTZ()
	}
	if opts.Provider != "" {
		opts.Provider = focusProvider(strings.TrimSpace(opts.Provider), "")
	}
	if db != nil {
		if err := warnEdited(ctx, db, path, sum, res); err != nil {
			return err
		}
	}
	var scans map[string]*sheetScan
	if ra, ok := r.(io.ReaderAt); ok {
		if kind, _ := sniffZip(ra, size); kind == zipWorkbook {
			if scans, err = checkWorkbook(path, ra, size, opts.Zip); err != nil {
				return err
			}
		}
	}
	src, err := openSource(path, opts.Progress.start(path, size, r))
	if err != nil {
		return err
	}
	src.scans = scans
	defer src.close()
	res.Encoding = src.encoding
	if src.isXLSX() {
		opts.Progress.setWorkbook()
	}

	var st store             // where rows go: itx, or nowhere for Scan
	var itx *ledger.ImportTx // the ledger transaction, when there is a ledger
	defer func() { endImport(itx, opts.DryRun, &err) }()

	im := &importer{ctx: ctx, opts: opts, res: res, keys: newRowKeyer(int(size / bulkBytesPerRow)), providers: map[string]bool{}}
	defer im.keys.close()
	var formats []string
	var cands []string
	var foreign *foreignMatch     // the first foreign export seen (foreign.go)
	read := map[[32]byte]string{} // digests of the sheets read → their names
	for i := 0; i < src.numTables(); i++ {
		if src.isXLSX() && !im.readSheet(src, i, read) {
			continue
		}
		t, err := src.openTable(i)
		if err != nil {
			return err
		}
		b, hdrLine, seen, err := findHeader(t)
		if err != nil {
			closeTable(t)
			return err
		}
		if b == nil {
			cands = append(cands, describeCandidates(t.sheet(), seen)...)
			if foreign == nil {
				foreign = foreignIn(seen)
			}
			closeTable(t)
			continue
		}
		if st == nil {
			if db == nil {
				st = discardStore{}
			} else {
				if itx, err = db.BeginImportWith(ctx, ledger.ImportOptions{Bulk: size >= bulkMinBytes}); err != nil {
					closeTable(t)
					return err
				}
				st = itx
				for _, id := range opts.Replace {
					if _, err := itx.RemoveImport(ctx, id); err != nil {
						closeTable(t)
						return err
					}
				}
				if err := deferIndexesIfBulk(ctx, itx, size); err != nil {
					closeTable(t)
					return err
				}
			}
		}
		imp := &ledger.Import{Path: path, SHA256: sum, Size: size, Format: b.format.ID, FormatVersion: b.format.Version,
			Sheet: t.sheet(), Header: b.header, HeaderRow: hdrLine}
		if err := st.AddImport(ctx, imp); err != nil {
			closeTable(t)
			return err
		}
		env := &mapEnv{path: path, tz: opts.TZ, provider: opts.Provider, xlsx: src.isXLSX(), date1904: src.date1904}
		if b.format.Target == TargetPayments {
			env.stated, _ = statedCount(seen) // 共N笔记录 in the preamble
		}
		err = im.table(st, t, b, env, imp)
		closeTable(t)
		if err != nil {
			return err
		}
		if err := st.FinishImport(ctx, imp); err != nil {
			return err
		}
		res.Tables++
		if !contains(formats, b.format.ID) {
			formats = append(formats, b.format.ID)
		}
	}
	if res.Tables == 0 {
		if foreign != nil {
			return foreignError(path, foreign)
		}
		return noFormatError(path, cands)
	}
	res.Format = strings.Join(formats, ",")
	res.Provider = joinKeys(im.providers)
	return nil
}

// endImport ends the transaction of one file, if one was begun: it rolls
// it back after an error *err or a dry run, else commits it, setting *err
// when the commit fails.
func endImport(itx *ledger.ImportTx, dryRun bool, err *error) {
	switch {
	case itx == nil:
	case *err != nil || dryRun:
		itx.Rollback()
	default:
		*err = itx.Commit()
	}
}

// warnEdited warns when path was imported before with another content:
// the file was edited (or replaced) since, and its changed rows come in as
// new charges beside the old ones, which stay until that import is undone.
func warnEdited(ctx context.Context, db *ledger.DB, path, sum string, res *Result) error {
	ims, err := db.Imports(ctx, 0)
	if err != nil {
		return err
	}
	var ids []string
	for _, im := range ims {
		if im.Path == path && im.SHA256 != sum && !contains(ids, strconv.FormatInt(im.ID, 10)) {
			ids = append(ids, strconv.FormatInt(im.ID, 10))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	sort.Strings(ids)
	res.Warnings = append(res.Warnings, Warning{
		ZH: fmt.Sprintf("此路径的文件已导入过（导入 %s），内容已改变：改动过的行会作为新费用记入，旧行仍在；若文件是被编辑过，请用 gpubill imports undo %s 撤销旧的导入", strings.Join(ids, ", "), ids[0]),
		EN: fmt.Sprintf("a file at this path was imported before (import %s) with other content: edited rows come in as new charges and the old ones stay; if the file was edited, undo the earlier import with gpubill imports undo %s", strings.Join(ids, ", "), ids[0]),
	})
	return nil
}

// readSheet decides whether sheet i of a workbook is read, and says why
// not when it is not. A hidden or veryHidden sheet is not read unless
// Options.HiddenSheets: users export a bill, then keep a copy of it, or of
// other charges, out of sight, and Excel shows neither. A sheet that holds
// exactly the cells of a sheet read before (Excel's Move or Copy makes
// "费用明细 (2)") is not read again: its rows would be booked twice, since
// the occurrence numbers of identical rows count on across a file's sheets.
// read maps the digests of the sheets read so far to their names.
func (im *importer) readSheet(src *source, i int, read map[[32]byte]string) bool {
	name := src.sheets[i]
	if !im.opts.HiddenSheets {
		if visible, err := src.book.GetSheetVisible(name); err == nil && !visible {
			if sc := src.scans[name]; sc == nil || sc.cells > 0 {
				im.res.Warnings = append(im.res.Warnings, Warning{
					ZH: fmt.Sprintf("工作表“%s”是隐藏的，未导入；要导入隐藏工作表，请加 --hidden-sheets", name),
					EN: fmt.Sprintf("sheet %q is hidden: not imported; --hidden-sheets reads hidden sheets", name),
				})
			}
			return false
		}
	}
	sc := src.scans[name]
	if sc == nil || sc.cells == 0 {
		return true
	}
	if first, ok := read[sc.digest]; ok {
		im.res.Warnings = append(im.res.Warnings, Warning{
			ZH: fmt.Sprintf("工作表“%s”与工作表“%s”内容完全相同（副本？），只导入一次", name, first),
			EN: fmt.Sprintf("sheet %q holds exactly the cells of sheet %q (a copy?): imported once", name, first),
		})
		return false
	}
	read[sc.digest] = name
	return true
}

// Bulk imports build the ledger's secondary indexes once at commit instead
// of updating them row by row (ledger.ImportTx.DeferIndexes): about a third
// of the insert time on a big file; into an empty ledger the unique dedupe
// index too. It pays when the file brings at least as many rows as the
// ledger holds; the row estimate errs on the high side (a bill line is
// rarely under 100 bytes).
const (
	bulkMinBytes    = 8 << 20
	bulkBytesPerRow = 100
)

func deferIndexesIfBulk(ctx context.Context, itx *ledger.ImportTx, size int64) error {
	if size < bulkMinBytes {
		return nil
	}
	have, err := itx.LineItemCount(ctx)
	if err != nil {
		return err
	}
	if size/bulkBytesPerRow < have {
		return nil
	}
	return itx.DeferIndexes(ctx, have == 0)
}

// noFormatError is the error for a file in which no table was recognised.
func noFormatError(path string, cands []string) error {
	if len(cands) == 0 {
		return &InputError{File: path, Msg: "no known bill format recognised (no rows)"}
	}
	return &InputError{File: path, Msg: "no known bill format recognised" + candidatesNote(cands)}
}

// candidatesNote lists the first four header candidates for an error.
func candidatesNote(cands []string) string {
	if len(cands) == 0 {
		return ""
	}
	return " (header candidates: " + strings.Join(cands[:min(len(cands), 4)], "; ") + ")"
}

// findHeader reads up to maxHeaderSearch records of t and returns the binding
// of the first record that carries a format's signature (of only those
// formats, when given), with its physical line; seen holds copies of the
// non-empty records read before it (a payment export's preamble), or of all
// the records read when none carries a signature. A JSON table
// has no header row: its binding comes from jsonTable.detect (line 0), which
// refuses a JSON file that is not an AutoDL list with an error.
func findHeader(t table, only ...*Format) (b *binding, line int, seen [][]string, err error) {
	if jt, ok := t.(*jsonTable); ok { // JSON binds its format from the first item's keys
		b, err := jt.detect()
		return b, 0, nil, err
	}
	for n := 0; n < maxHeaderSearch; n++ {
		rec, err := t.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, nil, err
		}
		if emptyRecord(rec) {
			continue
		}
		var b *binding
		if len(only) > 0 {
			b = detectAmong(only, rec)
		} else {
			b = detectHeader(rec)
		}
		if b != nil {
			return b, t.line(0), seen, nil // seen: the preamble
		}
		seen = append(seen, append([]string(nil), rec...))
	}
	return nil, 0, seen, nil
}

// describeCandidates renders the first rows of an unrecognised table for an
// error message, and names the format a row nearly matched.
func describeCandidates(sheet string, seen [][]string) []string {
	var out []string
	for i, rec := range seen {
		if i == 2 {
			break
		}
		s := strings.Join(trimTrailingEmpty(rec), ",")
		if r := []rune(s); len(r) > 80 {
			s = string(r[:80]) + "…"
		}
		s = fmt.Sprintf("%q", s)
		if sheet != "" {
			s = sheet + ": " + s
		}
		if m := recogniseForeign(rec); m != nil {
			s += " " + m.hint()
		} else if hint := nearMiss(rec); hint != "" {
			s += " " + hint
		}
		out = append(out, s)
	}
	return out
}

// nearMiss names the format a header row resembles and the required
// columns it lacks ("" when it resembles none).
func nearMiss(rec []string) string {
	for _, f := range registered() {
		b := bind(f, rec)
		if b.matched < 3 {
			continue
		}
		var missing []string
		for ci, c := range f.Columns {
			if c.Required && b.pos[ci] < 0 {
				missing = append(missing, c.Headers[0])
			}
		}
		if len(missing) > 0 {
			return fmt.Sprintf("looks like %s but lacks %s", f.ID, strings.Join(missing, ", "))
		}
	}
	return ""
}

func trimTrailingEmpty(rec []string) []string {
	for len(rec) > 0 && rec[len(rec)-1] == "" {
		rec = rec[:len(rec)-1]
	}
	return rec
}

// importer holds what one file's tables share.
type importer struct {
	ctx       context.Context
	opts      Options
	res       *Result
	keys      *rowKeyer
	providers map[string]bool
	// billedIsCash is the current table's Format.billedIsCash (SettlePaid).
	billedIsCash bool
	// settled: the current table's paid parts are settled (Format.settled).
	settled bool
	// finalLineKeys is the current table's Format.finalLineKeys.
	finalLineKeys bool
	// periods counts the line items of the current table per provider and
	// month; written by the parse goroutine, read after it is done.
	periods map[ledger.PeriodKey]int
}

// batch carries mapped rows from the parse goroutine to the inserter.
type batch struct {
	items []ledger.LineItem
	rows  ledger.LineItemRows // the items as the ledger binds them
	txs   []ledger.Transaction
	pays  []ledger.Payment
	cells []string // the rows' Raw cells (rowCtx.cells)
	err   error
}

// counts are the parse goroutine's tallies, read after it finished.
type counts struct {
	read, skipped int
	// header is the header's physical line or row (imports.header_row);
	// rowMap the records whose row is not header + record (ledger.Import.RowMap).
	header int
	rowMap [][2]int
}

// previewAt says where the rows previewed from table imp are (Result's
// PreviewAt …), those past the counts in from: the rows before them came
// from earlier tables of the file.
func (im *importer) previewAt(imp *ledger.Import, from [3]int) {
	mapped := ledger.Import{Sheet: imp.Sheet, HeaderRow: imp.HeaderRow, RowMap: imp.RowMap, RowMapped: true}
	at := func(record int) string {
		row, ok := mapped.RowOf(record)
		switch {
		case !ok:
			return ""
		case mapped.Sheet != "":
			return mapped.Sheet + "!" + strconv.Itoa(row)
		}
		return strconv.Itoa(row)
	}
	r := im.res
	for _, li := range r.Preview[from[0]:] {
		r.PreviewAt = append(r.PreviewAt, at(li.SourceRow))
	}
	for _, x := range r.PreviewTx[from[1]:] {
		r.PreviewTxAt = append(r.PreviewTxAt, at(x.SourceRow))
	}
	for _, p := range r.PreviewPay[from[2]:] {
		r.PreviewPayAt = append(r.PreviewPayAt, at(p.SourceRow))
	}
}

// table streams the rows of one recognised table into the ledger: a parse
// goroutine maps records into batches, this goroutine inserts them (on two
// cores the inserter is the bottleneck, so parsing runs beside it).
func (im *importer) table(itx store, t table, b *binding, env *mapEnv, imp *ledger.Import) error {
	if b.format.Target == TargetInvoices {
		return im.invoiceTable(itx, t, b, env, imp)
	}
	im.periods = map[ledger.PeriodKey]int{}
	im.billedIsCash = b.format.billedIsCash
	im.settled = b.format.settled != nil && b.format.settled(b)
	im.finalLineKeys = b.format.finalLineKeys
	var lm lineMapper
	var tm txMapper
	var pm payMapper
	var err error
	if b.format.Target == TargetTransactions {
		tm, err = b.format.txs(b, env)
	} else if b.format.Target == TargetPayments {
		pm, err = b.format.pays(b, env)
	} else {
		lm, err = b.format.lines(b, env)
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(im.ctx)
	defer cancel()
	full := make(chan *batch, 2)
	free := make(chan *batch, 4)
	for i := 0; i < 4; i++ {
		free <- &batch{}
	}
	cnt := counts{header: imp.HeaderRow}
	previewed := [3]int{len(im.res.Preview), len(im.res.PreviewTx), len(im.res.PreviewPay)}
	if lm != nil {
		mapped := make(chan *batch, 1)
		go im.parse(ctx, t, b, env, imp.ID, lm, tm, pm, mapped, free, &cnt)
		go im.render(ctx, mapped, full)
	} else {
		go im.parse(ctx, t, b, env, imp.ID, lm, tm, pm, full, free, &cnt)
	}

	sent, added := 0, 0
	var ferr error
	for bt := range full {
		if ferr != nil {
			continue // drain after an error so the parser ends
		}
		if bt.err != nil {
			ferr = bt.err
			cancel()
			continue
		}
		var n int
		if lm != nil {
			n, ferr = itx.InsertLineItemRows(ctx, &bt.rows)
			sent += len(bt.items)
		} else if pm != nil {
			n, ferr = itx.InsertPayments(ctx, bt.pays)
			sent += len(bt.pays)
		} else {
			n, ferr = itx.InsertTransactions(ctx, bt.txs)
			sent += len(bt.txs)
		}
		added += n
		if ferr != nil {
			cancel()
			continue
		}
		bt.items, bt.txs, bt.pays, bt.cells = bt.items[:0], bt.txs[:0], bt.pays[:0], bt.cells[:0]
		bt.rows.Reset()
		free <- bt
	}
	if ferr != nil {
		return ferr
	}
	if err := im.ctx.Err(); err != nil {
		return err
	}
	if lm != nil && added > 0 {
		n, err := im.dropReExported(itx, imp.ID)
		if err != nil {
			return err
		}
		added -= n
	}
	imp.RowsRead, imp.RowsNew, imp.RowsDuplicate, imp.RowsSkipped = cnt.read, added, sent-added, cnt.skipped
	imp.RowMap = cnt.rowMap
	im.previewAt(imp, previewed)
	im.res.Read += cnt.read
	im.res.New += added
	im.res.Duplicate += sent - added
	im.res.Skipped += cnt.skipped
	if wt, ok := t.(warner); ok {
		im.res.Warnings = append(im.res.Warnings, wt.warnings()...)
	}
	im.res.Warnings = append(im.res.Warnings, env.warnings...)
	if err := im.checkOverlaps(itx, b.format.ID, imp.ID); err != nil {
		return err
	}
	for p, end := range env.dataEnds {
		itx.RaiseDataEnd(p, end)
	}
	if mapped := cnt.read - cnt.skipped; env.stated > 0 && mapped != env.stated {
		im.res.Warnings = append(im.res.Warnings, Warning{
			ZH: fmt.Sprintf("文件自称共 %d 笔记录，实际读到 %d 笔：导出可能不完整或被改动过，合计以读到的行为准。", env.stated, mapped),
			EN: fmt.Sprintf("the file says it holds %d records but %d were read: the export may be incomplete or edited; totals follow the rows read", env.stated, mapped),
		})
	}
	return nil
}

// dropReExported takes back the rows of this table that the ledger already
// held with only their free text changed (ledger.ImportTx.DropReExported):
// the dedupe key hashes the description, which a vendor may rewrite from
// one export to the next, and the same charges would be booked twice. The
// user is told, with the imports that brought them first.
func (im *importer) dropReExported(st store, importID int64) (int, error) {
	keys := make([]ledger.PeriodKey, 0, len(im.periods))
	for k := range im.periods {
		keys = append(keys, k)
	}
	n, from, err := st.DropReExported(im.ctx, importID, keys)
	if err != nil || n == 0 {
		return 0, err
	}
	ids := make([]string, len(from))
	for i, id := range from {
		ids[i] = strconv.FormatInt(id, 10)
	}
	im.res.Warnings = append(im.res.Warnings, Warning{
		ZH: fmt.Sprintf("%d 行与已导入的费用（导入 %s）除说明外完全相同：是同一批费用的再次导出，未重复记入", n, strings.Join(ids, ", ")),
		EN: fmt.Sprintf("%d rows are charges already in the ledger (import %s) with only their description changed: a re-export of the same charges, not added again", n, strings.Join(ids, ", ")),
	})
	return n, nil
}

// checkOverlaps warns when an earlier import in another format brought line
// items for a provider and month of this table (the same charges twice),
// then records this table's provider-months for the imports that follow.
func (im *importer) checkOverlaps(st store, format string, importID int64) error {
	keys := make([]ledger.PeriodKey, 0, len(im.periods))
	for k := range im.periods {
		keys = append(keys, k)
	}
	overlaps, err := st.Overlaps(im.ctx, format, keys)
	if err != nil {
		return err
	}
	for _, o := range overlaps {
		im.res.Warnings = append(im.res.Warnings, Warning{
			ZH: fmt.Sprintf("%s 的 %s 账单已从另一种格式导入过（导入 %d：%s，%s，%d 行）：同一批费用导入两次会被重复计算；确认后可用 gpubill imports undo %d 撤销其中一个。",
				platform.Name(o.Provider, "zh"), o.BillingPeriod, o.ImportID, o.Path, o.Format, o.Items, o.ImportID),
			EN: fmt.Sprintf("%s's %s bill was already imported in another format (import %d: %s, %s, %d rows): the same charges imported twice are counted twice; if so, remove one with gpubill imports undo %d",
				platform.Name(o.Provider, "en"), o.BillingPeriod, o.ImportID, o.Path, o.Format, o.Items, o.ImportID),
		})
	}
	return st.AddImportPeriods(im.ctx, importID, im.periods)
}

// parse is the parse goroutine of table: it reads records, maps them, keys
// them (payments and money flow; line items are keyed by render) and sends
// full batches; it closes full when done (after an error, it sends a batch
// carrying the error).
func (im *importer) parse(ctx context.Context, t table, b *binding, env *mapEnv, importID int64,
	lm lineMapper, tm txMapper, pm payMapper, full chan<- *batch, free chan *batch, cnt *counts) {
	defer close(full)
	rc := &rowCtx{env: env, b: b, t: t}
	// Payment keys number identical rows per table, not per file: a WeChat
	// XLSX may hold the same records on two sheets (payments.go).
	var pkeys *rowKeyer
	if pm != nil {
		pkeys = newRowKeyer(0)
		defer pkeys.close()
	}
	var cur *batch
	get := func() bool {
		if cur != nil {
			return true
		}
		select {
		case cur = <-free:
			return true
		case <-ctx.Done():
			return false
		}
	}
	send := func(bt *batch) bool {
		select {
		case full <- bt:
			return true
		case <-ctx.Done():
			return false
		}
	}
	fail := func(err error) {
		send(&batch{err: err})
	}
	recNo, pendingEmpty := 0, 0
	expect := cnt.header // the row record recNo is on while rows run on one by one
	for {
		rec, err := t.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fail(err)
			return
		}
		recNo++
		if expect++; cnt.header > 0 {
			// A quoted multi-line cell, or a blank line the CSV reader
			// skipped, moves the rows a person sees off header + record.
			if row := t.line(0); row > 0 && row != expect {
				cnt.rowMap = append(cnt.rowMap, [2]int{recNo, row})
				expect = row
			}
		}
		if emptyRecord(rec) {
			pendingEmpty++ // counted only when a row follows: trailing empty rows are no data
			continue
		}
		empties := pendingEmpty
		cnt.read += empties + 1
		im.opts.Progress.addRows(empties + 1)
		cnt.skipped += empties
		pendingEmpty = 0
		// A payment export's frame and footer lines are short rows: the
		// mapper tells them apart first (rc.notRecord), then a short row that
		// is no footer is refused like any other.
		lenErr := checkRowLength(t, rec, b)
		if lenErr != nil && pm == nil {
			fail(lenErr)
			return
		}
		if !get() {
			return
		}
		rc.rec, rc.notRecord, rc.cells = rec, false, &cur.cells
		var kept bool // the mapper kept the row (else it skipped it)
		var n int     // rows in the batch
		switch {
		case lm != nil:
			li, err := mapInto(&cur.items, rc, lm)
			if err != nil {
				fail(err)
				return
			}
			if kept = li != nil; kept {
				li.ImportID, li.SourceRow = importID, recNo
				im.providers[li.Provider] = true
				im.periods[ledger.PeriodKey{Provider: li.Provider, BillingPeriod: li.BillingPeriod}]++
			}
			n = len(cur.items)
		case pm != nil:
			p, err := mapInto(&cur.pays, rc, pm)
			if rc.notRecord {
				// A frame, total or footer line (and the empty rows before
				// it) is no record: neither read nor skipped, so a footer
				// does not read as lost rows.
				cnt.read -= empties + 1
				cnt.skipped -= empties
				recNo-- // SourceRow counts records
				continue
			}
			if lenErr != nil {
				err = lenErr
			}
			if err == nil && p != nil {
				p.ImportID, p.SourceRow = importID, recNo
				p.RowKey = pkeys.payKey(p)
				err = pkeys.failed()
				im.providers[p.Source] = true
				if len(im.res.PreviewPay) < im.opts.Preview {
					im.res.PreviewPay = append(im.res.PreviewPay, *p)
					im.res.PreviewPay[len(im.res.PreviewPay)-1].Raw = slices.Clone(p.Raw) // the batch's cells are reused
				}
			}
			if err != nil {
				fail(err)
				return
			}
			kept, n = p != nil, len(cur.pays)
		default:
			x, err := mapInto(&cur.txs, rc, tm)
			if err == nil && x != nil {
				x.ImportID, x.SourceRow = importID, recNo
				x.RowKey = im.keys.txKey(x)
				err = im.keys.failed()
				im.providers[x.Provider] = true
				if len(im.res.PreviewTx) < im.opts.Preview {
					im.res.PreviewTx = append(im.res.PreviewTx, *x)
					im.res.PreviewTx[len(im.res.PreviewTx)-1].Raw = slices.Clone(x.Raw) // the batch's cells are reused
				}
			}
			if err != nil {
				fail(err)
				return
			}
			kept, n = x != nil, len(cur.txs)
		}
		if !kept {
			cnt.skipped++
			continue
		}
		if n == batchSize {
			if !send(cur) {
				return
			}
			cur = nil
		}
	}
	if cur != nil && (len(cur.items) > 0 || len(cur.txs) > 0 || len(cur.pays) > 0) {
		send(cur)
	}
}

// mapInto maps the record of rc with m into a new row at the end of *rows
// and returns it; nil when the mapper skipped the row, failed, or found it
// no record (rowCtx.notRecord).
func mapInto[T any](rows *[]T, rc *rowCtx, m func(*rowCtx, *T) (bool, error)) (*T, error) {
	*rows = append(*rows, *new(T))
	r := &(*rows)[len(*rows)-1]
	skip, err := m(rc, r)
	if skip || err != nil || rc.notRecord {
		*rows = (*rows)[:len(*rows)-1]
		return nil, err
	}
	return r, nil
}

// render is the middle stage of the line-item pipeline, between parse and
// the inserter: it keys the mapped items of each batch and renders them as
// the ledger binds them. Batches pass in order (the keyer numbers identical
// rows), and with parsing, rendering and inserting on three goroutines a
// big file keeps both cores busy (the parsing goroutine alone was the
// bottleneck once inserts became cheap). It closes out when in is closed.
func (im *importer) render(ctx context.Context, in <-chan *batch, out chan<- *batch) {
	defer close(out)
	for bt := range in {
		if bt.err == nil {
			im.keys.lineKeys(bt.items, im.finalLineKeys)
			for i := range bt.items {
				li := &bt.items[i]
				// After the key: the keys stay those of earlier versions.
				if !im.settled {
					SettlePaid(li, im.billedIsCash)
				}
				bt.rows.Append(li)
				if len(im.res.Preview) < im.opts.Preview {
					im.res.Preview = append(im.res.Preview, *li)
					im.res.Preview[len(im.res.Preview)-1].Raw = slices.Clone(li.Raw) // the batch's cells are reused
				}
			}
			bt.err = im.keys.failed()
		}
		select {
		case out <- bt:
		case <-ctx.Done():
			for range in {
				// drain, so that parse ends
			}
			return
		}
	}
}

// regularFile refuses what is not a regular file (a device such as
// /dev/zero or /dev/urandom, a pipe, a socket): reading one may never end,
// and opening a pipe waits for a writer. A symbolic link counts as its
// target.
func regularFile(path string) error {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() || st.IsDir() {
		return nil // reported by the open, or a folder (expandPaths)
	}
	return &InputError{File: path, Msg: fmt.Sprintf("not a regular file (%s): only bill files are imported; save the bill to a file and import that",
		fileKind(st.Mode()))}
}

// fileKind names a mode that is not a regular file's.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

// fileDigest returns the SHA-256 (hex) and size of a file.
func fileDigest(path string) (string, int64, error) {
	if err := regularFile(path); err != nil {
		return "", 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", 0, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// ImportPaths imports files and folders: a folder is walked recursively in
// name order, skipping hidden files and folders (names starting with ".").
// A ZIP archive (recognised by content; an XLSX workbook is no archive) is
// walked like a folder, member by member (zip.go): each member is a file of
// its own, shown and stored as "archive.zip/dir/member.csv", with its own
// Result. Each file is imported in its own transaction; a refused file (or
// archive member) does not stop the others. The error joins the errors of the files that failed (nil when
// all succeeded); a cancelled context stops the walk.
func ImportPaths(ctx context.Context, db *ledger.DB, paths []string, opts Options) ([]Result, error) {
	var results []Result
	var failed []error
	for _, e := range expandPaths(paths) {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		if e.err != nil {
			results = append(results, Result{Path: e.path, Status: StatusFailed, Err: e.err})
			failed = append(failed, e.err)
			continue
		}
		for _, r := range importPath(ctx, db, e.path, opts) {
			results = append(results, r)
			if r.Err != nil {
				failed = append(failed, r.Err)
			}
		}
	}
	return results, errors.Join(failed...)
}

// pathEntry is one file to import, or a path that could not be read.
type pathEntry struct {
	path string
	err  error
}

// expandPaths turns the arguments into files, in argument order: folders
// walked recursively in name order, hidden entries skipped.
func expandPaths(paths []string) []pathEntry {
	var out []pathEntry
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			out = append(out, pathEntry{p, err})
			continue
		}
		if !st.IsDir() {
			out = append(out, pathEntry{p, regularFile(p)})
			continue
		}
		// WalkDir visits entries in lexical order.
		err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				out = append(out, pathEntry{q, err})
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if q != p && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				out = append(out, pathEntry{path: q})
			}
			return nil
		})
		if err != nil {
			out = append(out, pathEntry{p, err})
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func joinKeys(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

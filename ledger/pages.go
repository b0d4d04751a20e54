package ledger

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// Reading line items from the pages of their table. A load of a month
// through a SELECT spends most of its time in SQLite's virtual machine,
// which takes each column of each row through an opcode (OP_Column) and a
// register: of a million-item month, 1.2 of the load's 2.5 s of CPU. The
// rows themselves are records in the leaf pages of the table's B-tree, in
// SQLite's documented file format (https://sqlite.org/fileformat2.html):
// a header of varints giving each column's serial type, then the values.
// pageScan reads those pages through the sqlite_dbpage virtual table, in a
// read transaction of its own connection, so that it sees what a SELECT
// would see (the WAL's pages included), walks the B-tree over the id
// range it is given and decodes each record in Go.
//
// It takes only what it can read exactly as the SQL does: a UTF-8 ledger
// whose line_items table is a rowid table with id as its INTEGER PRIMARY
// KEY; otherwise LoadLineItems reads through the SELECT. A row that is not
// plain (a value whose type is not its column's: a blob, a real, text in
// an integer column; a record shorter than the table, as ALTER TABLE ADD
// COLUMN leaves them) is read by its id through a SELECT, in the same
// transaction. TestPageScanIsSelect compares both ways.

// pageTable is the table pageScan reads.
const pageTable = "line_items"

// recordCols bounds the columns of a table pageScan reads.
const recordCols = 64

// maxTreeDepth bounds the depth of a B-tree walk: a corrupt page that
// points back up the tree ends the walk with an error, not a loop.
const maxTreeDepth = 20

// errCorruptPage is the error of a page or record that is not as the file
// format defines them.
var errCorruptPage = errors.New("malformed page")

// Column classes: what a plain row holds in a column.
const (
	classText = iota // TEXT affinity: text or NULL
	classInt         // INTEGER affinity: an integer or NULL
)

// pageCol is a column pageScan reads.
type pageCol struct {
	cid   int // its index in the record; -1: the rowid (id)
	class int
}

// pageReader reads the rows of pageTable from its pages, on c, in c's
// read transaction.
type pageReader struct {
	c      *rawConn
	tree   uintptr // the statement that fetches B-tree pages
	more   uintptr // the one that fetches overflow pages (a leaf's page stays valid)
	root   uint32
	usable int   // the page size less the bytes reserved at each page's end
	pages  int64 // in the database
	cols   []pageCol
	cond   pageCond
	byID   string // the SELECT of one row by id, with the filter's conditions
	byIDA  []any
	// refused gets the rows StartsBefore refuses (Filter.Refused), and
	// refusedSQL reads one by id when it is not plain.
	refused    func(Row) error
	refusedSQL string
	refusedA   []any
	rec        record
	buf        []byte   // a payload that spills to overflow pages, put together
	slow       int      // rows read through SQL (byID)
	idCid      int      // the record column of the id, the rowid's alias: NULL
	walked     []uint64 // a bit for each page of the tree walked
}

// pageCond is a Filter's conditions but the id range, on a record: the
// columns it reads (cids), and the values they must hold.
type pageCond struct {
	months         [][]byte // nil: any; else one of these
	providers      [][]byte
	kinds          [][]byte
	importID       int64
	startsBefore   []byte
	period, prov   int
	kind, imp      int
	start, usStart int
}

// pageScan reads the rows of f (its id range, its conditions but f.KeepID)
// from the table's pages and calls fn for each with the columns cols
// (names of line_items, in this order). It returns used = false, having
// called nothing, when the ledger is not one it reads (see above): the
// caller then reads through SQL. Rows come by ascending id, or descending
// with f.Descending.
func (db *DB) pageScan(ctx context.Context, f Filter, cols []string, fn func(Row) error) (used bool, err error) {
	p, err := db.openPages(ctx, f, cols)
	if err != nil || p == nil {
		return false, err
	}
	defer p.c.close()
	pageScans.Add(1)
	return true, p.scan(ctx, f, fn)
}

// walkCachePages is the page cache of a page walk's connection (pages of
// the tree above the leaves, the schema), in pages.
const walkCachePages = 8

// pageScans counts the reads pageScan made (for the tests).
var pageScans atomic.Int64

// openPages opens a connection in a read transaction and a pageReader on
// it for f and cols; nil when the ledger is not one it reads.
//
// The connection reads each page with a pread into a page cache of
// walkCachePages, not through a memory map: a walk reads each page once,
// so a cache only grows (a raw connection's 16 MiB, fresh memory, for
// each reader), and a map's first touch of each page costs a fault.
// Where a fault cost 12 µs (session 13's machine), the what-if of a
// 297,600-item month, mapped or read so, alternating 6 times: 0.72 →
// 0.62 s (medians; user time 0.89–0.96 → 0.76–0.85 s), 8,100–8,600 →
// 4,100–4,700 faults; with a 16 MiB cache unmapped: 30,000 faults,
// 1.0–1.5 s.
func (db *DB) openPages(ctx context.Context, f Filter, cols []string) (*pageReader, error) {
	c, err := db.openReader(ctx, false)
	if err != nil {
		return nil, err
	}
	if _, err := c.exec(ctx, "PRAGMA cache_size = "+strconv.Itoa(walkCachePages)); err != nil {
		c.close()
		return nil, fmt.Errorf("ledger: pages: %w", err)
	}
	p, err := newPageReader(ctx, c, f, cols)
	if err != nil || p == nil {
		c.close()
		return nil, err
	}
	return p, nil
}

// scan reads the rows of f.
func (p *pageReader) scan(ctx context.Context, f Filter, fn func(Row) error) error {
	lo, hi := f.IDMin, f.IDMax
	if hi == 0 {
		hi = math.MaxInt64
	}
	if err := p.walk(ctx, p.root, lo, hi, f.Descending, 0, fn); err != nil {
		return fmt.Errorf("ledger: scan: %w", err)
	}
	return nil
}

// newPageReader checks that pageTable can be read from its pages and
// prepares the reader; nil when it cannot.
func newPageReader(ctx context.Context, c *rawConn, f Filter, cols []string) (*pageReader, error) {
	if _, err := c.exec(ctx, "BEGIN"); err != nil {
		return nil, fmt.Errorf("ledger: scan: %w", err)
	}
	p := &pageReader{c: c}
	var enc string
	if err := c.query(ctx, "PRAGMA encoding", nil, func(r rawRow) error { enc = r.Text(0); return nil }); err != nil {
		return nil, fmt.Errorf("ledger: scan: %w", err)
	}
	if enc != "UTF-8" {
		return nil, nil
	}
	var root int64
	withoutRowid := true
	err := c.query(ctx, `SELECT s.rootpage, l.wr FROM sqlite_schema s JOIN pragma_table_list l ON l.name = s.name AND l.schema = 'main'
		WHERE s.type = 'table' AND s.name = ?`, []any{pageTable}, func(r rawRow) error {
		root, withoutRowid = r.Int64(0), r.Int64(1) != 0
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ledger: scan: %w", err)
	}
	if root <= 0 || root > math.MaxUint32 || withoutRowid {
		return nil, nil
	}
	p.root = uint32(root)
	type column struct {
		cid   int
		class int
	}
	byName := map[string]column{}
	plain := true
	err = c.query(ctx, "SELECT cid, name, upper(type), pk FROM pragma_table_info(?)", []any{pageTable}, func(r rawRow) error {
		cid, name, typ, pk := int(r.Int64(0)), r.Text(1), r.Text(2), r.Int64(3)
		switch {
		case pk != 0:
			// The rowid alias: the only key, an INTEGER PRIMARY KEY,
			// whose record column holds NULL (row checks it: "INTEGER
			// PRIMARY KEY DESC", say, is no alias).
			if name != "id" || typ != "INTEGER" || pk != 1 {
				plain = false
			}
			byName[name] = column{-1, classInt}
			p.idCid = cid
		case typ == "TEXT":
			byName[name] = column{cid, classText}
		case typ == "INTEGER":
			byName[name] = column{cid, classInt}
		}
		if cid >= recordCols {
			plain = false
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ledger: scan: %w", err)
	}
	if _, ok := byName["id"]; !ok || !plain {
		return nil, nil
	}
	col := func(name string) (pageCol, bool) {
		c, ok := byName[name]
		return pageCol{c.cid, c.class}, ok
	}
	for _, name := range cols {
		pc, ok := col(name)
		if !ok {
			return nil, nil
		}
		p.cols = append(p.cols, pc)
	}
	for name, cid := range map[string]*int{"billing_period": &p.cond.period, "provider": &p.cond.prov, "kind": &p.cond.kind,
		"import_id": &p.cond.imp, "charge_period_start": &p.cond.start, "usage_start": &p.cond.usStart} {
		pc, ok := col(name)
		if !ok {
			return nil, nil
		}
		*cid = pc.cid
	}
	if f.Month != "" {
		p.cond.months = [][]byte{[]byte(f.Month)}
	}
	for _, v := range f.Providers {
		p.cond.providers = append(p.cond.providers, []byte(v))
	}
	for _, v := range f.Kinds {
		p.cond.kinds = append(p.cond.kinds, []byte(v))
	}
	p.cond.importID = f.ImportID
	if !f.StartsBefore.IsZero() {
		p.cond.startsBefore = []byte(FormatTime(f.StartsBefore))
	}
	if p.tree, err = c.prepare("SELECT data FROM sqlite_dbpage WHERE pgno = ?1"); err != nil {
		return nil, fmt.Errorf("ledger: scan: %w", err)
	}
	if p.more, err = c.prepare("SELECT data FROM sqlite_dbpage('main') WHERE pgno = ?1"); err != nil {
		return nil, fmt.Errorf("ledger: scan: %w", err)
	}
	page1, err := p.page(p.tree, 1)
	if err != nil {
		return nil, err
	}
	if len(page1) < 100 || len(page1) > 1<<16 || int(page1[20]) >= len(page1)-480 {
		return nil, fmt.Errorf("ledger: scan: page 1: %w", errCorruptPage)
	}
	p.usable = len(page1) - int(page1[20])
	if err := c.query(ctx, "PRAGMA page_count", nil, func(r rawRow) error { p.pages = r.Int64(0); return nil }); err != nil {
		return nil, fmt.Errorf("ledger: scan: %w", err)
	}
	// A row that is not plain is read by its id, with the filter's
	// conditions (but the range).
	rest := f
	rest.IDMin, rest.IDMax = 0, 0
	where, args := rest.where()
	if where == "" {
		where = " WHERE "
	} else {
		where += " AND "
	}
	sel := make([]string, len(cols))
	for i, name := range cols {
		sel[i] = "li." + name
	}
	p.byID = "SELECT " + strings.Join(sel, ", ") + " FROM " + pageTable + " li" + where + "li.id = ?"
	p.byIDA = append(args, int64(0))
	if f.refused != nil && !f.StartsBefore.IsZero() {
		where, args := rest.refusedWhere(false)
		p.refused = f.refused
		p.refusedSQL = "SELECT " + strings.Join(sel, ", ") + " FROM " + pageTable + " li" + where + " AND li.id = ?"
		p.refusedA = append(args, int64(0))
	}
	p.rec.sel = p.cols
	for _, c := range p.cols {
		p.rec.last = max(p.rec.last, c.cid)
	}
	p.rec.last = max(p.rec.last, p.cond.period, p.cond.prov, p.cond.kind, p.cond.imp, p.cond.start, p.cond.usStart, p.idCid)
	return p, nil
}

// page fetches page pgno with st: valid until st's next fetch.
func (p *pageReader) page(st uintptr, pgno uint32) ([]byte, error) {
	c := p.c
	sqlite3.Xsqlite3_reset(c.tls, st)
	if rc := sqlite3.Xsqlite3_bind_int64(c.tls, st, 1, int64(pgno)); rc != sqlite3.SQLITE_OK {
		return nil, c.error(rc)
	}
	switch rc := sqlite3.Xsqlite3_step(c.tls, st); rc {
	case sqlite3.SQLITE_ROW:
	case sqlite3.SQLITE_DONE:
		return nil, fmt.Errorf("page %d: not in the database: %w", pgno, errCorruptPage)
	default:
		return nil, c.error(rc)
	}
	data := sqlite3.Xsqlite3_column_blob(c.tls, st, 0)
	n := sqlite3.Xsqlite3_column_bytes(c.tls, st, 0)
	if data == 0 || n < 512 {
		return nil, fmt.Errorf("page %d: %w", pgno, errCorruptPage)
	}
	return libc.GoBytes(data, int(n)), nil
}

// walk reads the rows of ids lo to hi under page pgno of the tree.
func (p *pageReader) walk(ctx context.Context, pgno uint32, lo, hi int64, desc bool, depth int, fn func(Row) error) error {
	b, hdr, err := p.visit(ctx, pgno, depth)
	if err != nil {
		return err
	}
	switch b[hdr] {
	case 0x0d: // a table leaf
		return p.leaf(ctx, pgno, b, hdr, desc, func(id int64) bool { return id >= lo && id <= hi }, fn)
	case 0x05: // a table interior page: the children whose ids meet lo to hi
		kids, err := interiorChildren(b, hdr, p.usable, lo, hi)
		if err != nil {
			return fmt.Errorf("page %d: %w", pgno, err)
		}
		if desc {
			slices.Reverse(kids)
		}
		for _, k := range kids {
			if err := p.walk(ctx, k, lo, hi, desc, depth+1, fn); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("page %d: not a page of a table's tree (type %d): %w", pgno, b[hdr], errCorruptPage)
}

// visit checks that page pgno may be walked at depth (the depth bound,
// the file's size, not reached before: a corrupt child pointer to a page
// already walked would read rows twice, or walk a subtree again and again
// within the depth bound) and fetches it: its bytes, valid until the
// tree's next fetch, and where its header starts.
func (p *pageReader) visit(ctx context.Context, pgno uint32, depth int) (b []byte, hdr int, err error) {
	if depth > maxTreeDepth {
		return nil, 0, fmt.Errorf("page %d: the tree is deeper than %d: %w", pgno, maxTreeDepth, errCorruptPage)
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if int64(pgno) > p.pages {
		return nil, 0, fmt.Errorf("page %d: past the end of the database: %w", pgno, errCorruptPage)
	}
	if p.walked == nil {
		p.walked = make([]uint64, p.pages/64+1)
	}
	w, bit := &p.walked[pgno/64], uint64(1)<<(pgno%64)
	if *w&bit != 0 {
		return nil, 0, fmt.Errorf("page %d: reached twice in the tree: %w", pgno, errCorruptPage)
	}
	*w |= bit
	if b, err = p.page(p.tree, pgno); err != nil {
		return nil, 0, err
	}
	if pgno == 1 {
		hdr = 100
	}
	if len(b) < hdr+12 {
		return nil, 0, fmt.Errorf("page %d: %w", pgno, errCorruptPage)
	}
	return b, hdr, nil
}

// interiorChildren returns the children of the interior table page b
// (header at hdr) that hold ids from lo to hi, in order.
func interiorChildren(b []byte, hdr, usable int, lo, hi int64) ([]uint32, error) {
	var kids []uint32
	done := false
	right, err := interiorCells(b, hdr, usable, func(child uint32, key int64) bool {
		if key < lo {
			return true
		}
		kids = append(kids, child)
		done = key >= hi
		return !done
	})
	if err != nil || done {
		return kids, err
	}
	return append(kids, right), nil
}

// interiorCells calls cell with the child and the key of each cell of the
// interior table page b (header at hdr), in order, while it returns true,
// and returns the right-most child. A cell's key is the largest id of its
// child's subtree; the right-most child holds those above the last key.
func interiorCells(b []byte, hdr, usable int, cell func(child uint32, key int64) bool) (right uint32, err error) {
	usable = min(usable, len(b))
	if hdr+12 > usable {
		return 0, errCorruptPage
	}
	n := int(binary.BigEndian.Uint16(b[hdr+3:]))
	if hdr+12+2*n > usable {
		return 0, errCorruptPage
	}
	for i := range n {
		off := int(binary.BigEndian.Uint16(b[hdr+12+2*i:]))
		if off < hdr+12+2*n || off+5 > usable {
			return 0, errCorruptPage
		}
		key, k := varint(b[off+4 : usable])
		if k == 0 {
			return 0, errCorruptPage
		}
		if !cell(binary.BigEndian.Uint32(b[off:]), int64(key)) {
			break
		}
	}
	return binary.BigEndian.Uint32(b[hdr+8:]), nil
}

// leaf reads the rows of the table leaf page b whose id keep accepts.
func (p *pageReader) leaf(ctx context.Context, pgno uint32, b []byte, hdr int, desc bool, keep func(id int64) bool, fn func(Row) error) error {
	err := leafCells(b, hdr, p.usable, desc, func(id int64, cell []byte, size int) error {
		if !keep(id) {
			return nil
		}
		payload, err := p.payload(cell, size)
		if err != nil {
			return fmt.Errorf("row %d: %w", id, err)
		}
		return p.row(ctx, id, payload, fn)
	})
	if errors.Is(err, errCorruptPage) {
		return fmt.Errorf("page %d: %w", pgno, err)
	}
	return err
}

// leafCells calls cell for each cell of the table leaf page b (header at
// hdr, usable bytes), in order or in reverse: its row's id, the page from
// the cell's payload on, and the payload's whole size.
func leafCells(b []byte, hdr, usable int, desc bool, cell func(id int64, rest []byte, size int) error) error {
	usable = min(usable, len(b))
	if hdr+8 > usable {
		return errCorruptPage
	}
	n := int(binary.BigEndian.Uint16(b[hdr+3:]))
	if hdr+8+2*n > usable {
		return errCorruptPage
	}
	for j := range n {
		i := j
		if desc {
			i = n - 1 - j
		}
		off := int(binary.BigEndian.Uint16(b[hdr+8+2*i:]))
		if off < hdr+8+2*n || off >= usable {
			return errCorruptPage
		}
		c := b[off:usable]
		size, k1 := varint(c)
		if k1 == 0 {
			return errCorruptPage
		}
		key, k2 := varint(c[k1:])
		if k2 == 0 || size > math.MaxInt32 {
			return errCorruptPage
		}
		if err := cell(int64(key), c[k1+k2:], int(size)); err != nil {
			return err
		}
	}
	return nil
}

// payload is the record of a cell whose payload (size bytes) starts at
// cell[0]: in the page itself, or put together from its overflow pages.
func (p *pageReader) payload(cell []byte, size int) ([]byte, error) {
	local := localPayload(size, p.usable)
	if local == size {
		if size > len(cell) {
			return nil, errCorruptPage
		}
		return cell[:size], nil
	}
	if local+4 > len(cell) || int64(size-local)/int64(p.usable-4) >= p.pages {
		return nil, errCorruptPage // more overflow pages than the file has
	}
	buf := append(p.buf[:0], cell[:local]...)
	next := binary.BigEndian.Uint32(cell[local:])
	for len(buf) < size {
		if next == 0 {
			return nil, errCorruptPage
		}
		b, err := p.page(p.more, next)
		if err != nil {
			return nil, err
		}
		if len(b) < p.usable || p.usable < 5 {
			return nil, errCorruptPage
		}
		next = binary.BigEndian.Uint32(b)
		buf = append(buf, b[4:min(p.usable, 4+size-len(buf))]...)
	}
	p.buf = buf
	return buf, nil
}

// localPayload is how much of a payload of size bytes a table leaf cell
// holds in its page of usable bytes (fileformat2.html, "B-tree Pages").
func localPayload(size, usable int) int {
	x := usable - 35
	if size <= x {
		return size
	}
	m := (usable-12)*32/255 - 23
	k := m + (size-m)%(usable-4)
	if k <= x {
		return k
	}
	return m
}

// row decodes the record of row id and hands it to fn if it meets the
// filter; a row that is not plain is read through SQL.
func (p *pageReader) row(ctx context.Context, id int64, payload []byte, fn func(Row) error) error {
	rec := &p.rec
	plain, err := rec.decode(id, payload)
	if err != nil {
		return fmt.Errorf("row %d: %w", id, err)
	}
	if plain && rec.typ[p.idCid] != 0 {
		return fmt.Errorf("row %d: the id is stored in the record: not the rowid", id)
	}
	if plain {
		for _, c := range p.cols {
			if !rec.is(c) {
				plain = false
				break
			}
		}
	}
	if plain {
		switch p.cond.match(rec) {
		case condUnknown:
			plain = false
		case condNo:
			return nil
		case condRefused:
			if p.refused != nil {
				return p.refused(Row{rec: rec})
			}
			return nil
		}
	}
	if plain {
		return fn(Row{rec: rec})
	}
	p.slow++
	p.byIDA[len(p.byIDA)-1] = id
	found := false
	err = p.c.query(ctx, p.byID, p.byIDA, func(r rawRow) error { found = true; return fn(Row{r: r}) })
	if err != nil || found || p.refused == nil {
		return err
	}
	p.refusedA[len(p.refusedA)-1] = id
	return p.c.query(ctx, p.refusedSQL, p.refusedA, func(r rawRow) error { return p.refused(Row{r: r}) })
}

// What pageCond.match says of a record.
const (
	condYes     = iota // it meets the conditions
	condNo             // it does not
	condRefused        // it meets them all but StartsBefore
	condUnknown        // a column they read is not plain: the row is read through SQL
)

// match says whether rec meets the conditions (condYes, condNo,
// condRefused, condUnknown).
func (c *pageCond) match(rec *record) int {
	for _, in := range [...]struct {
		cid int
		set [][]byte
	}{{c.period, c.months}, {c.prov, c.providers}, {c.kind, c.kinds}} {
		if in.set == nil {
			continue
		}
		if !rec.is(pageCol{in.cid, classText}) {
			return condUnknown
		}
		if rec.isNull(in.cid) || !slices.ContainsFunc(in.set, func(s []byte) bool { return bytes.Equal(rec.text(in.cid), s) }) {
			return condNo
		}
	}
	if c.importID != 0 {
		if !rec.is(pageCol{c.imp, classInt}) {
			return condUnknown
		}
		if rec.isNull(c.imp) || rec.int(c.imp) != c.importID {
			return condNo
		}
	}
	if c.startsBefore != nil {
		if !rec.is(pageCol{c.start, classText}) || !rec.is(pageCol{c.usStart, classText}) {
			return condUnknown
		}
		// charge_period_start < t OR ifnull(usage_start < t, 0): texts
		// compare as memcmp (BINARY); NULL is not less than anything.
		before := func(cid int) bool { return !rec.isNull(cid) && bytes.Compare(rec.text(cid), c.startsBefore) < 0 }
		if !before(c.start) && !before(c.usStart) {
			return condRefused
		}
	}
	return condYes
}

// record is a row decoded from its page: its id and, for each column up to
// last, its serial type and where its value starts in data.
type record struct {
	id   int64
	data []byte
	typ  [recordCols]uint64
	off  [recordCols]int32
	last int       // the last column decoded
	sel  []pageCol // the columns of a Row, in its order
	num  []byte    // an integer read as text
}

// decode reads the header of the record data of row id, up to column
// rec.last. plain is false when the record has fewer columns (the others
// then hold their defaults, which SQL knows).
func (rec *record) decode(id int64, data []byte) (plain bool, err error) {
	rec.id, rec.data = id, data
	hsize, k := varint(data)
	if k == 0 || hsize < uint64(k) || hsize > uint64(len(data)) {
		return false, errCorruptPage
	}
	h := data[k:hsize]
	off := int(hsize)
	last := min(rec.last, recordCols-1)
	for cid := 0; cid <= last; cid++ {
		if len(h) == 0 {
			return false, nil
		}
		// A serial type of one byte (below 128: NULL, integers, texts up
		// to 57 bytes) is most of a header; read it without varint's loop
		// (BenchmarkRecordDecode: 180 → 135 ns a record).
		var t uint64
		var size int
		if c := h[0]; c < 0x80 {
			t, h = uint64(c), h[1:]
			if c >= 12 {
				size = int(c-12) >> 1
			} else {
				size = smallSerialSize[c]
			}
		} else {
			var n int
			if t, n = varint(h); n == 0 {
				return false, errCorruptPage
			}
			h = h[n:]
			size = serialSize(t)
		}
		if size < 0 || off+size > len(data) {
			return false, errCorruptPage
		}
		rec.typ[cid], rec.off[cid] = t, int32(off)
		off += size
	}
	return true, nil
}

// smallSerialSize is serialSize of the types below 12.
var smallSerialSize = [12]int{0, 1, 2, 3, 4, 6, 8, 8, 0, 0, -1, -1}

// serialSize is the size of a value of serial type t; -1 for the reserved
// types.
func serialSize(t uint64) int {
	switch {
	case t >= 12:
		if t > math.MaxInt32 {
			return -1
		}
		return int(t-12) / 2
	case t <= 4:
		return int(t)
	case t == 5:
		return 6
	case t == 6 || t == 7:
		return 8
	case t == 8 || t == 9:
		return 0
	}
	return -1
}

// is reports whether column c holds a value of its class (or NULL).
func (rec *record) is(c pageCol) bool {
	if c.cid < 0 {
		return true // the id
	}
	t := rec.typ[c.cid]
	switch c.class {
	case classText:
		return t == 0 || t >= 13 && t%2 == 1
	default:
		return t <= 6 || t == 8 || t == 9
	}
}

func (rec *record) isNull(cid int) bool { return cid >= 0 && rec.typ[cid] == 0 }

// text is the text of column cid (a text or NULL: nil).
func (rec *record) text(cid int) []byte {
	t := rec.typ[cid]
	if t < 13 {
		return nil
	}
	o := int(rec.off[cid])
	return rec.data[o : o+int(t-13)/2 : o+int(t-13)/2]
}

// int is the integer of column cid (an integer or NULL: 0).
func (rec *record) int(cid int) int64 {
	if cid < 0 {
		return rec.id
	}
	t := rec.typ[cid]
	switch t {
	case 8:
		return 0
	case 9:
		return 1
	case 0:
		return 0
	}
	n := serialSize(t)
	if t > 6 || n <= 0 {
		return 0
	}
	o := int(rec.off[cid])
	v := int64(int8(rec.data[o])) // sign-extended
	for _, b := range rec.data[o+1 : o+n] {
		v = v<<8 | int64(b)
	}
	return v
}

// Row access by column of the Row (scan.go): an index out of range reads
// as NULL, as through the API.

func (rec *record) nullAt(i int) bool {
	if uint(i) >= uint(len(rec.sel)) {
		return true
	}
	return rec.isNull(rec.sel[i].cid)
}

func (rec *record) int64At(i int) int64 {
	if uint(i) >= uint(len(rec.sel)) {
		return 0
	}
	c := rec.sel[i]
	if c.class == classText && c.cid >= 0 {
		return leadingInt(rec.text(c.cid))
	}
	return rec.int(c.cid)
}

func (rec *record) bytesAt(i int) []byte {
	if uint(i) >= uint(len(rec.sel)) {
		return nil
	}
	c := rec.sel[i]
	if c.class == classInt || c.cid < 0 {
		if rec.isNull(c.cid) {
			return nil
		}
		rec.num = strconv.AppendInt(rec.num[:0], rec.int(c.cid), 10)
		return rec.num
	}
	return rec.text(c.cid)
}

// varint reads a SQLite varint (big-endian, 7 bits a byte, the ninth byte
// whole) from b: its value and length, 0 when b ends first.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 8; i++ {
		if i >= len(b) {
			return 0, 0
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return 0, 0
	}
	return v<<8 | uint64(b[8]), 9
}

// leadingInt is the integer a text begins with, as SQLite reads text as an
// integer: spaces skipped, a sign, the digits up to the first other byte;
// 0 when there are none, the nearest bound when it overflows.
func leadingInt(b []byte) int64 {
	b = bytes.TrimLeft(b, " \t\n\f\r\v")
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, b = b[0] == '-', b[1:]
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		if v > (math.MaxInt64+1-uint64(c-'0'))/10 {
			if neg {
				return math.MinInt64
			}
			return math.MaxInt64
		}
		v = v*10 + uint64(c-'0')
	}
	switch {
	case neg && v == math.MaxInt64+1:
		return math.MinInt64
	case neg:
		return -int64(v)
	case v > math.MaxInt64:
		return math.MaxInt64
	}
	return int64(v)
}

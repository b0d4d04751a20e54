package ingest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"strconv"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/shopspring/decimal"
)

// Parquet files (FOCUS cost data as the clouds export it) are read as one
// table: the first record is the top-level column names, each further record
// a row with its values as text the way a CSV export would write them:
// DECIMAL exactly (scale kept), DOUBLE/FLOAT in their shortest decimal form
// (a DOUBLE amount is only as exact as the float the exporter wrote),
// timestamps as RFC 3339 in UTC, DATE as 2006-01-02, nulls as empty cells.
// A MAP column (FOCUS Tags) becomes a JSON object, a LIST or struct column a
// JSON array of its leaf values. Rows are read in batches: memory does not
// grow with the file.

var magicParquet = []byte("PAR1")

// parquetBatch is how many rows a parquetTable reads at a time.
const parquetBatch = 256

// parquetFile is an opened Parquet file; tmp is the spooled copy of a
// content that was not an *os.File (an archive member), removed on close.
type parquetFile struct {
	file *parquet.File
	tmp  *os.File
}

// openParquet opens the Parquet file f, or when f is nil the content br
// reads (its first bytes are PAR1), spooled to a temporary file first,
// because Parquet is read from the footer.
func openParquet(path string, f *os.File, br io.Reader) (src *source, err error) {
	pf := &parquetFile{}
	if f == nil {
		tmp, err := os.CreateTemp("", "gpubill-*.parquet")
		if err != nil {
			return nil, fmt.Errorf("spool %s: %w", path, err)
		}
		pf.tmp = tmp
		os.Remove(tmp.Name()) // read through tmp only: nothing left behind if killed (Unix; else close removes it)
		if _, err := io.Copy(tmp, br); err != nil {
			pf.close()
			return nil, &InputError{File: path, Msg: "cannot read", Err: err}
		}
		f = tmp
	}
	defer func() {
		if p := recover(); p != nil {
			err = &InputError{File: path, Msg: fmt.Sprintf("damaged Parquet file: %v", p)}
		}
		if err != nil {
			pf.close()
			src = nil
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	size := st.Size()
	var tail [4]byte
	if size < 12 {
		return nil, &InputError{File: path, Msg: "a truncated Parquet file (too short)"}
	}
	if _, err := f.ReadAt(tail[:], size-4); err != nil {
		return nil, &InputError{File: path, Msg: "cannot read", Err: err}
	}
	if !bytes.Equal(tail[:], magicParquet) {
		return nil, &InputError{File: path, Msg: "a truncated or damaged Parquet file (no PAR1 at its end)"}
	}
	if err := checkParquetFooter(path, f, size); err != nil {
		return nil, err
	}
	pf.file, err = parquet.OpenFile(f, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, &InputError{File: path, Msg: "not a readable Parquet file (truncated or damaged?)", Err: err}
	}
	return &source{path: path, encoding: "parquet", pq: pf}, nil
}

// checkParquetFooter reads the footer of the Parquet file f (size bytes)
// and refuses one that does not fit in the file or whose metadata claims
// more than it holds (checkThriftCompact), before parquet-go reads it.
func checkParquetFooter(path string, f *os.File, size int64) error {
	var lenb [4]byte
	if _, err := f.ReadAt(lenb[:], size-8); err != nil {
		return &InputError{File: path, Msg: "cannot read", Err: err}
	}
	n := int64(binary.LittleEndian.Uint32(lenb[:]))
	if n > size-12 {
		return &InputError{File: path, Msg: "not a readable Parquet file (truncated or damaged?)",
			Err: fmt.Errorf("its footer claims %d bytes, the file has %d", n, size)}
	}
	footer := make([]byte, n)
	if _, err := f.ReadAt(footer, size-8-n); err != nil {
		return &InputError{File: path, Msg: "cannot read", Err: err}
	}
	if err := checkThriftCompact(footer); err != nil {
		return &InputError{File: path, Msg: "not a readable Parquet file (truncated or damaged?)",
			Err: fmt.Errorf("its footer (metadata, from byte %d of the file) does not hold what it claims: %w", size-8-n, err)}
	}
	return nil
}

func (pf *parquetFile) close() error {
	if pf.tmp != nil {
		pf.tmp.Close()
		os.Remove(pf.tmp.Name())
		pf.tmp = nil
	}
	return nil
}

// parquetField is one top-level column: the leaf columns under it and how
// its value is written.
type parquetField struct {
	name   string
	leaves []int // leaf column indexes (schema order)
	isMap  bool  // a MAP of two leaves (key, value): written as a JSON object
	group  bool  // a group (LIST, struct, MAP): written as JSON
}

// parquetTable streams the rows of a parquetFile.
type parquetTable struct {
	path   string
	fields []parquetField
	leafOf []int          // leaf column index → field index
	types  []parquet.Type // leaf column index → type
	header bool           // the header record was returned
	groups []parquet.RowGroup
	rg     int
	rows   parquet.Rows
	buf    []parquet.Row
	n, i   int
	row    int // records returned, header included
	rec    []string
	vals   [][]parquet.Value // per field, the values of the current row
}

func (pf *parquetFile) table(path string) (*parquetTable, error) {
	s := pf.file.Schema()
	t := &parquetTable{path: path, groups: pf.file.RowGroups()}
	ncol := len(s.Columns())
	t.leafOf = make([]int, ncol)
	t.types = make([]parquet.Type, ncol)
	for i := range t.leafOf {
		t.leafOf[i] = -1
	}
	for _, fld := range s.Fields() {
		pfd := parquetField{name: fld.Name(), group: !fld.Leaf()}
		if lt := fld.Type().LogicalType(); lt != nil {
			_, pfd.isMap = lt.Value.(*format.MapType)
		}
		t.fields = append(t.fields, pfd)
	}
	for _, p := range s.Columns() {
		leaf, ok := s.Lookup(p...)
		if !ok || len(p) == 0 {
			return nil, &InputError{File: path, Msg: fmt.Sprintf("damaged Parquet schema (column %v)", p)}
		}
		for fi := range t.fields {
			if t.fields[fi].name == p[0] {
				t.leafOf[leaf.ColumnIndex] = fi
				t.fields[fi].leaves = append(t.fields[fi].leaves, leaf.ColumnIndex)
				break
			}
		}
		if leaf.ColumnIndex >= 0 && leaf.ColumnIndex < ncol {
			t.types[leaf.ColumnIndex] = leaf.Node.Type()
		}
	}
	for fi := range t.fields {
		if t.fields[fi].isMap && len(t.fields[fi].leaves) != 2 {
			t.fields[fi].isMap = false
		}
	}
	t.vals = make([][]parquet.Value, len(t.fields))
	return t, nil
}

func (t *parquetTable) sheet() string { return "" }

// line is the record number: 1 for the header, 2 for the first row.
func (t *parquetTable) line(int) int { return t.row }

func (t *parquetTable) next() (rec []string, err error) {
	defer func() {
		if p := recover(); p != nil { // parquet-go on a damaged page
			rec, err = nil, &InputError{File: t.path, Line: t.row + 1, Msg: fmt.Sprintf("damaged Parquet data: %v", p)}
		}
	}()
	t.rec = t.rec[:0]
	if !t.header {
		t.header = true
		t.row++
		for _, f := range t.fields {
			t.rec = append(t.rec, trimCell(f.name))
		}
		return t.rec, nil
	}
	for t.i >= t.n {
		if err := t.fill(); err != nil {
			return nil, err
		}
	}
	row := t.buf[t.i]
	t.i++
	t.row++
	for fi := range t.vals {
		t.vals[fi] = t.vals[fi][:0]
	}
	for _, v := range row {
		c := v.Column()
		if c < 0 || c >= len(t.leafOf) || t.leafOf[c] < 0 {
			continue
		}
		t.vals[t.leafOf[c]] = append(t.vals[t.leafOf[c]], v)
	}
	for fi, f := range t.fields {
		s, err := t.render(f, t.vals[fi])
		if err != nil {
			return nil, &InputError{File: t.path, Line: t.row, Col: fi + 1, Column: f.name, Msg: err.Error()}
		}
		t.rec = append(t.rec, s)
	}
	return t.rec, nil
}

// fill reads the next batch of rows, moving on to the next row group when
// one is exhausted; io.EOF after the last.
func (t *parquetTable) fill() error {
	if t.buf == nil {
		t.buf = make([]parquet.Row, parquetBatch)
	}
	for {
		if t.rows == nil {
			if t.rg >= len(t.groups) {
				return io.EOF
			}
			t.rows = t.groups[t.rg].Rows()
			t.rg++
		}
		for i := range t.buf {
			t.buf[i] = t.buf[i][:0]
		}
		n, err := t.rows.ReadRows(t.buf)
		t.n, t.i = n, 0
		if err != nil && !errors.Is(err, io.EOF) {
			return &InputError{File: t.path, Line: t.row + 1, Msg: "cannot read Parquet rows (truncated or damaged?)", Err: err}
		}
		if err != nil || n == 0 {
			t.rows.Close()
			t.rows = nil
		}
		if n > 0 {
			return nil
		}
	}
}

func (t *parquetTable) close() {
	if t.rows != nil {
		t.rows.Close()
		t.rows = nil
	}
}

// render writes the values of one field of a row as text.
func (t *parquetTable) render(f parquetField, vals []parquet.Value) (string, error) {
	if !f.group {
		if len(vals) == 0 {
			return "", nil
		}
		s, err := parquetText(t.types[f.leaves[0]], vals[0])
		return trimCell(s), err
	}
	if f.isMap {
		obj := map[string]string{}
		var keys []string
		var vs []string
		for _, v := range vals {
			s, err := parquetText(t.types[v.Column()], v)
			if err != nil {
				return "", err
			}
			if v.Column() == f.leaves[0] {
				if !v.IsNull() {
					keys = append(keys, s)
				}
			} else {
				vs = append(vs, s)
			}
		}
		if len(keys) == 0 {
			return "", nil
		}
		for i, k := range keys {
			if i < len(vs) {
				obj[k] = vs[i]
			} else {
				obj[k] = ""
			}
		}
		b, err := json.Marshal(obj)
		return string(b), err
	}
	var arr []string
	for _, v := range vals {
		if v.IsNull() {
			continue
		}
		s, err := parquetText(t.types[v.Column()], v)
		if err != nil {
			return "", err
		}
		arr = append(arr, s)
	}
	if len(arr) == 0 {
		return "", nil
	}
	b, err := json.Marshal(arr)
	return string(b), err
}

// parquetText is one leaf value as a CSV export would write it.
func parquetText(typ parquet.Type, v parquet.Value) (string, error) {
	if v.IsNull() {
		return "", nil
	}
	var lt *format.LogicalType
	if typ != nil {
		lt = typ.LogicalType()
	}
	if lt != nil {
		switch l := lt.Value.(type) {
		case *format.DecimalType:
			return parquetDecimal(v, l.Scale)
		case *format.TimestampType:
			var ts time.Time
			n := v.Int64()
			switch l.Unit.Value.(type) {
			case *format.MilliSeconds:
				ts = time.UnixMilli(n)
			case *format.MicroSeconds:
				ts = time.UnixMicro(n)
			default:
				ts = time.Unix(0, n)
			}
			return ts.UTC().Format(time.RFC3339Nano), nil
		case *format.DateType:
			return time.Unix(int64(v.Int32())*86400, 0).UTC().Format(time.DateOnly), nil
		}
	}
	switch v.Kind() {
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean()), nil
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10), nil
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10), nil
	case parquet.Int96: // legacy timestamp: nanoseconds of the day, Julian day
		i := v.Int96()
		nanos := int64(uint64(i[1])<<32 | uint64(i[0]))
		day := int64(i[2]) - 2440588
		return time.Unix(day*86400, nanos).UTC().Format(time.RFC3339Nano), nil
	case parquet.Float:
		return strconv.FormatFloat(float64(v.Float()), 'f', -1, 32), nil
	case parquet.Double:
		return strconv.FormatFloat(v.Double(), 'f', -1, 64), nil
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return string(v.ByteArray()), nil
	}
	return v.String(), nil
}

// parquetDecimal writes a DECIMAL exactly, with its scale's digits.
func parquetDecimal(v parquet.Value, scale int32) (string, error) {
	if scale < 0 || scale > 1000 {
		return "", fmt.Errorf("DECIMAL scale %d out of range", scale)
	}
	var unscaled *big.Int
	switch v.Kind() {
	case parquet.Int32:
		unscaled = big.NewInt(int64(v.Int32()))
	case parquet.Int64:
		unscaled = big.NewInt(v.Int64())
	case parquet.ByteArray, parquet.FixedLenByteArray:
		b := v.ByteArray() // big-endian two's complement
		if len(b) > 64 {
			return "", fmt.Errorf("DECIMAL of %d bytes is too long", len(b))
		}
		unscaled = new(big.Int).SetBytes(b)
		if len(b) > 0 && b[0]&0x80 != 0 {
			unscaled.Sub(unscaled, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
		}
	default:
		return "", fmt.Errorf("DECIMAL stored as %s", v.Kind())
	}
	return decimal.NewFromBigInt(unscaled, -scale).StringFixed(scale), nil
}

package export

import (
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/shopspring/decimal"
)

// Parquet layout of the export.
//
// Money is DECIMAL(38, 12): 38 digits is the widest decimal DuckDB, Spark,
// Trino and BigQuery (NUMERIC's BIGNUMERIC aside) accept, and 12 decimals
// hold the FOCUS sample's 11-decimal amounts and the Chinese platforms' 6–8
// with room, leaving 26 integer digits. Quantities and unit prices are
// DECIMAL(38, 18): the FOCUS sample writes ConsumedQuantity to 15 decimals
// and unit prices as small as 0.0000004. Both are stored as 16-byte
// FIXED_LEN_BYTE_ARRAY, as the spec asks for precisions above 18. An amount
// with more decimals, or too many digits, is refused (the caller names the
// line), never rounded.
//
// A fixed scale writes 1.5 as 1.500000000000; the decimals each amount had
// in the ledger go in x_SourceScales, so gpubill import gives back the
// ledger's own text (its reports print amounts at source precision).
const (
	MoneyPrecision, MoneyScale       = 38, 12
	QuantityPrecision, QuantityScale = 38, 18
	decimalBytes                     = 16 // FIXED_LEN_BYTE_ARRAY size of precision 38

	// rowGroupRows is the row group size: about 10–20 MB of Parquet a group
	// on gpubill's rows, big enough for engines to read column chunks in
	// large pieces, small enough that the writer's buffered group keeps
	// memory flat.
	rowGroupRows = 65536
)

// parquetEncoder writes a partition as Parquet, one row group at a time.
type parquetEncoder struct {
	w      *parquet.GenericWriter[any]
	leaf   []int // column index of columns[i] in the schema (sorted by name)
	scales int   // column index of x_SourceScales
	row    parquet.Row
	buf    []parquet.Row
	sb     strings.Builder
}

var maxUnscaled = new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil)

func parquetSchema() *parquet.Schema {
	g := parquet.Group{}
	for _, c := range columns {
		var n parquet.Node
		switch c.typ {
		case typeMoney:
			n = parquet.Decimal(MoneyScale, MoneyPrecision, parquet.FixedLenByteArrayType(decimalBytes))
		case typeQuantity:
			n = parquet.Decimal(QuantityScale, QuantityPrecision, parquet.FixedLenByteArrayType(decimalBytes))
		case typeTime:
			n = parquet.Timestamp(parquet.Microsecond)
		case typeInt:
			n = parquet.Int(64)
		default:
			n = parquet.String()
		}
		g[c.name] = parquet.Optional(n)
	}
	g[scalesColumn] = parquet.Optional(parquet.String())
	return parquet.NewSchema("focus", g)
}

func newParquetEncoder(w io.Writer) (*parquetEncoder, error) {
	schema := parquetSchema()
	e := &parquetEncoder{
		w: parquet.NewGenericWriter[any](w, schema,
			parquet.Compression(&snappy.Codec{}),
			parquet.MaxRowsPerRowGroup(rowGroupRows),
			parquet.CreatedBy("gpubill", "", "")),
		leaf: make([]int, len(columns)),
	}
	index := map[string]int{}
	for i, path := range schema.Columns() {
		index[path[0]] = i
	}
	for i, c := range columns {
		e.leaf[i] = index[c.name]
	}
	e.scales = index[scalesColumn]
	e.row = make(parquet.Row, len(columns)+1)
	return e, nil
}

// encode appends one row; the writer flushes a row group when it is full.
func (e *parquetEncoder) encode(cells []cell) error {
	e.sb.Reset()
	for i, c := range cells {
		col := e.leaf[i]
		if c.null {
			e.row[col] = parquet.NullValue().Level(0, 0, col)
			continue
		}
		var v parquet.Value
		switch columns[i].typ {
		case typeMoney, typeQuantity:
			scale := int32(MoneyScale)
			if columns[i].typ == typeQuantity {
				scale = QuantityScale
			}
			b, err := decimalBytesOf(c.dec, scale)
			if err != nil {
				return &FitError{Column: columns[i].name, Amount: c.text, Scale: int(scale), Err: err}
			}
			v = parquet.FixedLenByteArrayValue(b)
			if e.sb.Len() > 0 {
				e.sb.WriteByte(',')
			}
			e.sb.WriteString(columns[i].name)
			e.sb.WriteByte('=')
			e.sb.WriteString(strconv.Itoa(int(max(-c.dec.Exponent(), 0))))
		case typeTime:
			if c.t.Nanosecond()%1000 != 0 {
				return fmt.Errorf("%s %s: finer than a microsecond", columns[i].name, c.text)
			}
			v = parquet.Int64Value(c.t.UnixMicro())
		case typeInt:
			v = parquet.Int64Value(c.n)
		default:
			v = parquet.ByteArrayValue([]byte(c.text))
		}
		e.row[col] = v.Level(0, 1, col)
	}
	e.row[e.scales] = parquet.ByteArrayValue([]byte(e.sb.String())).Level(0, 1, e.scales)
	e.buf = append(e.buf[:0], e.row)
	_, err := e.w.WriteRows(e.buf)
	return err
}

func (e *parquetEncoder) close() error { return e.w.Close() }

// FitError is an amount that a Parquet DECIMAL column cannot hold exactly:
// the export refuses it rather than round. Export fills in the line.
type FitError struct {
	LineItemID int64
	File       string
	Row        int
	Column     string
	Amount     string
	Scale      int
	Err        error
}

func (e *FitError) Error() string {
	return fmt.Sprintf("line item %d (%s row %d): %s %s %v", e.LineItemID, e.File, e.Row, e.Column, e.Amount, e.Err)
}

// ZH is the error in Chinese.
func (e *FitError) ZH() string {
	return fmt.Sprintf("账单明细 %d（%s 第 %d 行）：%s 的金额 %s 无法精确写入 Parquet 的 DECIMAL(38, %d) 列（小数位或整数位过多），导出已中止、未做舍入；可改用 --format focus-csv",
		e.LineItemID, e.File, e.Row, e.Column, e.Amount, e.Scale)
}

func (e *FitError) Unwrap() error { return e.Err }

// decimalBytesOf is d at scale as DECIMAL's 16-byte big-endian two's
// complement; an error when d has more decimals than scale or more than 38
// digits at it.
func decimalBytesOf(d decimal.Decimal, scale int32) ([]byte, error) {
	if -d.Exponent() > scale && !d.Equal(d.Truncate(scale)) {
		return nil, fmt.Errorf("has more than %d decimals: DECIMAL(38, %d) cannot hold it exactly", scale, scale)
	}
	u := d.Shift(scale).BigInt()
	if new(big.Int).Abs(u).Cmp(maxUnscaled) >= 0 {
		return nil, fmt.Errorf("has more than %d integer digits: DECIMAL(38, %d) cannot hold it", 38-scale, scale)
	}
	b := make([]byte, decimalBytes)
	if u.Sign() >= 0 {
		u.FillBytes(b)
		return b, nil
	}
	// Two's complement: 2^128 + u.
	t := new(big.Int).Lsh(big.NewInt(1), 8*decimalBytes)
	t.Add(t, u).FillBytes(b)
	return b, nil
}

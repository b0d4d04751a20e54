package xlsxcell

import (
	"archive/zip"
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// excelEpoch is day 0 of Excel's 1900 date system (as Excel counts after
// its fictitious 1900-02-29, which no bill date reaches).
var excelEpoch = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)

// Serial is the Excel serial date of t's wall clock (in t's location), as
// an exact decimal string (seconds / 86400 to 10 places): for SetCellDefault.
func Serial(t time.Time) string {
	wall := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
	secs := int64(wall.Sub(excelEpoch) / time.Second)
	return decimal.NewFromInt(secs).DivRound(decimal.NewFromInt(86400), 10).String()
}

// SerialNumber is Serial as the float64 a cell holds, the double nearest
// that decimal, worked out in integers: the serial in units of 1e-10 day
// stays below 2^53 for 900,000 days (to the year 4300), so float64(n)/1e10
// is the correctly rounded quotient, as strconv.ParseFloat(Serial(t))
// gives.
func SerialNumber(t time.Time) float64 {
	wall := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
	secs := int64(wall.Sub(excelEpoch) / time.Second)
	const maxSecs = 900_000 * 86400
	if secs < 0 || secs > maxSecs {
		f, _ := strconv.ParseFloat(Serial(t), 64)
		return f
	}
	// Serial rounds half away from zero, as this does for secs >= 0.
	n := secs/86400*1e10 + (secs%86400*1e10+43200)/86400
	return float64(n) / 1e10
}

// Neutralise gives text that begins with = + - @, tab or CR a leading
// apostrophe, so that a spreadsheet shows it instead of evaluating it
// (DESIGN.md "Output safety"). Numbers are never passed through it.
func Neutralise(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

// formulaStrCell matches the start of a formula cell as excelize writes it:
// `<c r="E12" s="3" t="str"><f>`. excelize marks the cached value of every
// formula as a string; gpubill's are numbers.
var formulaStrCell = regexp.MustCompile(`(<c r="[A-Z]+[0-9]+"(?: s="[0-9]+")?) t="str"(><f>)`)

// NumericFormulaCaches rewrites the worksheets of the xlsx package data so
// that formula cells hold numeric cached values (a viewer that shows cached
// values, or a spreadsheet that does not recompute on load, then shows a
// number with its format). Every other part is copied as it is, in order.
func NumericFormulaCaches(data []byte) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, zf := range zr.File {
		rc, err := zf.Open()
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(zf.Name, "xl/worksheets/sheet") && strings.HasSuffix(zf.Name, ".xml") {
			body = formulaStrCell.ReplaceAll(body, []byte("$1$2"))
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: zf.Name, Method: zip.Deflate,
			Modified: zf.Modified, ModifiedTime: zf.ModifiedTime, ModifiedDate: zf.ModifiedDate})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(body); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

package ledger

import (
	"database/sql/driver"
	"fmt"
	"time"
	_ "time/tzdata" // DefaultTZ must load on systems without zoneinfo

	"github.com/gpubill/gpubill/money"
	"github.com/shopspring/decimal"
	"modernc.org/sqlite"
)

// The exact aggregate dsum(x): sums TEXT decimals without passing through
// float64. NULL inputs are skipped; the sum of no values is NULL, like SUM().
// It is registered for every connection of the driver, so user SQL can use it.
func init() {
	sqlite.MustRegisterFunction("dsum", &sqlite.FunctionImpl{
		NArgs:         1,
		Deterministic: true,
		MakeAggregate: func(ctx sqlite.FunctionContext) (sqlite.AggregateFunction, error) {
			return &dsumAgg{}, nil
		},
	})
}

type dsumAgg struct {
	sum   decimal.Decimal
	valid bool
}

func (a *dsumAgg) Step(_ *sqlite.FunctionContext, args []driver.Value) error {
	d, ok, err := dsumArg(args[0])
	if err != nil || !ok {
		return err
	}
	a.sum = a.sum.Add(d)
	a.valid = true
	return nil
}

// dsumArg converts one argument of dsum; ok is false for NULL.
func dsumArg(arg driver.Value) (d decimal.Decimal, ok bool, err error) {
	switch v := arg.(type) {
	case nil:
		return d, false, nil
	case string:
		d, err = decimal.NewFromString(v)
	case []byte:
		d, err = decimal.NewFromString(string(v))
	case int64:
		d = decimal.NewFromInt(v)
	case float64:
		return d, false, fmt.Errorf("dsum: refusing float %v: store money as TEXT", v)
	default:
		return d, false, fmt.Errorf("dsum: unsupported value %T", v)
	}
	if err != nil {
		return d, false, fmt.Errorf("dsum: %v is not a decimal", arg)
	}
	return d, true, nil
}

// WindowInverse removes a row that left the window.
func (a *dsumAgg) WindowInverse(_ *sqlite.FunctionContext, args []driver.Value) error {
	d, ok, err := dsumArg(args[0])
	if err != nil || !ok {
		return err
	}
	a.sum = a.sum.Sub(d)
	return nil
}

func (a *dsumAgg) WindowValue(_ *sqlite.FunctionContext) (driver.Value, error) {
	if !a.valid {
		return nil, nil
	}
	return money.String(a.sum), nil
}

func (a *dsumAgg) Final(_ *sqlite.FunctionContext) {}

// DefaultTZName is the zone days, nights and months are cut in when the
// user names none (DESIGN.md: --tz defaults to Asia/Shanghai).
const DefaultTZName = "Asia/Shanghai"

// DefaultTZ is the DefaultTZName location (time/tzdata is linked in, so it
// loads on systems without zoneinfo; the fixed offset is what Asia/Shanghai
// has been since 1991).
func DefaultTZ() *time.Location {
	if loc, err := time.LoadLocation(DefaultTZName); err == nil {
		return loc
	}
	return time.FixedZone("CST", 8*3600)
}

// MonthRange is the calendar month YYYY-MM in loc, as the half-open
// interval [start, end).
func MonthRange(month string, loc *time.Location) (start, end time.Time, err error) {
	t, err := time.ParseInLocation("2006-01", month, loc)
	if err != nil || t.Format("2006-01") != month {
		return start, end, fmt.Errorf("month %q: want YYYY-MM", month)
	}
	return t, t.AddDate(0, 1, 0), nil
}

// TimeLayout is how times are stored: RFC 3339 in UTC, seconds precision.
const TimeLayout = "2006-01-02T15:04:05Z"

// FormatTime renders t for storage.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime reads a stored time: time.Parse has a fast path for RFC 3339,
// which the stored layout is (reading line items back is most of an
// audit); anything else goes through TimeLayout for its error.
func ParseTime(s string) (time.Time, error) {
	if len(s) == len(TimeLayout) && s[len(s)-1] == 'Z' {
		return time.Parse(time.RFC3339, s)
	}
	return time.Parse(TimeLayout, s)
}

// nullDec renders an optional amount for storage (nil when unknown).
func nullDec(d decimal.NullDecimal) any {
	if !d.Valid {
		return nil
	}
	return money.String(d.Decimal)
}

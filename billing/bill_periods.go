package billing

import (
	"context"
	"slices"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

// monthlyBillFormats are the import formats whose files are a platform's
// bill for a billing period (账期 / 账单月份 / BillPeriod /
// BillingPeriodStart): such a file covers its month to the end, so an
// instance whose charges stop before the month ends was not running at the
// end of the data. The gpubill template and the console copies carry no
// billing period: their data ends at their latest charge.
var monthlyBillFormats = []string{"aliyun-detail", "huaweicloud-usage", "tencentcloud-detail",
	"tencentcloud-resource", "volcengine-bill", "focus", "aws-cur", "azure-cost-details", "oci-cost-report", "gcp-billing-export"}

// utcBillFormats are the monthly bills whose billing periods are UTC months
// (FOCUS and the clouds' native exports).
var utcBillFormats = []string{"focus", "aws-cur", "azure-cost-details", "oci-cost-report", "gcp-billing-export"}

// exportFormat is gpubill's own FOCUS export read back (package ingest):
// no monthly bill, but the ledger it came from may have held monthly bills
// that covered the month beyond its last charges. The import keeps that
// end in the ledger's end of data (x_DataEnd, ledger.DB.DataEnds), so a
// period it brought is covered as far as that end, within the period.
const exportFormat = "gpubill-export"

// MonthlyBillFormat reports whether files of format are monthly bills.
func MonthlyBillFormat(format string) bool { return slices.Contains(monthlyBillFormats, format) }

// BillPeriodEnds returns from db, per provider and billing period that a
// monthly bill brought line items for, the end of what the bills cover: the
// end of the month (in loc; in UTC for FOCUS, whose billing periods are
// UTC), or the time of the latest such import when it came first (a bill
// exported mid-month covers the month only so far). A period that a gpubill
// export brought (exportFormat) is covered to the end of data the export
// stated, as far as the period's end in loc, or to its end in UTC when that
// is where the data ends (the last month of a UTC bill). An earlier month
// of a UTC bill so counts as covered to its end in loc only: the export
// keeps one end of data per provider, not one per period.
func BillPeriodEnds(ctx context.Context, db *ledger.DB, loc *time.Location) (map[ledger.PeriodKey]time.Time, error) {
	imports, err := db.PeriodImports(ctx, append(slices.Clip(monthlyBillFormats), exportFormat))
	if err != nil {
		return nil, err
	}
	exported := map[ledger.PeriodKey]bool{}
	out := map[ledger.PeriodKey]time.Time{}
	for _, p := range imports {
		k := p.PeriodKey
		if p.Format == exportFormat {
			exported[k] = true
			continue
		}
		zone := loc
		if slices.Contains(utcBillFormats, p.Format) {
			zone = time.UTC
		}
		_, end, err := ledger.MonthRange(k.BillingPeriod, zone)
		if err != nil {
			continue // not a month: nothing known to cover
		}
		if !p.Started.IsZero() && p.Started.Before(end) {
			end = p.Started
		}
		if end.After(out[k]) {
			out[k] = end
		}
	}
	if len(exported) == 0 {
		return out, nil
	}
	dataEnds, err := db.DataEnds(ctx)
	if err != nil {
		return nil, err
	}
	for k := range exported {
		_, end, err := ledger.MonthRange(k.BillingPeriod, loc)
		if err != nil {
			continue
		}
		_, utcEnd, _ := ledger.MonthRange(k.BillingPeriod, time.UTC)
		switch d := dataEnds[k.Provider]; {
		case d.Equal(utcEnd):
			end = d // a UTC month's bill (FOCUS, the clouds' exports)
		case d.Before(end):
			end = d
		}
		if end.After(out[k]) {
			out[k] = end
		}
	}
	return out, nil
}

// DataEndsCovered is db.DataEnds raised, per provider, to the end of the
// billing periods its monthly bills cover (BillPeriodEnds): the end of the
// data as far as the bills show.
func DataEndsCovered(ctx context.Context, db *ledger.DB, loc *time.Location) (map[string]time.Time, error) {
	ends, err := db.DataEnds(ctx)
	if err != nil {
		return nil, err
	}
	covered, err := BillPeriodEnds(ctx, db, loc)
	if err != nil {
		return nil, err
	}
	for k, end := range covered {
		if cur, ok := ends[k.Provider]; ok && end.After(cur) {
			ends[k.Provider] = end
		}
	}
	return ends, nil
}

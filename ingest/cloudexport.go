package ingest

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

// What the native cost exports of AWS, Azure, GCP and OCI (aws_cur.go,
// azure.go, gcp.go, oci.go) share: currency codes that must be stated (an
// empty cell is no CNY there), tag columns named by a prefix, and the
// billing month in UTC. docs/formats-foreign.md says which amount of each
// is billed and where credits and commitments go.

// exportText is a cell with the unknown spellings (empty, -, NULL …) as "".
func exportText(c *rowCtx, i int) string {
	s := c.cell(i)
	if isUnknownText(s) {
		return ""
	}
	return s
}

// exportCurrency reads a currency cell that must hold an ISO 4217 code.
func exportCurrency(c *rowCtx, i int, header string) (string, error) {
	if i < 0 {
		return "", c.errAt(-1, "the file has no "+header+" column")
	}
	s := strings.ToUpper(exportText(c, i))
	if s == "" {
		return "", c.errAt(i, "required value is empty")
	}
	if !isCurrencyCode(s) {
		return "", c.errAt(i, fmt.Sprintf("%q is not a currency code (USD, EUR …)", c.cell(i)))
	}
	return s, nil
}

// prefixColumns finds the header cells that start with one of prefixes
// (case aside): record index → the rest of the name (resourceTags/user:team
// → user:team).
func prefixColumns(header []string, prefixes ...string) map[int]string {
	out := map[int]string{}
	for i, h := range header {
		n := strings.TrimSpace(h)
		for _, p := range prefixes {
			if len(n) > len(p) && strings.EqualFold(n[:len(p)], p) {
				out[i] = n[len(p):]
				break
			}
		}
	}
	return out
}

// columnTags renders the non-empty cells of cols as a JSON object ("" when
// none).
func columnTags(c *rowCtx, cols map[int]string) (string, error) {
	if len(cols) == 0 {
		return "", nil
	}
	m := map[string]string{}
	for i, k := range cols {
		if v := exportText(c, i); v != "" {
			m[k] = v
		}
	}
	if len(m) == 0 {
		return "", nil
	}
	js, err := jsonObject(m)
	if err != nil {
		return "", c.errAt(-1, "cannot encode tags: "+err.Error())
	}
	return js, nil
}

// utcMonth is the billing period YYYY-MM of t in UTC: the clouds' billing
// periods are UTC months.
func utcMonth(t time.Time) string { return t.UTC().Format("2006-01") }

// exportPeriod reads a charge period: start required, end optional (the
// start when absent), end not before start. Naive times are UTC.
func exportPeriod(c *rowCtx, li *ledger.LineItem, start, end int) error {
	var err error
	if li.ChargePeriodStart, err = c.requiredTime(start, time.UTC); err != nil {
		return err
	}
	li.ChargePeriodEnd = li.ChargePeriodStart
	if end >= 0 && exportText(c, end) != "" {
		if li.ChargePeriodEnd, err = c.time(end, time.UTC); err != nil {
			return err
		}
	}
	if li.ChargePeriodEnd.Before(li.ChargePeriodStart) {
		return c.errAt(end, fmt.Sprintf("the end %q is before the start %q", c.cell(end), c.cell(start)))
	}
	return nil
}

// exportUnit normalises a unit cell where gpubill knows it (Hrs → hour,
// GB-Mo → GB-month), else keeps it as written.
func exportUnit(s string) string {
	if u, ok := ParseUnit(s); ok {
		return u
	}
	return s
}

package rules

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpubill/gpubill/ledger"
)

// Exemption keeps a rule quiet about sessions that are expected, until a
// date: a 36-hour training run that is normal for one resource, project
// or tag (config [[exempt]]). Only forgotten_instance takes exemptions.
//
//	[[exempt]]
//	rule = "forgotten_instance"   # the default, and the only rule that takes one
//	resource = "i-train"          # or project = "lab-a", or tag = "long-run" / "purpose=training"
//	provider = "autodl"           # optional
//	until = "2026-12-31"          # required: the last day it holds (in --tz)
//	reason = "weekly fine-tune"   # optional, shown by gpubill rules
type Exemption struct {
	RuleID   string
	Provider string // "" = any
	Resource string
	Project  string // the line items' sub_account
	Tag      string // a key of the line items' tags, or key=value
	Until    string // YYYY-MM-DD, inclusive
	Reason   string
	until    time.Time      // the day after Until, in TZ (Config.exemptions)
	ids      map[int64]bool // compute items of the project or tag (matchExemptions)
}

// exemptKeys are the fields of an [[exempt]] entry.
var exemptKeys = []string{"rule", "provider", "resource", "project", "tag", "until", "reason"}

// exemptRules are the rules that take exemptions.
var exemptRules = []string{"forgotten_instance"}

func exemptionFromTOML(m map[string]any) (Exemption, error) {
	var e Exemption
	for k, v := range m {
		s, err := tomlString(v)
		if err != nil {
			return e, fmt.Errorf("%s: %w", k, err)
		}
		s = strings.TrimSpace(s)
		switch k {
		case "rule":
			e.RuleID = s
		case "provider":
			e.Provider = s
		case "resource":
			e.Resource = s
		case "project":
			e.Project = s
		case "tag":
			e.Tag = s
		case "until":
			e.Until = s
		case "reason":
			e.Reason = s
		default:
			return e, fmt.Errorf("unknown key %s (known: %s)", k, strings.Join(exemptKeys, ", "))
		}
	}
	if e.RuleID == "" {
		e.RuleID = "forgotten_instance"
	}
	return e, e.check()
}

// check reports what is wrong with an exemption.
func (e Exemption) check() error {
	found := false
	for _, r := range exemptRules {
		found = found || r == e.RuleID
	}
	if !found {
		return fmt.Errorf("rule %q takes no exemptions (only %s)", e.RuleID, strings.Join(exemptRules, ", "))
	}
	n := 0
	for _, s := range []string{e.Resource, e.Project, e.Tag} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("give exactly one of resource, project or tag")
	}
	if e.Until == "" {
		return fmt.Errorf("until is required (YYYY-MM-DD, the last day the exemption holds)")
	}
	if _, err := time.Parse("2006-01-02", e.Until); err != nil {
		return fmt.Errorf("until %q: want YYYY-MM-DD", e.Until)
	}
	return nil
}

// What names what the exemption covers, for gpubill rules.
func (e Exemption) What() string {
	var s string
	switch {
	case e.Resource != "":
		s = "resource=" + e.Resource
	case e.Project != "":
		s = "project=" + e.Project
	default:
		s = "tag=" + e.Tag
	}
	if e.Provider != "" {
		s = e.Provider + " " + s
	}
	return s
}

// exemptions are the config's exemptions of a rule, their expiry in loc.
func (c Config) exemptions(ruleID string, loc *time.Location) []Exemption {
	var out []Exemption
	for _, e := range c.Exemptions {
		if e.RuleID != ruleID {
			continue
		}
		d, err := time.ParseInLocation("2006-01-02", e.Until, loc)
		if err != nil {
			continue // Validate refused it already
		}
		e.until = d.AddDate(0, 0, 1)
		out = append(out, e)
	}
	return out
}

// exempts reports whether e covers a session of provider over items that
// started at start: the session must start before the exemption expires.
func (e Exemption) exempts(provider string, start time.Time, items []*ledger.LineItem) bool {
	if e.Provider != "" && e.Provider != provider || !start.Before(e.until) {
		return false
	}
	for _, li := range items {
		switch {
		case e.Resource != "" && li.ResourceID == e.Resource, e.ids[li.ID]:
			return true
		}
	}
	return false
}

// matchExemptions finds, for the exemptions by project or tag, the ids of
// the compute items of month and its neighbours that they cover, in SQL
// (a tag is matched by SQLite's JSON paths).
func matchExemptions(ctx context.Context, db *ledger.DB, month string, es []Exemption) error {
	start, err := time.Parse("2006-01", month)
	if err != nil {
		return err
	}
	from, to := start.AddDate(0, -1, 0).Format("2006-01"), start.AddDate(0, 1, 0).Format("2006-01")
	for i := range es {
		e := &es[i]
		if e.Project == "" && e.Tag == "" {
			continue
		}
		q := `SELECT id FROM line_items WHERE kind = 'compute' AND billing_period BETWEEN ? AND ? AND `
		args := []any{from, to}
		if e.Project != "" {
			q += `sub_account = ?`
			args = append(args, e.Project)
		} else {
			key, value, withValue := strings.Cut(e.Tag, "=")
			path := "$." + strconv.Quote(key)
			q += `json_valid(tags) AND json_type(tags, ?) IS NOT NULL`
			args = append(args, path)
			if withValue {
				q += ` AND CAST(json_extract(tags, ?) AS TEXT) = ?`
				args = append(args, path, value)
			}
		}
		rows, err := db.SQL().QueryContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("rules: exemption %s: %w", e.What(), err)
		}
		e.ids = map[int64]bool{}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("rules: exemption %s: %w", e.What(), err)
			}
			e.ids[id] = true
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("rules: exemption %s: %w", e.What(), err)
		}
	}
	return nil
}

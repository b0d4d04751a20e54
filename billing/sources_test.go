package billing

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// userReport is a source that is what a user saw on a date.
var userReport = regexp.MustCompile(`^user report, (\d{4}-\d{2}-\d{2})\b`)

// repoFile names a file of this repository (FORMATS.md, policy.go …) or
// the project itself, which a user of the binary cannot open.
var repoFile = regexp.MustCompile(`(?i)\b[\w-]+\.(md|go|json|sql|txtar|golden)\b|\bgpubill\b`)

// checkSource reports why source is not one a user can open: every part
// (separated by ";") is a public https page or a dated user report.
func checkSource(source string) string {
	if strings.TrimSpace(source) == "" {
		return "no source"
	}
	for _, part := range strings.Split(source, ";") {
		part = strings.TrimSpace(part)
		if m := userReport.FindStringSubmatch(part); m != nil {
			if _, err := time.Parse("2006-01-02", m[1]); err != nil {
				return "user report with a bad date: " + part
			}
			if repoFile.MatchString(part) {
				return "names a repository file: " + part
			}
			continue
		}
		link, _, _ := strings.Cut(part, " ")
		u, err := url.Parse(link)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return "neither an https page nor a dated user report: " + part
		}
		if repoFile.MatchString(strings.TrimPrefix(part, link)) {
			return "names a repository file: " + part
		}
	}
	return ""
}

func TestSourcesCanBeOpened(t *testing.T) {
	for _, p := range DefaultPolicies() {
		if why := checkSource(p.Source); why != "" {
			t.Errorf("policies.json %s: source %q: %s", p.Provider, p.Source, why)
		}
	}
	for i, p := range DefaultPrices().Entries() {
		if why := checkSource(p.Source); why != "" {
			t.Errorf("prices.json entry %d (%s %s): source %q: %s", i+1, p.Provider, p.GPUModelText, p.Source, why)
		}
	}
}

func TestCheckSource(t *testing.T) {
	for _, tc := range []struct {
		source string
		ok     bool
	}{
		{"https://en.gpushare.com/docs/product/price (billing)", true},
		{"user report, 2026-11-29", true},
		{"https://help.aliyun.com/document_detail/311840.html; user report, 2026-11-29 (step)", true},
		{"FORMATS.md: one user's month of tests (approximate)", false},
		{"user report", false},
		{"user report, 2026-13-40", false},
		{"help.aliyun.com/document_detail/311840.html", false},
		{"user report, 2026-11-29 as summarised in gpubill FORMATS.md", false},
		{"", false},
	} {
		if got := checkSource(tc.source) == ""; got != tc.ok {
			t.Errorf("checkSource(%q): got ok %v, want %v (%s)", tc.source, got, tc.ok, checkSource(tc.source))
		}
	}
}

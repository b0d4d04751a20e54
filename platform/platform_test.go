package platform

import "testing"

// TestNameOthers: providers that are not platforms of DESIGN.md
// (FOCUS files' aws, microsoft; a profile's own slug) are shown as brands
// write them, never as a bare lower-case slug.
func TestNameOthers(t *testing.T) {
	SetName("mycorp-cloud", "", "MyCorp Cloud")
	for _, tc := range []struct{ slug, lang, want string }{
		{"aws", "en", "AWS"},
		{"aws", "zh", "AWS"},
		{"microsoft", "en", "Microsoft Azure"},
		{"gcp", "zh", "Google Cloud"},
		{"xyz", "en", "XYZ"},
		{"lambdalabs", "en", "Lambdalabs"},
		{"mycorp-cloud", "zh", "MyCorp Cloud"},
		{"autodl", "zh", "AutoDL"},
		{"gpushare", "zh", "恒源云"},
	} {
		if got := Name(tc.slug, tc.lang); got != tc.want {
			t.Errorf("Name(%q, %q) = %q, want %q", tc.slug, tc.lang, got, tc.want)
		}
	}
}

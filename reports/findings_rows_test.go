package reports

import (
	"testing"

	"github.com/gpubill/gpubill/ledger"
)

// TestAPIEvidenceCitesLineIDs: evidence of fetched lines names the cloud,
// the API and the vendor's line ids, in both languages and in the flat
// formats; a file's evidence, or a fetched line without an id, keeps its
// rows.
func TestAPIEvidenceCitesLineIDs(t *testing.T) {
	api := "api:huaweicloud/ListCustomerselfResourceRecords?account=env&month=2026-10"
	cite := &rowCiter{lineIDs: map[int64]string{1: "hw-0001", 2: "hw-0002", 3: "hw-0002"}}
	one := []ledger.Evidence{{LineItemID: 1, File: api, Row: 1}}
	two := []ledger.Evidence{{LineItemID: 1, File: api, Row: 1}, {LineItemID: 2, File: api, Row: 2}, {LineItemID: 3, File: api, Row: 3}}
	mixed := []ledger.Evidence{{LineItemID: 9, File: "bill.csv", Row: 4}, {LineItemID: 1, File: api, Row: 1}}
	noID := []ledger.Evidence{{LineItemID: 7, File: api, Row: 7}}
	for _, tc := range []struct {
		name, lang string
		ev         []ledger.Evidence
		cite       *rowCiter
		want, flat string
	}{
		{"one line", "en", one, cite, "Huawei Cloud API ListCustomerselfResourceRecords · line hw-0001", api + "#hw-0001"},
		{"one line zh", "zh", one, cite, "华为云 API ListCustomerselfResourceRecords · 明细 ID hw-0001", api + "#hw-0001"},
		{"ids once", "en", two, cite, "Huawei Cloud API ListCustomerselfResourceRecords · lines hw-0001, hw-0002 (2 lines)",
			api + "#hw-0001;" + api + "#hw-0002;" + api + "#hw-0002"},
		{"file and api", "en", mixed, cite, "bill.csv row 4; Huawei Cloud API ListCustomerselfResourceRecords · line hw-0001",
			"bill.csv:4;" + api + "#hw-0001"},
		{"no line id", "en", noID, cite, api + " row 7", api + ":7"},
		{"no citer", "en", one, nil, api + " row 1", api + ":1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := evidenceSummary(tc.ev, tc.lang, oneLineOrDash, tc.cite); got != tc.want {
				t.Errorf("summary\ngot  %q\nwant %q", got, tc.want)
			}
			if got := evidenceText(tc.ev, tc.cite); got != tc.flat {
				t.Errorf("flat\ngot  %q\nwant %q", got, tc.flat)
			}
		})
	}
}

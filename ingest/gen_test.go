package ingest

import (
	"bytes"
	"encoding/csv"
	"testing"
	"time"
)

// TestSampleFleetHours: row i of a fleet bill is instance i%n's line of
// hour i/n, so n instances fill October with 744n rows and the next row is
// November's; every row has its own instance and hour.
func TestSampleFleetHours(t *testing.T) {
	const n = 3
	rows := 744*n + 1
	var buf bytes.Buffer
	if err := WriteSampleFleetCSV(&buf, rows, n, 7); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != rows+1 {
		t.Fatalf("%d records, want %d rows and the header", len(recs), rows)
	}
	seen := map[[2]string]bool{}
	base := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	for i, r := range recs[1:] {
		start, err := time.Parse("2006-01-02 15:04:05", r[9])
		if err != nil {
			t.Fatalf("row %d: %v", i+1, err)
		}
		if hour := int(start.Sub(base).Hours()); hour != i/n {
			t.Fatalf("row %d starts in hour %d, want %d", i+1, hour, i/n)
		}
		key := [2]string{r[3], start.Truncate(time.Hour).String()}
		if seen[key] {
			t.Fatalf("row %d: %s billed twice in one hour", i+1, r[3])
		}
		seen[key] = true
		if october := start.Month() == time.October; october != (i < 744*n) {
			t.Fatalf("row %d starts %s", i+1, r[9])
		}
	}
	if len(seen) != rows {
		t.Fatalf("%d instance-hours, want %d", len(seen), rows)
	}
	for _, bad := range []int{0, 2001} {
		if err := WriteSampleFleetCSV(&buf, 1, bad, 1); err == nil {
			t.Errorf("%d instances: no error", bad)
		}
	}
}

// TestSampleTemplateIsFleet400: the template bill is the bill of 400
// instances.
func TestSampleTemplateIsFleet400(t *testing.T) {
	var a, b bytes.Buffer
	if err := WriteSampleTemplateCSV(&a, 1000, 3); err != nil {
		t.Fatal(err)
	}
	if err := WriteSampleFleetCSV(&b, 1000, 400, 3); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("WriteSampleTemplateCSV differs from a fleet of 400")
	}
}

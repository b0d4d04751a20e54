package ingest

import (
	"testing"
	"time"
)

var shanghai = func() *time.Location {
	loc, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		return time.FixedZone("CST", 8*3600)
	}
	return loc
}()

var timeCases = []struct {
	name  string
	in    string
	want  string // RFC 3339 in UTC; "" = error
	inUTC bool   // parse with loc UTC instead of Asia/Shanghai
}{
	{name: "seconds", in: "2026-10-03 14:22:05", want: "2026-10-03T06:22:05Z"},
	{name: "minutes", in: "2026-10-03 14:22", want: "2026-10-03T06:22:00Z"},
	{name: "slashes single digit day", in: "2026/10/3 14:22", want: "2026-10-03T06:22:00Z"},
	{name: "slashes with seconds", in: "2026/10/03 14:22:05", want: "2026-10-03T06:22:05Z"},
	{name: "single digit hour", in: "2026/10/3 9:05", want: "2026-10-03T01:05:00Z"},
	{name: "date only is midnight", in: "2026-10-03", want: "2026-10-02T16:00:00Z"},
	{name: "chinese date time", in: "2026年10月3日 14:22", want: "2026-10-03T06:22:00Z"},
	{name: "chinese date", in: "2026年10月3日", want: "2026-10-02T16:00:00Z"},
	{name: "compact date", in: "20261003", want: "2026-10-02T16:00:00Z"},
	{name: "iso zulu", in: "2026-10-03T14:22:05Z", want: "2026-10-03T14:22:05Z"},
	{name: "iso offset", in: "2026-10-03T14:22:05+08:00", want: "2026-10-03T06:22:05Z"},
	{name: "iso negative offset no colon", in: "2026-10-03T14:22:05-0700", want: "2026-10-03T21:22:05Z"},
	{name: "iso fraction", in: "2024-09-01T00:00:00.250Z", want: "2024-09-01T00:00:00.25Z"},
	{name: "iso naive T", in: "2026-10-03T14:22:05", want: "2026-10-03T06:22:05Z"},
	{name: "huawei gmt", in: "2020-08-23 22:00:00 GMT+08:00", want: "2020-08-23T14:00:00Z"},
	{name: "utc suffix", in: "2024-09-01 00:00:00 UTC", want: "2024-09-01T00:00:00Z"},
	{name: "offset after space", in: "2026-10-03 14:22:05 +08:00", want: "2026-10-03T06:22:05Z"},
	{name: "focus naive is utc", in: "2024-09-18 22:00:00", want: "2024-09-18T22:00:00Z", inUTC: true},
	{name: "surrounding spaces", in: "  2026-10-03 14:22:05\t", want: "2026-10-03T06:22:05Z"},
	{name: "february 30", in: "2026-02-30"},
	{name: "month 13", in: "2026-13-01 00:00"},
	{name: "hour 25", in: "2026-10-03 25:00"},
	{name: "minute 60", in: "2026-10-03 10:60"},
	{name: "one digit minute", in: "2026-10-03 10:5"},
	{name: "mixed separators", in: "2026-10/03"},
	{name: "words", in: "yesterday"},
	{name: "empty", in: ""},
	{name: "trailing junk", in: "2026-10-03 14:22:05 abc"},
	{name: "short year", in: "26-10-03"},
	{name: "serial number is no text time", in: "46298.5"},
	{name: "offset too big", in: "2026-10-03T14:22:05+25:00"},
}

func TestParseTime(t *testing.T) {
	for _, tc := range timeCases {
		t.Run(tc.name, func(t *testing.T) {
			loc := shanghai
			if tc.inUTC {
				loc = time.UTC
			}
			got, err := ParseTime(tc.in, loc)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("ParseTime(%q) = %v, want an error", tc.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTime(%q): %v", tc.in, err)
			}
			if got.Location() != time.UTC {
				t.Errorf("ParseTime(%q) location = %v, want UTC", tc.in, got.Location())
			}
			if s := got.Format(time.RFC3339Nano); s != tc.want {
				t.Errorf("ParseTime(%q) = %s, want %s", tc.in, s, tc.want)
			}
		})
	}
}

func TestExcelSerial(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want string // "" = not ok
		utc  bool   // read the wall clock in UTC (Shanghai had local mean time in 1900)
	}{
		{name: "noon", in: "46298.5", want: "2026-10-03T04:00:00Z"},
		{name: "whole day", in: "46298", want: "2026-10-02T16:00:00Z"},
		{name: "minute fraction rounds to the second", in: "46298.59861111111", want: "2026-10-03T06:22:00Z"},
		{name: "first day", in: "1", want: "1900-01-01T00:00:00Z", utc: true},
		{name: "day before phantom leap day", in: "59", want: "1900-02-28T00:00:00Z", utc: true},
		{name: "phantom leap day", in: "60"},
		{name: "day after phantom leap day", in: "61", want: "1900-03-01T00:00:00Z", utc: true},
		{name: "zero", in: "0"},
		{name: "negative", in: "-1"},
		{name: "text", in: "2026-10-03"},
		{name: "too large", in: "3000000"},
		// Excel's last day, 9999-12-31, is past the years ParseTime reads back
		// (in Shanghai, as in UTC), and serial 1 in Shanghai is 1899 in UTC.
		{name: "last day", in: "2958465"},
		{name: "last day in UTC", in: "2958465", utc: true},
		{name: "first day in Shanghai", in: "1"},
		{name: "last readable day", in: "2958100.5", want: "9998-12-31T04:00:00Z"},
		{name: "empty", in: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc := shanghai
			if tc.utc {
				loc = time.UTC
			}
			got, ok := excelSerial(tc.in, loc, false)
			if tc.want == "" {
				if ok {
					t.Fatalf("excelSerial(%q) = %v, want not ok", tc.in, got)
				}
				return
			}
			if !ok {
				t.Fatalf("excelSerial(%q) not ok, want %s", tc.in, tc.want)
			}
			if s := got.Format(time.RFC3339); s != tc.want {
				t.Errorf("excelSerial(%q) = %s, want %s", tc.in, s, tc.want)
			}
		})
	}
}

func FuzzParseTime(f *testing.F) {
	for _, tc := range timeCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// A serial date read from a sheet is stored as ParseTime's are:
		// its RFC 3339 form must parse back to itself too.
		for _, loc := range []*time.Location{shanghai, time.UTC} {
			if got, ok := excelSerial(s, loc, false); ok {
				back, err := ParseTime(got.Format(time.RFC3339Nano), loc)
				if err != nil || !back.Equal(got) {
					t.Fatalf("excelSerial(%q, %v) = %v; its RFC 3339 form parses to %v, %v", s, loc, got, back, err)
				}
			}
		}
		got, err := ParseTime(s, shanghai)
		if err != nil {
			return
		}
		if got.Location() != time.UTC {
			t.Fatalf("ParseTime(%q) location = %v, want UTC", s, got.Location())
		}
		// A parsed time printed as RFC 3339 must parse back to itself.
		back, err := ParseTime(got.Format(time.RFC3339Nano), shanghai)
		if err != nil || !back.Equal(got) {
			t.Fatalf("ParseTime(%q) = %v; its RFC 3339 form parses to %v, %v", s, got, back, err)
		}
	})
}

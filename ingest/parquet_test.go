package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpubill/gpubill/ledger"
	"github.com/parquet-go/parquet-go"
	"github.com/shopspring/decimal"
)

// focusParquet writes the rows of a FOCUS CSV as a Parquet file: BilledCost
// as DECIMAL(18,11) in an INT64, ListCost as DECIMAL(38,11) in a byte array
// (big-endian two's complement), ChargePeriodStart/End as microsecond
// timestamps, the rest as optional strings; the CSV's NULL is a null.
func focusParquet(t testing.TB, csvData []byte) []byte {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(csvData)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := recs[0]
	group := parquet.Group{}
	for _, h := range header {
		switch h {
		case "BilledCost":
			group[h] = parquet.Decimal(11, 18, parquet.Int64Type)
		case "ListCost":
			group[h] = parquet.Optional(parquet.Decimal(11, 38, parquet.ByteArrayType))
		case "ChargePeriodStart", "ChargePeriodEnd":
			group[h] = parquet.Optional(parquet.Timestamp(parquet.Microsecond))
		default:
			group[h] = parquet.Optional(parquet.String())
		}
	}
	schema := parquet.NewSchema("focus", group)
	colOf := map[string]int{}
	for i, p := range schema.Columns() {
		colOf[p[0]] = i
	}
	var rows []parquet.Row
	for _, rec := range recs[1:] {
		row := make(parquet.Row, len(header))
		for i, h := range header {
			col := colOf[h]
			cell := rec[i]
			if cell == "NULL" {
				row[col] = parquet.NullValue().Level(0, 0, col)
				continue
			}
			var v parquet.Value
			switch h {
			case "BilledCost":
				v = parquet.Int64Value(unscaled(t, cell, 11).Int64())
				row[col] = v.Level(0, 0, col)
				continue
			case "ListCost":
				v = parquet.ByteArrayValue(twosComplement(unscaled(t, cell, 11)))
			case "ChargePeriodStart", "ChargePeriodEnd":
				ts, err := time.Parse(time.DateTime, cell)
				if err != nil {
					t.Fatal(err)
				}
				v = parquet.Int64Value(ts.UnixMicro())
			default:
				v = parquet.ByteArrayValue([]byte(cell))
			}
			row[col] = v.Level(0, 1, col)
		}
		rows = append(rows, row)
	}
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, schema, parquet.PageBufferSize(1024))
	// Two row groups, to cross a row group boundary while reading.
	half := len(rows) / 2
	if _, err := w.WriteRows(rows[:half]); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteRows(rows[half:]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// unscaled is the decimal text s times 10^scale, which must be an integer.
func unscaled(t testing.TB, s string, scale int32) *big.Int {
	t.Helper()
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatal(err)
	}
	d = d.Shift(scale)
	if !d.IsInteger() {
		t.Fatalf("%s has more than %d decimals", s, scale)
	}
	return d.BigInt()
}

// twosComplement is the big-endian two's complement of n in 16 bytes.
func twosComplement(n *big.Int) []byte {
	v := new(big.Int).Set(n)
	if v.Sign() < 0 {
		v.Add(v, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	b := make([]byte, 16)
	return v.FillBytes(b)
}

func TestImportParquetFOCUS(t *testing.T) {
	ctx := context.Background()
	csvData, err := readTestdata("focus/focus_small.csv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pqData := focusParquet(t, csvData)
	pqPath := writeTemp(t, dir, "focus.parquet", pqData)
	zipPath := filepath.Join(dir, "focus.zip")
	{
		var zb bytes.Buffer
		zw := zip.NewWriter(&zb)
		w, err := zw.Create("export/focus-part-0001.parquet")
		if err != nil {
			t.Fatal(err)
		}
		w.Write(pqData)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		zipPath = writeTemp(t, dir, "focus.zip", zb.Bytes())
	}

	imported := func(t *testing.T, paths ...string) ([]ledger.LineItem, []Result) {
		t.Helper()
		db, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ledger.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		results, err := ImportPaths(ctx, db, paths, Options{TZ: shanghai})
		if err != nil {
			t.Fatal(err)
		}
		return storedItems(t, db), results
	}
	want, _ := imported(t, filepath.Join("testdata", "focus", "focus_small.csv"))
	if len(want) < 10 {
		t.Fatalf("CSV gave %d line items, want the whole sample", len(want))
	}
	for _, tc := range []struct {
		name string
		path string
	}{
		{"file", pqPath},
		{"zip member (spooled)", zipPath},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, results := imported(t, tc.path)
			if len(results) != 1 || results[0].Format != "focus" || results[0].Encoding != "parquet" {
				t.Fatalf("results %+v, want one focus import with encoding parquet", results)
			}
			if len(got) != len(want) {
				t.Fatalf("got %d line items, want %d as from the CSV", len(got), len(want))
			}
			for i := range want {
				g, w := toGolden(&got[i], false), toGolden(&want[i], false)
				if !reflect.DeepEqual(g, w) {
					t.Errorf("item %d:\ngot  %s\nwant %s", i, mustJSON(t, g), mustJSON(t, w))
				}
				if !got[i].BilledCost.Equal(want[i].BilledCost) || got[i].BilledCost.Exponent() != want[i].BilledCost.Exponent() {
					t.Errorf("item %d: billed cost got %s want %s (exact, same scale)", i, got[i].BilledCost, want[i].BilledCost)
				}
			}
		})
	}

	t.Run("reimport adds nothing", func(t *testing.T) {
		db, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ledger.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		first, err := ImportFile(ctx, db, pqPath, Options{TZ: shanghai})
		if err != nil {
			t.Fatal(err)
		}
		if first.New != len(want) {
			t.Fatalf("first import: new %d, want %d", first.New, len(want))
		}
		// A copy under another name is the same content: its rows are duplicates.
		copyPath := writeTemp(t, t.TempDir(), "again.parquet", pqData)
		for _, p := range []string{pqPath, copyPath} {
			res, err := ImportFile(ctx, db, p, Options{TZ: shanghai})
			if err != nil {
				t.Fatalf("re-import of %s: %v", p, err)
			}
			if res.New != 0 {
				t.Errorf("re-import of %s: new %d, want 0", filepath.Base(p), res.New)
			}
		}
		if n := countRows(t, db, "line_items"); n != len(want) {
			t.Errorf("line_items %d after re-import, want %d", n, len(want))
		}
	})

	t.Run("check", func(t *testing.T) {
		res, err := Check(pqPath)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tables) != 1 || res.Tables[0].Format.ID != "focus" || res.Encoding != "parquet" || res.Delimiter != "" {
			t.Fatalf("check = %+v, want one focus table, encoding parquet, no delimiter", res)
		}
		if got := res.Tables[0].Unknown; !reflect.DeepEqual(got, []string{"Id"}) {
			t.Errorf("unknown columns %v, want [Id]", got)
		}
	})
}

func TestParquetDamaged(t *testing.T) {
	csvData, err := readTestdata("focus/focus_small.csv")
	if err != nil {
		t.Fatal(err)
	}
	good := focusParquet(t, csvData)
	// The footer is intact but the data before it is cut: PAR1 at both ends.
	cut := append(append([]byte(nil), good[:len(good)/3]...), good[len(good)/2:]...)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)*2/3], "truncated or damaged Parquet file (no PAR1 at its end)"},
		{"magic only", []byte("PAR1"), "truncated Parquet file (too short)"},
		{"middle cut out", cut, "cannot read Parquet rows (truncated or damaged?)"},
		{"footer garbage", append([]byte("PAR1"+strings.Repeat("\xff", 20)), "PAR1"...), "not a readable Parquet file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTemp(t, dir, strings.ReplaceAll(tc.name, " ", "_")+".parquet", tc.data)
			_, err := Scan(context.Background(), path, Options{TZ: shanghai})
			var ie *InputError
			if !errors.As(err, &ie) || ie.File != path || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want an input error on %s containing %q", err, path, tc.want)
			}
		})
	}
}

// FuzzReadParquet feeds mutated Parquet files through detection and a Scan.
func FuzzReadParquet(f *testing.F) {
	csvData, err := readTestdata("focus/focus_small.csv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(focusParquet(f, csvData))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzScan(t, writeTemp(t, dir, "fuzz.parquet", data))
	})
}

// TestParquetCells checks how typed Parquet values are written as cells.
func TestParquetCells(t *testing.T) {
	type pqRow struct {
		BilledCost        float64           `parquet:"BilledCost"`
		ChargePeriodStart time.Time         `parquet:"ChargePeriodStart,timestamp(millisecond)"`
		ProviderName      string            `parquet:"ProviderName"`
		ListCost          *float64          `parquet:"ListCost,optional"`
		Quantity          int64             `parquet:"Quantity"`
		Day               int32             `parquet:"Day,date"`
		Tags              map[string]string `parquet:"Tags"`
		Labels            []string          `parquet:"Labels,list"`
	}
	one := 1.5
	rows := []pqRow{
		{BilledCost: 0.1, ChargePeriodStart: time.Date(2026, 10, 3, 12, 0, 0, 0, time.FixedZone("", 8*3600)),
			ProviderName: " AWS ", ListCost: &one, Quantity: -7, Day: 20730,
			Tags: map[string]string{"env": "dev", "team": "ml"}, Labels: []string{"a", "b"}},
		{BilledCost: -2.6137, ChargePeriodStart: time.Date(2026, 10, 3, 12, 0, 0, 500e6, time.UTC)},
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	path := writeTemp(t, t.TempDir(), "cells.parquet", buf.Bytes())
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src, err := openSource(path, f)
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	tb, err := src.openTable(0)
	if err != nil {
		t.Fatal(err)
	}
	defer closeTable(tb)
	for _, tc := range []struct {
		name string
		line int
		want []string
	}{
		{"header", 1, []string{"BilledCost", "ChargePeriodStart", "ProviderName", "ListCost", "Quantity", "Day", "Tags", "Labels"}},
		{"values", 2, []string{"0.1", "2026-10-03T04:00:00Z", "AWS", "1.5", "-7", "2026-10-04", `{"env":"dev","team":"ml"}`, `["a","b"]`}},
		{"nulls and empties", 3, []string{"-2.6137", "2026-10-03T12:00:00.5Z", "", "", "0", "1970-01-01", "", ""}},
	} {
		rec, err := tb.next()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(rec, tc.want) || tb.line(0) != tc.line {
			t.Errorf("%s: got line %d %q\nwant line %d %q", tc.name, tb.line(0), rec, tc.line, tc.want)
		}
	}
	if rec, err := tb.next(); err != io.EOF {
		t.Errorf("after the last row: got %q, %v, want io.EOF", rec, err)
	}
}

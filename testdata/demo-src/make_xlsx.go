//go:build ignore

// make_xlsx turns testdata/demo-src/matpool-2026-10.csv into testdata/demo/matpool-2026-10.xlsx,
// writing the charge period columns as real Excel datetimes.
//
//	go run testdata/demo-src/make_xlsx.go testdata/demo-src/matpool-2026-10.csv testdata/demo/matpool-2026-10.xlsx

package main

import (
	"encoding/csv"
	"os"
	"time"

	"github.com/xuri/excelize/v2"
)

func main() {
	in, _ := os.Open(os.Args[1])
	recs, err := csv.NewReader(in).ReadAll()
	if err != nil {
		panic(err)
	}
	f := excelize.NewFile()
	sheet := "费用明细"
	f.SetSheetName("Sheet1", sheet)
	dateStyle, _ := f.NewStyle(&excelize.Style{CustomNumFmt: ptr("yyyy-mm-dd hh:mm:ss")})
	for r, rec := range recs {
		for c, v := range rec {
			cell, _ := excelize.CoordinatesToCellName(c+1, r+1)
			if r > 0 && (c == 10 || c == 11) && v != "" { // 开始时间, 结束时间 as real datetimes
				t, err := time.Parse("2006-01-02 15:04:05", v)
				if err != nil {
					panic(err)
				}
				f.SetCellValue(sheet, cell, t)
				f.SetCellStyle(sheet, cell, cell, dateStyle)
				continue
			}
			f.SetCellStr(sheet, cell, v)
		}
	}
	if err := f.SaveAs(os.Args[2]); err != nil {
		panic(err)
	}
}
func ptr(s string) *string { return &s }

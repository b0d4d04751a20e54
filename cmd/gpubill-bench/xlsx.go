package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/gpubill/gpubill/ingest"
)

// runXLSX imports generated XLSX bills (the gpubill template) of each size, in the work folder dir,
// against excelize's Rows() reading the same sheet (-read-xlsx, in a process
// of its own).
func runXLSX(bin, sizes string, runs int, dir string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	printHeader("what (xlsx)")
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("-xlsx-rows %q: %w", s, err)
		}
		if n < 1 || n >= excelize.TotalRows {
			return fmt.Errorf("-xlsx-rows %d: a sheet holds 1 to %d rows besides its header", n, excelize.TotalRows-1)
		}
		csvPath := filepath.Join(dir, fmt.Sprintf("bill-%d.csv", n))
		if err := generate(csvPath, n, ingest.WriteSampleTemplateCSV); err != nil {
			return err
		}
		book := filepath.Join(dir, fmt.Sprintf("bill-%d.xlsx", n))
		// Written by a process of its own: excelize holds the workbook's
		// shared strings whole, and on Linux a child's peak RSS starts at
		// its parent's (exec keeps the larger of the two), so every
		// measure after it read this process's 313 MB.
		if out, err := exec.Command(self, "-write-xlsx", csvPath+","+book).CombinedOutput(); err != nil {
			return fmt.Errorf("writing %s: %v: %s", book, err, out)
		}
		var base, ours []sample
		for i := 0; i < runs; i++ {
			b, err := timed(dir, exec.Command(self, "-read-xlsx", book))
			if err != nil {
				return fmt.Errorf("excelize Rows(): %w", err)
			}
			base = append(base, b)
			o, err := timedImport(bin, dir, book, n)
			if err != nil {
				return err
			}
			ours = append(ours, o)
		}
		mb, mo := median(base), median(ours)
		printRow(n, "template", "excelize Rows()", mb, "1.00", "")
		printRow(n, "template", "gpubill import", mo, fmt.Sprintf("%.2f", mo.wall.Seconds()/mb.wall.Seconds()), "")
	}
	return nil
}

// csvToXLSX writes the records of a generated CSV bill as the only sheet of
// a workbook, amounts and quantities as numbers, with excelize's stream
// writer.
func csvToXLSX(csvPath, book string) error {
	in, err := os.Open(csvPath)
	if err != nil {
		return err
	}
	defer in.Close()
	r := csv.NewReader(in)
	r.FieldsPerRecord = -1
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		return err
	}
	for row := 1; ; row++ {
		rec, err := r.Read()
		if err != nil {
			break
		}
		cells := make([]any, len(rec))
		for i, c := range rec {
			cells[i] = c
			if row > 1 {
				if v, err := strconv.ParseFloat(c, 64); err == nil && !strings.ContainsAny(c, "-:") {
					cells[i] = v // numbers as Excel holds them (the generated amounts fit a float64 exactly enough for a benchmark)
				}
			}
		}
		cell, err := excelize.CoordinatesToCellName(1, row)
		if err != nil {
			return fmt.Errorf("%s: record %d: %w", csvPath, row, err)
		}
		if err := sw.SetRow(cell, cells); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.SaveAs(book)
}

// readAllRows reads every cell of every sheet of a workbook with excelize's
// streaming Rows(): the floor of an XLSX import.
func readAllRows(book string) error {
	f, err := excelize.OpenFile(book)
	if err != nil {
		return err
	}
	defer f.Close()
	cells := 0
	for _, sheet := range f.GetSheetList() {
		rows, err := f.Rows(sheet)
		if err != nil {
			return err
		}
		for rows.Next() {
			cols, err := rows.Columns()
			if err != nil {
				return err
			}
			cells += len(cols)
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	fmt.Println(cells)
	return nil
}

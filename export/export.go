package export

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/sync/errgroup"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/ledger"
)

// Formats of Export.
const (
	FormatCSV     = "focus-csv"
	FormatParquet = "focus-parquet"
)

// Options says what Export writes and where.
type Options struct {
	Format string   // FormatCSV or FormatParquet
	Months []string // billing periods YYYY-MM, each one partition
	Dir    string   // the folder of the partitions (created)
	// TZ is the zone in which monthly bills cover their month (the end
	// of the data, billing.DataEndsCovered): the reports' --tz.
	TZ *time.Location
}

// Partition is one written file.
type Partition struct {
	Month string
	Path  string
	Rows  int
}

// encoder writes the rows of one partition file.
type encoder interface {
	encode(cells []cell) error
	close() error // flushes; the file is complete only after it
}

// Export writes the line items of each month as one partition of opts.Dir
// (billing_period=M/part-00000.csv|parquet), a month at a time, as the
// ledger streams it. A month without line items writes no partition. Each
// file is written under a temporary name and renamed when complete: a
// failed export leaves no half-written partition behind.
func Export(ctx context.Context, db *ledger.DB, opts Options) ([]Partition, error) {
	ext := ""
	switch opts.Format {
	case FormatCSV:
		ext = "csv"
	case FormatParquet:
		ext = "parquet"
	default:
		return nil, fmt.Errorf("export: unknown format %q", opts.Format)
	}
	ims, err := db.Imports(ctx, 0)
	if err != nil {
		return nil, err
	}
	imports := make(map[int64]*ledger.Import, len(ims))
	for i := range ims {
		imports[ims[i].ID] = &ims[i]
	}
	loc := opts.TZ
	if loc == nil {
		loc = time.UTC
	}
	ends, err := billing.DataEndsCovered(ctx, db, loc)
	if err != nil {
		return nil, err
	}
	var parts []Partition
	for _, m := range opts.Months {
		p, err := exportMonth(ctx, db, m, imports, ends, opts.Dir, ext)
		if err != nil {
			return parts, err
		}
		if p.Rows > 0 {
			parts = append(parts, p)
		}
	}
	return parts, nil
}

// exportMonth writes month m's partition.
func exportMonth(ctx context.Context, db *ledger.DB, m string, imports map[int64]*ledger.Import, ends map[string]time.Time, dir, ext string) (Partition, error) {
	p := Partition{Month: m, Path: filepath.Join(dir, "billing_period="+m, "part-00000."+ext)}
	findings, err := db.Findings(ctx, m)
	if err != nil {
		return p, err
	}
	byLine := findingsByLine(findings)
	var f *os.File
	var enc encoder
	tmp := p.Path + ".tmp"
	fail := func(err error) (Partition, error) {
		if f != nil {
			f.Close()
			os.Remove(tmp)
		}
		return p, err
	}
	cells := make([]cell, len(columns))
	// The source cells are read only of the imports with ids to carry.
	read, idCols := ledger.Read{Cells: map[int64][]int{}}, map[int64]IDColumns{}
	for id, im := range imports {
		if c := IDColumnsOf(im.Header); len(c.cols) > 0 {
			read.Cells[id], idCols[id] = c.cols, c
		}
	}
	write := func(li *ledger.LineItem) error {
		if enc == nil { // the partition's file, at its first row
			if err := os.MkdirAll(filepath.Dir(p.Path), 0o700); err != nil {
				return err
			}
			var err error
			if f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err != nil {
				return err
			}
			if ext == "csv" {
				enc, err = newCSVEncoder(f)
			} else {
				enc, err = newParquetEncoder(f)
			}
			if err != nil {
				return err
			}
		}
		im := imports[li.ImportID]
		src, ids := source(li, im), ""
		if c, ok := idCols[li.ImportID]; ok && len(li.Raw) > 0 {
			ids = idsText(c.ids(li.Raw))
		}
		srcRow := src.Row
		row(cells, li, src, ids, byLine[li.ID], ends[li.Provider])
		if err := enc.encode(cells); err != nil {
			var fe *FitError
			if errors.As(err, &fe) {
				fe.LineItemID, fe.File, fe.Row = li.ID, li.File, srcRow
				return fe
			}
			return fmt.Errorf("line item %d (%s row %d): %w", li.ID, li.File, srcRow, err)
		}
		p.Rows++
		return nil
	}
	err = pipelined(ctx, func(ctx context.Context, fn func(*ledger.LineItem) error) error {
		return db.EachLineItem(ctx, ledger.Filter{Month: m}, read, fn)
	}, write)
	if err != nil {
		if _, ok := err.(*FitError); ok {
			return fail(err)
		}
		return fail(fmt.Errorf("export %s: %w", m, err))
	}
	if enc == nil {
		return p, nil
	}
	if err := enc.close(); err != nil {
		return fail(fmt.Errorf("export %s: %w", m, err))
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		f = nil
		os.Remove(tmp)
		return p, err
	}
	if err := os.Rename(tmp, p.Path); err != nil {
		os.Remove(tmp)
		return p, err
	}
	return p, nil
}

// findingsByLine maps the line items cited by the month's stored findings
// to what they say of them: every finding citing a line names its rule and
// fingerprint there (most severe first), and the line's money at risk is
// counted once, as the findings report's totals count it
// (reports.NewFindingsReport): findings in priority order (severity, rule,
// period, resource, fingerprint) claim their lines; one none of whose lines
// is claimed yet spreads its amount over them (shareAtRisk); one whose
// amount is its lines' cost gives its unclaimed lines their cost; any other
// overlapping one counts nothing. So SUM(x_AmountAtRisk) is the report's
// total. A line cited only by findings that count nothing holds 0; NULL
// means no finding with a known amount cites it.
func findingsByLine(fs []ledger.Finding) map[int64]*lineFindings {
	slices.SortStableFunc(fs, func(a, b ledger.Finding) int {
		if ra, rb := ledger.SeverityRank(a.Severity), ledger.SeverityRank(b.Severity); ra != rb {
			return rb - ra
		}
		if ra, rb := ledger.RuleRank(a.RuleID), ledger.RuleRank(b.RuleID); ra != rb {
			return ra - rb
		}
		if c := strings.Compare(a.RuleID, b.RuleID); c != 0 {
			return c
		}
		if c := a.PeriodStart.Compare(b.PeriodStart); c != 0 {
			return c
		}
		if c := strings.Compare(a.ResourceID, b.ResourceID); c != 0 {
			return c
		}
		return strings.Compare(a.Fingerprint, b.Fingerprint)
	})
	out := map[int64]*lineFindings{}
	claimed := map[int64]bool{}
	for i := range fs {
		f := &fs[i]
		for _, e := range f.Evidence {
			lf := out[e.LineItemID]
			if lf == nil {
				lf = &lineFindings{}
				out[e.LineItemID] = lf
			}
			if !slices.Contains(lf.rules, f.RuleID) {
				lf.rules = append(lf.rules, f.RuleID)
			}
			lf.fingerprints = append(lf.fingerprints, f.Fingerprint)
			if f.AmountAtRisk.Valid && !lf.atRisk.Valid {
				lf.atRisk = decimal.NullDecimal{Valid: true} // 0 until a finding counts it
			}
		}
		if !f.AmountAtRisk.Valid {
			continue
		}
		overlap := false
		for _, e := range f.Evidence {
			overlap = overlap || claimed[e.LineItemID]
		}
		switch {
		case !overlap:
			if f.AmountAtRisk.Decimal.IsZero() {
				continue
			}
			shares := shareAtRisk(f)
			for j, e := range f.Evidence {
				lf := out[e.LineItemID]
				lf.atRisk = decimal.NullDecimal{Decimal: lf.atRisk.Decimal.Add(shares[j].Decimal), Valid: true}
				claimed[e.LineItemID] = true
			}
		case itemised(f):
			for _, e := range f.Evidence {
				if !claimed[e.LineItemID] {
					out[e.LineItemID].atRisk = e.BilledCost
					claimed[e.LineItemID] = true
				}
			}
		}
	}
	return out
}

// itemised reports whether f's amount at risk is exactly the billed cost
// of its (distinct) lines.
func itemised(f *ledger.Finding) bool {
	seen := map[int64]bool{}
	sum := decimal.Zero
	for _, e := range f.Evidence {
		if seen[e.LineItemID] {
			continue
		}
		seen[e.LineItemID] = true
		if !e.BilledCost.Valid {
			return false
		}
		sum = sum.Add(e.BilledCost.Decimal)
	}
	return len(seen) > 0 && sum.Equal(f.AmountAtRisk.Decimal)
}

// shareAtRisk splits a finding's money at risk over its evidence lines,
// exactly: from the last line back, each line takes at most its billed
// cost (never below zero) until the amount is used up, and what is left
// over goes to the first line. Rules whose money at risk is their lines'
// cost (stopped storage, egress, seat fees …) so give each line its cost;
// a duplicate charge's "all but one" falls on the later copies; the cost of
// a forgotten instance beyond the limit on its last hours. Unknown money
// at risk leaves every share unknown.
func shareAtRisk(f *ledger.Finding) []decimal.NullDecimal {
	shares := make([]decimal.NullDecimal, len(f.Evidence))
	if !f.AmountAtRisk.Valid || len(f.Evidence) == 0 {
		return shares
	}
	left := f.AmountAtRisk.Decimal
	for j := len(f.Evidence) - 1; j >= 0; j-- {
		take := decimal.Zero
		if b := f.Evidence[j].BilledCost; b.Valid && b.Decimal.IsPositive() && left.IsPositive() {
			take = decimal.Min(b.Decimal, left)
		}
		if j == 0 {
			take = left
		}
		left = left.Sub(take)
		shares[j] = decimal.NullDecimal{Decimal: take, Valid: true}
	}
	return shares
}

// pipelined runs scan, which hands items to the function it is given,
// beside write: the items reach write in batches on a goroutine of its own,
// so that reading the ledger and encoding the file overlap. The first error
// of either stops both and is returned.
func pipelined(ctx context.Context, scan func(context.Context, func(*ledger.LineItem) error) error, write func(*ledger.LineItem) error) error {
	const batchSize = 256
	batches := make(chan []*ledger.LineItem, 4)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(batches)
		batch := make([]*ledger.LineItem, 0, batchSize)
		send := func() error {
			select {
			case batches <- batch:
				batch = make([]*ledger.LineItem, 0, batchSize)
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		err := scan(gctx, func(li *ledger.LineItem) error {
			if batch = append(batch, li); len(batch) == batchSize {
				return send()
			}
			return nil
		})
		if err == nil && len(batch) > 0 {
			err = send()
		}
		return err
	})
	g.Go(func() error {
		for b := range batches {
			for _, li := range b {
				if err := write(li); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return g.Wait()
}

// source is where line item li, of import im (nil: unknown), came from, as
// findings cite it: the spreadsheet row and sheet of the import's row map
// where it has one, else the record number.
func source(li *ledger.LineItem, im *ledger.Import) Source {
	src := Source{File: li.File, Row: li.SourceRow}
	if im == nil {
		return src
	}
	src.Format = im.Format
	if r, ok := im.RowOf(li.SourceRow); ok {
		src.Row, src.Sheet = r, im.Sheet
	}
	return src
}

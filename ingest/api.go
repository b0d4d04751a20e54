package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"

	"github.com/gpubill/gpubill/ledger"
)

// APITable is a month of bill lines fetched from a vendor's billing API
// (package fetch), laid out as a table whose header uses the API's field
// names, which the vendor's export format accepts as column aliases. It is
// imported exactly as an exported file would be: the same format detection,
// row mapper and dedupe keys, so that fetching a month and importing that
// month's CSV store each line once.
type APITable struct {
	// Name is stored and shown as the import's path (evidence cites it with
	// the row number), e.g. "api:tencentcloud/DescribeBillDetail?account=main&month=2026-11".
	Name   string
	Header []string
	Rows   [][]string
}

// ImportAPITable imports t in one transaction, as ImportFile does a file
// (opts.Replace names earlier imports whose rows it replaces in that same
// transaction). The table is rendered as CSV in memory, so its rows pass the
// CSV path unchanged; its SHA-256 is that of the rendering.
func ImportAPITable(ctx context.Context, db *ledger.DB, t APITable, opts Options) (Result, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(t.Header); err != nil {
		return Result{Path: t.Name, Status: StatusFailed, Err: err}, err
	}
	for i, r := range t.Rows {
		if len(r) != len(t.Header) {
			err := fmt.Errorf("%s: line %d has %d fields for %d columns", t.Name, i+1, len(r), len(t.Header))
			return Result{Path: t.Name, Status: StatusFailed, Err: err}, err
		}
		if err := w.Write(r); err != nil {
			return Result{Path: t.Name, Status: StatusFailed, Err: err}, err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return Result{Path: t.Name, Status: StatusFailed, Err: err}, err
	}
	sum := sha256.Sum256(buf.Bytes())
	b := buf.Bytes()
	return importOne(t.Name, opts.DryRun, func(res *Result) error {
		return importContent(ctx, db, t.Name, hex.EncodeToString(sum[:]), int64(len(b)), bytes.NewReader(b), opts, res)
	})
}

package ingest

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpubill/gpubill/internal/testkit"
	"github.com/gpubill/gpubill/ledger"
)

// TestGolden imports every sample under testdata/<format id>/ into a fresh
// ledger. name.csv (or .tsv, .xlsx, .json) must import, and the rows read back from
// the ledger must match name.golden; bad_* files must fail with the message in
// bad_*.err and leave the ledger empty.
func TestGolden(t *testing.T) {
	for _, f := range registered() {
		dir := filepath.Join("testdata", f.ID)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Errorf("format %s has no samples: %v", f.ID, err)
			continue
		}
		n := 0
		for _, e := range entries {
			ext := filepath.Ext(e.Name())
			if ext != ".csv" && ext != ".tsv" && ext != ".xlsx" && ext != ".json" {
				continue
			}
			n++
			path := filepath.Join(dir, e.Name())
			base := strings.TrimSuffix(path, ext)
			t.Run(f.ID+"/"+e.Name(), func(t *testing.T) {
				db := testkit.OpenLedger(t)
				res, err := ImportFile(context.Background(), db, path, Options{TZ: shanghai})
				if strings.HasPrefix(e.Name(), "bad_") {
					if err == nil {
						t.Fatalf("import of %s succeeded (%+v), want an error", path, res)
					}
					var ie *InputError
					if !errors.As(err, &ie) {
						t.Errorf("error %v is a %T, want *InputError", err, err)
					}
					testkit.Golden(t, base+".err", []byte(err.Error()+"\n"), *update)
					if n := countRows(t, db, "line_items") + countRows(t, db, "transactions") + countRows(t, db, "imports"); n != 0 {
						t.Errorf("after a failed import the ledger holds %d rows, want 0", n)
					}
					if res.Status != StatusFailed || res.Err == nil {
						t.Errorf("result status %q err %v, want failed with the error", res.Status, res.Err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if res.Format != f.ID {
					t.Errorf("format = %q, want %q", res.Format, f.ID)
				}
				out := struct {
					Result       resultSummary     `json:"result"`
					LineItems    []goldenItem      `json:"line_items,omitempty"`
					Transactions []goldenTx        `json:"transactions,omitempty"`
					Imports      []goldenImportRow `json:"imports"`
				}{Result: summarize(res), Imports: storedImports(t, db)}
				for _, li := range storedItems(t, db) {
					out.LineItems = append(out.LineItems, toGolden(&li, true))
				}
				out.Transactions = storedTxs(t, db)
				testkit.Golden(t, base+".golden", mustJSON(t, out), *update)
			})
		}
		if n == 0 {
			t.Errorf("format %s has no samples in %s", f.ID, dir)
		}
	}
}

// resultSummary is the part of a Result that golden files record.
type resultSummary struct {
	Format, Provider, Status, Encoding string
	Read, New, Duplicate, Skipped      int
	Tables                             int
}

func summarize(r Result) resultSummary {
	return resultSummary{Format: r.Format, Provider: r.Provider, Status: r.Status, Encoding: r.Encoding,
		Read: r.Read, New: r.New, Duplicate: r.Duplicate, Skipped: r.Skipped, Tables: r.Tables}
}

type goldenTx struct {
	SourceRow   int      `json:"source_row"`
	RowKey      string   `json:"row_key"`
	Provider    string   `json:"provider"`
	Account     string   `json:"account,omitempty"`
	Time        string   `json:"time"`
	Type        string   `json:"type"`
	Amount      string   `json:"amount"`
	Currency    string   `json:"currency"`
	Balance     *string  `json:"balance"`
	Reference   string   `json:"reference,omitempty"`
	Description string   `json:"description,omitempty"`
	Raw         []string `json:"raw"`
}

// storedTxs reads the transactions table back (the ledger has no typed
// query for it yet).
func storedTxs(t testing.TB, db *ledger.DB) []goldenTx {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT source_row, row_key, provider, account, time, type, amount, currency, balance,
		reference, description, raw FROM transactions ORDER BY import_id, source_row`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []goldenTx
	for rows.Next() {
		var g goldenTx
		var bal sql.NullString
		var raw string
		if err := rows.Scan(&g.SourceRow, &g.RowKey, &g.Provider, &g.Account, &g.Time, &g.Type, &g.Amount, &g.Currency,
			&bal, &g.Reference, &g.Description, &raw); err != nil {
			t.Fatal(err)
		}
		if bal.Valid {
			g.Balance = &bal.String
		}
		g.Raw = jsonStrings(t, raw)
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

type goldenImportRow struct {
	Format, FormatVersion, Sheet, Header, Status string
	HeaderRow, Read, New, Duplicate, Skipped     int
	SHA256Len                                    int
	Size                                         int64
}

func storedImports(t testing.TB, db *ledger.DB) []goldenImportRow {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT format, format_version, sheet, header, status, header_row, rows_read, rows_new,
		rows_duplicate, rows_skipped, length(sha256), size FROM imports ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []goldenImportRow
	for rows.Next() {
		var g goldenImportRow
		if err := rows.Scan(&g.Format, &g.FormatVersion, &g.Sheet, &g.Header, &g.Status, &g.HeaderRow, &g.Read, &g.New,
			&g.Duplicate, &g.Skipped, &g.SHA256Len, &g.Size); err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

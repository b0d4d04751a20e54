package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// The evidence of a finding is stored as one row per (finding, file) whose
// items list the cited line items as JSON [[line_item_id, row], …]
// (migration 0008). Writing it is insertEvidence (findings.go); reading it
// back, with the billed cost of each cited line item, is attachEvidence.

// attachEvidence reads the evidence of the findings where holds (SQL on
// the findings table with args, as FindingsWithoutCosts; "" = all) and hands each
// finding of fs its rows, ordered by file, row and line item, without their
// billed costs (AddEvidenceCosts).
// The lists are parsed here (parseEvidenceList), not by json_each.
func (db *DB) attachEvidence(ctx context.Context, where string, args []any, fs []Finding) error {
	idx := make(map[int64]int, len(fs))
	for i := range fs {
		idx[fs[i].ID] = i
	}
	q := `SELECT finding_id, file, items FROM finding_evidence`
	if where != "" {
		q += ` WHERE finding_id IN (SELECT id FROM findings WHERE ` + where + `)`
	}
	files := map[string]string{}
	var id int64
	var file string
	var list []byte
	err := eachRow(ctx, db.sql, "evidence", q, args, func(scan func(...any) error) error {
		if err := scan(&id, &file, &list); err != nil {
			return err
		}
		i, ok := idx[id]
		if !ok {
			return nil
		}
		if f, ok := files[file]; ok {
			file = f // one string per file
		} else {
			files[file] = file
		}
		var err error
		if fs[i].Evidence, err = parseEvidenceList(list, file, fs[i].Evidence); err != nil {
			return fmt.Errorf("ledger: evidence: finding %d, file %q: %w", fs[i].ID, file, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range fs {
		slices.SortFunc(fs[i].Evidence, CompareEvidence)
	}
	return nil
}

// AddEvidenceCosts fills the billed cost of the evidence of fs: from known
// for the line items it holds (a report that read them on its way through
// the month), else looked up by id, a chunk of ids a statement (not Valid
// when the line item is gone: an undone import). Evidence whose cost is
// Valid already keeps it.
func (db *DB) AddEvidenceCosts(ctx context.Context, fs []Finding, known map[int64]decimal.NullDecimal) error {
	ids := make([]int64, 0, EvidenceCount(fs))
	for i := range fs {
		for _, e := range fs[i].Evidence {
			if _, ok := known[e.LineItemID]; !ok && !e.BilledCost.Valid {
				ids = append(ids, e.LineItemID)
			}
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	billed, err := db.BilledCosts(ctx, ids)
	if err != nil {
		return fmt.Errorf("ledger: evidence: %w", err)
	}
	for i := range fs {
		ev := fs[i].Evidence
		for j := range ev {
			if ev[j].BilledCost.Valid {
				continue
			}
			if c, ok := known[ev[j].LineItemID]; ok {
				ev[j].BilledCost = c
				continue
			}
			k, _ := slices.BinarySearch(ids, ev[j].LineItemID)
			ev[j].BilledCost = billed[k]
		}
	}
	return nil
}

// EvidenceCount is how many evidence rows fs have in all.
func EvidenceCount(fs []Finding) int {
	n := 0
	for i := range fs {
		n += len(fs[i].Evidence)
	}
	return n
}

// BilledCosts returns the billed cost of each line item of ids (sorted,
// distinct), not Valid for an id the ledger no longer holds.
func (db *DB) BilledCosts(ctx context.Context, ids []int64) ([]decimal.NullDecimal, error) {
	costs := make([]decimal.NullDecimal, len(ids))
	ir := newItemReader(nil, nil) // amounts repeat: shared
	err := db.eachChunk(ctx, ids, `SELECT id, billed_cost FROM line_items WHERE id IN (%s)`, nil, func(r Row) error {
		id := r.Int64(0)
		k, ok := slices.BinarySearch(ids, id)
		if !ok {
			return fmt.Errorf("line item %d read but not asked for", id)
		}
		d, err := ir.amount(-1, r.Bytes(1))
		if err != nil {
			return fmt.Errorf("line item %d: %w", id, err)
		}
		costs[k] = decimal.NullDecimal{Decimal: d, Valid: true}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("billed cost: %w", err)
	}
	return costs, nil
}

// parseEvidenceList appends to ev the pairs of list, a JSON array of
// [line_item_id, row] pairs, each as evidence of file. The lists are written
// without spaces (insertEvidence, migration 0008's json_group_array), so
// they are cut at "],[" and their numbers read by strconv (a third of
// encoding/json's time); a list edited with spaces is compacted first.
func parseEvidenceList(list []byte, file string, ev []Evidence) ([]Evidence, error) {
	if bytes.ContainsAny(list, " \t\r\n") {
		var b bytes.Buffer
		if err := json.Compact(&b, list); err != nil {
			return ev, fmt.Errorf("stored evidence list: %w", err)
		}
		list = b.Bytes()
	}
	s, ok := strings.CutPrefix(string(list), "[")
	if s, ok2 := strings.CutSuffix(s, "]"); ok && ok2 && s == "" {
		return ev, nil
	}
	if s, ok = strings.CutPrefix(s, "["); ok {
		s, ok = strings.CutSuffix(s, "]]")
	}
	if !ok {
		return ev, errors.New("stored evidence list: not a list of [line item id, row] pairs")
	}
	ev = slices.Grow(ev, strings.Count(s, "],[")+1)
	for pair := range strings.SplitSeq(s, "],[") {
		a, b, _ := strings.Cut(pair, ",")
		id, err1 := strconv.ParseInt(a, 10, 64)
		row, err2 := strconv.ParseInt(b, 10, 0)
		if err1 != nil || err2 != nil {
			return ev, fmt.Errorf("stored evidence list: [%s] is not a line item id and a row", pair)
		}
		ev = append(ev, Evidence{LineItemID: id, File: file, Row: int(row)})
	}
	return ev, nil
}

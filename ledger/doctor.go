package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// Check statuses of a doctor report.
const (
	CheckOK      = "ok"
	CheckWarning = "warning" // worth knowing; the ledger is sound
	CheckProblem = "problem" // the ledger is damaged or inconsistent
)

// Check is one finding of Doctor.
type Check struct {
	Name   string // stable id: integrity, foreign_keys, schema_version, …
	Status string // CheckOK, CheckWarning or CheckProblem
	Detail string // what was found, in English
	// DetailZH is Detail in Chinese where doctor words it itself ("" where
	// the detail is a database error: shown as Detail).
	DetailZH string
	Count    int64 // how many rows or records are affected (0 when none or not countable)
}

// DoctorReport is the outcome of Doctor.
type DoctorReport struct {
	Path          string
	SchemaVersion int // the ledger's; this gpubill's is SchemaVersion()
	Checks        []Check
}

// OK reports whether no check found a problem (warnings are fine).
func (r *DoctorReport) OK() bool {
	for _, c := range r.Checks {
		if c.Status == CheckProblem {
			return false
		}
	}
	return true
}

// maxDetails bounds how many messages of integrity_check or how many ids a
// check lists in its Detail.
const maxDetails = 10

// Doctor checks the ledger at path without changing it (it neither creates,
// migrates nor repairs): SQLite's integrity_check and foreign_key_check,
// the schema version, rows whose import is gone (orphans), import records
// whose counts disagree with the rows they added, imports left unfinished,
// and the file's mode. A damaged file is reported, not returned as an error;
// the error is for a ledger that cannot be opened at all.
func Doctor(ctx context.Context, path string) (*DoctorReport, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("ledger: %s is a directory", path)
	}
	// Read-write (WAL needs the -shm), but Doctor writes nothing; no
	// authorizer: integrity_check is a PRAGMA.
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "query_only(1)")
	sdb, err := sql.Open("sqlite", fileURI(path, q))
	if err != nil {
		return nil, fmt.Errorf("ledger: open %s: %w", path, err)
	}
	defer sdb.Close()
	sdb.SetMaxOpenConns(1)
	r := &DoctorReport{Path: path}

	r.Checks = append(r.Checks, integrityCheck(ctx, sdb))
	if r.Checks[0].Status == CheckProblem && r.Checks[0].Count < 0 {
		// Not a database at all: nothing else can be read.
		r.Checks[0].Count = 0
		return r, nil
	}
	r.Checks = append(r.Checks, foreignKeyCheck(ctx, sdb))
	ver := versionCheck(ctx, sdb, r)
	r.Checks = append(r.Checks, ver)
	if r.SchemaVersion == 0 {
		return r, nil // no gpubill schema: the row checks have no tables to read
	}
	r.Checks = append(r.Checks, orphanCheck(ctx, sdb), countsCheck(ctx, sdb), unfinishedCheck(ctx, sdb))
	if r.SchemaVersion >= dataEndsVersion {
		r.Checks = append(r.Checks, dataEndsCheck(ctx, sdb))
	}
	r.Checks = append(r.Checks, modeCheck(st))
	return r, nil
}

// integrityCheck runs PRAGMA integrity_check. Count is -1 when the file is
// no SQLite database.
func integrityCheck(ctx context.Context, db *sql.DB) Check {
	c := Check{Name: "integrity", Status: CheckOK, Detail: "PRAGMA integrity_check: ok", DetailZH: "完整性检查（PRAGMA integrity_check）通过"}
	c = listCheck(ctx, db, c, `PRAGMA integrity_check(100)`,
		func(scan func(...any) error) (string, error) {
			var m string
			err := scan(&m)
			if m == "ok" {
				m = ""
			}
			return m, err
		},
		func(_ int64, found []string) string { return "PRAGMA integrity_check: " + joinFirst(found, "; ") })
	if c.Status == CheckProblem && c.Count == 0 {
		c.Count, c.Detail = -1, "not a readable SQLite database: "+c.Detail
	}
	return c
}

// problem is the check name failed with err.
func problem(name string, err error) Check {
	return Check{Name: name, Status: CheckProblem, Detail: err.Error()}
}

func foreignKeyCheck(ctx context.Context, db *sql.DB) Check {
	c := Check{Name: "foreign_keys", Status: CheckOK, Detail: "PRAGMA foreign_key_check: no violations", DetailZH: "外键检查（PRAGMA foreign_key_check）无违例"}
	per := map[string]int64{}
	var parts []string // table → parent, in the order met
	err := eachRow(ctx, db, "", `PRAGMA foreign_key_check`, nil, func(scan func(...any) error) error {
		var table, parent string
		var rowid sql.NullInt64
		var fkid int64
		if err := scan(&table, &rowid, &parent, &fkid); err != nil {
			return err
		}
		if key := table + " → " + parent; per[key] == 0 {
			parts = append(parts, key)
		}
		per[table+" → "+parent]++
		c.Count++
		return nil
	})
	if err != nil {
		return problem("foreign_keys", err)
	}
	if c.Count > 0 {
		for i, k := range parts {
			parts[i] = fmt.Sprintf("%s: %d", k, per[k])
		}
		c.Status = CheckProblem
		c.Detail = fmt.Sprintf("%d row(s) reference a missing row (%s)", c.Count, joinFirst(parts, ", "))
	}
	return c
}

func versionCheck(ctx context.Context, db *sql.DB, r *DoctorReport) Check {
	c := Check{Name: "schema_version"}
	v, err := schemaVersion(ctx, db)
	if err != nil {
		c.Status, c.Detail = CheckProblem, err.Error()
		return c
	}
	r.SchemaVersion = v
	want := SchemaVersion()
	switch {
	case v == 0 && emptyDatabase(ctx, db):
		// What a first command leaves when it is killed before its
		// migration commits: the file OpenWith creates, rolled back.
		c.Status, c.Detail = CheckWarning, "empty database: the ledger is not created yet (a first command stopped before it created the schema); the next command that opens it creates it"
	case v == 0:
		c.Status, c.Detail = CheckProblem, "no gpubill schema (schema_migrations is missing or empty): not a gpubill ledger"
	case v > want:
		c.Status, c.Detail = CheckProblem, fmt.Sprintf("version %d, newer than this gpubill knows (%d): upgrade gpubill", v, want)
		c.DetailZH = fmt.Sprintf("版本 %d，比本程序认识的 %d 新：请升级 gpubill", v, want)
	case v < want:
		c.Status, c.Detail = CheckWarning, fmt.Sprintf("version %d, older than this gpubill's %d: the next command that opens it migrates it", v, want)
		c.DetailZH = fmt.Sprintf("版本 %d，比本程序的 %d 旧：下一个打开它的命令会自动升级", v, want)
	default:
		c.Status, c.Detail = CheckOK, fmt.Sprintf("version %d (current)", v)
		c.DetailZH = fmt.Sprintf("版本 %d（最新）", v)
	}
	return c
}

// emptyDatabase reports whether db holds no table, index, view or trigger.
func emptyDatabase(ctx context.Context, db *sql.DB) bool {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&n)
	return err == nil && n == 0
}

// rowTables are the tables whose rows an import adds.
var rowTables = []string{"line_items", "transactions", "payments"}

func orphanCheck(ctx context.Context, db *sql.DB) Check {
	c := Check{Name: "orphan_rows", Status: CheckOK, Detail: "every line item, money-flow row and payment belongs to an import", DetailZH: "每条费用明细、收支记录和支付记录都属于某次导入"}
	var parts []string
	for _, table := range rowTables {
		var n int64
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+table+` t
			WHERE NOT EXISTS (SELECT 1 FROM imports im WHERE im.id = t.import_id)`).Scan(&n); err != nil {
			return problem(c.Name, err)
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", table, n))
			c.Count += n
		}
	}
	if c.Count > 0 {
		c.Status = CheckProblem
		c.Detail = fmt.Sprintf("%d row(s) whose import record is gone (%s)", c.Count, strings.Join(parts, ", "))
	}
	return c
}

// countsCheck compares rows_new of every finished import with the rows that
// carry its id: an import adds exactly its new rows, and only an undo (which
// removes the record too) takes them away.
func countsCheck(ctx context.Context, db *sql.DB) Check {
	c := Check{Name: "import_counts", Status: CheckOK, Detail: "every import record holds as many rows as it added", DetailZH: "每条导入记录的行数与它新增的行数一致"}
	return listCheck(ctx, db, c, `
		WITH held(import_id, n) AS (
			SELECT import_id, count(*) FROM line_items GROUP BY import_id
			UNION ALL SELECT import_id, count(*) FROM transactions GROUP BY import_id
			UNION ALL SELECT import_id, count(*) FROM payments GROUP BY import_id)
		SELECT im.id, im.path, im.rows_new, coalesce((SELECT sum(n) FROM held WHERE held.import_id = im.id), 0) AS got
		FROM imports im WHERE im.status = 'ok' AND im.rows_new != got ORDER BY im.id`,
		func(scan func(...any) error) (string, error) {
			var id, want, got int64
			var path string
			err := scan(&id, &path, &want, &got)
			return fmt.Sprintf("import %d (%s): recorded %d new, holds %d", id, path, want, got), err
		},
		func(n int64, found []string) string {
			return fmt.Sprintf("%d import record(s) disagree with their rows: %s", n, joinFirst(found, "; "))
		})
}

// dataEndsVersion is the migration that made data_ends (0007).
const dataEndsVersion = 7

// dataEndsCheck compares data_ends, the end of the data per provider that
// the audit reads ("is this session still running?"), with the line items
// it stands for: imports raise it and undoing an import computes it again,
// so only an edit of the file outside gpubill makes them disagree.
func dataEndsCheck(ctx context.Context, db *sql.DB) Check {
	c := Check{Name: "data_ends", Status: CheckOK, Detail: "the stored end of every provider's data matches its line items", DetailZH: "每个平台记下的数据截止时间与其费用明细一致"}
	return listCheck(ctx, db, c, `
		WITH got(provider, e) AS (SELECT provider, max(charge_period_end) FROM line_items GROUP BY provider)
		SELECT coalesce(g.provider, d.provider), coalesce(d.charge_period_end, 'none'), coalesce(g.e, 'none')
		FROM got g FULL OUTER JOIN data_ends d ON d.provider = g.provider
		WHERE g.e IS NOT d.charge_period_end ORDER BY 1`,
		func(scan func(...any) error) (string, error) {
			var p, stored, got string
			err := scan(&p, &stored, &got)
			return fmt.Sprintf("%s: stored %s, line items end %s", p, stored, got), err
		},
		func(n int64, found []string) string {
			return fmt.Sprintf("%d provider(s) with a stored end of data other than their line items': %s", n, joinFirst(found, "; "))
		})
}

// unfinishedCheck finds import records that never reached "ok": an import
// writes its record and its rows in one transaction, so a committed
// record that is still "running" means something else wrote the file.
func unfinishedCheck(ctx context.Context, db *sql.DB) Check {
	c := Check{Name: "unfinished_imports", Status: CheckOK, Detail: "every import record is finished", DetailZH: "每条导入记录都已完成"}
	return listCheck(ctx, db, c, `SELECT id FROM imports WHERE status != 'ok' ORDER BY id`,
		func(scan func(...any) error) (string, error) {
			var id int64
			err := scan(&id)
			return fmt.Sprint(id), err
		},
		func(_ int64, found []string) string {
			return "import record(s) not finished: " + joinFirst(found, ", ") + " (gpubill imports undo ID removes one)"
		})
}

// listCheck is c, unless q returns rows that describe tells (but as ""):
// then c is a problem with one count per row and the detail that detail
// makes of them. A failing query is a problem too.
func listCheck(ctx context.Context, db *sql.DB, c Check, q string, describe func(scan func(...any) error) (string, error),
	detail func(n int64, found []string) string) Check {
	var found []string
	err := eachRow(ctx, db, "", q, nil, func(scan func(...any) error) error {
		d, err := describe(scan)
		if d != "" {
			found = append(found, d)
		}
		return err
	})
	if err != nil {
		return problem(c.Name, err)
	}
	if len(found) > 0 {
		c.Status, c.Count = CheckProblem, int64(len(found))
		c.Detail = detail(c.Count, found)
	}
	return c
}

// modeCheck warns when others than the owner may read the ledger (a file
// made by hand, or copied with a lax umask).
func modeCheck(st os.FileInfo) Check {
	c := Check{Name: "file_mode", Status: CheckOK, Detail: fmt.Sprintf("%v: only the owner can read it", st.Mode().Perm()),
		DetailZH: fmt.Sprintf("%v：只有所有者能读", st.Mode().Perm())}
	if st.Mode().Perm()&0o077 != 0 {
		c.Status = CheckWarning
		c.Detail = fmt.Sprintf("%v: others can read the ledger; chmod 600 it", st.Mode().Perm())
		c.DetailZH = fmt.Sprintf("%v：其他用户也能读这个账本；请 chmod 600", st.Mode().Perm())
	}
	return c
}

// joinFirst joins at most maxDetails items and says how many more there are.
func joinFirst(items []string, sep string) string {
	if len(items) <= maxDetails {
		return strings.Join(items, sep)
	}
	return strings.Join(items[:maxDetails], sep) + fmt.Sprintf("%s… (%d more)", sep, len(items)-maxDetails)
}

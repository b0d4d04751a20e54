package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reports"
)

func (a *app) doctorCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the ledger for damage and inconsistencies / 检查账本",
		Long: `Check the ledger without changing it: SQLite's integrity and foreign-key checks, the schema
version, rows whose import is gone, import records whose counts disagree with the rows they
added, unfinished imports, and who can read the file. Exit status 1 when a problem is found
(warnings do not count). Keep backups with gpubill backup -o FILE.

检查账本（不做任何修改）：完整性、外键、结构版本、失去导入记录的行、导入记录与行数是否一致、
未完成的导入、文件权限。发现问题时退出码为 1。`,
		Example: `  gpubill doctor
  gpubill doctor --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runDoctor(cmd)
		},
	}
}

type doctorCheckJSON struct {
	Check  string `json:"check"`
	Status string `json:"status"`
	Count  int64  `json:"count"`
	Detail string `json:"detail"`
}

func (a *app) runDoctor(cmd *cobra.Command) error {
	path, err := a.ledgerPath()
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no ledger at %s: %w", path, err)
	}
	r, err := ledger.Doctor(cmd.Context(), path)
	if err != nil {
		return internal(err)
	}
	w, closeOut, err := a.out()
	if err != nil {
		return err
	}
	if a.format == "json" {
		checks := make([]doctorCheckJSON, 0, len(r.Checks))
		for _, c := range r.Checks {
			checks = append(checks, doctorCheckJSON{c.Name, c.Status, c.Count, c.Detail})
		}
		err = writeJSON(w, map[string]any{
			"ledger": r.Path, "ok": r.OK(), "schema_version": r.SchemaVersion,
			"schema_version_supported": ledger.SchemaVersion(), "checks": checks,
		})
	} else {
		col := a.column
		t := reports.NewTable(col("check", "检查项", false), col("status", "状态", false), col("count", "数量", true),
			col("detail", "说明", false))
		for _, c := range r.Checks {
			detail := c.Detail
			if a.lang == "zh" && c.DetailZH != "" {
				detail = c.DetailZH
			}
			t.Add(c.Name, a.checkStatus(c.Status), strconv.FormatInt(c.Count, 10), detail)
		}
		format := a.textFormat()
		if format != reports.FormatTSV && format != reports.FormatMarkdown && format != reports.FormatCSV {
			format = reports.FormatTable
		}
		err = t.Write(w, format)
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if !r.OK() {
		a.say("账本 %s 有问题（见上表）；请从备份恢复，或用 gpubill imports undo 撤销有问题的导入。",
			"the ledger %s has problems (see above): restore a backup, or undo the affected imports with gpubill imports undo.", path)
		return &exitError{code: exitInput}
	}
	return nil
}

// checkStatus is a doctor status in the output language.
func (a *app) checkStatus(s string) string {
	if a.lang != "zh" {
		return s
	}
	switch s {
	case ledger.CheckOK:
		return "正常"
	case ledger.CheckWarning:
		return "提醒"
	case ledger.CheckProblem:
		return "问题"
	}
	return s
}

package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/reports"
)

func (a *app) importsCommand() *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "imports",
		Short: "List what was imported; undo an import / 导入记录与撤销",
		Long: `List the imported files (newest first) with their format and row counts, and undo one
import with 'gpubill imports undo ID': its rows leave the ledger in one transaction (rows it
only found as duplicates belong to an earlier import and stay). Run audit again afterwards.

列出导入记录（最新在前）；用 gpubill imports undo ID 撤销一次导入。`,
		Example: `  gpubill imports
  gpubill imports undo 12`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := a.openLedger(cmd.Context())
			if err != nil {
				return err
			}
			defer db.Close()
			ims, err := db.Imports(cmd.Context(), limit)
			if err != nil {
				return internal(err)
			}
			w, closeOut, err := a.out()
			if err != nil {
				return err
			}
			if a.format == "json" {
				type imp struct {
					ID        int64  `json:"id"`
					Path      string `json:"path"`
					Sheet     string `json:"sheet,omitempty"`
					Format    string `json:"format"`
					Read      int    `json:"rows_read"`
					New       int    `json:"rows_new"`
					Duplicate int    `json:"rows_duplicate"`
					Skipped   int    `json:"rows_skipped"`
					Started   string `json:"started_at"`
					Status    string `json:"status"`
				}
				out := []imp{}
				for _, im := range ims {
					out = append(out, imp{im.ID, im.Path, im.Sheet, im.Format, im.RowsRead, im.RowsNew, im.RowsDuplicate,
						im.RowsSkipped, im.StartedAt.In(a.loc).Format("2006-01-02T15:04:05Z07:00"), im.Status})
				}
				err = writeJSON(w, map[string]any{"imports": out})
			} else {
				col := a.column
				t := reports.NewTable(col("id", "编号", true), col("started_at", "导入时间", false), col("file", "文件", false),
					col("format", "格式", false), col("read", "读取", true), col("new", "新增", true), col("duplicate", "重复", true),
					col("skipped", "跳过", true))
				for _, im := range ims {
					file := im.Path
					if im.Sheet != "" {
						file += " [" + im.Sheet + "]"
					}
					t.Add(strconv.FormatInt(im.ID, 10), im.StartedAt.In(a.loc).Format("2006-01-02 15:04"), file, im.Format,
						strconv.Itoa(im.RowsRead), strconv.Itoa(im.RowsNew), strconv.Itoa(im.RowsDuplicate), strconv.Itoa(im.RowsSkipped))
				}
				format := a.textFormat()
				if format == "json" || format == "xlsx" || format == "html" {
					format = reports.FormatTable
				}
				err = t.Write(w, format)
			}
			if cerr := closeOut(); err == nil {
				err = cerr
			}
			return err
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "show only the newest N imports")
	cmd.AddCommand(&cobra.Command{
		Use:   "undo ID",
		Short: "Remove the rows one import added / 撤销一次导入",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil {
				return fmt.Errorf("import id %q: want a number from gpubill imports", args[0])
			}
			db, err := a.openLedger(cmd.Context())
			if err != nil {
				return err
			}
			defer db.Close()
			n, err := db.UndoImport(cmd.Context(), id)
			if err != nil {
				return err
			}
			a.say("已撤销导入 %d：删除 %d 行。请重新运行 gpubill audit。", "import %d undone: %d rows removed. Run gpubill audit again.", id, n)
			return nil
		},
	})
	return cmd
}

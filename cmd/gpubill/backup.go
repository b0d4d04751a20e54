package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ledger"
)

func (a *app) backupCommand() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "backup -o FILE",
		Short: "Copy the ledger to a file, safely while other commands run / 备份账本",
		Long: `Write a consistent copy of the ledger to FILE (-o), even while an import or an audit runs:
the copy is one snapshot, checked with SQLite's integrity check before it takes the name FILE,
and readable by you only (mode 0600). An existing FILE is kept unless --force is given.
To restore, use the copy as the ledger: gpubill --db FILE … (or copy it back).

把账本完整复制到 FILE（导入或审计进行中也可以）；复制结果先做完整性检查再命名为 FILE，
权限 0600。FILE 已存在时不覆盖，除非加 --force。`,
		Example: `  gpubill backup -o ~/backups/gpubill-2026-11.db
  gpubill backup -o ledger-copy.db --force`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.output == "" || a.output == "-" {
				return errors.New("backup: give the file to write with -o FILE / 请用 -o FILE 指定备份文件")
			}
			path, err := a.ledgerPath()
			if err != nil {
				return err
			}
			if _, err := os.Stat(path); err != nil {
				return fmt.Errorf("no ledger at %s: %w", path, err)
			}
			db, err := a.openLedger(cmd.Context())
			if err != nil {
				return err
			}
			defer db.Close()
			n, err := db.Backup(cmd.Context(), a.output, force)
			if errors.Is(err, ledger.ErrBackupDestination) {
				return err
			}
			if err != nil {
				return internal(err)
			}
			a.say("已将账本 %s 备份到 %s（%d 字节）。", "backed up the ledger %s to %s (%d bytes).", path, a.output, n)
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite FILE if it exists")
	return cmd
}

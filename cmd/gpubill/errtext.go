package main

import (
	"context"
	"errors"
	"io/fs"
	"regexp"
	"strings"
	"syscall"

	"github.com/gpubill/gpubill/ingest"
	"github.com/gpubill/gpubill/ledger"
)

// errText is an error as the user reads it. In Chinese, the reasons that
// come from the operating system and from SQLite (in English, from below
// gpubill) are said in Chinese, and the context gpubill adds around them
// ("ledger: open PATH") too; messages gpubill writes itself are left as
// they are, except an input error that brings its own Chinese (MsgZH).
// English output is err's own text.
func errText(err error, lang string) string {
	msg := err.Error()
	if lang != "zh" {
		return msg
	}
	var ie *ingest.InputError
	if errors.As(err, &ie) && ie.MsgZH != "" {
		msg = strings.Replace(msg, ie.Error(), ie.TextZH(), 1)
	}
	for _, r := range reasonsZH {
		if i := strings.Index(msg, r.en); i >= 0 && r.match(err) {
			// SQLite's code follows its text: "(26)", or "(5) (SQLITE_BUSY)".
			rest := sqliteCodeText.ReplaceAllString(msg[i+len(r.en):], "（SQLite 错误码 $1）")
			msg = msg[:i] + r.zh + rest
			break
		}
	}
	// A file operation's "stat PATH: reason" reads as "PATH：reason".
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = strings.Replace(msg, pe.Op+" "+pe.Path+": ", pe.Path+"：", 1)
	}
	msg = ledgerOpen.ReplaceAllString(msg, "打开账本 $1 失败：")
	return strings.ReplaceAll(msg, "ledger: ", "账本：")
}

var (
	sqliteCodeText = regexp.MustCompile(`^ \((\d+)\)(?: \(SQLITE_[A-Z_]+\))?`)
	ledgerOpen     = regexp.MustCompile(`^ledger: open (.+?): `)
)

// reasonZH is one English reason text and how to say it in Chinese; match
// confirms, from the error's type, that the text is that reason and not
// part of a file name or a cell.
type reasonZH struct {
	en, zh string
	match  func(error) bool
}

func sqliteCode(code int) func(error) bool {
	return func(err error) bool { return ledger.ResultCode(err) == code }
}

func errnoIs(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

// SQLite's texts are sqlite3_errstr's, as both drivers print them; the
// ones a user can meet (a wrong --db, a full disk, a busy or damaged
// ledger) are here.
var reasonsZH = []reasonZH{
	{"file is not a database", "不是 gpubill 账本（不是 SQLite 数据库文件）", sqliteCode(26)},
	{"database is locked", "账本正被另一个 gpubill 进程使用，请稍后再试", sqliteCode(5)},
	{"database table is locked", "账本的表正被另一个连接锁定，请稍后再试", sqliteCode(6)},
	{"database or disk is full", "磁盘已满，账本无法写入", sqliteCode(13)},
	{"attempt to write a readonly database", "账本是只读的，无法写入（请检查文件和目录权限）", sqliteCode(8)},
	{"unable to open database file", "无法打开账本文件（请检查路径与权限）", sqliteCode(14)},
	{"database disk image is malformed", "账本文件已损坏（运行 gpubill doctor；可从备份恢复）", sqliteCode(11)},
	{"disk I/O error", "读写账本时发生磁盘 I/O 错误", sqliteCode(10)},
	{"interrupted", "已中断", sqliteCode(9)},
	{"no such file or directory", "文件或目录不存在", errnoIs(fs.ErrNotExist)},
	{"permission denied", "没有权限", errnoIs(fs.ErrPermission)},
	{"is a directory", "这是一个目录，不是文件", errnoIs(syscall.EISDIR)},
	{"not a directory", "路径中有一段不是目录", errnoIs(syscall.ENOTDIR)},
	{"no space left on device", "磁盘空间不足", errnoIs(syscall.ENOSPC)},
	{"read-only file system", "文件系统是只读的", errnoIs(syscall.EROFS)},
	{"context deadline exceeded", "超时", errnoIs(context.DeadlineExceeded)},
}

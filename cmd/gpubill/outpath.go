package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpubill/gpubill/ledger"
)

// checkOutputPath refuses a file the user asked a command to write (flag
// names it: -o, --cover) when writing it would destroy data: the ledger,
// its -wal, -shm or -journal file (ledger.LedgerFile), or one of inputs, the
// files and folders an import reads. Every command checks -o before it
// opens the ledger (app.setup), so a refusal leaves everything as it was.
func (a *app) checkOutputPath(flag, path string, inputs []string) error {
	if path == "" || path == "-" {
		return nil
	}
	if lp, err := a.ledgerPath(); err == nil {
		if s, ok := ledger.LedgerFile(lp, path); ok {
			what, whatZH := "the ledger", "账本"
			if s != "" {
				what, whatZH = "the ledger's "+s[1:]+" file", "账本的 "+s[1:]+" 文件"
			}
			if a.lang == "zh" {
				what = whatZH
			}
			return a.errorf("%s %s 是%s（%s），写入会毁掉账本；请换一个文件名",
				"%s %s is %s (%s): writing it would destroy the ledger; choose another file",
				flag, path, what, lp)
		}
	}
	for _, in := range inputs {
		if inside(in, path) {
			return a.errorf("%s %s 是正在导入的文件（%s），写入会毁掉它；请换一个文件名",
				"%s %s is a file being imported (%s): writing it would destroy it; choose another file",
				flag, path, in)
		}
	}
	return nil
}

// inside reports whether the file path is the input file in, or lies in
// the input folder in (an import walks folders).
func inside(in, path string) bool {
	ist, err := os.Stat(in)
	if err != nil {
		return false
	}
	if !ist.IsDir() {
		pst, err := os.Stat(path)
		return err == nil && os.SameFile(ist, pst)
	}
	dir, file := resolved(in), resolved(path)
	rel, err := filepath.Rel(dir, file)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolved is path absolute, with its symbolic links (those that exist)
// resolved.
func resolved(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if p, err := filepath.EvalSymlinks(abs); err == nil {
		return p
	}
	dir, base := filepath.Split(abs)
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(d, base)
	}
	return abs
}

// errorf is an error in the output language.
func (a *app) errorf(zh, en string, args ...any) error {
	if a.lang == "zh" {
		return fmt.Errorf(zh, args...)
	}
	return fmt.Errorf(en, args...)
}

// checkLedgerPath refuses a ledger path that is a symbolic link to nothing
// (opening it would create the ledger wherever the link points), and
// warns when the ledger's folder is writable by everyone (anyone could
// replace the ledger, or plant its -wal file).
func (a *app) checkLedgerPath(path string) error {
	if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSymlink != 0 {
		if _, err := os.Stat(path); err != nil {
			target, _ := os.Readlink(path)
			return a.errorf("账本 %s 是指向不存在文件 %s 的符号链接：请删除该链接，或用 --db 指定账本",
				"the ledger %s is a symbolic link to %s, which does not exist: remove the link, or give the ledger with --db",
				path, target)
		}
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err == nil && st.Mode().Perm()&0o002 != 0 {
		a.say("警告：账本所在文件夹 %s 任何人都可写入，他人可替换或篡改账本；请用 chmod o-w 收紧权限，或把账本放到别处",
			"warning: the ledger's folder %s is writable by everyone, who could replace or tamper with the ledger: chmod o-w it, or keep the ledger elsewhere", dir)
	}
	return nil
}

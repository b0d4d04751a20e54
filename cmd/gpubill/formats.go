package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ingest"
)

func (a *app) formatsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Annotations: map[string]string{textOrJSON: "yes"},
		Use:         "formats",
		Short:       "List the bill formats gpubill reads / 列出支持的账单格式",
		Long: `List every format gpubill can read: how it is recognised (by content, never by file
name), which columns form its dedupe key, and how sure we are of it (doc: the vendor
documents it; parser: seen in third-party code that reads real files; guess; ours:
gpubill's own template). A bill line that equals one of another import in every column
of its key but the free text (description) is a re-export of the same charge: it is not
added again, and the import says so. Hidden sheets of a workbook are read only with
import --hidden-sheets; a sheet that copies another is read once.

列出所有可读取的账单格式：如何识别（按内容，不看文件名）、去重键、可信程度。除说明外与另一次导入的
费用完全相同的行视为再次导出，不重复记入，并给出提示。工作簿的隐藏工作表只在 import --hidden-sheets
时读取；内容完全相同的工作表只读一次。`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, closeOut, err := a.out()
			if err != nil {
				return err
			}
			fs := ingest.Formats()
			if a.format == "json" {
				var ps []map[string]string
				for _, p := range ingest.BuiltinProfiles() {
					ps = append(ps, map[string]string{"id": p.ID, "format": p.Family, "name_zh": p.NameZH,
						"name_en": p.NameEN, "target": p.Target, "confidence": p.Confidence})
				}
				err = writeJSON(w, map[string]any{"formats": fs, "profiles": ps})
			} else {
				err = a.writeFormatsText(w, fs)
			}
			if cerr := closeOut(); err == nil {
				err = cerr
			}
			return err
		},
	}
	var profiles []string
	check := &cobra.Command{
		Annotations: map[string]string{textOrJSON: "yes"},
		Use:         "check FILE|DIR|ZIP…",
		Short:       "Show how gpubill reads a file, without importing it / 检查文件如何被识别",
		Long: `Show how gpubill reads a file, without importing it: the format recognised, the header
row and the column mapping. A folder or a ZIP archive is looked into as import does, and
every file in it (shown as archive.zip/dir/member.csv) is checked. With --format json a
single plain file gives one object; several files, a folder or a ZIP give an array.

检查文件如何被识别（不导入）。文件夹和 ZIP 压缩包会像导入时一样逐个文件检查。`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			restore, err := useProfiles(profiles)
			if err != nil {
				return err
			}
			defer restore()
			results, cerr := ingest.CheckPaths(cmd.Context(), args, ingest.ZipLimits{})
			w, closeOut, err := a.out()
			if err != nil {
				return err
			}
			if a.format == "json" {
				if len(results) == 1 && len(args) == 1 && results[0].Path == args[0] {
					err = writeJSON(w, results[0])
				} else {
					err = writeJSON(w, results)
				}
			} else {
				for i, res := range results {
					if i > 0 {
						fmt.Fprintln(w)
					}
					if err = a.writeCheckText(w, res); err != nil {
						break
					}
				}
			}
			if e := closeOut(); err == nil {
				err = e
			}
			if cerr != nil {
				return cerr
			}
			return err
		},
	}
	check.Flags().StringArrayVar(&profiles, "profile", nil, "profile FILE or built-in profile id to try first (as for import)")
	cmd.AddCommand(check)
	cmd.AddCommand(&cobra.Command{
		Use:   "profile ID",
		Short: "Print a built-in profile, to copy and adapt / 输出内置 profile 以便复制修改",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, ok := ingest.BuiltinProfile(args[0])
			if !ok {
				var ids []string
				for _, p := range ingest.BuiltinProfiles() {
					ids = append(ids, p.ID)
				}
				return fmt.Errorf("no built-in profile %q (have: %s)", args[0], strings.Join(ids, ", "))
			}
			w, closeOut, err := a.out()
			if err != nil {
				return err
			}
			_, err = w.Write(p.Data)
			if cerr := closeOut(); err == nil {
				err = cerr
			}
			return err
		},
	})
	return cmd
}

// useProfiles loads the --profile arguments (a file, or the id of a built-in
// profile) and makes them the first formats tried; restore undoes it.
func useProfiles(args []string) (restore func(), err error) {
	var ps []*ingest.Profile
	for _, arg := range args {
		p, err := ingest.LoadProfile(arg)
		if err != nil {
			if b, ok := ingest.BuiltinProfile(arg); ok && errors.Is(err, fs.ErrNotExist) {
				ps = append(ps, b.Profile)
				continue
			}
			if _, serr := os.Stat(arg); errors.Is(serr, fs.ErrNotExist) {
				return nil, fmt.Errorf("--profile %s: no such file, and no built-in profile of that id (see gpubill formats)", arg)
			}
			return nil, err
		}
		ps = append(ps, p)
	}
	return ingest.UseProfiles(ps...), nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (a *app) writeFormatsText(w io.Writer, fs []ingest.FormatInfo) error {
	for _, f := range fs {
		name, detect := f.NameEN, f.DetectEN
		if a.lang == "zh" {
			name, detect = f.NameZH, f.DetectZH
		}
		fmt.Fprintf(w, "%s (v%s) — %s\n", f.ID, f.Version, name)
		tw := &alignedRows{}
		row := func(zh, en, v string) {
			k := en
			if a.lang == "zh" {
				k = zh
			}
			tw.add("  "+k, v)
		}
		row("可信度", "confidence", f.Confidence)
		row("识别方式", "recognised by", detect)
		row("必需表头", "required headers", strings.Join(f.RequiredHeaders, ", "))
		row("去重键", "dedupe key", f.DedupeKey)
		row("写入", "stored as", f.Target)
		if err := tw.write(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if a.lang == "zh" {
		fmt.Fprintln(w, "内置 profile（控制台表格副本；`gpubill formats profile ID` 输出 TOML，可复制修改后用 --profile 导入）：")
	} else {
		fmt.Fprintln(w, "built-in profiles (console table copies; `gpubill formats profile ID` prints the TOML to copy and use with --profile):")
	}
	tw := &alignedRows{}
	for _, p := range ingest.BuiltinProfiles() {
		name := p.NameEN
		if a.lang == "zh" {
			name = p.NameZH
		}
		tw.add("  "+p.ID, dash(p.Family), p.Confidence, name)
	}
	return tw.write(w)
}

func (a *app) writeCheckText(w io.Writer, res ingest.CheckResult) error {
	if res.Encoding == "" && res.Err != nil { // refused before it was read
		_, err := fmt.Fprintf(w, "%v\n", res.Err)
		return err
	}
	fmt.Fprintf(w, "%s: encoding %s", res.Path, dash(res.Encoding))
	if res.Delimiter != "" {
		fmt.Fprintf(w, ", delimiter %q", res.Delimiter)
	}
	fmt.Fprintln(w)
	for _, t := range res.Tables {
		where := fmt.Sprintf("header row %d", t.HeaderRow)
		if t.HeaderRow == 0 { // JSON: the keys of the first item
			where = "keys of item 1"
		}
		if t.Sheet != "" {
			where = "sheet " + t.Sheet + ", " + where
		}
		fmt.Fprintf(w, "\n%s: %s (%s, confidence %s)\n", where, t.Format.ID, t.Format.NameEN, t.Format.Confidence)
		tw := &alignedRows{}
		for _, m := range t.Mapped {
			note := ""
			if m.RawOnly {
				note = "(raw only)"
			}
			tw.add("  "+strconv.Itoa(m.Index), m.Header, "→ "+m.Field, note)
		}
		for _, u := range t.Unknown {
			tw.add("  -", u, "→ (unknown: kept in raw)", "")
		}
		if err := tw.write(w); err != nil {
			return err
		}
		if len(t.Absent) > 0 {
			fmt.Fprintf(w, "  absent optional columns: %s\n", strings.Join(t.Absent, ", "))
		}
	}
	for _, s := range res.Ignored {
		fmt.Fprintf(w, "sheet %s: no known header (ignored)\n", s)
	}
	if len(res.Tables) == 0 && len(res.Candidates) > 0 {
		fmt.Fprintf(w, "first rows seen:\n  %s\n", strings.Join(res.Candidates, "\n  "))
	}
	return nil
}

// alignedRows lines cells up in columns by display width, as the report
// tables do (a CJK character takes two cells): text/tabwriter counts runes,
// so a column after 必需表头 or 交易时间 came out shifted.
type alignedRows struct{ rows [][]string }

func (t *alignedRows) add(cells ...string) { t.rows = append(t.rows, cells) }

// ambiguousNarrow measures East Asian ambiguous characters (→, —) as one
// cell, as reports/table.go does, so the layout does not depend on the locale.
var ambiguousNarrow = &runewidth.Condition{EastAsianWidth: false}

func (t *alignedRows) write(w io.Writer) error {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ambiguousNarrow.StringWidth(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		last := len(r) - 1
		for last > 0 && r[last] == "" {
			last--
		}
		for i := 0; i <= last; i++ {
			b.WriteString(r[i])
			if i < last {
				b.WriteString(strings.Repeat(" ", widths[i]-ambiguousNarrow.StringWidth(r[i])+2))
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

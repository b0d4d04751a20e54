package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ingest"
)

func (a *app) formatsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "formats",
		Short: "List the bill formats gpubill reads / 列出支持的账单格式",
		Long: `List every format gpubill can read: how it is recognised (by content, never by file
name), which columns form its dedupe key, and how sure we are of it (doc: the vendor
documents it; parser: seen in third-party code that reads real files; guess; ours:
gpubill's own template).

列出所有可读取的账单格式：如何识别（按内容，不看文件名）、去重键、可信程度。`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, closeOut, err := a.out()
			if err != nil {
				return err
			}
			fs := ingest.Formats()
			if a.format == "json" {
				err = writeJSON(w, map[string]any{"formats": fs})
			} else {
				err = a.writeFormatsText(w, fs)
			}
			if cerr := closeOut(); err == nil {
				err = cerr
			}
			return err
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "check FILE",
		Short: "Show how gpubill reads a file, without importing it / 检查文件如何被识别",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, cerr := ingest.Check(args[0])
			w, closeOut, err := a.out()
			if err != nil {
				return err
			}
			if a.format == "json" {
				err = writeJSON(w, res)
			} else {
				err = a.writeCheckText(w, res)
			}
			if e := closeOut(); err == nil {
				err = e
			}
			if cerr != nil {
				return cerr
			}
			return err
		},
	})
	return cmd
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
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		row := func(zh, en, v string) {
			k := en
			if a.lang == "zh" {
				k = zh
			}
			fmt.Fprintf(tw, "  %s\t%s\n", k, v)
		}
		row("可信度", "confidence", f.Confidence)
		row("识别方式", "recognised by", detect)
		row("必需表头", "required headers", strings.Join(f.RequiredHeaders, ", "))
		row("去重键", "dedupe key", f.DedupeKey)
		row("写入", "stored as", f.Target)
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	return nil
}

func (a *app) writeCheckText(w io.Writer, res ingest.CheckResult) error {
	fmt.Fprintf(w, "%s: encoding %s", res.Path, dash(res.Encoding))
	if res.Delimiter != "" {
		fmt.Fprintf(w, ", delimiter %q", res.Delimiter)
	}
	fmt.Fprintln(w)
	for _, t := range res.Tables {
		where := "header"
		if t.Sheet != "" {
			where = "sheet " + t.Sheet + ", header"
		}
		fmt.Fprintf(w, "\n%s row %d: %s (%s, confidence %s)\n", where, t.HeaderRow, t.Format.ID, t.Format.NameEN, t.Format.Confidence)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, m := range t.Mapped {
			note := ""
			if m.RawOnly {
				note = "(raw only)"
			}
			fmt.Fprintf(tw, "  %d\t%s\t→ %s\t%s\n", m.Index, m.Header, m.Field, note)
		}
		for _, u := range t.Unknown {
			fmt.Fprintf(tw, "  -\t%s\t→ (unknown: kept in raw)\t\n", u)
		}
		if err := tw.Flush(); err != nil {
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

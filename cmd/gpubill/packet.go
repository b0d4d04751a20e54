package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/packet"
	"github.com/gpubill/gpubill/platform"
	"github.com/gpubill/gpubill/reports"
)

type packetOptions struct {
	project       string
	claimDisputed bool
	invoicedOnly  bool
	name, dept    string
	date          string
	cover         string
}

func (a *app) packetCommand() *cobra.Command {
	var o packetOptions
	cmd := &cobra.Command{
		Use:   "packet",
		Short: "The reimbursement packet of a month, as XLSX / 月度报销材料",
		Long: `Write the reimbursement packet of a month: one XLSX workbook with the sheets
  封面      cover: claimant, department, project, period, totals per platform and
            currency (billed, vouchers, invoiceable, disputed, claimed, invoiced,
            still to request), the amount claimed in figures and in capital
            numerals (大写), and a signature block
  明细      every line item of the month with its claimed amount, invoice numbers
            and source file and row; totals as formulas
  发票清单  the invoices to attach; missing ones highlighted
  异常      disputed charges (duplicate and overlapping charges, rounding beyond
            the platform's rule, prices above reference, charges after release),
            excluded from the claim unless --claim-disputed
Every amount is printed at the fen (the currency's minor unit), each line rounded
once; totals add the printed lines, and a 尾差 row shows what rounding changed.
--invoiced-only claims only what the recorded invoices cover (以票报销).
Vouchers, gifts and credit lines are never claimed. Reads the stored findings: run
audit first. --cover FILE also writes an HTML cover that prints on A4.

生成月度报销材料（XLSX）：封面（报销人、部门、项目、期间、按平台汇总、报销金额及大写、
签字栏）、明细、发票清单（缺失发票高亮）、异常（有争议的费用，默认不报销，
--claim-disputed 则仍报销）。代金券与赠送金额不报销。请先运行 audit。金额按分四舍五入（每行一次），
合计为各行之和，尾差另列；--invoiced-only 以票报销，只报已开发票部分。`,
		Example: `  gpubill audit --month 2026-10 >/dev/null
  gpubill packet --month 2026-10 --name 张三 --dept 计算机系 -o packet-2026-10.xlsx
  gpubill packet --month 2026-10 --project 课题A --claim-disputed -o a.xlsx --cover a.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runPacket(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.project, "project", "", "only the line items of this project (the bill's 项目)")
	f.BoolVar(&o.claimDisputed, "claim-disputed", false, "claim disputed charges too (listed on 异常 as claimed but disputed)")
	f.BoolVar(&o.invoicedOnly, "invoiced-only", false, "claim only what is invoiced (以票报销): per platform, up to the invoices recorded for the month")
	f.StringVar(&o.name, "name", "", "claimant's name (报销人)")
	f.StringVar(&o.dept, "dept", "", "department (部门)")
	f.StringVar(&o.date, "date", "", "date printed on the cover, YYYY-MM-DD (default: today in --tz)")
	f.StringVar(&o.cover, "cover", "", "also write an HTML cover for A4 to FILE")
	return cmd
}

func (a *app) runPacket(ctx context.Context, o packetOptions) error {
	if a.output == "" || (a.output == "-" && isTerminal(a.stdout)) {
		return fmt.Errorf("packet writes an XLSX workbook: give -o FILE.xlsx (or pipe -o -)")
	}
	if err := a.checkOutputPath("--cover", o.cover, nil); err != nil {
		return err
	}
	if a.formatOn && a.format != reports.FormatXLSX {
		return fmt.Errorf("--format %s: packet writes xlsx only", a.format)
	}
	var date time.Time
	if o.date != "" {
		d, err := time.ParseInLocation("2006-01-02", o.date, a.loc)
		if err != nil {
			return fmt.Errorf("--date %q: want YYYY-MM-DD", o.date)
		}
		date = d
	}
	cfg, err := a.ruleConfig(nil)
	if err != nil {
		return err
	}
	return a.withMonth(ctx, func(db *ledger.DB, month string) error {
		p, err := packet.Build(ctx, db, packet.Options{Month: month, Project: o.project, ClaimDisputed: o.claimDisputed,
			InvoicedOnly: o.invoicedOnly, Name: o.name, Dept: o.dept, Date: date, TZ: a.loc, Policy: cfg.PolicyFor})
		if err != nil {
			return internal(err)
		}
		defer p.Close()
		if p.LineCount == 0 {
			if o.project != "" {
				return fmt.Errorf("no line items of project %q in %s", o.project, month)
			}
			return fmt.Errorf("no line items in %s: import the month's bills first", month)
		}
		if !p.Audited {
			a.say("警告：%s 尚未审计，争议费用未知；请先运行 gpubill audit --month %s",
				"warning: no audit of %s is stored, so disputed charges are unknown; run gpubill audit --month %s first", month, month)
		}
		for _, prov := range p.NegativeInvoiced {
			a.say("注意：%s 在 %s 的发票合计为负（红字发票），以票报销按 0 计、不报销；红字发票冲销的是以前的报销，请与财务另行结清",
				"note: %s's invoices for %s net negative (red-letter invoices): counted as 0, nothing claimed; they cancel an earlier claim, to settle with finance apart",
				platform.Name(prov, a.lang), month)
		}
		if err := a.packetWriteFile(a.output, p.WriteXLSX); err != nil {
			return err
		}
		if o.cover != "" {
			if err := a.packetWriteFile(o.cover, p.WriteCoverHTML); err != nil {
				return err
			}
		}
		for _, c := range p.Claims {
			words := ""
			if c.Capital != "" {
				words = " (" + c.Capital + ")"
			}
			a.say("报销金额 %s %s%s，争议 %s %s，发票待索取见“发票清单”", "claimed %s %s%s, disputed %s %s; see 发票清单 for invoices to request",
				c.Currency, reports.FormatMoney(c.Claimed, c.Currency, false), words, c.Currency, reports.FormatMoney(c.Disputed, c.Currency, false))
		}
		if a.output != "-" {
			a.say("已写入 %s", "wrote %s", a.output)
		}
		return nil
	})
}

// packetWriteFile writes to path with write, or to stdout for "-", as it
// is written, not through memory (a month may hold a million lines). The
// file is created at the first byte, so that a workbook that fails before
// (a WriteXLSX error, internal) leaves it as it was.
func (a *app) packetWriteFile(path string, write func(io.Writer) error) error {
	if strings.TrimSpace(filepath.Base(path)) == "" && path != "-" {
		return fmt.Errorf("output file %q: empty name", path)
	}
	out := &outputFile{path: path, w: a.stdout}
	err := write(out)
	if out.f != nil {
		if cerr := out.f.Close(); out.err == nil {
			out.err = cerr
		}
	}
	if out.err != nil {
		return out.err
	}
	if err != nil {
		return internal(err)
	}
	return nil
}

// outputFile is an io.Writer that creates the file path at its first
// write (stdout for "-") and keeps the error of the file.
type outputFile struct {
	path string
	w    io.Writer
	f    *os.File
	err  error
}

func (o *outputFile) Write(b []byte) (int, error) {
	if o.f == nil && o.path != "-" && o.err == nil {
		o.f, o.err = os.OpenFile(o.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, outputMode)
		o.w = o.f
	}
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(b)
	o.err = err
	return n, err
}

package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/ledger"
	"github.com/gpubill/gpubill/reconcile"
)

type reconcileOptions struct {
	before, after    time.Duration
	refundAfter      time.Duration
	project          string
	failOnDifference bool
}

func (a *app) reconcileCommand() *cobra.Command {
	var o reconcileOptions
	cmd := &cobra.Command{
		Use:   "reconcile",
		Short: "Reconcile the month: balances, top-ups ↔ payments, invoices / 月度对账",
		Long: `Reconcile a month of money:
  balances    per platform account: opening + top-ups + vouchers − charges + refunds −
              withdrawals = the closing balance the money-flow export shows; every break in
              the export's balance column is listed with the rows on both sides; where bill
              lines of the platform are imported too, its charges are compared day by day
  payments    each platform top-up is paired with one Alipay / WeChat Pay payment (equal
              amount, paid from --window-before before to --window-after after the top-up,
              or the same order number); refunds with platform refunds and withdrawals;
              payments to a GPU platform with no top-up, and top-ups with no payment, listed
  invoices    per platform: invoiceable (cash paid, never vouchers), invoiced, still to
              request, and amounts invoiced twice (gpubill invoice add / import)
Differences do not change the exit status unless --fail-on-difference is given.

月度对账：余额（期初 + 充值 + 代金券 − 消费 + 退款 − 提现 = 期末，列出断点前后两行；
有账单明细时按日比对消费）、充值与支付宝/微信付款逐笔配对（未配对的两边都列出）、
发票（可开票、已开票、待索取、重复开票）。`,
		Example: `  gpubill reconcile --month 2026-10
  gpubill reconcile --month 2026-10 --format json
  gpubill reconcile --window-after 2h --fail-on-difference`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runReconcile(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.DurationVar(&o.before, "window-before", reconcile.DefaultWindow.Before, "a payment may be this long before its top-up")
	f.DurationVar(&o.after, "window-after", reconcile.DefaultWindow.After, "a payment may be this long after its top-up")
	f.DurationVar(&o.refundAfter, "refund-window", reconcile.DefaultRefundWindow.After, "a refund may arrive this long after the platform's refund or withdrawal")
	f.StringVar(&o.project, "project", "", "invoiceable amounts of this project only (the bill lines' 项目)")
	f.BoolVar(&o.failOnDifference, "fail-on-difference", false, "exit 3 when something does not reconcile")
	return cmd
}

func (a *app) runReconcile(ctx context.Context, o reconcileOptions) error {
	if o.before < 0 || o.after < 0 || o.refundAfter < 0 {
		return fmt.Errorf("--window-before, --window-after and --refund-window must not be negative")
	}
	db, err := a.openLedger(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	month, err := a.reconcileMonth(ctx, db)
	if err != nil {
		return err
	}
	rep, err := reconcile.Reconcile(ctx, db, reconcile.Options{
		Month: month, TZ: a.loc, Project: o.project,
		Window:       reconcile.Window{Before: o.before, After: o.after},
		RefundWindow: reconcile.Window{Before: reconcile.DefaultRefundWindow.Before, After: o.refundAfter},
	})
	if err != nil {
		return internal(err)
	}
	if err := a.writeReport(rep); err != nil {
		return err
	}
	if o.failOnDifference && rep.Differences() {
		return &exitError{code: exitFindings}
	}
	return nil
}

// reconcileMonth is --month, else the ledger's default month (from its bill
// lines), else the last complete month of its money flow: a ledger may
// hold money flow and payments only.
func (a *app) reconcileMonth(ctx context.Context, db *ledger.DB) (string, error) {
	if a.month != "" {
		return a.month, nil
	}
	now := time.Now().In(a.loc)
	m, err := db.DefaultMonth(ctx, now)
	if err != nil {
		return "", internal(err)
	}
	if m != "" {
		a.sayMonth(m)
		return m, nil
	}
	txs, err := db.Transactions(ctx, "", time.Time{}, time.Time{})
	if err != nil {
		return "", internal(err)
	}
	current := now.Format("2006-01")
	for i := len(txs) - 1; i >= 0; i-- {
		tm := txs[i].Time.In(a.loc).Format("2006-01")
		if m == "" {
			m = tm
		}
		if tm < current {
			a.sayMonth(tm)
			return tm, nil
		}
	}
	if m == "" {
		return "", fmt.Errorf("the ledger %s holds no bills or money flow yet: run gpubill import FILES", db.Path())
	}
	a.sayMonth(m)
	return m, nil
}

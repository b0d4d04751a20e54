package ingest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpubill/gpubill/ledger"
	"github.com/shopspring/decimal"
)

// What the payment formats (alipay.go, wechatpay.go) share: the row mapper,
// the direction vocabulary, the frame and footer lines of the exports, and
// the dedupe key.

// Directions of a payment (ledger.Payment.Direction).
const (
	DirOut  = "out"  // 支出
	DirIn   = "in"   // 收入
	DirNone = "none" // 不计收支, WeChat's "/" and 中性交易
)

// Payment sources (ledger.Payment.Source).
const (
	SourceAlipay    = ledger.SourceAlipay
	SourceWeChatPay = ledger.SourceWeChatPay
)

// payDedupeKey is the DedupeKey text of the payment formats.
const payDedupeKey = "the vendor's transaction number (%s) with the time and the amount, numbered among identical " +
	"rows of the same table (1st, 2nd …); without a transaction number also the direction, counterparty, item " +
	"and merchant order number. A refund is its own row: Alipay extends the original's number (原号_退款号), " +
	"and its time differs. The status is left out, so a re-export after 等待确认收货 → 交易成功 adds nothing; " +
	"the stored status is then the first import's"

// parseDirection maps a 收/支 cell; an empty cell (Alipay's web export leaves
// it empty for transfers) is none.
func parseDirection(s string) (string, bool) {
	switch s {
	case "支出", "已支出":
		return DirOut, true
	case "收入", "已收入":
		return DirIn, true
	case "不计收支", "/", "", "-", "--", "中性交易", "其他":
		return DirNone, true
	}
	return "", false
}

// noValue turns the exports' placeholder for an empty cell ("/") into "".
func noValue(s string) string {
	if s == "/" || s == "-" || s == "--" {
		return ""
	}
	return s
}

// isFrameRow reports a dashed line of an export's frame: Alipay's
// "------…电子客户回单------", "-----交易记录明细列表-----" and the dashed
// line before the web export's footer.
func isFrameRow(rec []string) bool {
	return len(rec) > 0 && strings.HasPrefix(rec[0], "---")
}

// statedRE finds a payment export's own count of its records: 共12笔记录.
var statedRE = regexp.MustCompile(`共\s*(\d+)\s*笔`)

// statedCount finds the first "共N笔" in recs (preamble or footer lines).
func statedCount(recs [][]string) (int, bool) {
	for _, rec := range recs {
		for _, cell := range rec {
			if m := statedRE.FindStringSubmatch(cell); m != nil {
				if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
					return n, true
				}
			}
		}
	}
	return 0, false
}

// payCols are the record indexes a payment mapper reads (-1 = absent).
type payCols struct {
	time, direction, amount, counterparty, item, status, orderNo, merchantNo int
}

// payFields is the mapper of a payment export of source whose columns have
// the fields of payCols under their own names (time, direction, amount …).
func payFields(source string) func(*binding, *mapEnv) (payMapper, error) {
	return func(b *binding, env *mapEnv) (payMapper, error) {
		return newPayMapper(source, payCols{
			time: b.idx("time"), direction: b.idx("direction"), amount: b.idx("amount"),
			counterparty: b.idx("counterparty"), item: b.idx("item"), status: b.idx("status"),
			orderNo: b.idx("order_no"), merchantNo: b.idx("merchant_order_no"),
		}, env), nil
	}
}

// newPayMapper builds the row mapper shared by the payment formats.
//
// Rows that are no records (c.notRecord: neither read nor skipped): dashed
// frame lines, a total line, and after a frame line following data (the web
// export's footer: 共N笔记录, 已收入…, 导出时间…; the mobile export's 导出信息
// block) a footer row (isFooterRow).
func newPayMapper(source string, ix payCols, env *mapEnv) payMapper {
	footer := false
	return func(c *rowCtx, p *ledger.Payment) (bool, error) {
		if isFrameRow(c.rec) {
			footer = true
			c.notRecord = true
			return true, nil
		}
		if isTotalRow(c.rec) || (footer && isFooterRow(c, ix.time, env)) {
			if n, ok := statedCount([][]string{c.rec}); ok && footer {
				env.stated = n // the web export's footer: 共N笔记录
			}
			c.notRecord = true
			return true, nil
		}
		var err error
		p.Source = source
		if p.Time, err = c.requiredTime(ix.time, env.tz); err != nil {
			return false, err
		}
		var ok bool
		if p.Direction, ok = parseDirection(c.cell(ix.direction)); !ok {
			return false, c.errAt(ix.direction, fmt.Sprintf("%q is not a direction (支出, 收入, 不计收支 or /)", c.cell(ix.direction)))
		}
		if p.Amount, err = c.payAmount(ix.amount); err != nil {
			return false, err
		}
		p.Currency = "CNY"
		p.Counterparty = noValue(c.cell(ix.counterparty))
		p.Item = noValue(c.cell(ix.item))
		p.Status = c.cell(ix.status)
		p.OrderNo = noValue(c.cell(ix.orderNo))
		p.MerchantOrderNo = noValue(c.cell(ix.merchantNo))
		p.Raw = c.raw()
		return false, nil
	}
}

// isFooterRow reports a row after a frame line that is a footer line, not a
// record: one without a time, or a short line (fewer than half the header's
// cells: Alipay's 导出信息：, 共66笔记录, 特别提示 notes) whose first cell is
// no time. A full row with a bad time stays a record and is refused.
func isFooterRow(c *rowCtx, timeCol int, env *mapEnv) bool {
	cell := c.cell(timeCol)
	if cell == "" {
		return true
	}
	if 2*len(trimTrailingEmpty(c.rec)) >= len(trimTrailingEmpty(c.b.header)) {
		return false
	}
	t, err := c.time(timeCol, env.tz)
	return err != nil || t.IsZero()
}

// payAmount reads a payment amount: required, not negative (收/支 gives the
// direction). In an XLSX sheet a number cell holds the binary double Excel
// stored ("548.58000000000004", "7.0000000000000007E-2"); it is read as
// Excel shows it, at most 15 significant digits, which gives back the amount
// that was written (548.58, 0.07).
func (c *rowCtx) payAmount(i int) (decimal.Decimal, error) {
	d, err := c.requiredAmount(i)
	if err != nil {
		return d, err
	}
	if d.IsNegative() {
		return d, c.errAt(i, fmt.Sprintf("%q is negative; payment amounts are written positive (收/支 gives the direction)", c.cell(i)))
	}
	if c.env.xlsx {
		d = excelDigits(d)
	}
	return d, nil
}

// excelDigits rounds d to 15 significant digits when it has more (a double
// written out in full), and writes a result with at most two decimals with
// exactly two, as the CSV export does (12 → 12.00, 548.58000000000004 →
// 548.58).
func excelDigits(d decimal.Decimal) decimal.Decimal {
	if digits := len(strings.TrimLeft(d.Coefficient().String(), "-")); digits > 15 {
		d = d.Round(-d.Exponent() - int32(digits-15))
		d = decimal.RequireFromString(d.String()) // without trailing zeros
	}
	if d.Exponent() >= -2 {
		d = decimal.RequireFromString(d.StringFixed(2))
	}
	return d
}

// payKey is the dedupe key of a payment (payDedupeKey). The importer keeps
// one rowKeyer per table for payments, so the occurrence number restarts on
// each sheet and a workbook holding the same records twice stores them once.
func (k *rowKeyer) payKey(p *ledger.Payment) string {
	k.buf = k.buf[:0]
	k.str("pay")
	k.str(p.Source)
	k.str(p.OrderNo)
	k.time(p.Time)
	k.dec(p.Amount)
	if p.OrderNo == "" {
		k.str(p.Direction)
		k.str(p.Counterparty)
		k.str(p.Item)
		k.str(p.MerchantOrderNo)
	}
	return k.finish()
}

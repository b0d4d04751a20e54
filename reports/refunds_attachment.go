package reports

import (
	"encoding/csv"
	"io"
	"time"

	"github.com/gpubill/gpubill/internal/xlsxcell"
)

// The refund attachment: the CSV a user attaches to a support ticket. It is
// written for the person at the platform, not for scripts: a UTF-8 BOM so
// that Excel opens it as UTF-8, headers and claim names in the ticket's
// language, times as the bill shows them, and the bill files by their base
// name (the name the platform gave the export), never a local path. Being
// a document people read and add up, its amounts are at the minor unit,
// as the ticket prints them (not the exact decimals of --format csv).

// WriteAttachment writes the refund attachment CSV in lang ("zh" or "en"):
// one row per claim.
func (r *RefundsReport) WriteAttachment(w io.Writer, lang string, loc *time.Location) error {
	if loc == nil {
		loc = time.Local
	}
	if _, err := io.WriteString(w, "\uFEFF"); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	head := []string{tr(lang, "refund.col.platform"), tr(lang, "refund.col.account"), tr(lang, "refund.col.claim"),
		tr(lang, "refund.col.resource"), pick(lang, "开始", "Start"), pick(lang, "结束", "End"), tr(lang, "col.currency"),
		tr(lang, "refund.col.amount"), pick(lang, "账单行", "Bill rows"), pick(lang, "平台单号", "Platform ids"), tr(lang, "refund.fingerprint")}
	if err := cw.Write(head); err != nil {
		return err
	}
	for i := range r.Platforms {
		p := &r.Platforms[i]
		for j := range p.Claims {
			c := &p.Claims[j]
			row := []string{providerName(p.Provider, lang), c.Account, claimTitle(lang, c.RuleID), c.ResourceID,
				instHumanTime(c.PeriodStart, loc), instHumanTime(c.PeriodEnd, loc), c.Currency,
				RoundMoney(c.Amount, c.Currency).StringFixed(MinorUnitPlaces(c.Currency)), ticketRows(c, lang), idsText(c, lang), c.Fingerprint}
			for k := range row {
				if k != 7 {
					row[k] = xlsxcell.Neutralise(row[k])
				}
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

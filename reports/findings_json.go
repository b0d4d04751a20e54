package reports

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A finding's JSON, appended by hand: byte for byte what jsonObject.array
// wrote of it through json.Encoder (no HTML escaping, indented at the depth
// of an element of the findings array; the test holds the two together). Through the encoder, the
// findings of a million-item month (146 MB, a million evidence entries)
// took 0.7 s of CPU: reflection over every field, then a second pass that
// indents the whole text. Here each string is looked at once, and an
// evidence entry's file, the same for most of a finding's entries, is
// quoted once.

// The indentation of a finding's members, of its evidence entries and of
// their members, as jsonObject.array's prefix "    " and the encoder's
// indent "  " make it.
const (
	findingMemberIndent  = "\n      "
	evidenceIndent       = "\n        "
	evidenceMemberIndent = "\n          "
)

// findingJSONWriter appends findings' JSON, keeping the quoted text of the
// last evidence file.
type findingJSONWriter struct {
	opts       WriteOptions
	file       string
	fileQuoted []byte
	fallback   bytes.Buffer // for strings the encoder escapes
	enc        *json.Encoder
}

func newFindingJSONWriter(opts WriteOptions) *findingJSONWriter {
	w := &findingJSONWriter{opts: opts}
	w.enc = json.NewEncoder(&w.fallback)
	w.enc.SetEscapeHTML(false)
	return w
}

// appendFinding appends e's JSON object (findingJSON) to b.
func (w *findingJSONWriter) appendFinding(b []byte, e *FindingEntry) []byte {
	b = append(b, '{')
	b = w.member(b, "fingerprint", e.Fingerprint, false)
	b = w.member(b, "rule_id", e.RuleID, true)
	b = w.member(b, "severity", e.Severity, true)
	b = w.member(b, "provider", e.Provider, true)
	b = w.member(b, "resource_id", e.ResourceID, true)
	b = w.member(b, "period_start", formatRFC3339(e.PeriodStart, w.opts.TZ), true)
	b = w.member(b, "period_end", formatRFC3339(e.PeriodEnd, w.opts.TZ), true)
	if m := jsonMoney(e.AmountAtRisk); m != nil {
		b = w.member(b, "amount_at_risk", *m, true)
	} else {
		b = append(b, ","+findingMemberIndent+`"amount_at_risk": null`...)
	}
	b = w.member(b, "currency", e.Currency, true)
	b = w.member(b, "reason_zh", e.ReasonZH, true)
	b = w.member(b, "reason_en", e.ReasonEN, true)
	b = w.member(b, "advice_zh", e.AdviceZH, true)
	b = w.member(b, "advice_en", e.AdviceEN, true)
	b = append(b, ","+findingMemberIndent+`"evidence": `...)
	if len(e.Evidence) == 0 {
		b = append(b, "[]"...)
	} else {
		b = append(b, '[')
		for i, ev := range e.Evidence {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, evidenceIndent+"{"+evidenceMemberIndent+`"file": `...)
			if ev.File != w.file || w.fileQuoted == nil {
				w.file, w.fileQuoted = ev.File, w.appendString(w.fileQuoted[:0], ev.File)
			}
			b = append(b, w.fileQuoted...)
			b = append(b, ","+evidenceMemberIndent+`"row": `...)
			b = strconv.AppendInt(b, int64(ev.Row), 10)
			b = append(b, ","+evidenceMemberIndent+`"line_item_id": `...)
			b = strconv.AppendInt(b, ev.LineItemID, 10)
			b = append(b, evidenceIndent+"}"...)
		}
		b = append(b, findingMemberIndent+"]"...)
	}
	b = w.member(b, "state", e.State, true)
	return append(b, "\n    }"...)
}

// member appends "name": value (a string) on a line of its own among the
// finding's members, after a comma unless it is the first.
func (w *findingJSONWriter) member(b []byte, name, value string, comma bool) []byte {
	if comma {
		b = append(b, ',')
	}
	b = append(b, findingMemberIndent...)
	b = append(b, '"')
	b = append(b, name...)
	b = append(b, `": `...)
	return w.appendString(b, value)
}

// appendString appends s quoted as the encoder quotes it: as it is where
// the encoder changes nothing in it (most text, Chinese included), else
// through the encoder.
func (w *findingJSONWriter) appendString(b []byte, s string) []byte {
	if jsonPlainText(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	w.fallback.Reset()
	_ = w.enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(w.fallback.Bytes(), []byte("\n"))...)
}

// jsonPlainText reports whether the encoder, without HTML escaping, writes
// s unchanged between quotes: valid UTF-8 without control characters, '"',
// '\\' or U+2028/U+2029.
func jsonPlainText(s string) bool {
	ascii := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c == '"', c == '\\':
			return false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return ascii || (utf8.ValidString(s) && !strings.Contains(s, "\u2028") && !strings.Contains(s, "\u2029"))
}

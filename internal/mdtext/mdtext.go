package mdtext

import "strings"

// OneLine makes bill text safe for a single table or TSV cell: tabs, line
// breaks and other control characters become spaces.
func OneLine(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, s)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' }

// cellEscaper escapes what would break a markdown table cell or be read as markup.
var cellEscaper = strings.NewReplacer("|", `\|`, "\\", `\\`, "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`)

// Cell is s on one line, escaped for a markdown table cell.
func Cell(s string) string { return cellEscaper.Replace(OneLine(s)) }

// Inline escapes bill-derived text for a line of markdown: everything Cell
// escapes, plus entities (&), strikethrough (~) and, at the start, what
// would begin a heading, a list or a block quote.
func Inline(s string) string {
	s = strings.ReplaceAll(s, "&", "&amp;")
	s = strings.ReplaceAll(Cell(s), "~", `\~`)
	if s == "" {
		return s
	}
	switch s[0] {
	case '#', '-', '+', '=':
		return `\` + s
	}
	// "1. " or "1) " would start an ordered list.
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') {
		return s[:i] + `\` + s[i:]
	}
	return s
}

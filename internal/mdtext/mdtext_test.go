package mdtext

import "testing"

func TestOneLine(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "训练 a", "训练 a"},
		{"tab and newline", "a\tb\r\nc", "a b  c"},
		{"line separator", "a\u2028b", "a b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := OneLine(tc.in); got != tc.want {
				t.Errorf("got %q want %q", got, tc.want)
			}
		})
	}
}

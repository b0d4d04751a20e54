package reports

import (
	"strings"
	"testing"
)

// Two lists of texts make the same key only when they are the same list.
func TestAppendKeyTextTellsListsApart(t *testing.T) {
	key := func(texts ...string) string {
		var b []byte
		for _, s := range texts {
			b = appendKeyText(b, []byte(s))
		}
		return string(b)
	}
	lists := [][]string{
		{"ab", "c"}, {"a", "bc"}, {"abc"}, {"abc", ""}, {"", "abc"}, {"a\x1f", "b"}, {"a", "\x1fb"},
		{strings.Repeat("x", 200), "y"}, {strings.Repeat("x", 199), "xy"}, {}, {""},
	}
	seen := map[string]int{}
	for i, l := range lists {
		k := key(l...)
		if j, dup := seen[k]; dup {
			t.Errorf("lists %q and %q make the same key", lists[j], l)
		}
		seen[k] = i
		if again := key(l...); again != k {
			t.Errorf("list %q: key %q, then %q", l, k, again)
		}
	}
}

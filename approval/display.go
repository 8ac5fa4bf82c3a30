package approval

import (
	"fmt"
	"strings"

	"github.com/gatehouse-dev/gatehouse/internal/runes"
)

// visibleText returns s with every rune that renders as nothing or changes
// how its neighbours render (the runes name normalization removes:
// controls, format characters such as bidi overrides and zero-width
// joiners, line separators, variation selectors) written as a JSON-style
// \uXXXX escape, so that the user sees every character of what they sign
// for: "report_\u202etxt.exe" cannot display as "report_exe.txt".
// keepLayout keeps '\n' and '\t'. Invalid UTF-8 (decoded as U+FFFD, which
// is hidden) becomes \ufffd.
func visibleText(s string, keepLayout bool) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return hidden(r, keepLayout) }) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		if !hidden(r, keepLayout) {
			b.WriteRune(r)
			continue
		}
		if r > 0xffff { // as JSON writes it: a surrogate pair
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

func hidden(r rune, keepLayout bool) bool {
	if keepLayout && (r == '\n' || r == '\t') {
		return false
	}
	return runes.Invisible(r)
}

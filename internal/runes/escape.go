package runes

import (
	"fmt"
	"strings"
)

// Escape returns s with every invisible rune (see Invisible) written as
// \uXXXX (\UXXXXXXXX beyond the BMP), so that a text shown to a human
// shows what it holds.
func Escape(s string) string {
	if !strings.ContainsFunc(s, Invisible) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !Invisible(r):
			b.WriteRune(r)
		case r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08X`, r)
		default:
			fmt.Fprintf(&b, `\u%04X`, r)
		}
	}
	return b.String()
}

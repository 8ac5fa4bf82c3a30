// Package glob matches names against patterns in which '*' matches any run
// of characters (none included) and every other character matches itself:
// ACP tool and server patterns (policy) and scope argument patterns
// (scope) share it, so the two read a pattern the same way.
//
// # Security
//
// Match runs in O(len(pattern) * len(s)) at worst (one remembered star, no
// backtracking blow-up); both inputs are compared rune by rune, invalid
// UTF-8 byte by byte as U+FFFD.
//
// # Concurrency
//
// Match is a pure function.
package glob

import "unicode/utf8"

// Match reports whether s matches pattern.
func Match(pattern, s string) bool {
	px, sx, starP, starS := 0, 0, -1, -1
	for sx < len(s) {
		if px < len(pattern) && pattern[px] == '*' {
			starP, starS = px, sx
			px++
			continue
		}
		if px < len(pattern) {
			pr, pw := utf8.DecodeRuneInString(pattern[px:])
			sr, sw := utf8.DecodeRuneInString(s[sx:])
			if pr == sr {
				px, sx = px+pw, sx+sw
				continue
			}
		}
		if starP < 0 {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[starS:])
		starS += w
		px, sx = starP+1, starS
	}
	for px < len(pattern) && pattern[px] == '*' {
		px++
	}
	return px == len(pattern)
}

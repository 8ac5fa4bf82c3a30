package policy

import "unicode/utf8"

// globMatch reports whether s matches pattern, where '*' matches any run of
// characters (also none) and every other character matches itself. It runs
// in O(len(pattern) * len(s)) at worst: no backtracking blow-up.
func globMatch(pattern, s string) bool {
	px, sx := 0, 0
	starP, starS := -1, -1
	for sx < len(s) {
		if px < len(pattern) {
			switch c := pattern[px]; {
			case c == '*':
				starP, starS = px, sx
				px++
				continue
			default:
				pr, pw := utf8.DecodeRuneInString(pattern[px:])
				sr, sw := utf8.DecodeRuneInString(s[sx:])
				if pr == sr {
					px += pw
					sx += sw
					continue
				}
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

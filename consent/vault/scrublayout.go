package vault

import "strings"

// A value written with layout inside it is the value all the same: GNU
// base64 wraps its output at 76 columns, openssl and PEM at 64, MIME at 76
// with CRLF, YAML indents the lines of a block scalar, `xxd -p` wraps hex
// at 60 digits, fmt's "% x" and fingerprints put a space or a colon
// between the bytes, and a JSON text holds its line breaks as \n escapes.
// The reader deletes the layout and decodes. Fault: only needles written
// in one piece were found, so a tool that ran `base64` on a file holding an
// injected secret handed it to the agent with a line break inside.
//
// So after the exact search, String searches again with layout skipped:
// between two bytes of a needle the text may hold any run of layout bytes
// (space, tab, CR, LF, colon), of the escapes \n, \r and \t, and of
// quoted-printable's soft line breaks ("=" before CR or LF); the
// needle itself is compared without its own layout. Only matches that
// skip some layout count (the others the exact search replaced), and only
// needles of at least minLaid bytes without layout take part, so that
// ordinary words spaced apart are not a value.

// minLaid is the shortest needle (without layout) searched with layout.
const minLaid = 8

// layoutAt returns the length of the layout token at x[i]: 1 for a layout
// byte, 2 for a \n, \r or \t escape or a soft line break ("=" and a line
// break: quoted-printable, RFC 2045, wraps at 76 columns so), 0 for none.
func layoutAt(x string, i int) int {
	switch x[i] {
	case ' ', '\t', '\r', '\n', ':':
		return 1
	case '\\':
		if i+1 < len(x) && (x[i+1] == 'n' || x[i+1] == 'r' || x[i+1] == 't') {
			return 2
		}
	case '=':
		if i+1 < len(x) && (x[i+1] == '\n' || x[i+1] == '\r') {
			return 2
		}
	}
	return 0
}

// maybeLayout reports whether x[i] is, or may be part of, a layout token
// (a backslash, or n, r or t after one, counts), for bounds that must hold
// at least so many bytes that are not layout.
func maybeLayout(x string, i int) bool {
	switch c := x[i]; c {
	case ' ', '\t', '\r', '\n', ':', '\\', '=':
		return true
	case 'n', 'r', 't':
		return i > 0 && x[i-1] == '\\'
	}
	return false
}

// hasLayout reports whether x holds a layout token.
func hasLayout(x string) bool {
	for i := 0; i < len(x); i++ {
		if layoutAt(x, i) > 0 {
			return true
		}
	}
	return false
}

// withoutLayout is x with its layout tokens deleted.
func withoutLayout(x string) string {
	if !hasLayout(x) {
		return x
	}
	var b strings.Builder
	for i := 0; i < len(x); {
		if n := layoutAt(x, i); n > 0 {
			i += n
			continue
		}
		b.WriteByte(x[i])
		i++
	}
	return b.String()
}

// buildLaid sets the needles searched with layout: every needle without
// its layout, at least minLaid bytes, longest first, indexed by first byte.
func (s *Scrubber) buildLaid() {
	seen := map[string]bool{}
	for _, p := range s.needles { // longest first already; stays so below
		c := withoutLayout(p.needle)
		if len(c) < minLaid || seen[c] {
			continue
		}
		seen[c] = true
		s.laid = append(s.laid, pair{c, p.repl})
	}
	// Deleting layout can shorten a needle past a shorter one: sort again.
	sortPairs(s.laid)
	for i, p := range s.laid {
		s.laidFirst[p.needle[0]] = append(s.laidFirst[p.needle[0]], i)
		s.laidPair[p.needle[0]][p.needle[1]>>6] |= 1 << (p.needle[1] & 63)
		s.laidStart[p.needle[0]>>6] |= 1 << (p.needle[0] & 63)
	}
}

// matchLaid returns the end of needle n matched at x[i:] with layout
// skipped between its bytes, and whether any was skipped; end < 0 when n
// does not match there.
func matchLaid(x string, i int, n string) (end int, skipped bool) {
	j := i
	for k := 0; k < len(n); k++ {
		if k > 0 {
			for j < len(x) {
				l := layoutAt(x, j)
				if l == 0 {
					break
				}
				j += l
				skipped = true
			}
		}
		if j >= len(x) || x[j] != n[k] {
			return -1, false
		}
		j++
	}
	return j, skipped
}

// matchOpen returns how many bytes of needle n x[i:] holds, with layout
// skipped between and after them, when x ends before n does; 0 when n
// does not start at x[i], or is there whole.
func matchOpen(x string, i int, n string) int {
	j := i
	for k := 0; k < len(n); k++ {
		if k > 0 {
			for j < len(x) {
				l := layoutAt(x, j)
				if l == 0 {
					break
				}
				j += l
			}
		}
		if j >= len(x) {
			if k < minEncoded {
				return 0
			}
			return k
		}
		if x[j] != n[k] {
			return 0
		}
		j++
	}
	return 0
}

// pairAt reports whether the byte at x[i] and the next byte that is not
// layout start some needle of laid (a filter: most positions of ordinary
// text fail it at once).
func (s *Scrubber) pairAt(x string, i int) bool {
	j := i + 1
	for j < len(x) {
		l := layoutAt(x, j)
		if l == 0 {
			break
		}
		j += l
	}
	if j >= len(x) {
		return false
	}
	d := x[j]
	return s.laidPair[x[i]][d>>6]&(1<<(d&63)) != 0
}

// scrubLaid replaces, in x, every needle written with layout inside it
// (the exact ones are already replaced), leftmost first, the longest at
// each position.
func (s *Scrubber) scrubLaid(x string) string {
	if len(s.laid) == 0 || !hasLayout(x) {
		return x
	}
	var b strings.Builder
	at := 0
	for i := 0; i < len(x); {
		c := x[i]
		if s.laidStart[c>>6]&(1<<(c&63)) == 0 {
			i++
			continue
		}
		// The next byte that is not layout must be a second byte of one
		// of c's needles (inline: this loop is every result's cost).
		j := i + 1
		for j < len(x) {
			l := layoutAt(x, j)
			if l == 0 {
				break
			}
			j += l
		}
		if j >= len(x) {
			break
		}
		if d := x[j]; s.laidPair[c][d>>6]&(1<<(d&63)) == 0 {
			i++
			continue
		}
		end := -1
		var repl string
		for _, k := range s.laidFirst[c] {
			if e, skipped := matchLaid(x, i, s.laid[k].needle); e >= 0 && skipped {
				end, repl = e, s.laid[k].repl
				break // longest first
			}
		}
		if end < 0 {
			i++
			continue
		}
		b.WriteString(x[at:i])
		b.WriteString(repl)
		at, i = end, end
	}
	if at == 0 {
		return x
	}
	b.WriteString(x[at:])
	return b.String()
}

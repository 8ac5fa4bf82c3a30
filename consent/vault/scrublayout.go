package vault

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

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
// between two bytes of a needle the text may hold any run of layout
// (layoutAt: white space, separators, escapes of white space,
// quoted-printable's soft line breaks, since red team rvf more); the
// needle itself is compared without its own layout. Only matches that are
// not the needle byte for byte count (the others the exact search
// replaced), and only needles of at least minLaid bytes without layout
// take part, so that ordinary words spaced apart are not a value.

// minLaid is the shortest needle (without layout) searched with layout.
const minLaid = 8

// Red team rvf: the layout was five ASCII bytes and three escapes, the
// bytes of the value had to be written as they are and in the needle's
// case. The same value went through with any other layout a reader
// deletes as readily (a no-break or zero-width space, U+2028, a vertical
// tab or form feed, a \u000a, \x0a, %0A or &#10; escape, a doubled \\n
// of JSON in JSON, an HTML <br>, hex bytes joined by "-", "." or ","),
// with some of its bytes escaped (\u0067, \x67, %67, &#103;, xxd -i's
// "0x67, "), with some of its letters in the other case (mixed-case hex,
// a value typed with a shifted letter), or as a number in exponent form
// (4.071839265533e12: the "." is layout). So the search with layout reads
// the text unit by unit: a unit is a byte, or an escape that writes one
// byte (escAt), compared with the needle's byte case-folded; layout is
// any of those spellings of white space, invisible characters and the
// separators above, and bytes that are not UTF-8 or U+FFFD. A match counts when it is not the needle byte for
// byte (the exact search replaced those).

// maxUnit is the longest text a needle byte may take (\u0067, &#x67;):
// bounds that count needle bytes count so many text bytes each.
const maxUnit = 6

// fold is c lower-cased (ASCII).
func fold(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// hexByte decodes the two hex digits at x[i:].
func hexByte(x string, i int) (byte, bool) {
	if i+2 > len(x) {
		return 0, false
	}
	h, ok1 := unhex(x[i])
	l, ok2 := unhex(x[i+1])
	return h<<4 | l, ok1 && ok2
}

// escAt returns the byte an escape at x[i] writes, and the escape's
// length (0 for none): \xHH, \u00HH, %HH, 0xHH, &#xHH; and &#D; to &#DDD;
// (below 256).
func escAt(x string, i int) (byte, int) {
	switch x[i] {
	case '\\':
		if i+1 >= len(x) {
			return 0, 0
		}
		switch x[i+1] {
		case 'x':
			if b, ok := hexByte(x, i+2); ok {
				return b, 4
			}
		case 'u':
			if i+6 <= len(x) && x[i+2] == '0' && x[i+3] == '0' {
				if b, ok := hexByte(x, i+4); ok {
					return b, 6
				}
			}
		}
	case '%':
		if b, ok := hexByte(x, i+1); ok {
			return b, 3
		}
	case '0':
		if i+1 < len(x) && (x[i+1] == 'x' || x[i+1] == 'X') {
			if b, ok := hexByte(x, i+2); ok {
				return b, 4
			}
		}
	case '&':
		if i+1 >= len(x) || x[i+1] != '#' {
			return 0, 0
		}
		if i+2 < len(x) && (x[i+2] == 'x' || x[i+2] == 'X') {
			if b, ok := hexByte(x, i+3); ok && i+5 < len(x) && x[i+5] == ';' {
				return b, 6
			}
			return 0, 0
		}
		v := 0
		for j := i + 2; j < len(x) && j < i+6; j++ {
			c := x[j]
			if c == ';' && j > i+2 && v < 256 {
				return byte(v), j + 1 - i
			}
			if c < '0' || c > '9' {
				break
			}
			v = v*10 + int(c-'0')
		}
	}
	return 0, 0
}

// layoutAt returns the length of the layout token at x[i], 0 for none:
// an ASCII white space byte, NUL, or a separator (: , . -); white space or
// an invisible character beyond ASCII (U+00A0, U+2028, U+200B, U+FEFF,
// soft hyphen...); an escape of a white space byte (\n, \\n, \x0a,
// \u000a, %0A, &#10;, \u2028); a quoted-printable soft line break ("="
// and a line break: RFC 2045 wraps at 76 columns so); an HTML <br>, <br/>
// or <br />, or &nbsp;.
func layoutAt(x string, i int) int {
	switch c := x[i]; c {
	case ' ', '\t', '\r', '\n', '\v', '\f', 0, ':', ',', '.', '-':
		return 1
	case '\\':
		j := i + 1
		for j < len(x) && j < i+4 && x[j] == '\\' {
			j++ // \\n: a JSON text inside a JSON string
		}
		if j < len(x) && (x[j] == 'n' || x[j] == 'r' || x[j] == 't') {
			return j + 1 - i
		}
		if i+6 <= len(x) && x[i+1] == 'u' && (strings.EqualFold(x[i+2:i+6], "2028") || strings.EqualFold(x[i+2:i+6], "2029") ||
			strings.EqualFold(x[i+2:i+6], "200b") || strings.EqualFold(x[i+2:i+6], "feff")) {
			return 6
		}
		return escLayout(x, i)
	case '%', '&':
		if c == '&' && i+6 <= len(x) && strings.EqualFold(x[i:i+6], "&nbsp;") {
			return 6
		}
		return escLayout(x, i)
	case '=':
		if i+1 < len(x) && (x[i+1] == '\n' || x[i+1] == '\r') {
			return 2
		}
	case '<':
		for _, br := range [...]string{"<br>", "<br/>", "<br />"} {
			if i+len(br) <= len(x) && strings.EqualFold(x[i:i+len(br)], br) {
				return len(br)
			}
		}
	default:
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(x[i:])
			// A byte that is not UTF-8, and U+FFFD, which JSON writes it as:
			// a multi-byte layout character cut by a content item boundary
			// or a chunk reaches the reader so.
			if unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
				return n // U+00A0, U+2028, U+3000; U+00AD, U+200B, U+FEFF
			}
		}
	}
	return 0
}

// escLayout is the length of an escape at x[i] that writes white space.
func escLayout(x string, i int) int {
	b, n := escAt(x, i)
	switch b {
	case ' ', '\t', '\r', '\n', '\v', '\f', 0, 0xa0:
		return n
	}
	return 0
}

// maybeLayout reports whether x[i] is, or may be part of, a layout token,
// for bounds that must hold at least so many bytes that are not layout.
func maybeLayout(x string, i int) bool {
	for j := max(i-maxUnit, 0); j <= i; j++ {
		if l := layoutAt(x, j); l > 0 && j+l > i {
			return true
		}
	}
	return false
}

// unitAt returns the length of the unit at x[j] that writes needle byte
// n[k], case-folded, and whether it wrote it other than byte for byte; 0
// when it does not. Where both the byte and an escape starting with it
// write n[k] (0x30 for a "0"), the byte is taken when the unit after it
// writes n[k+1], else the escape (one unit of look-ahead, no search).
func unitAt(x string, j int, n string, k int) (int, bool) {
	c := n[k]
	raw := 0
	if fold(x[j]) == fold(c) {
		raw = 1
	}
	if b, l := escAt(x, j); l > 0 && fold(b) == fold(c) {
		if raw == 0 || k+1 == len(n) {
			return l, true
		}
		if e := skipLayout(x, j+1); e < len(x) {
			if b2, l2 := escAt(x, e); fold(x[e]) != fold(n[k+1]) && (l2 == 0 || fold(b2) != fold(n[k+1])) {
				return l, true // the byte leads nowhere
			}
		}
	}
	if raw == 0 {
		return 0, false
	}
	return 1, x[j] != c
}

// unitByte returns the byte the unit at x[j] writes, case-folded: an
// escape's, or x[j].
func unitByte(x string, j int) byte {
	if b, n := escAt(x, j); n > 0 {
		return fold(b)
	}
	return fold(x[j])
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
// its layout, at least minLaid bytes, longest first, indexed by first
// byte, case-folded (one of two needles that differ in case alone).
func (s *Scrubber) buildLaid() {
	seen := map[string]bool{}
	for _, p := range s.needles { // longest first already; stays so below
		c := withoutLayout(p.needle)
		// The separators count toward minLaid: a value "zz-pin-99" is
		// searched as "zzpin99" as it was before they were layout.
		if f := strings.ToLower(c); len(c)+separators(p.needle) < minLaid || len(c) < minEncoded || seen[f] {
			continue
		} else {
			seen[f] = true
		}
		s.laid = append(s.laid, pair{c, p.repl})
	}
	// Deleting layout can shorten a needle past a shorter one: sort again.
	sortPairs(s.laid)
	for i, p := range s.laid {
		a, b := fold(p.needle[0]), fold(p.needle[1])
		s.laidFirst[a] = append(s.laidFirst[a], i)
		s.laidPair[a][b>>6] |= 1 << (b & 63)
		s.laidStart[a>>6] |= 1 << (a & 63)
		s.laidRaw[p.needle[0]], s.laidRaw[a], s.laidRaw[strings.ToUpper(string(a))[0]] = true, true, true
	}
}

// separators counts the bytes , . and - in x.
func separators(x string) int {
	n := 0
	for i := 0; i < len(x); i++ {
		switch x[i] {
		case ',', '.', '-':
			n++
		}
	}
	return n
}

// skipLayout returns the index of the first byte at or after j that does
// not start a layout token.
func skipLayout(x string, j int) int {
	for j < len(x) && layoutStart[x[j]] {
		l := layoutAt(x, j)
		if l == 0 {
			break
		}
		j += l
	}
	return j
}

// layoutStart is the set of bytes a layout token may start with.
var layoutStart = func() (t [256]bool) {
	for _, c := range []byte(" \t\r\n\v\f\x00:,.-\\%&=<") {
		t[c] = true
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = true
	}
	return t
}()

// matchLaid returns the end of needle n matched at x[i:] unit by unit,
// with layout skipped between its bytes, and whether the match is other
// than n byte for byte; end < 0 when n does not match there.
func matchLaid(x string, i int, n string) (end int, inexact bool) {
	j := i
	for k := 0; k < len(n); k++ {
		if k > 0 {
			if e := skipLayout(x, j); e > j {
				j, inexact = e, true
			}
		}
		if j >= len(x) {
			return -1, false
		}
		u, other := unitAt(x, j, n, k)
		if u == 0 {
			return -1, false
		}
		j += u
		inexact = inexact || other
	}
	return j, inexact
}

// matchOpen returns how many bytes of needle n x[i:] holds, unit by unit,
// with layout skipped between and after them, when x ends before n does;
// 0 when n does not start at x[i], or is there whole.
func matchOpen(x string, i int, n string) int {
	j := i
	for k := 0; k < len(n); k++ {
		if k > 0 {
			j = skipLayout(x, j)
		}
		if j >= len(x) {
			if k < minEncoded {
				return 0
			}
			return k
		}
		u, _ := unitAt(x, j, n, k)
		if u == 0 {
			return 0
		}
		j += u
	}
	return 0
}

// escapeStart is the set of bytes escAt decodes from.
var escapeStart = [256]bool{'\\': true, '%': true, '0': true, '&': true}

// startAt returns the first byte (folded) of the needles that may start
// at x[i] and the index of the unit after, for each reading of x[i]: the
// byte itself, and an escape that starts there; n is how many (0 to 2).
func startAt(x string, i int) (c [2]byte, next [2]int, n int) {
	c[0], next[0], n = fold(x[i]), i+1, 1
	switch x[i] {
	case '\\', '%', '0', '&':
		if b, l := escAt(x, i); l > 0 {
			c[1], next[1], n = fold(b), i+l, 2
		}
	}
	return c, next, n
}

// candidate reports whether some needle of laid may start at x[i]: its
// first byte and the next unit that is not layout are a needle's first
// two (a filter: most positions of ordinary text fail it at once).
func (s *Scrubber) candidate(x string, i int) bool {
	if a := fold(x[i]); s.laidStart[a>>6]&(1<<(a&63)) != 0 && s.pairNext(x, a, i+1) {
		return true
	}
	if escapeStart[x[i]] {
		if b, l := escAt(x, i); l > 0 {
			a := fold(b)
			return s.laidStart[a>>6]&(1<<(a&63)) != 0 && s.pairNext(x, a, i+l)
		}
	}
	return false
}

// pairNext reports whether the next unit at or after x[j] that is not
// layout is a second byte of a needle whose first is a.
func (s *Scrubber) pairNext(x string, a byte, j int) bool {
	j = skipLayout(x, j)
	if j >= len(x) {
		return false
	}
	if d := fold(x[j]); s.laidPair[a][d>>6]&(1<<(d&63)) != 0 {
		return true
	}
	if escapeStart[x[j]] {
		if b, l := escAt(x, j); l > 0 {
			d := fold(b)
			return s.laidPair[a][d>>6]&(1<<(d&63)) != 0
		}
	}
	return false
}

// laidAt returns the end of the longest needle of laid matched at x[i]
// other than byte for byte, and its marker; end < 0 when none.
func (s *Scrubber) laidAt(x string, i int) (int, string) {
	if !s.candidate(x, i) {
		return -1, ""
	}
	c, _, n := startAt(x, i)
	end, repl, got := -1, "", -1
	for r := 0; r < n; r++ {
		if r == 1 && c[1] == c[0] {
			continue
		}
		for _, k := range s.laidFirst[c[r]] {
			if e, inexact := matchLaid(x, i, s.laid[k].needle); e >= 0 && inexact {
				if l := len(s.laid[k].needle); l > got {
					end, repl, got = e, s.laid[k].repl, l
				}
				break // longest first
			}
		}
	}
	return end, repl
}

// scrubLaid replaces, in x, every needle written other than byte for byte
// (with layout inside it, in another case, with escaped bytes; the exact
// ones are already replaced), leftmost first, the longest at each
// position.
func (s *Scrubber) scrubLaid(x string) string {
	if len(s.laid) == 0 {
		return x
	}
	var b strings.Builder
	at := 0
	for i := 0; i < len(x); {
		// Inline first filter: this loop is every result's cost.
		if c := x[i]; !s.laidRaw[c] {
			if !escapeStart[c] {
				i++
				continue
			}
			if _, l := escAt(x, i); l == 0 {
				i++
				continue
			}
		}
		end, repl := s.laidAt(x, i)
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

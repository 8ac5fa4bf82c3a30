package mcpredact

import (
	"slices"
	"strings"
)

// A URL writes its bytes percent-encoded by definition (RFC 3986): a tool
// that links to what it found ("https://host/?q=" + url.QueryEscape(out)),
// a resource's URI, an elicitation's URL put the secret's "=", newlines and
// "/" as %3D, %0A and %2F, and the text rules, which read the text as
// written, see no password assignment and no PEM block in them. So every
// URL of a string (a token with a scheme and "://", or a whole string that
// starts with a scheme and a colon: data:, mailto:, urn:) that holds a %XX
// is also read decoded, whether or not the scanner's detect_encoding is
// on: that option is about encodings a text may hide a secret in, while
// a URL has no other spelling. A secret found decoded is redacted where
// its bytes are in the URL as written; one only a reading of the decoded
// text's shape finds (a JSON document in a query parameter) takes the URL
// with it.

// maxURLDepth is how many times a URL found in a decoded URL is decoded
// again ("%2525..." decodes to "%25..." at each level): twice encoded is
// common, and each level costs a scan of what is left.
const maxURLDepth = 4

// hasEncodedURL reports whether s may hold a URL with a %XX: the cheap
// test, one pass of IndexByte for the common string with no '%'.
func hasEncodedURL(s string) bool {
	i := strings.IndexByte(s, '%')
	return i >= 0 && strings.IndexByte(s, ':') >= 0
}

// uris returns s with the secrets its URLs hide percent-encoded redacted.
func (w *walker) uris(s string) string {
	if w.urlDepth >= maxURLDepth || !hasEncodedURL(s) {
		return s
	}
	var b strings.Builder
	last := 0
	for _, t := range urlTokens(s) {
		red, changed := w.uri(s[t[0]:t[1]])
		if !changed {
			continue
		}
		b.WriteString(s[last:t[0]])
		b.WriteString(red)
		last = t[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// urlTokens returns the [start, end) of each URL of s that holds a %XX.
func urlTokens(s string) [][2]int {
	var out [][2]int
	if a := schemeLen(s); a > 0 && a < len(s) && s[a] == ':' {
		e := urlEnd(s, a)
		if hasPercent(s[:e]) {
			out = append(out, [2]int{0, e})
		}
		if e == len(s) {
			return out
		}
	}
	for from := 0; ; {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			return out
		}
		i += from
		a := i
		for a > 0 && schemeByte(s[a-1]) {
			a--
		}
		for a < i && !isLetter(s[a]) { // a scheme starts with a letter
			a++
		}
		e := urlEnd(s, i+3)
		if a < i && (len(out) == 0 || a >= out[len(out)-1][1]) && hasPercent(s[a:e]) {
			out = append(out, [2]int{a, e})
		}
		from = max(e, i+3)
	}
}

// schemeLen is the length of the scheme s starts with, or 0.
func schemeLen(s string) int {
	if s == "" || !isLetter(s[0]) {
		return 0
	}
	n := 1
	for n < len(s) && n <= 32 && schemeByte(s[n]) {
		n++
	}
	return n
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func schemeByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'
}

// urlEnd is where the URL that runs on at i ends: at a byte a URL cannot
// hold as written (white space, controls, quotes, angle brackets).
func urlEnd(s string, i int) int {
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ' || c == 0x7f || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`' || c == '\\':
			return i
		}
	}
	return i
}

func hasPercent(s string) bool {
	for i := strings.IndexByte(s, '%'); i >= 0 && i+2 < len(s); {
		if hexDigit(s[i+1]) && hexDigit(s[i+2]) {
			return true
		}
		j := strings.IndexByte(s[i+1:], '%')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

func hexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

// decodeURL decodes every %XX of u, and "+" as a space after its "?" (form
// encoding), and returns at: the offset in u of each decoded byte, and of
// the end.
func decodeURL(u string) (dec string, at []int) {
	b := make([]byte, 0, len(u))
	at = make([]int, 0, len(u)+1)
	query := false
	for i := 0; i < len(u); i++ {
		c := u[i]
		at = append(at, i)
		switch {
		case c == '%' && i+2 < len(u) && hexDigit(u[i+1]) && hexDigit(u[i+2]):
			b = append(b, unhex(u[i+1])<<4|unhex(u[i+2]))
			i += 2
			continue
		case c == '?':
			query = true
		case c == '+' && query:
			c = ' '
		}
		b = append(b, c)
	}
	return string(b), append(at, len(u))
}

// uri redacts one URL: the secrets its decoded text holds are cut out of
// it as written.
func (w *walker) uri(u string) (string, bool) {
	dec, at := decodeURL(u)
	_, f := w.s.Redact(dec)
	if len(f) == 0 {
		// What only a reading of the decoded text's shape finds (a JSON
		// document in a parameter) has no range: the URL goes with it.
		sub := &walker{s: w.s, urlDepth: w.urlDepth + 1}
		sub.walk(dec)
		if !sub.changed {
			return u, false
		}
		w.add(sub.findings)
		w.changed = true
		return "[REDACTED:" + sub.findings[0].Rule + "]", true
	}
	w.add(f)
	w.changed = true
	type cut struct {
		a, b int
		rule string
	}
	var cuts []cut
	for _, fd := range f {
		if fd.Count > len(fd.Ranges) {
			return "[REDACTED:" + f[0].Rule + "]", true // ranges past MaxRanges: the URL goes whole
		}
		for _, r := range fd.Ranges {
			cuts = append(cuts, cut{at[r.Start], at[r.End], fd.Rule})
		}
	}
	slices.SortFunc(cuts, func(x, y cut) int { return x.a - y.a })
	var b strings.Builder
	last := 0
	for _, c := range cuts {
		if c.a < last { // overlapping spans: one marker
			last = max(last, c.b)
			continue
		}
		b.WriteString(u[last:c.a])
		b.WriteString("[REDACTED:" + c.rule + "]")
		last = c.b
	}
	b.WriteString(u[last:])
	return b.String(), true
}

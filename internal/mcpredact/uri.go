package mcpredact

import (
	"slices"
	"strings"
	"unicode/utf8"
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
	return strings.IndexByte(s, '%') >= 0
}

// uris returns s with the secrets its URLs hide percent-encoded redacted.
func (w *walker) uris(s string) string {
	if w.urlDepth >= maxURLDepth || !hasEncodedURL(s) {
		return s
	}
	var b strings.Builder
	last := 0
	ts := urlTokens(s)
	for _, t := range ts {
		red, changed := w.uri(s[t[0]:t[1]])
		if !changed {
			continue
		}
		b.WriteString(s[last:t[0]])
		b.WriteString(red)
		last = t[1]
	}
	if last != 0 {
		b.WriteString(s[last:])
		s = b.String()
	}
	if len(ts) == 0 {
		return s
	}
	// The text read decoded whole: a secret whose runs white space or a
	// line break splits ("password %3D Hunter2...", a PEM block whose
	// header is written -----BEGIN%20RSA...) is in no run alone (red team
	// rvg). It costs a text with a %XX a second scan of the rules.
	out := []string{s}
	w.joinEncoded(out)
	return out[0]
}

// urlTokens returns the [start, end) of each run of s between white space
// that holds a %XX or a %uXXXX. A URL is read wherever it is, however it is written:
// found by its "://" or a scheme at the string's start, a link in prose
// (see mailto:...?body=..., data:...), a path alone (GET /cb?q=... HTTP/1.1),
// one without a scheme (x.example/?q=...), after a quote, a < or a
// backslash written in it, sent its secret (red team rve). White space
// ends a URL: a URL writes it encoded.
func urlTokens(s string) [][2]int {
	var out [][2]int
	for from := 0; from < len(s); {
		i := strings.IndexByte(s[from:], '%')
		if i < 0 {
			break
		}
		i += from
		if (i+2 >= len(s) || !hexDigit(s[i+1]) || !hexDigit(s[i+2])) && !wideEscape(s[i:]) {
			from = i + 1
			continue
		}
		a := i
		for a > from && !urlSpace(s[a-1]) {
			a--
		}
		e := urlEnd(s, i)
		out = append(out, [2]int{a, e})
		from = e
	}
	return out
}

// urlSpace reports whether c ends a URL written in a text: white space
// and controls, which a URL writes encoded.
func urlSpace(c byte) bool { return c <= ' ' || c == 0x7f }

// urlEnd is where the URL that runs on at i ends.
func urlEnd(s string, i int) int {
	for ; i < len(s) && !urlSpace(s[i]); i++ {
	}
	return i
}

// wideEscape reports whether s starts with %uXXXX.
func wideEscape(s string) bool {
	return len(s) >= 6 && s[1]|0x20 == 'u' && hexDigit(s[2]) && hexDigit(s[3]) && hexDigit(s[4]) && hexDigit(s[5])
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
		case c == '%' && wideEscape(u[i:]):
			// %uXXXX (JavaScript's escape, IIS): one code point.
			r := rune(0)
			for _, h := range []byte(u[i+2 : i+6]) {
				r = r<<4 | rune(unhex(h))
			}
			n := len(b)
			b = utf8.AppendRune(b, r)
			for range len(b) - n - 1 {
				at = append(at, i)
			}
			i += 5
			continue
		case c == '?':
			query = true
		case urlSpace(c):
			query = false
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
		base := w.assignValues
		sub := w.sub()
		sub.walk(dec)
		w.assignValues = sub.assignValues
		if !sub.changed {
			return w.params(u, base)
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

// sub returns a walker for a URL's decoded text: one level deeper, with
// the options and what is left of the budget of values read under their
// names (maxAssignValues), which the caller takes back: with a budget of
// its own each, URLs of 2,000 values each were read without end (red
// team rve).
func (w *walker) sub() *walker {
	return &walker{s: w.s, o: w.o, urlDepth: w.urlDepth + 1, assignValues: w.assignValues}
}

// params reads each parameter's value of u (after ?, &, ; or #) decoded
// as a text of its own: an assignment in a value (?q=password%3Dcorrect
// %20horse%20battery%20staple) is a line only alone, and the decoded URL
// read whole had it after "q=" (red team rve). A value in which something
// is redacted is cut out as written.
//
// The values are those the URL read whole had read (from base on, the
// budget before it): counted once, read twice at most.
func (w *walker) params(u string, base int) (string, bool) {
	whole := w.assignValues
	w.assignValues = base
	defer func() { w.assignValues = max(w.assignValues, whole) }()
	var b strings.Builder
	last := 0
	for i := 0; i < len(u); {
		j := strings.IndexAny(u[i:], "?&;#")
		if j < 0 {
			break
		}
		a := i + j + 1
		e := a + strings.IndexAny(u[a:]+"&", "&;#")
		if eq := strings.IndexByte(u[a:e], '='); eq >= 0 && strings.ContainsAny(u[a+eq:e], "%+") {
			v := u[a+eq+1 : e]
			dec, _ := decodeURL("?" + v)
			sub := w.sub()
			sub.walk(dec[1:])
			w.assignValues = sub.assignValues
			if sub.changed {
				w.add(sub.findings)
				w.changed = true
				b.WriteString(u[last : a+eq+1])
				b.WriteString("[REDACTED:" + sub.findings[0].Rule + "]")
				last = e
			}
		}
		i = e
	}
	if last == 0 {
		return u, false
	}
	b.WriteString(u[last:])
	return b.String(), true
}

// joinEncoded reads the texts of one content array (out, redacted joined:
// joinTexts) percent-decoded and joined, so that a URL's secret split
// across items ("https://x/?q=password%3D", "Hunter2...") is found as the
// split one written plainly is (red team rve); each text loses its share
// as written. Past the ranges a finding holds, every text is withheld.
func (w *walker) joinEncoded(out []string) {
	n := 0
	for _, t := range out {
		if hasEncodedURL(t) && len(urlTokens(t)) > 0 {
			n++
		}
	}
	if n == 0 {
		return
	}
	decs := make([]string, len(out))
	ats := make([][]int, len(out))
	for i, t := range out {
		decs[i], ats[i] = decodeURL(t)
	}
	_, f := w.s.RedactParts(decs)
	if len(f) == 0 {
		return
	}
	w.add(f)
	w.changed = true
	type cut struct {
		a, b int
		rule string
	}
	cuts := make([][]cut, len(out))
	for _, fd := range f {
		if fd.Count > len(fd.Ranges) {
			// Past the ranges a finding holds: a share may be in any
			// text, one without a % too.
			for i := range out {
				out[i] = "[REDACTED:" + fd.Rule + "]"
			}
			return
		}
		for _, r := range fd.Ranges {
			base := 0
			for i, d := range decs {
				a, b := max(r.Start-base, 0), min(r.End-base, len(d))
				if a < b {
					cuts[i] = append(cuts[i], cut{ats[i][a], ats[i][b], fd.Rule})
				}
				base += len(d)
			}
		}
	}
	for i, cs := range cuts {
		if len(cs) == 0 {
			continue
		}
		slices.SortFunc(cs, func(x, y cut) int { return x.a - y.a })
		var b strings.Builder
		last := 0
		for _, c := range cs {
			if c.a < last {
				last = max(last, c.b)
				continue
			}
			b.WriteString(out[i][last:c.a])
			b.WriteString("[REDACTED:" + c.rule + "]")
			last = c.b
		}
		b.WriteString(out[i][last:])
		out[i] = b.String()
	}
}

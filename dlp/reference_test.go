package dlp_test

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// refScanner is the slow, obviously correct scanner the fast one is checked
// against: every regex over the whole text, no prefilter, no windows; the
// encoded runs are found with regular expressions and decoded with the
// standard library. It implements the documented semantics independently.
type refScanner struct {
	pats  []dlp.Pattern
	res   []*regexp.Regexp
	enc   bool
	depth int
}

type refSpan struct {
	start, end, rule int
	enc              string
}

func newRef(pats []dlp.Pattern, opts *dlp.Options) *refScanner {
	r := &refScanner{pats: pats, depth: 1}
	for _, p := range pats {
		r.res = append(r.res, regexp.MustCompile(p.Regex))
	}
	if opts != nil {
		r.enc = opts.DetectEncoding
		if opts.EncodingDepth > 0 {
			r.depth = opts.EncodingDepth
		}
	}
	return r
}

var (
	refB64Run    = regexp.MustCompile(`[A-Za-z0-9+/_-]{16,}={0,2}`)
	refHexRun    = regexp.MustCompile(`[0-9a-fA-F]{16,}`)
	refToken     = regexp.MustCompile("[^\\x00-\\x20\\x7f\"'`<>=&?,;(){}\\[\\]]+")
	refPercent   = regexp.MustCompile(`%[0-9A-Fa-f]{2}`)
	refEscape    = regexp.MustCompile(`\\(?:u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|x[0-9A-Fa-f]{2}|[nrtbfv0\\/])`)
	refPrintable = regexp.MustCompile(`[\x20-\x7e\t\n\r]{8}`)
)

func (r *refScanner) redact(text string) (string, []dlp.Finding) {
	sp := r.spans(text, r.depth)
	if len(sp) == 0 {
		return text, nil
	}
	var b strings.Builder
	last := 0
	counts := make([]dlp.Finding, len(r.pats))
	for _, s := range sp {
		b.WriteString(text[last:s.start])
		b.WriteString("[REDACTED:" + r.pats[s.rule].Name + "]")
		last = s.end
		counts[s.rule].Rule = r.pats[s.rule].Name
		counts[s.rule].Count++
		if len(counts[s.rule].Ranges) < dlp.MaxRanges {
			counts[s.rule].Ranges = append(counts[s.rule].Ranges, dlp.Range{Start: s.start, End: s.end, Encoding: s.enc})
		}
	}
	b.WriteString(text[last:])
	var fs []dlp.Finding
	for _, f := range counts {
		if f.Count > 0 {
			fs = append(fs, f)
		}
	}
	return b.String(), fs
}

// spans scans text and its normalized view (invisible runes dropped, NFKC
// per rune), mapping view matches back through a per-byte table.
func (r *refScanner) spans(text string, depth int) []refSpan {
	c := r.plainSpans(text, depth)
	var view []byte
	var from, to []int // original start and end of each view byte
	for i := 0; i < len(text); {
		ru, w := utf8.DecodeRuneInString(text[i:])
		if ru == 0x1b {
			w = refEscapeLen(text[i:])
		}
		enc := text[i : i+w]
		if refInvisible(ru) {
			i += w
			continue
		}
		if ru != utf8.RuneError {
			enc = norm.NFKC.String(enc)
		}
		for j := 0; j < len(enc); j++ {
			view = append(view, enc[j])
			from, to = append(from, i), append(to, i+w)
		}
		i += w
	}
	if string(view) != text {
		for _, s := range r.plainSpans(string(view), depth) {
			c = append(c, refSpan{from[s.start], to[s.end-1], s.rule, s.enc})
		}
	}
	return refResolve(c)
}

// Terminal escape sequences, by the byte after ESC, at most 256 bytes.
var (
	refCSI   = regexp.MustCompile(`^\x1b\[[\x20-\x3f]*[\x40-\x7e]`)
	refOSC   = regexp.MustCompile(`^\x1b\][^\x07]*?(?:\x07|\x1b\\)`)
	refOther = regexp.MustCompile(`^\x1b[\x20-\x2f]*[\x30-\x7e]`)
)

func refEscapeLen(t string) int {
	re := refOther
	switch {
	case strings.HasPrefix(t, "\x1b["):
		re = refCSI
	case strings.HasPrefix(t, "\x1b]"):
		re = refOSC
	}
	if m := re.FindString(t); m != "" && len(m) <= 256 {
		return len(m)
	}
	return 1
}

// refSettingValue is what a setting's name may hold (Pattern.Regex's
// secret0): words and numbers, hex, a UUID, a ULID, a regex, an ARN.
var refSettingValue = regexp.MustCompile(`^(?:(?:[A-Za-z][a-z]*(?:[A-Z][a-z]+)*[0-9]{0,4}|[A-Z]{1,8}[0-9]{0,4}|[0-9]{1,8}[a-z]{0,2}|[0-9a-fA-F]{4,64})` +
	`(?:[-_/+.: ](?:[A-Za-z][a-z]*(?:[A-Z][a-z]+)*[0-9]{0,4}|[A-Z]{1,8}[0-9]{0,4}|[0-9]{1,8}[a-z]{0,2}|[0-9a-fA-F]{4,64}))*` +
	`|[0-9A-HJKMNP-TV-Z]{26}|arn:[a-z0-9-]{1,16}:.*` +
	`|\^.*(?:\[[^\]]+\]|\(\?|\{[0-9]+,?[0-9]*\}|\.[*+]|\\[dwsDWSb]).*` +
	`|.*(?:\[[^\]]+\]|\(\?|\{[0-9]+,?[0-9]*\}|\.[*+]|\\[dwsDWSb]).*[^\\]\$)$`)

func refInvisible(r rune) bool {
	if r < 0x09 || r >= 0x0e && r < 0x20 || r == 0x7f {
		return true
	}
	if r >= 0x80 && r <= 0x9f || r == 0x34f || r == 0x115f || r == 0x1160 || r == 0x3164 || r == 0xffa0 {
		return true
	}
	if r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef {
		return true
	}
	return unicode.In(r, unicode.Cf)
}

func (r *refScanner) plainSpans(text string, depth int) []refSpan {
	var c []refSpan
	for i, p := range r.pats {
		if len(p.Keywords) > 0 && !containsAnyFold(text, p.Keywords) {
			continue
		}
		re := r.res[i]
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			a, b := m[0], m[1]
			setting := false
			for g, name := range re.SubexpNames() {
				if name == "secret0" && m[2*g] >= 0 && m[2*g] == m[2*g+1] {
					setting = true // a setting's name: the value is the next group
					continue
				}
				if strings.HasPrefix(name, "secret") && m[2*g] >= 0 {
					a, b = m[2*g], m[2*g+1]
					break
				}
			}
			if setting && refSettingValue.MatchString(text[a:b]) {
				continue
			}
			if a == b || (p.MinEntropy > 0 && refEntropy(text[a:b]) < p.MinEntropy) {
				continue
			}
			if p.Exclude != "" && regexp.MustCompile(p.Exclude).MatchString(text[a:b]) {
				continue
			}
			if veto := dlp.VetoOf(p.Regex); veto != nil && veto(text, m) {
				continue
			}
			c = append(c, refSpan{a, b, i, ""})
		}
	}
	if r.enc && depth > 0 {
		c = append(c, r.encodedSpans(text, depth)...)
	}
	return refResolve(c)
}

// refEncOrder orders the encodings as the scanner's encoding type does.
var refEncOrder = map[string]int{"": 0, "base64": 1, "hex": 2, "percent": 3, "escape": 4}

func refResolve(c []refSpan) []refSpan {
	// Leftmost, then longest, then earlier rule; overlapping spans merge.
	sort.Slice(c, func(i, j int) bool {
		if c[i].start != c[j].start {
			return c[i].start < c[j].start
		}
		if c[i].end != c[j].end {
			return c[i].end > c[j].end
		}
		if c[i].rule != c[j].rule {
			return c[i].rule < c[j].rule
		}
		return refEncOrder[c[i].enc] < refEncOrder[c[j].enc]
	})
	var out []refSpan
	for _, s := range c {
		if n := len(out); n > 0 && s.start < out[n-1].end {
			out[n-1].end = max(out[n-1].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

func (r *refScanner) encodedSpans(text string, depth int) []refSpan {
	var c []refSpan
	try := func(decoded string, a, b int, enc string, printable bool) {
		if printable && !refPrintable.MatchString(decoded) {
			return
		}
		if sp := r.spans(decoded, depth-1); len(sp) > 0 {
			c = append(c, refSpan{a, b, sp[0].rule, enc})
		}
	}
	for _, m := range refB64Run.FindAllStringIndex(text, -1) {
		body := strings.TrimRight(text[m[0]:m[1]], "=")
		for _, h := range refHexRun.FindAllStringIndex(body, -1) {
			digits := body[h[0]:h[1]]
			dec, err := hex.DecodeString(digits[:len(digits)&^1])
			if err != nil {
				panic(err)
			}
			try(string(dec), m[0]+h[0], m[0]+h[1], "hex", true)
		}
		std, url := strings.ContainsAny(body, "+/"), strings.ContainsAny(body, "-_")
		if std && url {
			continue
		}
		enc := base64.RawStdEncoding
		if url {
			enc = base64.RawURLEncoding
		}
		if len(body)%4 == 1 {
			body = body[:len(body)-1]
		}
		if dec, err := enc.DecodeString(body); err == nil {
			try(string(dec), m[0], m[1], "base64", true)
		}
	}
	for _, m := range refToken.FindAllStringIndex(text, -1) {
		tok := text[m[0]:m[1]]
		if refPercent.MatchString(tok) {
			dec := refPercent.ReplaceAllStringFunc(tok, func(e string) string {
				v, _ := strconv.ParseUint(e[1:], 16, 8)
				return string([]byte{byte(v)})
			})
			try(dec, m[0], m[1], "percent", false)
			if strings.Contains(tok, "+") { // form encoding: + is a space
				dec = refPercent.ReplaceAllStringFunc(strings.ReplaceAll(tok, "+", " "), func(e string) string {
					v, _ := strconv.ParseUint(e[1:], 16, 8)
					return string([]byte{byte(v)})
				})
				try(dec, m[0], m[1], "percent", false)
			}
		}
		if !strings.Contains(tok, "%") && strings.Count(tok, "+") >= 2 {
			try(strings.ReplaceAll(tok, "+", " "), m[0], m[1], "percent", false)
		}
		if refEscape.MatchString(tok) {
			try(refUnescape(tok), m[0], m[1], "escape", false)
		}
	}
	return c
}

// refUnescape decodes escapes; adjacent \u escapes forming a UTF-16
// surrogate pair become one rune, any other surrogate becomes U+FFFD.
func refUnescape(tok string) string {
	var b []byte
	last := 0
	var pendingHigh rune = -1
	locs := refEscape.FindAllStringIndex(tok, -1)
	flush := func() {
		if pendingHigh >= 0 {
			b = utf8.AppendRune(b, utf8.RuneError)
			pendingHigh = -1
		}
	}
	for _, l := range locs {
		if l[0] != last {
			flush()
			b = append(b, tok[last:l[0]]...)
		}
		e := tok[l[0]:l[1]]
		last = l[1]
		switch e[1] {
		case 'u':
			v, _ := strconv.ParseUint(e[2:], 16, 32)
			u := rune(v)
			if pendingHigh >= 0 && utf16.IsSurrogate(u) && u >= 0xDC00 {
				b = utf8.AppendRune(b, utf16.DecodeRune(pendingHigh, u))
				pendingHigh = -1
				continue
			}
			flush()
			if u >= 0xD800 && u < 0xDC00 {
				pendingHigh = u
				continue
			}
			b = utf8.AppendRune(b, u)
		case 'U', 'x':
			flush()
			v, _ := strconv.ParseUint(e[2:], 16, 32)
			b = utf8.AppendRune(b, rune(v))
		default:
			flush()
			b = append(b, map[byte]byte{'n': '\n', 'r': '\r', 't': '\t', 'b': '\b', 'f': '\f', 'v': '\v', '0': 0, '\\': '\\', '/': '/'}[e[1]])
		}
	}
	flush()
	return string(append(b, tok[last:]...))
}

func containsAnyFold(text string, kws []string) bool {
	for _, k := range kws {
		if strings.Contains(asciiLower(text), asciiLower(k)) {
			return true
		}
	}
	return false
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func refEntropy(s string) float64 {
	m := map[byte]float64{}
	for i := 0; i < len(s); i++ {
		m[s[i]]++
	}
	var h float64
	for _, n := range m {
		p := n / float64(len(s))
		h -= p * math.Log2(p)
	}
	return h
}

func fmtFindings(fs []dlp.Finding) string { return fmt.Sprintf("%+v", fs) }

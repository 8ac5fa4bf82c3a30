package dlp

import (
	"encoding/base64"
	"math/bits"
	"strings"
	"unicode/utf8"
)

// encoding says how a redacted span hid its secret.
type encoding uint8

const (
	encNone encoding = iota
	encBase64
	encHex
	encPercent
	encEscape
)

func (e encoding) String() string {
	return [...]string{"", "base64", "hex", "percent", "escape"}[e]
}

const (
	// minEncodedRun is the shortest base64 or hex run that is decoded: 16
	// characters carry 8 to 12 bytes, shorter than any credential the
	// built-in pack knows.
	minEncodedRun = 16
	// minPrintable: decoded base64 or hex is scanned only when it holds at
	// least this many consecutive printable ASCII bytes; secrets are text,
	// and random identifiers decode to binary.
	minPrintable = 8
)

var (
	b64Alphabet [256]bool  // standard and URL-safe base64 alphabets together
	b64Bit      [256]uint8 // b64Alphabet as 0 or 1
	hexDigit    [256]bool
	tokenDelim  [256]bool // delimiters of percent / escape tokens
)

func init() {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_" {
		b64Alphabet[c] = true
		b64Bit[c] = 1
	}
	for _, c := range "0123456789abcdefABCDEF" {
		hexDigit[c] = true
	}
	for c := 0; c <= 0x20; c++ {
		tokenDelim[c] = true
	}
	for _, c := range "\x7f\"'`<>=&?,;(){}[]" {
		tokenDelim[c] = true
	}
}

// encoded appends candidates for secrets hidden in encoded runs of text:
// each run is decoded, the decoded bytes are scanned with one less level of
// depth, and when they hold a secret the whole run becomes a span named after
// the leftmost secret inside (AIP §3.6 detect_encoding).
//
// Runs, as the reference scanner in the tests defines them by regex:
//   - base64: a maximal run of [A-Za-z0-9+/_-] of at least 16 bytes, plus up
//     to two "=" of padding; decoded with the URL alphabet if it holds - or _,
//     else the standard one (a run holding both alphabets is not base64);
//   - hex: a maximal run of hex digits of at least 16 bytes inside a base64
//     run, decoded from its start;
//   - percent and escape: a token (maximal run of bytes other than controls,
//     space and "'`<>=&?,;(){}[]) holding %XX, or a backslash escape
//     (\uXXXX, \UXXXXXXXX, \xXX, \n, \r, \t, \b, \f, \v, \0, \\, \/).
func (s *Scanner) encoded(cands []span, text string, depth int) []span {
	var buf []byte
	n := len(text)
	for i := 0; ; {
		a, e, ok := nextB64Run(text, i)
		if !ok {
			break
		}
		end := e
		for p := 0; p < 2 && end < n && text[end] == '='; p++ {
			end++
		}
		cands, buf = s.decodeRun(cands, buf, text, a, e, end, depth)
		i = end
	}
	if strings.IndexByte(text, '%') >= 0 || strings.IndexByte(text, '\\') >= 0 {
		cands = s.tokens(cands, text, depth)
	}
	if strings.IndexByte(text, '+') >= 0 {
		cands = s.plusTokens(cands, text, depth)
	}
	return cands
}

// nextB64Run returns the first maximal run text[a:e] of base64-alphabet
// bytes, at least minEncodedRun long, that starts at or after i, where
// text[i-1] (if any) is not in a run reaching i. It classifies 64 bytes at
// a time into a bit mask (loads that do not wait on each other) and finds
// runs with shifts: a search that stepped from window to window, each step
// waiting on the last, or walked back byte by byte, cost 0.7-0.8 ns a byte
// on Go source, as much as the rest of the scan.
func nextB64Run(text string, i int) (a, e int, ok bool) {
	n := len(text)
	run, start := 0, i // the run of alphabet bytes reaching the block: text[start:start+run]
	for base := i; base < n; base += 64 {
		m, w := alphaMask(text, base)
		first := bits.TrailingZeros64(^m) // the block's first byte outside the alphabet, or w
		if first > w {
			first = w
		}
		if run+first >= minEncodedRun {
			return start, runEnd(text, start+minEncodedRun), true
		}
		if first == w {
			run += w
			continue
		}
		// Bit k of long is set when bytes k to k+15 of the block are all in
		// the alphabet; the lowest such k past first starts a run.
		long := m & (m >> 1)
		long &= long >> 2
		long &= long >> 4
		long &= long >> 8
		long &= ^uint64(0) << (first + 1)
		if long != 0 {
			a = base + bits.TrailingZeros64(long)
			return a, runEnd(text, a+minEncodedRun), true
		}
		run = bits.LeadingZeros64(^(m << (64 - w))) // the ones ending the block
		start = base + w - run
	}
	return 0, 0, false
}

// runEnd is the end of the run of alphabet bytes going on at e.
func runEnd(text string, e int) int {
	for e < len(text) && b64Alphabet[text[e]] {
		e++
	}
	return e
}

// alphaMask has bit k set when text[base+k] is in the base64 alphabet, for
// the w = min(64, len(text)-base) bytes from base.
func alphaMask(text string, base int) (m uint64, w int) {
	w = min(64, len(text)-base)
	if w < 64 {
		for k := 0; k < w; k++ {
			m |= uint64(b64Bit[text[base+k]]) << k
		}
		return m, w
	}
	t := text[base : base+64]
	for g := 0; g < 64; g += 8 {
		b := t[g : g+8]
		_ = b[7]
		m |= uint64(b64Bit[b[0]]|b64Bit[b[1]]<<1|b64Bit[b[2]]<<2|b64Bit[b[3]]<<3|
			b64Bit[b[4]]<<4|b64Bit[b[5]]<<5|b64Bit[b[6]]<<6|b64Bit[b[7]]<<7) << g
	}
	return m, 64
}

// plusTokens handles form-encoded tokens without any %XX, where only the
// spaces were encoded, as +: a token holding at least two + is scanned with
// them read as spaces.
func (s *Scanner) plusTokens(cands []span, text string, depth int) []span {
	for pos := 0; pos < len(text); {
		i := strings.IndexByte(text[pos:], '+')
		if i < 0 {
			break
		}
		lo, hi := pos+i, pos+i+1
		for lo > pos && !tokenDelim[text[lo-1]] {
			lo--
		}
		for hi < len(text) && !tokenDelim[text[hi]] {
			hi++
		}
		tok := text[lo:hi]
		if strings.Count(tok, "+") >= 2 && strings.IndexByte(tok, '%') < 0 {
			if sp := s.spans(strings.ReplaceAll(tok, "+", " "), depth-1); len(sp) > 0 {
				cands = append(cands, span{start: lo, end: hi, rule: sp[0].rule, enc: encPercent})
			}
		}
		pos = hi
	}
	return cands
}

// decodeRun handles the base64 run text[a:e] (padding up to end) and the hex
// runs inside it.
func (s *Scanner) decodeRun(cands []span, buf []byte, text string, a, e, end, depth int) ([]span, []byte) {
	run := text[a:e]
	for h := 0; h < len(run); {
		if !hexDigit[run[h]] {
			h++
			continue
		}
		g := h
		for g < len(run) && hexDigit[run[g]] {
			g++
		}
		if g-h >= minEncodedRun {
			buf = hexDecode(buf[:0], run[h:g])
			cands = s.scanDecoded(cands, buf, a+h, a+g, encHex, depth)
		}
		h = g
	}
	std := strings.ContainsAny(run, "+/")
	url := strings.ContainsAny(run, "-_")
	if std && url {
		return cands, buf
	}
	enc := base64.RawStdEncoding
	if url {
		enc = base64.RawURLEncoding
	}
	body := run
	if len(body)%4 == 1 {
		body = body[:len(body)-1]
	}
	if cap(buf) < enc.DecodedLen(len(body)) {
		buf = make([]byte, enc.DecodedLen(len(body)))
	}
	buf = buf[:enc.DecodedLen(len(body))]
	m, err := enc.Decode(buf, []byte(body))
	if err != nil {
		return cands, buf
	}
	return s.scanDecoded(cands, buf[:m], a, end, encBase64, depth), buf
}

func (s *Scanner) scanDecoded(cands []span, dec []byte, a, b int, enc encoding, depth int) []span {
	if !hasPrintableRun(dec) {
		return cands
	}
	if sp := s.spans(string(dec), depth-1); len(sp) > 0 {
		cands = append(cands, span{start: a, end: b, rule: sp[0].rule, enc: enc})
	}
	return cands
}

func hasPrintableRun(b []byte) bool {
	run := 0
	for _, c := range b {
		if (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\r' || c == '\t' {
			if run++; run >= minPrintable {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

func hexDecode(dst []byte, h string) []byte {
	for i := 0; i+1 < len(h); i += 2 {
		dst = append(dst, unhex(h[i])<<4|unhex(h[i+1]))
	}
	return dst
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}

// tokens handles percent-encoded and backslash-escaped tokens.
func (s *Scanner) tokens(cands []span, text string, depth int) []span {
	pct, bs := -1, -1 // next '%' and '\\' at or after pos; -1: to look up
	for pos := 0; pos < len(text); {
		if pct >= 0 && pct < pos || pct == -1 {
			pct = indexFrom(text, pos, '%')
		}
		if bs >= 0 && bs < pos || bs == -1 {
			bs = indexFrom(text, pos, '\\')
		}
		i := min(uint(pct), uint(bs)) // -2 (none) is the largest uint
		if i == ^uint(1) {
			break
		}
		lo, hi := int(i), int(i)+1
		for lo > pos && !tokenDelim[text[lo-1]] {
			lo--
		}
		for hi < len(text) && !tokenDelim[text[hi]] {
			hi++
		}
		tok := text[lo:hi]
		if dec, ok := percentDecode(tok, false); ok {
			if sp := s.spans(dec, depth-1); len(sp) > 0 {
				cands = append(cands, span{start: lo, end: hi, rule: sp[0].rule, enc: encPercent})
			}
			if strings.IndexByte(tok, '+') >= 0 {
				// Form encoding (url.QueryEscape) writes a space as +.
				dec, _ = percentDecode(tok, true)
				if sp := s.spans(dec, depth-1); len(sp) > 0 {
					cands = append(cands, span{start: lo, end: hi, rule: sp[0].rule, enc: encPercent})
				}
			}
		}
		if dec, ok := unescape(tok); ok {
			if sp := s.spans(dec, depth-1); len(sp) > 0 {
				cands = append(cands, span{start: lo, end: hi, rule: sp[0].rule, enc: encEscape})
			}
		}
		pos = hi
	}
	return cands
}

// indexFrom is the index of c in text at or after pos, or -2.
func indexFrom(text string, pos int, c byte) int {
	if i := strings.IndexByte(text[pos:], c); i >= 0 {
		return pos + i
	}
	return -2
}

// percentDecode decodes every %XX in tok (and + as a space when plus is
// set); ok is false when there is no %XX.
func percentDecode(tok string, plus bool) (string, bool) {
	var b []byte
	for i := 0; i < len(tok); i++ {
		if tok[i] == '%' && i+2 < len(tok) && hexDigit[tok[i+1]] && hexDigit[tok[i+2]] {
			if b == nil {
				b = append(make([]byte, 0, len(tok)), tok[:i]...)
			}
			b = append(b, unhex(tok[i+1])<<4|unhex(tok[i+2]))
			i += 2
			continue
		}
		if b != nil {
			if c := tok[i]; plus && c == '+' {
				b = append(b, ' ')
			} else {
				b = append(b, c)
			}
		}
	}
	if plus && b != nil {
		for i := 0; i < len(b) && i < len(tok); i++ { // the part before the first %XX
			if tok[i] == '%' {
				break
			}
			if b[i] == '+' {
				b[i] = ' '
			}
		}
	}
	return string(b), b != nil
}

// unescape decodes the backslash escapes of tok; ok is false when there is
// none.
func unescape(tok string) (string, bool) {
	var b []byte
	for i := 0; i < len(tok); i++ {
		if tok[i] != '\\' || i+1 >= len(tok) {
			if b != nil {
				b = append(b, tok[i])
			}
			continue
		}
		r, w := escapeAt(tok, i)
		if w == 0 {
			if b != nil {
				b = append(b, tok[i])
			}
			continue
		}
		if b == nil {
			b = append(make([]byte, 0, len(tok)), tok[:i]...)
		}
		b = utf8.AppendRune(b, r)
		i += w - 1
	}
	return string(b), b != nil
}

// escapeAt decodes the escape at tok[i] (a backslash) and returns the rune
// and the width consumed, or width 0 when it is not an escape.
func escapeAt(tok string, i int) (rune, int) {
	switch tok[i+1] {
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'v':
		return '\v', 2
	case '0':
		return 0, 2
	case '\\', '/':
		return rune(tok[i+1]), 2
	case 'x':
		if v, ok := hexValue(tok, i+2, 2); ok {
			return rune(v), 4
		}
	case 'u':
		v, ok := hexValue(tok, i+2, 4)
		if !ok {
			return 0, 0
		}
		if v >= 0xD800 && v < 0xDC00 && i+12 <= len(tok) && tok[i+6] == '\\' && tok[i+7] == 'u' {
			if lo, ok := hexValue(tok, i+8, 4); ok && lo >= 0xDC00 && lo < 0xE000 {
				return 0x10000 + (rune(v)-0xD800)<<10 + (rune(lo) - 0xDC00), 12
			}
		}
		return rune(v), 6 // a lone surrogate becomes U+FFFD in AppendRune
	case 'U':
		if v, ok := hexValue(tok, i+2, 8); ok {
			return rune(v), 10
		}
	}
	return 0, 0
}

func hexValue(s string, at, n int) (uint32, bool) {
	if at+n > len(s) {
		return 0, false
	}
	var v uint32
	for j := at; j < at+n; j++ {
		if !hexDigit[s[j]] {
			return 0, false
		}
		v = v<<4 | uint32(unhex(s[j]))
	}
	return v, true
}

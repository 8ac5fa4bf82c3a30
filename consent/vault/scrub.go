package vault

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime/quotedprintable"
	"net/url"
	"slices"
	"strings"
)

// Scrubber removes the values of injected secrets from what a tool call
// returns (results, structured content, error messages) before it reaches
// the agent: after a call ran with secrets from [Vault.Inject], the agent
// must not read them back, whatever the tool echoes. It knows each value
// raw and in the encodings a tool is likely to echo it in: JSON-escaped
// (encoding/json, with and without HTML escaping), URL query- and
// path-escaped, standard and URL-safe base64 (padded, unpadded, and the
// middle of a longer base64 text at each of the three alignments),
// lower- and upper-case hex, quoted-printable, and the value upper- or
// lower-cased whole. Each is found also written with layout inside it
// (white space and invisible characters, ASCII or not, the separators
// : , . -, escapes of white space such as \n, \u2028, %0A or &#10;,
// quoted-printable soft line breaks, HTML <br>: wrapped base64 or hex,
// hex bytes with separators, a number in exponent form), with any of its
// bytes escaped (\xHH, \u00HH, %HH, &#D; or &#xHH;, xxd -i's 0xHH) and
// any of its letters in the other case (scrublayout.go).
// Each occurrence becomes "[REDACTED:vault:<name>]". A JSON number whose
// text holds a value ([Scrubber.Value]) becomes that text scrubbed.
//
// Scrubbing is by value, so it also catches a secret a tool copied into
// another field or an error, and, with [Scrubber.Parts] and
// [Scrubber.Stream], one cut across the content items of a result or the
// chunks of streamed output (with layout too: a line of base64 per log
// message). It cannot catch a value the tool transformed
// in another way (hashed, reversed, in base32, with octal escapes, a hex
// dump with offsets and an ASCII column between its pieces, cut across
// two calls: a read tool
// with an offset hands the agent any piece it asks for); tools that do
// that must not get secrets. Encoded forms shorter than 4 bytes are not
// scrubbed (they would match everywhere); the raw value always is.
//
// A Scrubber is safe for concurrent use. Its zero value and nil scrub
// nothing.
type Scrubber struct {
	r      *strings.Replacer
	values map[string]string // secret value -> name, for Union
	// needles are the values and their encodings, longest first (the
	// Replacer's order), with first indexing them by their first byte, for
	// [Scrubber.Parts] and [Scrubber.Stream], which need where they are.
	needles []pair
	first   [256][]int
	// laid are the needles without their layout, searched with layout
	// skipped (scrublayout.go), indexed by first byte in laidFirst.
	laid      []pair
	laidFirst [256][]int
	laidPair  [256][4]uint64 // first byte -> the set of second bytes
	laidStart [4]uint64      // the set of first bytes (case-folded)
	laidRaw   [256]bool      // the first bytes in either case
	shortest  int            // the length of the shortest needle, with or without layout
}

type pair struct{ needle, repl string }

// minEncoded is the shortest encoded form scrubbed.
const minEncoded = 4

// NewScrubber returns a Scrubber for secrets, a map from name to value.
func NewScrubber(secrets map[string]string) *Scrubber {
	byValue := make(map[string]string, len(secrets))
	for name, val := range secrets {
		if val != "" {
			byValue[val] = name
		}
	}
	return newScrubber(byValue)
}

// Union returns a Scrubber that removes the secrets of s and of o alike
// (either may be nil). A value known under two names keeps s's name.
func (s *Scrubber) Union(o *Scrubber) *Scrubber {
	switch {
	case o == nil || len(o.values) == 0:
		return s
	case s == nil || len(s.values) == 0:
		return o
	}
	byValue := make(map[string]string, len(s.values)+len(o.values))
	for v, n := range o.values {
		byValue[v] = n
	}
	for v, n := range s.values {
		byValue[v] = n
	}
	if len(byValue) == len(s.values) {
		return s
	}
	return newScrubber(byValue)
}

// newScrubber builds the Scrubber of byValue (secret value -> name).
func newScrubber(byValue map[string]string) *Scrubber {
	var pairs []pair
	seen := map[string]bool{}
	add := func(needle, name string, encoded bool) {
		if needle == "" || seen[needle] || (encoded && len(needle) < minEncoded) {
			return
		}
		seen[needle] = true
		pairs = append(pairs, pair{needle, "[REDACTED:vault:" + name + "]"})
	}
	for val, name := range byValue {
		add(val, name, false)
		for _, e := range encodings(val) {
			add(e, name, true)
		}
	}
	// At one position the Replacer tries needles in argument order: longest
	// first, so a secret that contains another is replaced whole.
	sortPairs(pairs)
	if len(pairs) == 0 {
		return &Scrubber{}
	}
	args := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		args = append(args, p.needle, p.repl)
	}
	sc := &Scrubber{r: strings.NewReplacer(args...), values: byValue, needles: pairs}
	for i, p := range pairs {
		sc.first[p.needle[0]] = append(sc.first[p.needle[0]], i)
	}
	sc.shortest = len(pairs[len(pairs)-1].needle)
	sc.buildLaid()
	if n := len(sc.laid); n > 0 { // a needle without its layout may be shorter
		sc.shortest = min(sc.shortest, len(sc.laid[n-1].needle))
	}
	return sc
}

// sortPairs orders pairs longest needle first (then by needle).
func sortPairs(pairs []pair) {
	slices.SortFunc(pairs, func(a, b pair) int {
		if len(a.needle) != len(b.needle) {
			return len(b.needle) - len(a.needle)
		}
		return strings.Compare(a.needle, b.needle)
	})
}

// encodings returns the encoded forms of v a tool may echo.
func encodings(v string) []string {
	var out []string
	j, _ := json.Marshal(v) // HTML-escaped: \u003c
	out = append(out, string(j[1:len(j)-1]))
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	s := strings.TrimSuffix(b.String(), "\n")
	out = append(out, s[1:len(s)-1], strings.ReplaceAll(s[1:len(s)-1], "/", `\/`))
	out = append(out, asciiJSON(v))
	// Quoted-printable (a mail tool returning the message it sent): '='
	// and bytes outside ASCII are escaped; its soft line breaks are layout.
	var qp strings.Builder
	w := quotedprintable.NewWriter(&qp)
	_, _ = w.Write([]byte(v))
	_ = w.Close()
	out = append(out, qp.String())
	// Upper- or lower-cased whole (`tr a-z A-Z`, a header value
	// normalized): the agent has the value but for the case of its letters.
	out = append(out, strings.ToUpper(v), strings.ToLower(v))
	for _, e := range []string{url.QueryEscape(v), url.PathEscape(v)} {
		out = append(out, e, lowerPercent(e))
	}
	out = append(out, hex.EncodeToString([]byte(v)), strings.ToUpper(hex.EncodeToString([]byte(v))))
	for _, e := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		out = append(out, e.EncodeToString([]byte(v)), e.WithPadding(base64.NoPadding).EncodeToString([]byte(v)))
		out = append(out, base64Cores(e, v)...)
	}
	return out
}

// asciiJSON is v JSON-escaped with every non-ASCII rune as \uXXXX (a
// surrogate pair beyond the BMP), as Python's json.dumps writes by default.
func asciiJSON(v string) string {
	j, _ := json.Marshal(v)
	var b strings.Builder
	for _, r := range string(j[1 : len(j)-1]) {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// lowerPercent writes the hex digits of percent escapes in lower case.
func lowerPercent(e string) string {
	b := []byte(e)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerHex(b[i+1]), lowerHex(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func lowerHex(c byte) byte {
	if 'A' <= c && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}

// base64Cores returns, for each of the three alignments v can have inside
// a longer byte string, the base64 characters that depend on v alone.
func base64Cores(e *base64.Encoding, v string) []string {
	var out []string
	for pad := 0; pad < 3; pad++ {
		buf := append(make([]byte, pad), v...)
		enc := e.WithPadding(base64.NoPadding).EncodeToString(buf)
		// Characters that mix pad bytes or trailing unknown bytes are unstable.
		start := (pad*8 + 5) / 6
		end := (len(buf) * 8) / 6
		if end-start >= minEncoded && end <= len(enc) {
			out = append(out, enc[start:end])
		}
	}
	return out
}

// String returns s with every injected value replaced, also one written
// with layout inside it (scrublayout.go).
func (s *Scrubber) String(x string) string {
	if s == nil || s.r == nil || len(x) < s.shortest {
		return x // too short to hold a needle: most member names and numbers
	}
	return s.scrubLaid(s.r.Replace(x))
}

// Bytes returns b with every injected value replaced (b itself when there
// is nothing to replace).
func (s *Scrubber) Bytes(b []byte) []byte {
	if s == nil || s.r == nil {
		return b
	}
	out := s.String(string(b))
	if out == string(b) {
		return b
	}
	return []byte(out)
}

// Value returns a copy of the JSON value v (nil, bool, numbers, string,
// []any, map[string]any, as encoding/json decodes) with every string, and
// every object member name, scrubbed. A number (float64, or json.Number)
// whose JSON text holds a value becomes that text scrubbed, a string: a
// secret of digits a tool parsed and returned as a number is the secret.
func (s *Scrubber) Value(v any) any {
	if s == nil || s.r == nil {
		return v
	}
	switch x := v.(type) {
	case string:
		return s.String(x)
	case json.Number:
		if out := s.String(string(x)); out != string(x) {
			return out
		}
		return v
	case float64:
		t, err := json.Marshal(x)
		if err != nil {
			return v
		}
		if out := s.String(string(t)); out != string(t) {
			return out
		}
		return v
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = s.Value(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[s.String(k)] = s.Value(e)
		}
		return out
	}
	return v
}

// Error returns err, or an error with err's message scrubbed when it holds
// an injected value (the original, with the secret, is dropped).
func (s *Scrubber) Error(err error) error {
	if err == nil || s == nil || s.r == nil {
		return err
	}
	msg := err.Error()
	if clean := s.String(msg); clean != msg {
		return scrubbedError(clean)
	}
	return err
}

type scrubbedError string

func (e scrubbedError) Error() string { return string(e) }

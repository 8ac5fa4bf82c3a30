package mcpredact

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// maxJSONTextDepth bounds how many documents inside strings (JSON, YAML)
// the walk opens, one inside the other. Each JSON level doubles the
// backslashes before the innermost quotes, so a JSON text n bytes long
// nests at most log2(n) deep: at four levels, the fifth went to the text
// rules alone, which do not read the names (red team rtr). A string that
// may hold a document naming a credential deeper than this, or after the
// walk has read its budget of documents, is withheld whole
// (nestedDocument): the walk fails closed.
const maxJSONTextDepth = 16

// nestedRule is the rule name of a document withheld for its depth.
const nestedRule = "nested-document"

// nestedDocument withholds a string the walk will not open: too deep, or
// past the budget of bytes read in documents (docBudget).
func (w *walker) nestedDocument() string {
	w.add([]dlp.Finding{{Rule: nestedRule, Count: 1}})
	w.changed = true
	return "[REDACTED:" + nestedRule + "]"
}

// enterDoc reports whether the walk may open s as a document: it starts
// a budget of bytes at the top (eight times the text and 1 MiB), which
// the documents inside it spend; block scalars nest YAML without
// escaping, n bytes about sqrt(2n) deep.
func (w *walker) enterDoc(s string) bool {
	if w.jsonDepth == 0 {
		w.docBudget = 8*len(s) + 1<<20
	}
	w.docBudget -= len(s)
	return w.jsonDepth < maxJSONTextDepth && w.docBudget >= 0
}

// jsonText walks a string that is a whole JSON object or array (a tool's
// output as text: a go-sdk tool with a typed output sends its structured
// content again as a TextContent of its JSON; most tools return JSON only
// as text) as the tree it is, so that a member's name is read with its
// value there as in structured content: in text, only the text rules read
// a name, and {"Passwort": ...}, {"Name": "DB_PASS", "Value": ...} or
// {"privKey": ...} reached the client (red team rtq). When the walk
// redacts something, the document is returned encoded again from the
// redacted tree (the members in name order, indented where the text was
// on several lines); otherwise, or when the text scan redacts the same
// (its output keeps the text's layout), ok is false and the string is left
// to the text scan. A document with two members of one name is read with
// both (dupdoc.go).
//
// A text that is not one document is read for the documents inside it
// (jsonLines).
func (w *walker) jsonText(s string) (out string, ok bool) {
	if !mayJSON(s) || !mayNameCredential(s) {
		return "", false
	}
	if !w.enterDoc(s) {
		return w.nestedDocument(), true
	}
	if rest, ok := strings.CutPrefix(s, "\ufeff"); ok { // a byte order mark
		out, ok := w.jsonText(rest)
		return "\ufeff" + out, ok
	}
	if out, ok, decoded := w.jsonDoc(s); decoded {
		return out, ok
	}
	return w.jsonLines(s)
}

// countingReader reads from r until its budget of bytes is spent.
type countingReader struct {
	r      io.Reader
	budget int
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.budget <= 0 {
		return 0, io.ErrUnexpectedEOF
	}
	if len(p) > c.budget {
		p = p[:c.budget]
	}
	n, err := c.r.Read(p)
	c.budget -= n
	return n, err
}

// jsonDoc walks s when it is one JSON document (decoded), and returns it
// encoded again when the walk redacted more than the text scan would.
func (w *walker) jsonDoc(s string) (out string, ok, decoded bool) {
	return w.walkDoc(s, true)
}

// walkDoc is jsonDoc; when byText is false, the document is returned
// encoded again whenever the walk redacted something (a document closed
// from one cut short is not the text the text scan reads).
func (w *walker) walkDoc(s string, byText bool) (out string, ok, decoded bool) {
	if !looksJSON(s) {
		return "", false, false
	}
	tree, err := decodeTree([]byte(s))
	if err != nil {
		// Two members of one name: read with both (dupdoc.go).
		if tree, err = decodeDups(s); err != nil {
			return "", false, false
		}
	}
	was, found, werr := w.changed, len(w.findings), w.err
	w.changed = false
	w.jsonDepth++
	keys := w.keysInText
	w.keysInText = false // a JSON key may hide a secret in escapes
	tree = w.walk(tree)
	w.keysInText = keys
	w.jsonDepth--
	w.err = werr // a text that looks like an image item is no image item
	hit := w.changed
	w.changed = was
	if !hit || byText && sameAsText(w.s, s, tree) {
		w.findings = w.findings[:found]
		return "", false, true
	}
	w.changed = true
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return "", false, true
	}
	out = strings.TrimSuffix(b.String(), "\n")
	// Indented where the text was on several lines, unless it nests
	// deep: each line's indent is twice its depth, and a document of
	// thousands of levels ({"a":<LF> repeated, 100 KiB) came out at 200
	// MB (red team ruc).
	if strings.Contains(s, "\n") && jsonDepthAtMost(out, maxIndentDepth) {
		var ind bytes.Buffer
		if json.Indent(&ind, []byte(out), "", "  ") == nil {
			out = ind.String()
		}
	}
	return out, true, true
}

// maxIndentDepth is the deepest a document encoded again is indented.
const maxIndentDepth = 64

// jsonDepthAtMost reports whether the brackets of the JSON s nest at
// most max deep.
func jsonDepthAtMost(s string, max int) bool {
	depth, in := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case c == '{' || c == '[':
			if depth++; depth > max {
				return false
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return true
}

// mayJSON reports whether s may be, or hold, a JSON object or array with
// a member, whole or cut short (jsonlines.go).
func mayJSON(s string) bool {
	return looksJSON(s) || strings.Contains(s, `":`) && strings.IndexByte(s, '{') >= 0
}

// sameAsText reports whether the text scan of s redacts what the walk of
// its tree did.
func sameAsText(sc *dlp.Scanner, s string, tree any) bool {
	out, _ := sc.Redact(s)
	t, err := decodeTree([]byte(out))
	return err == nil && reflect.DeepEqual(t, tree)
}

// looksJSON reports whether s, trimmed of white space, starts and ends as
// a JSON object or array does.
func looksJSON(s string) bool {
	s = strings.TrimSpace(strings.TrimPrefix(s, "\ufeff"))
	if len(s) < 2 {
		return false
	}
	first, last := s[0], s[len(s)-1]
	return first == '{' && last == '}' || first == '[' && last == ']'
}

// textTriggers are what every name the named scan reads holds, in ASCII
// lower case: credentialWords, the triggers of classify, and a JSON Web
// Key's "kty".
var textTriggers = func() wordSet {
	ts := append([]string{"kty"}, credentialWords...)
	for _, t := range triggers {
		if !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	return newWordSet(ts)
}()

// mayNameCredential reports whether a JSON text may hold a name the named
// scan reads: a trigger in any case, or a rune above ASCII. A text without
// one is left to the text scan alone, which has seen it whole.
func mayNameCredential(s string) bool {
	return textTriggers.inOrWide(s) || escapedWord(s, textTriggers)
}

// escapedWord reports whether s, its \u, \U and \x escapes (JSON's,
// YAML's, TOML's, after any number of backslashes: a document inside a
// string doubles them) read as the runes they stand for, holds one of the
// words of ws or a rune above ASCII. A name written with escapes
// ({"\u0070\u0077": ...}, "priv\u004bey": ...) holds no trigger as it is
// written, and the walk, which reads it decoded, was never asked to
// (red team ruc). A text without such an escape costs one IndexByte pass.
func escapedWord(s string, ws wordSet) bool {
	var b []byte // s with its escapes decoded, once one is found
	last := 0    // s[:last] is in b
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '\\')
		if k < 0 {
			break
		}
		i += k
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		r, n := hexEscape(s[j:])
		if n == 0 {
			i = j
			continue
		}
		if r >= utf8.RuneSelf {
			return true
		}
		b = append(append(b, s[last:i]...), byte(r))
		i = j + n
		last = i
	}
	if b == nil {
		return false
	}
	return ws.in(string(append(b, s[last:]...)))
}

// hexEscape reads the escape after a backslash at the start of s: u and
// four hex digits, U and eight, x and two; n is how many bytes it takes,
// 0 when s starts no such escape.
func hexEscape(s string) (r rune, n int) {
	if s == "" {
		return 0, 0
	}
	digits := 0
	switch s[0] {
	case 'u':
		digits = 4
	case 'U':
		digits = 8
	case 'x':
		digits = 2
	}
	if digits == 0 || len(s) < 1+digits {
		return 0, 0
	}
	for i := 1; i <= digits; i++ {
		c := s[i]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			d = c | 0x20 - 'a' + 10
		default:
			return 0, 0
		}
		r = r<<4 | rune(d)
	}
	return r, 1 + digits
}

// wordSet finds ASCII words (lower case, two bytes or more) in a string in
// any case, in one pass: a table of their first two bytes says where to
// compare, and with which words.
type wordSet struct {
	// first holds, for the first two bytes of a word (lower case, as
	// pairKey makes them), one more than the index in byPair of the words
	// that start with them; 0 where none does.
	first  *[1 << 16]uint8
	byPair [][]string
}

// pairKey is the index in wordSet.first of two bytes: each with bit 0x20
// set, which makes an ASCII capital its small letter. Other bytes may
// share a key (@ and `); the words are compared after it.
func pairKey(c0, c1 byte) uint16 {
	return uint16(c0|0x20)<<8 | uint16(c1|0x20)
}

func newWordSet(words []string) wordSet {
	ws := wordSet{first: new([1 << 16]uint8)}
	for _, w := range words {
		k := pairKey(w[0], w[1])
		if ws.first[k] == 0 {
			if len(ws.byPair) == 255 {
				panic("mcpredact: a wordSet holds words of at most 255 first pairs")
			}
			ws.byPair = append(ws.byPair, nil)
			ws.first[k] = uint8(len(ws.byPair))
		}
		i := ws.first[k] - 1
		ws.byPair[i] = append(ws.byPair[i], w)
	}
	return ws
}

// in reports whether s holds one of the words in any ASCII case.
func (ws wordSet) in(s string) bool {
	return ws.find(s, false)
}

// inOrWide reports whether s holds one of the words in any ASCII case or
// a byte above ASCII, in one pass.
func (ws wordSet) inOrWide(s string) bool {
	return ws.find(s, true)
}

func (ws wordSet) find(s string, wide bool) bool {
	for i := 0; i+1 < len(s); i++ {
		if wide && s[i] >= utf8.RuneSelf {
			return true
		}
		b := ws.first[pairKey(s[i], s[i+1])]
		if b == 0 {
			continue
		}
		for _, w := range ws.byPair[b-1] {
			if i+len(w) <= len(s) && strings.EqualFold(s[i:i+len(w)], w) {
				return true
			}
		}
	}
	// The last byte starts no pair.
	return wide && len(s) > 0 && s[len(s)-1] >= utf8.RuneSelf
}

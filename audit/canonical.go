package audit

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// maxDepth bounds the nesting of arrays and objects in one event. Reordering
// an unsorted object copies its members once per enclosing object, so the
// bound keeps the work per line linear in the line length. github.com/gowebpki/jcs
// allows deeper documents; a Writer refuses such arguments, so it never writes
// a line its own Verify rejects.
const maxDepth = 100

// errCanon marks a line that is not I-JSON as RFC 8785 requires.
var errCanon = errors.New("audit: not canonicalizable JSON")

// member is one object member: its decoded key and the bytes of its canonical
// `"key":value` segment in canon.out.
type member struct {
	key        []byte // decoded UTF-8, for sorting
	start, end int    // segment in out
	value      int    // offset of the value inside the segment
}

// canon is a reusable RFC 8785 (JCS) canonicalizer. It accepts exactly what
// jcs.Transform accepts (up to maxDepth) and produces the same bytes; the
// tests check both claims against jcs.Transform. Unlike jcs.Transform it
// keeps the members of the top-level object so callers can hash the event
// without its event_hash member, and it reuses its buffers.
//
// A canon is not safe for concurrent use.
type canon struct {
	in    []byte
	pos   int
	depth int
	out   []byte
	mem   []member // stack of members of the objects being parsed
	tmp   []byte
	str   []byte // scratch for decoded strings
}

// transform canonicalizes in. After it returns, c.out holds the canonical
// bytes and, when the top-level value is an object, c.mem its sorted members.
func (c *canon) transform(in []byte) error {
	c.in, c.pos, c.depth = in, 0, 0
	c.out, c.mem = c.out[:0], c.mem[:0]
	if err := c.value(); err != nil {
		return err
	}
	c.skipSpace()
	if c.pos != len(c.in) {
		return c.fail("unexpected data after the value")
	}
	return nil
}

func (c *canon) fail(msg string) error {
	return fmt.Errorf("%w: %s at byte %d", errCanon, msg, c.pos)
}

func (c *canon) skipSpace() {
	for c.pos < len(c.in) {
		switch c.in[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

func (c *canon) value() error {
	c.skipSpace()
	if c.pos >= len(c.in) {
		return c.fail("unexpected end of input")
	}
	switch c.in[c.pos] {
	case '{':
		return c.object()
	case '[':
		return c.array()
	case '"':
		c.pos++
		s, _, err := c.decodeString()
		if err != nil {
			return err
		}
		c.out = appendString(c.out, s)
		return nil
	default:
		return c.scalar()
	}
}

func (c *canon) enter() error {
	c.depth++
	if c.depth > maxDepth {
		return c.fail(fmt.Sprintf("nesting deeper than %d", maxDepth))
	}
	c.pos++
	return nil
}

func (c *canon) array() error {
	if err := c.enter(); err != nil {
		return err
	}
	c.out = append(c.out, '[')
	for n := 0; ; n++ {
		c.skipSpace()
		if c.pos < len(c.in) && c.in[c.pos] == ']' {
			c.pos++
			break
		}
		if n > 0 {
			if c.pos >= len(c.in) || c.in[c.pos] != ',' {
				return c.fail("expected ',' or ']'")
			}
			c.pos++
			c.out = append(c.out, ',')
		}
		if err := c.value(); err != nil {
			return err
		}
	}
	c.out = append(c.out, ']')
	c.depth--
	return nil
}

func (c *canon) object() error {
	if err := c.enter(); err != nil {
		return err
	}
	open := len(c.out)
	c.out = append(c.out, '{')
	base := len(c.mem)
	for n := 0; ; n++ {
		c.skipSpace()
		if c.pos < len(c.in) && c.in[c.pos] == '}' {
			c.pos++
			break
		}
		if n > 0 {
			if c.pos >= len(c.in) || c.in[c.pos] != ',' {
				return c.fail("expected ',' or '}'")
			}
			c.pos++
			c.out = append(c.out, ',')
			c.skipSpace()
		}
		if c.pos >= len(c.in) || c.in[c.pos] != '"' {
			return c.fail("expected a member name")
		}
		c.pos++
		key, escaped, err := c.decodeString()
		if err != nil {
			return err
		}
		if escaped {
			key = bytes.Clone(key) // c.str is reused by the next string
		}
		m := member{key: key, start: len(c.out)}
		c.out = appendString(c.out, key)
		c.skipSpace()
		if c.pos >= len(c.in) || c.in[c.pos] != ':' {
			return c.fail("expected ':'")
		}
		c.pos++
		c.out = append(c.out, ':')
		m.value = len(c.out) - m.start
		if err := c.value(); err != nil {
			return err
		}
		m.end = len(c.out)
		c.mem = append(c.mem, m)
	}
	c.out = append(c.out, '}')
	if err := c.sortMembers(open, c.mem[base:]); err != nil {
		return err
	}
	c.depth--
	if c.depth > 0 {
		c.mem = c.mem[:base] // keep only the top-level members
	}
	return nil
}

// sortMembers puts the members of the object starting at out[open] in RFC 8785
// §3.2.3 order (UTF-16 code units) and rejects duplicate names.
func (c *canon) sortMembers(open int, ms []member) error {
	sorted := true
	for i := 1; i < len(ms); i++ {
		switch cmp := compareKeys(ms[i-1].key, ms[i].key); {
		case cmp == 0:
			return c.fail(fmt.Sprintf("duplicate member name %q", ms[i].key))
		case cmp > 0:
			sorted = false
		}
	}
	if sorted {
		return nil
	}
	slices.SortFunc(ms, func(a, b member) int { return compareKeys(a.key, b.key) })
	for i := 1; i < len(ms); i++ {
		if compareKeys(ms[i-1].key, ms[i].key) == 0 {
			return c.fail(fmt.Sprintf("duplicate member name %q", ms[i].key))
		}
	}
	c.tmp = c.tmp[:0]
	at := open + 1
	for i := range ms {
		if i > 0 {
			c.tmp = append(c.tmp, ',')
		}
		n := ms[i].end - ms[i].start
		c.tmp = append(c.tmp, c.out[ms[i].start:ms[i].end]...)
		ms[i].start = at + len(c.tmp) - n
		ms[i].end = ms[i].start + n
	}
	copy(c.out[open+1:], c.tmp)
	return nil
}

// compareKeys orders member names by their UTF-16 code units. UTF-8 byte order
// is code point order, which differs from UTF-16 order only when a character
// beyond the BMP (4-byte UTF-8) meets one in U+E000..U+FFFF.
func compareKeys(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) || i == len(b) || (a[i] < 0xEE && b[i] < 0xEE) {
		return bytes.Compare(a[i:], b[i:])
	}
	return slices.Compare(utf16.Encode([]rune(string(a))), utf16.Encode([]rune(string(b))))
}

// decodeString reads a string body after its opening quote and returns the
// decoded UTF-8. Without escapes the result aliases the input; with escapes it
// aliases c.str, which the next escaped string overwrites.
func (c *canon) decodeString() (s []byte, escaped bool, err error) {
	start := c.pos
	for c.pos < len(c.in) {
		b := c.in[c.pos]
		switch {
		case b == '"':
			c.pos++
			return c.in[start : c.pos-1], false, nil
		case b == '\\':
			s, err := c.decodeEscaped(start)
			return s, true, err
		case b < 0x20:
			return nil, false, c.fail("control character in string")
		case b < utf8.RuneSelf:
			c.pos++
		default:
			r, size := utf8.DecodeRune(c.in[c.pos:])
			if r == utf8.RuneError && size <= 1 {
				return nil, false, c.fail("invalid UTF-8")
			}
			c.pos += size
		}
	}
	return nil, false, c.fail("unterminated string")
}

func (c *canon) decodeEscaped(start int) ([]byte, error) {
	c.str = append(c.str[:0], c.in[start:c.pos]...)
	for c.pos < len(c.in) {
		b := c.in[c.pos]
		switch {
		case b == '"':
			c.pos++
			return c.str, nil
		case b < 0x20:
			return nil, c.fail("control character in string")
		case b == '\\':
			if c.pos+1 >= len(c.in) {
				return nil, c.fail("unterminated escape")
			}
			e := c.in[c.pos+1]
			c.pos += 2
			switch e {
			case '"', '\\', '/':
				c.str = append(c.str, e)
			case 'b':
				c.str = append(c.str, '\b')
			case 'f':
				c.str = append(c.str, '\f')
			case 'n':
				c.str = append(c.str, '\n')
			case 'r':
				c.str = append(c.str, '\r')
			case 't':
				c.str = append(c.str, '\t')
			case 'u':
				r, err := c.hex4()
				if err != nil {
					return nil, err
				}
				if utf16.IsSurrogate(r) {
					if r > 0xDBFF {
						return nil, c.fail("lone low surrogate")
					}
					if c.pos+1 >= len(c.in) || c.in[c.pos] != '\\' || c.in[c.pos+1] != 'u' {
						return nil, c.fail("missing low surrogate")
					}
					c.pos += 2
					lo, err := c.hex4()
					if err != nil {
						return nil, err
					}
					if lo < 0xDC00 || lo > 0xDFFF {
						return nil, c.fail("invalid low surrogate")
					}
					r = utf16.DecodeRune(r, lo)
				}
				c.str = utf8.AppendRune(c.str, r)
			default:
				return nil, c.fail("invalid escape")
			}
		case b < utf8.RuneSelf:
			c.str = append(c.str, b)
			c.pos++
		default:
			r, size := utf8.DecodeRune(c.in[c.pos:])
			if r == utf8.RuneError && size <= 1 {
				return nil, c.fail("invalid UTF-8")
			}
			c.str = append(c.str, c.in[c.pos:c.pos+size]...)
			c.pos += size
		}
	}
	return nil, c.fail("unterminated string")
}

func (c *canon) hex4() (rune, error) {
	if c.pos+4 > len(c.in) {
		return 0, c.fail("short \\u escape")
	}
	var r rune
	for _, b := range c.in[c.pos : c.pos+4] {
		switch {
		case '0' <= b && b <= '9':
			r = r<<4 | rune(b-'0')
		case 'a' <= b && b <= 'f':
			r = r<<4 | rune(b-'a'+10)
		case 'A' <= b && b <= 'F':
			r = r<<4 | rune(b-'A'+10)
		default:
			return 0, c.fail("invalid \\u escape")
		}
	}
	c.pos += 4
	return r, nil
}

// scalar reads a literal or a number; like jcs, the token runs to the next
// ',', ']', '}' or whitespace.
func (c *canon) scalar() error {
	start := c.pos
	for c.pos < len(c.in) {
		b := c.in[c.pos]
		if b == ',' || b == ']' || b == '}' || b == ' ' || b == '\t' || b == '\n' || b == '\r' {
			break
		}
		c.pos++
	}
	tok := c.in[start:c.pos]
	switch string(tok) {
	case "true", "false", "null":
		c.out = append(c.out, tok...)
		return nil
	}
	var err error
	c.out, err = appendNumber(c.out, tok)
	if err != nil {
		c.pos = start
		return c.fail(err.Error())
	}
	return nil
}

// appendNumber appends the RFC 8785 §3.2.2.3 form of a JSON number token.
func appendNumber(dst, tok []byte) ([]byte, error) {
	integer, ok := numberShape(tok)
	if !ok {
		return dst, fmt.Errorf("invalid number %q", truncate(tok))
	}
	digits := len(tok)
	if tok[0] == '-' {
		digits--
	}
	if integer && digits <= 15 { // exact in float64 and printed in full by ES6
		if string(tok) == "-0" {
			return append(dst, '0'), nil
		}
		return append(dst, tok...), nil
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		return dst, fmt.Errorf("number out of range %q", truncate(tok))
	}
	s, err := jcs.NumberToJSON(f)
	if err != nil {
		return dst, err
	}
	return append(dst, s...), nil
}

// numberShape checks the JSON number grammar (RFC 8259 §6) and reports
// whether tok is an integer without fraction or exponent.
func numberShape(tok []byte) (integer, ok bool) {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	switch {
	case i < len(tok) && tok[i] == '0':
		i++
	case i < len(tok) && '1' <= tok[i] && tok[i] <= '9':
		for i < len(tok) && '0' <= tok[i] && tok[i] <= '9' {
			i++
		}
	default:
		return false, false
	}
	integer = true
	if i < len(tok) && tok[i] == '.' {
		integer = false
		i++
		if n := digitsAt(tok, i); n == 0 {
			return false, false
		} else {
			i += n
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		integer = false
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		n := digitsAt(tok, i)
		if n == 0 {
			return false, false
		}
		i += n
	}
	return integer, i == len(tok)
}

func digitsAt(b []byte, i int) int {
	n := 0
	for i+n < len(b) && '0' <= b[i+n] && b[i+n] <= '9' {
		n++
	}
	return n
}

func truncate(b []byte) []byte {
	if len(b) > 32 {
		return b[:32]
	}
	return b
}

// appendString appends the RFC 8785 §3.2.2.2 form of the UTF-8 string s.
func appendString(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i, b := range s {
		if b >= 0x20 && b != '"' && b != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch b {
		case '"', '\\':
			dst = append(dst, '\\', b)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			const hex = "0123456789abcdef"
			dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

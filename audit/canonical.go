package audit

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"unicode/utf16"
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

// canon is a reusable RFC 8785 (JCS) canonicalizer with one deviation
// (FORMAT.md, "Numbers"): a number whose RFC 8785 form would denote another
// value is kept as written instead of rounded to a double (appendNumber).
// Otherwise it accepts exactly what jcs.Transform accepts (up to maxDepth)
// and produces the same bytes; the tests check both claims against refCanon,
// which is jcs.Transform with that deviation. Unlike jcs.Transform it keeps
// the members of the top-level object so callers can hash the event without
// its event_hash member, and it reuses its buffers.
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

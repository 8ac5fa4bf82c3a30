package jcs

import (
	"bytes"
	"fmt"
	"slices"
	"unicode/utf16"
)

// MaxDepth bounds the nesting of arrays and objects. Reordering an unsorted
// object copies its members once per enclosing object, so the bound keeps the
// work linear in the input length. github.com/gowebpki/jcs allows deeper
// documents.
const MaxDepth = 100

// Member is one member of the top-level object: its decoded name and the
// bytes of its canonical `"name":value` segment in the output.
type Member struct {
	Name       []byte // decoded UTF-8
	Start, End int    // the segment in the output
	Value      int    // offset of the value inside the segment
}

// Canonicalizer is a reusable RFC 8785 (JCS) canonicalizer of JSON text
// under a [Rule]. With the zero Rule it accepts exactly what jcs.Transform
// accepts (up to [MaxDepth]) minus inexact numbers and objects with member
// names equal under case folding, and produces the same bytes; the tests
// check this against github.com/gowebpki/jcs. Unlike jcs.Transform it keeps
// the members of the top-level object (audit hashes an event without its
// event_hash member) and reuses its buffers: canonicalizing allocates nothing
// once the buffers have grown.
//
// A Canonicalizer is not safe for concurrent use.
type Canonicalizer struct {
	rule  Rule
	in    []byte
	pos   int
	depth int
	out   []byte
	mem   []Member // stack of members of the objects being parsed
	tmp   []byte
	str   []byte // scratch for decoded strings
	folds folder
}

// NewCanonicalizer returns a Canonicalizer that applies r.
func NewCanonicalizer(r Rule) *Canonicalizer { return &Canonicalizer{rule: r} }

// Transform canonicalizes in. The result aliases the Canonicalizer's buffer
// and is valid until its next use. Errors wrap [ErrInvalid], and also
// [ErrInexactNumber] or [ErrFoldedNames] when that is the reason.
func (c *Canonicalizer) Transform(in []byte) ([]byte, error) {
	c.in, c.pos, c.depth = in, 0, 0
	c.out, c.mem = c.out[:0], c.mem[:0]
	if err := c.value(); err != nil {
		c.in = nil
		return nil, err
	}
	c.skipSpace()
	if c.pos != len(c.in) {
		c.in = nil
		return nil, c.fail("unexpected data after the value")
	}
	c.in = nil
	return c.out, nil
}

// Members returns the sorted members of the top-level object of the last
// successful Transform (none when it was not an object). Offsets index the
// slice Transform returned; both are valid until the next use.
func (c *Canonicalizer) Members() []Member { return c.mem }

func (c *Canonicalizer) fail(msg string) error {
	return &Error{msg: msg, at: c.pos}
}

func (c *Canonicalizer) skipSpace() {
	for c.pos < len(c.in) {
		switch c.in[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

func (c *Canonicalizer) value() error {
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
		c.out = AppendString(c.out, s)
		return nil
	default:
		return c.scalar()
	}
}

func (c *Canonicalizer) enter() error {
	c.depth++
	if c.depth > MaxDepth {
		return c.fail(fmt.Sprintf("nesting deeper than %d", MaxDepth))
	}
	c.pos++
	return nil
}

func (c *Canonicalizer) array() error {
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

func (c *Canonicalizer) object() error {
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
		m := Member{Name: key, Start: len(c.out)}
		c.out = AppendString(c.out, key)
		c.skipSpace()
		if c.pos >= len(c.in) || c.in[c.pos] != ':' {
			return c.fail("expected ':'")
		}
		c.pos++
		c.out = append(c.out, ':')
		m.Value = len(c.out) - m.Start
		if err := c.value(); err != nil {
			return err
		}
		m.End = len(c.out)
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
// §3.2.3 order (UTF-16 code units) and rejects duplicate names, and unless
// the rule allows them, names equal under case folding.
func (c *Canonicalizer) sortMembers(open int, ms []Member) error {
	if !c.rule.AllowFoldedNames {
		if i, j, ok := c.folds.dup(ms); ok {
			return c.foldFail(ms[i].Name, ms[j].Name)
		}
	}
	sorted := true
	for i := 1; i < len(ms); i++ {
		switch cmp := compareKeys(ms[i-1].Name, ms[i].Name); {
		case cmp == 0:
			return c.fail(fmt.Sprintf("duplicate member name %q", ms[i].Name))
		case cmp > 0:
			sorted = false
		}
	}
	if sorted {
		return nil
	}
	slices.SortFunc(ms, func(a, b Member) int { return compareKeys(a.Name, b.Name) })
	for i := 1; i < len(ms); i++ {
		if compareKeys(ms[i-1].Name, ms[i].Name) == 0 {
			return c.fail(fmt.Sprintf("duplicate member name %q", ms[i].Name))
		}
	}
	c.tmp = c.tmp[:0]
	at := open + 1
	for i := range ms {
		if i > 0 {
			c.tmp = append(c.tmp, ',')
		}
		n := ms[i].End - ms[i].Start
		c.tmp = append(c.tmp, c.out[ms[i].Start:ms[i].End]...)
		ms[i].Start = at + len(c.tmp) - n
		ms[i].End = ms[i].Start + n
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

package jcs

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// Strings and numbers of the RFC 8785 canonicalizer (canonical.go).

// decodeString reads a string body after its opening quote and returns the
// decoded UTF-8. Without escapes the result aliases the input; with escapes it
// aliases c.str, which the next escaped string overwrites.
func (c *Canonicalizer) decodeString() (s []byte, escaped bool, err error) {
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

func (c *Canonicalizer) decodeEscaped(start int) ([]byte, error) {
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

func (c *Canonicalizer) hex4() (rune, error) {
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
func (c *Canonicalizer) scalar() error {
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
	c.out, err = appendNumber(c.out, tok, c.rule.Numbers)
	if err != nil {
		c.pos = start
		if err == errInexact {
			return &Error{msg: "number " + strconv.Quote(string(truncate(tok))) + " is not exact as an IEEE-754 double", at: c.pos, kind: ErrInexactNumber}
		}
		return c.fail(err.Error())
	}
	return nil
}

var errInexact = errors.New("inexact number")

// appendNumber appends the canonical form of a JSON number token: the RFC
// 8785 §3.2.2.3 form when that form denotes the same value as the token
// (ExactDouble); otherwise, under AsWritten, the token as written (audit
// FORMAT.md, "Numbers"), so that no number is rounded to a double and two
// numbers of different values never share a canonical form, and under Exact
// errInexact. Tokens longer than MaxLen are inexact. The result is its own
// canonical form: an exact number's RFC 8785 form is exact, and a token kept
// as written is kept again.
func appendNumber(dst, tok []byte, rule Numbers) ([]byte, error) {
	digits, frac, exp, ok := numberShape(tok)
	if !ok {
		return dst, fmt.Errorf("invalid number %q", truncate(tok))
	}
	// At most 15 digits and no exponent: exact, as ExactDouble decides
	// without evaluating; such integers are also printed in full by ES6.
	short := digits <= 15 && !exp
	if short && !frac {
		if string(tok) == "-0" {
			return append(dst, '0'), nil
		}
		return append(dst, tok...), nil
	}
	var f float64
	var err error
	if short {
		f, err = strconv.ParseFloat(string(tok), 64)
	} else {
		s := string(tok)
		if !ExactDouble(s) {
			if rule == Exact {
				return dst, errInexact
			}
			return append(dst, tok...), nil // a double would change its value
		}
		f, err = strconv.ParseFloat(s, 64)
	}
	if err != nil { // not for an exact number
		return dst, fmt.Errorf("number out of range %q", truncate(tok))
	}
	n, err := jcs.NumberToJSON(f)
	if err != nil {
		return dst, err
	}
	return append(dst, n...), nil
}

// numberShape checks the JSON number grammar (RFC 8259 §6) and reports the
// number of mantissa digits (leading zeros included) and whether tok has a
// fraction and an exponent.
func numberShape(tok []byte) (digits int, frac, exp, ok bool) {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	switch {
	case i < len(tok) && tok[i] == '0':
		i++
	case i < len(tok) && '1' <= tok[i] && tok[i] <= '9':
		i += digitsAt(tok, i)
	default:
		return 0, false, false, false
	}
	digits = i
	if tok[0] == '-' {
		digits--
	}
	if i < len(tok) && tok[i] == '.' {
		frac = true
		i++
		n := digitsAt(tok, i)
		if n == 0 {
			return 0, false, false, false
		}
		i += n
		digits += n
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		exp = true
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		n := digitsAt(tok, i)
		if n == 0 {
			return 0, false, false, false
		}
		i += n
	}
	return digits, frac, exp, i == len(tok)
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

// AppendString appends the RFC 8785 §3.2.2.2 form of s, which must be valid
// UTF-8, to dst.
func AppendString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		b := s[i]
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

// Package argjson decodes a tool call's arguments, one JSON object, into
// the Go values the policy evaluates: map[string]any, []any, string,
// json.Number, bool and nil.
//
// It gives exactly what encoding/json's Decoder with UseNumber gives for the
// same text, values and errors alike (a fuzz test holds it to that), in one
// pass without reflection: the tools/call pipeline decodes every call's
// arguments, and encoding/json spent about a quarter of the guard's own time
// doing it.
//
// Like encoding/json, a member name that appears twice keeps its last
// value, invalid UTF-8 and unpaired surrogate escapes in strings become
// U+FFFD, and nesting deeper than [MaxDepth] is an error.
//
// # Security
//
// Memory is linear in the input; the nesting bound keeps recursion shallow.
// Errors never quote the input.
//
// # Concurrency
//
// Decode is safe for concurrent use.
package argjson

import (
	"encoding/json"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth bounds the nesting of arrays and objects, as encoding/json does.
const MaxDepth = 10000

// Errors wrap one of these.
var (
	// ErrSyntax is text that is not one JSON value.
	ErrSyntax = errors.New("argjson: not valid JSON")
	// ErrNotObject is valid JSON that is not an object.
	ErrNotObject = errors.New("argjson: not a JSON object")
	// ErrTrailing is data after the object.
	ErrTrailing = errors.New("argjson: data after the JSON object")
	// ErrTooDeep is nesting beyond MaxDepth.
	ErrTooDeep = errors.New("argjson: nested too deeply")
	// ErrDuplicateName is an object, at any depth, with two members of one
	// name, or of names equal under case folding ("path" and "PATH"):
	// [DecodeStrict] only.
	ErrDuplicateName = errors.New("argjson: two members of an object have the same name, or names that differ only in letter case")
)

// Decode decodes b, one JSON object with optional surrounding whitespace,
// as encoding/json's Decoder with UseNumber decodes it into a
// map[string]any.
func Decode(b []byte) (map[string]any, error) { return (&decoder{b: b}).top() }

// DecodeStrict is [Decode] that refuses, with [ErrDuplicateName], an
// object at any depth with two members whose names are equal, or equal
// under Unicode case folding (internal/jcs's rule): readers of such text
// disagree on which member is meant (encoding/json and go-sdk take the
// last exact name, many streaming readers the first, encoding/json's struct
// decoding matches names case-insensitively), so what a policy checked or a
// human was shown need not be what a handler reads.
func DecodeStrict(b []byte) (map[string]any, error) { return (&decoder{b: b, strict: true}).top() }

// top decodes the whole text as one object.
func (d *decoder) top() (map[string]any, error) {
	d.space()
	if d.i >= len(d.b) {
		return nil, ErrSyntax
	}
	if d.b[d.i] != '{' {
		if _, err := d.value(0); err != nil {
			return nil, err
		}
		return nil, ErrNotObject
	}
	m, err := d.object(0)
	if err != nil {
		return nil, err
	}
	if d.space(); d.i != len(d.b) {
		return nil, ErrTrailing
	}
	return m, nil
}

// DecodeValue decodes b, one JSON value of any kind with optional
// surrounding whitespace, as [Decode] decodes an object, and refuses with
// [ErrDuplicateName] an object at any depth with two members of exactly one
// name: the decoded map holds only the last, so a scan of it would not see
// what a reader that takes the first member reads. Names that differ only
// in letter case are two members of the map, and kept.
func DecodeValue(b []byte) (any, error) {
	d := decoder{b: b, unique: true}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.space(); d.i != len(d.b) {
		return nil, ErrTrailing
	}
	return v, nil
}

type decoder struct {
	b      []byte
	i      int
	strict bool // DecodeStrict
	unique bool // DecodeValue
}

func (d *decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	d.space()
	if d.i >= len(d.b) {
		return nil, ErrSyntax
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, ErrSyntax
}

func (d *decoder) literal(word string) error {
	if len(d.b)-d.i < len(word) || string(d.b[d.i:d.i+len(word)]) != word {
		return ErrSyntax
	}
	d.i += len(word)
	return nil
}

func (d *decoder) object(depth int) (map[string]any, error) {
	if depth++; depth > MaxDepth {
		return nil, ErrTooDeep
	}
	d.i++ // '{'
	m := map[string]any{}
	if d.space(); d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, nil
	}
	mayFold := false // strict: a name with an upper-case or non-ASCII letter
	for {
		if d.space(); d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, ErrSyntax
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		if d.space(); d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, ErrSyntax
		}
		d.i++
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		if d.strict || d.unique {
			if _, dup := m[k]; dup {
				return nil, ErrDuplicateName
			}
			mayFold = mayFold || d.strict && foldable(k)
		}
		m[k] = v
		if done, err := d.next('}'); done || err != nil {
			if err == nil && mayFold && foldedNames(m) {
				return nil, ErrDuplicateName
			}
			return m, err
		}
	}
}

func (d *decoder) array(depth int) ([]any, error) {
	if depth++; depth > MaxDepth {
		return nil, ErrTooDeep
	}
	d.i++ // '['
	a := []any{}
	if d.space(); d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		if done, err := d.next(']'); done || err != nil {
			return a, err
		}
	}
}

// next reads the ',' between members or elements, or the closing byte.
func (d *decoder) next(end byte) (done bool, err error) {
	if d.space(); d.i >= len(d.b) {
		return false, ErrSyntax
	}
	switch d.b[d.i] {
	case ',':
		d.i++
		return false, nil
	case end:
		d.i++
		return true, nil
	}
	return false, ErrSyntax
}

// number reads a JSON number (RFC 8259 §6) and keeps its text.
func (d *decoder) number() (json.Number, error) {
	start := d.i
	if d.b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case d.digits() == 0:
		return "", ErrSyntax
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if d.digits() == 0 {
			return "", ErrSyntax
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if d.digits() == 0 {
			return "", ErrSyntax
		}
	}
	return json.Number(d.b[start:d.i]), nil
}

func (d *decoder) digits() int {
	n := 0
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
		n++
	}
	return n
}

// str reads a string. Text without escapes that is valid UTF-8 is copied
// as it is; anything else goes through unquote.
func (d *decoder) str() (string, error) {
	d.i++ // '"'
	start := d.i
	simple := true
	for ; d.i < len(d.b); d.i++ {
		switch c := d.b[d.i]; {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			if simple && utf8.Valid(s) {
				return string(s), nil
			}
			return unquote(s)
		case c == '\\':
			simple = false
			if d.i++; d.i >= len(d.b) {
				return "", ErrSyntax
			}
		case c < 0x20:
			return "", ErrSyntax
		}
	}
	return "", ErrSyntax
}

// unquote decodes the body of a string whose escapes may be malformed and
// whose bytes may not be UTF-8.
func unquote(s []byte) (string, error) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			r, n := utf8.DecodeRune(s[i:])
			out = utf8.AppendRune(out, r) // an invalid byte is U+FFFD (n == 1)
			i += n
			continue
		}
		r, n, ok := escape(s[i:])
		if !ok {
			return "", ErrSyntax
		}
		out = utf8.AppendRune(out, r)
		i += n
	}
	return string(out), nil
}

// escape decodes the escape at the start of s ('\' then more): the rune,
// the bytes read and whether it was well formed. A surrogate that does not
// pair with the next escape is U+FFFD.
func escape(s []byte) (rune, int, bool) {
	if len(s) < 2 {
		return 0, 0, false
	}
	switch s[1] {
	case '"', '\\', '/':
		return rune(s[1]), 2, true
	case 'b':
		return '\b', 2, true
	case 'f':
		return '\f', 2, true
	case 'n':
		return '\n', 2, true
	case 'r':
		return '\r', 2, true
	case 't':
		return '\t', 2, true
	case 'u':
		r, ok := hex4(s[2:])
		if !ok {
			return 0, 0, false
		}
		if !utf16.IsSurrogate(r) {
			return r, 6, true
		}
		if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if r2, ok := hex4(s[8:]); ok {
				if p := utf16.DecodeRune(r, r2); p != utf8.RuneError {
					return p, 12, true
				}
			}
		}
		return utf8.RuneError, 6, true
	}
	return 0, 0, false
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

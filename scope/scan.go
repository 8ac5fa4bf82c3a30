package scope

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// maxDepth bounds nesting as encoding/json does (10000), so neither the
// scan nor anything after it goes deeper.
const maxDepth = 10000

// members calls f with the normalized name of every top-level member of
// the JSON object raw that wanted accepts, in order, duplicates included,
// and the leaves of its value: every string (object keys too), number as
// written and boolean, at any depth. Absent or null raw is an empty
// object; anything else but one valid JSON object is ErrArgs.
//
// It scans bytes that json.Valid accepted, decoding only strings that hold
// escapes (with encoding/json, so every escape reads as the handler's
// decoder reads it); membersRef in the tests is the token-stream
// reference it must agree with.
func members(raw json.RawMessage, wanted func(string) bool, f func(nk string, leaves []string)) error {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	if t[0] != '{' || !json.Valid(t) {
		return ErrArgs
	}
	s := scanner{b: t, i: 1}
	for {
		s.space()
		if s.b[s.i] == '}' {
			return nil
		}
		if s.b[s.i] == ',' {
			s.i++
			s.space()
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		s.space()
		s.i++ // ':'
		nk := normalize.Name(key)
		keep := wanted(nk)
		var leaves []string
		if err := s.value(keep, &leaves, 1); err != nil {
			return err
		}
		if keep {
			f(nk, leaves)
		}
	}
}

// scanner walks valid JSON.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// str reads the string at s.i.
func (s *scanner) str() (string, error) {
	start, esc := s.i, false
	for s.i++; s.b[s.i] != '"'; s.i++ {
		switch c := s.b[s.i]; {
		case c == '\\':
			esc = true
			s.i++
		case c >= 0x80:
			esc = true // decoded too: invalid UTF-8 reads as U+FFFD, as for the handler
		}
	}
	s.i++
	if !esc {
		return string(s.b[start+1 : s.i-1]), nil
	}
	var out string
	if err := json.Unmarshal(s.b[start:s.i], &out); err != nil {
		return "", ErrArgs
	}
	return out, nil
}

// value reads the value at s.i, appending its leaves when keep.
func (s *scanner) value(keep bool, leaves *[]string, depth int) error {
	s.space()
	switch c := s.b[s.i]; {
	case c == '"':
		v, err := s.str()
		if keep && err == nil {
			*leaves = append(*leaves, v)
		}
		return err
	case c == '{' || c == '[':
		if depth > maxDepth {
			return ErrArgs
		}
		return s.container(keep, leaves, depth)
	default: // number, true, false, null
		start := s.i
		for s.i < len(s.b) && !delim(s.b[s.i]) {
			s.i++
		}
		if lit := string(s.b[start:s.i]); keep && lit != "null" {
			*leaves = appendScalar(*leaves, lit)
		}
		return nil
	}
}

// container reads an object or array at s.i.
func (s *scanner) container(keep bool, leaves *[]string, depth int) error {
	obj := s.b[s.i] == '{'
	s.i++
	for {
		s.space()
		switch s.b[s.i] {
		case '}', ']':
			s.i++
			return nil
		case ',':
			s.i++
			s.space()
		}
		if obj {
			k, err := s.str()
			if err != nil {
				return err
			}
			if keep {
				*leaves = append(*leaves, k)
			}
			s.space()
			s.i++ // ':'
		}
		if err := s.value(keep, leaves, depth+1); err != nil {
			return err
		}
	}
}

// appendScalar appends a number or boolean literal as written and, for a
// number, the shortest decimal of the float64 a handler decodes it to when
// that is spelled otherwise: -0, 0.0 and 0e5 are "0", 1e2 and 100.0 are
// "100", 1.50 is "1.5". A pattern matches the value whatever its spelling.
// Values from 1e21 and below 1e-6 in magnitude use the exponent form
// ("1e+21"), so no leaf is longer than about 25 bytes.
func appendScalar(leaves []string, lit string) []string {
	leaves = append(leaves, lit)
	if lit == "true" || lit == "false" {
		return leaves
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil { // out of range: no float64 (a handler's decode fails too)
		return leaves
	}
	var v string
	switch a := math.Abs(f); {
	case a == 0:
		v = "0"
	case a >= 1e-6 && a < 1e21:
		v = strconv.FormatFloat(f, 'f', -1, 64)
	default:
		v = strconv.FormatFloat(f, 'g', -1, 64)
	}
	if v != lit {
		leaves = append(leaves, v)
	}
	return leaves
}

func delim(c byte) bool {
	switch c {
	case ',', ']', '}', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

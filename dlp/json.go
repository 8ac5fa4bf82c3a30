package dlp

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// RedactJSON redacts a JSON document: every string value and every object key
// is decoded (so a secret split by escapes such as \u0041KIA... is found),
// redacted as text and re-encoded; number literals are scanned too and, when
// they hold a secret, become the string "[REDACTED:<name>]". Everything else,
// including whitespace and key order, is kept byte for byte.
//
// The output is always valid JSON. Invalid input is an error wrapping
// [ErrInvalidJSON] and nil output: fail closed, never forward the input.
// Ranges in the findings are input byte offsets: exact for strings without
// escapes, else the whole string token. Two keys redacted to the same marker
// stay two (duplicate) keys. A secret split across two strings is not found.
func (s *Scanner) RedactJSON(raw []byte) ([]byte, []Finding, error) {
	if !json.Valid(raw) {
		return nil, nil, fmt.Errorf("%w: the document does not parse", ErrInvalidJSON)
	}
	var (
		agg  = aggregator{s: s}
		out  []byte
		last int // raw[:last] is already in out (when out != nil)
	)
	flush := func(upto int) {
		if out == nil {
			out = make([]byte, 0, len(raw)+64)
		}
		out = append(out, raw[last:upto]...)
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '"':
			j, escaped := stringEnd(raw, i)
			tok := raw[i:j]
			var val string
			if escaped {
				if err := json.Unmarshal(tok, &val); err != nil {
					return nil, nil, fmt.Errorf("%w: %v", ErrInvalidJSON, err)
				}
			} else {
				val = string(tok[1 : len(tok)-1])
			}
			red, f := s.Redact(val)
			if f != nil {
				addJSON(&agg, f, i, j, escaped, 1)
				flush(i)
				out = appendJSONString(out, red)
				last = j
			}
			i = j
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(raw) && isNumberByte(raw[j]) {
				j++
			}
			red, f := s.Redact(string(raw[i:j]))
			if f != nil {
				addJSON(&agg, f, i, j, false, 0)
				flush(i)
				out = appendJSONString(out, red)
				last = j
			}
			i = j
		default:
			i++
		}
	}
	if out == nil {
		return raw, nil, nil
	}
	flush(len(raw))
	return out, agg.list(), nil
}

// stringEnd returns the end (after the closing quote) of the JSON string
// starting at raw[i], and whether it holds escapes. raw is valid JSON.
func stringEnd(raw []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(raw), escaped
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// addJSON records findings of the token raw[i:j], whose text starts at
// i+shift, in input coordinates.
func addJSON(a *aggregator, fs []Finding, i, j int, escaped bool, shift int) {
	for _, f := range fs {
		g := Finding{Rule: f.Rule, Count: f.Count}
		for _, r := range f.Ranges {
			if escaped {
				r.Start, r.End = i, j
			} else {
				r.Start, r.End = r.Start+i+shift, r.End+i+shift
			}
			g.Ranges = append(g.Ranges, r)
		}
		a.merge(g)
	}
}

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+w]...)
		}
		i += w
	}
	return append(dst, '"')
}

package dlp

import (
	"encoding/json"
	"fmt"
	"unicode/utf16"
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
			val := string(tok[1 : len(tok)-1])
			if escaped {
				val = decodeJSONString(tok)
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

// decodeJSONString decodes a valid JSON string token (quotes included) the
// way encoding/json does: invalid UTF-8 and a surrogate escape that is not
// part of a pair become U+FFFD.
func decodeJSONString(tok []byte) string {
	b := make([]byte, 0, len(tok))
	for i := 1; i < len(tok)-1; i++ {
		c := tok[i]
		if c >= utf8.RuneSelf {
			r, w := utf8.DecodeRune(tok[i : len(tok)-1])
			b = utf8.AppendRune(b, r) // invalid UTF-8 becomes U+FFFD
			i += w - 1
			continue
		}
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		switch tok[i] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := rune(hex4(tok[i+1 : i+5]))
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if i+6 < len(tok) && tok[i+1] == '\\' && tok[i+2] == 'u' {
					r2 = utf16.DecodeRune(r, rune(hex4(tok[i+3:i+7])))
				}
				if r2 != utf8.RuneError {
					i += 6
				}
				r = r2
			}
			b = utf8.AppendRune(b, r)
		default: // '"', '\\', '/'
			b = append(b, tok[i])
		}
	}
	return string(b)
}

func hex4(h []byte) uint32 {
	var v uint32
	for _, c := range h {
		v = v<<4 | uint32(unhex(c))
	}
	return v
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

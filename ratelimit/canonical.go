package ratelimit

import (
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"unicode/utf16"

	"github.com/gowebpki/jcs"
)

// appendCanonical appends the RFC 8785 (JCS) form of v, which checkJSON has
// accepted, to b. It writes Go values directly instead of marshalling and
// re-parsing; TestCanonicalMatchesJCS checks it against jcs.Transform of
// json.Marshal output. Numbers use jcs.NumberToJSON (ECMAScript formatting).
func appendCanonical(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return appendJCSString(b, x), nil
	case float64:
		return appendFloat(b, x)
	case float32:
		// As encoding/json writes it: the shortest decimal of the float32,
		// read back as a JSON (double) number.
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return appendFloat(b, f)
	case int:
		return appendInt(b, int64(x))
	case int8:
		return appendInt(b, int64(x))
	case int16:
		return appendInt(b, int64(x))
	case int32:
		return appendInt(b, int64(x))
	case int64:
		return appendInt(b, x)
	case uint:
		return appendUint(b, uint64(x))
	case uint8:
		return appendUint(b, uint64(x))
	case uint16:
		return appendUint(b, uint64(x))
	case uint32:
		return appendUint(b, uint64(x))
	case uint64:
		return appendUint(b, x)
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, err
		}
		return appendFloat(b, f)
	case json.RawMessage:
		c, err := jcs.Transform(x)
		if err != nil {
			return nil, err
		}
		return append(b, c...), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendCanonical(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case []string:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJCSString(b, e)
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := sortedKeys(x)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendJCSString(b, k), ':')
			var err error
			if b, err = appendCanonical(b, x[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = e
		}
		return appendCanonical(b, m)
	}
	return nil, &badJSON{why: "is not a JSON value"}
}

func (b *badJSON) Error() string { return b.why }

func appendUint(b []byte, u uint64) ([]byte, error) {
	if u <= 1<<53 {
		return strconv.AppendUint(b, u, 10), nil
	}
	return appendFloat(b, float64(u))
}

// appendInt writes integers exactly while a float64 holds them exactly, as
// ECMAScript would; beyond 2^53 JSON numbers are doubles under JCS.
func appendInt(b []byte, n int64) ([]byte, error) {
	if n >= -(1<<53) && n <= 1<<53 {
		return strconv.AppendInt(b, n, 10), nil
	}
	return appendFloat(b, float64(n))
}

func appendFloat(b []byte, f float64) ([]byte, error) {
	if f == float64(int64(f)) && f >= -(1<<53) && f <= 1<<53 {
		return strconv.AppendInt(b, int64(f), 10), nil // also turns -0 into 0
	}
	s, err := jcs.NumberToJSON(f)
	if err != nil {
		return nil, err
	}
	return append(b, s...), nil
}

// appendJCSString quotes s as RFC 8785 §3.2.2.2 says: only '"', '\\' and
// control characters are escaped, with the short forms where JSON has them.
func appendJCSString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20:
			b = append(b, c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	return append(b, '"')
}

// sortedKeys orders keys by their UTF-16 code units (RFC 8785 §3.2.3).
// That is byte order unless a key has a character above U+FFFF.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	wide := false
	for k := range m {
		keys = append(keys, k)
		if !wide {
			for i := 0; i < len(k); i++ {
				if k[i] >= 0xF0 { // a 4-byte UTF-8 sequence
					wide = true
					break
				}
			}
		}
	}
	if !wide {
		slices.Sort(keys)
		return keys
	}
	slices.SortFunc(keys, func(a, b string) int {
		return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
	})
	return keys
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

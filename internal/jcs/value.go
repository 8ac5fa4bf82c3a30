package jcs

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// AppendValue appends the canonical form under r of the Go value v to dst:
// the bytes [Transform] gives for v's JSON text. v must be plain JSON: nil,
// bool, a valid UTF-8 string, a finite number (Go integer or float, or
// json.Number), json.RawMessage, []any, []string, map[string]any or
// map[string]string, nested at most [MaxDepth] deep. Anything else, NaN,
// ±Inf and invalid UTF-8 included, is refused with an error wrapping
// [ErrInvalid]; messages never quote values.
//
// A Go integer beyond ±2^53 or a float is a number like its decimal text:
// under Exact, an integer whose RFC 8785 form denotes another value is
// refused. A float64 is the double itself and always exact.
func AppendValue(dst []byte, v any, r Rule) ([]byte, error) {
	e := encPool.Get().(*encoder)
	e.rule, e.depth = r, 0
	out, err := e.value(dst, v)
	e.keys = e.keys[:0]
	encPool.Put(e)
	return out, err
}

var encPool = sync.Pool{New: func() any { return new(encoder) }}

type encoder struct {
	rule  Rule
	depth int
	keys  []string // stack of sorted keys of the maps being written
	folds folder
	canon *Canonicalizer // for json.RawMessage
}

func valueError(msg string, kind error) error { return &Error{msg: msg, at: -1, kind: kind} }

func (e *encoder) value(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		if !utf8.ValidString(x) {
			return nil, valueError("a string is not valid UTF-8", nil)
		}
		return AppendString(b, x), nil
	case float64:
		return appendFloat(b, x)
	case float32:
		// As encoding/json writes it: the shortest decimal of the float32,
		// read back as a JSON (double) number.
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return appendFloat(b, f)
	case int:
		return e.int(b, int64(x))
	case int8:
		return e.int(b, int64(x))
	case int16:
		return e.int(b, int64(x))
	case int32:
		return e.int(b, int64(x))
	case int64:
		return e.int(b, x)
	case uint:
		return e.uint(b, uint64(x))
	case uint8:
		return e.uint(b, uint64(x))
	case uint16:
		return e.uint(b, uint64(x))
	case uint32:
		return e.uint(b, uint64(x))
	case uint64:
		return e.uint(b, x)
	case json.Number:
		return e.number(b, string(x))
	case json.RawMessage:
		return e.raw(b, x)
	case []any:
		return e.array(b, len(x), func(b []byte, i int) ([]byte, error) { return e.value(b, x[i]) })
	case []string:
		return e.array(b, len(x), func(b []byte, i int) ([]byte, error) { return e.value(b, x[i]) })
	case map[string]any:
		return writeMap(e, b, x)
	case map[string]string:
		return writeMap(e, b, x)
	}
	return nil, valueError("a value of a Go type that is not plain JSON", nil)
}

func (e *encoder) enter() error {
	e.depth++
	if e.depth > MaxDepth {
		return valueError("nesting deeper than "+strconv.Itoa(MaxDepth), nil)
	}
	return nil
}

func (e *encoder) array(b []byte, n int, elem func([]byte, int) ([]byte, error)) ([]byte, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	b = append(b, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = elem(b, i); err != nil {
			return nil, err
		}
	}
	e.depth--
	return append(b, ']'), nil
}

func writeMap[V any](e *encoder, b []byte, m map[string]V) ([]byte, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	base := len(e.keys)
	for k := range m {
		if !utf8.ValidString(k) {
			return nil, valueError("a member name is not valid UTF-8", nil)
		}
		e.keys = append(e.keys, k)
	}
	keys := e.keys[base:]
	sortKeys(keys)
	if !e.rule.AllowFoldedNames {
		if i, j, ok := foldDup(&e.folds, keys, func(k *string) string { return *k }); ok {
			return nil, valueError("member names "+strconv.Quote(string(cut([]byte(keys[i]))))+" and "+strconv.Quote(string(cut([]byte(keys[j]))))+" differ only in letter case (Unicode case folding)", ErrFoldedNames)
		}
	}
	b = append(b, '{')
	for i := range keys {
		k := e.keys[base+i] // e.keys may grow while writing nested maps
		if i > 0 {
			b = append(b, ',')
		}
		b = append(AppendString(b, k), ':')
		var err error
		if b, err = e.value(b, m[k]); err != nil {
			return nil, err
		}
	}
	e.keys = e.keys[:base]
	e.depth--
	return append(b, '}'), nil
}

// sortKeys orders keys by their UTF-16 code units (RFC 8785 §3.2.3): byte
// order unless a key has a character above U+FFFF.
func sortKeys(keys []string) {
	for _, k := range keys {
		for i := 0; i < len(k); i++ {
			if k[i] >= 0xF0 { // a 4-byte UTF-8 sequence
				slices.SortFunc(keys, func(a, b string) int {
					return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
				})
				return
			}
		}
	}
	slices.Sort(keys)
}

func (e *encoder) number(b []byte, n string) ([]byte, error) {
	out, err := appendNumber(b, []byte(n), e.rule.Numbers)
	switch {
	case err == errInexact:
		return nil, valueError("a number is not exact as an IEEE-754 double", ErrInexactNumber)
	case err != nil:
		return nil, valueError("a json.Number is not a JSON number", nil)
	}
	return out, nil
}

func (e *encoder) raw(b []byte, x json.RawMessage) ([]byte, error) {
	if e.canon == nil {
		e.canon = new(Canonicalizer)
	}
	e.canon.rule = e.rule
	out, err := e.canon.Transform(x)
	if err != nil {
		return nil, err
	}
	return append(b, out...), nil
}

func (e *encoder) int(b []byte, n int64) ([]byte, error) {
	if n >= -(1<<53) && n <= 1<<53 {
		return strconv.AppendInt(b, n, 10), nil
	}
	return e.number(b, strconv.FormatInt(n, 10))
}

func (e *encoder) uint(b []byte, u uint64) ([]byte, error) {
	if u <= 1<<53 {
		return strconv.AppendUint(b, u, 10), nil
	}
	return e.number(b, strconv.FormatUint(u, 10))
}

func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, valueError("a number is not finite", nil)
	}
	if f == math.Trunc(f) && f >= -(1<<53) && f <= 1<<53 {
		return strconv.AppendInt(b, int64(f), 10), nil // also turns -0 into 0
	}
	s, err := jcs.NumberToJSON(f)
	if err != nil {
		return nil, valueError("a number has no RFC 8785 form", nil)
	}
	return append(b, s...), nil
}

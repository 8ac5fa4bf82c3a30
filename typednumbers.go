package gatehouse

import (
	"encoding/json"
	"strconv"
	"strings"
)

// typedNumbers returns args with every number as go-sdk's typed tools
// (mcp.AddTool) hand it to the handler, and whether any differs in value
// from what the client sent: they decode the arguments into float64 and
// encode them again before the handler decodes them, so
// 999.99999999999999999, which an amount pattern of three integer digits
// allows, reaches the handler as 1000. A number only spelled otherwise
// (1.50, 1E+2) is left as sent. A number beyond float64's range is left
// too: go-sdk refuses the call.
func typedNumbers(args map[string]any) (map[string]any, bool) {
	out, changed := typedValue(args)
	if !changed {
		return args, false
	}
	return out.(map[string]any), true
}

func typedValue(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		return typedNumber(x)
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			if t, ok := typedValue(e); ok {
				if out == nil {
					out = make(map[string]any, len(x))
					for k2, e2 := range x {
						out[k2] = e2
					}
				}
				out[k] = t
			}
		}
		return out, out != nil
	case []any:
		var out []any
		for i, e := range x {
			if t, ok := typedValue(e); ok {
				if out == nil {
					out = append([]any(nil), x...)
				}
				out[i] = t
			}
		}
		return out, out != nil
	}
	return v, false
}

// typedNumber returns n as encoding/json writes the float64 nearest it,
// and whether that is another value.
func typedNumber(n json.Number) (json.Number, bool) {
	if len(n) <= 15 && !strings.ContainsAny(string(n), "eE") {
		return n, false // at most 15 digits, no exponent: float64 holds it exactly enough to give it back
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return n, false // beyond float64: go-sdk's decoding refuses the call
	}
	k1, ok1 := decimalKey(string(n))
	k2, ok2 := decimalKey(strconv.FormatFloat(f, 'e', -1, 64))
	if ok1 && ok2 && k1 == k2 {
		return n, false
	}
	b, err := json.Marshal(f)
	if err != nil {
		return n, false // not reached: f is finite
	}
	return json.Number(b), true
}

// decimalKey is a JSON number's value as significant digits and a power of
// ten ("1.50" and "15e-1" are both "15e-1"); ok is false when the exponent
// does not fit an int (the caller then takes the value as changed).
func decimalKey(s string) (string, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > 1<<20 || e < -(1<<20) {
			return "", false
		}
		exp, s = e, s[:i]
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		exp -= len(s) - i - 1
		s = s[:i] + s[i+1:]
	}
	s = strings.TrimLeft(s, "0")
	for strings.HasSuffix(s, "0") {
		s = s[:len(s)-1]
		exp++
	}
	if s == "" {
		return "0", true // -0 and 0 alike: float64 keeps the sign, the value is zero
	}
	if neg {
		s = "-" + s
	}
	return s + "e" + strconv.Itoa(exp), true
}

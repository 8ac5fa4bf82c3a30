package mcpredact

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rebuild returns a new value of v's type (a pointer to a go-sdk struct)
// whose JSON is tree, the rewritten JSON of v decoded with json.Number
// numbers, keeping every number as written. go-sdk's types hold numbers
// of their `any` fields (structured content, _meta values, schemas) as
// float64, so decoding the tree into them would turn 9007199254740993
// into 9007199254740992 and refuse 1e400: redaction would change data it
// did not redact. So the struct's top-level `any` and map fields get the
// tree's members as raw JSON; the rest is decoded into the type, and the
// copy is refused (ErrUnscannable with ErrInexactNumber: the caller
// withholds it) when a number of its JSON has another value than the
// tree's at the same place, as for a number nested further down (a content
// item's _meta) that float64 cannot hold; another spelling of the same
// value (1.0 for 1) is not a change.
func rebuild(v, tree any) (any, error) {
	t := reflect.TypeOf(v)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("%w: %T is not a pointer to a struct, no copy can be made", ErrUnscannable, v)
	}
	members, _ := tree.(map[string]any)
	raw := map[int]json.RawMessage{} // field index -> the member's JSON
	rest := make(map[string]any, len(members))
	for name, m := range members {
		rest[name] = m
	}
	for i := range t.Elem().NumField() {
		f := t.Elem().Field(i)
		name := jsonName(f)
		m, ok := members[name]
		if !ok || !f.IsExported() || !rawField(f.Type) {
			continue
		}
		b, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("%w: %T: %v", ErrUnscannable, v, err)
		}
		raw[i] = b
		delete(rest, name)
	}
	b, err := json.Marshal(rest)
	if err != nil {
		return nil, fmt.Errorf("%w: %T: %v", ErrUnscannable, v, err)
	}
	nv := reflect.New(t.Elem())
	if err := json.Unmarshal(b, nv.Interface()); err != nil {
		if outOfRange(rest) {
			return nil, fmt.Errorf("%w: the rewritten %T %w: one nested in it is out of float64's range", ErrUnscannable, v, ErrInexactNumber)
		}
		return nil, fmt.Errorf("%w: the rewritten %T does not decode: %v", ErrUnscannable, v, err)
	}
	for i, b := range raw {
		if err := setRaw(nv.Elem().Field(i), b); err != nil {
			return nil, fmt.Errorf("%w: %T: %v", ErrUnscannable, v, err)
		}
	}
	if err := sameJSON(nv.Interface(), tree); err != nil {
		return nil, fmt.Errorf("%w: the rewritten %T %w", ErrUnscannable, v, err)
	}
	return nv.Interface(), nil
}

// jsonName is the member name of a struct field.
func jsonName(f reflect.StructField) string {
	tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if tag == "" {
		return f.Name
	}
	return tag
}

var (
	anyType  = reflect.TypeFor[any]()
	metaType = reflect.TypeFor[mcp.Meta]()
	mapType  = reflect.TypeFor[map[string]any]()
)

// rawField reports whether a field of type t can hold raw JSON: `any`, or
// a map of `any` (mcp.Meta), whose values can.
func rawField(t reflect.Type) bool { return t == anyType || t == metaType || t == mapType }

// setRaw sets f (a rawField) to b: as one json.RawMessage for `any`, as
// one per member for a map.
func setRaw(f reflect.Value, b json.RawMessage) error {
	if f.Type() == anyType {
		f.Set(reflect.ValueOf(b))
		return nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	if members == nil {
		return nil
	}
	m := reflect.MakeMapWithSize(f.Type(), len(members))
	for k, e := range members {
		m.SetMapIndex(reflect.ValueOf(k), reflect.ValueOf(e))
	}
	f.Set(m)
	return nil
}

// sameJSON reports, as an error, whether a number of v's JSON differs
// from the one at the same place in tree. Only numbers are compared:
// go-sdk writes some empty members its own way (a nil content list as []),
// which changes nothing the client reads.
func sameJSON(v, tree any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("does not marshal: %v", err)
	}
	got, err := decodeTree(b)
	if err != nil {
		return fmt.Errorf("does not decode: %v", err)
	}
	if !numbersKept(got, tree) {
		return fmt.Errorf("%w: one nested in it cannot be held exactly", ErrInexactNumber)
	}
	return nil
}

// numbersKept reports whether every number of want is at the same place
// in got, written the same way.
func numbersKept(got, want any) bool {
	switch w := want.(type) {
	case json.Number:
		g, ok := got.(json.Number)
		return ok && sameNumber(string(g), string(w))
	case map[string]any:
		g, _ := got.(map[string]any)
		for k, e := range w {
			if !numbersKept(g[k], e) {
				return false
			}
		}
	case []any:
		g, _ := got.([]any)
		for i, e := range w {
			if i >= len(g) {
				return !hasNumber(w[i:])
			}
			if !numbersKept(g[i], e) {
				return false
			}
		}
	}
	return true
}

// sameNumber reports whether two JSON numbers have the same value, however
// written: go-sdk writes 1.0 as 1, 1e3 as 1000 and 0.10 as 0.1, which
// changes nothing a reader reads (a schema's "maximum": 1.0 made every
// redacted tools/list withheld), while 9007199254740993 written as
// 9007199254740992 is another number. The comparison is exact, on the
// decimal digits and exponent; a number too large to compare that way
// must be written the same.
func sameNumber(a, b string) bool {
	if a == b {
		return true
	}
	ca, okA := canonicalNumber(a)
	cb, okB := canonicalNumber(b)
	return okA && okB && ca == cb
}

// canonicalNumber returns a JSON number as its sign, significant digits
// and exponent ("-125e-2" for -1.250), zero as "0", or false when it is not
// a JSON number or its exponent is out of int64's range.
func canonicalNumber(n string) (string, bool) {
	neg := strings.HasPrefix(n, "-")
	n = strings.TrimPrefix(n, "-")
	mant, exp, hasExp := strings.Cut(strings.ToLower(n), "e")
	var e int64
	if hasExp {
		var err error
		if e, err = strconv.ParseInt(exp, 10, 64); err != nil || e > 1<<53 || e < -1<<53 {
			return "", false
		}
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits := whole + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	e -= int64(len(frac))
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0", true
	}
	t := strings.TrimRight(digits, "0")
	e += int64(len(digits) - len(t))
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + t + "e" + strconv.FormatInt(e, 10), true
}

// hasNumber reports whether v holds a number anywhere.
func hasNumber(v any) bool { return anyNumber(v, func(json.Number) bool { return true }) }

// outOfRange reports whether v holds a number float64 cannot hold.
func outOfRange(v any) bool {
	return anyNumber(v, func(n json.Number) bool { _, err := strconv.ParseFloat(string(n), 64); return err != nil })
}

// anyNumber reports whether a number of v satisfies f.
func anyNumber(v any, f func(json.Number) bool) bool {
	switch x := v.(type) {
	case json.Number:
		return f(x)
	case map[string]any:
		for _, e := range x {
			if anyNumber(e, f) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if anyNumber(e, f) {
				return true
			}
		}
	}
	return false
}

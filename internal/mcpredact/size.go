package mcpredact

import (
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxSizeDepth bounds the walk of Size; deeper values count as nothing (the
// JSON encoder refuses cycles anyway, and redaction fails closed on them).
const maxSizeDepth = 64

// Size is a cheap estimate of the bytes res carries: the lengths of its
// strings and map keys, byte slices as their base64 length, 8 bytes per other
// scalar. It walks the value without marshalling it, for a MaxResultBytes
// check before redaction. Nil counts 0.
func Size(res mcp.Result) int {
	if isNil(res) {
		return 0
	}
	if n, ok := plainTextSize(res); ok {
		return n
	}
	return size(reflect.ValueOf(res), 0)
}

// plainTextSize is Size of the common result, text items and nothing else
// (the shape plainTextClean takes), without reflection: the sum of its
// texts, which is all of its size that a handler chooses.
func plainTextSize(res mcp.Result) (int, bool) {
	r, ok := res.(*mcp.CallToolResult)
	if !ok || r.Meta != nil || r.StructuredContent != nil || r.InputRequests != nil || r.RequestState != "" {
		return 0, false
	}
	n := 0
	for _, c := range r.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || t == nil || t.Meta != nil || t.Annotations != nil {
			return 0, false
		}
		n += len(t.Text)
	}
	return n, true
}

func size(v reflect.Value, depth int) int {
	if depth > maxSizeDepth || !v.IsValid() {
		return 0
	}
	switch v.Kind() {
	case reflect.String:
		return v.Len()
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return 0
		}
		return size(v.Elem(), depth+1)
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return (v.Len() + 2) / 3 * 4
		}
		n := 0
		for i := 0; i < v.Len(); i++ {
			n += size(v.Index(i), depth+1)
		}
		return n
	case reflect.Map:
		n := 0
		it := v.MapRange()
		for it.Next() {
			n += size(it.Key(), depth+1) + size(it.Value(), depth+1)
		}
		return n
	case reflect.Struct:
		n := 0
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				n += size(v.Field(i), depth+1)
			}
		}
		return n
	}
	return 8
}

package argjson_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/argjson"
)

// stdDecode is what argjson must equal: encoding/json's Decoder with
// UseNumber into a map[string]any, then nothing but whitespace.
func stdDecode(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil { // the text was null
		return nil, errors.New("null")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return m, nil
}

// corpus holds texts that are valid, near misses and malformed, each of
// which argjson must decode exactly as encoding/json does.
var corpus = []string{
	`{}`, ` { } `, "{\t\n\r}", `{"a":1}`, `{"a":-0.5e+10}`, `{"a":1E3,"b":0,"c":-0}`,
	`{"a":"x","a":"y"}`, `{"a":[1,"2",true,false,null,{},[]]}`, `{"a":{"b":{"c":[[[]]]}}}`,
	`{"u":"\u00e9\u4e2d\ud83d\ude00"}`, `{"u":"\ud83d"}`, `{"u":"\ude00"}`, `{"u":"\ud83d\u0041"}`,
	`{"u":"\ud83d\ud83d"}`, `{"u":"\ud83dx"}`, `{"e":"\"\\\/\b\f\n\r\t"}`, "{\"bad\":\"\xff\xfe\"}",
	"{\"k\xff\":1}", `{"path":"/etc/passwd","PATH":"x"}`, `{"n":123456789012345678901234567890}`,
	`{"n":1.0000000000000000000000001}`, `{"s":"` + strings.Repeat("é", 50) + `"}`,
	// malformed
	``, ` `, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,"a":1}`, `{"a":1 "b":2}`, `{"a":01}`,
	`{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":1e}`, `{"a":1e+}`, `{"a":+1}`, `{"a":0x10}`,
	`{"a":tru}`, `{"a":nul}`, `{"a":True}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`,
	"{\"a\":\"\x01\"}", "{\"a\":\"\\\x01\"}", `{"a":"unterminated}`, `{"a":1}x`, `{"a":1}{}`,
	`{"a":1} {"b":2}`, `{"a":[1,2}`, `{"a":[1,,2]}`, `{"a":[,]}`, `{a:1}`, `{'a':1}`,
	`[1]`, `"s"`, `1`, `null`, `true`, `{"a":NaN}`, `{"a":Infinity}`, "\ufeff{}",
	`{"a":1}/*c*/`, `{"a":"\ud83d\u"}`, `{"a":"\ud83d\uZZZZ"}`,
}

func TestMatchesEncodingJSON(t *testing.T) {
	for _, in := range corpus {
		check(t, []byte(in))
	}
}

func TestDepthBound(t *testing.T) {
	for _, n := range []int{argjson.MaxDepth - 1, argjson.MaxDepth, argjson.MaxDepth + 1} {
		in := `{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`
		check(t, []byte(in))
	}
	_, err := argjson.Decode([]byte(`{"a":` + strings.Repeat("[", argjson.MaxDepth) + strings.Repeat("]", argjson.MaxDepth) + `}`))
	if !errors.Is(err, argjson.ErrTooDeep) {
		t.Fatalf("depth %d: err %v, want ErrTooDeep", argjson.MaxDepth+1, err)
	}
}

func TestErrorKinds(t *testing.T) {
	for in, want := range map[string]error{`[1]`: argjson.ErrNotObject, `{} x`: argjson.ErrTrailing, `{}{}`: argjson.ErrTrailing, `{"a":1}]`: argjson.ErrTrailing, `{"a":}`: argjson.ErrSyntax, ``: argjson.ErrSyntax} {
		if _, err := argjson.Decode([]byte(in)); !errors.Is(err, want) {
			t.Errorf("%q: err %v, want %v", in, err, want)
		}
	}
}

func check(t *testing.T, in []byte) {
	t.Helper()
	got, gerr := argjson.Decode(in)
	want, werr := stdDecode(in)
	if (gerr != nil) != (werr != nil) {
		t.Fatalf("%q: argjson err %v, encoding/json err %v", in, gerr, werr)
	}
	if gerr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: argjson %#v, encoding/json %#v", in, got, want)
	}
}

func FuzzMatchesEncodingJSON(f *testing.F) {
	for _, in := range corpus {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) { check(t, in) })
}

func BenchmarkDecode(b *testing.B) {
	in := []byte(`{"url":"https://github.com/gatehouse-dev/gatehouse"}`)
	b.Run("argjson", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := argjson.Decode(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("argjson-strict", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := argjson.DecodeStrict(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := stdDecode(in); err != nil {
				b.Fatal(err)
			}
		}
	})
}

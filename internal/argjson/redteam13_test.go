package argjson_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	sjson "github.com/segmentio/encoding/json"

	"github.com/gatehouse-dev/gatehouse/internal/argjson"
)

// Near misses: the policy's view of a string, a member name, a duplicate or
// an error is what go-sdk's decoder (segmentio/encoding/json, UseNumber)
// gives: invalid UTF-8, lone and reversed surrogates, BOM, NUL, vertical
// tab and form feed. Numbers differ only in type without UseNumber (the
// root's typedNumbers covers what float64 does to them).
func TestRedTeam13_AgreesWithGoSDKDecoder(t *testing.T) {
	in := []string{
		`{"a":"x","a":"y"}`,
		"{\"a\":\"\xff\"}",
		"{\"a\xff\":1}",
		`{"a":"\ud800"}`,
		`{"a":"\ud800\u0041"}`,
		`{"a":"\udc00\ud800"}`,
		`{"a":"\ud83d\ude00"}`,
		`{"\ud800":1,"\udfff":2}`,
		"\xef\xbb\xbf{\"a\":1}",
		"{\"a\":1}\xef\xbb\xbf",
		"{\"a\":1}\x00",
		"{\"a\":1} \f",
		"{\"a\":\t1\v}",
		`{"a":1e400}`,
		`{"a":9007199254740993}`,
		`{"a":-0}`,
		`{"a":01}`,
		`{"a":1.}`,
		`{"a":"\u0000"}`,
		"{\"a\":\"\x7f\"}",
		"{\"a\":\"\xed\xa0\x80\"}",
		"{\"a\":\"\xc0\xaf\"}",
		"{\"a\":\"\xf4\x90\x80\x80\"}",
		`{"a":"\u002Fetc"}`,
		`{"a":tru}`,
		`{"a":[1,]}`,
		`{"a":{},}`,
		`{"a":1}{"b":2}`,
		`{"a":1} x`,
		"{\"a\":\"\u2028\"}",
		`{"a":"\x41"}`,
		`{"a":"\U0041"}`,
		`{"a":"\'"}`,
		`{"a":NaN}`,
		`{"a":+1}`,
		`{"a":0x10}`,
		`{"a":.5}`,
		`{"a":1E+2}`,
		`{"a":nul}`,
		`{"a":"\ud800\ud800\udc00"}`,
		`{"a":"\uD834\uDD1E"}`,
		`{"a":"\ud800\\"}`,
	}
	for _, s := range in {
		m1, e1 := argjson.Decode([]byte(s))
		var m2 map[string]any
		dec := sjson.NewDecoder(bytes.NewReader([]byte(s)))
		dec.UseNumber()
		e2 := dec.Decode(&m2)
		if e2 == nil {
			var extra any
			if dec.Decode(&extra) != io.EOF {
				e2 = errors.New("trailing data")
			}
		}
		var m3 map[string]any
		e3 := json.Unmarshal([]byte(s), &m3)
		same := (e1 == nil) == (e2 == nil) && (e1 != nil || reflect.DeepEqual(fmt.Sprintf("%q", m1), fmt.Sprintf("%q", m2)))
		if !same {
			t.Errorf("%q: argjson %q %v | segmentio %q %v | std %q %v", s, m1, e1, m2, e2, m3, e3)
		}
	}
}

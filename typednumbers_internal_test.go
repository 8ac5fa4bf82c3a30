package gatehouse

import (
	"encoding/json"
	"reflect"
	"testing"
)

// typedNumber gives what a typed handler receives only when the value
// changes: another spelling of the same value is left as sent.
func TestTypedNumber(t *testing.T) {
	for in, want := range map[string]string{
		"1.50": "", "1E+2": "", "0.1": "", "-0": "", "0e5": "", "100e-2": "", "123456789012345": "",
		"1.7976931348623157e309": "", // beyond float64: go-sdk refuses the call
		"999.99999999999999999":  "1000",
		"9007199254740993":       "9007199254740992",
		"1e-400":                 "0",
		"-1e-400":                "-0",
		"0.30000000000000000001": "0.3",
		"1e99999999999":          "",
	} {
		got, changed := typedNumber(json.Number(in))
		if want == "" {
			if changed {
				t.Errorf("%s: changed to %s", in, got)
			}
			continue
		}
		if !changed || string(got) != want {
			t.Errorf("%s: %s %v, want %s", in, got, changed, want)
		}
	}
	args := map[string]any{"a": []any{json.Number("1"), map[string]any{"b": json.Number("9007199254740993")}}, "c": "x"}
	out, changed := typedNumbers(args)
	want := map[string]any{"a": []any{json.Number("1"), map[string]any{"b": json.Number("9007199254740992")}}, "c": "x"}
	if !changed || !reflect.DeepEqual(out, want) {
		t.Fatalf("nested: %v %v", out, changed)
	}
	if args["a"].([]any)[1].(map[string]any)["b"] != json.Number("9007199254740993") {
		t.Fatal("the arguments as sent were changed")
	}
}

package scope

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// collect runs a members implementation over raw, keeping every key.
func collect(impl func(json.RawMessage, func(string) bool, func(string, []string)) error, raw []byte) ([]string, error) {
	var out []string
	err := impl(raw, func(string) bool { return true }, func(nk string, leaves []string) {
		out = append(out, fmt.Sprintf("%q=%q", nk, leaves))
	})
	return out, err
}

var membersSeeds = []string{
	``, `null`, ` {} `, `{"env":"prod"}`, `{"ENV":"PROD","env":"dev"}`, `{"e\u200bnv":"pr\u00f6d"}`,
	`{"a":[1,2.5e3,-0,true,false,null,"x"],"b":{"c":{"d":["y",{"e":"z"}]}}}`, `{"k":"\ud800"}`,
	"{\"k\":\"pr\xffod\"}", `{"k":"a\"b\\c\/d\n"}`, `{ "a" : [ ] , "b" : { } }`, `[]`, `"x"`, `{"a":1}x`,
	`{"a":}`, `{"a":1,}`, `{"a" 1}`, `{"a":tru}`,
}

// deepSeeds stay out of the fuzz corpus (slow to mutate).
var deepSeeds = []string{
	`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
	`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
}

// TestMembersAgreesWithReference: the byte scanner and the token-stream
// reference see the same members, leaves and errors.
func TestMembersAgreesWithReference(t *testing.T) {
	for _, s := range append(membersSeeds, deepSeeds...) {
		checkMembers(t, []byte(s))
	}
}

// FuzzMembers: the byte scanner never panics and agrees with the
// reference on every input.
func FuzzMembers(f *testing.F) {
	for _, s := range membersSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkMembers(t, raw) })
}

func checkMembers(t *testing.T, raw []byte) {
	t.Helper()
	got, gerr := collect(members, raw)
	want, werr := collect(membersRef, raw)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%.200q: error %v, reference %v", raw, gerr, werr)
	}
	if gerr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200q:\n got %v\nwant %v", raw, got, want)
	}
}

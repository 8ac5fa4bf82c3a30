package dlp

import "strings"

// Rule is a built-in [Pattern] with its documentation: what it detects and
// fake samples it must (Positives) and must not (Negatives) fire on. The
// samples are built at run time from obviously fake parts, never real
// credentials.
type Rule struct {
	Pattern
	Description string
	Positives   []string
	Negatives   []string
}

// BuiltinRules returns the built-in rule pack with its samples, a fresh copy
// on every call. The rules are written from the token formats the vendors
// document (prefixes, lengths, alphabets); generic assignments
// (password=..., api_key: "...") also require a minimum entropy.
func BuiltinRules() []Rule {
	var out []Rule
	for _, group := range [][]Rule{cloudRules(), vcsRules(), saasRules(), vendorRules(), devRules(), configRules(), genericRules(), headerRules(), fileRules(), genericKeyRules()} {
		out = append(out, group...)
	}
	return out
}

// Builtin returns the patterns of [BuiltinRules], ready for [New]:
//
//	s, err := dlp.New(dlp.Builtin(), nil)
//
// Policy patterns can be appended; names must stay unique.
func Builtin() []Pattern {
	rules := BuiltinRules()
	out := make([]Pattern, len(rules))
	for i, r := range rules {
		out[i] = r.Pattern
	}
	return out
}

// fill repeats unit until it is n bytes long: a visibly fake token body.
func fill(unit string, n int) string {
	return strings.Repeat(unit, n/len(unit)+1)[:n]
}

// Fake bodies for samples, in the alphabets the formats use.
const (
	fakeAlnum = "FAKE0example1TOKEN2notreal3"
	fakeHex   = "0123456789abcdef"
	fakeUpper = "EXAMPLE2FAKE7TOKEN"
	fakeB64   = "FAKE+example/KEY0notreal1"
)

func mk(name, regex, desc string, pos, neg []string) Rule {
	return Rule{Pattern: Pattern{Name: name, Regex: regex}, Description: desc, Positives: pos, Negatives: neg}
}

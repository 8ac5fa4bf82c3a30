package approval_test

import (
	"encoding/json"
	"testing"
)

// FuzzEvidence: evidence of any shape never panics and never verifies.
// The seeds include a genuine evidence for the challenge the fuzz target
// verifies against, mutated by the fuzzer; the genuine one itself is
// consumed first so that no input can legitimately verify.
func FuzzEvidence(f *testing.F) {
	fx := newFixture(f, nil)
	fx.enroll()
	ch := fx.challenge(testTool, testArgs)
	valid := fx.evidence(ch)
	used := fx.evidence(fx.challenge(testTool, testArgs))
	if _, err := fx.verify(testTool, testArgs, used); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		string(valid), string(used), "", "null", "{}", "[]", `{"method":"webauthn"}`,
		`{"method":"webauthn","challengeId":"` + ch.ChallengeID + `","response":{"id":"AA","rawId":"AA","type":"public-key","response":{}}}`,
		`{"method":"webauthn","challengeId":"` + ch.ChallengeID + `","response":{"id":"","response":{"clientDataJSON":"e30","authenticatorData":"","signature":""}}}`,
	} {
		f.Add([]byte(s), testArgs)
	}
	f.Fuzz(func(t *testing.T, ev []byte, args string) {
		if string(ev) == string(valid) && args != "" && canonicalEqual(args, testArgs) {
			t.Skip("the one genuine evidence for these arguments")
		}
		a, err := fx.verify(testTool, args, json.RawMessage(ev))
		if err == nil || a != nil {
			t.Fatalf("evidence verified: %q with args %q", ev, args)
		}
	})
}

func canonicalEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

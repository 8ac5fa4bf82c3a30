package gatehouse_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// TestHashesAgree: approval's argument hash (used by the elicitation state
// too), consent's action hash and the loop fingerprint canonicalize through
// one form: they agree on every argument object they accept, accept and
// refuse the same ones (the fingerprint keeps inexact numbers rather than
// refusing them), and tell apart what differs.
func TestHashesAgree(t *testing.T) {
	accepted := []string{
		`{}`, `{"b":1,"a":2}`, `{"a":2,"b":1.0}`, `{"n":1e2,"m":-0}`, `{"s":"\u00e9\u2028<>"}`, `{"x":[{"z":null,"y":true}]}`,
		`{"big":9007199254740992}`, `{"path":"/a","paths":"/b"}`, `{"\u00df":1,"ss":2}`, `{"k":1,"\u212b":2}`,
	}
	refused := []string{
		`{"path":"/etc/passwd","PATH":"/tmp/junk"}`, `{"k":1,"\u212a":2}`, `{"s":{"sx":1,"\u017fx":2}}`, `{"a":1,"a":2}`,
		`{"id":12345678901234567891}`, `{"n":1e400}`, "{\"s\":\"\xff\"}",
	}
	seen := map[string]string{}
	for _, raw := range accepted {
		ah, err := approval.ArgumentsHash([]byte(raw))
		if err != nil {
			t.Fatalf("%s: approval: %v", raw, err)
		}
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader([]byte(raw)))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			t.Fatal(err)
		}
		ch, err := consent.ActionHash(m)
		if err != nil || ch != "sha256:"+hex.EncodeToString(ah[:]) {
			t.Errorf("%s: approval %x, consent %s (%v)", raw, ah, ch, err)
		}
		fr, err1 := ratelimit.FingerprintOf("t", json.RawMessage(raw))
		fm, err2 := ratelimit.FingerprintOf("t", m)
		if err1 != nil || err2 != nil || fr != fm {
			t.Errorf("%s: fingerprints %s %s (%v, %v)", raw, fr, fm, err1, err2)
		}
		if prev, ok := seen[ch]; ok && prev != raw {
			t.Logf("%s and %s are the same arguments", prev, raw)
		}
		seen[ch] = raw
	}
	if len(seen) != len(accepted)-1 { // {"b":1,"a":2} and {"a":2,"b":1.0} are one
		t.Errorf("%d distinct hashes of %d inputs", len(seen), len(accepted))
	}
	for _, raw := range refused {
		if _, err := approval.ArgumentsHash([]byte(raw)); err == nil {
			t.Errorf("%s: approval accepts", raw)
		}
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader([]byte(raw)))
		d.UseNumber()
		if d.Decode(&m) != nil || !utf8.ValidString(raw) { // encoding/json replaces invalid UTF-8
			continue
		}
		if _, err := consent.ActionHash(m); err == nil && raw != `{"a":1,"a":2}` { // a map has one "a"
			t.Errorf("%s: consent accepts", raw)
		}
	}
}

package gatehouse

import (
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/gatehouse-dev/gatehouse/approval"
)

// TestHashArgsMatchesApproval: the elicitation state's argument hash,
// computed from internal/jcs now that the root no longer imports approval,
// is the hash approval.ArgumentsHash gives, and both refuse the same
// arguments (TestHashesAgree holds approval to consent and ratelimit).
func TestHashArgsMatchesApproval(t *testing.T) {
	inputs := []string{
		``, ` `, `{}`, ` {"b":1,"a":2} `, `{"a":2,"b":1.0}`, `{"n":1e2,"m":-0}`, `{"s":"\u00e9\u2028<>"}`,
		`{"x":[{"z":null,"y":true}]}`, `{"big":9007199254740992}`, `{"\u00df":1,"ss":2}`, `{"k":1,"\u212b":2}`,
		`{"path":"/etc/passwd","PATH":"/tmp/junk"}`, `{"k":1,"\u212a":2}`, `{"s":{"sx":1,"\u017fx":2}}`, `{"a":1,"a":2}`,
		`{"id":12345678901234567891}`, `{"n":1e400}`, "{\"s\":\"\xff\"}", `[]`, `"x"`, `null`, `{`, `{"a":1} x`,
	}
	for _, in := range inputs {
		got, err := hashArgs(json.RawMessage(in))
		want, werr := approval.ArgumentsHash([]byte(in))
		if (err == nil) != (werr == nil) {
			t.Errorf("%q: root %v, approval %v: they must refuse the same arguments", in, err, werr)
			continue
		}
		if err == nil && got != hex.EncodeToString(want[:]) {
			t.Errorf("%q: root %s, approval %x", in, got, want)
		}
	}
}

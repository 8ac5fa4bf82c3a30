package gatehouse_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent/vault"
)

// Red team of the vault scrubbing fix (fb7974d): every injected value is
// scrubbed from everything the guard sends for its lifetime, so a short
// one is scrubbed from everything. One approved call with a 3-byte secret
// ("ext") took the protocol's own words out of every later result
// ("type":"t[REDACTED:vault:...]"): each was withheld as unreadable, on
// every session, tools/list included, until the process restarted. A short
// value is also guessed at once through the equality oracle. Such a secret
// is refused for injection now; the server goes on.
func TestRedTeamRTF_ShortVaultSecretKillsEveryResult(t *testing.T) {
	for _, short := range []string{"ext", "type", "admin12"} {
		r := newLeakRig(t)
		r.setSecret(t, short)
		c := r.client(t, "agent")
		res := c.callTool(1, "note_put", map[string]any{"text": "key=" + vault.SecretRef("deploy_token")})
		if raw, _ := json.Marshal(res); resultText(res) == "stored" || !strings.Contains(string(raw), "error") {
			t.Fatalf("%q: a secret of %d bytes was injected: %s", short, len(short), raw)
		}
		other := r.client(t, "other-agent")
		if got := resultText(other.callTool(2, "plain", map[string]any{"x": "text"})); got != `args {"x":"text"}` {
			t.Fatalf("%q: a later call of another agent: %q", short, got)
		}
		if l := other.request("l", "tools/list", map[string]any{}); rpcErr(l) != nil {
			t.Fatalf("%q: tools/list: %v", short, l)
		}
	}
	// Near miss: a secret of 8 bytes is injected and scrubbed.
	r := newLeakRig(t)
	r.setSecret(t, "k3y-8byt")
	c := r.client(t, "agent")
	if res := c.callTool(1, "note_put", map[string]any{"text": vault.SecretRef("deploy_token")}); resultText(res) != "stored" {
		t.Fatalf("an 8-byte secret: %v", res)
	}
	if got := resultText(c.callTool(2, "note_get", nil)); got != `{"text":"[REDACTED:vault:deploy_token]"}` {
		t.Fatalf("an 8-byte secret came back as %q", got)
	}
}

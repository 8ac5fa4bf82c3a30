package gatehouse_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/vault"
)

// Red team of the vault scrubbing fix (fb7974d): the guard scrubs the values
// it injected, kept in its memory. A tool that stored its input (a note,
// a config row in its database) outlives that memory: after a restart, or
// on another replica behind the same load balancer, a guard that injected
// nothing served the stored secret to any agent. A guard whose Asker holds
// a vault (AskConsent) now scrubs every value of the vault that could have
// been injected, from its first message.
func TestRedTeamRTF_VaultSecretAfterRestart(t *testing.T) {
	r := newLeakRig(t)
	c := r.client(t, "agent")
	if res := c.callTool(1, "note_put", map[string]any{"text": vault.SecretRef("deploy_token")}); resultText(res) != "stored" {
		t.Fatalf("note_put: %v", res)
	}
	// The process restarts (or another replica answers): a new guard over
	// the same vault and the same tool state.
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := consent.NewSigner(priv)
	nonces, _ := consent.NewMemoryNonceStore(nil)
	asker, err := consent.NewAsker(&scriptedChannel{reply: consent.Reply{Decision: consent.Approved, Approver: "alice"}}, signer, nonces, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.g = mustGuard(t, mustPolicy(t, leakPolicy), &gatehouse.Options{Ask: &gatehouse.AskOptions{Timeout: 2 * time.Second, Asker: gatehouse.AskConsent(asker, r.vlt)}})
	other := r.client(t, "other-agent")
	raw, _ := json.Marshal(other.callTool(2, "note_get", nil))
	if strings.Contains(string(raw), leakSecret) || !strings.Contains(string(raw), "[REDACTED:vault:deploy_token]") {
		t.Fatalf("a stored vault secret came back after a restart: %s", raw)
	}
	// A value rotated out stays scrubbed; a value set later is scrubbed too.
	r.setSecret(t, "n3w-"+"rotated-value-7")
	r.mu.Lock()
	r.note = "old " + leakSecret + " new n3w-rotated-value-7"
	r.mu.Unlock()
	if got := resultText(other.callTool(3, "note_get", nil)); got != "old [REDACTED:vault:deploy_token] new [REDACTED:vault:deploy_token]" {
		t.Fatalf("after a rotation: %q", got)
	}
	// Near misses: other text, and a value too short to be injected, go out
	// as they are.
	if err := r.vlt.Set("pin", "1234"); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.note = "text 1234 s3cr3t-leak-value-43"
	r.mu.Unlock()
	if got := resultText(other.callTool(4, "note_get", nil)); got != "text 1234 s3cr3t-leak-value-43" {
		t.Fatalf("near miss: %q", got)
	}
}

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

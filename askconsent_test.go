package gatehouse_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/vault"
)

// scriptedChannel is a consent channel whose "human" answers from a script.
type scriptedChannel struct {
	mu    sync.Mutex
	reply consent.Reply
	err   error
	wait  bool
	seen  []*consent.ConsentRequest
}

func (c *scriptedChannel) Name() string { return "scripted" }
func (c *scriptedChannel) Ask(ctx context.Context, r *consent.ConsentRequest) (consent.Reply, error) {
	c.mu.Lock()
	c.seen = append(c.seen, r)
	reply, err, wait := c.reply, c.err, c.wait
	c.mu.Unlock()
	if wait {
		<-ctx.Done()
		return consent.Reply{}, ctx.Err()
	}
	return reply, err
}

// testSigner is a consent signer with a fresh Ed25519 key.
func testSigner(t *testing.T) *consent.Signer {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := consent.NewSigner(priv)
	if err != nil {
		t.Fatal(err)
	}
	return signer
}

// testVault is a vault with a fresh master key holding one secret, bound
// to tools (and to servers, nil for any).
func testVault(t *testing.T, name, value string, tools, servers []string) *vault.Vault {
	t.Helper()
	master := make([]byte, 32)
	rand.Read(master)
	vlt, err := vault.New(master, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := vlt.Set(name, value); err != nil {
		t.Fatal(err)
	}
	if err := vlt.Bind(name, tools, servers); err != nil {
		t.Fatal(err)
	}
	return vlt
}

// TestAskConsent runs ACP consent through the guard: approvals with a
// verified proof run the call, denials and timeouts and channel failures do
// not, modifications are re-checked by the policy, and vault secrets reach
// the handler only after an approval and never the audit log.
func TestAskConsent(t *testing.T) {
	signer := testSigner(t)
	vlt := testVault(t, "deploy_token", "s3cr3t-"+"value-42", []string{"deploy"}, nil)
	cases := []struct {
		name  string
		ch    *scriptedChannel
		args  map[string]any
		code  string
		reach string // text the handler must have received
	}{
		{"approved", &scriptedChannel{reply: consent.Reply{Decision: consent.Approved, Approver: "alice"}}, map[string]any{"env": "staging"}, "", `{"env":"staging"}`},
		{"denied", &scriptedChannel{reply: consent.Reply{Decision: consent.Denied}}, map[string]any{"env": "staging"}, "-32004", ""},
		{"timeout", &scriptedChannel{wait: true}, map[string]any{"env": "staging"}, "-32005", ""},
		{"channel failure", &scriptedChannel{err: fmt.Errorf("telegram down")}, map[string]any{"env": "staging"}, "-32004", ""},
		{"approved with modification", &scriptedChannel{reply: consent.Reply{Decision: consent.ApprovedWithModifications, Modifications: map[string]any{"env": "prod"}}}, map[string]any{"env": "staging"}, "", `{"env":"prod"}`},
		{"modification the policy refuses", &scriptedChannel{reply: consent.Reply{Decision: consent.ApprovedWithModifications, Modifications: map[string]any{"env": "dev"}}}, map[string]any{"env": "staging"}, "-32001", ""},
		{"vault secret injected after approval", &scriptedChannel{reply: consent.Reply{Decision: consent.Approved}}, map[string]any{"env": "staging", "token": vault.SecretRef("deploy_token")}, "", `"token":"[REDACTED:vault:deploy_token]"`}, // the handler echoed the secret it got; the agent reads it scrubbed
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nonces, _ := consent.NewMemoryNonceStore(nil)
			asker, err := consent.NewAsker(tc.ch, signer, nonces, nil)
			if err != nil {
				t.Fatal(err)
			}
			var log syncBuffer
			w, _ := audit.New(&log, nil)
			src := strings.Replace(basePolicy, `allow_args: {env: "^(staging|prod)$"}`, `allow_args: {env: "^(staging|prod)$"}
      strict_args: false`, 1)
			f := newFixture(t, src, &gatehouse.Options{Audit: w, Ask: &gatehouse.AskOptions{Timeout: 200 * time.Millisecond, Asker: gatehouse.AskConsent(asker, vlt)}})
			c := dialRaw(t, f.ct, "2025-06-18")
			res := c.callTool(1, "deploy", tc.args)
			e := rpcErr(res)
			if tc.code == "" {
				if e != nil || !strings.Contains(resultText(res), tc.reach) {
					t.Fatalf("want the handler to get %s: %v", tc.reach, res)
				}
			} else if fmt.Sprint(e["code"]) != tc.code || f.runs.Load() != 0 {
				t.Fatalf("want %s and no run: %v (runs %d)", tc.code, res, f.runs.Load())
			}
			if strings.Contains(log.String(), "s3cr3t") {
				t.Error("a vault secret reached the audit log")
			}
			if strings.Contains(fmt.Sprint(res), "s3cr3t") {
				t.Error("a vault secret came back to the agent")
			}
			if len(tc.ch.seen) != 1 || tc.ch.seen[0].Action.Tool != "deploy" || tc.ch.seen[0].Agent.ID != "client:raw-agent" {
				t.Errorf("the human saw %+v", tc.ch.seen)
			}
		})
	}
}

// TestVaultNeverForPlainAllowedCalls: a secret reference in an allowed
// (not asked) call stays a reference.
func TestVaultNeverForPlainAllowedCalls(t *testing.T) {
	var got string
	g := mustGuard(t, mustPolicy(t, basePolicy), nil)
	ct := serve(t, g, func(s *mcp.Server) {
		textTool(s, "echo", func(a map[string]any) string { got = fmt.Sprint(a["token"]); return "ok" }, nil)
	})
	dialRaw(t, ct, "2025-06-18").callTool(1, "echo", map[string]any{"token": vault.SecretRef("deploy_token")})
	if got != "{{vault:deploy_token}}" {
		t.Fatalf("the handler got %q", got)
	}
}

package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/vault"
)

// Red team (issue 16 variant, class a: another server): AskConsent never
// told the consent request which server the call reached. The human's
// prompt named no server, the signed request bound server "", and a vault
// secret bound to a server (vault.Bind's servers) was never injected
// through the guard, so the only binding that worked was "any server": one
// approval channel and vault serving two guarded servers handed the
// production token to the other server's tool of the same name. The
// AskRequest now carries the server (Options.ServerName, else the MCP
// server's own name), and AskConsent binds the request and the vault to it.

const askServerPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  tool_rules:
    - tool: deploy
      action: ask
`

func TestRedteamAskConsentBindsTheServer(t *testing.T) {
	signer := testSigner(t)
	vlt := testVault(t, "prod_token", "prod-"+"token-value-77", []string{"deploy"}, []string{"prod-deploy"})
	ch := &scriptedChannel{reply: consent.Reply{Decision: consent.Approved, Approver: "alice"}}
	nonces, _ := consent.NewMemoryNonceStore(nil)
	asker, err := consent.NewAsker(ch, signer, nonces, nil)
	if err != nil {
		t.Fatal(err)
	}
	shared := gatehouse.AskConsent(asker, vlt) // one approval channel and vault for every server
	for _, tc := range []struct {
		name, serverName, impl string
		wantServer             string
		injected               bool
	}{
		{"the bound server gets the secret", "prod-deploy", "deployer", "prod-deploy", true},
		{"another server's tool of the same name does not", "sandbox", "deployer", "sandbox", false},
		{"without Options.ServerName, the MCP server's own name", "", "prod-deploy", "prod-deploy", true},
		{"without Options.ServerName, another MCP server", "", "scratch", "scratch", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch.mu.Lock()
			ch.seen = nil
			ch.mu.Unlock()
			var got atomic.Value
			got.Store("")
			g := mustGuard(t, mustPolicy(t, askServerPolicy), &gatehouse.Options{ServerName: tc.serverName,
				Ask: &gatehouse.AskOptions{Timeout: 2 * time.Second, Asker: shared}})
			s := mcp.NewServer(&mcp.Implementation{Name: tc.impl, Version: "1"}, nil)
			s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				got.Store(string(req.Params.Arguments))
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil
			})
			g.Install(s)
			st, ct := mcp.NewInMemoryTransports()
			ss, err := s.Connect(context.Background(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ss.Close() })
			res := dialRaw(t, ct, "2025-06-18").callTool(1, "deploy", map[string]any{"token": vault.SecretRef("prod_token")})
			ch.mu.Lock()
			seen := ch.seen
			ch.mu.Unlock()
			if len(seen) != 1 || seen[0].Action.Server != tc.wantServer || !strings.Contains(consent.Summary(seen[0]), "(server "+tc.wantServer+")") {
				t.Fatalf("the human was not shown server %q: %+v", tc.wantServer, seen)
			}
			ran := got.Load().(string)
			if tc.injected != strings.Contains(ran, "token-value-77") {
				t.Fatalf("injected %v, want %v: the handler got %q (%v)", !tc.injected, tc.injected, ran, res)
			}
			if !tc.injected && (rpcErr(res) == nil || ran != "") {
				t.Fatalf("want the call refused without running: %v, handler got %q", res, ran)
			}
			if tc.injected && (rpcErr(res) != nil || fmt.Sprint(resultText(res)) != "deployed") {
				t.Fatalf("want the call to run: %v", res)
			}
		})
	}
}

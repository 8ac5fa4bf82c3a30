package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/vault"
)

// Red team (issue 16 variants, class c): an injected vault secret came back
// to the agent by every way but the call's result and error text, which
// alone were scrubbed:
//   - in the data of a JSON-RPC error the handler returned;
//   - in a progress notification or log message the handler sent while it ran;
//   - from a later call that injected nothing (a tool that stored its input),
//     on another session of another agent.
// The guard now scrubs every value it injected from everything it sends.

const leakSecret = "s3cr3t-" + "leak-value-42"

const leakPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_methods: [initialize, notifications/initialized, tools/list, tools/call, logging/setLevel]
  allowed_tools: [note_get, plain]
  tool_rules:
    - tool: deploy
      action: ask
    - tool: note_put
      action: ask
`

// leakRig is a guarded server whose tools echo what they get in every way
// a handler can, with a vault secret bound to deploy and note_put.
type leakRig struct {
	vlt   *vault.Vault
	g     *gatehouse.Guard
	setup func(*mcp.Server)
	mu    sync.Mutex
	note  string
}

func newLeakRig(t *testing.T) *leakRig {
	t.Helper()
	signer := testSigner(t)
	vlt := testVault(t, "deploy_token", leakSecret, []string{"deploy", "note_put"}, nil)
	nonces, _ := consent.NewMemoryNonceStore(nil)
	asker, err := consent.NewAsker(&scriptedChannel{reply: consent.Reply{Decision: consent.Approved, Approver: "alice"}}, signer, nonces, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := &leakRig{vlt: vlt, g: mustGuard(t, mustPolicy(t, leakPolicy), &gatehouse.Options{Ask: &gatehouse.AskOptions{Timeout: 2 * time.Second, Asker: gatehouse.AskConsent(asker, vlt)}})}
	schema := json.RawMessage(`{"type":"object"}`)
	r.setup = func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := string(req.Params.Arguments)
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Message: "calling with " + args})
			req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "error", Data: map[string]any{"args": args}})
			return nil, &jsonrpc.Error{Code: -32000, Message: "upstream failed", Data: json.RawMessage(`{"request":` + args + `}`)}
		})
		s.AddTool(&mcp.Tool{Name: "note_put", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r.mu.Lock()
			r.note = string(req.Params.Arguments)
			r.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "stored"}}}, nil
		})
		s.AddTool(&mcp.Tool{Name: "note_get", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.note}}, StructuredContent: map[string]any{"note": r.note}}, nil
		})
		s.AddTool(&mcp.Tool{Name: "plain", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "args " + string(req.Params.Arguments)}}}, nil
		})
	}
	return r
}

// setSecret gives deploy_token another value.
func (r *leakRig) setSecret(t *testing.T, value string) {
	t.Helper()
	if err := r.vlt.Set("deploy_token", value); err != nil {
		t.Fatal(err)
	}
}

// client connects a client named name to its own server (guarded by the
// same guard, sharing the tools' state).
func (r *leakRig) client(t *testing.T, name string) *rawConn {
	t.Helper()
	c := connectRaw(t, serve(t, r.g, r.setup))
	p := initializeParams("2025-06-18")
	p["clientInfo"] = map[string]any{"name": name, "version": "1"}
	if res := c.request("i", "initialize", p); rpcErr(res) != nil {
		t.Fatal(res)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

// collect sends a tools/call and returns every message the client reads up
// to and including its response.
func (c *rawConn) collect(id int, params map[string]any) []string {
	c.t.Helper()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	var out []string
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		msg, err := c.conn.Read(ctx)
		if err != nil {
			c.t.Fatalf("reading: %v (so far %q)", err, out)
		}
		raw, _ := jsonrpc.EncodeMessage(msg)
		out = append(out, string(raw))
		if r, ok := msg.(*jsonrpc.Response); ok && fmt.Sprint(r.ID.Raw()) == fmt.Sprint(id) {
			return out
		}
	}
}

func TestRedteamVaultSecretInErrorDataAndNotifications(t *testing.T) {
	r := newLeakRig(t)
	c := r.client(t, "agent")
	if res := c.request("lvl", "logging/setLevel", map[string]any{"level": "debug"}); res["error"] != nil {
		t.Fatal(res)
	}
	got := c.collect(1, map[string]any{"name": "deploy", "arguments": map[string]any{"token": vault.SecretRef("deploy_token")},
		"_meta": map[string]any{"progressToken": "p1"}})
	all := strings.Join(got, "\n")
	for _, want := range []string{"notifications/progress", "notifications/message", `"code":-32000`, "[REDACTED:vault:deploy_token]"} {
		if !strings.Contains(all, want) {
			t.Errorf("the client did not read %s: %s", want, all)
		}
	}
	if strings.Contains(all, leakSecret) {
		t.Fatalf("the vault secret came back to the agent:\n%s", all)
	}
	if !strings.Contains(all, `"data":{"request":{"token":"[REDACTED:vault:deploy_token]"}}`) {
		t.Errorf("the error data was dropped rather than scrubbed: %s", all)
	}
}

func TestRedteamVaultSecretEchoedByLaterCall(t *testing.T) {
	r := newLeakRig(t)
	// A value the vault could inject is scrubbed before any injection too
	// (a stored value outlives the guard's memory: redteam_rtf_vaultrestart_test.go).
	plainBefore := resultText(r.client(t, "agent").callTool(1, "plain", map[string]any{"x": leakSecret}))
	if strings.Contains(plainBefore, leakSecret) {
		t.Fatalf("before any injection, a value the vault could inject came back: %q", plainBefore)
	}
	c := r.client(t, "agent")
	if res := c.callTool(1, "note_put", map[string]any{"text": "key=" + vault.SecretRef("deploy_token")}); resultText(res) != "stored" {
		t.Fatalf("note_put: %v", res)
	}
	// Another client (another server and session, another agent) reads the
	// note with a plain allowed call that injected nothing.
	other := r.client(t, "other-agent")
	res := other.callTool(2, "note_get", nil)
	raw, _ := json.Marshal(res)
	if strings.Contains(string(raw), leakSecret) || !strings.Contains(string(raw), "[REDACTED:vault:deploy_token]") {
		t.Fatalf("a stored vault secret came back to another agent: %s", raw)
	}
	// Near miss: results without the value go out unchanged.
	if got := resultText(other.callTool(3, "plain", map[string]any{"x": "s3cr3t-leak-value-43"})); got != `args {"x":"s3cr3t-leak-value-43"}` {
		t.Fatalf("a result without a vault value was changed: %q", got)
	}
}

// TestRedteamVaultSecretInsideJSONText: a tool that returns JSON as text
// (the request it sent upstream) carries the secret JSON-escaped inside a
// string, which the wire escapes once more. Scrubbing the wire bytes looked
// for one level of escaping and missed it; the values are scrubbed now.
func TestRedteamVaultSecretInsideJSONText(t *testing.T) {
	r := newLeakRig(t)
	c := r.client(t, "agent")
	secret := `pa"ss\word-` + leakSecret // a password with a quote and a backslash
	r.setSecret(t, secret)
	res := c.callTool(1, "note_put", map[string]any{"auth": vault.SecretRef("deploy_token")})
	if resultText(res) != "stored" {
		t.Fatalf("note_put: %v", res)
	}
	res = c.callTool(2, "note_get", nil)
	var note map[string]any
	if err := json.Unmarshal([]byte(resultText(res)), &note); err != nil {
		t.Fatalf("the note is not the JSON the tool stored: %v (%v)", err, res)
	}
	if fmt.Sprint(note["auth"]) != "[REDACTED:vault:deploy_token]" {
		t.Fatalf("the agent decoded the stored JSON and read %q", note["auth"])
	}
}

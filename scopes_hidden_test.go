package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/trust"
)

// hiddenPolicy allows deploy, status, secret_op (which the server hides
// from every session's listing yet dispatches) and ghost_op (which the
// server does not have), not admin_reset, and protects ~/.ssh.
const hiddenPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: scopes-hidden}
spec:
  allowed_tools: [deploy, status, secret_op, ghost_op]
  protected_paths: [~/.ssh]
`

// hiddenRig is a scope server with hiddenPolicy and the hidden secret_op.
func hiddenRig(t *testing.T, o *gatehouse.Options, jsonResponse bool) *scopeServer {
	return newScopeRig(t, scopeRig{policy: hiddenPolicy, opts: o, jsonResponse: jsonResponse, setup: func(s *mcp.Server, runs *atomic.Int32) {
		s.AddTool(&mcp.Tool{Name: "secret_op", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			runs.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "secret_op ran"}}}, nil
		})
		hideFromListing(s, "secret_op")
	}})
}

// scopeLeak reports what in an answer asks for a scope step-up or names
// a scope: the 403 challenge, SEP-2643's denial, a scope of scopeDoc.
func scopeLeak(resp *http.Response, body string) string {
	switch {
	case resp != nil && resp.StatusCode == http.StatusForbidden:
		return "HTTP 403"
	case resp != nil && resp.Header.Get("WWW-Authenticate") != "":
		return "WWW-Authenticate " + resp.Header.Get("WWW-Authenticate")
	case strings.Contains(body, "insufficient_authorization"), strings.Contains(body, "oauth_scope"):
		return "a scope denial"
	}
	for _, sc := range []string{"mcp:tools", "deploy:write", "deploy:prod", `"admin"`, "admin "} {
		if strings.Contains(body, sc) {
			return "the scope " + sc
		}
	}
	return ""
}

// TestNoScopeChallengeForACallThatCannotRun: a call short of scopes that
// the policy refuses anyway (a tool it does not allow, a protected path),
// whose tool the session does not list, or whose agent is suspended, gets
// that refusal: no HTTP 403, no scope named, so no client asks its user to
// grant a scope for a call that cannot run, and a hidden tool answers as
// a tool that does not exist. Before, each got the step-up challenge
// naming its scopes. Near misses, calls the policy allows, still get the
// challenge. Both response modes of go-sdk's handler (SSE, JSON) and the
// JSON-RPC denial of protocol 2025-06-18 are checked.
func TestNoScopeChallengeForACallThatCannotRun(t *testing.T) {
	refused := []struct {
		name   string
		scopes []string
		tool   string
		args   map[string]any
		want   string // in the refusal
	}{
		{"tool the policy does not allow", []string{"mcp:tools"}, "admin_reset", map[string]any{}, "-32001"},
		{"protected path", []string{"mcp:tools"}, "deploy", map[string]any{"env": "dev", "file": "~/.ssh/id_ed25519"}, "-32007"},
		{"tool hidden from the session", nil, "secret_op", map[string]any{}, "tools/list for this session"},
		{"no such tool", nil, "ghost_op", map[string]any{}, "tools/list for this session"},
	}
	challenged := []struct {
		name   string
		scopes []string
		tool   string
		args   map[string]any
		scope  string
		miss   []string
	}{
		{"allowed tool, scope short", []string{"mcp:tools"}, "deploy", map[string]any{"env": "dev"}, "deploy:write", []string{"deploy:write"}},
		{"allowed tool, argument scope short", []string{"mcp:tools", "deploy:write"}, "deploy", map[string]any{"env": "prod"}, "deploy:write deploy:prod", []string{"deploy:prod"}},
		{"listed tool, no scope", nil, "status", map[string]any{}, "mcp:tools", []string{"mcp:tools"}},
	}
	for _, jsonResponse := range []bool{false, true} {
		t.Run(fmt.Sprintf("2026-07-28 JSONResponse=%v", jsonResponse), func(t *testing.T) {
			ss := hiddenRig(t, nil, jsonResponse)
			answers := map[string]string{}
			for _, c := range refused {
				resp, body := ss.post(t, ss.as.issue(c.scopes...), newHeaders(c.tool), newCallBody(c.tool, c.args))
				if leak := scopeLeak(resp, body); leak != "" || !strings.Contains(body, c.want) {
					t.Errorf("%s: %s in %d %s, want the refusal %q", c.name, leak, resp.StatusCode, body, c.want)
				}
				answers[c.tool] = strings.ReplaceAll(body, c.tool, "TOOL")
			}
			if answers["secret_op"] != answers["ghost_op"] {
				t.Errorf("a hidden tool answers otherwise than a missing one:\n%s\n%s", answers["secret_op"], answers["ghost_op"])
			}
			for _, c := range challenged {
				resp, body := ss.post(t, ss.as.issue(c.scopes...), newHeaders(c.tool), newCallBody(c.tool, c.args))
				if resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `scope="`+c.scope+`"`) {
					t.Errorf("near miss %s: %d %q %s", c.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
				}
				checkDenialBody(t, body, c.scope, c.miss, ss.prm)
			}
			if n := ss.runs.Load(); n != 0 {
				t.Fatalf("tools ran %d times", n)
			}
		})
	}
	t.Run("2025-06-18", func(t *testing.T) {
		ss := hiddenRig(t, nil, false)
		for _, c := range refused {
			_, err := ss.client(t, ss.as.issue(c.scopes...), "2025-06-18").CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			var je *jsonrpc.Error
			if !errors.As(err, &je) {
				t.Errorf("%s: %v, want a JSON-RPC refusal", c.name, err)
				continue
			}
			if leak := scopeLeak(nil, je.Message+string(je.Data)); leak != "" || !strings.Contains(fmt.Sprint(je.Code)+je.Message+string(je.Data), strings.TrimPrefix(c.want, "-")) {
				t.Errorf("%s: %s in %d %s %s", c.name, leak, je.Code, je.Message, je.Data)
			}
		}
		for _, c := range challenged {
			_, err := ss.client(t, ss.as.issue(c.scopes...), "2025-06-18").CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			var je *jsonrpc.Error
			if !errors.As(err, &je) || !strings.Contains(string(je.Data), "insufficient_authorization") {
				t.Errorf("near miss %s: %v", c.name, err)
			}
		}
		if n := ss.runs.Load(); n != 0 {
			t.Fatalf("tools ran %d times", n)
		}
	})
}

// TestNoScopeChallengeForASuspendedAgent: a suspended agent's call short
// of scopes is refused as suspended, without a challenge; another agent's
// same call (near miss) is challenged.
func TestNoScopeChallengeForASuspendedAgent(t *testing.T) {
	store, err := trust.NewMemoryStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Set(context.Background(), "user:alice", trust.Suspended); err != nil {
		t.Fatal(err)
	}
	ss := hiddenRig(t, &gatehouse.Options{Trust: &gatehouse.TrustOptions{Store: store}}, false)
	tok := ss.as.issue("mcp:tools")
	resp, body := ss.post(t, tok, newHeaders("deploy"), newCallBody("deploy", map[string]any{"env": "dev"}))
	if leak := scopeLeak(resp, body); leak != "" || !strings.Contains(body, "suspended") {
		t.Errorf("suspended agent: %s in %d %s", leak, resp.StatusCode, body)
	}
	ss.as.mu.Lock()
	ss.as.noUser = true // the agent is the client's name: client:raw
	ss.as.mu.Unlock()
	// Trusted: an untrusted agent's deploy needs consent, which no Asker
	// here can give, so it could not run either (and is not challenged).
	if err := store.Set(context.Background(), "client:raw", trust.Trusted); err != nil {
		t.Fatal(err)
	}
	resp, body = ss.post(t, ss.as.issue("mcp:tools"), newHeaders("deploy"), newCallBody("deploy", map[string]any{"env": "dev"}))
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("another agent: %d %s", resp.StatusCode, body)
	}
	if n := ss.runs.Load(); n != 0 {
		t.Fatalf("tools ran %d times", n)
	}
}

// TestNoScopeChallengeForDriftOrCollision: a call short of scopes to a
// tool whose definition changed since it was pinned, or whose name
// collides with another tool's, is refused as the pin and dispatch stages
// refuse it for any token (-32013, the collision), without a challenge.
// Near miss: the same token's call to an unchanged tool is challenged.
func TestNoScopeChallengeForDriftOrCollision(t *testing.T) {
	var srv *mcp.Server
	ss := newScopeRig(t, scopeRig{policy: hiddenPolicy, setup: func(s *mcp.Server, runs *atomic.Int32) {
		srv = s
		for _, name := range []string{"secret_op", "ghost_op"} {
			s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				runs.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
			})
		}
	}})
	// Both were pinned at Install; then secret_op's definition changes and
	// a second spelling of ghost_op is registered.
	for _, t := range []*mcp.Tool{
		{Name: "secret_op", Description: "now also deletes", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "GHOST_OP", InputSchema: json.RawMessage(`{"type":"object"}`)},
	} {
		srv.AddTool(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ss.runs.Add(1)
			return &mcp.CallToolResult{}, nil
		})
	}
	for _, c := range []struct{ tool, want string }{{"secret_op", "-32013"}, {"ghost_op", "have names that normalize to"}} {
		resp, body := ss.post(t, ss.as.issue(), newHeaders(c.tool), newCallBody(c.tool, map[string]any{}))
		if leak := scopeLeak(resp, body); leak != "" || !strings.Contains(body, c.want) {
			t.Errorf("%s: %s in %d %s, want %q", c.tool, leak, resp.StatusCode, body, c.want)
		}
	}
	if resp, body := ss.post(t, ss.as.issue(), newHeaders("status"), newCallBody("status", map[string]any{})); resp.StatusCode != http.StatusForbidden {
		t.Errorf("near miss, status: %d %s", resp.StatusCode, body)
	}
	if n := ss.runs.Load(); n != 0 {
		t.Fatalf("tools ran %d times", n)
	}
}

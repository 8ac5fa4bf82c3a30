package gatehouse_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/scope"
)

// TestScopeChallengeSpellings: every spelling of env=prod in the body of a
// 2026-07-28 call is challenged; the near misses run.
func TestScopeChallengeSpellings(t *testing.T) {
	ss := newScopeServer(t, nil)
	tok := ss.as.issue("mcp:tools", "deploy:write")
	wrap := func(args string) string {
		return strings.Replace(newCallBody("deploy", map[string]any{}), `"arguments":{}`, `"arguments":`+args, 1)
	}
	for _, args := range []string{`{"env":"PROD"}`, `{"ENV":"prod"}`, `{"env":["prod"]}`, `{"env":"pr\u200bod"}`, `{"env":{"name":"prod"}}`} {
		resp, body := ss.post(t, tok, newHeaders("deploy"), wrap(args))
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `scope="deploy:write deploy:prod"`) {
			t.Errorf("%s: %d %s", args, resp.StatusCode, body)
		}
	}
	// A name sent twice is refused whatever the token (-32602, never asked
	// for a scope): readers disagree on which member is meant.
	for _, args := range []string{`{"env":"dev","env":"prod"}`, `{"env":"dev","ENV":"prod"}`} {
		if resp, body := ss.post(t, tok, newHeaders("deploy"), wrap(args)); resp.StatusCode == http.StatusForbidden || !strings.Contains(body, `"code":-32602`) {
			t.Errorf("%s: %d %s", args, resp.StatusCode, body)
		}
	}
	// A params member "Name" beside "name": go-sdk dispatches the exact
	// "name", and the 403 follows it (red team: the wrapper read the tool
	// name case-insensitively, saw "echo", and lost the step-up).
	for _, extra := range []string{`,"Name":"echo"`, `,"NAME":"status"`, `,"nAme":"deploy"`} {
		body := strings.Replace(wrap(`{"env":"prod"}`), `"name":"deploy"`, `"name":"deploy"`+extra, 1)
		if !strings.Contains(body, extra) {
			t.Fatalf("body %s", body)
		}
		if resp, got := ss.post(t, tok, newHeaders("deploy"), body); resp.StatusCode != http.StatusForbidden {
			t.Errorf("params with %s: %d %s", extra, resp.StatusCode, got)
		}
	}
	for _, args := range []string{`{"env":"production"}`, `{"environment":"prod"}`, `{"target":{"env":"prod"}}`} {
		resp, body := ss.post(t, tok, newHeaders("deploy"), wrap(args))
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "deploy ran for") {
			t.Errorf("near miss %s: %d %s", args, resp.StatusCode, body)
		}
	}
	if n := ss.runs.Load(); n != 3 {
		t.Errorf("runs %d, want the 3 near misses", n)
	}
}

// TestScopeChallengePassThrough: requests the wrapper does not challenge
// (headers that do not match the body, an unsupported version, a batch,
// a body over the bound) still never run the tool without the scope: go-sdk
// refuses the request or the scope stage denies it.
func TestScopeChallengePassThrough(t *testing.T) {
	ss := newScopeServer(t, &gatehouse.Options{Scopes: &gatehouse.ScopeOptions{MaxBodyBytes: 600}})
	tok := ss.as.issue("mcp:tools", "deploy:write")
	prod := newCallBody("deploy", map[string]any{"env": "prod"})
	big := newCallBody("deploy", map[string]any{"env": "prod", "pad": strings.Repeat("x", 800)})
	cases := []struct {
		name    string
		headers map[string]string
		body    string
		status  int
		want    string
	}{
		{"name header of another tool", newHeaders("status"), prod, http.StatusBadRequest, "header mismatch"},
		{"name header in another case", newHeaders("DEPLOY"), prod, http.StatusBadRequest, "header mismatch"},
		{"no name header", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}, prod, http.StatusBadRequest, "Mcp-Name"},
		{"method header says list", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list", "Mcp-Name": "deploy"}, prod, http.StatusBadRequest, "header mismatch"},
		{"unsupported version", map[string]string{"Mcp-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/call", "Mcp-Name": "deploy"}, prod, http.StatusBadRequest, ""},
		{"batch", newHeaders("deploy"), "[" + prod + "]", 0, ""},
		{"body over the bound", newHeaders("deploy"), big, http.StatusOK, `"missingScopes":["deploy:prod"]`},
	}
	for _, c := range cases {
		resp, body := ss.post(t, tok, c.headers, c.body)
		t.Logf("%s: %d %.160s", c.name, resp.StatusCode, body)
		if resp.StatusCode == http.StatusForbidden || (c.status != 0 && resp.StatusCode != c.status) || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %s", c.name, resp.StatusCode, body)
		}
	}
	if n := ss.runs.Load(); n != 0 {
		t.Fatalf("the tool ran %d times", n)
	}
	// The bound passes a long near miss on whole: go-sdk reads every byte.
	ok := newCallBody("deploy", map[string]any{"env": "staging", "pad": strings.Repeat("y", 5000)})
	if resp, body := ss.post(t, tok, newHeaders("deploy"), ok); resp.StatusCode != http.StatusOK || !strings.Contains(body, "deploy ran for staging") {
		t.Fatalf("long near miss: %d %s", resp.StatusCode, body)
	}
}

// TestScopeStageWithoutToken: without HTTP auth there are no scopes, so
// every requirement refuses, with the JSON-RPC denial even under
// DenyAsToolResult (the client must act on it); a tool called by another
// spelling of its name needs the same scopes.
func TestScopeStageWithoutToken(t *testing.T) {
	sp, err := scope.Parse([]byte(scopeDoc))
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, scopePolicy), &gatehouse.Options{DenyAsToolResult: true, Scopes: &gatehouse.ScopeOptions{Policy: sp}})
	runs := 0
	ct := serve(t, g, func(s *mcp.Server) {
		textTool(s, "status", func(map[string]any) string { return "ok" }, &runs)
		textTool(s, "deploy", func(map[string]any) string { return "deployed" }, &runs)
	})
	c := dialRaw(t, ct, "2025-06-18")
	for i, name := range []string{"status", "deploy"} {
		e := rpcErr(c.callTool(i, name, map[string]any{"env": "dev"}))
		if e == nil || e["code"] != json.Number("-32001") {
			t.Fatalf("%q: %v", name, e)
		}
		data, _ := json.Marshal(e["data"])
		if !strings.Contains(string(data), `"reason":"insufficient_authorization"`) {
			t.Errorf("%q: data %s", name, data)
		}
	}
	// Another spelling of a tool's name runs nothing whatever the token
	// (go-sdk dispatches the exact name): it is refused as such (under
	// DenyAsToolResult, as the model's error), without a scope challenge
	// that would have a client ask for scopes in vain.
	for i, name := range []string{"DEPLOY", " deploy\u200b"} {
		res := c.callTool(10+i, name, map[string]any{"env": "dev"})
		raw, _ := json.Marshal(res)
		if r, _ := res["result"].(map[string]any); r["isError"] != true || strings.Contains(string(raw), "insufficient_authorization") || !strings.Contains(resultText(res), "exact name") {
			t.Errorf("%q: %s", name, raw)
		}
	}
	if runs != 0 {
		t.Fatalf("runs %d", runs)
	}
	res, _ := c.request("list", "tools/list", map[string]any{})["result"].(map[string]any)
	if tools, _ := res["tools"].([]any); len(tools) != 0 || res["cacheScope"] != "private" {
		t.Errorf("tools/list without a token: %v", res)
	}
}

func TestScopeOptionsValidation(t *testing.T) {
	sp, _ := scope.New(scope.Config{})
	p := mustPolicy(t, scopePolicy)
	for _, o := range []*gatehouse.ScopeOptions{
		{},
		{Policy: sp, MaxBodyBytes: -1},
		{Policy: sp, ResourceMetadataURL: "/relative"},
		{Policy: sp, ResourceMetadataURL: `https://x.example/a"b`},
		{Policy: sp, ResourceMetadataURL: "javascript:alert(1)"},
	} {
		if _, err := gatehouse.New(p, &gatehouse.Options{Scopes: o}); err == nil {
			t.Errorf("New accepted %+v", o)
		}
	}
}

// TestScopeHoldsForApprovedModification: a human who approves a call with
// modified arguments (ACP "approved with modifications") cannot lift it
// past the token's scopes: the modified call is checked again.
func TestScopeHoldsForApprovedModification(t *testing.T) {
	sp, err := scope.New(scope.Config{Tools: []scope.Tool{{Name: "deploy",
		When: []scope.When{{Args: map[string][]string{"env": {"prod"}}, Requirement: scope.Requirement{All: []string{"deploy:prod"}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	askPolicy := scopePolicy + "  tool_rules:\n    - tool: deploy\n      action: ask\n"
	asker := gatehouse.AskerFunc(func(ctx context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
		return gatehouse.Answer{Approved: true, Args: map[string]any{"env": "prod"}}, nil
	})
	g := mustGuard(t, mustPolicy(t, askPolicy), &gatehouse.Options{Ask: &gatehouse.AskOptions{Asker: asker}, Scopes: &gatehouse.ScopeOptions{Policy: sp}})
	var ran []string
	ct := serve(t, g, func(s *mcp.Server) {
		textTool(s, "deploy", func(a map[string]any) string { ran = append(ran, a["env"].(string)); return "deployed" }, nil)
	})
	c := dialRaw(t, ct, "2025-06-18")
	e := rpcErr(c.callTool(1, "deploy", map[string]any{"env": "dev"}))
	if e == nil || len(ran) != 0 {
		t.Fatalf("the modified call ran: %v %v", e, ran)
	}
	data, _ := json.Marshal(e["data"])
	if !strings.Contains(string(data), `"missingScopes":["deploy:prod"]`) {
		t.Errorf("denial %s", data)
	}
}

// TestScopeAuditBounded: a token with very many scopes is audited as the
// first 64 and a count, never as the token; scopes outside the RFC 6749
// syntax are replaced by their length.
func TestScopeAuditBounded(t *testing.T) {
	ss := newScopeServer(t, nil)
	scopes := []string{"mcp:tools", "has space", strings.Repeat("s", 300)}
	for i := range 100 {
		scopes = append(scopes, "extra:"+strings.Repeat("x", i%5))
	}
	tok := ss.as.issue(scopes...)
	cs := ss.client(t, tok, "2025-06-18")
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}}); err == nil {
		t.Fatal("deploy without deploy:write ran")
	}
	log := ss.log.String()
	for _, want := range []string{`"(invalid scope of 9 bytes)"`, `"(invalid scope of 300 bytes)"`, `"...39 more"`, `"decision":"BLOCK"`, `"scopes_required":["deploy:write","deploy:prod"]`} {
		if !strings.Contains(log, want) {
			t.Errorf("audit log lacks %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, tok) || strings.Contains(log, strings.Repeat("s", 300)) {
		t.Error("audit log holds the token or an unbounded scope")
	}
}

// TestScopeChallengeAuditsTheStagesAgent: the 403 is audited under the
// identity the stage would use: the token's user, else the client's
// per-request name.
func TestScopeChallengeAuditsTheStagesAgent(t *testing.T) {
	ss := newScopeServer(t, nil)
	tok := ss.as.issue("mcp:tools", "deploy:write")
	ss.post(t, tok, newHeaders("deploy"), newCallBody("deploy", map[string]any{"env": "prod"}))
	ss.as.mu.Lock()
	ss.as.noUser = true
	ss.as.mu.Unlock()
	ss.post(t, tok, newHeaders("deploy"), newCallBody("deploy", map[string]any{"env": "prod"}))
	ss.post(t, tok, newHeaders("deploy"), newCallBody("deploy", map[string]any{"env": "dev"}))
	log := ss.log.String()
	for _, want := range []string{`{"agent":"user:alice","args":{"env":"prod"},"decision":"BLOCK"`, `{"agent":"client:raw","args":{"env":"prod"},"decision":"BLOCK"`, `{"agent":"client:raw","args":{"env":"dev"},"decision":"ALLOW"`} {
		if !strings.Contains(log, want) {
			t.Errorf("audit log lacks %s:\n%s", want, log)
		}
	}
	if n := strings.Count(log, `"agent":"client:raw"`); n != 2 {
		t.Errorf("%d events for client:raw, want the 403 and the stage's allowed call:\n%s", n, log)
	}
}

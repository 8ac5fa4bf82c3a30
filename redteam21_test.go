package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/scope"
)

// Red team of issues 21 and 18 (per-tool scopes, the Approver interface):
// attacks that worked are named for the fault; the rest are near misses
// that must keep holding.

// rt21Server serves typed tools (mcp.AddTool, whose input schema go-sdk
// applies, defaults included) behind bearer tokens and the scope wrapper.
type rt21Server struct {
	url  string
	runs atomic.Int32
	mu   sync.Mutex
	envs []string // the env each run received
}

type rt21DeployIn struct {
	Env string `json:"env"`
}

// rt21Tokens: "writer" may deploy, but not to prod; "prod" may.
var rt21Tokens = map[string][]string{
	"writer": {"mcp:tools", "deploy:write"},
	"prod":   {"mcp:tools", "deploy:write", "deploy:prod"},
	"dups":   {"", "deploy:write", "deploy:write", "mcp:tools", " deploy:prod", "deploy:prod "},
}

func newRT21Server(t *testing.T, schema string, o *gatehouse.Options) *rt21Server {
	return newRT21ServerPolicy(t, schema, scopePolicy, o)
}

func newRT21ServerPolicy(t *testing.T, schema, policySrc string, o *gatehouse.Options) *rt21Server {
	t.Helper()
	sp, err := scope.Parse([]byte(scopeDoc))
	if err != nil {
		t.Fatal(err)
	}
	if o == nil {
		o = &gatehouse.Options{}
	}
	o.Scopes = &gatehouse.ScopeOptions{Policy: sp, ResourceMetadataURL: "https://rs.example/.well-known/oauth-protected-resource"}
	g := mustGuard(t, mustPolicy(t, policySrc), o)
	rs := &rt21Server{}
	s := mcp.NewServer(&mcp.Implementation{Name: "rt21", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "deploy", InputSchema: json.RawMessage(schema)}, func(ctx context.Context, req *mcp.CallToolRequest, in rt21DeployIn) (*mcp.CallToolResult, any, error) {
		rs.runs.Add(1)
		rs.mu.Lock()
		rs.envs = append(rs.envs, in.Env)
		rs.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deploy ran for " + in.Env}}}, nil, nil
	})
	g.Install(s)
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		sc, ok := rt21Tokens[token]
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Scopes: sc, UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	hs := httptest.NewServer(auth.RequireBearerToken(verify, nil)(g.ScopeChallenges(h)))
	t.Cleanup(hs.Close)
	rs.url = hs.URL
	return rs
}

func (rs *rt21Server) post(t *testing.T, token string, headers map[string]string, body string) (*http.Response, string) {
	t.Helper()
	return (&scopeServer{url: rs.url}).post(t, token, headers, body)
}

// callBody is a 2026-07-28 tools/call whose arguments are the raw JSON args.
func rt21Body(name, args string) string {
	return strings.Replace(newCallBody(name, map[string]any{}), `"arguments":{}`, `"arguments":`+args, 1)
}

// TestRedTeam21_SchemaDefaultNeedsScope: go-sdk applies the input schema's
// defaults before a typed handler runs, so a call that leaves env out runs
// with env "prod": the scopes must be those of the arguments the handler
// receives, not only of the ones the client sent. (It ran for prod with a
// deploy:write token before the fix.)
func TestRedTeam21_SchemaDefaultNeedsScope(t *testing.T) {
	rs := newRT21Server(t, `{"type":"object","properties":{"env":{"type":"string","default":"prod"}}}`, nil)
	for _, args := range []string{`{}`, `null`} {
		resp, body := rs.post(t, "writer", newHeaders("deploy"), rt21Body("deploy", args))
		// The stage decides on the defaulted arguments and the wrapper
		// answers its denial with the step-up challenge.
		if strings.Contains(body, "deploy ran") || !strings.Contains(body, `"missingScopes":["deploy:prod"]`) ||
			resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `scope="deploy:write deploy:prod"`) {
			t.Errorf("deploy %s without deploy:prod: %d %q %s", args, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}
	// Near misses: an explicit other env runs; a prod token runs the default.
	if resp, body := rs.post(t, "writer", newHeaders("deploy"), rt21Body("deploy", `{"env":"dev"}`)); resp.StatusCode != http.StatusOK || !strings.Contains(body, "deploy ran for dev") {
		t.Errorf("explicit dev: %d %s", resp.StatusCode, body)
	}
	if resp, body := rs.post(t, "prod", newHeaders("deploy"), rt21Body("deploy", `{}`)); resp.StatusCode != http.StatusOK || !strings.Contains(body, "deploy ran for prod") {
		t.Errorf("prod token, default env: %d %s", resp.StatusCode, body)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if strings.Join(rs.envs, ",") != "dev,prod" {
		t.Errorf("runs %v, want dev then prod (with the prod token)", rs.envs)
	}
}

// TestRedTeam21_WireSpellingsHeld: other spellings of a tools/call on the
// wire (notification, duplicate or case-variant members, header tricks,
// padded or duplicate token scopes) never run deploy {env: prod} for a
// token without deploy:prod. Near misses: the same wire forms to env dev run.
func TestRedTeam21_WireSpellingsHeld(t *testing.T) {
	rs := newRT21Server(t, `{"type":"object","properties":{"env":{"type":"string"}}}`, nil)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	raw := func(id, params string) string {
		idPart := ""
		if id != "" {
			idPart = `"id":` + id + `,`
		}
		return `{"jsonrpc":"2.0",` + idPart + `"method":"tools/call","params":{` + params + `,` + meta + `}}`
	}
	h := newHeaders("deploy")
	hv := func(k, v string) map[string]string {
		m := newHeaders("deploy")
		m[k] = v
		return m
	}
	attacks := []struct {
		name, token string
		headers     map[string]string
		body        string
	}{
		{"notification", "writer", h, raw("", `"name":"deploy","arguments":{"env":"prod"}`)},
		{"string id", "writer", h, raw(`"x"`, `"name":"deploy","arguments":{"env":"prod"}`)},
		{"null id", "writer", h, raw(`null`, `"name":"deploy","arguments":{"env":"prod"}`)},
		{"arguments twice, prod last", "writer", h, raw("1", `"name":"deploy","arguments":{"env":"dev"},"arguments":{"env":"prod"}`)},
		{"arguments twice, prod first", "writer", h, raw("1", `"name":"deploy","arguments":{"env":"prod"},"arguments":{"env":"dev"}`)},
		{"Arguments in upper case", "writer", h, raw("1", `"name":"deploy","arguments":{"env":"dev"},"Arguments":{"env":"prod"}`)},
		{"Arguments in upper case, dev last", "writer", h, raw("1", `"name":"deploy","arguments":{"env":"prod"},"Arguments":{"env":"dev"}`)},
		{"params twice", "writer", h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"env":"prod"},` + meta + `},"params":{"name":"deploy","arguments":{"env":"dev"},` + meta + `}}`},
		{"ARGUMENTS only", "writer", h, raw("1", `"name":"deploy","ARGUMENTS":{"env":"prod"}`)},
		{"name twice", "writer", h, raw("1", `"name":"status","name":"deploy","arguments":{"env":"prod"}`)},
		{"NAME in upper case", "writer", h, raw("1", `"name":"status","NAME":"deploy","arguments":{"env":"prod"}`)},
		{"escaped name", "writer", h, raw("1", `"name":"\u0064eploy","arguments":{"env":"prod"}`)},
		{"escaped env", "writer", h, raw("1", `"name":"deploy","arguments":{"\u0065nv":"\u0070rod"}`)},
		{"env in a nested array", "writer", h, raw("1", `"name":"deploy","arguments":{"env":[["prod"]]}`)},
		{"method header lower case", "writer", hv("Mcp-Method", "TOOLS/CALL"), raw("1", `"name":"deploy","arguments":{"env":"prod"}`)},
		{"old version header", "writer", hv("Mcp-Protocol-Version", "2025-06-18"), raw("1", `"name":"deploy","arguments":{"env":"prod"}`)},
		{"version header with space", "writer", hv("Mcp-Protocol-Version", "2026-07-28 "), raw("1", `"name":"deploy","arguments":{"env":"prod"}`)},
		{"name header with zero width", "writer", hv("Mcp-Name", "deploy\u200b"), raw("1", `"name":"deploy\u200b","arguments":{"env":"prod"}`)},
		{"fullwidth name", "writer", hv("Mcp-Name", "ｄｅｐｌｏｙ"), raw("1", `"name":"ｄｅｐｌｏｙ","arguments":{"env":"prod"}`)},
		{"padded and duplicate scopes", "dups", h, raw("1", `"name":"deploy","arguments":{"env":"prod"}`)},
		{"batch", "writer", h, "[" + raw("1", `"name":"deploy","arguments":{"env":"prod"}`) + "]"},
	}
	for _, a := range attacks {
		resp, body := rs.post(t, a.token, a.headers, a.body)
		t.Logf("%s: %d %.200s", a.name, resp.StatusCode, body)
	}
	rs.mu.Lock()
	ran := strings.Join(rs.envs, ",")
	rs.mu.Unlock()
	if strings.Contains(ran, "prod") {
		t.Fatalf("deploy ran for prod without deploy:prod: runs %q", ran)
	}
	// Near misses run.
	for _, params := range []string{`"name":"deploy","arguments":{"env":"dev"}`, `"name":"\u0064eploy","arguments":{"\u0065nv":"dev"}`} {
		if resp, body := rs.post(t, "writer", h, raw("2", params)); resp.StatusCode != http.StatusOK || !strings.Contains(body, "deploy ran for dev") {
			t.Errorf("near miss %s: %d %s", params, resp.StatusCode, body)
		}
	}
	if resp, body := rs.post(t, "prod", h, raw("3", `"name":"deploy","arguments":{"env":"prod"}`)); !strings.Contains(body, "deploy ran for prod") {
		t.Errorf("prod token: %d %s", resp.StatusCode, body)
	}
}

// TestRedTeam21_ApprovedModificationDefaults: a human (an Asker) approving
// the call with arguments that leave env out, for the handler (Args) or
// for the handler only (RunArgs), runs the schema's default env "prod":
// the modified call is checked on its defaulted arguments too.
func TestRedTeam21_ApprovedModificationDefaults(t *testing.T) {
	askPolicy := scopePolicy + "  tool_rules:\n    - tool: deploy\n      action: ask\n"
	for name, ans := range map[string]gatehouse.Answer{
		"args":     {Approved: true, Args: map[string]any{}},
		"run args": {Approved: true, RunArgs: map[string]any{}},
	} {
		t.Run(name, func(t *testing.T) {
			asker := gatehouse.AskerFunc(func(context.Context, gatehouse.AskRequest) (gatehouse.Answer, error) { return ans, nil })
			rs := newRT21ServerPolicy(t, `{"type":"object","properties":{"env":{"type":"string","default":"prod"}}}`, askPolicy,
				&gatehouse.Options{Ask: &gatehouse.AskOptions{Asker: asker}})
			resp, body := rs.post(t, "writer", newHeaders("deploy"), rt21Body("deploy", `{"env":"dev"}`))
			if rs.runs.Load() != 0 || !strings.Contains(body, `"missingScopes":["deploy:prod"]`) || resp.StatusCode != http.StatusForbidden {
				t.Fatalf("modified call: runs %d, %d %s", rs.runs.Load(), resp.StatusCode, body)
			}
		})
	}
	// Near miss: an approval that keeps env dev runs.
	asker := gatehouse.AskerFunc(func(context.Context, gatehouse.AskRequest) (gatehouse.Answer, error) {
		return gatehouse.Answer{Approved: true}, nil
	})
	rs := newRT21ServerPolicy(t, `{"type":"object","properties":{"env":{"type":"string","default":"prod"}}}`, askPolicy,
		&gatehouse.Options{Ask: &gatehouse.AskOptions{Asker: asker}})
	if _, body := rs.post(t, "writer", newHeaders("deploy"), rt21Body("deploy", `{"env":"dev"}`)); !strings.Contains(body, "deploy ran for dev") {
		t.Fatalf("approved dev: %s", body)
	}
}

// TestRedTeam21_UnreadableSchemaDefaultsDeny: a tool with argument rules
// whose input schema has defaults that cannot be applied (a dangling
// $ref) is refused: the arguments its handler gets are unknown. Near
// miss: a tool without argument rules is not affected.
func TestRedTeam21_UnreadableSchemaDefaultsDeny(t *testing.T) {
	sp, err := scope.Parse([]byte(scopeDoc))
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, scopePolicy), &gatehouse.Options{DefaultAgent: "agent", Scopes: &gatehouse.ScopeOptions{Policy: sp}})
	runs := 0
	bad := json.RawMessage(`{"type":"object","properties":{"env":{"$ref":"#/$defs/missing","default":"prod"}}}`)
	ct := serve(t, g, func(s *mcp.Server) {
		for _, name := range []string{"deploy", "status"} {
			s.AddTool(&mcp.Tool{Name: name, InputSchema: bad}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				runs++
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
			})
		}
	})
	c := dialRaw(t, ct, "2025-06-18")
	e := rpcErr(c.callTool(1, "deploy", map[string]any{"env": "dev"}))
	if e == nil || runs != 0 || !strings.Contains(fmt.Sprint(e), "input schema") {
		t.Fatalf("deploy with an unreadable schema: %v, runs %d", e, runs)
	}
	// status needs mcp:tools, which no token grants here, and has no
	// argument rules, so the scopes do not read its schema. But the
	// policy applies the schema's defaults too and cannot: no token could
	// run the call, so it gets the policy's refusal, not a scope
	// challenge (TestNoScopeChallengeForACallThatCannotRun).
	e = rpcErr(c.callTool(2, "status", map[string]any{}))
	if e == nil || !strings.Contains(fmt.Sprint(e), "input-schema defaults cannot be applied") || strings.Contains(fmt.Sprint(e), "mcp:tools") {
		t.Fatalf("status: %v", e)
	}
	if runs != 0 {
		t.Fatalf("runs %d", runs)
	}
}

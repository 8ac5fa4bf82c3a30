package gatehouse_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/scope"
)

const scopeDoc = `apiVersion: gatehouse.dev/v1alpha1
kind: ToolScopes
default:
  any: [mcp:tools]
tools:
  - name: deploy
    all: [deploy:write]
    when:
      - args: {env: prod}
        all: [deploy:prod]
  - name: admin_reset
    all: [admin]
`

const scopePolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: scopes}
spec:
  allowed_tools: [deploy, status, admin_reset]
`

// scopeServer is a streamable-HTTP MCP server behind go-sdk's bearer-token
// middleware and the guard's scope challenges, with an authorization
// server that issues any scope asked for.
type scopeServer struct {
	as       *testAS
	url      string // the MCP endpoint
	prm      string // the protected-resource metadata URL
	runs     atomic.Int32
	log      *syncBuffer
	statuses *statusLog
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

// statusLog records the HTTP status of every tools/call POST.
type statusLog struct {
	mu sync.Mutex
	s  []int
}

func (l *statusLog) add(code int) { l.mu.Lock(); l.s = append(l.s, code); l.mu.Unlock() }
func (l *statusLog) all() []int   { l.mu.Lock(); defer l.mu.Unlock(); return slices.Clone(l.s) }

// statusRecorder logs the status when the header goes out (the client may
// have its answer before the handler returns).
type statusRecorder struct {
	http.ResponseWriter
	log  *statusLog // nil: not a tools/call
	sent bool
}

func (r *statusRecorder) WriteHeader(c int) {
	if !r.sent && r.log != nil {
		r.log.add(c)
	}
	r.sent = true
	r.ResponseWriter.WriteHeader(c)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if !r.sent {
		r.WriteHeader(http.StatusOK)
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func newScopeServer(t *testing.T, o *gatehouse.Options) *scopeServer {
	t.Helper()
	return newScopeRig(t, scopeRig{opts: o})
}

// scopeRig varies newScopeServer.
type scopeRig struct {
	policy       string                           // the AIP policy; "" is scopePolicy
	opts         *gatehouse.Options               // as newScopeServer's
	setup        func(*mcp.Server, *atomic.Int32) // run on the server before the guard is installed (runs counts handler runs)
	jsonResponse bool                             // StreamableHTTPOptions.JSONResponse: application/json, not SSE
}

func newScopeRig(t *testing.T, rig scopeRig) *scopeServer {
	t.Helper()
	o, src := rig.opts, rig.policy
	if src == "" {
		src = scopePolicy
	}
	sp, err := scope.Parse([]byte(scopeDoc))
	if err != nil {
		t.Fatal(err)
	}
	ss := &scopeServer{as: newTestAS(t), log: &syncBuffer{}, statuses: &statusLog{}}
	mux := http.NewServeMux()
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	ss.url, ss.prm = hs.URL+"/mcp", hs.URL+"/.well-known/oauth-protected-resource/mcp"
	w, err := audit.New(ss.log, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o == nil {
		o = &gatehouse.Options{}
	}
	o.Audit = w
	var maxBody int64
	if o.Scopes != nil {
		maxBody = o.Scopes.MaxBodyBytes
	}
	o.Scopes = &gatehouse.ScopeOptions{Policy: sp, ResourceMetadataURL: ss.prm, MaxBodyBytes: maxBody}
	g := mustGuard(t, mustPolicy(t, src), o)
	s := mcp.NewServer(&mcp.Implementation{Name: "scoped", Version: "1"}, nil)
	for _, name := range []string{"deploy", "status", "admin_reset"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ss.runs.Add(1)
			var args struct{ Env string }
			json.Unmarshal(req.Params.Arguments, &args)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " ran for " + args.Env}}}, nil
		})
	}
	if rig.setup != nil {
		rig.setup(s, &ss.runs)
	}
	g.Install(s)
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: rig.jsonResponse})
	protected := auth.RequireBearerToken(ss.as.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: ss.prm})(g.ScopeChallenges(streamable))
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		if r.Header.Get("Mcp-Method") == "tools/call" {
			rec.log = ss.statuses
		}
		protected.ServeHTTP(rec, r)
	}))
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: ss.url, AuthorizationServers: []string{ss.as.srv.URL}, ScopesSupported: []string{"mcp:tools", "deploy:write", "deploy:prod", "admin"},
	}))
	return ss
}

// bearer adds a fixed token (the clients without an OAuth handler).
type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func (ss *scopeServer) client(t *testing.T, token, protocol string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: ss.url, HTTPClient: &http.Client{Transport: bearerRT{token}}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "scope-test", Version: "1"}, nil).Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// post sends one raw 2026-07-28 tools/call with the standard headers.
func (ss *scopeServer) post(t *testing.T, token string, headers map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ss.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, sseData(string(raw))
}

// sseData is the JSON of a response: the body, or its first SSE data line.
func sseData(body string) string {
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.HasPrefix(d, "{") {
			return d
		}
	}
	return body
}

func newCallBody(name string, args any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{
		"name": name, "arguments": args,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		},
	}})
	return string(b)
}

func newHeaders(name string) map[string]string {
	return map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name}
}

// TestScopeChallenge20260728: a token without deploy:prod calling deploy
// {env: prod} on protocol 2026-07-28 gets HTTP 403 with the exact step-up
// challenge and a SEP-2643 shaped body, and the tool never runs; the same
// token's near-miss call (env staging) goes through with its body intact.
func TestScopeChallenge20260728(t *testing.T) {
	ss := newScopeServer(t, nil)
	tok := ss.as.issue("mcp:tools", "deploy:write")
	resp, body := ss.post(t, tok, newHeaders("deploy"), newCallBody("deploy", map[string]any{"env": "prod"}))
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d, body %s", resp.StatusCode, body)
	}
	want := `Bearer error="insufficient_scope", scope="deploy:write deploy:prod", resource_metadata="` + ss.prm + `"`
	if got := resp.Header.Values("WWW-Authenticate"); len(got) != 1 || got[0] != want {
		t.Errorf("WWW-Authenticate %q\nwant %q", got, want)
	}
	checkDenialBody(t, body, "deploy:write deploy:prod", []string{"deploy:prod"}, ss.prm)
	if n := ss.runs.Load(); n != 0 {
		t.Fatalf("the tool ran %d times", n)
	}
	resp, body = ss.post(t, tok, newHeaders("deploy"), newCallBody("deploy", map[string]any{"env": "staging"}))
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "deploy ran for staging") {
		t.Fatalf("near miss: %d %s", resp.StatusCode, body)
	}
	log := ss.log.String()
	if !strings.Contains(log, `"scopes_granted":["mcp:tools","deploy:write"]`) || !strings.Contains(log, `"scopes_required":["deploy:write","deploy:prod"]`) || !strings.Contains(log, `"scopes_required":["deploy:write"]`) {
		t.Errorf("audit log lacks the scope decisions:\n%s", log)
	}
	if strings.Contains(log, tok) {
		t.Errorf("audit log holds the token")
	}
	if _, err := audit.Verify(strings.NewReader(log), nil); err != nil {
		t.Errorf("the audit log with scope metadata does not verify: %v", err)
	}
}

// checkDenialBody checks a JSON-RPC response or error carrying the scope
// denial shape (docs: README "Scopes per tool").
func checkDenialBody(t *testing.T, body, wantScope string, wantMissing []string, prm string) {
	t.Helper()
	var resp struct {
		Error *jsonrpc.Error `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil || resp.Error == nil {
		t.Fatalf("body %s: %v", body, err)
	}
	checkDenial(t, resp.Error, wantScope, wantMissing, prm)
}

func checkDenial(t *testing.T, e *jsonrpc.Error, wantScope string, wantMissing []string, prm string) {
	t.Helper()
	var data struct {
		Tool          string
		Reason        string
		Authorization struct {
			Reason                string
			CredentialDisposition string
			RemediationHints      []struct {
				Type             string
				Scope            string
				MissingScopes    []string
				ResourceMetadata string `json:"resource_metadata"`
			}
		}
	}
	if err := json.Unmarshal(e.Data, &data); err != nil {
		t.Fatalf("data %s: %v", e.Data, err)
	}
	a := data.Authorization
	if e.Code != -32001 || e.Message != "Forbidden" || data.Tool == "" || !strings.Contains(data.Reason, strings.Join(wantMissing, " ")) ||
		a.Reason != "insufficient_authorization" || a.CredentialDisposition != "replacement" || len(a.RemediationHints) != 1 {
		t.Fatalf("denial %d %q %s", e.Code, e.Message, e.Data)
	}
	h := a.RemediationHints[0]
	if h.Type != "oauth_scope" || h.Scope != wantScope || !slices.Equal(h.MissingScopes, wantMissing) || h.ResourceMetadata != prm {
		t.Fatalf("hint %+v", h)
	}
}

// TestScopeDenialJSONRPC20250618: the same call from a go-sdk client of
// protocol 2025-06-18 gets no 403 (its HTTP exchange succeeds) but the
// JSON-RPC denial naming the missing scope, and the tool never runs.
func TestScopeDenialJSONRPC20250618(t *testing.T) {
	ss := newScopeServer(t, nil)
	cs := ss.client(t, ss.as.issue("mcp:tools", "deploy:write"), "2025-06-18")
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("CallTool error %v (%T), want a JSON-RPC error", err, err)
	}
	checkDenial(t, we, "deploy:write deploy:prod", []string{"deploy:prod"}, ss.prm)
	if ss.runs.Load() != 0 {
		t.Fatal("the tool ran")
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "staging"}}); err != nil {
		t.Fatalf("near miss: %v", err)
	}
}

// TestScopeStepUpWithGoSDKClient: go-sdk's own client OAuth handler
// (auth.AuthorizationCodeHandler) holding a token without deploy:prod
// receives the 403 challenge, asks the authorization server for exactly
// the challenged scopes, gets the wider token, and its retried call
// succeeds, all inside one CallTool.
func TestScopeStepUpWithGoSDKClient(t *testing.T) {
	ss := newScopeServer(t, nil)
	start := ss.as.issue("mcp:tools", "deploy:write")
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient:      &oauthex.ClientCredentials{ClientID: "scope-test-client"},
		RedirectURL:              "http://127.0.0.1/callback",
		AuthorizationCodeFetcher: ss.as.authorize,
		InitialTokenSource:       oauth2.StaticTokenSource(&oauth2.Token{AccessToken: start, TokenType: "Bearer"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := &mcp.StreamableClientTransport{Endpoint: ss.url, OAuthHandler: h, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "step-up", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
	if err != nil {
		t.Fatalf("CallTool after step-up: %v", err)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "deploy ran for prod" || res.IsError {
		t.Fatalf("result %+v", res.Content[0])
	}
	// One authorization request, for exactly the challenged scopes (go-sdk
	// unions them with those it was granted, in map order).
	got := ss.as.requestedScopes()
	var asked []string
	if len(got) == 1 {
		asked = strings.Fields(got[0])
		slices.Sort(asked)
	}
	if !slices.Equal(asked, []string{"deploy:prod", "deploy:write"}) {
		t.Errorf("the client asked the authorization server for %q", got)
	}
	if got := ss.statuses.all(); !slices.Equal(got, []int{http.StatusForbidden, http.StatusOK}) {
		t.Errorf("tools/call HTTP statuses %v, want 403 then 200", got)
	}
	if ss.runs.Load() != 1 {
		t.Errorf("the tool ran %d times", ss.runs.Load())
	}
}

// TestScopeToolsListByToken: tools/list shows each token only what it may
// call and is marked private; a tool hidden from a token is still refused
// when that token calls it by name (403 on 2026-07-28, JSON-RPC before).
func TestScopeToolsListByToken(t *testing.T) {
	ss := newScopeServer(t, nil)
	reader, admin := ss.as.issue("mcp:tools"), ss.as.issue("mcp:tools", "admin", "deploy:write")
	names := func(cs *mcp.ClientSession) []string {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.CacheScope != "private" {
			t.Errorf("cacheScope %q, want private", res.CacheScope)
		}
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		slices.Sort(out)
		return out
	}
	for _, proto := range []string{"2026-07-28", "2025-06-18"} {
		if got := names(ss.client(t, reader, proto)); !slices.Equal(got, []string{"status"}) {
			t.Errorf("%s reader sees %v", proto, got)
		}
		if got := names(ss.client(t, admin, proto)); !slices.Equal(got, []string{"admin_reset", "deploy", "status"}) {
			t.Errorf("%s admin sees %v", proto, got)
		}
	}
	resp, body := ss.post(t, reader, newHeaders("admin_reset"), newCallBody("admin_reset", map[string]any{}))
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("WWW-Authenticate") != `Bearer error="insufficient_scope", scope="admin", resource_metadata="`+ss.prm+`"` {
		t.Errorf("hidden tool called on 2026-07-28: %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}
	_, err := ss.client(t, reader, "2025-06-18").CallTool(context.Background(), &mcp.CallToolParams{Name: "admin_reset", Arguments: map[string]any{}})
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("hidden tool called on 2025-06-18: %v", err)
	}
	checkDenial(t, we, "admin", []string{"admin"}, ss.prm)
	if ss.runs.Load() != 0 {
		t.Fatal("a hidden tool ran")
	}
}

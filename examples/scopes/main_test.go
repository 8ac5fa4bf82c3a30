package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func start(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	h, err := newHandler(".", "tokens.txt", srv.URL, "https://auth.example.com")
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/", h)
	return srv.URL
}

func connect(t *testing.T, base, token, proto string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: proto})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestExample: the tokens file's three tokens see and may call different
// tools; a deployer's deploy to production is a 403 step-up challenge on
// 2026-07-28 and a JSON-RPC denial on 2025-06-18; the release token
// deploys.
func TestExample(t *testing.T) {
	base := start(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"env":"Production"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"curl","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	for k, v := range map[string]string{"Authorization": "Bearer deployer-9e47d3b8", "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "deploy"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `Bearer error="insufficient_scope", scope="deploy:write deploy:prod", resource_metadata="` + base + `/.well-known/oauth-protected-resource/mcp"`
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("WWW-Authenticate") != want {
		t.Fatalf("%d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), raw)
	}

	_, err = connect(t, base, "deployer-9e47d3b8", "2025-06-18").CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || !strings.Contains(string(we.Data), `"missingScopes":["deploy:prod"]`) {
		t.Fatalf("2025-06-18 deployer: %v", err)
	}
	res, err := connect(t, base, "release-c02a6f71", "").CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "deployed to prod" {
		t.Fatalf("release token: %v %+v", err, res)
	}
	for token, tools := range map[string][]string{"reader-5b1f0c2a": {"status"}, "deployer-9e47d3b8": {"deploy", "status"}} {
		lr, err := connect(t, base, token, "").ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tl := range lr.Tools {
			got = append(got, tl.Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, tools) || lr.CacheScope != "private" {
			t.Errorf("%s lists %v (%q)", token, got, lr.CacheScope)
		}
	}
}

func TestTokensFileErrors(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"no-scope":  "tok\n",
		"bad-scope": "tok a\"b\n",
		"twice":     "tok a\ntok b\n",
		"empty":     "# nothing\n",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o600)
		if _, err := loadTokens(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

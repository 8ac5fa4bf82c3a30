package gatehouse_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/scope"
)

// Example_scopesPerTool is the README's "Scopes per tool" snippet, run: a
// deploy to prod with a token that has only deploy:write is answered with
// the step-up challenge.
func Example_scopesPerTool() {
	dir, _ := os.MkdirTemp("", "scopes")
	defer os.RemoveAll(dir)
	scopesFile := filepath.Join(dir, "scopes.yaml")
	os.WriteFile(scopesFile, []byte("apiVersion: gatehouse.dev/v1alpha1\nkind: ToolScopes\ntools:\n  - name: deploy\n    all: [deploy:write]\n    when:\n      - args: {env: prod}\n        all: [deploy:prod]\n"), 0o600)
	p, _ := policy.Parse([]byte("apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: ex}\nspec: {allowed_tools: [deploy]}\n"))
	server := mcp.NewServer(&mcp.Implementation{Name: "ex", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "deploy", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	getServer := func(*http.Request) *mcp.Server { return server }
	verify := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{Scopes: []string{"deploy:write"}, Expiration: time.Now().Add(time.Hour)}, nil
	}
	prmURL := "https://mcp.example.com/.well-known/oauth-protected-resource"

	sp, err := scope.Load(scopesFile) // the document above; or scope.New(scope.Config{...}) in Go
	guard, err := gatehouse.New(p, &gatehouse.Options{Scopes: &gatehouse.ScopeOptions{Policy: sp, ResourceMetadataURL: prmURL}})
	guard.Install(server)
	handler := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL})(
		guard.ScopeChallenges(mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true})))

	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(handler)
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"env":"prod"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
	for k, v := range map[string]string{"Authorization": "Bearer t", "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "deploy"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	fmt.Println(resp.Header.Get("WWW-Authenticate"))
	// Output:
	// 403
	// Bearer error="insufficient_scope", scope="deploy:write deploy:prod", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"
}

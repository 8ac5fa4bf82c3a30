// Command scopes serves an MCP server over streamable HTTP whose tools need
// OAuth scopes: a tokens file maps bearer tokens to scopes, scopes.yaml says
// which scopes each tool (and deploy to prod) needs. Clients of protocol
// 2026-07-28 that lack a scope get HTTP 403 with an insufficient_scope
// step-up challenge; older clients get the JSON-RPC denial; tools/list shows
// each token only what it may call.
//
//	go run ./examples/scopes [-http 127.0.0.1:8080] [-tokens examples/scopes/tokens.txt]
//
// then, for example:
//
//	curl -i http://127.0.0.1:8080/mcp -H 'Authorization: Bearer deployer-9e47d3b8' \
//	  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
//	  -H 'Mcp-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: deploy' \
//	  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"env":"prod"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"curl","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}'
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/scope"
)

func main() {
	addr := flag.String("http", "127.0.0.1:8080", "listen address")
	dir := flag.String("dir", "", "directory of policy.yaml, scopes.yaml and tokens.txt (default: examples/scopes or the current directory)")
	tokens := flag.String("tokens", "", "tokens file: lines of `token scope...` (default: tokens.txt in -dir)")
	issuer := flag.String("issuer", "https://auth.example.com", "authorization server named in the protected-resource metadata")
	flag.Parse()
	if err := run(*addr, *dir, *tokens, *issuer); err != nil {
		fmt.Fprintln(os.Stderr, "scopes:", err)
		os.Exit(1)
	}
}

func run(addr, dir, tokens, issuer string) error {
	if dir == "" {
		dir = "examples/scopes"
		if _, err := os.Stat(filepath.Join(dir, "scopes.yaml")); err != nil {
			dir = "."
		}
	}
	if tokens == "" {
		tokens = filepath.Join(dir, "tokens.txt")
	}
	if err := sampleTokensOnLoopback(addr, tokens); err != nil {
		return err
	}
	base := "http://" + addr
	h, err := newHandler(dir, tokens, base, issuer)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "scopes: MCP at %s/mcp\n", base)
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	return srv.ListenAndServe()
}

// newHandler is the whole server: MCP at /mcp behind bearer tokens and the
// guard's scope challenges, and its protected-resource metadata (RFC 9728).
func newHandler(dir, tokensFile, base, issuer string) (http.Handler, error) {
	p, err := policy.Load(filepath.Join(dir, "policy.yaml"))
	if err != nil {
		return nil, err
	}
	sp, err := scope.Load(filepath.Join(dir, "scopes.yaml"))
	if err != nil {
		return nil, err
	}
	verify, err := loadTokens(tokensFile)
	if err != nil {
		return nil, err
	}
	prm := base + "/.well-known/oauth-protected-resource/mcp"
	guard, err := gatehouse.New(p, &gatehouse.Options{Scopes: &gatehouse.ScopeOptions{Policy: sp, ResourceMetadataURL: prm}})
	if err != nil {
		return nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "scopes-example", Version: "1"}, nil)
	addTools(s)
	guard.Install(s)
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prm})(guard.ScopeChallenges(mcpHandler)))
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: base + "/mcp", AuthorizationServers: []string{issuer}, ScopesSupported: []string{"mcp:tools", "deploy:write", "deploy:prod", "admin"},
	}))
	return mux, nil
}

type deployArgs struct {
	Env string `json:"env" jsonschema:"the environment to deploy to"`
}

func addTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "status", Description: "service status"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "all green"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "deploy", Description: "deploy the service"}, func(ctx context.Context, _ *mcp.CallToolRequest, a deployArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed to " + a.Env}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "admin_reset", Description: "reset everything"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "reset"}}}, nil, nil
	})
}

// loadTokens reads `token scope...` lines into a verifier. Tokens are
// looked up by their SHA-256, so lookup time says nothing about a token's
// bytes; every scope must be an RFC 6749 scope-token.
// sampleTokens are the tokens of the tokens.txt this example ships: they
// are public, so they are served on loopback addresses only.
var sampleTokens = []string{"reader-5b1f0c2a", "deployer-9e47d3b8", "release-c02a6f71"}

// sampleTokensOnLoopback refuses a tokens file holding a sample token when
// addr is not a loopback address.
func sampleTokensOnLoopback(addr, tokensFile string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-http %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	data, err := os.ReadFile(tokensFile)
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 0 && slices.Contains(sampleTokens, f[0]) {
			return fmt.Errorf("%s holds the example's public sample tokens, and -http %s is not a loopback address: give -tokens FILE with tokens of your own", tokensFile, addr)
		}
	}
	return nil
}

func loadTokens(path string) (auth.TokenVerifier, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	byHash := map[[32]byte][]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("%s:%d: a token needs at least one scope", path, n)
		}
		for _, s := range f[1:] {
			if err := scope.ValidToken(s); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, n, err)
			}
		}
		h := sha256.Sum256([]byte(f[0]))
		if _, dup := byHash[h]; dup {
			return nil, fmt.Errorf("%s:%d: token listed twice", path, n)
		}
		byHash[h] = f[1:]
	}
	if len(byHash) == 0 {
		return nil, errors.New(path + ": no tokens")
	}
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		scopes, ok := byHash[sha256.Sum256([]byte(token))]
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		id := sha256.Sum256([]byte(token))
		return &auth.TokenInfo{UserID: fmt.Sprintf("token-%x", id[:6]), Scopes: scopes, Expiration: time.Now().Add(time.Hour)}, nil
	}, nil
}

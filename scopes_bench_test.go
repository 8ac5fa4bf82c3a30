package gatehouse_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/scope"
)

// BenchmarkScopeStage is the middleware's cost per tools/call with and
// without the scope stage (DLP off, no audit, as BenchmarkMiddleware's
// policy-only), so the difference is the stage:
//
//	off        no Options.Scopes
//	tool       the tool needs one scope the token has
//	args       as tool, plus an argument rule read over the arguments (no match)
//	denied     the token lacks the scope: the SEP-2643 denial is built
//	defaults   as args, on a tool whose input schema has a default (the
//	           schema is resolved and the defaults applied per call)
func BenchmarkScopeStage(b *testing.B) {
	for _, name := range []string{"off", "tool", "args", "denied", "defaults"} {
		b.Run(name, func(b *testing.B) {
			o := &gatehouse.Options{DLP: &gatehouse.DLPOptions{Off: true}, Pins: &gatehouse.PinOptions{Off: true}}
			granted := []string{"mcp:tools", "web:read"}
			cfg := scope.Config{Tools: []scope.Tool{{Name: "fetch", Requirement: scope.Requirement{All: []string{"web:read"}}}}}
			switch name {
			case "args", "defaults":
				cfg.Tools[0].When = []scope.When{{Args: map[string][]string{"url": {"*evil*"}}, Requirement: scope.Requirement{All: []string{"web:evil"}}}}
			case "denied":
				granted = []string{"mcp:tools"}
			}
			if name != "off" {
				sp, err := scope.New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				o.Scopes = &gatehouse.ScopeOptions{Policy: sp, ResourceMetadataURL: "https://mcp.example.com/.well-known/oauth-protected-resource"}
			}
			g := mustGuard(b, mustPolicy(b, benchPolicySrc), o)
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: result1K}}}
			// The argument rule reads the tool's listed definition (its
			// schema defaults) through the server's tools/list, on a session.
			schema := `{"type":"object","properties":{"url":{"type":"string"}}}`
			if name == "defaults" {
				schema = `{"type":"object","properties":{"url":{"type":"string"},"depth":{"type":"integer","default":1}}}`
			}
			list := &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "fetch", InputSchema: json.RawMessage(schema)}}}
			next := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" {
					return list, nil
				}
				return res, nil
			}
			st, _ := mcp.NewInMemoryTransports()
			ss, err := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), st, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			recv, _ := g.Middleware()
			h := recv(next)
			req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "fetch", Arguments: json.RawMessage(`{"url":"https://github.com/gatehouse-dev/gatehouse"}`)},
				Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "alice", Scopes: granted}}}
			ctx := context.Background()
			_, err = h(ctx, "tools/call", req)
			if (err != nil) != (name == "denied") {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				h(ctx, "tools/call", req)
			}
		})
	}
}

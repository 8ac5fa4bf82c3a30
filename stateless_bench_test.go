package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkStatelessHTTP is a tools/call round trip over go-sdk's stateless
// streamable-HTTP handler (a session per request, protocol 2026-07-28),
// with a go-sdk client on loopback, to a server of 20 tools, unguarded and
// guarded (the benchmark policy, pinning on, DLP on the result, no audit):
// the guard's share of a call on the deployment that serves 2026-07-28.
func BenchmarkStatelessHTTP(b *testing.B) {
	for _, guarded := range []bool{false, true} {
		b.Run(fmt.Sprintf("guarded=%v", guarded), func(b *testing.B) {
			s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			handler := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			}
			for i := range 19 {
				s.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool_%02d", i), Description: strings.Repeat("d", 200),
					InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)}, handler)
			}
			s.AddTool(&mcp.Tool{Name: "fetch", InputSchema: json.RawMessage(`{"type":"object"}`)}, handler)
			if guarded {
				mustGuard(b, mustPolicy(b, benchPolicySrc), nil).Install(s)
			}
			hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
			defer hs.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, nil).Connect(context.Background(),
				&mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: newProtocol})
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			ctx := context.Background()
			params := &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"url": "https://github.com/gatehouse-dev/gatehouse"}}
			if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
				b.Fatalf("call: %v %v", res, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

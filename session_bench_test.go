package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkSessionChurn is the guard's cost per allowed tools/call when
// each call comes on another session than the last, as on go-sdk's
// stateless streamable-HTTP handler (protocol 2026-07-28), which makes a
// session per request: the guard reads the session's tools/list for the
// call (its tool index and the pin stage). The server lists n tools with
// 200-byte descriptions; the handler is a stub, DLP off.
func BenchmarkSessionChurn(b *testing.B) {
	for _, n := range []int{20, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			g := mustGuard(b, mustPolicy(b, benchPolicySrc), nil)
			list := &mcp.ListToolsResult{}
			for i := range n - 1 {
				list.Tools = append(list.Tools, &mcp.Tool{Name: fmt.Sprintf("tool_%04d", i), Description: strings.Repeat("d", 200),
					InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)})
			}
			list.Tools = append(list.Tools, &mcp.Tool{Name: "fetch", InputSchema: json.RawMessage(`{"type":"object"}`)})
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}
			next := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" {
					return list, nil
				}
				return res, nil
			}
			recv, _ := g.Middleware()
			h := recv(next)
			var reqs [2]*mcp.CallToolRequest
			for i := range reqs {
				st, _ := mcp.NewInMemoryTransports()
				ss, err := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), st, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { ss.Close() })
				reqs[i] = &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "fetch",
					Arguments: json.RawMessage(`{"url":"https://github.com/gatehouse-dev/gatehouse"}`)}}
			}
			ctx := context.Background()
			for _, r := range reqs {
				if out, err := h(ctx, "tools/call", r); err != nil || out.(*mcp.CallToolResult).IsError {
					b.Fatalf("call: %v %v", out, err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if _, err := h(ctx, "tools/call", reqs[i&1]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

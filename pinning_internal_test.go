package gatehouse

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// BenchmarkPinStage is the pin stage alone on a server with n tools: one
// tools/list through the server's own handler, the called tool's
// definition digested (RFC 8785, SHA-256) and compared with its pin.
func BenchmarkPinStage(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			p, err := policy.Parse([]byte("apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: t}\nspec: {allowed_tools: [tool0]}\n"))
			if err != nil {
				b.Fatal(err)
			}
			g, err := New(p, nil)
			if err != nil {
				b.Fatal(err)
			}
			s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			for i := range n {
				s.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool%d", i), Description: "Reads one record of the inventory by its identifier.",
					InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","description":"the record's identifier"}},"required":["id"]}`),
					Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
					func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						return &mcp.CallToolResult{}, nil
					})
			}
			srv := g.newServed()
			s.AddReceivingMiddleware(g.middleware(srv))
			if err := srv.index.load(s); err != nil {
				b.Fatal(err)
			}
			st, _ := mcp.NewInMemoryTransports()
			ss, err := s.Connect(context.Background(), st, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "tool0"}}
			b.ReportAllocs()
			for b.Loop() {
				c := &call{ctx: context.Background(), req: req, srv: srv, rawTool: "tool0", tool: "tool0"}
				if r := g.pinStage(c); r != nil {
					b.Fatal(r.d.Reason)
				}
			}
		})
	}
}

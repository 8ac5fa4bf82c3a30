package gatehouse_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

const allowWipePolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [wipe]
`

// Two Guards on one server (an organisation's guard outside the
// application's): the AddTool wrapper of a tool registered with the outer
// Guard answers for the outer Guard's call, which the inner Guard's call
// shadows in the handler's context. Allowed by both, it runs; asked by the
// outer one, it never runs unasked (the inner Guard's listing hides the
// outer one's marker, so the outer Guard finds no elicitation to ask
// through and, without an Asker, refuses).
func TestRedTeamRTE_StackedGuardsAddTool(t *testing.T) {
	for _, tc := range []struct {
		outer string
		runs  int64
	}{{allowWipePolicy, 1}, {askWipePolicy, 0}} {
		inner := mustGuard(t, mustPolicy(t, allowWipePolicy), nil)
		outer := mustGuard(t, mustPolicy(t, tc.outer), nil)
		var runs atomic.Int64
		ct := serve(t, nil, func(s *mcp.Server) {
			gatehouse.AddTool(s, outer, &mcp.Tool{Name: "wipe"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
				runs.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wiped"}}}, nil, nil
			})
			inner.Install(s)
			outer.Install(s)
		})
		res := dialRaw(t, ct, newProtocol).callTool(1, "wipe", map[string]any{})
		if runs.Load() != tc.runs {
			t.Fatalf("outer policy %q: ran %d times, want %d: %v", tc.outer, runs.Load(), tc.runs, res)
		}
	}
}

// AddTool's doc: a call that did not pass through g is refused. Another
// Guard's call is not g's.
func TestRedTeamRTE_AddToolUnderAnotherGuard(t *testing.T) {
	installed := mustGuard(t, mustPolicy(t, allowWipePolicy), nil)
	other := mustGuard(t, mustPolicy(t, askWipePolicy), nil)
	var runs atomic.Int64
	ct := serve(t, installed, func(s *mcp.Server) {
		gatehouse.AddTool(s, other, &mcp.Tool{Name: "wipe"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			runs.Add(1)
			return &mcp.CallToolResult{}, nil, nil
		})
	})
	res := dialRaw(t, ct, "2025-06-18").callTool(1, "wipe", map[string]any{})
	if runs.Load() != 0 || fmt.Sprint(rpcErr(res)["code"]) != "-32603" {
		t.Fatalf("a tool registered with a guard that is not installed ran: %v", res)
	}
}

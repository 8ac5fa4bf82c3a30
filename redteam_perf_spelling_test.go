package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// A call that spells a listed tool's name another way (case, an
// invisible character, a fullwidth letter) names no tool: it is refused
// as the agent's mistake, -32602 naming the server's tool (the dispatch
// stage's answer, as before unlisted tools were refused at the policy
// stage), not as the server's failure (-32603) or a pinned tool's drift
// (-32013), which do not count against the agent. Near miss: the exact
// name runs.
func TestRedTeamPerf_OtherSpellingIsAgentsMistake(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: spelling}
spec:
  allowed_tools: [wipe_disk]
`
	for _, pinsOff := range []bool{false, true} {
		g := mustGuard(t, mustPolicy(t, src), &gatehouse.Options{Pins: &gatehouse.PinOptions{Off: pinsOff}})
		ct := serve(t, g, func(s *mcp.Server) {
			mcp.AddTool(s, &mcp.Tool{Name: "wipe_disk", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
			})
		})
		c := dialRaw(t, ct, "2025-06-18")
		if res := c.callTool(1, "wipe_disk", map[string]any{}); resultText(res) != "ran" {
			t.Fatalf("pins off %v: the exact name: %v", pinsOff, res)
		}
		for i, name := range []string{"WIPE_DISK", "wipe_disk\u200b", "Wipe_Disk", "wipe_disk "} {
			e := rpcErr(c.callTool(2+i, name, map[string]any{}))
			if e == nil {
				t.Errorf("pins off %v: %q was not refused", pinsOff, name)
				continue
			}
			if fmt.Sprint(e["code"]) != "-32602" || !strings.Contains(toJSON(e["data"]), `the server's tool is \"wipe_disk\"`) {
				t.Errorf("pins off %v: %q: %v, want -32602 naming the server's tool", pinsOff, name, e)
			}
		}
	}
}

func toJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

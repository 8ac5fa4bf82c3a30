package gatehouse_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// Red team of DenyAsToolResult (rtg): a tool's result withheld by the
// result filter (its redacted copy would change a number, it cannot be
// scanned, the audit cannot record a redaction) was answered as a JSON-RPC
// error though DenyAsToolResult promises every refusal of a tools/call as
// a tool result the agent can read; a go-sdk client showed a protocol
// error with the reason lost.
func TestRedTeamRTG_WithheldResultAsToolResult(t *testing.T) {
	results := map[string]*mcp.CallToolResult{
		"inexact number": {Content: []mcp.Content{&mcp.TextContent{Text: "key " + wireKey, Meta: mcp.Meta{"n": json.Number("9007199254740993")}}}},
		"unscannable":    {Content: []mcp.Content{&mcp.TextContent{Text: "see structured"}}, StructuredContent: json.RawMessage(`{"k":"` + wireKey + `","k":"x"}`)},
	}
	for name, r := range results {
		t.Run(name, func(t *testing.T) {
			g := mustGuard(t, mustPolicy(t, wirePol), &gatehouse.Options{DenyAsToolResult: true})
			s := mcp.NewServer(&mcp.Implementation{Name: "w", Version: "1"}, nil)
			s.AddTool(&mcp.Tool{Name: "leak", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return r, nil
			})
			g.Install(s)
			_, cs := connectAt(t, s, "agent", nil, "")
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}})
			if err != nil {
				t.Fatalf("answered as a JSON-RPC error: %v", err)
			}
			raw, _ := json.Marshal(res)
			if !res.IsError || !strings.Contains(string(raw), "withheld") || strings.Contains(string(raw), wireKey) {
				t.Errorf("want a tool error that says the result was withheld: %s", raw)
			}
		})
	}
}

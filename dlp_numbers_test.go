package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRedactedResultKeepsItsNumbers: with the README's default DLP, a
// structured result from which a key is redacted reaches the client with
// its other numbers as the handler wrote them (9007199254740993 used to
// arrive as 9007199254740992, and 1e400 withheld the result); a number
// float64 cannot hold nested in a content item's _meta withholds the
// result with a reason that says so, instead of sending another number.
func TestRedactedResultKeepsItsNumbers(t *testing.T) {
	var res *mcp.CallToolResult
	g := mustGuard(t, mustPolicy(t, wirePol), nil)
	ct := serve(t, g, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "leak", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return res, nil
		})
	})
	c := dialRaw(t, ct, "2025-06-18")
	for i, n := range []string{"9007199254740993", "1e400", "123456789012345678901234567890.5"} {
		res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}},
			StructuredContent: map[string]any{"id": json.Number(n), "note": "key " + wireKey},
			Meta:              mcp.Meta{"x.example/id": json.Number(n)}}
		out := c.callTool(i, "leak", map[string]any{})
		r, _ := out["result"].(map[string]any)
		sc, _ := r["structuredContent"].(map[string]any)
		meta, _ := r["_meta"].(map[string]any)
		if fmt.Sprint(sc["id"]) != n || fmt.Sprint(meta["x.example/id"]) != n || sc["note"] != "key "+awsMarker {
			t.Errorf("%s: the client received %v", n, out)
		}
	}
	res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "key " + wireKey, Meta: mcp.Meta{"n": json.Number("9007199254740993")}}}}
	out := c.callTool(9, "leak", map[string]any{})
	data, _ := json.Marshal(rpcErr(out)["data"])
	if !strings.Contains(string(data), "would change a number") || strings.Contains(fmt.Sprint(out), wireKey) {
		t.Errorf("nested number: the client received %v", out)
	}
}

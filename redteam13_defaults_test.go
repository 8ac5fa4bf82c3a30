package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// Near misses for the defaults check across schema shapes: whatever go-sdk
// fills in (nested objects, $ref into $defs, allOf, an object default that
// holds a path), a handler never runs with a protected path the policy did
// not see; and the same shapes with harmless defaults run.
func TestRedTeam13_DefaultShapes(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: shapes}
spec:
  allowed_tools: [t]
  protected_paths: [~/.ssh]
`
	shapes := []string{
		`{"type":"object","properties":{"opts":{"type":"object","default":{"path":"%s"}}}}`,
		`{"type":"object","properties":{"opts":{"type":"object","properties":{"path":{"type":"string","default":"%s"}}}}}`,
		`{"type":"object","properties":{"opts":{"type":"object","default":{},"properties":{"path":{"type":"string","default":"%s"}}}}}`,
		`{"type":"object","$defs":{"p":{"type":"string","default":"%s"}},"properties":{"path":{"$ref":"#/$defs/p"}}}`,
		`{"type":"object","allOf":[{"properties":{"path":{"type":"string","default":"%s"}}}]}`,
		`{"type":"object","properties":{"list":{"type":"array","default":["%s"]}}}`,
		`{"type":"object","properties":{"PATH":{"type":"string","default":"%s"}}}`,
	}
	calls := []string{`{}`, `{"opts":{}}`, `{"opts":{"x":1}}`}
	for i, shape := range shapes {
		for _, val := range []string{"~/.ssh/id_rsa", "/tmp/notes"} {
			var mu sync.Mutex
			var got []string
			g := mustGuard(t, mustPolicy(t, src), &gatehouse.Options{DenyAsToolResult: true})
			s := mcp.NewServer(&mcp.Implementation{Name: "shapes", Version: "1"}, nil)
			mcp.AddTool(s, &mcp.Tool{Name: "t", InputSchema: json.RawMessage(fmt.Sprintf(shape, val))},
				func(ctx context.Context, _ *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
					b, _ := json.Marshal(a)
					mu.Lock()
					got = append(got, string(b))
					mu.Unlock()
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
				})
			g.Install(s)
			cs, done := connectClient(s, nil)
			for _, args := range calls {
				if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: json.RawMessage(args)}); err != nil {
					t.Fatalf("shape %d %s: %v", i, args, err)
				}
			}
			done()
			mu.Lock()
			for _, a := range got {
				if strings.Contains(a, ".ssh") {
					t.Errorf("shape %d: the handler ran with %s", i, a)
				}
			}
			if val == "/tmp/notes" && len(got) == 0 {
				t.Errorf("shape %d: a harmless default never ran", i)
			}
			mu.Unlock()
		}
	}
}

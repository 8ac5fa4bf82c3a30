package gatehouse_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// Under strict_args_default a tool without allow_args takes no arguments;
// AnnotationDefaults allowed a read-only tool the policy does not mention
// with any arguments at all (red team rtj). Such a call is asked now; one
// without arguments still runs unasked, and a policy without
// strict_args_default allows the arguments as before.
func TestAnnotationDefaultsStrictArgs(t *testing.T) {
	const strict = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  strict_args_default: true
  allowed_tools: [other]
`
	const lenient = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [other]
`
	for _, tc := range []struct {
		name       string
		policy     string
		args       map[string]any
		ran, asked bool
	}{
		{"strict, with arguments", strict, map[string]any{"q": "anything"}, true, true},
		{"strict, without arguments", strict, nil, true, false},
		{"lenient, with arguments", lenient, map[string]any{"q": "anything"}, true, false},
	} {
		var asked, ran atomic.Int32
		asker := gatehouse.AskerFunc(func(context.Context, gatehouse.AskRequest) (gatehouse.Answer, error) {
			asked.Add(1)
			return gatehouse.Answer{Approved: true}, nil
		})
		g := mustGuard(t, mustPolicy(t, tc.policy), &gatehouse.Options{AnnotationDefaults: true, Ask: &gatehouse.AskOptions{Asker: asker}})
		ct := serve(t, g, func(s *mcp.Server) {
			s.AddTool(&mcp.Tool{Name: "search", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					ran.Add(1)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
				})
		})
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: tc.args})
		cs.Close()
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tc.name, err, res)
		}
		if got := (ran.Load() == 1); got != tc.ran {
			t.Errorf("%s: ran %v, want %v", tc.name, got, tc.ran)
		}
		if got := (asked.Load() == 1); got != tc.asked {
			t.Errorf("%s: asked %v, want %v", tc.name, got, tc.asked)
		}
	}
}
